/**
 * The AMM's and the bonding curves' custody, tried as an attacker would (issue 16, "Custody you can
 * trust, part 1"), on the devnet and over HTTP: the launchpad stack's devnet, index and inscriber,
 * the AMM app with the bonding routes mounted, real DOGE and DRC-20 deposits to the custody address.
 *
 * Each test is one attack. Its attack steps use the request shapes of the API before issue 16 (no
 * payer signature), which is how an attacker without the victim's key calls it; what the service
 * must answer follows. Honest users (the victims, the liquidity provider, the buyers) use the
 * payer-signed order flow of DESIGN.md section 8: the exact text they sign comes from
 * `GET /api/auth/message?action=...`. Where that endpoint does not know the action yet (the code
 * before issue 16), an honest step falls back to the old shape, so that the setup runs on both.
 *
 * Deposits count at N = 2 confirmations (`DepositReader`'s `confirmations`); the service's own
 * addresses (the custody's and the inscriber's hot wallet) are `serviceAddresses`.
 */
import { expect } from "chai";
import type { Server } from "node:http";
import path from "node:path";
import { NETWORKS, signMessage } from "../../src/doge";
import { AmmLedger, DepositReader, createAmmApp, openAmmDatabase } from "../../src/services/amm";
import { BondingStore } from "../../src/services/amm/bonding-store";
import { mountBonding } from "../../src/services/amm/bonding-app";
import { SettlementWorker } from "../../src/services/amm/settlement";
import { CustodyReserves } from "../../src/services/amm/reserves";
import { InscriberClient } from "../../src/services/inscriber/client";
import { HotWallet, indexNodeChain, openWalletDatabase } from "../../src/wallet";
import { deployTick, faucetCoin, inscribeTransfer, mintTick, sendTransfer } from "../helpers/drc20";
import { KOINU_PER_DOGE, pay } from "../helpers/inscribe";
import { Spendable, TestKey, newKey } from "../helpers/keys";
import {
  Answer,
  LAUNCHPAD_PROJECT_KEY,
  LaunchpadStack,
  STACK_FEE_RATE,
  startLaunchpadStack,
} from "../helpers/launchpad-stack";
import { jsonRequest } from "../helpers/http";
import { launchCurve as launchBondingCurve } from "../helpers/bonding-launch";
import { until } from "../helpers/wait";
import { listenLocal } from "../helpers/listen";

const DOGE = KOINU_PER_DOGE;
/** Confirmations before a deposit counts. */
const N = 2;
/** The honest pool. */
const MAIN = "MAIN";
/** The attacker's own thin pool. */
const THIN = "ATKR";
/** Two bonding curves: one per bonding attack. */
const CURVE_HOARD = "HORD";
const CURVE_PROMISE = "PRMS";
const CURVE_PARAMS = {
  totalSupply: "1000000",
  sellableSupply: "800000",
  virtualDoge: (100n * DOGE).toString(),
  graduationThreshold: (50n * DOGE).toString(),
};

const is4xx = (answer: Answer) => answer.status >= 400 && answer.status < 500;
const show = (answer: Answer) => `${answer.status} ${JSON.stringify(answer.body)}`;

