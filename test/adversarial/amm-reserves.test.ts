/**
 * Issue 26, item 7: solvency you can see. Before it, four rounds of unspendable deposits took the
 * custody's spendable float from 20,000 to 110 DOGE, an honest payout stayed `queued` on
 * INSUFFICIENT_FUNDS forever, and `/health` still said ok. Here, on the devnet over HTTP, the
 * custody's plain coins leave it (a stolen key, an operator's mistake: anything that makes its
 * holdings smaller than what it owes): `GET /api/reserves` must show the shortfall with its
 * figures, `/health` must be 503 naming the asset, and the worker must pay nothing of that asset
 * (no partial drain) while it lasts. The report is checked against an independent sum of the index.
 */
import { expect } from "chai";
import type { Server } from "node:http";
import { Registry } from "prom-client";
import { NETWORKS, bytesToHex, signMessage } from "../../src/doge";
import { drc20TickKey } from "../../src/inscription/drc20";
import { AmmLedger, DepositReader, createAmmApp, openAmmDatabase } from "../../src/services/amm";
import { ammHealth } from "../../src/services/amm/health";
import { CustodyReserves } from "../../src/services/amm/reserves";
import { mountReserves } from "../../src/services/amm/app";
import { SettlementWorker } from "../../src/services/amm/settlement";
import { InscriberClient } from "../../src/services/inscriber/client";
import { mountOpsRoutes } from "../../src/services/ops/server";
import type { HotWallet } from "../../src/wallet";
import { KOINU_PER_DOGE } from "../helpers/inscribe";
import { newKey, spendP2pkh } from "../helpers/keys";
import { Answer, LAUNCHPAD_PROJECT_KEY, LaunchpadStack, startLaunchpadStack } from "../helpers/launchpad-stack";
import { jsonRequest } from "../helpers/http";
import { custodyAmm, seedHonestPool } from "../helpers/amm-pool";
import { listenLocal } from "../helpers/listen";

const DOGE = KOINU_PER_DOGE;
const N = 2;
const TICK = "RSRV";
const show = (answer: Answer) => `${answer.status} ${JSON.stringify(answer.body)}`;

