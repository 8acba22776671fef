/**
 * Bonding launches tried as an attacker would (issue 26, "Custody you can trust, part 3", item 4),
 * on the devnet and over HTTP: the launchpad stack's devnet, index and inscriber, the AMM app with
 * the bonding routes mounted, real DRC-20 deploys, mints and deposits.
 *
 * The rule: a curve opens for sale only when the custody holds the tick's whole supply in its own
 * available balance, obtained in a way no third party can race, and a launch that cannot complete
 * ends in a terminal state (`failed`, with its reason), never waiting forever.
 *
 * The launch steps follow the API the service answers: when GET /api/auth/message knows the action
 * `bonding-launch`, the launcher signs the launch, deploys and mints the tick itself and deposits
 * the supply; before that (issue 26), the operator's launch had the custody deploy the tick and mint
 * the whole supply to itself through the inscriber once the deploy was indexed. The attacks are
 * the same on both.
 *
 * Deposits count at N = 2 confirmations; a launch's supply must be deposited within a day.
 */
import { expect } from "chai";
import type { Server } from "node:http";
import { NETWORKS, signMessage } from "../../src/doge";
import { AmmLedger, DepositReader, createAmmApp, openAmmDatabase } from "../../src/services/amm";
import { BondingStore } from "../../src/services/amm/bonding-store";
import { mountBonding } from "../../src/services/amm/bonding-app";
import type { HotWallet } from "../../src/wallet";
import { deployTick, inscribeTransfer, mintTick, sendTransfer } from "../helpers/drc20";
import { TestKey, newKey } from "../helpers/keys";
import { Answer, LaunchpadStack, startLaunchpadStack } from "../helpers/launchpad-stack";
import { jsonRequest } from "../helpers/http";
import { listenLocal } from "../helpers/listen";

const N = 2;
const TOTAL = 1_000_000n;
const PARAMS = {
  totalSupply: TOTAL.toString(),
  sellableSupply: "800000",
  virtualDoge: (100n * 100_000_000n).toString(),
  graduationThreshold: (50n * 100_000_000n).toString(),
};
const DAY = 86_400;

const is4xx = (answer: Answer) => answer.status >= 400 && answer.status < 500;
const show = (answer: Answer) => `${answer.status} ${JSON.stringify(answer.body)}`;

type Flow = "launcher" | "custody";

