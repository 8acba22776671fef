/**
 * The indexer's buffered write path (store.ts: a batch's transactions, outputs and history rows are
 * written when the batch ends, an output spent in the batch that made it is written once, already
 * spent) on the devnet equivalence chain (payments, OP_RETURNs, DRC-20, Doginals and v1
 * inscriptions, OP_CHECKZKP uses, two reorgs): batches of one block and of four blocks must leave
 * every table with the same rows as the default batches (the whole chain in one), step by step; so
 * must a catch-up into a SQLite file whose WAL checkpoints run on a worker thread (checkpointer.ts).
 * A batch holds its blocks' bytes and parses each as it is applied: a block that does not parse, or
 * is not the block asked for, stops the indexer with nothing of its batch written. With a recent
 * window of two transactions, older outputs are answered by the UTXO cache (or, when it is full or
 * off, by the index): the rows stay the same, reorgs included.
 */
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NETWORKS } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer, IndexerOptions } from "../../src/indexer/indexer";
import { IndexerStore, IndexerStoreOptions } from "../../src/indexer/store";
import { UTXO_CACHE_SLOT_BYTES, UtxoCache } from "../../src/indexer/utxo-cache";
import { dumpDatabase } from "../helpers/db-dump";
import { EquivalenceChain, SteppedChainSource, devnetChain } from "./equivalence/chain";

/** A fresh index of `chain` (in memory unless `location` names a file) and the indexer that follows its stepped source. */
function indexerOf(
  chain: EquivalenceChain,
  options: Partial<IndexerOptions> = {},
  storeOptions: IndexerStoreOptions = {},
  location = ":memory:",
) {
  const db = openIndexerDatabase(location);
  const source = new SteppedChainSource(chain);
  const indexer = new Indexer({
    store: new IndexerStore(db, storeOptions),
    source,
    network: NETWORKS[chain.network],
    startHeight: chain.startHeight,
    ...options,
  });
  return { db, source, indexer };
}

/** Every table but meta, as text (bigints as decimal strings). */
const dumpText = (db: ReturnType<typeof openIndexerDatabase>): string =>
  JSON.stringify(dumpDatabase(db, ["meta"]), (_, v) => (typeof v === "bigint" ? v.toString() : v));

/** Indexes the chain step by step; returns the dump of every table after each step. */
async function dumps(
  chain: EquivalenceChain,
  options: Partial<IndexerOptions>,
  storeOptions: IndexerStoreOptions = {},
): Promise<string[]> {
  const { db, source, indexer } = indexerOf(chain, options, storeOptions);
  const out: string[] = [];
  for (const step of chain.steps) {
    source.active = step.blocks;
    await indexer.syncOnce();
    out.push(dumpText(db));
  }
  db.close();
  return out;
}

