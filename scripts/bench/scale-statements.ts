/**
 * node --import tsx scripts/bench/scale-statements.ts [--txs 4000000 --seed 20 --dir data/bench/scale
 *   --stop-at 2500000 --window 500000 --batch-blocks N --cache-mb 256 --mmap-mb 0 --wal-autocheckpoint 0
 *   --background-checkpoints 1
 *   --utxo-cache-mb 192 --top 12]
 *
 * Where catch-up time goes as the index grows: indexes a chain cached by bench:scale (generated
 * first by `npm run bench:scale -- --txs <n>` when missing) into a fresh SQLite file under --dir,
 * with the real Indexer, timing every run/get/all of every statement the store and the inscription
 * tracker prepare, and the commit of each batch. Per window of --window transactions it prints the
 * microseconds per transaction spent in all, in statements, in the commit and elsewhere (the
 * indexer's own JavaScript, block reading and parsing; the block reads from the cached chain and
 * V8's garbage collections are also shown apart) and the bytes written per transaction (WAL frames
 * and checkpoints: the write calls' bytes, /proc/self/io wchar), then the --top statements by time with
 * their calls per transaction. The timing wrappers cost a little themselves (about a microsecond a
 * call): compare windows and statements with each other, not with bench:scale's rates.
 */
import fs from "node:fs";
import path from "node:path";
import { GCProfiler } from "node:v8";
import { NETWORKS } from "../../src/doge";
import { INDEX_PAGE_SIZE, indexPageSize, openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { DEFAULT_UTXO_CACHE_MB, IndexerStore } from "../../src/indexer/store";
import { chainDirectory, integerFlag, parseFlags, readChainMeta } from "./scale-generator";
import { storageReadBytes } from "./scale-reads";
import { CachedChainSource } from "./scale-source";

const ROOT = path.resolve(__dirname, "..", "..");

interface Timing {
  calls: number;
  ns: bigint;
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), {
    txs: "4000000",
    seed: "20",
    dir: "data/bench/scale",
    "stop-at": "0",
    window: "500000",
    "batch-blocks": "0",
    "cache-mb": "256",
    "page-size": String(INDEX_PAGE_SIZE),
    "mmap-mb": "0",
    "wal-autocheckpoint": "0",
    "background-checkpoints": "1",
    "utxo-cache-mb": String(DEFAULT_UTXO_CACHE_MB),
    top: "12",
  });
  const root = path.resolve(ROOT, String(flags.dir));
  const chainDir = chainDirectory(root, { txs: integerFlag(flags, "txs"), seed: integerFlag(flags, "seed") });
  const meta = readChainMeta(chainDir);
  if (!meta) {
    process.stderr.write(
      `no cached chain at ${path.relative(ROOT, chainDir)}: run npm run bench:scale -- --txs ${flags.txs} first\n`,
    );
    process.exit(2);
  }
  const window = Math.max(1, integerFlag(flags, "window"));
  const top = integerFlag(flags, "top");
  const batchBlocks = integerFlag(flags, "batch-blocks");
  const stopAt = integerFlag(flags, "stop-at") || meta.txs;

  const file = path.join(root, "statements.sqlite");
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
  // --page-size: the new index's SQLite page size in bytes (default the indexer's, INDEX_PAGE_SIZE).
  const db = openIndexerDatabase(file, {
    cacheMb: integerFlag(flags, "cache-mb"),
    pageSize: integerFlag(flags, "page-size"),
  });
  // --mmap-mb: SQLite reads the database file through a memory map of that size (PRAGMA mmap_size).
  const mmapMb = integerFlag(flags, "mmap-mb");
  if (mmapMb > 0) db.exec(`PRAGMA mmap_size = ${mmapMb * 1048576}`);
  // --wal-autocheckpoint: pages of WAL after which a commit checkpoints (0: the indexer's own setting).
  const walPages = integerFlag(flags, "wal-autocheckpoint");
  if (walPages > 0) db.exec(`PRAGMA wal_autocheckpoint = ${walPages}`);

  const timings = new Map<string, Timing>();
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    const statement = prepare(sql) as unknown as Record<"run" | "get" | "all", (...args: unknown[]) => unknown>;
    const key = sql.replace(/\s+/g, " ").trim().slice(0, 100);
    for (const method of ["run", "get", "all"] as const) {
      const call = statement[method].bind(statement);
      statement[method] = (...args: unknown[]) => {
        const started = process.hrtime.bigint();
        try {
          return call(...args);
        } finally {
          const timing = timings.get(key) ?? { calls: 0, ns: 0n };
          timing.calls += 1;
          timing.ns += process.hrtime.bigint() - started;
          timings.set(key, timing);
        }
      };
    }
    return statement;
  }) as typeof db.prepare;

  const store = new IndexerStore(db, { utxoCacheMb: integerFlag(flags, "utxo-cache-mb") });
  // The commit is what a batch's transaction costs after its function returned.
  let commitNs = 0n;
  const transaction = store.transaction.bind(store);
  store.transaction = (<T>(fn: () => T): T => {
    let returned = 0n;
    const result = transaction(() => {
      const value = fn();
      returned = process.hrtime.bigint();
      return value;
    });
    if (returned !== 0n) commitNs += process.hrtime.bigint() - returned;
    return result;
  }) as typeof store.transaction;

  const source = new CachedChainSource(chainDir);
  source.limitTip(source.heightAtTxs(stopAt));
  // Of "elsewhere": reading raw blocks from the cached chain, and V8's garbage collections.
  let readNs = 0n;
  const getRawBlock = source.getRawBlock.bind(source);
  source.getRawBlock = (async (hash: string) => {
    const started = process.hrtime.bigint();
    try {
      return await getRawBlock(hash);
    } finally {
      readNs += process.hrtime.bigint() - started;
    }
  }) as typeof source.getRawBlock;
  // V8's GC profiler, started per window (a performance observer would never be called: the
  // catch-up does not yield to the event loop between batches).
  let gcProfiler = new GCProfiler();
  gcProfiler.start();
  const gcNsOfWindow = (): bigint => {
    const profile = gcProfiler.stop();
    gcProfiler = new GCProfiler();
    gcProfiler.start();
    let us = 0;
    for (const event of profile?.statistics ?? []) us += event.cost;
    return BigInt(Math.round(us * 1000));
  };
  // Bytes the process wrote through write calls (WAL frames, checkpoints): /proc/self/io's wchar, 0 where there is none.
  const bytesWritten = (): number => {
    try {
      return Number(/^wchar: (\d+)$/m.exec(fs.readFileSync("/proc/self/io", "utf8"))?.[1] ?? 0);
    } catch {
      return 0;
    }
  };
  let windowWritten = bytesWritten();
  let windowRead = storageReadBytes();
  let indexed = 0;
  let windowStart = 0;
  /** Inputs (coinbases' included) of the window so far. */
  let windowInputs = 0;
  let windowMs = performance.now();
  const us = (ns: bigint, txs: number) => (Number(ns) / 1000 / txs).toFixed(1);
  const indexer = new Indexer({
    store,
    source,
    network: NETWORKS.mainnet,
    ...(batchBlocks > 0 ? { batchBlocks } : {}),
    backgroundCheckpoints: integerFlag(flags, "background-checkpoints") !== 0,
    // The catch-up's checkpoint totals (time the batches waited for the worker is in "elsewhere")
    // and the deferred index builds.
    log: (event, fields) => {
      if (event === "wal_checkpoints" || event === "wal_checkpointer_failed" || event.startsWith("read_indexes"))
        process.stdout.write(`${event} ${JSON.stringify(fields ?? {})}\n`);
    },
    onProgress: (progress) => {
      indexed += progress.transactions;
      windowInputs += progress.inputs;
      if (indexed - windowStart < window && indexed < stopAt) return;
      const txs = indexed - windowStart;
      const totalNs = BigInt(Math.round((performance.now() - windowMs) * 1e6));
      let statementNs = 0n;
      for (const timing of timings.values()) statementNs += timing.ns;
      const gcNs = gcNsOfWindow();
      const written = bytesWritten();
      const read = storageReadBytes();
      process.stdout.write(
        `${indexed.toLocaleString("en-US").padStart(11)} txs: ${us(totalNs, txs)} us/tx, statements ${us(statementNs, txs)}, commit ${us(commitNs, txs)}, elsewhere ${us(totalNs - statementNs - commitNs, txs)} (block reads ${us(readNs, txs)}, GC ${us(gcNs, txs)}); written ${((written - windowWritten) / txs).toFixed(0)} B/tx, read from storage ${((read - windowRead) / txs).toFixed(0)} B/tx; JS heap ${(process.memoryUsage().heapUsed / 1048576).toFixed(0)} MB, peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB; ${(windowInputs / txs).toFixed(2)} inputs/tx\n`,
      );
      const rows = [...timings.entries()].sort((a, b) => (b[1].ns > a[1].ns ? 1 : b[1].ns < a[1].ns ? -1 : 0));
      for (const [sql, timing] of rows.slice(0, top))
        process.stdout.write(
          `    ${us(timing.ns, txs).padStart(6)} us/tx ${(timing.calls / txs).toFixed(3).padStart(7)} calls/tx ${(Number(timing.ns) / 1000 / timing.calls).toFixed(2).padStart(8)} us/call  ${sql}\n`,
        );
      timings.clear();
      commitNs = 0n;
      readNs = 0n;
      windowStart = indexed;
      windowInputs = 0;
      windowWritten = written;
      windowRead = read;
      windowMs = performance.now();
    },
  });
  process.stdout.write(
    `indexing ${path.relative(ROOT, chainDir)} to ${stopAt.toLocaleString("en-US")} transactions into ${path.relative(ROOT, file)}` +
      ` (batches of ${batchBlocks > 0 ? batchBlocks : "the indexer's default"} blocks, page cache ${flags["cache-mb"]} MB, page size ${indexPageSize(db)} B, memory map ${mmapMb} MB, WAL checkpoint every ${walPages > 0 ? walPages : "the indexer's"} pages, UTXO cache ${flags["utxo-cache-mb"]} MB)\n`,
  );
  await indexer.syncOnce();
  gcProfiler.stop();
  db.close();
  source.close();
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
