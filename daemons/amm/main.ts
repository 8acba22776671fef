/**
 * The AMM daemon: the HTTP API over its ledger, the settlement worker paying every payout from the
 * custody hot wallet (DRC-20 through the inscriber), and the pass that executes swaps whose
 * announced deposit got mined.
 *
 *   node --import tsx daemons/amm/main.ts --index-db data/indexer/explorer.sqlite --rpc-url http://user:pass@127.0.0.1:18332 \
 *        --inscriber-url http://127.0.0.1:3005 --inscriber-key-file data/amm/inscriber-project.key \
 *        --wallet-key-file data/amm/custody.wif [--port 3003] [--demo]
 *
 * With --demo it makes the demo pool WOOF/DOGE when missing (the tick deployed and minted to the
 * custody address through the inscriber, then the pool seeded from the custody's holdings) and
 * launches the demo bonding coin MOON. Bonding launches take an operator API key:
 * `scripts/amm-bonding-key.ts` issues one. Prints `amm  <url>/api` once listening. The API's
 * OpenAPI document is served at GET /openapi.json (reference page GET /docs; published as
 * shared/openapi/amm.json). Checks that the node is on --network and keeps -txindex (exit 2 with
 * one line if not); stops within 5 s of SIGTERM.
 */
import http from "node:http";
import pino from "pino";
import { Registry, collectDefaultMetrics } from "prom-client";
import { checkNodeNetwork, checkTxindex, runNodeChecks } from "../../src/chain/network-check";
import { stopSignal } from "../../src/services/ops/stopping";
import { runDaemon, stopOnSignals } from "../../src/config/daemon";
import { defaultPaymentConfirmations } from "../../src/chain/depth";
import { loadDaemonConfig } from "../../src/config/load";
import { checkRpcConfig, createDogecoinRpcClient, rpcOptions } from "../../src/config/rpc";
import { mountOpsRoutes } from "../../src/services/ops/server";
import { readSecretFile } from "../../src/config/secret-file";
import { getNetwork } from "../../src/doge";
import { drc20TickKey } from "../../src/inscription/drc20";
import { waitForIndex } from "../../src/indexer/wait-for-index";
import { IndexQueries } from "../../src/indexer/queries";
import { InscriberClient } from "../../src/services/inscriber/client";
import { launchDemoCurve, seedDemoPool } from "../../src/services/amm/demo";
import { walletProviderScript } from "../../src/services/pages/wallet-provider";
import { CustodyReserves, registerReservesMetrics } from "../../src/services/amm/reserves";
import { mountReserves } from "../../src/services/amm/app";
import { ammHealth } from "../../src/services/amm/health";
import {
  DEFAULT_MAX_PENDING_PER_ADDRESS,
  DEFAULT_MAX_PENDING_PER_CLIENT,
  DEFAULT_PENDING_CHECKS_PER_PASS,
} from "../../src/services/amm/announcements";
import {
  AmmLedger,
  BondingStore,
  DEFAULT_AMM_RATE_LIMIT,
  DEFAULT_PAYOUT_COSTS,
  DepositReader,
  SettlementWorker,
  createAmmApp,
  createQuoteFastPath,
  mountBonding,
  openAmmDatabase,
} from "../../src/services/amm";
import { rateLimitOption, trustProxies, trustProxyOption } from "../../src/services/http/rate-limit";
import { HotWallet, indexNodeChain, loadWalletKey, openWalletDatabase } from "../../src/wallet";
import { runEvery } from "../../src/ops/loop";

