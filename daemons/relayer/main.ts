/**
 * The relayer daemon: watches DogeInscriber's and DogeAnchor's request events on the L2, does each
 * job on the base chain (an inscription through the inscriber service under the relayer's own
 * project, an OP_RETURN through the relayer's own hot wallet), and settles it with a receipt signed
 * by two of the three attesters once the transaction is 6 deep (docs/operations.md, "Relayer").
 *
 *   node --import tsx daemons/relayer/main.ts --l2-rpc-url http://127.0.0.1:8545 \
 *        --attestation-address 0x... --inscriber-address 0x... --anchor-address 0x... \
 *        --attesters http://127.0.0.1:3011,http://127.0.0.1:3012,http://127.0.0.1:3013 \
 *        --inscriber-url http://127.0.0.1:3005 --inscriber-project relayer --inscriber-key-file data/relayer/inscriber.key \
 *        --wallet-key-file data/relayer/wallet.wif --index-db data/indexer/explorer.sqlite --rpc-url http://user:pass@127.0.0.1:18332 \
 *        --l2-key-file data/relayer/l2.key [--db data/relayer/relayer.sqlite] [--wallet-db data/relayer/wallet.sqlite] [--port 3030]
 *
 * Prints `wallet  <address>` and then `relayer  <url>` once its endpoints (GET /health, /metrics,
 * /v1/status) listen. Stops cleanly on SIGTERM: the attempts in progress finish, the next start
 * resumes every job from its database. Before it sends anything it checks the L2's eth_chainId
 * against --chain-id and the contracts' wiring, and that the node is on --network with -txindex
 * (exit 2 with one line on a mismatch); stops within 5 s of SIGTERM.
 */
import { JsonRpcProvider, Wallet, isAddress } from "ethers";
import pino from "pino";
import { Gauge, Registry, collectDefaultMetrics } from "prom-client";
import {
  NodeCheckError,
  checkL2ChainId,
  checkNodeNetwork,
  checkTxindex,
  runNodeChecks,
} from "../../src/chain/network-check";
import { stopSignal } from "../../src/services/ops/stopping";
import { runDaemon, stopOnSignals } from "../../src/config/daemon";
import { loadDaemonConfig } from "../../src/config/load";
import { checkRpcConfig, createDogecoinRpcClient, rpcOptions } from "../../src/config/rpc";
import { getNetwork } from "../../src/doge";
import { waitForIndex } from "../../src/indexer/wait-for-index";
import { IndexQueries } from "../../src/indexer/queries";
import { AttesterPanel } from "../../src/services/attest-api/panel";
import { HotWallet, indexNodeChain, loadWalletKey, openWalletDatabase } from "../../src/wallet";
import { Loop, runEvery } from "../../src/ops/loop";
import {
  RELAYER_WALLET_KEY_ENV,
  Relayer,
  checkJobContracts,
  loadInscriberKey,
  loadRelayerL2Key,
  openRelayerDatabase,
  startRelayerServer,
} from "../../src/relayer";
import { contractAddresses, deployBlock } from "../../src/l2/abi-index";

