/**
 * The launchpad API daemon: sessions, collections, claims, paid mints through the inscriber (the
 * payments go to the creators; the launchpad refunds nothing itself), membership from the
 * explorer's index.
 *
 *   node --import tsx daemons/launchpad/main.ts --index-db data/indexer/explorer.sqlite --rpc-url http://user:pass@127.0.0.1:18332 \
 *        --inscriber-url http://127.0.0.1:3005 --inscriber-key-file data/launchpad/inscriber-project.key \
 *        [--operator-key-file data/launchpad/operator.key] [--port 3002] [--rate-limit 60] \
 *        [--demo --wallet-key-file data/launchpad/wallet.wif] \
 *        [--web-dir web --explorer-url http://127.0.0.1:3001 [--dev-wallet-key-file data/launchpad/dev-wallet.wif]]
 *
 * With --demo it lists two demo collections (one priced, one free with the operator key) by the
 * demo key's address when they are not listed yet (src/services/launchpad/demo.ts). Prints `launchpad  <url>/api` once listening.
 * Checks that the node is on --network and keeps -txindex (exit 2 with one line if not); stops
 * within 5 s of SIGTERM.
 */
import crypto from "node:crypto";
import http from "node:http";
import pino from "pino";
import { Registry, collectDefaultMetrics } from "prom-client";
import { checkNodeNetwork, checkTxindex, runNodeChecks } from "../../src/chain/network-check";
import { stopSignal } from "../../src/services/ops/stopping";
import { runDaemon, stopOnSignals } from "../../src/config/daemon";
import { defaultPaymentConfirmations } from "../../src/chain/depth";
import { loadDaemonConfig } from "../../src/config/load";
import { checkRpcConfig, createDogecoinRpcClient, rpcOptions } from "../../src/config/rpc";
import { indexHealth, mountOpsRoutes } from "../../src/services/ops/server";
import { readSecretFile } from "../../src/config/secret-file";
import { getNetwork } from "../../src/doge";
import { waitForIndex } from "../../src/indexer/wait-for-index";
import { IndexQueries } from "../../src/indexer/queries";
import { createLaunchpadApp, devWalletScript, openLaunchpadDatabase } from "../../src/services/launchpad";
import { InscriberClient } from "../../src/services/inscriber/client";
import { seedLaunchpadDemo } from "../../src/services/launchpad/demo";
import { loadWalletKey } from "../../src/wallet";
import { rateLimitOption, trustProxies, trustProxyOption } from "../../src/services/http/rate-limit";
import { nodeRawTransactions } from "../../src/services/user-psbt";
import { runEvery } from "../../src/ops/loop";

const SPEC = {
  db: {
    kind: "string",
    env: "LAUNCHPAD_DB",
    default: "data/launchpad/launchpad.sqlite",
    description: "the launchpad's database",
  },
  "index-db": {
    kind: "string",
    env: "LAUNCHPAD_INDEX_DB",
    required: true,
    alias: "index-database",
    description: "the index: payments, membership (a SQLite file or a postgres:// URL; opened read-only)",
  },
  ...rpcOptions("LAUNCHPAD", { purpose: "payment PSBTs: previous transactions, mempool spends; -txindex" }),
  "inscriber-url": {
    kind: "url",
    env: "LAUNCHPAD_INSCRIBER_URL",
    required: true,
    description: "the inscriber service",
  },
  "inscriber-key-file": {
    kind: "string",
    env: "LAUNCHPAD_INSCRIBER_KEY_FILE",
    required: true,
    description: 'file with the inscriber project key of project "launchpad" (mode 0600)',
  },
  "wallet-key-file": {
    kind: "string",
    env: "LAUNCHPAD_WALLET_KEY_FILE",
    default: "",
    description:
      "--demo only: file with the WIF of the demo collections' creator (mode 0600; else LAUNCHPAD_WALLET_WIF)",
  },
  "operator-key-file": {
    kind: "string",
    env: "LAUNCHPAD_OPERATOR_KEY_FILE",
    default: "",
    description:
      "file with the operator key free listings need in X-Operator-Key (mode 0600); without it no free collection can be listed",
  },
  "rate-limit": rateLimitOption("LAUNCHPAD_RATE_LIMIT", 60),
  "payment-confirmations": {
    kind: "integer",
    env: "LAUNCHPAD_PAYMENT_CONFIRMATIONS",
    min: 1,
    max: 1_000,
    description: "depth at which a mint's payment counts (default: 6 on mainnet and testnet, 1 on regtest)",
  },
  "claim-limit": {
    kind: "integer",
    env: "LAUNCHPAD_CLAIM_LIMIT",
    default: 10,
    min: 0,
    max: 1_000_000,
    description: "claims allowed per session and minute (429 past it; 0 = no limit)",
  },
  "reservations-per-client": {
    kind: "integer",
    env: "LAUNCHPAD_RESERVATIONS_PER_CLIENT",
    default: 3,
    min: 0,
    max: 1_000_000,
    description: "live reservations one client IP may hold per collection (0 = no cap)",
  },
  "streams-per-client": {
    kind: "integer",
    env: "LAUNCHPAD_STREAMS_PER_CLIENT",
    default: 8,
    min: 0,
    max: 1_000_000,
    description: "open live-counter event streams per client IP (0 = no cap)",
  },
  "trust-proxy": trustProxyOption("LAUNCHPAD_TRUST_PROXY"),
  network: { kind: "string", env: "LAUNCHPAD_NETWORK", default: "regtest", description: "mainnet, testnet or regtest" },
  "web-dir": {
    kind: "string",
    env: "LAUNCHPAD_WEB_DIR",
    default: "",
    description: "directory of the pages served at / (the repository's web/)",
  },
  "explorer-url": {
    kind: "string",
    env: "LAUNCHPAD_EXPLORER_URL",
    default: "",
    description: "the explorer's public base URL, where pages broadcast payments",
  },
  "dev-wallet-key-file": {
    kind: "string",
    env: "LAUNCHPAD_DEV_WALLET_KEY_FILE",
    default: "",
    description: "devnet/testnet only: a WIF file whose key the pages get as window.wallet (the development wallet)",
  },
  demo: {
    kind: "boolean",
    env: "LAUNCHPAD_DEMO",
    default: false,
    description: "list the demo collections when missing",
  },
  host: { kind: "string", env: "LAUNCHPAD_HOST", default: "127.0.0.1", description: "listen address" },
  port: { kind: "integer", env: "LAUNCHPAD_PORT", default: 3002, min: 0, max: 65535, description: "listen port" },
} as const;