describe("adversarial: proof of reserves (issue 26, item 7)", function () {
  this.timeout(600_000);
  let stack: LaunchpadStack;
  let ammDb: ReturnType<typeof openAmmDatabase>;
  let ledger: AmmLedger;
  let reserves: CustodyReserves;
  let settlement: SettlementWorker;
  let wallet: HotWallet;
  let server: Server;
  let base: string;
  const custody = newKey();
  const provider = newKey();
  const deployer = newKey();

  const call = (method: string, p: string, body?: unknown): Promise<Answer> =>
    jsonRequest(`${base}${p}`, method, body === undefined ? {} : { body });
  const bury = async () => {
    for (let i = 0; i < N; i++) await stack.mine();
  };
  const message = async (params: Record<string, string>): Promise<string> => {
    const answer = await call("GET", `/api/auth/message?${new URLSearchParams(params)}`);
    expect(answer.status, show(answer)).to.equal(200);
    return answer.body.message as string;
  };
  /** What the index says the custody can spend: its own P2PKH outputs that carry no inscription, summed independently. */
  const indexSpendableKoinu = (): bigint => {
    const script = bytesToHex(custody.script);
    let sum = 0n;
    let after: { height: number; txid: string; vout: number } | null = null;
    for (;;) {
      const page = stack.queries.utxos(custody.address, after, 500);
      for (const u of page.items)
        if (u.scriptHex === script && u.inscriptions.length === 0 && !u.coinbase) sum += u.valueKoinu;
      if (page.items.length < 500) return sum;
      const last = page.items[page.items.length - 1];
      after = { height: last.height, txid: last.txid, vout: last.vout };
    }
  };
  const pass = async () => {
    await wallet.sync();
    reserves.runOnce();
  };

  before(async () => {
    stack = await startLaunchpadStack();
    let deposits: DepositReader;
    ({ ammDb, deposits, ledger, wallet } = custodyAmm(stack, custody, N));
    reserves = new CustodyReserves({ db: ammDb, ledger, queries: stack.queries, wallet });
    settlement = new SettlementWorker({
      db: ammDb,
      wallet,
      queries: stack.queries,
      inscriber: new InscriberClient({ url: stack.inscriberBase, key: LAUNCHPAD_PROJECT_KEY }),
      network: NETWORKS.regtest,
      inscriberProject: "launchpad",
      solvency: reserves,
    });
    ({ server, base } = await listenLocal(
      createAmmApp({
        ledger,
        network: NETWORKS.regtest,
        mount: (root, surface) => {
          mountReserves(root, reserves);
          mountOpsRoutes(root, {
            registry: new Registry(),
            surface,
            health: () => ammHealth({ queries: stack.queries, deposits, settlement, reserves }),
          });
        },
      }),
    ));

    // The custody's float, and a pool of 1,000 DOGE against 500,000 RSRV.
    await stack.devnet.rpc("devnet_faucet", [custody.address, 50, false]);
    await seedHonestPool({
      stack,
      api: `${base}/api`,
      custody,
      deployer,
      provider,
      tick: TICK,
      doge: 1_000n * DOGE,
      tokens: 500_000n,
      depth: N,
    });
  });

  after(async () => {
    server?.close();
    await stack?.stop();
  });

  it("publishes holdings against obligations that match an independent sum of the index", async () => {
    await pass();
    const answer = await call("GET", "/api/reserves");
    expect(answer.status, show(answer)).to.equal(200);
    expect(answer.body.whole, show(answer)).to.equal(true);
    expect(answer.body.indexedHeight).to.equal(stack.queries.status().indexedHeight);
    const doge = answer.body.assets.find((a: any) => a.asset === "DOGE");
    expect(BigInt(doge.holdings), "DOGE holdings are the custody's spendable outputs in the index").to.equal(
      indexSpendableKoinu(),
    );
    expect(BigInt(doge.owed.pools), "the pool's DOGE reserve is owed").to.equal(1_000n * DOGE);
    const token = answer.body.assets.find((a: any) => a.asset === "DRC20" && a.tick === TICK);
    const balance = stack.queries.drc20Balance(custody.address, drc20TickKey(TICK));
    expect(BigInt(token.holdings)).to.equal(balance.available + balance.transferable);
    expect(BigInt(token.obligations)).to.equal(500_000n);
    const health = await call("GET", "/health");
    expect(health.status, show(health)).to.equal(200);
  });

  it("stops paying DOGE, says so in /health and /api/reserves, when the custody's coins leave it", async () => {
    // The float and the pool's DOGE leave the custody (its key used elsewhere): all its plain coins to a stranger.
    const thief = newKey();
    const script = bytesToHex(custody.script);
    const coins = stack.queries
      .utxos(custody.address, null, 500)
      .items.filter((u) => u.scriptHex === script && u.inscriptions.length === 0);
    const total = coins.reduce((sum, u) => sum + u.valueKoinu, 0n);
    const { hex } = spendP2pkh(
      custody,
      coins.map((u) => ({ txid: u.txid, vout: u.vout, value: u.valueKoinu })),
      [{ script: thief.script, value: total - DOGE }],
    );
    await stack.client.sendRawTransaction(hex);
    await bury();

    // An honest provider takes a tenth of its position out: a DOGE payout is owed.
    const positions = ledger.positions(provider.address);
    const shares = positions[0].shares / 10n;
    const auth = {
      address: provider.address,
      nonce: `rsrv-${Date.now()}`,
      expiresAt: Math.floor(Date.now() / 1000) + 300,
    };
    const text = await message({
      action: "remove-liquidity",
      tick: TICK,
      shares: shares.toString(),
      ...auth,
      expiresAt: String(auth.expiresAt),
    });
    const removed = await call("POST", "/api/liquidity/remove", {
      tick: TICK,
      shares: shares.toString(),
      ...auth,
      signature: signMessage(text, provider.privateKey),
    });
    expect(removed.status, show(removed)).to.equal(202);
    const dogePayout = (removed.body.payouts as { id: string; asset: string }[]).find((p) => p.asset === "DOGE")!;

    await pass();
    await pass();
    const answer = await call("GET", "/api/reserves");
    expect(answer.body.whole, show(answer)).to.equal(false);
    const doge = answer.body.assets.find((a: any) => a.asset === "DOGE");
    expect(BigInt(doge.shortfall) > 0n, show(answer)).to.equal(true);
    expect(BigInt(doge.holdings)).to.equal(indexSpendableKoinu());

    await settlement.runOnce();
    const payout = settlement.payout(dogePayout.id)!;
    expect(payout.status, "nothing of a short asset is paid out").to.equal("queued");
    expect(payout.txid).to.equal(null);
    expect(payout.error ?? "").to.match(/^CUSTODY_SHORTFALL/);

    const health = await call("GET", "/health");
    expect(health.status, show(health)).to.equal(503);
    expect(health.body.reservesShortfalls.map((s: any) => s.asset)).to.include("DOGE");
    const named = health.body.reservesShortfalls.find((s: any) => s.asset === "DOGE");
    expect(named.shortfall).to.equal(doge.shortfall);
  });
});