const SPEC = {
  db: {
    kind: "string",
    env: "RELAYER_DB",
    default: "data/relayer/relayer.sqlite",
    description: "the relayer's job database",
  },
  "l2-rpc-url": { kind: "url", env: "RELAYER_L2_RPC_URL", required: true, description: "the L2's JSON-RPC URL" },
  "chain-id": {
    kind: "integer",
    env: "RELAYER_CHAIN_ID",
    min: 1,
    description: "the L2's chain id, checked at start (DogeOS testnet: 6281971)",
  },
  "attestation-address": {
    kind: "string",
    env: "RELAYER_ATTESTATION_ADDRESS",
    description: "the DogeAttestation contract (default: the ABI index of --chain-id)",
  },
  "inscriber-address": {
    kind: "string",
    env: "RELAYER_INSCRIBER_ADDRESS",
    description: "the DogeInscriber contract (default: the ABI index of --chain-id)",
  },
  "anchor-address": {
    kind: "string",
    env: "RELAYER_ANCHOR_ADDRESS",
    description: "the DogeAnchor contract (default: the ABI index of --chain-id)",
  },
  attesters: {
    kind: "string",
    env: "RELAYER_ATTESTERS",
    required: true,
    description: "the three attesters' signing API URLs, comma separated",
  },
  "inscriber-url": {
    kind: "url",
    env: "RELAYER_INSCRIBER_URL",
    required: true,
    description: "the inscriber service's URL",
  },
  "inscriber-project": {
    kind: "string",
    env: "RELAYER_INSCRIBER_PROJECT",
    default: "relayer",
    description: "the relayer's project on the inscriber",
  },
  "inscriber-key-file": {
    kind: "string",
    env: "RELAYER_INSCRIBER_KEY_FILE",
    default: "",
    description: "file with the project's key, mode 0600 (else RELAYER_INSCRIBER_KEY)",
  },
  "wallet-key-file": {
    kind: "string",
    env: "RELAYER_WALLET_KEY_FILE",
    default: "",
    description: `file with the relayer's hot wallet WIF, mode 0600 (else ${RELAYER_WALLET_KEY_ENV})`,
  },
  "wallet-db": {
    kind: "string",
    env: "RELAYER_WALLET_DB",
    default: "data/relayer/wallet.sqlite",
    description: "the relayer's hot wallet database (never the inscriber's)",
  },
  "index-db": {
    kind: "string",
    env: "RELAYER_INDEX_DB",
    required: true,
    alias: "index-database",
    description:
      "the index: the wallet's coins and confirmations (a SQLite file or a postgres:// URL; opened read-only)",
  },
  ...rpcOptions("RELAYER", { purpose: "broadcasts; -txindex for the wallet's dropped-transaction checks" }),
  network: { kind: "string", env: "RELAYER_NETWORK", default: "regtest", description: "mainnet, testnet or regtest" },
  "fee-rate": {
    kind: "integer",
    env: "RELAYER_FEE_RATE",
    default: 1_000_000,
    min: 100_000,
    max: 100_000_000,
    description: "the wallet's fee rate in koinu per 1000 bytes",
  },
  "l2-key-file": {
    kind: "string",
    env: "RELAYER_L2_KEY_FILE",
    default: "",
    description: "file with the relayer's 0x-hex L2 key, mode 0600 (else RELAYER_PRIVATE_KEY)",
  },
  "from-block": {
    kind: "integer",
    env: "RELAYER_FROM_BLOCK",
    min: 0,
    description:
      "first L2 block scanned on a new database (default: the job contracts' deploy block in the ABI index of --chain-id, else 0)",
  },
  "l2-confirmations": {
    kind: "integer",
    env: "RELAYER_L2_CONFIRMATIONS",
    default: 0,
    min: 0,
    max: 1000,
    description: "blocks the scan stays behind the L2 head",
  },
  "reorg-depth": {
    kind: "integer",
    env: "RELAYER_REORG_DEPTH",
    default: 12,
    min: 1,
    max: 10_000,
    description: "L2 blocks scanned again after a reorg",
  },
  "poll-ms": {
    kind: "integer",
    env: "RELAYER_POLL_MS",
    default: 2000,
    min: 50,
    max: 600_000,
    description: "time between passes",
  },
  "retry-max-ms": {
    kind: "integer",
    env: "RELAYER_RETRY_MAX_MS",
    default: 60_000,
    min: 1000,
    max: 3_600_000,
    description: "longest back-off between attempts of one job",
  },
  "start-margin": {
    kind: "integer",
    env: "RELAYER_START_MARGIN",
    default: 1800,
    min: 0,
    max: 86_400,
    description: "seconds before its deadline after which a job is no longer started",
  },
  host: { kind: "string", env: "RELAYER_HOST", default: "127.0.0.1", description: "listen address" },
  port: {
    kind: "integer",
    env: "RELAYER_PORT",
    default: 3030,
    min: 0,
    max: 65535,
    description: "listen port (GET /health, /metrics, /v1/status)",
  },
} as const;

