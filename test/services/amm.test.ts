/**
 * The AMM service on the devnet: a DRC-20 tick deployed and minted by users' own keys, real DOGE
 * and DRC-20 deposits to the custody address read back from the index, the HTTP API over the
 * ledger, every swap and liquidity add signed by its payer over the text GET /api/auth/message
 * answers (issue 16); at the end the settlement worker pays every payout the ledger queued (DOGE from the
 * custody hot wallet, DRC-20 through the real inscriber) and the explorer's index shows them.
 * The app is assembled as the daemon assembles it (the bonding routes and /health, /metrics mounted),
 * so that its OpenAPI document, checked against every answer here, is the one published as
 * shared/openapi/amm.json.
 */
import { expect } from "chai";
import type { Server } from "node:http";
import { NETWORKS, signMessage } from "../../src/doge";
import type { Indexer } from "../../src/indexer/indexer";
import type { IndexQueries } from "../../src/indexer/queries";
import { Pool, isqrt, swapExactIn } from "../../src/amm";
import createClient from "openapi-fetch";
import { Registry } from "prom-client";
import {
  AmmLedger,
  BondingStore,
  DepositReader,
  SettlementWorker,
  authorizationMessage,
  createAmmApp,
  createQuoteFastPath,
  mountBonding,
  openAmmDatabase,
} from "../../src/services/amm";
import type { AmmApp } from "../../src/services/amm/app";
import { ApiSurface, undocumentedRoutes } from "../../src/services/http/openapi";
import { mountOpsRoutes } from "../../src/services/ops/server";
import { CustodyReserves } from "../../src/services/amm/reserves";
import { mountReserves } from "../../src/services/amm/app";
import type { paths } from "../../shared/openapi/amm";
import { expectPublished } from "../helpers/openapi-publish";
import { InscriberClient } from "../../src/services/inscriber/client";
import { HotWallet, indexNodeChain, openWalletDatabase } from "../../src/wallet";
import type { RunningDevnet } from "../helpers/devnet";
import { LAUNCHPAD_PROJECT_KEY, LaunchpadStack, startLaunchpadStack } from "../helpers/launchpad-stack";
import { until } from "../helpers/wait";
import { deployTick, faucetCoin, inscribeTransfer, mintTick, sendTransfer } from "../helpers/drc20";
import { KOINU_PER_DOGE, pay } from "../helpers/inscribe";
import { Spendable, TestKey, newKey } from "../helpers/keys";
import { jsonRequest } from "../helpers/http";
import { listenLocal } from "../helpers/listen";

const TICK = "PUPS";
const DOGE = KOINU_PER_DOGE;

interface Answer {
  status: number;
  body: any;
}