const SPEC = {
  db: { kind: "string", env: "AMM_DB", default: "data/amm/amm.sqlite", description: "the AMM's ledger database" },
  "index-db": {
    kind: "string",
    env: "AMM_INDEX_DB",
    required: true,
    alias: "index-database",
    description: "the index: deposits, DRC-20 (a SQLite file or a postgres:// URL; opened read-only)",
  },
  ...rpcOptions("AMM", { purpose: "payout broadcasts" }),
  "inscriber-url": {
    kind: "url",
    env: "AMM_INSCRIBER_URL",
    required: true,
    description: "the inscriber service (DRC-20 transfer inscriptions of payouts)",
  },
  "inscriber-key-file": {
    kind: "string",
    env: "AMM_INSCRIBER_KEY_FILE",
    required: true,
    description: 'file with the inscriber project key of project "amm" (mode 0600)',
  },
  "wallet-key-file": {
    kind: "string",
    env: "AMM_WALLET_KEY_FILE",
    default: "",
    description: "file with the custody hot wallet's WIF (mode 0600; else AMM_WALLET_WIF)",
  },
  "wallet-db": {
    kind: "string",
    env: "AMM_WALLET_DB",
    default: "data/amm/wallet.sqlite",
    description: "the custody wallet's database",
  },
  network: { kind: "string", env: "AMM_NETWORK", default: "regtest", description: "mainnet, testnet or regtest" },
  demo: { kind: "boolean", env: "AMM_DEMO", default: false, description: "make the demo pool WOOF/DOGE when missing" },
  "deposit-confirmations": {
    kind: "integer",
    env: "AMM_DEPOSIT_CONFIRMATIONS",
    min: 1,
    max: 1_000,
    description: "depth at which a deposit counts (default: 6 on mainnet and testnet, 1 on regtest)",
  },
  "service-addresses": {
    kind: "string",
    env: "AMM_SERVICE_ADDRESSES",
    default: "",
    description:
      "comma-separated addresses of the operator's other wallets (the inscriber's): their transactions are never deposits, and no order may name them",
  },
  "payout-cost-doge": {
    kind: "integer",
    env: "AMM_PAYOUT_COST_DOGE",
    default: Number(DEFAULT_PAYOUT_COSTS.dogeKoinu),
    min: 0,
    max: 100_000_000_000,
    description: "koinu withheld from every DOGE payout for its network fee (the order pays the operator's cost)",
  },
  "payout-cost-drc20": {
    kind: "integer",
    env: "AMM_PAYOUT_COST_DRC20",
    default: Number(DEFAULT_PAYOUT_COSTS.drc20Koinu),
    min: 0,
    max: 100_000_000_000,
    description:
      "koinu an order pays for each DRC-20 payout (inscription fees, postage, the carrier's send), on top of its DOGE deposit or out of its DOGE payout",
  },
  "max-pending-per-address": {
    kind: "integer",
    env: "AMM_MAX_PENDING_PER_ADDRESS",
    default: DEFAULT_MAX_PENDING_PER_ADDRESS,
    min: 1,
    max: 1_000,
    description:
      "announced deposits the index does not show yet that one address may hold (swaps and bonding confirms together; 429 TOO_MANY_PENDING past it)",
  },
  "max-pending-per-client": {
    kind: "integer",
    env: "AMM_MAX_PENDING_PER_CLIENT",
    default: DEFAULT_MAX_PENDING_PER_CLIENT,
    min: 1,
    max: 100_000,
    description: "the same per client IP (IPv6 by its /56); behind a proxy set --trust-proxy",
  },
  "pending-checks-per-pass": {
    kind: "integer",
    env: "AMM_PENDING_CHECKS_PER_PASS",
    default: DEFAULT_PENDING_CHECKS_PER_PASS,
    min: 1,
    max: 10_000,
    description:
      "announced deposits of each kind (swaps, bonding confirms) one pass checks at most, most overdue first",
  },
  "web-dir": {
    kind: "string",
    env: "AMM_WEB_DIR",
    default: "",
    description: "directory of the pages served at / (the repository's web/amm: swap, liquidity, bonding)",
  },
  "explorer-url": {
    kind: "string",
    env: "AMM_EXPLORER_URL",
    default: "",
    description: "the explorer's public base URL, where the pages read UTXOs and broadcast deposits",
  },
  "dev-wallet-key-file": {
    kind: "string",
    env: "AMM_DEV_WALLET_KEY_FILE",
    default: "",
    description: "devnet/testnet only: a WIF file whose key the pages offer as the development wallet",
  },
  "rate-limit": rateLimitOption("AMM_RATE_LIMIT", DEFAULT_AMM_RATE_LIMIT),
  "trust-proxy": trustProxyOption("AMM_TRUST_PROXY"),
  host: { kind: "string", env: "AMM_HOST", default: "127.0.0.1", description: "listen address" },
  port: { kind: "integer", env: "AMM_PORT", default: 3003, min: 0, max: 65535, description: "listen port" },
} as const;

