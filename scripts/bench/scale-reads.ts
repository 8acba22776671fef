/**
 * bench:scale's reads of the busiest address through IndexQueries (balance, first history page, a
 * history page half way back, first UTXO page; p50/p99), and the same on an existing index:
 *
 *   node --import tsx scripts/bench/scale-reads.ts [--txs 10000000 --seed 20 --dir data/bench/scale --samples 200]
 *
 * reads the index bench:scale wrote (or is writing: the reader is read-only and the indexer's WAL
 * lets both run) for the chain those flags name, as of the index's tip.
 */
import fs from "node:fs";
import path from "node:path";
import { openIndexReader } from "../../src/indexer/database";
import { INDEX_PROFILES } from "../../src/indexer/profile";
import { IndexQueries } from "../../src/indexer/queries";
import {
  INDEX_RECORD_BYTES,
  ScaleChainMeta,
  chainDirectory,
  integerFlag,
  parseFlags,
  readChainMeta,
} from "./scale-generator";

const PAGE = 25;

export interface ReadFigures {
  atTxs: number;
  address: string;
  historyTotal: number;
  results: { name: string; p50: number; p99: number; max: number }[];
}

export function dbBytes(file: string): number {
  let total = 0;
  for (const suffix of ["", "-wal"]) if (fs.existsSync(file + suffix)) total += fs.statSync(file + suffix).size;
  return total;
}

export function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024; // maxRSS is in kilobytes
}

/**
 * Bytes this process (all its threads) has read from storage so far: getrusage's ru_inblock, in
 * 512-byte blocks (Linux counts a read the page cache answers as none). On a host that pages out
 * cold page cache (this machine's kdamond runs DAMON's pageout on pages idle for a minute), the
 * index's random reads become disk reads as the file outgrows what is touched that often.
 */
export function storageReadBytes(): number {
  return process.resourceUsage().fsRead * 512;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Times `samples` calls of each read (ms), after one warm-up call. */
function timeReads(reads: { name: string; run: () => unknown }[], samples: number): ReadFigures["results"] {
  return reads.map(({ name, run }) => {
    run();
    const times: number[] = [];
    for (let i = 0; i < samples; i++) {
      const start = process.hrtime.bigint();
      run();
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    times.sort((a, b) => a - b);
    return { name, p50: percentile(times, 50), p99: percentile(times, 99), max: times[times.length - 1] };
  });
}

/** The (height, position) of each transaction touching the busiest address, from the generator. */
export function readTouches(chainDir: string, meta: ScaleChainMeta): Uint32Array {
  const raw = fs.readFileSync(path.join(chainDir, meta.touchesFile));
  return new Uint32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));
}

/** Transactions in one page of Esplora's /txs/chain (electrs's CHAIN_TXS_PER_PAGE). */
const ESPLORA_CHAIN_PAGE = 25;

export function measureReads(
  indexFile: string,
  meta: ScaleChainMeta,
  touches: Uint32Array,
  tipHeight: number,
  atTxs: number,
  samples: number,
): ReadFigures {
  // Balances, history and unspent outputs: an attester-profile index has them all (bench:scale --profile).
  const reader = openIndexReader(indexFile, { profiles: INDEX_PROFILES });
  try {
    const queries = new IndexQueries(reader);
    const address = meta.busiest.address;
    // The deep page starts half way back in the address's history (as of this tip).
    let count = 0;
    while (count * 2 < touches.length && touches[count * 2] <= tipHeight) count++;
    const mid = Math.floor(count / 2) * 2;
    const before = { height: touches[mid], position: touches[mid + 1] };
    const firstPage = queries.history(address, null, PAGE);
    const deepPage = queries.history(address, before, PAGE);
    if (firstPage.items.length !== Math.min(PAGE, count) || deepPage.items.length !== Math.min(PAGE, mid / 2)) {
      throw new Error(
        `history of ${address} at height ${tipHeight}: pages of ${firstPage.items.length} and ${deepPage.items.length} rows, expected ${Math.min(PAGE, count)} and ${Math.min(PAGE, mid / 2)}`,
      );
    }
    const results = timeReads(
      [
        { name: "balance", run: () => queries.balance(address) },
        { name: "history, first page", run: () => queries.history(address, null, PAGE) },
        {
          name: `history, page at ${(mid / 2).toLocaleString("en-US")} back`,
          run: () => queries.history(address, before, PAGE),
        },
        { name: "UTXOs, first page", run: () => queries.utxos(address, null, PAGE) },
        {
          // Esplora's /address/:a/txs/chain/:last_seen_txid (issue 28): a page of 25 confirmed
          // transactions half way back, each with its inputs' previous outputs, as the route reads
          // them from the index (the serialized transactions come from the node, not measured here).
          name: "Esplora /txs/chain page, index part",
          run: () => {
            for (const item of queries.history(address, before, ESPLORA_CHAIN_PAGE).items) queries.tx(item.txid);
          },
        },
      ],
      samples,
    );
    return { atTxs, address, historyTotal: queries.balance(address).txCount, results };
  } finally {
    reader.close();
  }
}

