/**
 * The embedded default (`npm start`): runs the whole system on this machine with no outside
 * service and prints one line per surface, `name  URL`. Each part is its own process (the same
 * entry points operators run); Ctrl-C or SIGTERM stops them all cleanly.
 *
 * Today: the devnet base chain, the explorer's indexer and the explorer API, the inscriber with a
 * funded development hot wallet, the L2 (a Hardhat node) and the contract deployment, three
 * attesters each over its own indexer, the attest API (with paid-request fulfilment), and the
 * relayer for inscriber and anchor jobs, the launchpad API with its pages (window.wallet is a
 * development wallet over a funded devnet key), and the AMM with a demo pool.
 */
import { ChildProcess, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { HDNodeWallet } from "ethers";
import { DogecoinRpcClient } from "../src/chain/dogecoin-rpc";
import { NETWORKS } from "../src/doge";
import { BondingApiKeys, openAmmDatabase } from "../src/services/amm";
import { addProject } from "../src/services/inscriber/projects";
import { generateWalletKeyFile, loadWalletKey } from "../src/wallet/keys";

const ROOT = path.resolve(__dirname, "..");
const DATA_DIR = process.env.DOGEOS_DATA_DIR ?? path.join(ROOT, "data");

interface ServiceSpec {
  name: string;
  /** A TypeScript entry point run with tsx, or a plain argv for node (`argv`). */
  entry?: string;
  argv?: string[];
  /** Arguments, or a function computing them when the service starts (after the steps before it). */
  args: string[] | (() => string[]);
  /** Line on stdout that carries the service's URL once it is ready. */
  ready: RegExp;
  /** Runs before the service starts; returns lines to print under its URL. */
  prepare?: () => Promise<string[]>;
}

const HARDHAT_CLI = require.resolve("hardhat/internal/cli/cli.js");
const DEVNET_RPC = `http://devnet:devnet@127.0.0.1:${process.env.DEVNET_PORT ?? "18332"}`;
const INSCRIBER_DIR = path.join(DATA_DIR, "inscriber");
const INSCRIBER_KEY_FILE = path.join(INSCRIBER_DIR, "wallet.wif");
const INSCRIBER_PROJECTS = path.join(INSCRIBER_DIR, "projects.json");
/** Development only: the projects' keys in clear, so that a person can curl the inscriber. */
const INSCRIBER_DEV_KEYS = path.join(INSCRIBER_DIR, "dev-project-keys.json");
/** DOGE the devnet faucet gives the development hot wallet at each start. */
const INSCRIBER_FUNDING_DOGE = 2_000;

/**
 * The development hot wallet and projects: a key file made once (mode 0600, under data/, never in
 * the repository), project keys for "launchpad" and "demo" made once, and DOGE from the devnet
 * faucet at every start.
 */
async function prepareInscriber(): Promise<string[]> {
  const key = fs.existsSync(INSCRIBER_KEY_FILE)
    ? loadWalletKey({ keyFile: INSCRIBER_KEY_FILE, network: NETWORKS.regtest })
    : generateWalletKeyFile(INSCRIBER_KEY_FILE, NETWORKS.regtest);
  let keys: Record<string, string> = fs.existsSync(INSCRIBER_DEV_KEYS) ? JSON.parse(fs.readFileSync(INSCRIBER_DEV_KEYS, "utf8")) : {};
  if (!fs.existsSync(INSCRIBER_PROJECTS) || !keys.launchpad || !keys.demo || !keys.relayer) {
    keys = { launchpad: addProject(INSCRIBER_PROJECTS, "launchpad"), demo: addProject(INSCRIBER_PROJECTS, "demo"), relayer: addProject(INSCRIBER_PROJECTS, "relayer") };
    fs.writeFileSync(INSCRIBER_DEV_KEYS, JSON.stringify(keys, null, 2) + "\n", { mode: 0o600 });
  }
  if (!keys.amm) {
    // Added after the first three: a data directory made before the AMM gains it on its next start.
    keys.amm = addProject(INSCRIBER_PROJECTS, "amm");
    fs.writeFileSync(INSCRIBER_DEV_KEYS, JSON.stringify(keys, null, 2) + "\n", { mode: 0o600 });
  }
  fs.mkdirSync(AMM_DIR, { recursive: true, mode: 0o700 });
  fs.writeFileSync(AMM_INSCRIBER_KEY_FILE, `${keys.amm}\n`, { mode: 0o600 });
  // The relayer and the launchpad read their project keys from their own 0600 files.
  fs.mkdirSync(RELAYER_DIR, { recursive: true, mode: 0o700 });
  fs.writeFileSync(RELAYER_INSCRIBER_KEY_FILE, `${keys.relayer}\n`, { mode: 0o600 });
  fs.mkdirSync(LAUNCHPAD_DIR, { recursive: true, mode: 0o700 });
  fs.writeFileSync(LAUNCHPAD_INSCRIBER_KEY_FILE, `${keys.launchpad}\n`, { mode: 0o600 });
  await new DogecoinRpcClient({ url: DEVNET_RPC }).call("devnet_faucet", [key.address, INSCRIBER_FUNDING_DOGE, true]);
  return [`hot wallet ${key.address} (funded with ${INSCRIBER_FUNDING_DOGE} DOGE)`, ...Object.entries(keys).map(([name, value]) => `project ${name} key: ${value}`)];
}
const L2_PORT = process.env.L2_PORT ?? "8545";

const SERVICES: ServiceSpec[] = [
  {
    name: "devnet",
    entry: "daemons/devnet/main.ts",
    args: ["--datadir", path.join(DATA_DIR, "devnet"), "--port", process.env.DEVNET_PORT ?? "18332", "--automine", process.env.DEVNET_AUTOMINE_SECONDS ?? "5",
      // An empty block at least every 15 s, so that what the system does becomes 6 deep (and
      // attestable) within a couple of minutes even when nothing else happens.
      "--emptyblocks", process.env.DEVNET_EMPTY_BLOCK_SECONDS ?? "15"],
    ready: /^devnet {2}(\S+)$/m,
  },
  {
    name: "indexer",
    entry: "daemons/indexer/main.ts",
    args: ["--rpc-url", `http://devnet:devnet@127.0.0.1:${process.env.DEVNET_PORT ?? "18332"}`, "--db", path.join(DATA_DIR, "indexer", "explorer.sqlite"),
      "--network", "regtest", "--name", "indexer", "--ops-port", process.env.INDEXER_OPS_PORT ?? "3021",
      // The devnet's index can always be rebuilt from the devnet: do so after a schema change.
      "--reset-on-rebuild"],
    ready: /^indexer {2}(\S+)$/m,
  },
  {
    name: "explorer",
    entry: "daemons/api/main.ts",
    args: ["--db", path.join(DATA_DIR, "indexer", "explorer.sqlite"), "--pqc-db", path.join(DATA_DIR, "explorer", "pqc.sqlite"), "--rpc-url", `http://devnet:devnet@127.0.0.1:${process.env.DEVNET_PORT ?? "18332"}`,
      "--network", "regtest", "--port", process.env.EXPLORER_PORT ?? "3001"],
    ready: /^explorer {2}(\S+)$/m,
  },
  {
    name: "inscriber",
    entry: "daemons/inscriber/main.ts",
    args: ["--index-db", path.join(DATA_DIR, "indexer", "explorer.sqlite"), "--rpc-url", DEVNET_RPC, "--network", "regtest",
      "--db", path.join(INSCRIBER_DIR, "inscriber.sqlite"), "--wallet-db", path.join(INSCRIBER_DIR, "wallet.sqlite"),
      "--wallet-key-file", INSCRIBER_KEY_FILE, "--projects-file", INSCRIBER_PROJECTS, "--port", process.env.INSCRIBER_PORT ?? "3005",
      "--min-utxos", "20", "--utxo-koinu", "5000000000"],
    ready: /^inscriber {2}(\S+)$/m,
    prepare: prepareInscriber,
  },
  {
    name: "l2",
    argv: [HARDHAT_CLI, "node", "--hostname", "127.0.0.1", "--port", L2_PORT],
    args: [],
    ready: /Started HTTP and WebSocket JSON-RPC server at (\S+)/,
  },
];

/** One-shot steps; their stdout is shown as it is and kept for the services after them. */
interface StepSpec {
  name: string;
  argv: string[];
}

const deployOutput: { text: string } = { text: "" };

/** The L2 address the deploy step printed for `contract`. */
function deployed(contract: string): string {
  const match = new RegExp(`^${contract}\\s+(0x[0-9a-fA-F]{40})$`, "m").exec(deployOutput.text);
  if (!match) throw new Error(`the deploy step printed no address for ${contract}`);
  return match[1];
}

/**
 * Hardhat's default accounts (mnemonic "test test ... junk", public knowledge): deploy/deploy.ts makes
 * accounts 1-3 the attesters on the local chain, and account 4 pays the relayer's transactions.
 * Their keys go to 0600 files under data/ so the daemons load them as they would real keys.
 */
const HARDHAT_MNEMONIC = "test test test test test test test test test test test junk";
function localKeyFile(name: string, account: number): string {
  const file = path.join(DATA_DIR, "keys", `${name}.key`);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const wallet = HDNodeWallet.fromPhrase(HARDHAT_MNEMONIC, undefined, `m/44'/60'/0'/0/${account}`);
    fs.writeFileSync(file, `${wallet.privateKey}\n`, { mode: 0o600 });
  }
  return file;
}

