/**
 * The indexer daemon: follows a dogecoind (or the devnet) over JSON-RPC and writes the index to
 * SQLite. Serves GET /health and GET /metrics on its ops port.
 *
 *   node --import tsx daemons/indexer/main.ts --rpc-url http://user:pass@127.0.0.1:18332 \
 *        --db data/indexer/explorer.sqlite --network regtest [--start-height 0] [--ops-port 0]
 *
 * --profile attester builds an index for an attester alone (src/indexer/profile.ts: spent outputs
 * deeper than --max-reorg-depth are deleted); the profile is fixed when the index is created, and
 * an index built with another one is refused (exit 2, one line on stderr).
 *
 * Prints `indexer  <ops url>` once it serves /health. Before its first sync it checks that the
 * node is on --network (getblockchaininfo's chain) and exits 2 with one line on stderr if not.
 * While catching up it logs an info line `catch_up` (height, target, blocks/s, tx/s, ETA) every
 * --progress-ms and moves its gauges after every committed batch. Exits 3 on a reorg deeper than
 * --max-reorg-depth (the index must then be rebuilt or the limit raised). Stops within 5 s of
 * SIGTERM whatever it waits on (RPC calls in flight and their retries are abandoned).
 */
import pino from "pino";
import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";
import { NodeCheckError, checkNodeNetwork } from "../../src/chain/network-check";
import { stopSignal } from "../../src/services/ops/stopping";
import { loadDaemonConfig } from "../../src/config/load";
import { checkRpcConfig, createDogecoinRpcClient, rpcOptions } from "../../src/config/rpc";
import { getNetwork } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { IndexProfile, IndexProfileMismatchError, claimIndexProfile, isIndexProfile } from "../../src/indexer/profile";
import { Indexer, ReorgTooDeepError, SyncProgress } from "../../src/indexer/indexer";
import { RpcChainSource } from "../../src/indexer/source";
import { DEFAULT_UTXO_CACHE_MB, IndexerStore } from "../../src/indexer/store";
import { ZkpShadowService } from "../../src/indexer/zkp-shadow";
import { startOpsServer } from "../../src/services/ops/server";

const SPEC = {
  ...rpcOptions("INDEXER", { purpose: "blocks" }),
  db: {
    kind: "string",
    env: "INDEXER_DB",
    alias: "database",
    default: "data/indexer/index.sqlite",
    description:
      "the index: a SQLite file (the embedded default) or a PostgreSQL URL postgres://user@host:port/db (password from PGPASSWORD or ~/.pgpass)",
  },
  network: { kind: "string", env: "INDEXER_NETWORK", default: "regtest", description: "mainnet, testnet or regtest" },
  "start-height": {
    kind: "integer",
    env: "INDEXER_START_HEIGHT",
    default: 0,
    min: 0,
    description: "first block to index (mainnet capture: 4728316)",
  },
  "max-reorg-depth": {
    kind: "integer",
    env: "INDEXER_MAX_REORG_DEPTH",
    default: 100,
    min: 1,
    max: 10_000,
    description: "deepest reorg rolled back automatically",
  },
  "batch-blocks": {
    kind: "integer",
    env: "INDEXER_BATCH_BLOCKS",
    default: 2000,
    min: 1,
    max: 10_000,
    description: "most blocks per database transaction while catching up",
  },
  "utxo-cache-mb": {
    kind: "integer",
    env: "INDEXER_UTXO_CACHE_MB",
    default: DEFAULT_UTXO_CACHE_MB,
    min: 0,
    max: 65_536,
    description:
      "MB of unspent outputs held in memory, so that spending an old output reads nothing from a SQLite index (0: none; PostgreSQL reads a batch's spent outputs in one query instead)",
  },
  "progress-ms": {
    kind: "integer",
    env: "INDEXER_PROGRESS_MS",
    default: 5000,
    min: 0,
    max: 3_600_000,
    description: "at most one catch-up progress line per this many ms (0: one per batch)",
  },
  "poll-ms": {
    kind: "integer",
    env: "INDEXER_POLL_MS",
    default: 1000,
    min: 50,
    max: 600_000,
    description: "how often to ask the node for new blocks",
  },
  "ops-host": {
    kind: "string",
    env: "INDEXER_OPS_HOST",
    default: "127.0.0.1",
    description: "address of /health and /metrics",
  },
  "ops-port": {
    kind: "integer",
    env: "INDEXER_OPS_PORT",
    default: 0,
    min: 0,
    max: 65535,
    description: "port of /health and /metrics (0 = any free port)",
  },
  profile: {
    kind: "string",
    env: "INDEXER_PROFILE",
    default: "full",
    description:
      "what the index keeps: full (every reader) or attester (only what an attester's facts read: spent outputs deeper than --max-reorg-depth are deleted; every reader but the attester and attest-api refuses it); fixed when the index is created",
  },
  "reset-on-rebuild": {
    kind: "boolean",
    env: "INDEXER_RESET_ON_REBUILD",
    default: false,
    description: "delete and rebuild the index when a new schema requires it",
  },
  name: { kind: "string", env: "INDEXER_NAME", default: "indexer", description: "name in logs and in the ready line" },
} as const;