async function main(): Promise<void> {
  const config = loadDaemonConfig("amm", SPEC, (values) => {
    checkRpcConfig(values);
    getNetwork(values.network);
  });
  const logger = pino({ name: "amm", level: process.env.LOG_LEVEL ?? "info" }, pino.destination(2));
  const network = getNetwork(config.network);
  const log = (event: string, fields: Record<string, unknown>) => logger.info({ event, ...fields });
  const key = loadWalletKey({
    keyFile: config["wallet-key-file"] || undefined,
    env: process.env,
    envVar: "AMM_WALLET_WIF",
    network,
  });
  const stopped = stopSignal("amm");
  const indexDb = await waitForIndex(config["index-db"], {
    signal: stopped,
    cacheMb: 16,
    log: (fields) => logger.info(fields),
  });
  const queries = new IndexQueries(indexDb);
  const walletDb = openWalletDatabase(config["wallet-db"]);
  const rpc = createDogecoinRpcClient(config, { logger, signal: stopped });
  void runNodeChecks({
    daemon: "amm",
    logger,
    signal: stopped,
    check: async () => {
      await checkNodeNetwork(rpc, config.network, "amm");
      await checkTxindex(rpc, "amm", "the custody wallet's transaction status", logger);
    },
  });
  const wallet = new HotWallet({ db: walletDb, key, chain: indexNodeChain(queries, rpc), network, log });
  const db = openAmmDatabase(config.db);
  const tickDeployed = (tick: string) => queries.drc20Tick(drc20TickKey(tick))?.tick ?? null;
  const serviceAddresses = (config["service-addresses"] ?? "")
    .split(",")
    .map((a) => a.trim())
    .filter((a) => a !== "");
  const deposits = new DepositReader(queries, wallet.address, {
    confirmations: config["deposit-confirmations"] ?? defaultPaymentConfirmations(network),
    serviceAddresses,
    network,
  });
  const ledger = new AmmLedger({
    db,
    network,
    deposits,
    tickDeployed,
    payoutCosts: { dogeKoinu: BigInt(config["payout-cost-doge"]), drc20Koinu: BigInt(config["payout-cost-drc20"]) },
    maxPendingPerAddress: config["max-pending-per-address"],
    maxPendingPerClient: config["max-pending-per-client"],
    pendingChecksPerPass: config["pending-checks-per-pass"],
  });
  const inscriber = new InscriberClient({
    url: config["inscriber-url"],
    key: readSecretFile(config["inscriber-key-file"], "inscriber project key").trim(),
  });
  const bonding = new BondingStore({ db, ledger, deposits, queries, log });
  // Proof of reserves (docs/security.md): checked after every wallet sync, published at
  // /api/reserves, and the settlement worker's gate (nothing of a short asset is paid out).
  const reserves = new CustodyReserves({ db, ledger, bonding, queries, wallet, log });
  const settlement = new SettlementWorker({
    db,
    wallet,
    queries,
    inscriber,
    network,
    log,
    solvency: reserves,
    depositConfirmations: deposits.confirmations,
  });
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registerReservesMetrics(registry, reserves);
  const explorerUrl = config["explorer-url"] ? config["explorer-url"].replace(/\/+$/, "") : undefined;
  const app = createAmmApp({
    ledger,
    network,
    log,
    rateLimit: config["rate-limit"],
    webDir: config["web-dir"] || undefined,
    explorerUrl,
    walletProviderScript: config["dev-wallet-key-file"]
      ? await walletProviderScript({
          network,
          explorerUrl,
          devWalletWif: readSecretFile(config["dev-wallet-key-file"], "development wallet key").trim(),
        })
      : undefined,
    mount: (root, surface) => {
      mountBonding(root, { store: bonding, ledger, network, log });
      mountReserves(root, reserves);
      mountOpsRoutes(root, {
        registry,
        surface,
        health: () => ammHealth({ queries, deposits, settlement, reserves }),
      });
    },
  });

  trustProxies(app, config["trust-proxy"]);

  const warn = (event: string, fields: Record<string, unknown>) => logger.warn({ event, ...fields });
  const loops = [
    runEvery(
      "wallet_sync",
      10_000,
      async () => {
        await wallet.sync();
        reserves.runOnce();
      },
      { log: warn },
    ),
    runEvery("amm_settlement_pass", 2_000, () => settlement.runOnce(), { log: warn }),
    // Swaps whose deposit got mined, expired swaps and quotes, and the bonding curves' launches,
    // expiries and graduations, every 2 s (one pass at a time).
    runEvery(
      "amm_pending_pass",
      2_000,
      async () => {
        const { executed, expired } = ledger.retryPending();
        if (executed + expired > 0) log("amm_pending_swaps", { executed, expired });
        ledger.prune();
        await bonding.runOnce();
      },
      { log: (event, fields) => logger.error({ event, ...fields }) },
    ),
  ];
  const fastQuotes = createQuoteFastPath(ledger);
  const server = http.createServer((req, res) => {
    if (!fastQuotes(req, res)) app(req, res);
  });
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : config.port;
    logger.info({ event: "ready", port, custody: wallet.address });
    process.stdout.write(`amm  http://${config.host}:${port}/api\n`);
    if (config.demo) {
      const demo = { ledger, bonding, queries, wallet, inscriber, project: "amm", log, warn, signal: stopped };
      seedDemoPool(demo).catch((error) => logger.error({ event: "amm_demo_failed", err: (error as Error).message }));
      launchDemoCurve(demo).catch((error) =>
        logger.error({ event: "amm_demo_curve_failed", err: (error as Error).message }),
      );
    }
  });
  stopOnSignals(logger, async () => {
    server.close();
    server.closeAllConnections();
    await Promise.all(loops.map((loop) => loop.stop()));
    db.close();
    walletDb.close();
    indexDb.close();
  });
}

runDaemon("amm", main);