describe("indexer write path: the same rows whatever the batch size", function () {
  this.timeout(120_000);
  let chain: EquivalenceChain;
  let reference: string[];

  before(async () => {
    chain = await devnetChain();
    reference = await dumps(chain, {});
  });

  it("the chain is long enough to need several batches", () => {
    expect(chain.steps[chain.steps.length - 1].blocks.length).to.be.greaterThan(20);
    expect(reference.length).to.equal(chain.steps.length);
  });

  it("leaves the same rows with 4 blocks a batch", async () => {
    const four = await dumps(chain, { batchBlocks: 4 });
    four.forEach((dump, i) => expect(dump, `after step ${i + 1}`).to.equal(reference[i]));
  });

  it("leaves the same rows on a SQLite file with its WAL checkpoints on a worker thread, and sets the indexer's checkpoint size back", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dogeos-write-path-"));
    try {
      const events: { event: string; fields?: Record<string, unknown> }[] = [];
      const options = {
        deferIndexesBehind: 0,
        batchBlocks: 2,
        maxWalFrames: 8,
        log: (event: string, fields?: Record<string, unknown>) => events.push({ event, fields }),
      };
      const { db, source, indexer } = indexerOf(chain, options, {}, path.join(dir, "index.sqlite"));
      const autocheckpoint = () =>
        db.prepare<{ wal_autocheckpoint: number }>("PRAGMA wal_autocheckpoint").get()!.wal_autocheckpoint;
      for (const [i, step] of chain.steps.entries()) {
        source.active = step.blocks;
        await indexer.syncOnce();
        expect(dumpText(db), `after step ${i + 1}`).to.equal(reference[i]);
        expect(autocheckpoint(), `after step ${i + 1}`).to.equal(20_000);
      }
      db.close();
      const reports = events.filter((e) => e.event === "wal_checkpoints").map((e) => e.fields!);
      expect(reports.length).to.be.greaterThan(0);
      expect(reports.every((r) => r.failed === false)).to.equal(true);
      expect(reports.reduce((sum, r) => sum + Number(r.checkpoints), 0)).to.be.greaterThan(0);
      expect(events.some((e) => e.event === "wal_checkpointer_failed")).to.equal(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("writes nothing of a batch with a block that does not parse, or that is not the block asked for", async () => {
    const step = chain.steps.find((candidate) => candidate.blocks.length >= 7);
    expect(step).to.not.equal(undefined);
    const blocks = step!.blocks;
    const base = blocks.slice(0, 3);
    for (const [name, corrupt, refusal] of [
      // The header is intact (hash and parent check out), the transactions are cut short.
      ["truncated", (raw: Uint8Array) => raw.subarray(0, raw.length - 1), /at height \d+ does not parse/],
      ["another block", (_: Uint8Array, other: Uint8Array) => other, /node returned block [0-9a-f]{64} for hash/],
    ] as const) {
      const { db, source, indexer } = indexerOf(chain);
      source.active = base;
      await indexer.syncOnce();
      const before = dumpText(db);
      // The next batch: three good blocks, then the bad one.
      const next = blocks.slice(0, 7);
      const badHash = next[6].hash;
      const getRawBlock = source.getRawBlock.bind(source);
      source.getRawBlock = async (hash: string) => {
        const raw = await getRawBlock(hash);
        return hash === badHash ? corrupt(raw, await getRawBlock(next[5].hash)) : raw;
      };
      source.active = next;
      let error: unknown;
      try {
        await indexer.syncOnce();
      } catch (caught) {
        error = caught;
      }
      expect(String(error), name).to.match(refusal);
      expect(dumpText(db), `${name}: nothing of the batch is written`).to.equal(before);
      // With the block mended the same indexer goes on, to the rows of a clean run.
      source.getRawBlock = getRawBlock;
      await indexer.syncOnce();
      expect(indexer.status().indexedHeight, name).to.equal(chain.startHeight + next.length - 1);
      db.close();
    }
  });

  it("leaves the same rows with one block a batch", async () => {
    const single = await dumps(chain, { batchBlocks: 1 });
    single.forEach((dump, i) => expect(dump, `after step ${i + 1}`).to.equal(reference[i]));
  });

  describe("older outputs answered by the UTXO cache", () => {
    const seen = { hits: 0, refused: 0 };
    const { get, add } = UtxoCache.prototype;
    before(() => {
      UtxoCache.prototype.get = function (this: UtxoCache, ...args: Parameters<typeof get>) {
        const found = get.apply(this, args);
        if (found) seen.hits += 1;
        return found;
      };
      UtxoCache.prototype.add = function (this: UtxoCache, ...args: Parameters<typeof add>) {
        const added = add.apply(this, args);
        if (!added) seen.refused += 1;
        return added;
      };
    });
    after(() => {
      UtxoCache.prototype.get = get;
      UtxoCache.prototype.add = add;
    });
    beforeEach(() => {
      seen.hits = 0;
      seen.refused = 0;
    });

    for (const [name, storeOptions, expectHits, expectRefused] of [
      ["a cache with room", { recentTxs: 2 }, true, false],
      [
        "a cache of four slots, mostly full",
        { recentTxs: 2, utxoCacheMb: (4 * UTXO_CACHE_SLOT_BYTES) / 2 ** 20 },
        true,
        true,
      ],
      ["no cache (every older output read from the index)", { recentTxs: 2, utxoCacheMb: 0 }, false, false],
    ] as const) {
      it(`leaves the same rows with a recent window of two transactions and ${name}, one block a batch`, async () => {
        const rows = await dumps(chain, { batchBlocks: 1 }, storeOptions);
        rows.forEach((dump, i) => expect(dump, `after step ${i + 1}`).to.equal(reference[i]));
        expect(seen.hits > 0, "outputs answered from the cache").to.equal(expectHits);
        expect(seen.refused > 0, "outputs refused by a full cache").to.equal(expectRefused);
      });
    }

    it("fills the cache from the index when a catch-up starts, also in a new indexer, and leaves the same rows", async () => {
      const db = openIndexerDatabase(":memory:");
      const source = new SteppedChainSource(chain);
      const half = Math.floor(chain.steps.length / 2);
      // Each indexer stands for a process: its own store, its caches empty at the start.
      const indexerAt = (log?: (event: string, fields?: Record<string, unknown>) => void) =>
        new Indexer({
          store: new IndexerStore(db, { recentTxs: 2 }),
          source,
          network: NETWORKS[chain.network],
          startHeight: chain.startHeight,
          batchBlocks: 1,
          // Every step counts as a catch-up, so the resumed indexer fills its cache.
          deferIndexesBehind: 0,
          ...(log ? { log } : {}),
        });
      const first = indexerAt();
      for (const step of chain.steps.slice(0, half)) {
        source.active = step.blocks;
        await first.syncOnce();
      }
      const warmed: number[] = [];
      const resumed = indexerAt((event, fields) => {
        if (event === "utxo_cache_warmed") warmed.push(Number(fields?.outputs));
      });
      seen.hits = 0;
      for (const [i, step] of chain.steps.entries()) {
        if (i < half) continue;
        source.active = step.blocks;
        await resumed.syncOnce();
        expect(dumpText(db), `after step ${i + 1}`).to.equal(reference[i]);
      }
      // Filled at the start of each catch-up (its end frees the cache for the index builds).
      expect(warmed.length).to.be.greaterThan(0);
      expect(warmed[0]).to.be.greaterThan(0);
      expect(seen.hits, "outputs answered from the filled cache").to.be.greaterThan(0);
      db.close();
    });

    it("builds the deferred indexes with a 64 MB page cache (what bounds SQLite's sorter) and sets the indexer's back", async () => {
      const db = openIndexerDatabase(":memory:", { cacheMb: 200 });
      const cacheSize = () => db.prepare<{ cache_size: number }>("PRAGMA cache_size").get()!.cache_size;
      const duringBuilds: number[] = [];
      const source = new SteppedChainSource(chain);
      const indexer = new Indexer({
        store: new IndexerStore(db),
        source,
        network: NETWORKS[chain.network],
        startHeight: chain.startHeight,
        deferIndexesBehind: 0,
        log: (event) => {
          if (event === "read_index_restored") duringBuilds.push(cacheSize());
        },
      });
      for (const step of chain.steps) {
        source.active = step.blocks;
        await indexer.syncOnce();
      }
      expect(duringBuilds.length).to.be.greaterThan(0);
      expect(new Set(duringBuilds)).to.deep.equal(new Set([-64 * 1024]));
      expect(cacheSize()).to.equal(-200 * 1024);
      db.close();
    });
  });
});