export function printReads(reads: ReadFigures, generatedTouches: number): void {
  process.stdout.write(
    `\nreads at ${reads.atTxs.toLocaleString("en-US")} txs, busiest address ${reads.address} (${reads.historyTotal.toLocaleString("en-US")} txs in the index; generator: ${generatedTouches.toLocaleString("en-US")}), page size ${PAGE}\n`,
  );
  for (const r of reads.results)
    process.stdout.write(
      `  ${r.name.padEnd(36)} p50 ${r.p50.toFixed(3).padStart(9)} ms   p99 ${r.p99.toFixed(3).padStart(9)} ms   max ${r.max.toFixed(3).padStart(9)} ms\n`,
    );
}

if (require.main === module) {
  try {
    const flags = parseFlags(process.argv.slice(2), {
      txs: "10000000",
      seed: "20",
      dir: "data/bench/scale",
      samples: "200",
    });
    const root = path.resolve(__dirname, "..", "..", String(flags.dir));
    const chainDir = chainDirectory(root, { txs: integerFlag(flags, "txs"), seed: integerFlag(flags, "seed") });
    const meta = readChainMeta(chainDir);
    if (!meta)
      throw new Error(
        `no generated chain in ${chainDir} (run npm run bench:scale with the same --txs and --seed first)`,
      );
    const indexFile = path.join(root, "index.sqlite");
    const reader = openIndexReader(indexFile, { profiles: INDEX_PROFILES });
    const status = new IndexQueries(reader).status();
    reader.close();
    const txCounts = fs.readFileSync(path.join(chainDir, "index.bin"));
    let txs = 0;
    for (let h = 0; h <= status.indexedHeight; h++) txs += txCounts.readUInt32LE(h * INDEX_RECORD_BYTES + 12);
    const touches = readTouches(chainDir, meta);
    let count = 0;
    while (count * 2 < touches.length && touches[count * 2] <= status.indexedHeight) count++;
    printReads(
      measureReads(indexFile, meta, touches, status.indexedHeight, txs, Math.max(10, integerFlag(flags, "samples"))),
      count,
    );
  } catch (error) {
    process.stderr.write(`scale-reads: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}

/**
 * How fast this host runs a fixed piece of work now: iterations per microsecond of an integer loop
 * (xorshift32, 2^22 rounds, about 7 ms), which allocates nothing and touches no memory. The
 * machine's cores are shared with other virtual machines (its steal time stays near zero, its speed does
 * not): on the 2-core team
 * machine the same step of the same chain ran up to 25% faster or slower from run to run, in wall
 * clock and per CPU second alike, and that drift can also happen inside one run. Sampled after every
 * batch (bench:scale takes each step's median), it says how much of a change between steps is the
 * host's: not all of it, since the indexer's memory-bound work can slow down where this loop does not.
 */
export function hostSpeed(): number {
  const rounds = 1 << 22;
  const started = performance.now();
  let x = 2463534242;
  for (let i = 0; i < rounds; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
  }
  const us = (performance.now() - started) * 1000;
  // x is used, so the loop is not optimised away.
  return x === 0 ? 0 : rounds / us;
}