async function main(): Promise<void> {
  const config = loadDaemonConfig("indexer", SPEC, (values) => {
    checkRpcConfig(values);
    getNetwork(values.network);
    if (!isIndexProfile(values.profile)) throw new Error(`--profile must be full or attester, not "${values.profile}"`);
  });
  // Checked above: full or attester.
  const profile = config.profile as IndexProfile;
  const logger = pino({ name: config.name, level: process.env.LOG_LEVEL ?? "info" }, pino.destination(2));
  // Aborted by SIGTERM/SIGINT: RPC calls in flight and their retries stop at once.
  const stopped = stopSignal(config.name);
  const client = createDogecoinRpcClient(config, {
    logger,
    signal: stopped,
  });
  const db = openIndexerDatabase(config.db, { resetIfRebuildRequired: config["reset-on-rebuild"] });
  // Recorded now (a reader that opens the index meanwhile sees it), or refused when the index was
  // built with another profile.
  try {
    claimIndexProfile(db, profile);
  } catch (error) {
    if (!(error instanceof IndexProfileMismatchError)) throw error;
    process.stderr.write(`${config.name}: ${error.message}\n`);
    db.close();
    process.exit(2);
  }
  const store = new IndexerStore(db, { utxoCacheMb: config["utxo-cache-mb"] });
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const indexedHeight = new Gauge({
    name: "indexer_indexed_height",
    help: "Height of the last fully indexed block",
    registers: [registry],
  });
  const nodeHeight = new Gauge({
    name: "indexer_node_height",
    help: "Height of the node's best block",
    registers: [registry],
  });
  const blocksApplied = new Counter({
    name: "indexer_blocks_applied_total",
    help: "Blocks written",
    registers: [registry],
  });
  const blocksRolledBack = new Counter({
    name: "indexer_blocks_rolled_back_total",
    help: "Blocks undone by reorgs",
    registers: [registry],
  });
  const syncErrors = new Counter({
    name: "indexer_sync_errors_total",
    help: "Failed sync attempts",
    registers: [registry],
  });
  const txsApplied = new Counter({
    name: "indexer_transactions_applied_total",
    help: "Transactions written",
    registers: [registry],
  });
  const catchUpRate = new Gauge({
    name: "indexer_catch_up_blocks_per_second",
    help: "Blocks written per second over the last progress interval",
    registers: [registry],
  });

  // The catch-up progress line: rates over the interval since the last line.
  let window = { at: Date.now(), blocks: 0, transactions: 0 };
  const onProgress = (progress: SyncProgress) => {
    indexedHeight.set(progress.indexedHeight);
    nodeHeight.set(progress.targetHeight);
    blocksApplied.inc(progress.blocks);
    txsApplied.inc(progress.transactions);
    window.blocks += progress.blocks;
    window.transactions += progress.transactions;
    const now = Date.now();
    const elapsed = Math.max(1, now - window.at);
    const remaining = progress.targetHeight - progress.indexedHeight;
    if (remaining <= 0 || elapsed < config["progress-ms"]) return;
    const blocksPerS = (window.blocks * 1000) / elapsed;
    catchUpRate.set(blocksPerS);
    logger.info(
      {
        event: "catch_up",
        height: progress.indexedHeight,
        target: progress.targetHeight,
        remaining,
        blocks_per_s: Math.round(blocksPerS * 10) / 10,
        tx_per_s: Math.round((window.transactions * 10_000) / elapsed) / 10,
        eta_s: blocksPerS > 0 ? Math.round(remaining / blocksPerS) : null,
      },
      `indexed ${progress.indexedHeight} of ${progress.targetHeight}`,
    );
    window = { at: now, blocks: 0, transactions: 0 };
  };

  const makeIndexer = () =>
    new Indexer({
      store,
      source: new RpcChainSource(client),
      network: getNetwork(config.network),
      startHeight: config["start-height"],
      maxReorgDepth: config["max-reorg-depth"],
      profile,
      batchBlocks: config["batch-blocks"],
      onProgress,
      // The deferred index rebuild can take minutes on mainnet: its steps are info lines.
      log: (event, fields) =>
        event.startsWith("read_index") ? logger.info({ event, ...fields }) : logger.debug({ event, ...fields }),
    });
  // An index that exists is checked against the flags now (the constructor writes nothing then);
  // a new one records its network only once the node has been found to be on it.
  let indexer: Indexer | null = store.getMeta("start_height") !== null ? makeIndexer() : null;

  // OP_CHECKZKP proofs are verified after their blocks are written, off the sync loop.
  const shadow = new ZkpShadowService(db);
  const zkpVerified = new Counter({
    name: "indexer_zkp_shadow_verified_total",
    help: "OP_CHECKZKP mode-0 uses verified off-consensus",
    registers: [registry],
  });
  let shadowRun: Promise<void> | null = null;
  const runShadow = () => {
    if (shadowRun || (shadow.enqueuePending() === 0 && shadow.pending === 0)) return;
    shadowRun = shadow
      .drain()
      .then((count) => {
        zkpVerified.inc(count);
      })
      .catch((error) => logger.error({ event: "zkp_shadow_failed", err: error }))
      .finally(() => {
        shadowRun = null;
      });
  };

  let lastError: string | null = null;
  let lastSyncAt: number | null = null;
  let stopping = false;
  const ops = await startOpsServer({
    host: config["ops-host"],
    port: config["ops-port"],
    registry,
    health: () => {
      const status = indexer?.status() ?? {
        indexedHeight: config["start-height"] - 1,
        indexedHash: null,
        nodeHeight: null,
        startHeight: config["start-height"],
        progress: 0,
      };
      return {
        ok: lastError === null,
        name: config.name,
        indexedHeight: status.indexedHeight,
        indexedHash: status.indexedHash,
        nodeHeight: status.nodeHeight,
        startHeight: status.startHeight,
        progress: status.progress,
        zkpShadowPending: shadow.pending,
        lastSyncAt,
        lastError,
        node: client.toString(),
      };
    },
  });

  let wake: (() => void) | null = null;
  // Once stopping, no new sleep starts (a sync that fails after SIGTERM goes straight to the exit).
  const sleep = (ms: number) =>
    stopping
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
  const shutdown = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ event: "stopping", reason });
    indexer?.stop();
    wake?.();
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));

  logger.info({
    event: "ready",
    db: db.location,
    network: config.network,
    profile,
    startHeight: config["start-height"],
    indexedHeight: indexer?.indexedHeight() ?? config["start-height"] - 1,
    ops: ops.url,
  });
  process.stdout.write(`${config.name}  ${ops.url}\n`);

  let backoffMs = config["poll-ms"];
  let exitCode = 0;
  let networkChecked = false;
  while (!stopping) {
    try {
      if (!networkChecked) {
        // Before anything is written: addresses are encoded for --network.
        const info = await checkNodeNetwork(client, config.network, config.name);
        networkChecked = true;
        logger.info({ event: "node_checked", chain: info.chain, blocks: info.blocks, headers: info.headers });
      }
      indexer ??= makeIndexer();
      window = { at: Date.now(), blocks: 0, transactions: 0 };
      const result = await indexer.syncOnce();
      indexedHeight.set(result.indexedHeight);
      nodeHeight.set(indexer.status().nodeHeight ?? 0);
      blocksRolledBack.inc(result.rolledBack);
      if (result.rolledBack > 0)
        logger.warn({ event: "reorg", rolledBack: result.rolledBack, indexedHeight: result.indexedHeight });
      if (result.blocksApplied > 0)
        logger.info({ event: "synced", indexedHeight: result.indexedHeight, blocks: result.blocksApplied });
      lastError = null;
      lastSyncAt = Date.now();
      runShadow();
      backoffMs = config["poll-ms"];
      await sleep(config["poll-ms"]);
    } catch (error) {
      if (stopping) break;
      if (error instanceof NodeCheckError) {
        process.stderr.write(`${error.message}\n`);
        exitCode = 2;
        break;
      }
      if (error instanceof ReorgTooDeepError) {
        logger.fatal({ event: "reorg_too_deep", err: error });
        process.stderr.write(`${config.name}: ${error.message}\n`);
        exitCode = 3;
        break;
      }
      syncErrors.inc();
      const message = (error as Error).message;
      if (message !== lastError) logger.error({ event: "sync_failed", err: error });
      lastError = message;
      backoffMs = Math.min(backoffMs * 2, 30_000);
      await sleep(backoffMs);
    }
  }
  await ops.close();
  // A verification batch in flight finishes first; anything left unverified is queued again at start.
  if (shadowRun) await shadowRun;
  db.close();
  logger.info({ event: "stopped" });
  process.exit(exitCode);
}

main().catch((error) => {
  process.stderr.write(`indexer: fatal: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