async function main(): Promise<void> {
  const config = loadDaemonConfig("launchpad", SPEC, (values) => {
    checkRpcConfig(values);
    getNetwork(values.network);
  });
  const logger = pino({ name: "launchpad", level: process.env.LOG_LEVEL ?? "info" }, pino.destination(2));
  const network = getNetwork(config.network);
  const log = (event: string, fields: Record<string, unknown>) => logger.info({ event, ...fields });
  const demoKey = config.demo
    ? loadWalletKey({
        keyFile: config["wallet-key-file"] || undefined,
        env: process.env,
        envVar: "LAUNCHPAD_WALLET_WIF",
        network,
      })
    : null;
  const operatorKey = config["operator-key-file"]
    ? readSecretFile(config["operator-key-file"], "launchpad operator key").trim()
    : null;
  const stopped = stopSignal("launchpad");
  const indexDb = await waitForIndex(config["index-db"], {
    signal: stopped,
    cacheMb: 16,
    log: (fields) => logger.info(fields),
  });
  const queries = new IndexQueries(indexDb);
  const rpc = createDogecoinRpcClient(config, { logger, signal: stopped });
  void runNodeChecks({
    daemon: "launchpad",
    logger,
    signal: stopped,
    check: async () => {
      await checkNodeNetwork(rpc, config.network, "launchpad");
      await checkTxindex(rpc, "launchpad", "payment PSBTs' previous transactions", logger);
    },
  });
  const db = openLaunchpadDatabase(config.db);
  const inscriber = new InscriberClient({
    url: config["inscriber-url"],
    key: readSecretFile(config["inscriber-key-file"], "inscriber project key").trim(),
  });
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const walletProviderScript = config["dev-wallet-key-file"]
    ? await devWalletScript(readSecretFile(config["dev-wallet-key-file"], "development wallet key").trim(), network)
    : undefined;
  const app = createLaunchpadApp({
    db,
    queries,
    network,
    inscriber,
    operatorKeySha256: operatorKey ? crypto.createHash("sha256").update(operatorKey, "utf8").digest("hex") : undefined,
    rateLimitPerMinute: config["rate-limit"],
    claimsPerSessionPerMinute: config["claim-limit"],
    paymentConfirmations: config["payment-confirmations"] ?? defaultPaymentConfirmations(network),
    maxReservationsPerClient: config["reservations-per-client"],
    events: { maxStreamsPerClient: config["streams-per-client"] },
    webDir: config["web-dir"] || undefined,
    walletProviderScript,
    explorerUrl: config["explorer-url"] ? config["explorer-url"].replace(/\/+$/, "") : undefined,
    // Payment PSBTs carry each input's previous transaction (dogecoind needs -txindex) and skip
    // coins the node's mempool already spends.
    node: nodeRawTransactions(rpc),
    log: (event, fields) => logger.info({ event, ...fields }),
    mount: (root, _gate, surface) =>
      mountOpsRoutes(root, {
        registry,
        surface,
        health: () => {
          const index = indexHealth(queries);
          return { ok: index.ok, name: "launchpad", indexedHeight: index.indexedHeight, nodeHeight: index.nodeHeight };
        },
      }),
  });
  trustProxies(app, config["trust-proxy"]);
  // The worker follows inscriber jobs every 500 ms: a confirmed mint reaches open pages within a second.
  const worker = runEvery("launchpad_worker", 500, () => app.launchpad.mints.runOnce(), { log });
  const server = http.createServer(app);
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : config.port;
    const base = `http://${config.host}:${port}/api`;
    void (async () => {
      if (demoKey) {
        try {
          const listed = await seedLaunchpadDemo(app.launchpad, {
            creatorAddress: demoKey.address,
            withOperatorKey: operatorKey !== null,
          });
          if (listed.length > 0) log("launchpad_demo_listed", { slugs: listed });
        } catch (error) {
          logger.error({ event: "launchpad_demo_failed", err: (error as Error).message });
        }
      }
      logger.info({ event: "ready", port });
      process.stdout.write(`launchpad  ${base}\n`);
      if (config["web-dir"]) process.stdout.write(`pages  http://${config.host}:${port}/\n`);
    })();
  });
  stopOnSignals(logger, async () => {
    server.close();
    server.closeAllConnections();
    app.launchpad.feed.close();
    await worker.stop();
    db.close();
    indexDb.close();
  });
}

runDaemon("launchpad", main);
