/**
 * An attester: signs facts about the base chain and job receipts from its own indexer database
 * (written by its own indexer daemon following its own dogecoind), never from another attester's
 * data. Serves its internal signing API, GET /health and GET /metrics on its own port.
 *
 *   node --import tsx daemons/attester/main.ts --index-db data/attester-1/index.sqlite \
 *        --rpc-url http://user:pass@127.0.0.1:18332 --l2-rpc-url http://127.0.0.1:8545 \
 *        --attestation-address 0x... --chain-id 31337 --key-file /etc/dogeos/attester-1.key [--port 3011] [--name attester-1]
 *
 * The key is a 0x-hex EVM private key in a file of mode 0600, or ATTESTER_PRIVATE_KEY. At start
 * the contract's eip712Domain() must equal the configured chain id and address (a mismatch exits
 * with status 2; an L2 that does not answer yet only delays signing). Prints `<name>  <url>`
 * (`attester  <url>` by default) once listening. The domain check is the L2 chain id check: the
 * contract's eip712Domain() chainId is the chain's own (block.chainid), compared with --chain-id
 * before every signature. With --rpc-url it checks that the node is on --network (exit 2 with one
 * line if not). Stops within 5 s of SIGTERM.
 */
import { contractAddresses, deployBlock } from "../../src/l2/abi-index";
import http from "node:http";
import { JsonRpcProvider } from "ethers";
import pino from "pino";
import { Gauge, Registry, collectDefaultMetrics } from "prom-client";
import { checkNodeNetwork, runNodeChecks } from "../../src/chain/network-check";
import { stopSignal } from "../../src/services/ops/stopping";
import { runDaemon, stopOnSignals } from "../../src/config/daemon";
import { loadDaemonConfig } from "../../src/config/load";
import { checkRpcConfig, createDogecoinRpcClient, rpcOptions } from "../../src/config/rpc";
import { getNetwork } from "../../src/doge";
import { FactDomainMismatchError, assertAttestationDomain, attestationDomain } from "../../src/facts";
import { waitForIndex } from "../../src/indexer/wait-for-index";
import { INDEX_PROFILES } from "../../src/indexer/profile";
import { IndexHistory } from "../../src/indexer/read/as-of-height";
import {
  L2ReadError,
  MIN_CONFIRMATIONS,
  createAttesterApp,
  ethersAttesterL2,
  loadAttesterKey,
  signableHeight,
} from "../../src/attester";

const SPEC = {
  "index-db": {
    kind: "string",
    env: "ATTESTER_INDEX_DB",
    required: true,
    alias: "index-database",
    description: "this attester's own index (a SQLite file or a postgres:// URL; opened read-only)",
  },
  ...rpcOptions("ATTESTER", { purpose: "this attester's own dogecoind, for node_height", required: false }),
  "l2-rpc-url": { kind: "url", env: "ATTESTER_L2_RPC_URL", required: true, description: "the L2's JSON-RPC URL" },
  "attestation-address": {
    kind: "string",
    env: "ATTESTER_ATTESTATION_ADDRESS",
    description: "the DogeAttestation contract, the EIP-712 verifyingContract (default: the ABI index of --chain-id)",
  },
  "chain-id": {
    kind: "integer",
    env: "ATTESTER_CHAIN_ID",
    required: true,
    min: 1,
    description: "the L2's chain id (DogeOS testnet: 6281971)",
  },
  "key-file": {
    kind: "string",
    env: "ATTESTER_KEY_FILE",
    description: "file holding the attester's 0x-hex private key, mode 0600 (else ATTESTER_PRIVATE_KEY)",
  },
  "min-confirmations": {
    kind: "integer",
    env: "ATTESTER_MIN_CONFIRMATIONS",
    default: MIN_CONFIRMATIONS,
    min: MIN_CONFIRMATIONS,
    max: 1000,
    description: "confirmations a height needs before it is signed (never below 6)",
  },
  network: {
    kind: "string",
    env: "ATTESTER_NETWORK",
    default: "regtest",
    description: "mainnet, testnet or regtest (Dogecoin addresses in requests)",
  },
  "l2-cache-ms": {
    kind: "integer",
    env: "ATTESTER_L2_CACHE_MS",
    default: 2000,
    min: 0,
    max: 60_000,
    description: "how long a read of the contract's domain and attester set is reused (0: every request)",
  },
  "l2-from-block": {
    kind: "integer",
    env: "ATTESTER_L2_FROM_BLOCK",
    min: 0,
    description:
      "first L2 block searched for job request events (default: the job contracts' deploy block in the ABI index, else 0)",
  },
  host: { kind: "string", env: "ATTESTER_HOST", default: "127.0.0.1", description: "listen address" },
  port: { kind: "integer", env: "ATTESTER_PORT", default: 3011, min: 0, max: 65535, description: "listen port" },
  name: {
    kind: "string",
    env: "ATTESTER_NAME",
    default: "attester",
    description: "name in logs, /v1/info and the ready line",
  },
} as const;