describe("adversarial: bonding launches (issue 26)", function () {
  this.timeout(900_000);
  let stack: LaunchpadStack;
  let ammDb: ReturnType<typeof openAmmDatabase>;
  let store: BondingStore;
  let server: Server;
  let base: string;
  let apiKey: string;
  let clockOffset = 0;
  const custody = newKey();
  let nonceCounter = 0;

  const now = () => Math.floor(Date.now() / 1000) + clockOffset;
  const call = (method: string, p: string, body?: unknown): Promise<Answer> =>
    jsonRequest(`${base}/api${p}`, method, body === undefined ? {} : { body });
  const mine = () => stack.mine();
  const bury = async () => {
    for (let i = 0; i < N; i++) await mine();
  };
  const nonce = () => `launch-${process.pid}-${++nonceCounter}`;
  /** The text to sign for `params`, or null when the service does not know the action. */
  const authMessage = async (params: Record<string, string>): Promise<string | null> => {
    const answer = await call("GET", `/auth/message?${new URLSearchParams(params)}`);
    return answer.status === 200 && typeof answer.body?.message === "string" ? answer.body.message : null;
  };
  const curveNow = async (symbol: string): Promise<any> => (await call("GET", `/bonding/${symbol}`)).body;
  const available = (address: string, tick: string) =>
    stack.queries.drc20Balance(address, tick.toLowerCase()).available;
  /** DRC-20 payouts of `tick` the custody still owes (not sent yet). */
  const owedTokens = (tick: string) =>
    (
      ammDb
        .prepare(
          "SELECT amount FROM payouts WHERE asset = 'DRC20' AND tick = ? AND status IN ('queued', 'inscribing', 'inscribed')",
        )
        .all(tick) as { amount: string }[]
    ).reduce((sum, p) => sum + BigInt(p.amount), 0n);
  const payoutsTo = (address: string) =>
    ammDb.prepare("SELECT asset, tick, amount, reason FROM payouts WHERE address = ?").all(address) as {
      asset: string;
      tick: string;
      amount: string;
      reason: string;
    }[];
  /** A DRC-20 deposit of `amount` `tick` from `key` to the custody, buried N deep. */
  const depositToken = async (key: TestKey, tick: string, amount: bigint): Promise<string> => {
    const inscribed = await inscribeTransfer(stack.devnet, key, tick, amount);
    await mine();
    const txid = await sendTransfer(stack.devnet, key, inscribed, custody.script);
    await bury();
    return txid;
  };
  /** `key` asks for its unbound DRC-20 deposit back (refund-deposit). */
  const refundDeposit = async (key: TestKey, tick: string, depositTxid: string): Promise<Answer> => {
    const request = { asset: "DRC20", tick, address: key.address, depositTxid };
    const message = await authMessage({ action: "refund-deposit", ...request });
    expect(message, "the refund-deposit message").to.be.a("string");
    return call("POST", "/deposits/refund", { ...request, signature: signMessage(message!, key.privateKey) });
  };
  /** `key` announces `depositTxid` as curve `symbol`'s supply, signing the bonding-supply text. */
  const announceSupply = async (key: TestKey, symbol: string, depositTxid: string): Promise<Answer> => {
    const message = await authMessage({ action: "bonding-supply", symbol, depositTxid });
    expect(message, "the bonding-supply message").to.be.a("string");
    return call("POST", `/bonding/${symbol}/supply`, {
      depositTxid,
      signature: signMessage(message!, key.privateKey),
    });
  };

  /**
   * Launches curve `symbol` for `launcher` with the operator key: signed by the launcher when the
   * service knows bonding-launch, else the operator's launch of before issue 26.
   */
  async function launch(symbol: string, launcher: TestKey): Promise<{ flow: Flow; curve: any }> {
    const auth = { nonce: nonce(), expiresAt: String(now() + 300) };
    const message = await authMessage({
      action: "bonding-launch",
      symbol,
      ...PARAMS,
      address: launcher.address,
      ...auth,
    });
    if (message === null) {
      const launched = await jsonRequest(`${base}/api/bonding/launch`, "POST", {
        token: apiKey,
        body: { symbol, ...PARAMS },
      });
      expect(launched.status, show(launched)).to.equal(202);
      return { flow: "custody", curve: launched.body };
    }
    const launched = await jsonRequest(`${base}/api/bonding/launch`, "POST", {
      token: apiKey,
      body: {
        symbol,
        ...PARAMS,
        launcher: launcher.address,
        nonce: auth.nonce,
        expiresAt: Number(auth.expiresAt),
        signature: signMessage(message, launcher.privateKey),
      },
    });
    expect(launched.status, show(launched)).to.equal(202);
    expect(launched.body.status).to.equal("awaiting_supply");
    return { flow: "launcher", curve: launched.body };
  }

  /** The tick's deploy (max = lim = the total supply): the launcher's own, or the custody's through the inscriber. */
  async function deploy(flow: Flow, symbol: string, launcher: TestKey, curve: any): Promise<void> {
    if (flow === "launcher") {
      await deployTick(stack.devnet, launcher, symbol, TOTAL, TOTAL);
      await mine();
    } else {
      await stack.confirmInscriberJob(curve.deployJobId);
    }
    expect(stack.queries.drc20Tick(symbol.toLowerCase()), `${symbol} is deployed`).to.not.equal(null);
  }

  /** The launch's own mint of the whole supply: the launcher's, or the custody's filed by the pass. */
  async function launchMint(flow: Flow, symbol: string, launcher: TestKey): Promise<void> {
    if (flow === "launcher") {
      await mintTick(stack.devnet, launcher, symbol, TOTAL);
      await mine();
      return;
    }
    await store.runOnce();
    const mintJobId = (await curveNow(symbol)).mintJobId as string | null;
    expect(mintJobId, "the custody's mint is filed").to.be.a("string");
    await stack.confirmInscriberJob(mintJobId!);
  }

  before(async () => {
    stack = await startLaunchpadStack();
    const inscriberAddress = (stack.platform as unknown as { wallet: HotWallet }).wallet.address;
    ammDb = openAmmDatabase(":memory:");
    const deposits = new DepositReader(stack.queries, custody.address, {
      confirmations: N,
      serviceAddresses: [custody.address, inscriberAddress],
    });
    const ledger = new AmmLedger({
      db: ammDb,
      network: NETWORKS.regtest,
      deposits,
      clock: now,
      tickDeployed: (tick) => stack.queries.drc20Tick(tick.toLowerCase())?.tick ?? null,
    });
    store = new BondingStore({
      db: ammDb,
      ledger,
      deposits,
      queries: stack.queries,
      clock: now,
    });
    apiKey = store.issueApiKey("adversarial operator").key;
    ({ server, base } = await listenLocal(
      createAmmApp({
        ledger,
        network: NETWORKS.regtest,
        mount: (app) => mountBonding(app, { store, ledger, network: NETWORKS.regtest }),
      }),
    ));
    await stack.devnet.rpc("devnet_faucet", [custody.address, 100, false]);
    await mine();
  });

  after(async () => {
    server?.close();
    await stack?.stop();
  });

  it("ends a launch whose whole supply a sniper minted first in `failed`, never open for sale and never deploying forever", async () => {
    const SYMBOL = "SNPE";
    const launcher = newKey();
    const sniper = newKey();
    const { flow, curve } = await launch(SYMBOL, launcher);
    await deploy(flow, SYMBOL, launcher, curve);

    // Attack: a mint of the whole supply, made ahead and broadcast as soon as the deploy is indexed.
    await mintTick(stack.devnet, sniper, SYMBOL, TOTAL);
    await mine();
    expect(available(sniper.address, SYMBOL), "the sniper took the whole supply").to.equal(TOTAL);

    // The launch's own mint comes second: the index refuses it (fully minted).
    await launchMint(flow, SYMBOL, launcher);
    expect(available(custody.address, SYMBOL) + available(launcher.address, SYMBOL)).to.equal(0n);
    for (let i = 0; i < 3; i++) await store.runOnce();
    expect((await curveNow(SYMBOL)).status, "a curve whose supply is elsewhere is not for sale").to.not.equal("active");
    const quote = await call("POST", "/bonding/quote", { symbol: SYMBOL, side: "BUY", amountIn: "100000000" });
    expect(is4xx(quote), show(quote)).to.equal(true);

    // The deadline passes: the launch ends, with its reason, instead of waiting for good.
    clockOffset += DAY + 60;
    await store.runOnce();
    const ended = await curveNow(SYMBOL);
    expect(
      [ended.status, typeof ended.error],
      `a sniped launch is ${ended.status} a day later (${ended.error})`,
    ).to.deep.equal(["failed", "string"]);
    expect((await call("GET", "/bonding/active")).body.curves.map((c: any) => c.symbol)).to.not.include(SYMBOL);
  });

  it("never counts a third party's deposit toward a launch's supply, so its refund cannot leave the curve selling tokens the custody lacks", async () => {
    const SYMBOL = "PRTL";
    const launcher = newKey();
    const attacker = newKey();
    const { flow, curve } = await launch(SYMBOL, launcher);
    await deploy(flow, SYMBOL, launcher, curve);

    // Attack: 40% of the supply minted by the attacker right after the deploy; the launch's mint gets the rest.
    await mintTick(stack.devnet, attacker, SYMBOL, 400_000n);
    await mine();
    await launchMint(flow, SYMBOL, launcher);
    let launcherTxid: string | null = null;
    if (flow === "launcher") {
      expect(available(launcher.address, SYMBOL)).to.equal(600_000n);
      launcherTxid = await depositToken(launcher, SYMBOL, 600_000n);
      const credited = await announceSupply(launcher, SYMBOL, launcherTxid);
      expect(credited.status, show(credited)).to.equal(200);
      expect(credited.body).to.include({ status: "awaiting_supply", supplyDeposited: "600000" });
    }

    // The attacker deposits its 40% to the custody: the custody now holds the whole supply.
    const attackTxid = await depositToken(attacker, SYMBOL, 400_000n);
    expect(available(custody.address, SYMBOL)).to.equal(TOTAL);
    if (flow === "launcher") {
      // ... and announces it as the launch's supply, signing for itself: only the launcher's deposits count.
      const forged = await announceSupply(attacker, SYMBOL, attackTxid);
      expect(is4xx(forged), `the attacker's deposit as supply was answered ${show(forged)}`).to.equal(true);
    }
    for (let i = 0; i < 3; i++) await store.runOnce();

    // Then it takes its deposit back, as any unbound deposit's payer may.
    const refunded = await refundDeposit(attacker, SYMBOL, attackTxid);
    expect(refunded.status, show(refunded)).to.equal(202);
    await store.runOnce();
    const after = await curveNow(SYMBOL);
    const free = available(custody.address, SYMBOL) - owedTokens(SYMBOL);
    const selling = BigInt(after.totalSupply) - BigInt(after.tokensSold);
    expect(
      after.status !== "active" || free >= selling,
      `the curve is ${after.status}, selling ${selling} tokens while the custody holds ${free} free of what it owes`,
    ).to.equal(true);
    expect(after.status, "only the launcher's 60% is the launch's supply").to.equal("awaiting_supply");
    const reserve = await call("POST", `/bonding/${SYMBOL}/reserve`, {
      side: "BUY",
      address: newKey().address,
      amountIn: "100000000",
    });
    expect(is4xx(reserve), show(reserve)).to.equal(true);

    // The launcher's supply is bound to the launch: no refund request takes it out.
    const taken = await refundDeposit(launcher, SYMBOL, launcherTxid!);
    expect([taken.status, taken.body?.error?.code], show(taken)).to.deep.equal([409, "DEPOSIT_ALREADY_USED"]);

    // A day later the launch fails, and the launcher's 60% is owed back to it (and nothing to the attacker twice).
    clockOffset += DAY + 60;
    await store.runOnce();
    const ended = await curveNow(SYMBOL);
    expect(ended.status).to.equal("failed");
    expect(ended.error).to.match(/^SUPPLY_NOT_DEPOSITED/);
    expect(ended.refund).to.include({ asset: "DRC20", tick: SYMBOL, address: launcher.address, amount: "600000" });
    expect(payoutsTo(launcher.address).map((p) => [p.asset, p.tick, p.amount])).to.deep.equal([
      ["DRC20", SYMBOL, "600000"],
    ]);
    expect(payoutsTo(attacker.address).map((p) => [p.asset, p.amount, p.reason])).to.deep.equal([
      ["DRC20", "400000", "deposit_refund"],
    ]);
  });

  it("ends a launch in `failed` when someone else deploys its tick with a max below the total supply", async () => {
    const SYMBOL = "LOWM";
    const launcher = newKey();
    const squatter = newKey();
    const { flow, curve } = await launch(SYMBOL, launcher);
    // The squatter deploys the tick first, with a max the curve cannot be launched on.
    await deployTick(stack.devnet, squatter, SYMBOL, 1_000n, 1_000n);
    await mine();
    if (flow === "custody") await stack.confirmInscriberJob(curve.deployJobId);
    for (let i = 0; i < 2; i++) await store.runOnce();
    const ended = await curveNow(SYMBOL);
    expect([ended.status, typeof ended.error], show({ status: 200, body: ended })).to.deep.equal(["failed", "string"]);
  });
});