describe("adversarial: AMM and bonding custody (issue 16)", function () {
  this.timeout(900_000);
  let stack: LaunchpadStack;
  let ammDb: ReturnType<typeof openAmmDatabase>;
  let ledger: AmmLedger;
  let store: BondingStore;
  let settlement: SettlementWorker;
  let wallet: HotWallet;
  let server: Server;
  let base: string;
  let apiKey: string;
  let inscriberAddress: string;
  /** A transaction the custody funded (a payout), with change back to the custody address. */
  let custodyChangeTxid: string;
  let custodyChangeKoinu: bigint;
  const custody = newKey();
  const deployer = newKey();
  const provider = newKey(); // the MAIN pool's liquidity provider
  const attacker = newKey(); // owns the THIN pool; never holds a victim's key
  let nonceCounter = 0;

  const call = (method: string, p: string, body?: unknown): Promise<Answer> =>
    jsonRequest(`${base}/api${p}`, method, body === undefined ? {} : { body });
  const mine = () => stack.mine();
  /** Mines until a deposit just broadcast is N blocks deep. */
  const bury = async () => {
    for (let i = 0; i < N; i++) await mine();
  };
  const nonce = () => `adv-${process.pid}-${++nonceCounter}-${Date.now()}`;
  const expiresAt = () => Math.floor(Date.now() / 1000) + 300;

  /** A DOGE payment of `koinu` from `key`'s own coin to the custody address (broadcast, not mined). */
  const depositDoge = async (key: TestKey, koinu: bigint): Promise<string> => {
    const coin = await faucetCoin(stack.devnet, key, Number(koinu / DOGE) + 2);
    await mine();
    return (await pay(stack.devnet, key, [coin], [{ script: custody.script, value: koinu }])).txid;
  };
  /** A DRC-20 deposit of `amount` `tick` from `key`: a transfer inscribed, mined, then sent to the custody (not mined). */
  const depositToken = async (key: TestKey, tick: string, amount: bigint): Promise<string> => {
    const inscribed = await inscribeTransfer(stack.devnet, key, tick, amount);
    await mine();
    return sendTransfer(stack.devnet, key, inscribed, custody.script);
  };

  /** The text to sign for `params`, or null when the service does not know the action (before issue 16). */
  const authMessage = async (params: Record<string, string>): Promise<string | null> => {
    const answer = await call("GET", `/auth/message?${new URLSearchParams(params)}`);
    return answer.status === 200 && typeof answer.body?.message === "string" ? answer.body.message : null;
  };
  const quote = async (
    tick: string,
    amountIn: bigint,
    slippageBps: number,
    direction = "DOGE_TO_TOKEN",
  ): Promise<any> => {
    const answer = await call("POST", "/swap/quote", { tick, direction, amountIn: amountIn.toString(), slippageBps });
    expect(answer.status, show(answer)).to.equal(200);
    return answer.body;
  };
  /** `key` executes `swapId` on `depositTxid`, signing the order when the service asks for it. */
  const executeSigned = async (key: TestKey, swapId: string, depositTxid: string): Promise<Answer> => {
    const message = await authMessage({ action: "execute-swap", swapId, depositTxid });
    if (message === null) return call("POST", "/swap/execute", { swapId, depositTxid });
    return call("POST", "/swap/execute", { swapId, depositTxid, signature: signMessage(message, key.privateKey) });
  };
  /** `key` adds liquidity from its two deposits, signing the order when the service asks for it. */
  const addLiquiditySigned = async (
    key: TestKey,
    tick: string,
    dogeTxid: string,
    tokenTxid: string,
  ): Promise<Answer> => {
    const body = { tick, address: key.address, dogeTxid, tokenTxid };
    const message = await authMessage({ action: "add-liquidity", ...body });
    if (message === null) return call("POST", "/liquidity/add", body);
    return call("POST", "/liquidity/add", { ...body, signature: signMessage(message, key.privateKey) });
  };
  /** `key` removes `shares` of its `tick` position (wallet-signed, as before issue 16). */
  const removeLiquidity = async (key: TestKey, tick: string, shares: bigint): Promise<Answer> => {
    const auth = { address: key.address, nonce: nonce(), expiresAt: String(expiresAt()) };
    const message = await authMessage({ action: "remove-liquidity", tick, shares: shares.toString(), ...auth });
    expect(message, "the remove-liquidity message").to.be.a("string");
    return call("POST", "/liquidity/remove", {
      tick,
      shares: shares.toString(),
      ...auth,
      expiresAt: Number(auth.expiresAt),
      signature: signMessage(message!, key.privateKey),
    });
  };
  /** `key` reserves on curve `symbol`, signing the order when the service asks for it. */
  const reserveSigned = async (key: TestKey, symbol: string, amountIn: bigint, side = "BUY"): Promise<Answer> => {
    const order = { side, address: key.address, amountIn: amountIn.toString() };
    const auth = { nonce: nonce(), expiresAt: String(expiresAt()) };
    const message = await authMessage({ action: "bonding-reserve", symbol, ...order, ...auth });
    if (message === null) return call("POST", `/bonding/${symbol}/reserve`, order);
    return call("POST", `/bonding/${symbol}/reserve`, {
      ...order,
      nonce: auth.nonce,
      expiresAt: Number(auth.expiresAt),
      signature: signMessage(message, key.privateKey),
    });
  };
  /** `key` confirms its reservation with `depositTxid`, signing when the service asks for it. */
  const confirmSigned = async (key: TestKey, reservationId: string, depositTxid: string): Promise<Answer> => {
    const message = await authMessage({ action: "bonding-confirm", reservationId, depositTxid });
    if (message === null) return call("POST", "/bonding/confirm", { reservationId, depositTxid });
    return call("POST", "/bonding/confirm", {
      reservationId,
      depositTxid,
      signature: signMessage(message, key.privateKey),
    });
  };
  const curveNow = async (symbol: string): Promise<any> => (await call("GET", `/bonding/${symbol}`)).body;
  const payoutsTo = (address: string) =>
    ammDb.prepare("SELECT asset, tick, amount, reason, ref_id FROM payouts WHERE address = ?").all(address) as {
      asset: string;
      amount: string;
      reason: string;
      ref_id: string;
    }[];
  const payoutsOf = (refId: string) =>
    ammDb.prepare("SELECT asset, address, amount, reason FROM payouts WHERE ref_id = ?").all(refId) as {
      asset: string;
      address: string;
      amount: string;
      reason: string;
    }[];
  const consumed = (txid: string) =>
    ammDb.prepare("SELECT kind, ref_id, address FROM deposits WHERE txid = ?").get(txid) as
      { kind: string; ref_id: string; address: string } | undefined;
  const swapStatus = async (swapId: string): Promise<any> => (await call("GET", `/swap/status/${swapId}`)).body;

  /** Launches curve `symbol` (signed by a launcher who deposits the whole supply) and waits until it is active. */
  async function launchCurve(symbol: string): Promise<void> {
    await launchBondingCurve(
      { stack, base, apiKey, custodyScript: custody.script, confirmations: N, runOnce: () => store.runOnce() },
      symbol,
      CURVE_PARAMS,
    );
  }

  before(async () => {
    stack = await startLaunchpadStack();
    inscriberAddress = (stack.platform as unknown as { wallet: HotWallet }).wallet.address;
    ammDb = openAmmDatabase(":memory:");
    // The deposit reader of issue 16: N confirmations, and the service's own addresses (never payers, never order addresses).
    const deposits = new (DepositReader as unknown as new (...args: unknown[]) => DepositReader)(
      stack.queries,
      custody.address,
      { confirmations: N, serviceAddresses: [custody.address, inscriberAddress] },
    );
    ledger = new AmmLedger({
      db: ammDb,
      network: NETWORKS.regtest,
      deposits,
      tickDeployed: (tick) => stack.queries.drc20Tick(tick.toLowerCase())?.tick ?? null,
    });
    const inscriber = new InscriberClient({ url: stack.inscriberBase, key: LAUNCHPAD_PROJECT_KEY });
    store = new BondingStore({
      db: ammDb,
      ledger,
      deposits,
      queries: stack.queries,
    });
    apiKey = store.issueApiKey("adversarial operator").key;
    wallet = new HotWallet({
      db: openWalletDatabase(path.join(stack.dir, "custody-wallet.sqlite")),
      key: custody,
      chain: indexNodeChain(stack.queries, stack.client),
      network: NETWORKS.regtest,
      feeRateKoinuPerKb: STACK_FEE_RATE,
    });
    settlement = new SettlementWorker({
      db: ammDb,
      wallet,
      queries: stack.queries,
      inscriber,
      network: NETWORKS.regtest,
      inscriberProject: "launchpad",
    });
    ({ server, base } = await listenLocal(
      createAmmApp({
        ledger,
        network: NETWORKS.regtest,
        mount: (app) => mountBonding(app, { store, ledger, network: NETWORKS.regtest }),
      }),
    ));

    // The custody's own float (network fees of payouts).
    await stack.devnet.rpc("devnet_faucet", [custody.address, 200, false]);
    // MAIN, deployed by someone, minted by the provider; ATKR, the attacker's own tick.
    await deployTick(stack.devnet, deployer, MAIN, 21_000_000n, 1_000_000n);
    await deployTick(stack.devnet, attacker, THIN, 21_000_000n, 1_000_000n);
    await mine();
    await mintTick(stack.devnet, provider, MAIN, 1_000_000n);
    await mintTick(stack.devnet, attacker, THIN, 1_000_000n);
    await mine();

    // The honest pool: 1,000 DOGE and 500,000 MAIN from the provider.
    const providerDoge = await depositDoge(provider, 1_000n * DOGE);
    const providerToken = await depositToken(provider, MAIN, 500_000n);
    await bury();
    const added = await addLiquiditySigned(provider, MAIN, providerDoge, providerToken);
    expect(added.status, show(added)).to.equal(201);

    // The attacker's thin pool: 1 DOGE against 1,000,000 ATKR (every DOGE swapped in lands there).
    const thinDoge = await depositDoge(attacker, DOGE);
    const thinToken = await depositToken(attacker, THIN, 1_000_000n);
    await bury();
    const thin = await addLiquiditySigned(attacker, THIN, thinDoge, thinToken);
    expect(thin.status, show(thin)).to.equal(201);

    // A payout by the custody (the provider takes a tenth of its shares out): its transaction
    // sends change back to the custody address.
    const shares = BigInt(added.body.shares) / 10n;
    const removed = await removeLiquidity(provider, MAIN, shares);
    expect(removed.status, show(removed)).to.equal(202);
    const dogePayout = (removed.body.payouts as { id: string; asset: string }[]).find((p) => p.asset === "DOGE")!;
    await until("the provider's DOGE payout sent", async () => {
      await settlement.runOnce();
      return settlement.payout(dogePayout.id)!.txid !== null;
    });
    custodyChangeTxid = settlement.payout(dogePayout.id)!.txid!;
    await bury();
    const tx = stack.queries.tx(custodyChangeTxid);
    expect(tx, "the payout is indexed").to.not.equal(null);
    custodyChangeKoinu = tx!.outputs
      .filter((o) => o.address === custody.address)
      .reduce((sum, o) => sum + o.valueKoinu, 0n);
    expect(custodyChangeKoinu > DOGE, `the payout ${custodyChangeTxid} sends change to the custody`).to.equal(true);

    // Two bonding curves, launched by the operator.
    await launchCurve(CURVE_HOARD);
    await launchCurve(CURVE_PROMISE);
  });

  after(async () => {
    server?.close();
    await stack?.stop();
  });

  describe("deposit binding", () => {
    it("does not execute a swap that another address created for the victim on the victim's deposit", async () => {
      const victim = newKey();
      // The victim makes its order and pays for it; the payment is buried N deep.
      const own = await quote(MAIN, 100n * DOGE, 50);
      const ownSwap = await call("POST", "/swap/create", { quoteId: own.quoteId, address: victim.address });
      expect(ownSwap.status, show(ownSwap)).to.equal(201);
      const txid = await depositDoge(victim, 100n * DOGE);
      await bury();

      // Attack: with no key of the victim, a swap for the victim's address at any price, executed first on the victim's deposit.
      const any = await quote(MAIN, 100n * DOGE, 10_000);
      const hijack = await call("POST", "/swap/create", { quoteId: any.quoteId, address: victim.address });
      expect(hijack.status, show(hijack)).to.equal(201);
      const executed = await call("POST", "/swap/execute", { swapId: hijack.body.swapId, depositTxid: txid });
      expect(is4xx(executed), `the hijack was answered ${show(executed)}`).to.equal(true);
      const status = await swapStatus(hijack.body.swapId);
      expect(status.status).to.be.oneOf(["created", "deposit_seen", "expired"]);
      expect(status.payout).to.equal(null);
      expect(consumed(txid), "the victim's deposit is not consumed").to.equal(undefined);

      // The victim's own signed order on its deposit executes.
      const honest = await executeSigned(victim, ownSwap.body.swapId, txid);
      expect(honest.status, show(honest)).to.equal(200);
      expect(honest.body.status).to.equal("executed");
      expect(honest.body.payout).to.include({ asset: "DRC20", address: victim.address });
      expect(BigInt(honest.body.amountOut) >= BigInt(own.minAmountOut)).to.equal(true);
    });

    it("does not pour a victim's deposit into the attacker's thin pool", async () => {
      const victim = newKey();
      const own = await quote(MAIN, 100n * DOGE, 50);
      const ownSwap = await call("POST", "/swap/create", { quoteId: own.quoteId, address: victim.address });
      expect(ownSwap.status, show(ownSwap)).to.equal(201);
      const txid = await depositDoge(victim, 100n * DOGE);
      await bury();
      const thinBefore = ledger.pool(THIN)!.pool;

      // Attack: a swap for the victim in the attacker's pool of 1 DOGE, at any price.
      const any = await quote(THIN, 100n * DOGE, 10_000);
      const hijack = await call("POST", "/swap/create", { quoteId: any.quoteId, address: victim.address });
      expect(hijack.status, show(hijack)).to.equal(201);
      const executed = await call("POST", "/swap/execute", { swapId: hijack.body.swapId, depositTxid: txid });
      expect(is4xx(executed), `the hijack into the thin pool was answered ${show(executed)}`).to.equal(true);
      expect(ledger.pool(THIN)!.pool.dogeReserve, "the attacker's pool did not get the victim's DOGE").to.equal(
        thinBefore.dogeReserve,
      );
      expect(consumed(txid)).to.equal(undefined);
      expect((await executeSigned(victim, ownSwap.body.swapId, txid)).status).to.equal(200);
    });

    it("never counts a deposit mined before its order for an order its payer did not make", async () => {
      const victim = newKey();
      // The victim paid the custody (say, ahead of an order it meant to make later); mined N deep.
      const txid = await depositDoge(victim, 50n * DOGE);
      await bury();

      // Attack: only now, an order for the victim's address, executed on that older deposit.
      const any = await quote(MAIN, 50n * DOGE, 10_000);
      const order = await call("POST", "/swap/create", { quoteId: any.quoteId, address: victim.address });
      expect(order.status, show(order)).to.equal(201);
      const executed = await call("POST", "/swap/execute", { swapId: order.body.swapId, depositTxid: txid });
      expect(is4xx(executed), `the pre-order deposit was answered ${show(executed)}`).to.equal(true);
      expect((await swapStatus(order.body.swapId)).payout).to.equal(null);
      expect(consumed(txid)).to.equal(undefined);
    });
  });

  describe("the service is never its own customer", () => {
    it("never counts the custody's own change as a deposit", async () => {
      const thinBefore = ledger.pool(THIN)!.pool;
      // Attack: a swap "for the custody's address" in the attacker's pool, paid by the payout's change.
      const any = await quote(THIN, custodyChangeKoinu, 10_000);
      const order = await call("POST", "/swap/create", { quoteId: any.quoteId, address: custody.address });
      const answer =
        order.status === 201
          ? await call("POST", "/swap/execute", { swapId: order.body.swapId, depositTxid: custodyChangeTxid })
          : order;
      expect(
        is4xx(answer),
        `the custody's change ${custodyChangeTxid} as a deposit was answered ${show(answer)}`,
      ).to.equal(true);
      expect(consumed(custodyChangeTxid), "the change is not consumed").to.equal(undefined);
      expect(ledger.pool(THIN)!.pool.dogeReserve).to.equal(thinBefore.dogeReserve);

      // The same change for a swap of the attacker's own address, even signed by the attacker.
      const again = await quote(THIN, custodyChangeKoinu, 10_000);
      const ownOrder = await call("POST", "/swap/create", { quoteId: again.quoteId, address: attacker.address });
      expect(ownOrder.status, show(ownOrder)).to.equal(201);
      const ownAnswer = await executeSigned(attacker, ownOrder.body.swapId, custodyChangeTxid);
      expect(is4xx(ownAnswer), show(ownAnswer)).to.equal(true);
      expect(consumed(custodyChangeTxid)).to.equal(undefined);
      expect(payoutsTo(attacker.address), "nothing is paid to the attacker").to.deep.equal([]);
    });

    it("refuses an order for the custody's address", async () => {
      for (const [name, address] of [
        ["custody", custody.address],
        ["inscriber wallet", inscriberAddress],
      ]) {
        const q = await quote(MAIN, 10n * DOGE, 50);
        const created = await call("POST", "/swap/create", { quoteId: q.quoteId, address });
        expect(
          [created.status, created.body?.error?.code],
          `a swap for the ${name}'s address: ${show(created)}`,
        ).to.deep.equal([422, "ADDRESS_IS_SERVICE"]);
      }
      const added = await call("POST", "/liquidity/add", {
        tick: MAIN,
        address: custody.address,
        dogeTxid: custodyChangeTxid,
        tokenTxid: "ab".repeat(32),
      });
      expect(is4xx(added), `liquidity for the custody's address: ${show(added)}`).to.equal(true);
      expect(ledger.positions(custody.address)).to.deep.equal([]);
      expect(consumed(custodyChangeTxid)).to.equal(undefined);
    });
  });

  describe("deposits funded from several addresses", () => {
    it("counts a deposit funded from two addresses for its first input's address only", async () => {
      // An HD wallet pays from two of its addresses: the first input's is the payer.
      const first = newKey();
      const second = newKey();
      const coinA = await faucetCoin(stack.devnet, first, 12);
      const coinB = await faucetCoin(stack.devnet, second, 12);
      await mine();
      const deposit = await pay(stack.devnet, first, [coinA, coinB], [{ script: custody.script, value: 20n * DOGE }], {
        signers: [first, second],
      });
      await bury();
      const q = await quote(MAIN, 20n * DOGE, 10_000);
      // The second input's address cannot bind it to a swap of its own.
      const theirs = await call("POST", "/swap/create", { quoteId: q.quoteId, address: second.address });
      expect(theirs.status, show(theirs)).to.equal(201);
      const refused = await executeSigned(second, theirs.body.swapId, deposit.txid);
      expect([refused.status, refused.body?.error?.code], show(refused)).to.deep.equal([
        422,
        "DEPOSIT_NOT_FROM_ADDRESS",
      ]);
      expect(consumed(deposit.txid)).to.equal(undefined);
      // The payer (first input) executes its own swap with it: nothing is stranded.
      const q2 = await quote(MAIN, 20n * DOGE, 10_000);
      const mine2 = await call("POST", "/swap/create", { quoteId: q2.quoteId, address: first.address });
      const executed = await executeSigned(first, mine2.body.swapId, deposit.txid);
      expect([executed.status, executed.body?.status], show(executed)).to.deep.equal([200, "executed"]);
      expect(payoutsOf(mine2.body.swapId).map((p) => p.address)).to.deep.equal([first.address]);
    });
  });

  describe("rate limits", () => {
    it("answers 429 with Retry-After to a burst of orders from one client and keeps answering others", async () => {
      const limited = createAmmApp({ ledger, network: NETWORKS.regtest, rateLimit: 3 });
      limited.set("trust proxy", "loopback");
      const { server: limitedServer, base: limitedBase } = await listenLocal(limited);
      try {
        const url = `${limitedBase}/api/swap/quote`;
        const post = (client: string) =>
          fetch(url, {
            method: "POST",
            headers: { "Content-Type": "application/json", "X-Forwarded-For": client },
            body: JSON.stringify({ tick: MAIN, direction: "DOGE_TO_TOKEN", amountIn: DOGE.toString() }),
          });
        const burst = await Promise.all(Array.from({ length: 6 }, () => post("198.51.100.7")));
        expect(burst.map((r) => r.status).sort()).to.deep.equal([200, 200, 200, 429, 429, 429]);
        const refused = burst.find((r) => r.status === 429)!;
        expect(Number(refused.headers.get("retry-after"))).to.be.within(1, 60);
        expect((await refused.json()).error.code).to.equal("RATE_LIMITED");
        expect((await post("198.51.100.8")).status).to.equal(200);
      } finally {
        limitedServer.close();
        limitedServer.closeAllConnections();
      }
    });
  });

  describe("deposits bound to no order", () => {
    it("refunds a deposit that serves no order to its payer only, once", async () => {
      const payer = newKey();
      const txid = await depositDoge(payer, 30n * DOGE);
      await bury();
      const refund = (key: TestKey) => ({ asset: "DOGE", address: key.address, depositTxid: txid });
      // The attacker signs for itself: the deposit is not its own.
      const stolenMessage = await authMessage({ action: "refund-deposit", ...refund(attacker) });
      expect(stolenMessage, "the refund-deposit message").to.be.a("string");
      const stolen = await call("POST", "/deposits/refund", {
        ...refund(attacker),
        signature: signMessage(stolenMessage!, attacker.privateKey),
      });
      expect([stolen.status, stolen.body?.error?.code], show(stolen)).to.deep.equal([422, "DEPOSIT_NOT_FROM_ADDRESS"]);
      // The payer's own signature over another deployment's text (no domain) is refused too.
      const replayed = await call("POST", "/deposits/refund", {
        ...refund(payer),
        signature: signMessage(`refund-deposit\n${txid}`, payer.privateKey),
      });
      expect([replayed.status, replayed.body?.error?.code], show(replayed)).to.deep.equal([401, "INVALID_SIGNATURE"]);
      const message = await authMessage({ action: "refund-deposit", ...refund(payer) });
      const refunded = await call("POST", "/deposits/refund", {
        ...refund(payer),
        signature: signMessage(message!, payer.privateKey),
      });
      expect(refunded.status, show(refunded)).to.equal(202);
      expect(refunded.body).to.include({
        asset: "DOGE",
        address: payer.address,
        amount: (30n * DOGE).toString(),
        reason: "deposit_refund",
      });
      const again = await call("POST", "/deposits/refund", {
        ...refund(payer),
        signature: signMessage(message!, payer.privateKey),
      });
      expect([again.status, again.body?.error?.code], show(again)).to.deep.equal([409, "DEPOSIT_ALREADY_USED"]);
      expect(payoutsTo(attacker.address).filter((p) => p.reason === "deposit_refund")).to.deep.equal([]);
    });
  });

  describe("depth", () => {
    it("never credits a deposit reorged out before N confirmations", async () => {
      const racer = newKey();
      const coin: Spendable = await faucetCoin(stack.devnet, racer, 60);
      await mine();
      const q = await quote(MAIN, 40n * DOGE, 10_000);
      const order = await call("POST", "/swap/create", { quoteId: q.quoteId, address: racer.address });
      expect(order.status, show(order)).to.equal(201);

      // An empty block E, then the deposit, final only above E's height, in the block after it: 1 confirmation.
      const [blockE] = await stack.devnet.rpc<string[]>("generatetoaddress", [1, stack.miner.address]);
      await stack.indexer.syncOnce();
      const heightE = await stack.devnet.rpc<number>("getblockcount");
      const deposit = await pay(stack.devnet, racer, [coin], [{ script: custody.script, value: 40n * DOGE }], {
        locktime: heightE,
      });
      await mine();
      expect(stack.queries.tx(deposit.txid), "the deposit is indexed, 1 deep").to.not.equal(null);

      const early = await executeSigned(racer, order.body.swapId, deposit.txid);
      expect(early.status, `a deposit 1 deep was answered ${show(early)}`).to.equal(202);
      expect(early.body.status).to.not.be.oneOf(["executed", "settled"]);
      expect(payoutsOf(order.body.swapId), "nothing queued at 1 confirmation").to.deep.equal([]);

      // The reorg: E and the deposit's block go; the deposit is not final on the new tip, and its coin goes back to the racer.
      await stack.devnet.rpc("invalidateblock", [blockE]);
      expect(await stack.devnet.rpc<string[]>("getrawmempool"), "the deposit left the mempool").to.not.include(
        deposit.txid,
      );
      const back = await pay(stack.devnet, racer, [coin], []);
      await stack.devnet.rpc("generatetoaddress", [3, stack.miner.address]);
      await stack.indexer.syncOnce();
      expect(stack.queries.tx(back.txid), "the double spend is indexed").to.not.equal(null);
      expect(stack.queries.tx(deposit.txid), "the deposit is gone").to.equal(null);

      ledger.retryPending();
      const status = await swapStatus(order.body.swapId);
      expect(status.status).to.not.be.oneOf(["executed", "settled"]);
      expect(payoutsOf(order.body.swapId)).to.deep.equal([]);
      expect(payoutsTo(racer.address)).to.deep.equal([]);
    });
  });

  describe("bonding reservations", () => {
    it("refuses a bonding reservation of the whole curve by one address", async () => {
      const hoarder = newKey();
      const before = await curveNow(CURVE_HOARD);
      // Attack: one reservation whose amountIn buys every token left.
      const whole = await reserveSigned(hoarder, CURVE_HOARD, 1_000n * DOGE);
      expect(is4xx(whole), `a reservation of the whole curve was answered ${show(whole)}`).to.equal(true);
      const held = BigInt((await curveNow(CURVE_HOARD)).reservedTokens);
      expect(held * 10n <= BigInt(before.realToken), `${held} of ${before.realToken} tokens held`).to.equal(true);

      // Attack: reservations in a victim's name, without its signature (filling its per-address cap).
      const victim = newKey();
      for (let i = 0; i < 3; i++) {
        const forged = await call("POST", `/bonding/${CURVE_HOARD}/reserve`, {
          side: "BUY",
          address: victim.address,
          amountIn: DOGE.toString(),
        });
        expect(is4xx(forged), `a reservation in the victim's name was answered ${show(forged)}`).to.equal(true);
      }
      const own = await reserveSigned(victim, CURVE_HOARD, DOGE);
      expect(own.status, show(own)).to.equal(201);
    });

    it("refunds in full a bonding confirm that would pay less than the reservation promised", async () => {
      const [first, second] = [newKey(), newKey()];
      const amountIn = 2n * DOGE;
      const a = await reserveSigned(first, CURVE_PROMISE, amountIn);
      const b = await reserveSigned(second, CURVE_PROMISE, amountIn);
      expect(a.status, show(a)).to.equal(201);
      expect(b.status, show(b)).to.equal(201);
      const promised = BigInt(a.body.reservedAmount);
      const paidFirst = await depositDoge(first, amountIn);
      const paidSecond = await depositDoge(second, amountIn);
      await bury();

      // The second buyer confirms first and moves the price.
      const moved = await confirmSigned(second, b.body.reservationId, paidSecond);
      expect(moved.status, show(moved)).to.equal(200);
      const answer = await confirmSigned(first, a.body.reservationId, paidFirst);
      if (answer.status === 200) {
        expect(
          BigInt(answer.body.amountOut) >= promised,
          `the first buyer got ${answer.body.amountOut} tokens; its reservation promised ${promised}`,
        ).to.equal(true);
      } else {
        expect([answer.status, answer.body.error?.details?.refund_amount], show(answer)).to.deep.equal([
          422,
          amountIn.toString(),
        ]);
        // Refunded in full: one DOGE payout of the whole deposit to the buyer, and no tokens.
        expect(payoutsOf(a.body.reservationId).map((p) => [p.asset, p.address, p.amount])).to.deep.equal([
          ["DOGE", first.address, amountIn.toString()],
        ]);
      }
    });
  });

  describe("after every attack", () => {
    it("leaves the custody whole: its holdings cover every obligation, per asset (GET /api/reserves' figures)", async () => {
      await settlement.runOnce();
      await wallet.sync();
      const report = new CustodyReserves({
        db: ammDb,
        ledger,
        bonding: store,
        queries: stack.queries,
        wallet,
      }).compute();
      const short = report.assets.filter((a) => a.shortfall > 0n);
      expect(
        short.map((a) => `${a.tick ?? "DOGE"}: holds ${a.holdings}, owes ${a.obligations}`),
        "no asset is short",
      ).to.deep.equal([]);
      expect(report.whole).to.equal(true);
      expect(report.assets.map((a) => a.tick ?? "DOGE")).to.include.members(["DOGE", MAIN, THIN]);
    });
  });
});