const LAUNCHPAD_DIR = path.join(DATA_DIR, "launchpad");
const LAUNCHPAD_INSCRIBER_KEY_FILE = path.join(LAUNCHPAD_DIR, "inscriber-project.key");
const LAUNCHPAD_WALLET_KEY_FILE = path.join(LAUNCHPAD_DIR, "wallet.wif");
/** The operator key free listings need (the demo's free collection). */
const LAUNCHPAD_OPERATOR_KEY_FILE = path.join(LAUNCHPAD_DIR, "operator.key");
/** The development wallet the pages get as window.wallet (DESIGN.md 7): a devnet key of the person at the browser. */
const LAUNCHPAD_DEV_WALLET_KEY_FILE = path.join(LAUNCHPAD_DIR, "dev-wallet.wif");
const LAUNCHPAD_PORT = process.env.LAUNCHPAD_PORT ?? "3002";

/** A key made once in `file` (0600), or the one already there. */
const walletKeyIn = (file: string) => (fs.existsSync(file) ? loadWalletKey({ keyFile: file, network: NETWORKS.regtest }) : generateWalletKeyFile(file, NETWORKS.regtest));

/**
 * The demo collections' creator key, the operator key of free listings, and the pages' development
 * wallet, made once; the development wallet is funded at each start with five 100-DOGE outputs so
 * that several mints can be paid one after the other.
 */
