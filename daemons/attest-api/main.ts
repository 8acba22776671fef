/**
 * The attest HTTP API daemon: base-chain facts signed by two of the three attesters, the OP_RETURN
 * and OP_CHECKZKP data of a transaction from the index, and paid-request fulfilment (the relayer's
 * fact role: it holds a funded L2 key and calls `fulfill`).
 *
 *   node --import tsx daemons/attest-api/main.ts --attesters http://127.0.0.1:3011,http://127.0.0.1:3012,http://127.0.0.1:3013 \
 *        --index-db data/indexer/explorer.sqlite --l2-rpc-url http://127.0.0.1:8545 --attestation-address 0x... \
 *        [--relayer-key-file data/relayer/l2.key] [--port 3004]
 *
 * Prints `attest  <url>/api/attest` once listening. With --chain-id and a relayer key, the L2's
 * eth_chainId is checked before any fulfilment is signed (a mismatch exits 2 with one line; while
 * the L2 does not answer, POST /fulfill answers 503). Stops within 5 s of SIGTERM.
 */
import { contractAddresses } from "../../src/l2/abi-index";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import pino from "pino";
import { Contract, JsonRpcProvider, NonceManager, Wallet, isAddress } from "ethers";
import { Registry, collectDefaultMetrics } from "prom-client";
import { runDaemon, stopOnSignals } from "../../src/config/daemon";
import { checkL2ChainId, runNodeChecks } from "../../src/chain/network-check";
import { stopSignal } from "../../src/services/ops/stopping";
import { AppError } from "../../src/services/http/errors";
import { loadDaemonConfig } from "../../src/config/load";
import { mountOpsRoutes } from "../../src/services/ops/server";
import { RELAYER_L2_KEY_ENV, loadRelayerL2Key } from "../../src/relayer/keys";
import { getNetwork } from "../../src/doge";
import { waitForIndex } from "../../src/indexer/wait-for-index";
import { INDEX_PROFILES } from "../../src/indexer/profile";
import { IndexQueries } from "../../src/indexer/queries";
import { FactRequestFulfiller } from "../../src/relayer/fact-requests";
import { ATTEST_WRITES_PER_MINUTE, createAttestApp } from "../../src/services/attest-api/app";
import { rateLimitOption, trustProxies, trustProxyOption } from "../../src/services/http/rate-limit";
import { AttesterPanel } from "../../src/services/attest-api/panel";

const ROOT = path.resolve(__dirname, "..", "..");

const SPEC = {
  attesters: {
    kind: "string",
    env: "ATTEST_ATTESTERS",
    required: true,
    description: "the three attesters' signing API URLs, comma separated",
  },
  "index-db": {
    kind: "string",
    env: "ATTEST_INDEX_DB",
    required: true,
    alias: "index-database",
    description: "the index: OP_RETURN and OP_CHECKZKP facts (a SQLite file or a postgres:// URL; opened read-only)",
  },
  "l2-rpc-url": { kind: "url", env: "ATTEST_L2_RPC_URL", required: true, description: "the L2's JSON-RPC URL" },
  "attestation-address": {
    kind: "string",
    env: "ATTEST_ATTESTATION_ADDRESS",
    description: "the DogeAttestation contract (default: the ABI index of --chain-id)",
  },
  "relayer-key-file": {
    kind: "string",
    env: "ATTEST_RELAYER_KEY_FILE",
    default: "",
    description: "file with the relayer's 0x-hex L2 key (mode 0600; else RELAYER_PRIVATE_KEY; none: no fulfilment)",
  },
  "chain-id": {
    kind: "integer",
    env: "ATTEST_CHAIN_ID",
    min: 1,
    description: "the L2's chain id, checked before fulfilments are signed (DogeOS testnet: 6281971)",
  },
  network: { kind: "string", env: "ATTEST_NETWORK", default: "regtest", description: "mainnet, testnet or regtest" },
  "min-confirmations": {
    kind: "integer",
    env: "ATTEST_MIN_CONFIRMATIONS",
    default: 6,
    min: 6,
    max: 1000,
    description: "confirmations facts count from (reported in GET /api/attest)",
  },
  host: { kind: "string", env: "ATTEST_HOST", default: "127.0.0.1", description: "listen address" },
  port: { kind: "integer", env: "ATTEST_PORT", default: 3004, min: 0, max: 65535, description: "listen port" },
  "rate-limit": rateLimitOption("ATTEST_RATE_LIMIT", ATTEST_WRITES_PER_MINUTE),
  "trust-proxy": trustProxyOption("ATTEST_TRUST_PROXY"),
} as const;

