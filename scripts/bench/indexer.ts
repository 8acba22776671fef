/**
 * npm run bench:indexer: generates a devnet-format chain (default 2,000 blocks, 100,000
 * transactions; BENCH_BLOCKS / BENCH_TXS override) and indexes it from raw blocks into a fresh
 * SQLite file, then into a fresh PostgreSQL database (BENCH_POSTGRES_URL, an empty database; else
 * a throwaway local cluster), side by side. Prints tx/s, blocks/s and peak RSS against the targets
 * (SQLite >= 25,000 tx/s (issue 27), < 1 GB; PostgreSQL >= 50% of SQLite's tx/s).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NETWORKS } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { MemoryChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { loadOrGenerateChain } from "./chain-generator";
import { DogecoinRpcClient } from "../../src/chain/dogecoin-rpc";
import { parseBlock } from "../../src/doge";
import { RpcChainSource } from "../../src/indexer/source";
import { startDevnet } from "../../test/helpers/devnet";
import { benchPostgres, openEmptyIndex } from "./postgres";
import { SqlDatabase, printableLocation } from "../../src/db/sql";

/** SQLite's indexing rate target (issue 27: schema version 8's appending keys). */
const TARGET_TX_PER_SECOND = 25_000;

async function main(): Promise<void> {
  const blocks = Number(process.env.BENCH_BLOCKS ?? 2000);
  const transactions = Number(process.env.BENCH_TXS ?? 100_000);
  const chain = loadOrGenerateChain(blocks, transactions);
  const bytes = chain.raws.reduce((sum, raw) => sum + raw.length, 0);
  process.stderr.write(`chain: ${chain.hashes.length} blocks, ${chain.txCount} txs, ${(bytes / 1e6).toFixed(1)} MB\n`);

  const line = (name: string, value: string, target: string, ok: boolean) =>
    process.stdout.write(
      `${name.padEnd(28)} ${value.padStart(12)}   target ${target.padEnd(12)} ${ok ? "ok" : "MISSED"}\n`,
    );
  const indexInto = async (db: SqlDatabase) => {
    const indexer = new Indexer({
      store: new IndexerStore(db),
      source: new MemoryChainSource(chain.hashes, chain.raws),
      network: NETWORKS.regtest,
      ...(process.env.BENCH_BATCH ? { batchBlocks: Number(process.env.BENCH_BATCH) } : {}),
    });
    const start = process.hrtime.bigint();
    const result = await indexer.syncOnce();
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    db.close();
    return { seconds, blocks: result.indexedHeight + 1, txPerSecond: chain.txCount / seconds };
  };

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-indexer-"));
  const lite = await indexInto(openIndexerDatabase(path.join(dir, "index.sqlite")));
  fs.rmSync(dir, { recursive: true, force: true });
  // maxRSS is the process's peak so far: read before PostgreSQL's run, it is SQLite's alone.
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  const txPerSecond = lite.txPerSecond;
  process.stdout.write(`SQLite: indexed ${lite.blocks} blocks, ${chain.txCount} txs in ${lite.seconds.toFixed(2)} s\n`);
  line("index from raw blocks", `${txPerSecond.toFixed(0)} tx/s`, ">= 25000", txPerSecond >= TARGET_TX_PER_SECOND);
  line("blocks", `${(chain.hashes.length / lite.seconds).toFixed(0)} blk/s`, "-", true);
  line("peak RSS (whole process)", `${peakRssMb.toFixed(0)} MB`, "< 1024 MB", peakRssMb < 1024);

  const postgres = await benchPostgres();
  const { url } = postgres;
  let pgOk = false;
  try {
    const pg = await indexInto(openEmptyIndex(url));
    pgOk = pg.txPerSecond >= 0.5 * txPerSecond;
    process.stdout.write(
      `PostgreSQL (${printableLocation(url)}): indexed ${pg.blocks} blocks in ${pg.seconds.toFixed(2)} s\n`,
    );
    line("index from raw blocks", `${pg.txPerSecond.toFixed(0)} tx/s`, `>= ${(0.5 * txPerSecond).toFixed(0)}`, pgOk);
    line("  share of SQLite's rate", `${((100 * pg.txPerSecond) / txPerSecond).toFixed(0)} %`, ">= 50 %", pgOk);
  } finally {
    await postgres.stop();
  }

  // The same indexer fed through the JSON-RPC client from the devnet (getblockhash + getblock
  // <hash> false per block). The devnet validates every submitted block's scripts, so only the
  // first BENCH_RPC_BLOCKS blocks are loaded into it.
  const rpcBlocks = Math.min(Number(process.env.BENCH_RPC_BLOCKS ?? 400), chain.hashes.length - 1);
  if (rpcBlocks <= 0) {
    process.exitCode = txPerSecond >= TARGET_TX_PER_SECOND && peakRssMb < 1024 && pgOk ? 0 : 1;
    return;
  }
  const devnet = await startDevnet();
  try {
    process.stderr.write(`submitting ${rpcBlocks} blocks to a devnet (full validation)...\n`);
    let rpcTxs = 0;
    for (let h = 1; h <= rpcBlocks; h++) {
      const result = await devnet.rpc("submitblock", [Buffer.from(chain.raws[h]).toString("hex")]);
      if (result !== null) throw new Error(`devnet refused block ${h}: ${String(result)}`);
      const parsed = parseBlock(chain.raws[h]);
      if (parsed.ok) rpcTxs += parsed.value.txs.length;
    }
    const rpcDb = openIndexerDatabase(":memory:");
    const rpcIndexer = new Indexer({
      store: new IndexerStore(rpcDb),
      source: new RpcChainSource(new DogecoinRpcClient({ url: devnet.url })),
      network: NETWORKS.regtest,
    });
    const rpcStart = process.hrtime.bigint();
    await rpcIndexer.syncOnce();
    const rpcSeconds = Number(process.hrtime.bigint() - rpcStart) / 1e9;
    line("index through RPC (devnet)", `${(rpcTxs / rpcSeconds).toFixed(0)} tx/s`, "(reported)", true);
    line("  blocks through RPC", `${(rpcBlocks / rpcSeconds).toFixed(0)} blk/s`, "-", true);
    rpcDb.close();
  } finally {
    await devnet.stop();
  }
  process.exitCode = txPerSecond >= TARGET_TX_PER_SECOND && peakRssMb < 1024 && pgOk ? 0 : 1;
}

void main();