async function prepareLaunchpad(): Promise<string[]> {
  const key = walletKeyIn(LAUNCHPAD_WALLET_KEY_FILE);
  if (!fs.existsSync(LAUNCHPAD_OPERATOR_KEY_FILE)) fs.writeFileSync(LAUNCHPAD_OPERATOR_KEY_FILE, `lk_${crypto.randomBytes(24).toString("hex")}\n`, { mode: 0o600 });
  const devWallet = walletKeyIn(LAUNCHPAD_DEV_WALLET_KEY_FILE);
  const rpc = new DogecoinRpcClient({ url: DEVNET_RPC });
  for (let i = 0; i < 4; i++) await rpc.call("devnet_faucet", [devWallet.address, 100, false]);
  await rpc.call("devnet_faucet", [devWallet.address, 100, true]);
  return [
    `pages  http://127.0.0.1:${LAUNCHPAD_PORT}/ (window.wallet is the development wallet ${devWallet.address})`,
    `demo creator ${key.address} (payments for demo-pups, 1 DOGE, go there); demo-free listed with the operator key`,
  ];
}

const LAUNCHPAD: ServiceSpec = {
  name: "launchpad",
  entry: "daemons/launchpad/main.ts",
  args: ["--db", path.join(LAUNCHPAD_DIR, "launchpad.sqlite"), "--index-db", path.join(DATA_DIR, "indexer", "explorer.sqlite"), "--rpc-url", DEVNET_RPC,
    "--inscriber-url", `http://127.0.0.1:${process.env.INSCRIBER_PORT ?? "3005"}`, "--inscriber-key-file", LAUNCHPAD_INSCRIBER_KEY_FILE,
    "--wallet-key-file", LAUNCHPAD_WALLET_KEY_FILE, "--operator-key-file", LAUNCHPAD_OPERATOR_KEY_FILE, "--network", "regtest",
    "--port", LAUNCHPAD_PORT, "--demo", "--web-dir", path.join(ROOT, "web"), "--dev-wallet-key-file", LAUNCHPAD_DEV_WALLET_KEY_FILE,
    "--explorer-url", `http://127.0.0.1:${process.env.EXPLORER_PORT ?? "3001"}`],
  ready: /^launchpad {2}(\S+)$/m,
  prepare: prepareLaunchpad,
};