/** The attester's contract by flag; unset, it comes from the ABI index (src/l2/abi-index.ts). */
const CONTRACTS = { "attestation-address": "DogeAttestation" } as const;

async function main(): Promise<void> {
  const config = loadDaemonConfig("attester", SPEC, (values) => {
    checkRpcConfig(values);
    getNetwork(values.network);
    const { "attestation-address": address } = contractAddresses(values["chain-id"], values, CONTRACTS);
    if (!/^0x[0-9a-fA-F]{40}$/.test(address))
      throw new Error(`--attestation-address must be an L2 address, got "${address}"`);
    loadAttesterKey({ keyFile: values["key-file"] || undefined, env: process.env });
  });
  const logger = pino({ name: config.name, level: process.env.LOG_LEVEL ?? "info" }, pino.destination(2));
  const { "attestation-address": attestationAddress } = contractAddresses(config["chain-id"], config, CONTRACTS);
  const fromBlock = config["l2-from-block"] ?? deployBlock(config["chain-id"], ["DogeInscriber", "DogeAnchor"]) ?? 0;
  const signer = loadAttesterKey({ keyFile: config["key-file"] || undefined, env: process.env });
  const domain = attestationDomain(config["chain-id"], attestationAddress);
  // The index is written by this attester's indexer daemon; this connection only reads it.
  const stopped = stopSignal(config.name);
  const db = await waitForIndex(config["index-db"], {
    signal: stopped,
    cacheMb: 32,
    // The facts read nothing an attester-profile index deletes (src/indexer/profile.ts).
    profiles: INDEX_PROFILES,
    log: (fields) => logger.info(fields),
  });
  const history = new IndexHistory(db);
  if (history.startHeight() !== 0) {
    process.stderr.write(
      `${config.name}: the index ${db.location} starts at height ${history.startHeight()}; an attester needs an index built from genesis\n`,
    );
    process.exit(2);
  }
  const provider = new JsonRpcProvider(config["l2-rpc-url"], undefined, { staticNetwork: true });
  const l2 = ethersAttesterL2(provider, attestationAddress, { fromBlock });
  try {
    assertAttestationDomain(await l2.eip712Domain(), domain);
  } catch (error) {
    if (error instanceof FactDomainMismatchError || (error instanceof L2ReadError && error.failure === "call")) {
      process.stderr.write(`${config.name}: refusing to start: ${(error as Error).message}\n`);
      process.exit(2);
    }
    logger.warn(
      { event: "l2_unreachable", err: (error as Error).message },
      "the L2 does not answer yet; signing waits for it",
    );
  }
  const node = config["rpc-url"]
    ? createDogecoinRpcClient(config, { logger, timeoutMs: 2_000, signal: stopped })
    : null;
  if (node)
    void runNodeChecks({
      daemon: config.name,
      logger,
      signal: stopped,
      check: async () => {
        await checkNodeNetwork(node, config.network, config.name);
      },
    });

  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: "attester_indexed_height",
    help: "Height of the last block in the attester's index",
    registers: [registry],
    collect() {
      this.set(history.tip()?.height ?? -1);
    },
  });
  new Gauge({
    name: "attester_signable_height",
    help: "Greatest height the attester signs facts at",
    registers: [registry],
    collect() {
      this.set(signableHeight(history.tip()?.height ?? -1, config["min-confirmations"]));
    },
  });

  const app = createAttesterApp({
    name: config.name,
    history,
    l2,
    signer,
    domain,
    network: getNetwork(config.network),
    minConfirmations: config["min-confirmations"],
    l2CacheMs: config["l2-cache-ms"],
    nodeHeight: node ? () => node.getBlockCount() : undefined,
    registry,
    log: (event, fields) =>
      event === "http_internal_error" ? logger.error({ event, ...fields }) : logger.info({ event, ...fields }),
  });
  const server = http.createServer(app);
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : config.port;
    logger.info({
      event: "ready",
      port,
      signer: signer.address,
      attestation: domain.verifyingContract,
      chain_id: Number(domain.chainId),
    });
    process.stdout.write(`${config.name}  http://${config.host}:${port}\n`);
  });
  stopOnSignals(logger, async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    provider.destroy();
    db.close();
  });
}

runDaemon("attester", main);