/** The contracts the relayer uses, by flag; unset flags come from the ABI index (src/l2/abi-index.ts). */
const CONTRACTS = {
  "attestation-address": "DogeAttestation",
  "inscriber-address": "DogeInscriber",
  "anchor-address": "DogeAnchor",
} as const;

async function main(): Promise<void> {
  const config = loadDaemonConfig("relayer", SPEC, (values) => {
    checkRpcConfig(values);
    const network = getNetwork(values.network);
    const given = contractAddresses(values["chain-id"], values, CONTRACTS);
    for (const name of Object.keys(CONTRACTS) as (keyof typeof CONTRACTS)[]) {
      if (!isAddress(given[name])) throw new Error(`--${name} must be an L2 address, got "${given[name]}"`);
    }
    const attesters = values.attesters
      .split(",")
      .map((url) => url.trim())
      .filter(Boolean);
    if (attesters.length !== 3) throw new Error("--attesters must list exactly three URLs");
    for (const url of attesters) new URL(url);
    loadRelayerL2Key({ keyFile: values["l2-key-file"] || undefined, env: process.env });
    loadInscriberKey({ keyFile: values["inscriber-key-file"] || undefined, env: process.env });
    loadWalletKey({
      keyFile: values["wallet-key-file"] || undefined,
      env: process.env,
      network,
      envVar: RELAYER_WALLET_KEY_ENV,
    });
  });
  const logger = pino({ name: "relayer", level: process.env.LOG_LEVEL ?? "info" }, pino.destination(2));
  const network = getNetwork(config.network);
  const given = contractAddresses(config["chain-id"], config, CONTRACTS);
  const addresses = {
    attestation: given["attestation-address"],
    inscriber: given["inscriber-address"],
    anchor: given["anchor-address"],
  };
  const fromBlock =
    config["from-block"] ??
    (config["chain-id"] === undefined ? null : deployBlock(config["chain-id"], ["DogeInscriber", "DogeAnchor"])) ??
    0;

  // cacheTimeout -1: ethers would otherwise answer a repeated call (the nonce of the next
  // transaction, sent right after the last one) from a 250 ms cache, with a used nonce.
  const provider = new JsonRpcProvider(config["l2-rpc-url"], undefined, {
    staticNetwork: true,
    pollingInterval: 500,
    cacheTimeout: -1,
  });
  const stopped = stopSignal("relayer");
  if (config["chain-id"] === undefined)
    logger.warn(
      { event: "l2_chain_id_unchecked" },
      "no --chain-id: the L2's chain id is not checked before the relayer sends transactions",
    );
  // The L2's chain id (eth_chainId against --chain-id) and the job contracts' wiring are checked
  // before the relayer sends anything: a mismatch exits 2 with one line; an L2 that does not answer
  // yet is asked again, and the relayer's passes start once the checks pass.
  const l2Checked = runNodeChecks({
    daemon: "relayer",
    logger,
    signal: stopped,
    retryMs: 2_000,
    check: async () => {
      if (config["chain-id"] !== undefined)
        await checkL2ChainId(provider, config["l2-rpc-url"], config["chain-id"], "relayer");
      const problems = await checkJobContracts(provider, addresses);
      if (problems.length > 0) throw new NodeCheckError(`relayer: ${problems.join("; ")}`);
    },
  });

  const signer = loadRelayerL2Key({ keyFile: config["l2-key-file"] || undefined, env: process.env }).connect(
    provider,
  ) as Wallet;
  const inscriberKey = loadInscriberKey({ keyFile: config["inscriber-key-file"] || undefined, env: process.env });
  const walletKey = loadWalletKey({
    keyFile: config["wallet-key-file"] || undefined,
    env: process.env,
    network,
    envVar: RELAYER_WALLET_KEY_ENV,
  });
  const indexDb = await waitForIndex(config["index-db"], {
    signal: stopped,
    cacheMb: 16,
    log: (fields) => logger.info(fields),
  });
  const queries = new IndexQueries(indexDb);
  const rpc = createDogecoinRpcClient(config, { logger, signal: stopped });
  void runNodeChecks({
    daemon: "relayer",
    logger,
    signal: stopped,
    check: async () => {
      await checkNodeNetwork(rpc, config.network, "relayer");
      await checkTxindex(rpc, "relayer", "the hot wallet's dropped-transaction check", logger);
    },
  });
  const walletDb = openWalletDatabase(config["wallet-db"]);
  const wallet = new HotWallet({
    db: walletDb,
    key: walletKey,
    chain: indexNodeChain(queries, rpc),
    network,
    feeRateKoinuPerKb: BigInt(config["fee-rate"]),
    log: (event, fields) => logger.info({ event, ...fields }),
  });
  const db = openRelayerDatabase(config.db);
  const panel = new AttesterPanel({
    attesters: config.attesters.split(",").map((url) => url.trim().replace(/\/$/, "")),
    // Why an attester did not answer (its URL and the connection error) is only in the log.
    log: (event, fields) => logger.warn({ event, ...fields }),
  });

  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: "relayer_wallet_koinu",
    help: "The relayer's hot wallet balance",
    labelNames: ["kind"],
    registers: [registry],
    collect() {
      const balance = wallet.balance();
      this.set({ kind: "confirmed" }, Number(balance.confirmedKoinu));
      this.set({ kind: "unconfirmed" }, Number(balance.unconfirmedKoinu));
    },
  });
  const relayer = new Relayer({
    db,
    signer,
    addresses,
    panel,
    wallet,
    registry,
    inscriber: { url: config["inscriber-url"], project: config["inscriber-project"], key: inscriberKey },
    fromBlock,
    l2Confirmations: config["l2-confirmations"],
    reorgDepth: config["reorg-depth"],
    retryMaxMs: config["retry-max-ms"],
    startMarginSeconds: config["start-margin"],
    log: (level, event, fields) => logger[level]({ event, ...fields }),
  });

  process.stdout.write(`wallet  ${wallet.address}\n`);
  await wallet
    .sync()
    .catch((error) => logger.warn({ event: "wallet_initial_sync_failed", err: (error as Error).message }));
  const warn = (event: string, fields: Record<string, unknown>) => logger.warn({ event, ...fields });
  const walletSync = runEvery("wallet_sync", 10_000, () => wallet.sync(), { log: warn });
  // A failed pass is the scan's (the L2 unreachable, say); jobs record their own failures.
  let passes: Loop | null = null;
  void l2Checked.then((passed) => {
    if (passed && !stopped.aborted)
      passes = runEvery("relayer_pass", config["poll-ms"], () => relayer.runOnce(), { log: warn });
  });
  const server = await startRelayerServer({
    relayer,
    registry,
    host: config.host,
    port: config.port,
    maxScanAgeMs: Math.max(60_000, config["poll-ms"] * 10),
    health: async () => {
      const status = queries.status();
      const balance = wallet.balance();
      const infos = await panel.infos();
      const attestersUp = infos.filter((answer) => answer.ok).length;
      return {
        ok: attestersUp >= 2,
        wallet: {
          address: wallet.address,
          confirmed_koinu: balance.confirmedKoinu.toString(),
          spendable_utxos: balance.spendableUtxos,
        },
        index: { indexed_height: status.indexedHeight, node_height: status.nodeHeight },
        attesters_up: attestersUp,
      };
    },
  });
  logger.info({ event: "ready", url: server.url, wallet: wallet.address, signer: signer.address });
  process.stdout.write(`relayer  ${server.url}\n`);

  stopOnSignals(logger, async () => {
    await server.close();
    await Promise.all([passes?.stop(), walletSync.stop()]);
    await relayer.stop();
    db.close();
    walletDb.close();
    indexDb.close();
  });
}

runDaemon("relayer", main);