const RELAYER_DIR = path.join(DATA_DIR, "relayer");
const RELAYER_INSCRIBER_KEY_FILE = path.join(RELAYER_DIR, "inscriber-project.key");
const RELAYER_WALLET_KEY_FILE = path.join(RELAYER_DIR, "wallet.wif");
/** DOGE the devnet faucet gives the relayer's hot wallet (OP_RETURN anchors) at each start. */
const RELAYER_FUNDING_DOGE = 500;

/** The relayer's own hot wallet (never the inscriber's), made once and funded at each start. */
async function prepareRelayer(): Promise<string[]> {
  const key = fs.existsSync(RELAYER_WALLET_KEY_FILE)
    ? loadWalletKey({ keyFile: RELAYER_WALLET_KEY_FILE, network: NETWORKS.regtest })
    : generateWalletKeyFile(RELAYER_WALLET_KEY_FILE, NETWORKS.regtest);
  await new DogecoinRpcClient({ url: DEVNET_RPC }).call("devnet_faucet", [key.address, RELAYER_FUNDING_DOGE, true]);
  return [`anchor wallet ${key.address} (funded with ${RELAYER_FUNDING_DOGE} DOGE); L2 key: Hardhat account 6`];
}

const ATTESTERS = [1, 2, 3].map((n) => ({ n, port: String(3010 + n), opsPort: String(3021 + n) }));

/** The attesters: each reads its own indexer's database (three indexers of the devnet). */
const ATTESTER_STAGES: ServiceSpec[] = ATTESTERS.flatMap(({ n, port, opsPort }) => [
  {
    name: `indexer-${n}`,
    entry: "daemons/indexer/main.ts",
    args: ["--rpc-url", DEVNET_RPC, "--db", path.join(DATA_DIR, `attester-${n}`, "index.sqlite"), "--network", "regtest", "--name", `indexer-${n}`,
      "--ops-port", opsPort, "--reset-on-rebuild"],
    ready: new RegExp(`^indexer-${n} {2}(\\S+)$`, "m"),
  },
  {
    name: `attester-${n}`,
    entry: "daemons/attester/main.ts",
    args: () => ["--index-db", path.join(DATA_DIR, `attester-${n}`, "index.sqlite"), "--rpc-url", DEVNET_RPC, "--l2-rpc-url", `http://127.0.0.1:${L2_PORT}`,
      "--attestation-address", deployed("DogeAttestation"), "--chain-id", "31337", "--key-file", localKeyFile(`attester-${n}`, n),
      "--network", "regtest", "--port", port, "--name", `attester-${n}`],
    ready: new RegExp(`^attester-${n} {2}(\\S+)$`, "m"),
  },
]);

const ATTEST: ServiceSpec = {
  name: "attest",
  entry: "daemons/attest/main.ts",
  args: () => ["--attesters", ATTESTERS.map(({ port }) => `http://127.0.0.1:${port}`).join(","), "--index-db", path.join(DATA_DIR, "indexer", "explorer.sqlite"),
    "--l2-rpc-url", `http://127.0.0.1:${L2_PORT}`, "--attestation-address", deployed("DogeAttestation"), "--relayer-key-file", localKeyFile("relayer", 4),
    "--network", "regtest", "--port", process.env.ATTEST_PORT ?? "3004"],
  ready: /^attest {2}(\S+)$/m,
};