describe("AMM service", function () {
  this.timeout(600_000);
  let stack: LaunchpadStack;
  let devnet: RunningDevnet;
  let indexer: Indexer;
  let custodyWallet: HotWallet;
  let queries: IndexQueries;
  let ledger: AmmLedger;
  let ammDb: ReturnType<typeof openAmmDatabase>;
  let app: AmmApp;
  let surface: ApiSurface;
  let server: Server;
  let base: string;
  let client: ReturnType<typeof createClient<paths>>;
  let clockOffset = 0;
  const custody = newKey();
  const miner = newKey();
  const deployer = newKey();
  const alice = newKey(); // first provider
  const bob = newKey(); // second provider
  const trader = newKey();

  const call = (method: string, p: string, body?: unknown): Promise<Answer> =>
    jsonRequest(`${base}/api${p}`, method, { body });
  const mine = async () => {
    await devnet.rpc("generatetoaddress", [1, miner.address]);
    await indexer.syncOnce();
  };
  /** A DOGE deposit of `koinu` from `key` to the custody address (in the mempool). */
  const depositDoge = async (key: TestKey, koinu: bigint, coin?: Spendable) => {
    const c = coin ?? (await faucetCoin(devnet, key, Number((koinu + 2n * DOGE) / DOGE) + 1));
    if (!coin) await mine();
    return (await pay(devnet, key, [c], [{ script: custody.script, value: koinu }])).txid;
  };
  /** A DRC-20 deposit of `amount` from `key` (transfer inscribed, mined, then sent). */
  const depositToken = async (key: TestKey, amount: bigint) => {
    const inscribed = await inscribeTransfer(devnet, key, TICK, amount);
    await mine();
    return sendTransfer(devnet, key, inscribed, custody.script);
  };
  /** The pool now, read through the client typed by the published document (shared/openapi/amm.d.ts). */
  const poolNow = async () => {
    const { data, error } = await client.GET("/api/pools/{tokenA}/{tokenB}", {
      params: { path: { tokenA: TICK, tokenB: "DOGE" } },
    });
    if (!data) throw new Error(`GET /api/pools/${TICK}/DOGE: ${JSON.stringify(error)}`);
    return data;
  };
  const authorize = (
    key: TestKey,
    action: string,
    fields: Record<string, string>,
    nonce: string,
    expiresAt = Math.floor(Date.now() / 1000) + clockOffset + 600,
  ) => ({
    address: key.address,
    nonce,
    expiresAt,
    signature: signMessage(
      authorizationMessage(ledger.domain, action, fields, { address: key.address, nonce, expiresAt }),
      key.privateKey,
    ),
  });
  /** The exact text to sign for `params`, as the service answers it (GET /api/auth/message). */
  const authMessage = async (params: Record<string, string>): Promise<string> => {
    const answer = await call("GET", `/auth/message?${new URLSearchParams(params)}`);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body.message;
  };
  /** `key` adds liquidity from its deposits, signing the add-liquidity order (the pair of txids) with its key. */
  const addLiquidity = async (
    key: TestKey,
    request: { tick: string; dogeTxid: string; tokenTxid: string },
  ): Promise<Answer> => {
    const body = { ...request, address: key.address };
    const message = await authMessage({ action: "add-liquidity", ...body });
    return call("POST", "/liquidity/add", { ...body, signature: signMessage(message, key.privateKey) });
  };
  /** `key` (the swap's address) executes `swapId` on `depositTxid`, signing the execute-swap order. */
  const execute = async (key: TestKey, swapId: string, depositTxid: string): Promise<Answer> => {
    const message = await authMessage({ action: "execute-swap", swapId, depositTxid });
    return call("POST", "/swap/execute", { swapId, depositTxid, signature: signMessage(message, key.privateKey) });
  };

  before(async () => {
    // The stack's devnet, index and inscriber (project "launchpad" stands in for "amm").
    stack = await startLaunchpadStack();
    ({ devnet, indexer, queries } = stack);
    custodyWallet = new HotWallet({
      db: openWalletDatabase(`${stack.dir}/custody-wallet.sqlite`),
      key: custody,
      chain: indexNodeChain(queries, stack.client),
      network: NETWORKS.regtest,
      feeRateKoinuPerKb: 1_000_000n,
    });
    ammDb = openAmmDatabase(":memory:");
    ledger = new AmmLedger({
      db: ammDb,
      network: NETWORKS.regtest,
      deposits: new DepositReader(queries, custody.address),
      clock: () => Math.floor(Date.now() / 1000) + clockOffset,
      tickDeployed: (tick) => queries.drc20Tick(tick.toLowerCase())?.tick ?? null,
    });
    // As the daemon mounts them: the bonding routes, /health and /metrics, in the app's one surface.
    const bonding = new BondingStore({
      db: ammDb,
      ledger,
      deposits: new DepositReader(queries, custody.address),
      queries,
    });
    // No rate limit: the 50 concurrent swaps alone make 150 POSTs within a minute.
    app = createAmmApp({
      ledger,
      network: NETWORKS.regtest,
      rateLimit: 0,
      mount: (root, routes) => {
        surface = routes;
        mountBonding(root, { store: bonding, ledger, network: NETWORKS.regtest });
        mountReserves(root, new CustodyReserves({ db: ammDb, ledger, bonding, queries, wallet: custodyWallet }));
        mountOpsRoutes(root, { registry: new Registry(), surface: routes, health: () => ({ ok: true, name: "amm" }) });
      },
    });
    ({ server, base } = await listenLocal(app));
    client = createClient<paths>({ baseUrl: base });

    await deployTick(devnet, deployer, TICK, 21_000_000n, 1_000_000n);
    await mine();
    for (const key of [alice, alice, bob, trader, trader]) await mintTick(devnet, key, TICK, 1_000_000n);
    await mine();
    expect(queries.drc20Balances(alice.address)).to.deep.include({
      tick: TICK,
      available: "2000000",
      transferable: "0",
    });
  });

  after(async () => {
    server?.close();
    await stack?.stop();
  });

  describe("contract", () => {
    it("documents every route it serves", () => {
      expect(undocumentedRoutes(app, [surface])).to.deep.equal([]);
    });

    it("publishes its OpenAPI document", async () => {
      const document = await fetch(`${base}/openapi.json`);
      expect(document.status).to.equal(200);
      await expectPublished("amm", await document.json());
      const page = await fetch(`${base}/docs`);
      expect([page.status, page.headers.get("content-type")]).to.satisfy(
        ([status, type]: [number, string]) => status === 200 && type.startsWith("text/html"),
      );
      expect(await page.text()).to.include("DogeOS AMM");
      expect((await fetch(`${base}/docs/assets/swagger-ui-bundle.js`)).status).to.equal(200);
    });
  });

  describe("liquidity", () => {
    it("refuses a pool of a tick not deployed on chain", async () => {
      const answer = await addLiquidity(alice, { tick: "NOPE", dogeTxid: "11".repeat(32), tokenTxid: "22".repeat(32) });
      expect(answer.status).to.equal(404);
      expect(answer.body.error.code).to.equal("TICK_NOT_DEPLOYED");
    });

    it("mints the first deposit's shares as floor(sqrt(doge x token)) - 1000 from two real deposits", async () => {
      const dogeTxid = await depositDoge(alice, 1_000n * DOGE);
      const tokenTxid = await depositToken(alice, 500_000n);
      const early = await addLiquidity(alice, { tick: TICK, dogeTxid, tokenTxid });
      expect(early.status).to.equal(409);
      expect(early.body.error.code).to.equal("DEPOSIT_NOT_FOUND");
      await mine();
      const added = await addLiquidity(alice, { tick: TICK, dogeTxid, tokenTxid });
      expect(added.status, JSON.stringify(added.body)).to.equal(201);
      const expected = isqrt(1_000n * DOGE * 500_000n) - 1_000n;
      expect(added.body).to.include({
        kind: "add",
        shares: expected.toString(),
        doge: (1_000n * DOGE).toString(),
        token: "500000",
      });
      const again = await addLiquidity(alice, { tick: TICK, dogeTxid, tokenTxid });
      expect(again.status).to.equal(200);
      expect(again.body.operationId).to.equal(added.body.operationId);
      const pool = await poolNow();
      expect(pool).to.include({
        tick: TICK,
        dogeReserve: (1_000n * DOGE).toString(),
        tokenReserve: "500000",
        lpSupply: (expected + 1_000n).toString(),
        feeBps: 100,
      });
      expect(pool.priceKoinuPerToken).to.equal("200000"); // 1,000 DOGE for 500,000 tokens
      expect(pool.depth.map((d) => d.bps)).to.deep.equal([100, 200, 500]);
      // 1% depth: the smallest DOGE input that moves dogeReserve/tokenReserve up by 1% or more.
      const onePercent = pool.depth[0].dogeToToken;
      if (!onePercent) throw new Error("no 1% depth");
      const moved = swapExactIn({ ...ledger.pool(TICK)!.pool }, "DOGE_TO_TOKEN", BigInt(onePercent.amountIn)).pool;
      expect(moved.dogeReserve * 500_000n * 10_000n >= 10_100n * moved.tokenReserve * 1_000n * DOGE).to.equal(true);
      const positions = (await call("GET", `/liquidity/positions/${alice.address}`)).body.positions;
      expect(positions).to.have.length(1);
      expect(positions[0]).to.include({ tick: TICK, shares: expected.toString(), unclaimedFees: "0" });
      expect((await call("GET", "/pools")).body.pools.map((p: any) => p.tick)).to.deep.equal([TICK]);
    });

    it("mints a later deposit pro rata to the smaller side and refunds the excess of the other", async () => {
      const dogeTxid = await depositDoge(bob, 1_000n * DOGE);
      const tokenTxid = await depositToken(bob, 600_000n); // 100,000 more than the pool's ratio takes
      await mine();
      const before = await poolNow();
      const added = await addLiquidity(bob, { tick: TICK, dogeTxid, tokenTxid });
      expect(added.status, JSON.stringify(added.body)).to.equal(201);
      expect(added.body.shares).to.equal(before.lpSupply);
      expect(added.body.token).to.equal("500000");
      expect(added.body.payouts).to.have.length(1);
      expect(added.body.payouts[0]).to.include({
        asset: "DRC20",
        tick: TICK,
        address: bob.address,
        amount: "100000",
        reason: "liquidity_excess",
        status: "queued",
      });
    });
  });

  describe("quotes", () => {
    it("answers the same quote over GET and POST, with fee in DOGE, minimum out and expiry", async () => {
      const pool = await poolNow();
      const got = await call(
        "GET",
        `/swap/quote?tick=${TICK}&direction=DOGE_TO_TOKEN&amountIn=${10n * DOGE}&slippageBps=100`,
      );
      const posted = await call("POST", "/swap/quote", {
        tick: TICK,
        direction: "DOGE_TO_TOKEN",
        amountIn: (10n * DOGE).toString(),
        slippageBps: 100,
      });
      expect(got.status).to.equal(200);
      for (const q of [got.body, posted.body]) {
        // fee = ceil(10 DOGE x 1%); out = floor(net x T / (D + net)) (issue 9's rules, computed here by hand)
        const fee = 10_000_000n;
        const net = 10n * DOGE - fee;
        const out = (net * BigInt(pool.tokenReserve)) / (BigInt(pool.dogeReserve) + net);
        expect(q).to.include({
          tick: TICK,
          direction: "DOGE_TO_TOKEN",
          amountIn: (10n * DOGE).toString(),
          amountOut: out.toString(),
          fee: fee.toString(),
          feeAsset: "DOGE",
        });
        expect(q.minAmountOut).to.equal(((out * 9_900n) / 10_000n).toString());
        // Stateless: the id carries the quote's terms under the ledger's MAC.
        expect(q.quoteId).to.match(/^qt_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
        expect(q.expiresAt).to.be.greaterThan(Math.floor(Date.now() / 1000));
        expect(q.priceImpactBps).to.be.a("number");
      }
    });

    it("quotes exact out: the smallest input that pays at least the amount asked", async () => {
      const answer = await call("POST", "/swap/quote", {
        tick: TICK,
        direction: "TOKEN_TO_DOGE",
        amountOut: (5n * DOGE).toString(),
      });
      expect(answer.status).to.equal(200);
      expect(BigInt(answer.body.amountOut) >= 5n * DOGE).to.equal(true);
      const less = await call(
        "GET",
        `/swap/quote?tick=${TICK}&direction=TOKEN_TO_DOGE&amountIn=${BigInt(answer.body.amountIn) - 1n}`,
      );
      expect(BigInt(less.body.amountOut) < 5n * DOGE).to.equal(true);
    });

    it("answers GET quotes on the node:http fast path exactly as the Express route does", async () => {
      const app = createAmmApp({ ledger, network: NETWORKS.regtest });
      const fast = createQuoteFastPath(ledger);
      const { server: fastServer, base: fastBase } = await listenLocal((req, res) => {
        if (!fast(req, res)) app(req, res);
      });
      try {
        const queries = [
          `tick=${TICK}&direction=DOGE_TO_TOKEN&amountIn=${10n * DOGE}&slippageBps=100`,
          `tick=${TICK.toLowerCase()}&direction=TOKEN_TO_DOGE&amountOut=${DOGE}`,
          `tick=${TICK}&direction=DOGE_TO_TOKEN&amountIn=0`,
          `tick=${TICK}&direction=UP&amountIn=5`,
          `tick=ZZZZ&direction=DOGE_TO_TOKEN&amountIn=100000000`,
          `tick=${TICK}&direction=DOGE_TO_TOKEN&amountIn=100000000&x=1`,
          `tick=${TICK}&direction=DOGE_TO_TOKEN&amountIn=1&amountIn=2`,
          "",
        ];
        const strip = (body: any) => (body?.quoteId ? { ...body, quoteId: "", createdAt: 0, expiresAt: 0 } : body);
        for (const query of queries) {
          const viaExpress = await fetch(`${base}/api/swap/quote?${query}`);
          const viaFast = await fetch(`${fastBase}/api/swap/quote?${query}`);
          expect(viaFast.status, query).to.equal(viaExpress.status);
          expect(viaFast.headers.get("cache-control")).to.equal("no-store");
          expect(strip(await viaFast.json()), query).to.deep.equal(strip(await viaExpress.json()));
        }
      } finally {
        fastServer.close();
      }
    });

    it("refuses bad input with its code and no ledger change", async () => {
      const seq = ammDb.prepare("SELECT COUNT(*) AS n FROM ledger").get();
      const cases: [string, number, string][] = [
        [`tick=ZZZZ&direction=DOGE_TO_TOKEN&amountIn=100000000`, 404, "POOL_NOT_FOUND"],
        [`tick=${TICK}&direction=DOGE_TO_TOKEN&amountIn=0`, 400, "AMOUNT_ZERO"],
        [`tick=${TICK}&direction=DOGE_TO_TOKEN&amountIn=-5`, 400, "AMOUNT_NEGATIVE"],
        [`tick=${TICK}&direction=DOGE_TO_TOKEN&amountIn=1.5`, 400, "AMOUNT_NOT_INTEGER"],
        [`tick=${TICK}&direction=DOGE_TO_TOKEN&amountIn=${2n ** 128n}`, 400, "AMOUNT_TOO_LARGE"],
        [`tick=${TICK}&direction=SIDEWAYS&amountIn=100000000`, 400, "INVALID_DIRECTION"],
        [`tick=${TICK}&direction=DOGE_TO_TOKEN`, 400, "AMOUNT_REQUIRED"],
        [`tick=${TICK}&direction=DOGE_TO_TOKEN&amountIn=100000000&slippageBps=10001`, 400, "INVALID_SLIPPAGE"],
        [`tick=${TICK}&direction=DOGE_TO_TOKEN&amountIn=1000`, 422, "AMOUNT_TOO_SMALL"],
        [`tick=${TICK}&direction=TOKEN_TO_DOGE&amountOut=${2000n * DOGE}`, 422, "EXCESSIVE_OUTPUT"],
        [`tick=${TICK}&direction=DOGE_TO_TOKEN&amountIn=100000000&extra=1`, 400, "UNKNOWN_FIELDS"],
      ];
      for (const [query, status, code] of cases) {
        const answer = await call("GET", `/swap/quote?${query}`);
        expect([answer.status, answer.body.error?.code], query).to.deep.equal([status, code]);
        expect(answer.body.error.message).to.be.a("string");
      }
      expect((await call("GET", "/pools/PUPS/WOOF")).status).to.equal(404);
      expect(ammDb.prepare("SELECT COUNT(*) AS n FROM ledger").get()).to.deep.equal(seq);
    });
  });

  describe("swaps", () => {
    /** Quote, create and deposit; the deposit is mined unless `mined` is false. */
    async function swapWithDeposit(
      key: TestKey,
      direction: "DOGE_TO_TOKEN" | "TOKEN_TO_DOGE",
      amountIn: bigint,
      options: { slippageBps?: number; deposit?: bigint; mined?: boolean } = {},
    ) {
      const quote = (
        await call("POST", "/swap/quote", {
          tick: TICK,
          direction,
          amountIn: amountIn.toString(),
          slippageBps: options.slippageBps ?? 50,
        })
      ).body;
      const created = await call("POST", "/swap/create", { quoteId: quote.quoteId, address: key.address });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const amount = options.deposit ?? amountIn;
      const txid = direction === "DOGE_TO_TOKEN" ? await depositDoge(key, amount) : await depositToken(key, amount);
      if (options.mined !== false) await mine();
      return { quote, swap: created.body, txid };
    }

    it("swaps DOGE for the token: the deposit announced before it is mined, executed once it is, delivering exactly the quote", async () => {
      const { quote, swap, txid } = await swapWithDeposit(trader, "DOGE_TO_TOKEN", 20n * DOGE, { mined: false });
      expect(swap).to.include({
        status: "created",
        depositAddress: custody.address,
        depositAmount: (20n * DOGE).toString(),
        depositAsset: "DOGE",
      });
      const pending = await execute(trader, swap.swapId, txid);
      expect(pending.status).to.equal(202);
      expect(pending.body.status).to.equal("deposit_seen");
      await mine();
      const before = await poolNow();
      const executed = await execute(trader, swap.swapId, txid);
      expect(executed.status, JSON.stringify(executed.body)).to.equal(200);
      expect(executed.body).to.include({
        status: "executed",
        amountOut: quote.amountOut,
        fee: quote.fee,
        depositTxid: txid,
      });
      expect(executed.body.payout).to.include({
        asset: "DRC20",
        tick: TICK,
        address: trader.address,
        amount: quote.amountOut,
        reason: "swap",
        status: "queued",
      });
      const after = await poolNow();
      expect(BigInt(after.dogeReserve)).to.equal(BigInt(before.dogeReserve) + 20n * DOGE - BigInt(quote.fee));
      expect(BigInt(after.tokenReserve)).to.equal(BigInt(before.tokenReserve) - BigInt(quote.amountOut));
      expect(
        BigInt(after.dogeReserve) * BigInt(after.tokenReserve) >=
          BigInt(before.dogeReserve) * BigInt(before.tokenReserve),
      ).to.equal(true);
      // Executing again answers the same swap; the history lists it.
      const again = await execute(trader, swap.swapId, txid);
      expect([again.status, again.body.ledgerSeq]).to.deep.equal([200, executed.body.ledgerSeq]);
      expect((await call("GET", `/swap/history/${trader.address}`)).body.swaps.map((s: any) => s.swapId)).to.include(
        swap.swapId,
      );
      expect((await call("GET", `/swap/status/${swap.swapId}`)).body.status).to.equal("executed");
    });

    it("swaps the token for DOGE, the fee taken from the gross DOGE out", async () => {
      const before = await poolNow();
      const { quote, swap, txid } = await swapWithDeposit(trader, "TOKEN_TO_DOGE", 10_000n);
      const gross = (10_000n * BigInt(before.dogeReserve)) / (BigInt(before.tokenReserve) + 10_000n);
      const fee = (gross * 100n + 9_999n) / 10_000n;
      expect(quote).to.include({ amountOut: (gross - fee).toString(), fee: fee.toString() });
      const executed = await execute(trader, swap.swapId, txid);
      expect(executed.status, JSON.stringify(executed.body)).to.equal(200);
      expect(executed.body.amountOut).to.equal(quote.amountOut);
      expect(executed.body.payout).to.include({ asset: "DOGE", amount: quote.amountOut, address: trader.address });
      const after = await poolNow();
      expect(BigInt(after.dogeReserve)).to.equal(BigInt(before.dogeReserve) - gross);
    });

    it("refunds a swap whose minimum out is no longer met when it executes", async () => {
      const first = await swapWithDeposit(trader, "DOGE_TO_TOKEN", 10n * DOGE, { slippageBps: 0 });
      const mover = await swapWithDeposit(trader, "DOGE_TO_TOKEN", 50n * DOGE);
      expect((await execute(trader, mover.swap.swapId, mover.txid)).status).to.equal(200);
      const seq = ledger.ledgerOf(TICK).length;
      const refused = await execute(trader, first.swap.swapId, first.txid);
      expect(refused.status).to.equal(422);
      expect(refused.body.error.code).to.equal("MIN_OUT_NOT_MET");
      expect(refused.body.error.details).to.include({
        swap_id: first.swap.swapId,
        refund_amount: (10n * DOGE).toString(),
      });
      expect(ledger.ledgerOf(TICK)).to.have.length(seq);
      const status = (await call("GET", `/swap/status/${first.swap.swapId}`)).body;
      expect(status.status).to.equal("refunded");
      expect(status.refund).to.include({
        asset: "DOGE",
        address: trader.address,
        amount: (10n * DOGE).toString(),
        status: "queued",
      });
    });

    it("refuses a deposit too small, one mined too late, one already used and one from another address", async () => {
      const seq = ledger.ledgerOf(TICK).length;
      const small = await swapWithDeposit(trader, "DOGE_TO_TOKEN", 10n * DOGE, { deposit: 9n * DOGE });
      const tooSmall = await execute(trader, small.swap.swapId, small.txid);
      expect([tooSmall.status, tooSmall.body.error.code]).to.deep.equal([422, "DEPOSIT_TOO_SMALL"]);
      expect((await call("GET", `/swap/status/${small.swap.swapId}`)).body.refund).to.include({
        amount: (9n * DOGE).toString(),
      });

      const reused = await swapWithDeposit(trader, "DOGE_TO_TOKEN", 10n * DOGE, { mined: false });
      const used = await execute(trader, reused.swap.swapId, small.txid);
      expect([used.status, used.body.error.code]).to.deep.equal([409, "DEPOSIT_ALREADY_USED"]);

      const stranger = newKey();
      const strangerTxid = await depositDoge(stranger, 10n * DOGE);
      await mine();
      const foreign = await execute(trader, reused.swap.swapId, strangerTxid);
      expect([foreign.status, foreign.body.error.code]).to.deep.equal([422, "DEPOSIT_NOT_FROM_ADDRESS"]);
      // Nor may the stranger bind its deposit to the trader's swap: only the swap's address signs it.
      const hijack = await execute(stranger, reused.swap.swapId, strangerTxid);
      expect([hijack.status, hijack.body.error.code]).to.deep.equal([401, "INVALID_SIGNATURE"]);

      // A swap made in the past: its deposit is mined after it expired.
      clockOffset = -3_600;
      const late = await swapWithDeposit(trader, "DOGE_TO_TOKEN", 10n * DOGE);
      clockOffset = 0;
      const tooLate = await execute(trader, late.swap.swapId, late.txid);
      expect([tooLate.status, tooLate.body.error.code]).to.deep.equal([422, "DEPOSIT_LATE"]);
      expect(ledger.ledgerOf(TICK)).to.have.length(seq);
      // The right deposit still executes the swap that refused the others.
      expect((await execute(trader, reused.swap.swapId, reused.txid)).status).to.equal(200);
    });

    it("refunds a deposit mined after its swap expired unseen, when it is announced", async () => {
      clockOffset = -3_600;
      const quote = (
        await call("POST", "/swap/quote", { tick: TICK, direction: "DOGE_TO_TOKEN", amountIn: (10n * DOGE).toString() })
      ).body;
      const swap = (await call("POST", "/swap/create", { quoteId: quote.quoteId, address: trader.address })).body;
      clockOffset = 0;
      expect(ledger.retryPending().expired).to.be.at.least(1);
      expect((await call("GET", `/swap/status/${swap.swapId}`)).body.status).to.equal("expired");
      const txid = await depositDoge(trader, 10n * DOGE);
      const unmined = await execute(trader, swap.swapId, txid);
      expect([unmined.status, unmined.body.error.code]).to.deep.equal([409, "DEPOSIT_NOT_FOUND"]);
      await mine();
      const late = await execute(trader, swap.swapId, txid);
      expect([late.status, late.body.error.code]).to.deep.equal([422, "DEPOSIT_LATE"]);
      const status = (await call("GET", `/swap/status/${swap.swapId}`)).body;
      expect(status.status).to.equal("refunded");
      expect(status.refund).to.include({ asset: "DOGE", address: trader.address, amount: (10n * DOGE).toString() });
    });

    it("refuses an expired quote, an unknown swap and a swap for the custody's own address", async () => {
      const quote = (
        await call("POST", "/swap/quote", { tick: TICK, direction: "DOGE_TO_TOKEN", amountIn: (10n * DOGE).toString() })
      ).body;
      clockOffset = 61;
      const expired = await call("POST", "/swap/create", { quoteId: quote.quoteId, address: trader.address });
      clockOffset = 0;
      expect([expired.status, expired.body.error.code]).to.deep.equal([422, "QUOTE_EXPIRED"]);
      expect((await call("GET", `/swap/status/swp_${"0".repeat(24)}`)).status).to.equal(404);
      expect(
        (await call("POST", "/swap/execute", { swapId: "nope", depositTxid: "00".repeat(32) })).body.error.code,
      ).to.equal("INVALID_SWAP_ID");
      expect(
        (await call("POST", "/swap/create", { quoteId: quote.quoteId, address: trader.address, extra: 1 })).body.error
          .code,
      ).to.equal("UNKNOWN_FIELDS");
      const custodyOwn = await call("POST", "/swap/create", { quoteId: quote.quoteId, address: custody.address });
      expect([custodyOwn.status, custodyOwn.body.error.code]).to.deep.equal([422, "ADDRESS_IS_SERVICE"]);
    });

    it("gives 50 concurrent executes on one pool the reserves of applying them one by one in the ledger's order", async () => {
      const swaps = [];
      const coins = [];
      for (let i = 0; i < 50; i++) coins.push(await faucetCoin(devnet, trader, 30));
      await mine();
      for (let i = 0; i < 50; i++) {
        const direction = "DOGE_TO_TOKEN" as const;
        const amountIn = BigInt(1 + (i % 7)) * DOGE;
        const quote = (
          await call("POST", "/swap/quote", {
            tick: TICK,
            direction,
            amountIn: amountIn.toString(),
            slippageBps: 10_000,
          })
        ).body;
        const created = (await call("POST", "/swap/create", { quoteId: quote.quoteId, address: trader.address })).body;
        swaps.push({ swapId: created.swapId, depositTxid: await depositDoge(trader, amountIn, coins[i]), amountIn });
      }
      await mine();
      const start = ledger.pool(TICK)!.pool;
      const firstSeq = ledger.ledgerOf(TICK).length;
      // Each execute signed by the trader first, so that the 50 POSTs themselves run concurrently.
      const signed = [];
      for (const s of swaps)
        signed.push({
          ...s,
          signature: signMessage(
            await authMessage({ action: "execute-swap", swapId: s.swapId, depositTxid: s.depositTxid }),
            trader.privateKey,
          ),
        });
      const answers = await Promise.all(
        signed.map((s) =>
          call("POST", "/swap/execute", { swapId: s.swapId, depositTxid: s.depositTxid, signature: s.signature }),
        ),
      );
      expect(answers.map((a) => a.status)).to.deep.equal(swaps.map(() => 200));
      const rows = ledger.ledgerOf(TICK).slice(firstSeq) as { ref_id: string; amount_in: string }[];
      expect(rows).to.have.length(50);
      let replay: Pool = start;
      for (const row of rows) replay = swapExactIn(replay, "DOGE_TO_TOKEN", BigInt(row.amount_in)).pool;
      expect(ledger.pool(TICK)!.pool).to.deep.equal(replay);
    });
  });

  describe("fees", () => {
    it("shares fees between two providers pro rata to the koinu, and conserves them", async () => {
      const pool = ledger.pool(TICK)!.pool;
      const a = ledger.positions(alice.address)[0];
      const b = ledger.positions(bob.address)[0];
      // Both joined before every swap: each holds shares/lpSupply of every fee. The accumulator
      // floors once per credit and carries the remainder, so a balance is its exact share floored,
      // or one koinu less when that share is a whole number (the koinu stays undistributed in the
      // pool, and the audit accounts for it).
      const total = pool.feesCredited;
      for (const p of [a, b]) {
        const exact = (total * p.shares) / pool.lpSupply;
        expect(
          exact - p.claimableFees >= 0n && exact - p.claimableFees <= 1n,
          `${p.claimableFees} vs ${exact}`,
        ).to.equal(true);
      }
      const audit = ledger.audit(TICK);
      expect(audit.balanced).to.equal(true);
      expect(audit.feesCredited).to.equal(
        audit.feesClaimed + a.claimableFees + b.claimableFees + audit.lockedFees + audit.undistributed,
      );
    });

    it("claims fees with a wallet-signed authorization: 202, balance zeroed, payout queued; 20 concurrent replays pay once", async () => {
      const owed = ledger.positions(alice.address)[0].claimableFees;
      const auth = authorize(alice, "claim-fees", {}, "claim-nonce-0001");
      const answers = await Promise.all(Array.from({ length: 20 }, () => call("POST", "/liquidity/claim-fees", auth)));
      const accepted = answers.filter((a) => a.status === 202);
      expect(accepted).to.have.length(1);
      expect(answers.filter((a) => a.status === 409).map((a) => a.body.error.code)).to.deep.equal(
        Array(19).fill("AUTHORIZATION_USED"),
      );
      expect(accepted[0].body).to.include({ amount: owed.toString(), feeAsset: "DOGE" });
      expect(accepted[0].body.payout).to.include({
        asset: "DOGE",
        address: alice.address,
        amount: owed.toString(),
        status: "queued",
      });
      expect(ledger.positions(alice.address)[0].claimableFees).to.equal(0n);
      const fees = (await call("GET", `/liquidity/fees/${alice.address}`)).body;
      expect(fees.unclaimed).to.equal("0");
      expect(fees.claims.map((c: any) => c.claimId)).to.deep.equal([accepted[0].body.claimId]);
      expect(ledger.audit(TICK).balanced).to.equal(true);
    });

    it("refuses an expired, a forged and an empty claim", async () => {
      const expired = authorize(bob, "claim-fees", {}, "claim-nonce-0002", Math.floor(Date.now() / 1000) - 1);
      expect((await call("POST", "/liquidity/claim-fees", expired)).body.error.code).to.equal("AUTHORIZATION_EXPIRED");
      const forged = { ...authorize(alice, "claim-fees", {}, "claim-nonce-0003"), address: bob.address };
      expect((await call("POST", "/liquidity/claim-fees", forged)).body.error.code).to.equal("INVALID_SIGNATURE");
      const empty = await call("POST", "/liquidity/claim-fees", authorize(alice, "claim-fees", {}, "claim-nonce-0004"));
      expect([empty.status, empty.body.error.code]).to.deep.equal([422, "NOTHING_TO_CLAIM"]);
    });

    it("removes liquidity with the position's unclaimed fees, rounded down, paid in DOGE and the token", async () => {
      const position = ledger.positions(bob.address)[0];
      const pool = ledger.pool(TICK)!.pool;
      const half = position.shares / 2n;
      const auth = authorize(bob, "remove-liquidity", { tick: TICK, shares: half.toString() }, "remove-nonce-01");
      const removed = await call("POST", "/liquidity/remove", { tick: TICK, shares: half.toString(), ...auth });
      expect(removed.status, JSON.stringify(removed.body)).to.equal(202);
      const doge = (half * pool.dogeReserve) / pool.lpSupply;
      const token = (half * pool.tokenReserve) / pool.lpSupply;
      expect(removed.body).to.include({
        kind: "remove",
        shares: half.toString(),
        doge: doge.toString(),
        token: token.toString(),
        fees: position.claimableFees.toString(),
      });
      expect(removed.body.payouts.map((p: any) => [p.asset, p.amount])).to.deep.equal([
        ["DOGE", (doge + position.claimableFees).toString()],
        ["DRC20", token.toString()],
      ]);
      const replay = await call("POST", "/liquidity/remove", { tick: TICK, shares: half.toString(), ...auth });
      expect(replay.body.error.code).to.equal("AUTHORIZATION_USED");
      const tooMany = authorize(
        bob,
        "remove-liquidity",
        { tick: TICK, shares: position.shares.toString() },
        "remove-nonce-02",
      );
      expect(
        (await call("POST", "/liquidity/remove", { tick: TICK, shares: position.shares.toString(), ...tooMany })).body
          .error.code,
      ).to.equal("SHARES_EXCEED_POSITION");
      expect(ledger.audit(TICK).balanced).to.equal(true);
    });
  });

  describe("settlement", () => {
    it("pays every payout the ledger queued on chain, as the explorer's index shows", async () => {
      const worker = new SettlementWorker({
        db: ammDb,
        wallet: custodyWallet,
        queries,
        network: NETWORKS.regtest,
        inscriberProject: "launchpad",
        inscriber: new InscriberClient({ url: stack.inscriberBase, key: LAUNCHPAD_PROJECT_KEY }),
      });
      // The custody pays network fees (and DRC-20 postage) from its own DOGE on top of the pools'.
      await faucetCoin(devnet, custody, 500);
      await mine();
      const open = () =>
        (
          ammDb.prepare("SELECT COUNT(*) AS n FROM payouts WHERE status NOT IN ('confirmed', 'below_dust')").get() as {
            n: number;
          }
        ).n;
      await until(
        "every payout confirmed",
        async () => {
          await worker.runOnce();
          await devnet.rpc("generatetoaddress", [1, miner.address]);
          await indexer.syncOnce();
          await stack.platform.checkConfirmations();
          const failed = ammDb.prepare("SELECT id, error FROM payouts WHERE status = 'failed'").all();
          if (failed.length > 0) throw new Error(`payouts failed: ${JSON.stringify(failed)}`);
          return open() === 0;
        },
        240_000,
      );
      const payouts = ammDb.prepare("SELECT * FROM payouts").all() as {
        id: string;
        asset: string;
        address: string;
        amount: string;
        txid: string;
        reason: string;
      }[];
      for (const payout of payouts.filter((p) => p.asset === "DOGE")) {
        const paid = queries
          .tx(payout.txid)!
          .outputs.filter((o) => o.address === payout.address)
          .reduce((sum, o) => sum + o.valueKoinu, 0n);
        expect(paid, payout.id).to.equal(BigInt(payout.amount));
      }
      // The trader's DRC-20 from swaps arrived as transfers received in the index.
      const tokensToTrader = payouts
        .filter((p) => p.asset === "DRC20" && p.address === trader.address)
        .reduce((sum, p) => sum + BigInt(p.amount), 0n);
      expect(tokensToTrader > 0n).to.equal(true);
      const received = ammDb
        .prepare("SELECT txid FROM payouts WHERE asset = 'DRC20' AND address = ?")
        .all(trader.address) as { txid: string }[];
      for (const { txid } of received) expect(queries.tx(txid), txid).to.not.equal(null);
      expect(payouts.map((p) => p.reason)).to.include.members([
        "swap",
        "swap_refund:MIN_OUT_NOT_MET",
        "fee_claim",
        "liquidity_remove",
        "liquidity_excess",
      ]);
      const swapOut = (await call("GET", `/swap/history/${trader.address}`)).body.swaps.find(
        (s: any) => s.status === "settled",
      );
      expect(swapOut, "a settled swap").to.not.equal(undefined);
    });
  });
});
