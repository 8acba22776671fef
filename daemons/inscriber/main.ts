/**
 * The inscriber daemon: the standard, platform mints from the hot wallet and user-signed PSBTs.
 *
 *   node --import tsx daemons/inscriber/main.ts --index-db data/indexer/explorer.sqlite \
 *        --rpc-url http://user:pass@127.0.0.1:18332 --network regtest \
 *        --wallet-key-file data/inscriber/wallet.wif --projects-file data/inscriber/projects.json [--port 3005]
 *
 * It reads the explorer's index (its own read-only connection) for the wallet's and users' outputs
 * and for confirmations, and talks to dogecoind for broadcasts and raw transactions. Prints
 * `inscriber  <url>` once listening; `wallet  <address>` before that. Checks that the node is on
 * --network and keeps -txindex (exit 2 with one line if not); stops within 5 s of SIGTERM.
 */
import http from "node:http";
import pino from "pino";
import { Gauge, Registry, collectDefaultMetrics } from "prom-client";
import { checkNodeNetwork, checkTxindex, runNodeChecks } from "../../src/chain/network-check";
import { stopSignal } from "../../src/services/ops/stopping";
import { runDaemon, stopOnSignals } from "../../src/config/daemon";
import { loadDaemonConfig } from "../../src/config/load";
import { checkRpcConfig, createDogecoinRpcClient, rpcOptions } from "../../src/config/rpc";
import { indexHealth, mountOpsRoutes } from "../../src/services/ops/server";
import { getNetwork } from "../../src/doge";
import { waitForIndex } from "../../src/indexer/wait-for-index";
import { IndexQueries } from "../../src/indexer/queries";
import { INSCRIBER_WRITES_PER_MINUTE, createInscriberApp } from "../../src/services/inscriber/app";
import { rateLimitOption, trustProxies, trustProxyOption } from "../../src/services/http/rate-limit";
import { parseProtectedAddresses, readProjects } from "../../src/services/inscriber/projects";
import { DEFAULT_LAUNCHPAD_PROJECT } from "../../src/services/inscriber/authority";
import { PlatformInscriber } from "../../src/services/inscriber/platform";
import { JobStore, openInscriberDatabase } from "../../src/services/inscriber/store";
import {
  PREPARATIONS_PER_CLIENT,
  PREPARATIONS_TOTAL,
  UserSignedInscriber,
} from "../../src/services/inscriber/user-signed";
import { HotWallet, indexNodeChain, loadWalletKey, openWalletDatabase } from "../../src/wallet";
import { nodeRawTransactions } from "../../src/services/user-psbt";
import { runEvery } from "../../src/ops/loop";