/** Inscriber and anchor jobs paid on the L2: done on the base chain, settled on 2-of-3 receipts. */
const RELAYER: ServiceSpec = {
  name: "relayer",
  entry: "daemons/relayer/main.ts",
  args: () => ["--db", path.join(RELAYER_DIR, "relayer.sqlite"), "--l2-rpc-url", `http://127.0.0.1:${L2_PORT}`, "--chain-id", "31337",
    "--attestation-address", deployed("DogeAttestation"), "--inscriber-address", deployed("DogeInscriber"), "--anchor-address", deployed("DogeAnchor"),
    "--attesters", ATTESTERS.map(({ port }) => `http://127.0.0.1:${port}`).join(","),
    "--inscriber-url", `http://127.0.0.1:${process.env.INSCRIBER_PORT ?? "3005"}`, "--inscriber-project", "relayer", "--inscriber-key-file", RELAYER_INSCRIBER_KEY_FILE,
    "--wallet-key-file", RELAYER_WALLET_KEY_FILE, "--wallet-db", path.join(RELAYER_DIR, "wallet.sqlite"),
    "--index-db", path.join(DATA_DIR, "indexer", "explorer.sqlite"), "--rpc-url", DEVNET_RPC, "--network", "regtest",
    // Hardhat account 6: the attest API's fulfilment key is account 4 and each keeps its own nonces.
    "--l2-key-file", localKeyFile("relayer-jobs", 6), "--port", process.env.RELAYER_PORT ?? "3030"],
  ready: /^relayer {2}(\S+)$/m,
  prepare: prepareRelayer,
};

const AMM_DIR = path.join(DATA_DIR, "amm");
const AMM_INSCRIBER_KEY_FILE = path.join(AMM_DIR, "inscriber-project.key");
const AMM_WALLET_KEY_FILE = path.join(AMM_DIR, "custody.wif");
const AMM_BONDING_KEY_FILE = path.join(AMM_DIR, "bonding-operator.key");
const AMM_PORT = process.env.AMM_PORT ?? "3003";

/**
 * The AMM's custody wallet, made once and funded at each start: it holds the pools' DOGE and pays
 * the payouts' network fees, so it gets 20,000 DOGE (the demo pool takes 10,000).
 */
async function prepareAmm(): Promise<string[]> {
  const key = walletKeyIn(AMM_WALLET_KEY_FILE);
  // The inscriber's hot wallet is the operator's too: its transactions (the postage of the payouts'
  // transfer inscriptions, sent to the custody) are never deposits, and no order may name it.
  process.env.AMM_SERVICE_ADDRESSES = loadWalletKey({ keyFile: INSCRIBER_KEY_FILE, network: NETWORKS.regtest }).address;
  const rpc = new DogecoinRpcClient({ url: DEVNET_RPC });
  for (let i = 0; i < 3; i++) await rpc.call("devnet_faucet", [key.address, 5_000, false]);
  await rpc.call("devnet_faucet", [key.address, 5_000, true]);
  // The operator key of bonding launches: issued once into the AMM's database (only its hash is
  // kept there) and kept in clear in a 0600 file for the person at this machine.
  if (!fs.existsSync(AMM_BONDING_KEY_FILE)) {
    const db = openAmmDatabase(path.join(AMM_DIR, "amm.sqlite"));
    const { key: operatorKey } = new BondingApiKeys(db).issue("npm start operator");
    db.close();
    fs.writeFileSync(AMM_BONDING_KEY_FILE, `${operatorKey}\n`, { mode: 0o600 });
  }
  return [
    `custody wallet ${key.address} (funded with 20,000 DOGE); demo pool WOOF/DOGE: the tick is deployed, minted and seeded within about a minute of the first start`,
    `bonding launches' operator key: ${fs.readFileSync(AMM_BONDING_KEY_FILE, "utf8").trim()}; demo bonding coin MOON (graduates at 2,000 DOGE)`,
  ];
}

