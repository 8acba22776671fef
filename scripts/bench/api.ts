/**
 * npm run bench:api: builds an index of the generated benchmark chain (the one bench:indexer uses,
 * cached under data/bench/), serves it with the explorer daemon in its own process, and loads its
 * endpoints with autocannon over loopback. Then the same index on PostgreSQL (BENCH_POSTGRES_URL,
 * an empty database, else a throwaway local cluster) behind a second explorer process, side by
 * side. Prints requests per second and latency percentiles against the targets (SQLite: balance
 * >= 5,000 req/s with p99 < 20 ms, history >= 1,000 req/s; the Esplora routes
 * /scripthash/:hash/txs and /address/:a/utxo >= 2,000 req/s with p99 < 20 ms each, with their
 * ratio to the explorer's own route over the same data as the baseline; PostgreSQL, where the
 * explorer reads these routes through its connection pool (--pg-pool): >= 50% of SQLite's req/s
 * per process, for the balance, history and both Esplora routes). The machine's load average is
 * printed before each backend's runs (the figures mean little on a busy machine).
 *
 * The explorer's node is a stand-in served from this process: it answers `getblock <hash> false`
 * from the generated chain (Esplora's transactions read their block from the node) and an empty
 * mempool, as a node would for a chain it holds.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require("autocannon");
import { NETWORKS, addressToOutputScript, bytesToHex } from "../../src/doge";
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

/** A node stand-in over the generated chain: the JSON-RPC calls the explorer daemon makes. */
async function chainNode(chain: { hashes: string[]; raws: Uint8Array[] }): Promise<{ url: string; close(): void }> {
  const byHash = new Map(chain.hashes.map((hash, i) => [hash, chain.raws[i]]));
  const answer = (method: string, params: unknown[]): unknown => {
    if (method === "getblock" && byHash.has(String(params[0]))) return bytesToHex(byHash.get(String(params[0]))!);
    if (method === "getrawmempool") return [];
    if (method === "getblockcount") return chain.hashes.length - 1;
    if (method === "getblockhash") return chain.hashes[Number(params[0])];
    if (method === "getblockchaininfo")
      return { chain: "regtest", blocks: chain.hashes.length - 1, bestblockhash: chain.hashes.at(-1) };
    throw Object.assign(new Error(`${method} is not served by the bench's node`), { code: -32601 });
  };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const call = JSON.parse(body) as { id: unknown; method: string; params?: unknown[] };
      let reply: unknown;
      try {
        reply = { result: answer(call.method, call.params ?? []), error: null, id: call.id };
      } catch (error) {
        reply = {
          result: null,
          error: { code: (error as { code: number }).code, message: String(error) },
          id: call.id,
        };
      }
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://bench:bench@127.0.0.1:${(server.address() as { port: number }).port}/`,
    close: () => server.close(),
  };
}

/** Esplora's script hash of an address: SHA-256 of its output script, in that byte order. */
function scriptHashOf(address: string): string {
  return createHash("sha256").update(addressToOutputScript(address, NETWORKS.regtest)).digest("hex");
}

async function main(): Promise<void> {
  const chain = loadOrGenerateChain(2000, 100_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-api-"));
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const node = await chainNode(chain);
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
        node.url,
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
      const esplora = daemon.url.replace(/\/api$/, "/esplora/api");
      const scripthashTxs = await run(`${esplora}/scripthash/${scriptHashOf(address)}/txs`, seconds);
      const utxo = await run(`${esplora}/address/${address}/utxo`, seconds);
      // Baselines: the explorer's own routes over the same data (25 history items; a page of UTXOs).
      const history25 = await run(`${daemon.url}/wallet/address/${address}/history?limit=25`, seconds);
      const utxos = await run(`${daemon.url}/wallet/address/${address}/utxos?limit=500`, seconds);
      return { balance, history, esplora: { scripthashTxs, utxo, history25, utxos } };
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
      `${name.padEnd(22)} ${r.requests.average.toFixed(0).padStart(7)} req/s  p50 ${r.latency.p50} ms  p90 ${r.latency.p90} ms  p99 ${r.latency.p99} ms  non-2xx ${r.non2xx}  target >= ${target.toFixed(0)} req/s${p99Target ? `, p99 < ${p99Target} ms` : ""}  ${ok ? "PASS" : "FAIL"}\n`,
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
    const load = () =>
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(", ")} (${os.cpus().length} CPUs)`;
    process.stdout.write(`before SQLite: ${load()}\n`);
    const lite = await measure(dbFile, busiest.address);
    process.stdout.write("SQLite:\n");
    const liteBalanceOk = line("balance", lite.balance, 5000, 20);
    const liteOk = line("history (50 items)", lite.history, 1000, null) && liteBalanceOk;
    type Result = Awaited<ReturnType<typeof run>>;
    const ratio = (r: Result, base: Result, name: string) =>
      process.stdout.write(
        `${"".padEnd(22)} = ${(r.requests.average / base.requests.average).toFixed(2)} x the baseline ${name}: ${base.requests.average.toFixed(0)} req/s, p99 ${base.latency.p99} ms\n`,
      );
    const e = lite.esplora;
    const esploraTxsOk = line("esplora scripthash txs", e.scripthashTxs, 2000, 20);
    ratio(e.scripthashTxs, e.history25, "/api history?limit=25");
    const esploraUtxoOk = line("esplora address utxo", e.utxo, 2000, 20);
    ratio(e.utxo, e.utxos, "/api utxos?limit=500");

    postgres = await benchPostgres();
    const { url } = postgres;
    process.stderr.write("indexing the benchmark chain into PostgreSQL...\n");
    await build(url);
    process.stdout.write(`before PostgreSQL: ${load()}\n`);
    const pg = await measure(url, busiest.address);
    process.stdout.write(`PostgreSQL (${printableLocation(url)}, pooled reads):\n`);
    const pgBalanceOk = line("balance", pg.balance, 0.5 * lite.balance.requests.average, null);
    const pgHistoryOk = line("history (50 items)", pg.history, 0.5 * lite.history.requests.average, null);
    const pe = pg.esplora;
    const pgTxsOk = line("esplora scripthash txs", pe.scripthashTxs, 0.5 * e.scripthashTxs.requests.average, null);
    const pgUtxoOk = line("esplora address utxo", pe.utxo, 0.5 * e.utxo.requests.average, null);
    const percent = (p: Result, l: Result) => ((100 * p.requests.average) / l.requests.average).toFixed(0);
    process.stdout.write(
      `PostgreSQL / SQLite: balance ${percent(pg.balance, lite.balance)} %, history ${percent(pg.history, lite.history)} %, ` +
        `esplora scripthash txs ${percent(pe.scripthashTxs, e.scripthashTxs)} %, esplora address utxo ${percent(pe.utxo, e.utxo)} % (target >= 50 %)\n`,
    );
    process.exitCode =
      liteOk && esploraTxsOk && esploraUtxoOk && pgBalanceOk && pgHistoryOk && pgTxsOk && pgUtxoOk ? 0 : 1;
  } finally {
    await postgres?.stop();
    node.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