const SPEC = {
  "index-db": {
    kind: "string",
    env: "INSCRIBER_INDEX_DB",
    required: true,
    alias: "index-database",
    description: "the index (a SQLite file or a postgres:// URL; opened read-only)",
  },
  ...rpcOptions("INSCRIBER", { purpose: "broadcasts, raw transactions; dogecoind needs -txindex" }),
  network: { kind: "string", env: "INSCRIBER_NETWORK", default: "regtest", description: "mainnet, testnet or regtest" },
  db: {
    kind: "string",
    env: "INSCRIBER_DB",
    default: "data/inscriber/inscriber.sqlite",
    description: "the inscriber's job database",
  },
  "wallet-db": {
    kind: "string",
    env: "INSCRIBER_WALLET_DB",
    default: "data/inscriber/wallet.sqlite",
    description: "the hot wallet's database",
  },
  "wallet-key-file": {
    kind: "string",
    env: "INSCRIBER_WALLET_KEY_FILE",
    default: "",
    description: "file holding the hot wallet's WIF (else DOGEOS_WALLET_WIF)",
  },
  "projects-file": {
    kind: "string",
    env: "INSCRIBER_PROJECTS_FILE",
    required: true,
    description: 'JSON {"projects": {"<name>": {"key_sha256": "<hex>"}}}',
  },
  "max-payload-bytes": {
    kind: "integer",
    env: "INSCRIBER_MAX_PAYLOAD_BYTES",
    default: 32_768,
    min: 1,
    max: 60_000,
    description: "largest content accepted",
  },
  "fee-rate": {
    kind: "integer",
    env: "INSCRIBER_FEE_RATE",
    default: 1_000_000,
    min: 100_000,
    max: 100_000_000,
    description: "koinu per 1000 bytes (Dogecoin Core 1.14.6's recommended 0.01 DOGE/kB)",
  },
  postage: {
    kind: "integer",
    env: "INSCRIBER_POSTAGE",
    default: 1_000_000,
    min: 1_000_000,
    max: 100_000_000,
    description: "koinu on each inscription's output (at least the 0.01 DOGE soft dust limit)",
  },
  "min-utxos": {
    kind: "integer",
    env: "INSCRIBER_MIN_UTXOS",
    default: 0,
    min: 0,
    max: 500,
    description: "keep at least this many spendable wallet outputs (fan-out); 0 disables",
  },
  "utxo-koinu": {
    kind: "integer",
    env: "INSCRIBER_UTXO_KOINU",
    default: 100_000_000,
    min: 2_000_000,
    max: 100_000_000_000,
    description: "value of each fan-out output",
  },
  host: { kind: "string", env: "INSCRIBER_HOST", default: "127.0.0.1", description: "listen address" },
  port: { kind: "integer", env: "INSCRIBER_PORT", default: 3005, min: 0, max: 65535, description: "listen port" },
  "rate-limit": rateLimitOption("INSCRIBER_RATE_LIMIT", INSCRIBER_WRITES_PER_MINUTE),
  "max-preparations-per-client": {
    kind: "integer",
    env: "INSCRIBER_MAX_PREPARATIONS_PER_CLIENT",
    default: PREPARATIONS_PER_CLIENT,
    min: 1,
    max: 100_000,
    description: "user-signed preparations one client IP may hold unexpired (429 TOO_MANY_PREPARATIONS past it)",
  },
  "max-preparations": {
    kind: "integer",
    env: "INSCRIBER_MAX_PREPARATIONS",
    default: PREPARATIONS_TOTAL,
    min: 1,
    max: 1_000_000,
    description: "user-signed preparations held unexpired in all",
  },
  "trust-proxy": trustProxyOption("INSCRIBER_TRUST_PROXY"),
  "launchpad-project": {
    kind: "string",
    env: "INSCRIBER_LAUNCHPAD_PROJECT",
    default: DEFAULT_LAUNCHPAD_PROJECT,
    description:
      "the only project that may inscribe LAUNCHPAD_DEPLOY and LAUNCHPAD_MINT (422 ACTION_RESERVED for any other)",
  },
  "protected-addresses": {
    kind: "string",
    env: "INSCRIBER_PROTECTED_ADDRESSES",
    default: "",
    description:
      "comma-separated <project>=<address>: service addresses (the AMM's custody, the launchpad's) only their project may inscribe to (422 RECIPIENT_PROTECTED); the hot wallet is always protected",
  },
} as const;