const AMM: ServiceSpec = {
  name: "amm",
  entry: "daemons/amm/main.ts",
  args: ["--db", path.join(AMM_DIR, "amm.sqlite"), "--index-db", path.join(DATA_DIR, "indexer", "explorer.sqlite"), "--rpc-url", DEVNET_RPC,
    "--inscriber-url", `http://127.0.0.1:${process.env.INSCRIBER_PORT ?? "3005"}`, "--inscriber-key-file", AMM_INSCRIBER_KEY_FILE,
    "--wallet-key-file", AMM_WALLET_KEY_FILE, "--wallet-db", path.join(AMM_DIR, "wallet.sqlite"), "--network", "regtest", "--port", AMM_PORT, "--demo"],
  ready: /^amm {2}(\S+)$/m,
  prepare: prepareAmm,
};

/** Start order: services, and the deploy step once the L2 is up. */
const STAGES: ({ service: ServiceSpec } | { step: StepSpec })[] = [
  ...SERVICES.map((service) => ({ service })),
  { step: { name: "deploy", argv: [HARDHAT_CLI, "run", "deploy/deploy.ts", "--network", "localhost"] } },
  ...ATTESTER_STAGES.map((service) => ({ service })),
  { service: ATTEST },
  { service: RELAYER },
  { service: LAUNCHPAD },
  { service: AMM },
];

const running: { spec: ServiceSpec; child: ChildProcess }[] = [];
let stopping = false;

function startService(spec: ServiceSpec): Promise<string> {
  process.stderr.write(`starting ${spec.name}...\n`);
  const argv = spec.argv ?? ["--import", "tsx", path.join(ROOT, spec.entry!)];
  const args = typeof spec.args === "function" ? spec.args() : spec.args;
  const child = spawn(process.execPath, [...argv, ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push({ spec, child });
  child.stderr!.on("data", (chunk: Buffer) => process.stderr.write(chunk));
  return new Promise((resolve, reject) => {
    let buffer = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      const match = spec.ready.exec(buffer);
      if (match) {
        buffer = "";
        resolve(match[1]);
      }
    });
    child.once("exit", (code, signal) => {
      if (!stopping) {
        process.stderr.write(`${spec.name} exited (${signal ?? code}); stopping everything\n`);
        reject(new Error(`${spec.name} exited`));
        void stopAll(1);
      }
    });
  });
}

async function stopAll(exitCode: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stderr.write("stopping...\n");
  for (const { child } of [...running].reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => { child.kill("SIGKILL"); }, 10_000);
      child.once("exit", () => { clearTimeout(timer); resolve(); });
      child.kill("SIGTERM");
    });
  }
  process.exit(exitCode);
}

function runStep(argv: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, L2_RPC_URL: `http://127.0.0.1:${L2_PORT}` } });
    let stdout = "";
    child.stdout!.on("data", (chunk: Buffer) => { stdout += chunk; });
    child.stderr!.on("data", (chunk: Buffer) => process.stderr.write(chunk));
    child.once("exit", (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${argv.slice(1, 3).join(" ")} exited with ${code}`))));
  });
}

async function main(): Promise<void> {
  process.on("SIGINT", () => void stopAll(0));
  process.on("SIGTERM", () => void stopAll(0));
  for (const stage of STAGES) {
    if ("step" in stage) {
      process.stderr.write(`running ${stage.step.name}...\n`);
      const output = await runStep(stage.step.argv);
      if (stage.step.name === "deploy") deployOutput.text = output;
      for (const line of output.trim().split("\n")) process.stdout.write(`  ${line}\n`);
      continue;
    }
    const spec = stage.service;
    const notes = spec.prepare ? await spec.prepare() : [];
    const url = await startService(spec);
    process.stdout.write(`${spec.name.padEnd(10)}  ${url}\n`);
    for (const note of notes) process.stdout.write(`  ${note}\n`);
  }
  process.stderr.write("all services running; Ctrl-C stops them\n");
}

main().catch((error) => {
  process.stderr.write(`start: ${(error as Error).message}\n`);
  void stopAll(1);
});