/** The relayer's L2 key (src/relayer/keys.ts), or null when neither its file nor RELAYER_PRIVATE_KEY is given. */
function relayerKey(file: string): string | null {
  if (!file && !process.env[RELAYER_L2_KEY_ENV]) return null;
  return loadRelayerL2Key({ keyFile: file || undefined, env: process.env }).privateKey;
}

/** The contract by flag; unset, it comes from the ABI index of --chain-id (src/l2/abi-index.ts). */
const CONTRACTS = { "attestation-address": "DogeAttestation" } as const;

async function main(): Promise<void> {
  const config = loadDaemonConfig("attest", SPEC, (values) => {
    getNetwork(values.network);
    if (!isAddress(contractAddresses(values["chain-id"], values, CONTRACTS)["attestation-address"]))
      throw new Error("attestation-address is not an address");
    if (values.attesters.split(",").length !== 3) throw new Error("attesters must list exactly three URLs");
  });
  const { "attestation-address": attestationAddress } = contractAddresses(config["chain-id"], config, CONTRACTS);
  const logger = pino({ name: "attest", level: process.env.LOG_LEVEL ?? "info" }, pino.destination(2));
  const network = getNetwork(config.network);
  const panel = new AttesterPanel({
    attesters: config.attesters.split(",").map((url) => url.trim().replace(/\/$/, "")),
    log: (event, fields) => logger.warn({ event, ...fields }),
  });
  const key = relayerKey(config["relayer-key-file"]);
  const stopped = stopSignal("attest");
  const db = await waitForIndex(config["index-db"], {
    signal: stopped,
    cacheMb: 16,
    // Facts, OP_RETURN and OP_CHECKZKP rows: nothing an attester-profile index deletes (src/indexer/profile.ts).
    profiles: INDEX_PROFILES,
    log: (fields) => logger.info(fields),
  });
  const queries = new IndexQueries(db);
  let fulfiller: FactRequestFulfiller | null = null;
  let chainChecked = config["chain-id"] === undefined;
  if (key) {
    const provider = new JsonRpcProvider(config["l2-rpc-url"], undefined, {
      staticNetwork: true,
      pollingInterval: 250,
      cacheTimeout: -1,
    });
    if (chainChecked)
      logger.warn(
        { event: "l2_chain_id_unchecked" },
        "no --chain-id: the L2's chain id is not checked before fulfilments are signed",
      );
    else {
      void runNodeChecks({
        daemon: "attest",
        logger,
        signal: stopped,
        retryMs: 2_000,
        check: async () => {
          await checkL2ChainId(provider, config["l2-rpc-url"], config["chain-id"]!, "attest");
        },
      }).then((passed) => {
        chainChecked = passed;
      });
    }
    const signer = new NonceManager(new Wallet(key, provider));
    const abi = JSON.parse(fs.readFileSync(path.join(ROOT, "shared", "abi", "DogeAttestation.json"), "utf8"));
    fulfiller = new FactRequestFulfiller({
      attestation: new Contract(attestationAddress, abi, signer),
      panel,
      log: (event, fields) => logger.info({ event, ...fields }),
    });
  }
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const app = createAttestApp({
    panel,
    queries,
    network,
    minConfirmations: config["min-confirmations"],
    fulfil: fulfiller
      ? async ({ requestId, params }) => {
          if (!chainChecked)
            throw new AppError(
              "unavailable",
              "L2_NOT_CHECKED",
              "the L2's chain id has not been checked yet (it does not answer)",
            );
          return fulfiller!.fulfil(requestId, params);
        }
      : undefined,
    rateLimitPerMinute: config["rate-limit"],
    log: (event, fields) => logger.error({ event, ...fields }),
    mount: (root, surface) =>
      mountOpsRoutes(root, {
        registry,
        surface,
        health: async () => {
          const up = (await panel.infos()).filter((answer) => answer.ok).length;
          return { ok: up >= 2, name: "attest", attesters_up: up, fulfilment: fulfiller !== null };
        },
      }),
  });
  trustProxies(app, config["trust-proxy"]);
  const server = http.createServer(app);
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : config.port;
    logger.info({ event: "ready", port, fulfilment: fulfiller !== null });
    process.stdout.write(`attest  http://${config.host}:${port}/api/attest\n`);
  });
  stopOnSignals(logger, async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    db.close();
  });
}

runDaemon("attest", main);
