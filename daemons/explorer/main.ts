/**
 * The explorer HTTP surface: serves /api over an indexer's database (read side; the indexer daemon
 * writes it) and hands broadcasts to the node. Also GET /health and GET /metrics.
 *
 *   node --import tsx daemons/explorer/main.ts --db data/indexer/explorer.sqlite --rpc-url http://user:pass@127.0.0.1:18332 \
 *        --network regtest [--port 3001]
 *
 * Prints `explorer  <url>/api` once listening. Keeps a view of the node's mempool, refreshed every
 * second (src/services/explorer/mempool.ts; `--mempool-max-txs`, 0 turns it off). Checks that the
 * node is on --network (getblockchaininfo's chain; exit 2 with one line if not, retried while the
 * node does not answer); stops within 5 s of SIGTERM (RPC calls in flight abandoned). On a
 * PostgreSQL index, the address routes (balance, history, UTXOs) and Esplora's address, script-hash
 * and transaction routes read from a pool of `--pg-pool` connections so that requests overlap their
 * queries; every other read is synchronous.
 */
import pino from "pino";
import { Registry, collectDefaultMetrics } from "prom-client";
import { checkNodeNetwork, runNodeChecks } from "../../src/chain/network-check";
import { stopSignal } from "../../src/services/ops/stopping";
import { runDaemon, stopOnSignals } from "../../src/config/daemon";
import { loadDaemonConfig } from "../../src/config/load";
import { checkRpcConfig, createDogecoinRpcClient, rpcOptions } from "../../src/config/rpc";
import { indexHealth, mountOpsRoutes } from "../../src/services/ops/server";
import { getNetwork } from "../../src/doge";
import { waitForIndex } from "../../src/indexer/wait-for-index";
import { IndexQueries } from "../../src/indexer/queries";
import http from "node:http";
import { EXPLORER_WRITES_PER_MINUTE, createWalletFastPath, createExplorerApp } from "../../src/services/explorer/app";
import { rateLimitOption, trustProxies, trustProxyOption } from "../../src/services/http/rate-limit";
import { PQC_MIGRATIONS, PQC_SCHEMA, PqcRegistry } from "../../src/services/explorer/pqc";
import {
  DEFAULT_MAX_MEMPOOL_TRANSACTIONS,
  DEFAULT_MEMPOOL_REFRESH_MS,
  MempoolView,
} from "../../src/services/explorer/mempool";
import { openDatabase } from "../../src/db/sqlite";
import { isPostgresUrl } from "../../src/db/sql";
import { DEFAULT_POOL_SIZE, PostgresPool } from "../../src/db/postgres-pool";
import { AsyncIndexReads } from "../../src/indexer/read/async";
import { runEvery } from "../../src/ops/loop";

const SPEC = {
  db: {
    kind: "string",
    env: "EXPLORER_DB",
    alias: "database",
    required: true,
    description: "the index (a SQLite file or a postgres:// URL; opened read-only)",
  },
  ...rpcOptions("EXPLORER", { purpose: "broadcasts, the mempool view" }),
  "pqc-db": {
    kind: "string",
    env: "EXPLORER_PQC_DB",
    default: "data/explorer/pqc.sqlite",
    description: "the post-quantum key registry's SQLite database",
  },
  network: { kind: "string", env: "EXPLORER_NETWORK", default: "regtest", description: "mainnet, testnet or regtest" },
  host: { kind: "string", env: "EXPLORER_HOST", default: "127.0.0.1", description: "listen address" },
  port: { kind: "integer", env: "EXPLORER_PORT", default: 3001, min: 0, max: 65535, description: "listen port" },
  "rate-limit": rateLimitOption("EXPLORER_RATE_LIMIT", EXPLORER_WRITES_PER_MINUTE),
  "trust-proxy": trustProxyOption("EXPLORER_TRUST_PROXY"),
  "mempool-max-txs": {
    kind: "integer",
    env: "EXPLORER_MEMPOOL_MAX_TXS",
    default: DEFAULT_MAX_MEMPOOL_TRANSACTIONS,
    min: 0,
    max: 1_000_000,
    description: "pending transactions the mempool view keeps at most (0 turns the view off)",
  },
  "pg-pool": {
    kind: "integer",
    env: "EXPLORER_PG_POOL",
    default: DEFAULT_POOL_SIZE,
    min: 1,
    max: 100,
    description: "PostgreSQL connections the address routes read through at most (a PostgreSQL index only)",
  },
} as const;

async function main(): Promise<void> {
  const config = loadDaemonConfig("explorer", SPEC, (values) => {
    checkRpcConfig(values);
    getNetwork(values.network);
  });
  const logger = pino({ name: "explorer", level: process.env.LOG_LEVEL ?? "info" }, pino.destination(2));
  const stopped = stopSignal("explorer");
  const db = await waitForIndex(config.db, { signal: stopped, cacheMb: 64, log: (fields) => logger.info(fields) });
  const queries = new IndexQueries(db);
  const addressReads = isPostgresUrl(config.db)
    ? new AsyncIndexReads(
        new PostgresPool(config.db, {
          size: config["pg-pool"],
          readOnly: true,
          applicationName: "dogeos-explorer",
          statementTimeoutMs: 30_000,
        }),
      )
    : undefined;
  const pqcDb = openDatabase(config["pqc-db"], PQC_MIGRATIONS, PQC_SCHEMA);
  const node = createDogecoinRpcClient(config, { logger, signal: stopped });
  void runNodeChecks({
    daemon: "explorer",
    logger,
    signal: stopped,
    check: async () => {
      await checkNodeNetwork(node, config.network, "explorer");
    },
  });
  // The mempool view asks the node every second; its own client does not retry (the next refresh does).
  const mempool =
    config["mempool-max-txs"] > 0
      ? new MempoolView({
          node: createDogecoinRpcClient(config, { logger, retries: 0, timeoutMs: 10_000, signal: stopped }),
          index: queries,
          network: getNetwork(config.network),
          maxTransactions: config["mempool-max-txs"],
        })
      : undefined;
  const mempoolLoop = mempool
    ? runEvery("mempool_refresh", DEFAULT_MEMPOOL_REFRESH_MS, () => mempool.runOnce(), {
        log: (event, fields) => logger.warn({ event, ...fields }),
      })
    : null;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const app = createExplorerApp({
    queries,
    network: getNetwork(config.network),
    node,
    mempool,
    addressReads,
    pqc: new PqcRegistry(pqcDb, getNetwork(config.network), queries),
    rateLimitPerMinute: config["rate-limit"],
    log: (event, fields) => logger.error({ event, ...fields }),
    mount: (root, surface) =>
      mountOpsRoutes(root, {
        surface,
        registry,
        health: () => {
          const index = indexHealth(queries);
          return {
            ok: index.ok,
            name: "explorer",
            indexedHeight: index.indexedHeight,
            nodeHeight: index.nodeHeight,
            startHeight: index.startHeight,
          };
        },
      }),
  });
  trustProxies(app, config["trust-proxy"]);
  const fastWalletReads = createWalletFastPath({
    queries,
    network: getNetwork(config.network),
    mempool,
    addressReads,
    toExpress: app,
  });
  const server = http.createServer((req, res) => {
    if (!fastWalletReads(req, res)) app(req, res);
  });
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : config.port;
    logger.info({ event: "ready", port, db: db.location });
    process.stdout.write(`explorer  http://${config.host}:${port}/api\n`);
  });
  stopOnSignals(logger, async () => {
    await mempoolLoop?.stop();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await addressReads?.close();
    db.close();
    pqcDb.close();
  });
}

runDaemon("explorer", main);