async function main(): Promise<void> {
  const config = loadDaemonConfig("inscriber", SPEC, (values) => {
    checkRpcConfig(values);
    parseProtectedAddresses(values["protected-addresses"] ?? "", getNetwork(values.network));
  });
  const logger = pino({ name: "inscriber", level: process.env.LOG_LEVEL ?? "info" }, pino.destination(2));
  const network = getNetwork(config.network);
  const log = (event: string, fields: Record<string, unknown>) => logger.info({ event, ...fields });
  const warn = (event: string, fields: Record<string, unknown>) => logger.warn({ event, ...fields });
  const projects = readProjects(config["projects-file"]);
  const key = loadWalletKey({ keyFile: config["wallet-key-file"] || undefined, env: process.env, network });
  const stopped = stopSignal("inscriber");
  const indexDb = await waitForIndex(config["index-db"], {
    signal: stopped,
    cacheMb: 16,
    log: (fields) => logger.info(fields),
  });
  const queries = new IndexQueries(indexDb);
  const rpc = createDogecoinRpcClient(config, { logger, signal: stopped });
  void runNodeChecks({
    daemon: "inscriber",
    logger,
    signal: stopped,
    check: async () => {
      await checkNodeNetwork(rpc, config.network, "inscriber");
      await checkTxindex(rpc, "inscriber", "the hot wallet's and the user-signed PSBTs' previous transactions", logger);
    },
  });
  const walletDb = openWalletDatabase(config["wallet-db"]);
  const db = openInscriberDatabase(config.db);
  const feeRate = BigInt(config["fee-rate"]);
  const postage = BigInt(config.postage);
  const wallet = new HotWallet({
    db: walletDb,
    key,
    chain: indexNodeChain(queries, rpc),
    network,
    feeRateKoinuPerKb: feeRate,
    log,
  });
  const jobs = new JobStore(db);
  const platform = new PlatformInscriber({
    store: jobs,
    wallet,
    network,
    postageKoinu: postage,
    feeRateKoinuPerKb: feeRate,
    // A failed job (inscriber_job_failed, with the job's id, code and reason) and the platform's other
    // failures are warnings (npm start shows them as warning lines); its progress is info.
    log: (event, fields) => (event.endsWith("_failed") ? warn : log)(event, fields),
  });
  const userSigned = new UserSignedInscriber({
    db,
    queries,
    network,
    feeRateKoinuPerKb: feeRate,
    postageKoinu: postage,
    rawTransactions: nodeRawTransactions(rpc),
    maxPerClient: config["max-preparations-per-client"],
    maxTotal: config["max-preparations"],
  });

  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: "inscriber_jobs",
    help: "Platform jobs by status",
    labelNames: ["status"],
    registers: [registry],
    collect() {
      for (const [status, n] of Object.entries(jobs.counts())) this.set({ status }, n);
    },
  });
  new Gauge({
    name: "inscriber_wallet_koinu",
    help: "Hot wallet balance",
    labelNames: ["kind"],
    registers: [registry],
    collect() {
      const balance = wallet.balance();
      this.set({ kind: "confirmed" }, Number(balance.confirmedKoinu));
      this.set({ kind: "unconfirmed" }, Number(balance.unconfirmedKoinu));
      this.set({ kind: "locked" }, Number(balance.lockedKoinu));
    },
  });

  const app = createInscriberApp({
    network,
    projects,
    platform,
    jobs,
    userSigned,
    maxPayloadBytes: config["max-payload-bytes"],
    feeRateKoinuPerKb: feeRate,
    postageKoinu: postage,
    rateLimitPerMinute: config["rate-limit"],
    launchpadProject: config["launchpad-project"],
    protectedAddresses: parseProtectedAddresses(config["protected-addresses"] ?? "", network),
    log: (event, fields) => logger.error({ event, ...fields }),
    mount: (root, surface) =>
      mountOpsRoutes(root, {
        registry,
        surface,
        health: () => {
          const index = indexHealth(queries);
          const balance = wallet.balance();
          return {
            ok: index.ok,
            name: "inscriber",
            wallet: {
              address: wallet.address,
              confirmed_koinu: balance.confirmedKoinu.toString(),
              spendable_utxos: balance.spendableUtxos,
            },
            jobs: jobs.counts(),
            indexedHeight: index.indexedHeight,
            nodeHeight: index.nodeHeight,
          };
        },
      }),
  });

  process.stdout.write(`wallet  ${wallet.address}\n`);
  await wallet
    .sync()
    .catch((error) => logger.warn({ event: "wallet_initial_sync_failed", err: (error as Error).message }));
  // The worker resumes every unfinished job at its first pass, then looks for due jobs and confirmations every second.
  const worker = runEvery("inscriber_worker", 1_000, () => platform.runOnce(), { log: warn });
  const fanOut =
    config["min-utxos"] > 0
      ? runEvery(
          "wallet_fan_out",
          10_000,
          () => wallet.ensureUtxos(config["min-utxos"], BigInt(config["utxo-koinu"])),
          { log: warn },
        )
      : null;

  trustProxies(app, config["trust-proxy"]);
  const server = http.createServer(app);
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : config.port;
    logger.info({ event: "ready", port, wallet: wallet.address });
    process.stdout.write(`inscriber  http://${config.host}:${port}\n`);
  });
  stopOnSignals(logger, async () => {
    server.close();
    server.closeAllConnections();
    await Promise.all([worker.stop(), fanOut?.stop()]);
    await platform.stop();
    db.close();
    walletDb.close();
    indexDb.close();
  });
}

if (require.main === module) runDaemon("inscriber", main);
