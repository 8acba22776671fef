/**
 * GET /api/pools/:tokenA/:tokenB/swaps: a pool's executed swaps from its ledger (the swap page's
 * price chart), newest or oldest first, paged by cursor, with the trade's price and the reserves
 * after each swap. Swaps are made and executed through the real ledger with signed orders; the index
 * is a reader whose deposits the test names (the deposits themselves are not what this is about).
 * Each answer is checked against the AMM's OpenAPI document by the root hooks.
 */
import { expect } from "chai";
import type { Server } from "node:http";
import { NETWORKS, signMessage } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { IndexQueries } from "../../src/indexer/queries";
import { AmmLedger, Deposit, DepositReader, createAmmApp, openAmmDatabase } from "../../src/services/amm";
import { priceString } from "../../src/services/amm/ledger";
import { TestKey, newKey } from "../helpers/keys";
import { listenLocal } from "../helpers/listen";

const DOGE = 100_000_000n;

/** The index as the test tells it: each named deposit, 6 blocks deep. */
class NamedDeposits extends DepositReader {
  readonly named = new Map<string, Deposit>();
  read(_asset: "DOGE" | "DRC20", txid: string): Deposit | null {
    return this.named.get(txid) ?? null;
  }
}

describe("AMM pool swap history (GET /api/pools/:tokenA/:tokenB/swaps)", () => {
  let now = 1_800_000_000;
  const custody = newKey();
  const alice = newKey();
  const bob = newKey();
  const db = openAmmDatabase(":memory:");
  const deposits = new NamedDeposits(new IndexQueries(openIndexerDatabase(":memory:")), custody.address);
  const ledger = new AmmLedger({ db, network: NETWORKS.regtest, deposits, tickDeployed: (t) => t, clock: () => now });
  let server: Server;
  let base = "";
  let txSeq = 0;
  const executed: { id: string; seq: number; address: string }[] = [];

  const get = async (path: string) => {
    const response = await fetch(`${base}/api${path}`);
    return { status: response.status, body: (await response.json()) as any };
  };

  /** A swap quoted, created, paid (a deposit the index shows) and executed with its payer's signature. */
  function swap(tick: string, key: TestKey, direction: "DOGE_TO_TOKEN" | "TOKEN_TO_DOGE", amountIn: bigint) {
    now += 60;
    const quote = ledger.quote({ tick, direction, amountIn, slippageBps: 100 });
    const { swap: created } = ledger.createSwap(quote.id, key.address);
    const txid = (++txSeq).toString(16).padStart(64, "0");
    const base = {
      txid,
      height: 100 + txSeq,
      blockTime: now,
      confirmations: 6,
      payer: key.address,
      serviceFunded: false,
    };
    deposits.named.set(
      txid,
      direction === "DOGE_TO_TOKEN"
        ? { ...base, amount: created.amountIn + created.payoutCost, unspendable: [] }
        : { ...base, amount: created.amountIn + created.payoutCost, tick },
    );
    const signature = signMessage(ledger.executeSwapMessage(created.id, txid), key.privateKey);
    const { swap: done, outcome } = ledger.executeSwap(created.id, txid, signature);
    expect(outcome, JSON.stringify(done.error)).to.equal("executed");
    return done;
  }

  before(async () => {
    // The custody holds both pools' reserves (the second seed counts the first's DOGE as owed).
    for (const [i, tick] of ["PUPS", "WOOF"].entries())
      ledger.seedPool({
        tick,
        doge: 1_000n * DOGE,
        token: 1_000_000n,
        provider: custody.address,
        refId: `seed-${tick}`,
        holdings: { doge: BigInt(i + 1) * 1_000n * DOGE, token: 1_000_000n },
      });
    const made = [
      swap("PUPS", alice, "DOGE_TO_TOKEN", 10n * DOGE),
      swap("WOOF", bob, "DOGE_TO_TOKEN", 3n * DOGE),
      swap("PUPS", bob, "DOGE_TO_TOKEN", 25n * DOGE),
      swap("PUPS", alice, "TOKEN_TO_DOGE", 5_000n),
      swap("PUPS", bob, "DOGE_TO_TOKEN", 1n * DOGE),
      swap("PUPS", alice, "TOKEN_TO_DOGE", 700n),
    ];
    for (const s of made) if (s.tick === "PUPS") executed.push({ id: s.id, seq: s.ledgerSeq!, address: s.address });
    // A swap ordered and never paid is no part of the pool's history.
    ledger.createSwap(
      ledger.quote({ tick: "PUPS", direction: "DOGE_TO_TOKEN", amountIn: DOGE, slippageBps: 50 }).id,
      alice.address,
    );
    ({ server, base } = await listenLocal(createAmmApp({ ledger, network: NETWORKS.regtest })));
  });

  after(() => server?.close());

  it("answers the pool's executed swaps newest first, paged by cursor, each with its price and the reserves after it", async () => {
    const seen: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const { status, body }: { status: number; body: any } = await get(
        `/pools/PUPS/DOGE/swaps?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(status, JSON.stringify(body)).to.equal(200);
      expect([body.tick, body.order]).to.deep.equal(["PUPS", "desc"]);
      expect(body.swaps.length).to.be.at.most(2);
      seen.push(...body.swaps);
      cursor = body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).to.equal(3);
    expect(seen.map((s) => s.swapId)).to.deep.equal(executed.map((s) => s.id).reverse());
    expect(seen.map((s) => s.address)).to.deep.equal(executed.map((s) => s.address).reverse());

    for (const entry of seen) {
      const record = ledger.swap(entry.swapId)!;
      expect([
        entry.direction,
        entry.amountIn,
        entry.amountOut,
        entry.fee,
        entry.depositTxid,
        entry.status,
      ]).to.deep.equal([
        record.direction,
        record.amountIn.toString(),
        record.amountOut!.toString(),
        record.fee!.toString(),
        record.depositTxid,
        record.status,
      ]);
      const [koinu, tokens] =
        entry.direction === "DOGE_TO_TOKEN" ? [entry.amountIn, entry.amountOut] : [entry.amountOut, entry.amountIn];
      expect(entry.priceKoinuPerToken).to.equal(priceString(BigInt(koinu), BigInt(tokens)));
      expect(entry.spotAfterKoinuPerToken).to.equal(priceString(BigInt(entry.dogeReserve), BigInt(entry.tokenReserve)));
    }
    // Each swap's reserves follow from the one before it; the newest's are the pool's now.
    for (let i = 0; i + 1 < seen.length; i++) {
      const [newer, older] = [seen[i], seen[i + 1]];
      const dogeIn = newer.direction === "DOGE_TO_TOKEN";
      expect(BigInt(newer.tokenReserve) - BigInt(older.tokenReserve)).to.equal(
        dogeIn ? -BigInt(newer.amountOut) : BigInt(newer.amountIn),
      );
      expect(BigInt(newer.dogeReserve) > BigInt(older.dogeReserve)).to.equal(dogeIn);
    }
    const { body: pools } = await get("/pools");
    const pool = pools.pools.find((p: any) => p.tick === "PUPS");
    expect([seen[0].dogeReserve, seen[0].tokenReserve]).to.deep.equal([pool.dogeReserve, pool.tokenReserve]);
    // A DOGE -> token swap paid more koinu per token than one of the other way got.
    const buy = seen.find((s) => s.direction === "DOGE_TO_TOKEN");
    const sell = seen.find((s) => s.direction === "TOKEN_TO_DOGE");
    expect(Number(buy.priceKoinuPerToken) > 0 && Number(sell.priceKoinuPerToken) > 0).to.equal(true);
  });

  it("answers oldest first with order=asc, the pair in either order, and pages the same way", async () => {
    const first = await get("/pools/DOGE/pups/swaps?order=asc&limit=4");
    expect(first.status).to.equal(200);
    expect(first.body.order).to.equal("asc");
    expect(first.body.swaps.map((s: any) => s.swapId)).to.deep.equal(executed.slice(0, 4).map((s) => s.id));
    const rest = await get(`/pools/PUPS/DOGE/swaps?order=asc&limit=4&cursor=${first.body.nextCursor}`);
    expect(rest.body.swaps.map((s: any) => s.swapId)).to.deep.equal(executed.slice(4).map((s) => s.id));
    expect(rest.body.nextCursor).to.equal(null);
    const other = await get("/pools/WOOF/DOGE/swaps");
    expect(other.body.swaps).to.have.length(1);
    expect(other.body.swaps[0].address).to.equal(bob.address);
  });

  it("refuses an unknown pool, a pair without DOGE, a page size out of bounds and a cursor it did not issue; writes nothing", async () => {
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
      (t) => t.name,
    );
    const counts = () =>
      tables.map((t) => (db.prepare(`SELECT COUNT(*) AS n FROM "${t}"`).get() as { n: number }).n).join(",");
    const before = counts();
    const refusals = [
      ["/pools/NOPE/DOGE/swaps", 404, "POOL_NOT_FOUND"],
      ["/pools/PUPS/WOOF/swaps", 404, "POOL_NOT_FOUND"],
      ["/pools/PUPS/DOGE/swaps?limit=0", 400, "INVALID_LIMIT"],
      ["/pools/PUPS/DOGE/swaps?limit=201", 400, "INVALID_LIMIT"],
      ["/pools/PUPS/DOGE/swaps?cursor=bm90LWEtY3Vyc29y", 400, "INVALID_CURSOR"],
      ["/pools/PUPS/DOGE/swaps?order=sideways", 400, null],
    ] as const;
    for (const [path, status, code] of refusals) {
      const answer = await get(path);
      expect(answer.status, path).to.equal(status);
      if (code) expect(answer.body.error.code, path).to.equal(code);
    }
    await get("/pools/PUPS/DOGE/swaps?limit=200");
    expect(counts()).to.equal(before);
  });
});
