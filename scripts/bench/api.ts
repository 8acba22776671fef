/**
 * npm run bench:api: builds an index of the generated benchmark chain (the one bench:indexer uses,
 * cached under data/bench/), serves it with the explorer daemon in its own process, and loads two
 * endpoints with autocannon over loopback. Then the same index on PostgreSQL (BENCH_POSTGRES_URL,
 * an empty database, else a throwaway local cluster) behind a second explorer process, side by
 * side. Prints requests per second and latency percentiles against the targets (SQLite: balance
 * >= 5,000 req/s with p99 < 20 ms, history >= 1,000 req/s; PostgreSQL: >= 50% of SQLite's req/s
 * per process).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require("autocannon");
import { NETWORKS } from "../../src/doge";
import { Indexer } from "../../src/indexer/indexer";
import { MemoryChainSource } from "../../src/indexer/source";
import { IndexQueries } from "../../src/indexer/queries";
import { IndexerStore } from "../../src/indexer/store";
import { spawnDaemon } from "../../test/helpers/daemon";
import { benchPostgres, openEmptyIndex } from "./postgres";
import { printableLocation } from "../../src/db/sql";
import { loadOrGenerateChain } from "./chain-generator";

function run(
  url: string,
  seconds: number,
): Promise<{
  requests: { average: number };
  latency: { p50: number; p90: number; p99: number };
  non2xx: number;
  errors: number;
}> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: 16, pipelining: 1, duration: seconds }, (error: Error | null, result: never) =>
      error ? reject(error) : resolve(result),
    );
  });
}

async function main(): Promise<void> {
  const chain = loadOrGenerateChain(2000, 100_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-api-"));
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const build = async (location: string) => {
    const db = openEmptyIndex(location);
    await new Indexer({
      store: new IndexerStore(db),
      source: new MemoryChainSource(chain.hashes, chain.raws),
      network: NETWORKS.regtest,
    }).syncOnce();
    const [busiest] = new IndexQueries(db).busiestAddresses(1);
    db.close();
    return busiest;
  };
  const measure = async (location: string, address: string) => {
    const daemon = await spawnDaemon(
      "daemons/explorer/main.ts",
      [
        "--db",
        location,
        "--pqc-db",
        path.join(dir, `pqc-${Date.now()}.sqlite`),
        "--rpc-url",
        "http://127.0.0.1:1",
        "--network",
        "regtest",
        "--port",
        "0",
      ],
      "explorer",
    );
    try {
      const balance = await run(`${daemon.url}/wallet/address/${address}/balance`, seconds);
      const history = await run(`${daemon.url}/wallet/address/${address}/history?limit=50`, seconds);
      return { balance, history };
    } finally {
      await daemon.stop();
    }
  };
  const line = (name: string, r: Awaited<ReturnType<typeof run>>, target: number, p99Target: number | null) => {
    const ok =
      r.requests.average >= target &&
      (p99Target === null || r.latency.p99 < p99Target) &&
      r.non2xx === 0 &&
      r.errors === 0;
    process.stdout.write(
      `${name.padEnd(22)} ${r.requests.average.toFixed(0).padStart(7)} req/s  p50 ${r.latency.p50} ms  p90 ${r.latency.p90} ms  p99 ${r.latency.p99} ms  non-2xx ${r.non2xx}  target >= ${target.toFixed(0)} req/s${p99Target ? `, p99 < ${p99Target} ms` : ""}  ${ok ? "ok" : "MISSED"}\n`,
    );
    return ok;
  };
  let postgres: Awaited<ReturnType<typeof benchPostgres>> | null = null;
  try {
    process.stderr.write("indexing the benchmark chain into SQLite...\n");
    const dbFile = path.join(dir, "index.sqlite");
    const busiest = await build(dbFile);
    process.stdout.write(
      `address ${busiest.address} with ${busiest.txCount} transactions; ${seconds} s per endpoint, 16 connections, one explorer process\n`,
    );
    const lite = await measure(dbFile, busiest.address);
    process.stdout.write("SQLite:\n");
    const liteBalanceOk = line("balance", lite.balance, 5000, 20);
    const liteOk = line("history (50 items)", lite.history, 1000, null) && liteBalanceOk;

    postgres = await benchPostgres();
    const { url } = postgres;
    process.stderr.write("indexing the benchmark chain into PostgreSQL...\n");
    await build(url);
    const pg = await measure(url, busiest.address);
    process.stdout.write(`PostgreSQL (${printableLocation(url)}):\n`);
    const pgBalanceOk = line("balance", pg.balance, 0.5 * lite.balance.requests.average, null);
    const pgHistoryOk = line("history (50 items)", pg.history, 0.5 * lite.history.requests.average, null);
    process.stdout.write(
      `PostgreSQL / SQLite: balance ${((100 * pg.balance.requests.average) / lite.balance.requests.average).toFixed(0)} %, history ${((100 * pg.history.requests.average) / lite.history.requests.average).toFixed(0)} % (target >= 50 %)\n`,
    );
    process.exitCode = liteOk && pgBalanceOk && pgHistoryOk ? 0 : 1;
  } finally {
    await postgres?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
