/**
 * The embedded default (`npm start`): runs the whole system on this machine and prints one table of
 * its surfaces, `name  URL` with the keys under them, once everything is up. Each part is its own
 * process (the same entry points operators run) under the supervisor of src/ops/supervisor.ts:
 * each one's output goes to data/logs/<name>.log, a part that crashes after it was ready is
 * restarted with back-off while the others keep serving, and Ctrl-C or SIGTERM stops them all.
 *
 * Today: the devnet base chain (or, with `--node <rpc url>` or DOGECOIN_RPC_URL, an existing
 * dogecoind), the explorer's indexer and the explorer API, the inscriber with a funded development
 * hot wallet, the L2 (a Hardhat node) and the contract deployment, three attesters each over its
 * own indexer, the attest API (with paid-request fulfilment), and the relayer for inscriber and
 * anchor jobs, the launchpad API with its pages (window.wallet is a development wallet over a
 * funded key), and the AMM with a demo pool.
 *
 * Flags: `--verbose` streams every log line (pretty-printed with pino-pretty when stdout is a
 * terminal); `--node <url>` uses an existing node; `--port-offset N` (or DOGEOS_PORT_OFFSET) adds N
 * to every default port, so a second stack (a test's) can run beside the first. The per-service
 * port variables (DEVNET_PORT, EXPLORER_PORT, ...) still win over the offset.
 *
 * `--l2 <url> --l2-key-file <file>` runs against an existing EVM L2 (DogeOS, chain 6281971, or any
 * other) instead of the Hardhat node: the key file's account deploys the contract set there (or the
 * deployment the ABI index records for that chain id is used) and funds the relayer's and the
 * attest API's own keys; the attesters' keys are made here (they only sign EIP-712, no gas).
 */
import fs from "node:fs";
import crypto from "node:crypto";
import path from "node:path";
import { spawn } from "node:child_process";
import { parseArgs } from "node:util";
import { Contract, HDNodeWallet, JsonRpcProvider, Wallet } from "ethers";
import { prettyFactory } from "pino-pretty";
import { DogecoinRpcClient } from "../src/chain/dogecoin-rpc";
import { createDogecoinRpcClient } from "../src/config/rpc";
import { NETWORKS, NetworkName, coinbaseMaturity } from "../src/doge";
import { blockSubsidy } from "../src/devnet/params";
import { Supervisor, SupervisorEvent, WATCH_PARENT_PRELOAD } from "../src/ops/supervisor";
import { BondingApiKeys, openAmmDatabase } from "../src/services/amm";
import { addProject } from "../src/services/inscriber/projects";
import { generateWalletKeyFile, loadWalletKey } from "../src/wallet/keys";
import { evmPrivateKey, loadSecret } from "../src/config/secret-file";
import { LOCAL_CHAIN_ID, readChainDeployment } from "../src/l2/abi-index";
import { DOGEOS_TESTNET_CHAIN_ID, PUBLISHED_CONTRACTS } from "../deploy/contracts";

const USAGE = `usage: npm start [-- [--verbose] [--node <rpc url> [--node-cookie-file <file>]] [--l2 <rpc url> --l2-key-file <file>] [--port-offset N]]

  --verbose         stream every service's log lines (pretty when stdout is a terminal)
  --node <url>      run against an existing dogecoind instead of the devnet (env DOGECOIN_RPC_URL),
                    e.g. http://user:password@127.0.0.1:18332; regtest wallets are funded by mining
  --node-cookie-file <file>
                    dogecoind's .cookie instead of credentials in the URL (env DOGECOIN_RPC_COOKIE_FILE)
  --port-offset N   add N to every default port (env DOGEOS_PORT_OFFSET)
  --l2 <url> --l2-key-file <file>
                    run against an existing EVM L2 (e.g. DogeOS) instead of a local Hardhat node: the
                    key file (0600) is the deployer and admin and pays gas; the contract set is deployed
                    there, or the ABI index's deployment for that chain id is used
  --l2-fund-wei N   what the relayer's and the attest API's L2 keys get from the --l2-key-file account
                    when they hold less than half of it (default 1000000000000000000, 1 ETH)
  --l2-attester-key-files a,b,c
                    the three attesters' key files (0600) instead of keys made under the data dir; needed
                    when the recorded deployment's attesters are keys made elsewhere
  --help            this text
`;

const { values: FLAGS } = (() => {
  try {
    return parseArgs({
      options: {
        verbose: { type: "boolean", default: false },
        node: { type: "string" },
        "node-cookie-file": { type: "string" },
        "port-offset": { type: "string" },
        l2: { type: "string" },
        "l2-key-file": { type: "string" },
        "l2-fund-wei": { type: "string" },
        "l2-attester-key-files": { type: "string" },
        help: { type: "boolean", default: false },
      },
      strict: true,
    });
  } catch (error) {
    process.stderr.write(`start: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
})();
if (FLAGS.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
/** An existing EVM L2 to run against instead of the Hardhat node, and its deployer's key file. */
const L2_EXTERNAL_URL = FLAGS.l2;
const L2_KEY_FILE = FLAGS["l2-key-file"] ? path.resolve(FLAGS["l2-key-file"]) : undefined;
if (Boolean(L2_EXTERNAL_URL) !== Boolean(L2_KEY_FILE)) {
  process.stderr.write(
    "start: --l2 <url> and --l2-key-file <file> go together (the key pays the deployment and the funding on that L2)\n",
  );
  process.exit(2);
}
if (!L2_EXTERNAL_URL && (FLAGS["l2-fund-wei"] || FLAGS["l2-attester-key-files"])) {
  process.stderr.write("start: --l2-fund-wei and --l2-attester-key-files need --l2 <url> --l2-key-file <file>\n");
  process.exit(2);
}
const L2_FUND_WEI = ((): bigint => {
  try {
    const wei = BigInt(FLAGS["l2-fund-wei"] ?? "1000000000000000000");
    if (wei >= 0n) return wei;
  } catch {
    // refused below
  }
  process.stderr.write("start: --l2-fund-wei must be a whole number of wei\n");
  process.exit(2);
})();
const L2_ATTESTER_KEY_FILES = FLAGS["l2-attester-key-files"]?.split(",").map((file) => path.resolve(file.trim()));
if (L2_ATTESTER_KEY_FILES && L2_ATTESTER_KEY_FILES.length !== 3) {
  process.stderr.write("start: --l2-attester-key-files takes three comma-separated files\n");
  process.exit(2);
}

const ROOT = path.resolve(__dirname, "..");
/** An existing dogecoind to run against instead of the devnet. */
const NODE_URL = FLAGS.node ?? (process.env.DOGECOIN_RPC_URL || undefined);
const PORT_OFFSET = Number(FLAGS["port-offset"] ?? process.env.DOGEOS_PORT_OFFSET ?? 0);
if (!Number.isInteger(PORT_OFFSET) || PORT_OFFSET < 0 || PORT_OFFSET > 60_000) {
  process.stderr.write("start: --port-offset must be an integer from 0 to 60000\n");
  process.exit(2);
}
/** A service's port: its own variable if set, else its default plus the offset. */
const port = (variable: string, base: number): string => process.env[variable] ?? String(base + PORT_OFFSET);

/** The base chain's network: regtest on the devnet, the node's chain with --node (set in main). */
let NETWORK: NetworkName = "regtest";
/** State of a stack on another node is kept apart from the devnet's (keys of another network, another chain's index). */
const DATA_DIR = path.resolve(process.env.DOGEOS_DATA_DIR ?? path.join(ROOT, "data", ...(NODE_URL ? ["node"] : [])));
// Everything this stack keeps is under DATA_DIR, including what the deploy step, the ABI index
// (src/l2/abi-index.ts) and Ignition's journal (deploy/deploy.ts) put under "the data dir": every
// child process and this one read DOGEOS_DATA_DIR, so --node's state never lands in the devnet's data/.
process.env.DOGEOS_DATA_DIR = DATA_DIR;
const LOG_DIR = path.join(DATA_DIR, "logs");
const NODE_COOKIE_FILE = FLAGS["node-cookie-file"] ?? (process.env.DOGECOIN_RPC_COOKIE_FILE || undefined);
if (NODE_COOKIE_FILE && !NODE_URL) {
  process.stderr.write("start: --node-cookie-file needs --node <url> (the node's address, without credentials)\n");
  process.exit(2);
}

/** Files under one service's directory of DATA_DIR: `{dir, ...each name's full path}`. */
function serviceFiles<T extends Record<string, string>>(service: string, files: T): { dir: string } & T {
  const dir = path.join(DATA_DIR, service);
  return { dir, ...Object.fromEntries(Object.entries(files).map(([key, file]) => [key, path.join(dir, file)])) } as {
    dir: string;
  } & T;
}

/**
 * The topology's ports and data paths, each written once here: the services below (TOPOLOGY), their
 * preparations and the funding of a stack on another node take theirs from these tables. A port is
 * its own variable if set, else its default plus --port-offset.
 */
const PORTS = {
  devnet: port("DEVNET_PORT", 18332),
  l2: port("L2_PORT", 8545),
  explorer: port("EXPLORER_PORT", 3001),
  launchpad: port("LAUNCHPAD_PORT", 3002),
  amm: port("AMM_PORT", 3003),
  attest: port("ATTEST_PORT", 3004),
  inscriber: port("INSCRIBER_PORT", 3005),
  indexerOps: port("INDEXER_OPS_PORT", 3021),
  relayer: port("RELAYER_PORT", 3030),
};
/** The three attesters, each with its own indexer (whose ops port it names). */
const ATTESTERS = [1, 2, 3].map((n) => ({
  n,
  port: port(`ATTESTER_${n}_PORT`, 3010 + n),
  opsPort: port(`INDEXER_${n}_OPS_PORT`, 3021 + n),
}));

const PATHS = {
  devnet: path.join(DATA_DIR, "devnet"),
  /** The explorer's index, which every reader of the base chain but the attesters opens. */
  index: path.join(DATA_DIR, "indexer", "explorer.sqlite"),
  /** Attester n's own index. */
  attesterIndex: (n: number) => path.join(DATA_DIR, `attester-${n}`, "index.sqlite"),
  pqcDb: path.join(DATA_DIR, "explorer", "pqc.sqlite"),
  /** Keys start.ts makes (the L2's, the node's RPC password) and the funded-by-mining record. */
  keys: path.join(DATA_DIR, "keys"),
  /** devKeys: development only, the projects' keys in clear so that a person can curl the inscriber. */
  inscriber: serviceFiles("inscriber", {
    db: "inscriber.sqlite",
    walletDb: "wallet.sqlite",
    walletKey: "wallet.wif",
    projects: "projects.json",
    devKeys: "dev-project-keys.json",
  }),
  /**
   * operatorKey: the key free listings need (the demo's free collection); devWalletKey: the
   * development wallet the pages get as window.wallet (DESIGN.md 7), a devnet key of the person at the browser.
   */
  launchpad: serviceFiles("launchpad", {
    db: "launchpad.sqlite",
    inscriberKey: "inscriber-project.key",
    walletKey: "wallet.wif",
    operatorKey: "operator.key",
    devWalletKey: "dev-wallet.wif",
  }),
  relayer: serviceFiles("relayer", {
    db: "relayer.sqlite",
    walletDb: "wallet.sqlite",
    inscriberKey: "inscriber-project.key",
    walletKey: "wallet.wif",
  }),
  amm: serviceFiles("amm", {
    db: "amm.sqlite",
    walletDb: "wallet.sqlite",
    inscriberKey: "inscriber-project.key",
    walletKey: "custody.wif",
    bondingKey: "bonding-operator.key",
  }),
};

/** The local services' URLs the others are given. */
const local = (port: string) => `http://127.0.0.1:${port}`;
const URLS = {
  explorer: local(PORTS.explorer),
  inscriber: local(PORTS.inscriber),
  attesters: ATTESTERS.map(({ port }) => local(port)).join(","),
};
const DEVNET_RPC = NODE_URL ?? `http://devnet:devnet@127.0.0.1:${PORTS.devnet}`;

/**
 * The node's connection as the daemons' options (src/config/rpc.ts): on the devnet its URL (the
 * devnet's well-known development credentials); with --node the URL without credentials, and the
 * password in a 0600 file under data/ (`--rpc-password-file`) or the cookie file, so that `ps` shows
 * no secret.
 */
function rpcArgs(): string[] {
  if (!NODE_URL) return ["--rpc-url", DEVNET_RPC];
  const url = new URL(NODE_URL);
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = url.password = "";
  if (NODE_COOKIE_FILE) return ["--rpc-url", url.toString(), "--rpc-cookie-file", path.resolve(NODE_COOKIE_FILE)];
  if (!user) return ["--rpc-url", url.toString()];
  const passwordFile = path.join(PATHS.keys, "node-rpc-password");
  fs.mkdirSync(path.dirname(passwordFile), { recursive: true, mode: 0o700 });
  fs.writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  fs.chmodSync(passwordFile, 0o600);
  return ["--rpc-url", url.toString(), "--rpc-user", user, "--rpc-password-file", passwordFile];
}

/** start.ts's own client of the node. */
function nodeClient(): DogecoinRpcClient {
  const url = new URL(NODE_URL!);
  const config = NODE_COOKIE_FILE
    ? { "rpc-cookie-file": path.resolve(NODE_COOKIE_FILE) }
    : {
        "rpc-user": decodeURIComponent(url.username) || undefined,
        "rpc-password": decodeURIComponent(url.password) || undefined,
      };
  url.username = url.password = "";
  return createDogecoinRpcClient({ "rpc-url": url.toString(), ...config });
}

interface ServiceSpec {
  name: string;
  /** A TypeScript entry point run with tsx, or a plain argv for node (`argv`). */
  entry?: string;
  argv?: string[];
  /** Arguments, computed when the service starts (after the steps before it) and at each restart. */
  args: string[] | (() => string[]);
  /** Line in the service's output that carries its URL once it is ready. */
  ready: RegExp;
  /** Runs before the service starts; returns lines to print under its URL. */
  prepare?: () => Promise<string[]>;
  /** The stages it needs up (or done) before it starts: checked against the order of TOPOLOGY. */
  needs: string[];
}

const HARDHAT_CLI = require.resolve("hardhat/internal/cli/cli.js");
/** DOGE the devnet faucet gives the development hot wallet at each start. */
const INSCRIBER_FUNDING_DOGE = 2_000;

/** A key made once in `file` (0600), or the one already there. */
const walletKeyIn = (file: string) =>
  fs.existsSync(file)
    ? loadWalletKey({ keyFile: file, network: NETWORKS[NETWORK] })
    : generateWalletKeyFile(file, NETWORKS[NETWORK]);

/**
 * Funding of a development wallet: from the devnet's faucet (`devnet_faucet`, one output of
 * `doge`, mined at once with `confirm`), or nothing here when the stack runs on another node,
 * where fundNodeWallets did it before any service started.
 */
async function devFund(address: string, doge: number, confirm: boolean): Promise<void> {
  if (NODE_URL) return;
  await new DogecoinRpcClient({ url: DEVNET_RPC }).call("devnet_faucet", [address, doge, confirm]);
}
const funded = (doge: number) =>
  NODE_URL
    ? NETWORK === "regtest"
      ? "funded by mining"
      : "funded by you"
    : `funded with ${doge.toLocaleString("en-US")} DOGE`;

/** The inscriber's --protected-addresses (`<project>=<address>,...`), set by prepareInscriber. */
let PROTECTED_ADDRESSES = "";

/**
 * The development hot wallet and projects: a key file made once (mode 0600, under data/, never in
 * the repository), project keys for "launchpad" and "demo" made once, and DOGE from the devnet
 * faucet at every start.
 */
async function prepareInscriber(): Promise<string[]> {
  const key = fs.existsSync(PATHS.inscriber.walletKey)
    ? loadWalletKey({ keyFile: PATHS.inscriber.walletKey, network: NETWORKS[NETWORK] })
    : generateWalletKeyFile(PATHS.inscriber.walletKey, NETWORKS[NETWORK]);
  let keys: Record<string, string> = fs.existsSync(PATHS.inscriber.devKeys)
    ? JSON.parse(fs.readFileSync(PATHS.inscriber.devKeys, "utf8"))
    : {};
  if (!fs.existsSync(PATHS.inscriber.projects) || !keys.launchpad || !keys.demo || !keys.relayer) {
    keys = {
      launchpad: addProject(PATHS.inscriber.projects, "launchpad"),
      demo: addProject(PATHS.inscriber.projects, "demo"),
      relayer: addProject(PATHS.inscriber.projects, "relayer"),
    };
    fs.writeFileSync(PATHS.inscriber.devKeys, JSON.stringify(keys, null, 2) + "\n", { mode: 0o600 });
  }
  if (!keys.amm) {
    // Added after the first three: a data directory made before the AMM gains it on its next start.
    keys.amm = addProject(PATHS.inscriber.projects, "amm");
    fs.writeFileSync(PATHS.inscriber.devKeys, JSON.stringify(keys, null, 2) + "\n", { mode: 0o600 });
  }
  fs.mkdirSync(PATHS.amm.dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(PATHS.amm.inscriberKey, `${keys.amm}\n`, { mode: 0o600 });
  // The relayer and the launchpad read their project keys from their own 0600 files.
  fs.mkdirSync(PATHS.relayer.dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(PATHS.relayer.inscriberKey, `${keys.relayer}\n`, { mode: 0o600 });
  fs.mkdirSync(PATHS.launchpad.dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(PATHS.launchpad.inscriberKey, `${keys.launchpad}\n`, { mode: 0o600 });
  // The service addresses only their own project inscribes to (issue 26): the AMM's custody (its
  // DRC-20 deploys, mints and payout transfers) and the launchpad's demo creator (the demo deploys).
  // Both keys are made once here if the AMM and the launchpad have not started yet.
  PROTECTED_ADDRESSES = [
    `amm=${walletKeyIn(PATHS.amm.walletKey).address}`,
    `launchpad=${walletKeyIn(PATHS.launchpad.walletKey).address}`,
  ].join(",");
  await devFund(key.address, INSCRIBER_FUNDING_DOGE, true);
  return [
    `hot wallet ${key.address} (${funded(INSCRIBER_FUNDING_DOGE)})`,
    ...Object.entries(keys).map(([name, value]) => `project ${name} key: ${value}`),
  ];
}
/** The L2's JSON-RPC URL: the existing L2's with --l2, else the local Hardhat node's. */
const L2_URL = L2_EXTERNAL_URL ?? local(PORTS.l2);
/** The L2's chain id: the Hardhat node's, or the existing L2's eth_chainId (set in prepareL2). */
let L2_CHAIN_ID = LOCAL_CHAIN_ID;

const SERVICES: ServiceSpec[] = [
  {
    name: "devnet",
    entry: "daemons/devnet/main.ts",
    args: () => [
      "--datadir",
      PATHS.devnet,
      "--port",
      PORTS.devnet,
      "--automine",
      process.env.DEVNET_AUTOMINE_SECONDS ?? "5",
      // An empty block at least every 15 s, so that what the system does becomes 6 deep (and
      // attestable) within a couple of minutes even when nothing else happens.
      "--emptyblocks",
      process.env.DEVNET_EMPTY_BLOCK_SECONDS ?? "15",
    ],
    ready: /^devnet {2}(\S+)$/m,
    needs: [],
  },
  {
    name: "indexer",
    entry: "daemons/indexer/main.ts",
    args: () => [
      ...rpcArgs(),
      "--db",
      PATHS.index,
      "--network",
      NETWORK,
      "--name",
      "indexer",
      "--ops-port",
      PORTS.indexerOps,
      // The devnet's index can always be rebuilt from the devnet: do so after a schema change.
      "--reset-on-rebuild",
    ],
    ready: /^indexer {2}(\S+)$/m,
    needs: ["devnet"],
  },
  {
    name: "explorer",
    entry: "daemons/explorer/main.ts",
    args: () => [
      "--db",
      PATHS.index,
      "--pqc-db",
      PATHS.pqcDb,
      ...rpcArgs(),
      "--network",
      NETWORK,
      "--port",
      PORTS.explorer,
    ],
    ready: /^explorer {2}(\S+)$/m,
    prepare: async () => [
      `pages  ${local(PORTS.explorer)}/ (search, transactions, addresses, inscriptions, blocks, DRC-20, OP_RETURN, OP_CHECKZKP)`,
      `esplora ${local(PORTS.explorer)}/esplora/api (Blockstream Esplora's read API and POST /tx)`,
    ],
    needs: ["devnet", "indexer"],
  },
  {
    name: "inscriber",
    entry: "daemons/inscriber/main.ts",
    args: () => [
      "--index-db",
      PATHS.index,
      ...rpcArgs(),
      "--network",
      NETWORK,
      "--db",
      PATHS.inscriber.db,
      "--wallet-db",
      PATHS.inscriber.walletDb,
      "--wallet-key-file",
      PATHS.inscriber.walletKey,
      "--projects-file",
      PATHS.inscriber.projects,
      "--launchpad-project",
      "launchpad",
      "--protected-addresses",
      PROTECTED_ADDRESSES,
      "--port",
      PORTS.inscriber,
      "--min-utxos",
      "20",
      "--utxo-koinu",
      "5000000000",
    ],
    ready: /^inscriber {2}(\S+)$/m,
    prepare: prepareInscriber,
    // Before it starts on another node's testnet or mainnet, the explorer's index shows the wallets funded.
    needs: ["devnet", "indexer", "explorer"],
  },
  {
    name: "l2",
    argv: [HARDHAT_CLI, "node", "--hostname", "127.0.0.1", "--port", PORTS.l2],
    args: () => [],
    ready: /Started HTTP and WebSocket JSON-RPC server at (\S+)/,
    needs: [],
  },
];

/** One-shot steps; their stdout is shown as it is and kept for the services after them. */
interface StepSpec {
  name: string;
  argv: string[];
  needs: string[];
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
  const file = path.join(PATHS.keys, `${name}.key`);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const wallet = HDNodeWallet.fromPhrase(HARDHAT_MNEMONIC, undefined, `m/44'/60'/0'/0/${account}`);
    fs.writeFileSync(file, `${wallet.privateKey}\n`, { mode: 0o600 });
  }
  return file;
}

/**
 * With --l2: the attesters' keys (--l2-attester-key-files, else made once under data/keys/),
 * and the relayer's and the attest API's own L2 keys (made once; each keeps its own nonces). The
 * attesters sign EIP-712 only and need no gas.
 */
function l2KeyFile(name: string): string {
  const file = path.join(PATHS.keys, `${name}.key`);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, `${Wallet.createRandom().privateKey}\n`, { mode: 0o600 });
  }
  return file;
}
function attesterKeyFile(n: number): string {
  if (!L2_EXTERNAL_URL) return localKeyFile(`attester-${n}`, n);
  return L2_ATTESTER_KEY_FILES ? L2_ATTESTER_KEY_FILES[n - 1] : l2KeyFile(`l2-attester-${n}`);
}
/** The key in a 0600 file (refused otherwise, src/config/secret-file.ts), as a wallet. */
function l2Wallet(file: string, provider?: JsonRpcProvider): Wallet {
  return loadSecret({ what: "L2 key", file, parse: evmPrivateKey({ allowBare: true }) }).connect(provider ?? null);
}
const l2AttesterAddresses = (): string[] => ATTESTERS.map(({ n }) => l2Wallet(attesterKeyFile(n)).address);

/**
 * The deploy step's environment with --l2: the key file is the deployer's account (tasks/key-file.ts)
 * and the attesters are this stack's. Chains other than the local one and DogeOS have no parameters
 * file of their own: DogeOS's (ignition/parameters/dogeos.json) is used unless DEPLOY_PARAMETERS names one.
 */
function l2DeployEnv(): Record<string, string> {
  if (!L2_EXTERNAL_URL) return {};
  const env: Record<string, string> = {
    DOGEOS_PRIVATE_KEY_FILE: L2_KEY_FILE!,
    DEPLOY_ATTESTERS: l2AttesterAddresses().join(","),
  };
  if (!process.env.DEPLOY_PARAMETERS && L2_CHAIN_ID !== LOCAL_CHAIN_ID && L2_CHAIN_ID !== DOGEOS_TESTNET_CHAIN_ID) {
    env.DEPLOY_PARAMETERS = path.join(ROOT, "ignition", "parameters", "dogeos.json");
  }
  return env;
}

let l2Provider: JsonRpcProvider | null = null;

/**
 * With --l2: the chain id (eth_chainId, printed), the deployer's key checked, and the relayer's and
 * the attest API's keys funded from the deployer's account with --l2-fund-wei when either holds less
 * than half of it. Returns the chain id.
 */
async function prepareL2(): Promise<number> {
  const response = await fetch(L2_URL, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
  }).catch((error: Error) => {
    throw new Error(`the L2 at --l2 ${L2_URL} does not answer: ${error.message}`);
  });
  const body = (await response.json().catch(() => null)) as { result?: string } | null;
  if (!response.ok || typeof body?.result !== "string")
    throw new Error(`the L2 at --l2 ${L2_URL} gave no chain id (eth_chainId: HTTP ${response.status})`);
  L2_CHAIN_ID = Number(BigInt(body.result));
  endProgress();
  process.stderr.write(`l2: ${L2_URL} is chain ${L2_CHAIN_ID}\n`);
  l2Provider = new JsonRpcProvider(L2_URL, L2_CHAIN_ID, { staticNetwork: true });
  const deployer = l2Wallet(L2_KEY_FILE!, l2Provider);
  l2AttesterAddresses(); // made (or checked) before anything is deployed
  // One nonce counted here: ethers caches the account's nonce for a moment (the provider's cacheTimeout).
  let nonce: number | null = null;
  for (const name of ["l2-relayer", "l2-attest"]) {
    const address = l2Wallet(l2KeyFile(name)).address;
    const balance = await l2Provider.getBalance(address);
    if (balance * 2n >= L2_FUND_WEI) continue;
    progress(`l2: funding the ${name.slice(3)} key ${address} with ${L2_FUND_WEI} wei from ${deployer.address}`);
    nonce ??= await l2Provider.getTransactionCount(deployer.address, "pending");
    const tx = await deployer.sendTransaction({ to: address, value: L2_FUND_WEI, nonce: nonce++ });
    await tx.wait();
  }
  return L2_CHAIN_ID;
}

/**
 * With --l2: the deployment the ABI index records for the chain (src/l2/abi-index.ts), as the deploy
 * step would print it, when every contract has code there; null when there is none (deploy then).
 * A recorded DogeAttestation whose attesters are not this stack's keys stops the start.
 */
async function recordedDeployment(): Promise<string | null> {
  const recorded = readChainDeployment(L2_CHAIN_ID);
  if (!recorded?.deployed) return null;
  const addresses: string[] = [];
  for (const name of PUBLISHED_CONTRACTS) {
    const address = recorded.contracts[name]?.address;
    if (!address || (await l2Provider!.getCode(address)) === "0x") return null;
    addresses.push(address);
  }
  const attestation = new Contract(
    addresses[0],
    ["function attesters() view returns (address[3], uint64)"],
    l2Provider!,
  );
  const [onChain] = (await attestation.getFunction("attesters")()) as [string[], bigint];
  const ours = l2AttesterAddresses();
  const key = (list: string[]) =>
    list
      .map((address) => address.toLowerCase())
      .sort()
      .join(",");
  if (key([...onChain]) !== key(ours)) {
    throw new Error(
      `the DogeAttestation recorded for chain ${L2_CHAIN_ID} (${addresses[0]}, ${recorded.file}) has the attesters ${[...onChain].join(",")}, not this stack's ${ours.join(",")}: pass their key files with --l2-attester-key-files a,b,c`,
    );
  }
  return `${PUBLISHED_CONTRACTS.map((name, i) => `${name.padEnd(18)} ${addresses[i]}`).join("\n")}\nabi index: ${recorded.file} (recorded deployment, nothing deployed)\n`;
}

/**
 * The demo collections' creator key, the operator key of free listings, and the pages' development
 * wallet, made once; the development wallet is funded at each start with five 100-DOGE outputs so
 * that several mints can be paid one after the other.
 */
async function prepareLaunchpad(): Promise<string[]> {
  const key = walletKeyIn(PATHS.launchpad.walletKey);
  if (!fs.existsSync(PATHS.launchpad.operatorKey))
    fs.writeFileSync(PATHS.launchpad.operatorKey, `lk_${crypto.randomBytes(24).toString("hex")}\n`, { mode: 0o600 });
  const devWallet = walletKeyIn(PATHS.launchpad.devWalletKey);
  for (let i = 0; i < 4; i++) await devFund(devWallet.address, 100, false);
  await devFund(devWallet.address, 100, true);
  return [
    `pages  ${local(PORTS.launchpad)}/ (window.wallet is the development wallet ${devWallet.address})`,
    `demo creator ${key.address} (payments for demo-pups, 1 DOGE, go there); demo-free listed with the operator key`,
  ];
}

const LAUNCHPAD: ServiceSpec = {
  name: "launchpad",
  entry: "daemons/launchpad/main.ts",
  args: () => [
    "--db",
    PATHS.launchpad.db,
    "--index-db",
    PATHS.index,
    ...rpcArgs(),
    "--inscriber-url",
    URLS.inscriber,
    "--inscriber-key-file",
    PATHS.launchpad.inscriberKey,
    "--wallet-key-file",
    PATHS.launchpad.walletKey,
    "--operator-key-file",
    PATHS.launchpad.operatorKey,
    "--network",
    NETWORK,
    "--port",
    PORTS.launchpad,
    "--demo",
    "--web-dir",
    path.join(ROOT, "web"),
    "--dev-wallet-key-file",
    PATHS.launchpad.devWalletKey,
    "--explorer-url",
    URLS.explorer,
  ],
  ready: /^launchpad {2}(\S+)$/m,
  prepare: prepareLaunchpad,
  // The inscriber's preparation writes the launchpad's project key.
  needs: ["devnet", "indexer", "explorer", "inscriber"],
};

/** DOGE the devnet faucet gives the relayer's hot wallet (OP_RETURN anchors) at each start. */
const RELAYER_FUNDING_DOGE = 500;

/** The relayer's own hot wallet (never the inscriber's), made once and funded at each start. */
async function prepareRelayer(): Promise<string[]> {
  const key = fs.existsSync(PATHS.relayer.walletKey)
    ? loadWalletKey({ keyFile: PATHS.relayer.walletKey, network: NETWORKS[NETWORK] })
    : generateWalletKeyFile(PATHS.relayer.walletKey, NETWORKS[NETWORK]);
  await devFund(key.address, RELAYER_FUNDING_DOGE, true);
  return [
    `anchor wallet ${key.address} (${funded(RELAYER_FUNDING_DOGE)}); L2 key: ${L2_EXTERNAL_URL ? l2Wallet(l2KeyFile("l2-relayer")).address : "Hardhat account 6"}`,
  ];
}

/** The attesters: each reads its own indexer's database (three indexers of the devnet). */
const ATTESTER_STAGES: ServiceSpec[] = ATTESTERS.flatMap(({ n, port, opsPort }) => [
  {
    name: `indexer-${n}`,
    entry: "daemons/indexer/main.ts",
    args: () => [
      ...rpcArgs(),
      "--db",
      PATHS.attesterIndex(n),
      "--network",
      NETWORK,
      "--name",
      `indexer-${n}`,
      "--ops-port",
      opsPort,
      "--reset-on-rebuild",
    ],
    ready: new RegExp(`^indexer-${n} {2}(\\S+)$`, "m"),
    needs: ["devnet"],
  },
  {
    name: `attester-${n}`,
    entry: "daemons/attester/main.ts",
    args: () => [
      "--index-db",
      PATHS.attesterIndex(n),
      ...rpcArgs(),
      "--l2-rpc-url",
      L2_URL,
      "--attestation-address",
      deployed("DogeAttestation"),
      "--chain-id",
      String(L2_CHAIN_ID),
      "--key-file",
      attesterKeyFile(n),
      "--network",
      NETWORK,
      "--port",
      port,
      "--name",
      `attester-${n}`,
    ],
    ready: new RegExp(`^attester-${n} {2}(\\S+)$`, "m"),
    needs: ["devnet", `indexer-${n}`, "l2", "deploy"],
  },
]);

const ATTEST: ServiceSpec = {
  name: "attest",
  entry: "daemons/attest-api/main.ts",
  args: () => [
    "--attesters",
    URLS.attesters,
    "--index-db",
    PATHS.index,
    "--l2-rpc-url",
    L2_URL,
    "--attestation-address",
    deployed("DogeAttestation"),
    "--relayer-key-file",
    L2_EXTERNAL_URL ? l2KeyFile("l2-attest") : localKeyFile("relayer", 4),
    // Checked against the L2's eth_chainId before any fulfilment is signed.
    "--chain-id",
    String(L2_CHAIN_ID),
    "--network",
    NETWORK,
    "--port",
    PORTS.attest,
  ],
  ready: /^attest {2}(\S+)$/m,
  needs: ["indexer", "l2", "deploy", ...ATTESTERS.map(({ n }) => `attester-${n}`)],
};

/** Inscriber and anchor jobs paid on the L2: done on the base chain, settled on 2-of-3 receipts. */
const RELAYER: ServiceSpec = {
  name: "relayer",
  entry: "daemons/relayer/main.ts",
  args: () => [
    "--db",
    PATHS.relayer.db,
    "--l2-rpc-url",
    L2_URL,
    "--chain-id",
    String(L2_CHAIN_ID),
    "--attestation-address",
    deployed("DogeAttestation"),
    "--inscriber-address",
    deployed("DogeInscriber"),
    "--anchor-address",
    deployed("DogeAnchor"),
    "--attesters",
    URLS.attesters,
    "--inscriber-url",
    URLS.inscriber,
    "--inscriber-project",
    "relayer",
    "--inscriber-key-file",
    PATHS.relayer.inscriberKey,
    "--wallet-key-file",
    PATHS.relayer.walletKey,
    "--wallet-db",
    PATHS.relayer.walletDb,
    "--index-db",
    PATHS.index,
    ...rpcArgs(),
    "--network",
    NETWORK,
    // Hardhat account 6: the attest API's fulfilment key is account 4 and each keeps its own nonces.
    "--l2-key-file",
    L2_EXTERNAL_URL ? l2KeyFile("l2-relayer") : localKeyFile("relayer-jobs", 6),
    "--port",
    PORTS.relayer,
  ],
  ready: /^relayer {2}(\S+)$/m,
  prepare: prepareRelayer,
  needs: ["devnet", "indexer", "inscriber", "l2", "deploy", ...ATTESTERS.map(({ n }) => `attester-${n}`)],
};

/** DOGE the custody wallet gets at each start on the devnet (four outputs of 5,000). */
const AMM_FUNDING_DOGE = 20_000;

/**
 * The AMM's custody wallet, made once and funded at each start: it holds the pools' DOGE and pays
 * the payouts' network fees, so it gets 20,000 DOGE (the demo pool takes 10,000).
 */
async function prepareAmm(): Promise<string[]> {
  const key = walletKeyIn(PATHS.amm.walletKey);
  // The inscriber's hot wallet is the operator's too: its transactions (the postage of the payouts'
  // transfer inscriptions, sent to the custody) are never deposits, and no order may name it.
  process.env.AMM_SERVICE_ADDRESSES = loadWalletKey({
    keyFile: PATHS.inscriber.walletKey,
    network: NETWORKS[NETWORK],
  }).address;
  for (let i = 0; i < 3; i++) await devFund(key.address, 5_000, false);
  await devFund(key.address, 5_000, true);
  // The operator key of bonding launches: issued once into the AMM's database (only its hash is
  // kept there) and kept in clear in a 0600 file for the person at this machine.
  if (!fs.existsSync(PATHS.amm.bondingKey)) {
    const db = openAmmDatabase(PATHS.amm.db);
    const { key: operatorKey } = new BondingApiKeys(db).issue("npm start operator");
    db.close();
    fs.writeFileSync(PATHS.amm.bondingKey, `${operatorKey}\n`, { mode: 0o600 });
  }
  return [
    `pages  ${local(PORTS.amm)}/ (swap), ${local(PORTS.amm)}/liquidity.html, ${local(PORTS.amm)}/bonding.html`,
    `custody wallet ${key.address} (${funded(AMM_FUNDING_DOGE)}); demo pool WOOF/DOGE: the tick is deployed, minted and seeded within about a minute of the first start`,
    `bonding launches' operator key: ${fs.readFileSync(PATHS.amm.bondingKey, "utf8").trim()}; demo bonding coin MOON (graduates at 2,000 DOGE)`,
  ];
}

const AMM: ServiceSpec = {
  name: "amm",
  entry: "daemons/amm/main.ts",
  args: () => [
    "--db",
    PATHS.amm.db,
    "--index-db",
    PATHS.index,
    ...rpcArgs(),
    "--inscriber-url",
    URLS.inscriber,
    "--inscriber-key-file",
    PATHS.amm.inscriberKey,
    "--wallet-key-file",
    PATHS.amm.walletKey,
    "--wallet-db",
    PATHS.amm.walletDb,
    "--network",
    NETWORK,
    "--port",
    PORTS.amm,
    "--demo",
    // The swap, liquidity and bonding pages, their payments built from the explorer's UTXOs.
    "--web-dir",
    path.join(ROOT, "web", "amm"),
    "--explorer-url",
    URLS.explorer,
    "--dev-wallet-key-file",
    PATHS.launchpad.devWalletKey,
  ],
  ready: /^amm {2}(\S+)$/m,
  prepare: prepareAmm,
  // The inscriber's preparation writes the AMM's project key, and its hot wallet is the AMM's service
  // address; the launchpad's preparation writes and funds the development wallet the pages offer.
  needs: ["devnet", "indexer", "explorer", "inscriber", "launchpad"],
};

type Stage = { service: ServiceSpec } | { step: StepSpec };
const stageName = (stage: Stage): string => ("step" in stage ? stage.step.name : stage.service.name);

/**
 * The topology: every stage in start order, services and the deploy step once the L2 is up, each
 * naming what it needs (checked by inStartOrder: a stage never starts before what it needs).
 */
const TOPOLOGY: Stage[] = [
  ...SERVICES.map((service) => ({ service })),
  { step: { name: "deploy", argv: [HARDHAT_CLI, "run", "deploy/deploy.ts", "--network", "localhost"], needs: ["l2"] } },
  ...ATTESTER_STAGES.map((service) => ({ service })),
  { service: ATTEST },
  { service: RELAYER },
  { service: LAUNCHPAD },
  { service: AMM },
];

/**
 * The stages to run, in TOPOLOGY's order, less the external ones (with --node the base chain is
 * that node: no devnet; with --l2 the L2 is that chain: no Hardhat node), which count as up. Throws
 * when a stage needs one that is not before it.
 */
function inStartOrder(topology: Stage[], external: ReadonlySet<string>): Stage[] {
  const up = new Set(external);
  for (const stage of topology) {
    const name = stageName(stage);
    const needs = "step" in stage ? stage.step.needs : stage.service.needs;
    const missing = needs.filter((need) => !up.has(need));
    if (missing.length > 0) throw new Error(`the topology starts ${name} before ${missing.join(", ")}, which it needs`);
    up.add(name);
  }
  return topology.filter((stage) => !external.has(stageName(stage)));
}

const STAGES = inStartOrder(TOPOLOGY, new Set([...(NODE_URL ? ["devnet"] : []), ...(L2_EXTERNAL_URL ? ["l2"] : [])]));

/**
 * The development wallets a stack on another node needs, with the DOGE each gets on the devnet and
 * the number of outputs it gets there (some demos pay several times in a row).
 */
function nodeWallets(): { name: string; file: string; doge: number; outputs: number }[] {
  return [
    { name: "inscriber hot wallet", file: PATHS.inscriber.walletKey, doge: INSCRIBER_FUNDING_DOGE, outputs: 1 },
    { name: "launchpad development wallet", file: PATHS.launchpad.devWalletKey, doge: 500, outputs: 5 },
    { name: "relayer anchor wallet", file: PATHS.relayer.walletKey, doge: RELAYER_FUNDING_DOGE, outputs: 1 },
    { name: "AMM custody wallet", file: PATHS.amm.walletKey, doge: AMM_FUNDING_DOGE, outputs: 4 },
  ];
}

/**
 * Blocks mined after the funding blocks: regtest's coinbase maturity (src/doge/maturity.ts, 60)
 * and 40 to spare, so the funding coinbases are spendable before the operator mines again.
 */
const MATURITY_BLOCKS = coinbaseMaturity(NETWORKS.regtest) + 40;

/**
 * Regtest on another node: each development wallet gets coinbases by `generatetoaddress` (as many
 * blocks as it needs for its DOGE, and at least one per output; the subsidy is regtest's,
 * src/devnet/params.ts blockSubsidy), then 100 more blocks so that they mature. Once per wallet
 * and chain (recorded in data/.../keys/funded-by-mining.json), so a restart does not mine again.
 */
async function fundByMining(rpc: DogecoinRpcClient): Promise<void> {
  // What was funded, and the last block mined for it: a node whose chain no longer has that block
  // (a new regtest data directory) is funded again.
  const marker = path.join(PATHS.keys, "funded-by-mining.json");
  const record: { addresses: string[]; height: number; hash: string } | null = fs.existsSync(marker)
    ? JSON.parse(fs.readFileSync(marker, "utf8"))
    : null;
  const stillThere = record
    ? await rpc.call<string>("getblockhash", [record.height]).then(
        (hash) => hash === record.hash,
        () => false,
      )
    : false;
  const done = stillThere && record ? record.addresses : [];
  let height = await rpc.call<number>("getblockcount", []);
  let mined = false;
  for (const wallet of nodeWallets()) {
    const address = walletKeyIn(wallet.file).address;
    if (done.includes(address)) continue;
    let koinu = 0n;
    let blocks = 0;
    while (koinu < BigInt(wallet.doge) * 100_000_000n || blocks < wallet.outputs) {
      height += 1;
      koinu += blockSubsidy(height);
      blocks += 1;
    }
    await rpc.call("generatetoaddress", [blocks, address]);
    progress(`mined ${blocks} block(s) to the ${wallet.name} ${address}`);
    done.push(address);
    mined = true;
  }
  if (mined) {
    // The maturity blocks' own coinbases go to the inscriber's wallet, which takes each only once
    // it is mature (src/wallet/spendable.ts): nothing depends on them.
    await rpc.call("generatetoaddress", [MATURITY_BLOCKS, walletKeyIn(PATHS.inscriber.walletKey).address]);
    progress(`mined ${MATURITY_BLOCKS} more blocks so that those coinbases mature`);
    fs.mkdirSync(path.dirname(marker), { recursive: true, mode: 0o700 });
    const tip = await rpc.call<number>("getblockcount", []);
    fs.writeFileSync(
      marker,
      JSON.stringify({ addresses: done, height: tip, hash: await rpc.call<string>("getblockhash", [tip]) }) + "\n",
    );
  }
}

/**
 * Testnet or mainnet: nothing can be mined, so print the addresses and wait until the explorer's
 * index (started before this) shows a confirmed balance on each.
 */
async function waitUntilFunded(): Promise<void> {
  const wallets = nodeWallets().map((wallet) => ({ ...wallet, address: walletKeyIn(wallet.file).address }));
  const balance = async (address: string): Promise<bigint> => {
    const response = await fetch(`${URLS.explorer}/api/wallet/address/${address}/balance`);
    if (!response.ok) return 0n;
    return BigInt(((await response.json()) as { confirmed_koinu: string }).confirmed_koinu);
  };
  let first = true;
  for (;;) {
    const missing: typeof wallets = [];
    for (const wallet of wallets) if ((await balance(wallet.address)) === 0n) missing.push(wallet);
    if (missing.length === 0) return;
    if (first) {
      process.stdout.write(
        `\nFund these ${NETWORK} addresses (the amounts are what the devnet gives; less works for a try), then wait for one confirmation:\n`,
      );
      for (const wallet of missing)
        process.stdout.write(`  ${wallet.address}  ${wallet.doge.toLocaleString("en-US")} DOGE  ${wallet.name}\n`);
      first = false;
    }
    await new Promise((resolve) => setTimeout(resolve, 10_000));
  }
}

/** `getblockchaininfo.chain` (main, test, regtest) as our network names. */
const CHAINS: Record<string, NetworkName> = { main: "mainnet", test: "testnet", regtest: "regtest" };

/** With --node: which network the node is on, and the development wallets funded on regtest. */
async function prepareNode(): Promise<void> {
  const rpc = nodeClient();
  const info = await rpc.call<{ chain: string; blocks: number }>("getblockchaininfo", []);
  const network = CHAINS[info.chain];
  if (!network) throw new Error(`the node at --node is on chain "${info.chain}", which is none of main, test, regtest`);
  NETWORK = network;
  progress(`node: chain ${info.chain} (${network}) at height ${info.blocks}`);
  if (network === "regtest") await fundByMining(rpc);
}

const VERBOSE = FLAGS.verbose;
const TTY = Boolean(process.stdout.isTTY);
const pretty = VERBOSE && TTY ? prettyFactory({ colorize: true, ignore: "pid,hostname", singleLine: true }) : null;

/** Start-up progress: one rewritten line on a terminal, plain lines elsewhere; nothing with --verbose (the logs say it). */
let progressShown = false;
function progress(text: string): void {
  if (VERBOSE) return;
  if (process.stderr.isTTY) {
    process.stderr.write(`\r\x1b[K${text}`);
    progressShown = true;
  } else {
    process.stderr.write(`${text}\n`);
  }
}
function endProgress(): void {
  if (progressShown) process.stderr.write("\r\x1b[K");
  progressShown = false;
}

/** What a person at the terminal sees of the supervisor: restarts and errors. */
function onEvent(event: SupervisorEvent): void {
  if (event.type === "started") {
    if (event.restarts > 0) {
      endProgress();
      process.stderr.write(`${event.name} restarted (restart ${event.restarts}): ${event.url}\n`);
    }
    return;
  }
  if (event.type === "exited") {
    endProgress();
    const seconds = (event.restartInMs ?? 0) / 1000;
    process.stderr.write(
      `${event.name} exited (${event.signal ?? `code ${event.code}`}); restart ${event.restarts} in ${seconds} s; its last lines (${path.join(LOG_DIR, `${event.name}.log`)}):\n`,
    );
    for (const line of event.tail) process.stderr.write(`  ${line.length > 300 ? `${line.slice(0, 300)}...` : line}\n`);
    return;
  }
  if (VERBOSE) return; // the line is streamed anyway
  showOnce(event.name, "error", logLineText(event.line));
}

/** A log line as the terminal shows it: its event, message and error, or the line itself. */
function logLineText(line: string): string {
  try {
    const fields = JSON.parse(line) as Record<string, unknown>;
    return (
      [fields.event, fields.msg, fields.err]
        .filter((part) => part !== undefined)
        .map((part) => (typeof part === "string" ? part : JSON.stringify(part)))
        .join(": ") || line
    );
  } catch {
    return line; // not JSON: shown as it is
  }
}

/**
 * A line at the terminal, `<service>: <kind>: <text>`. The same one from the same service (a node
 * that does not answer, every few seconds) is shown once a minute, with how many were left out since.
 */
function showOnce(name: string, kind: "error" | "warning", text: string): void {
  endProgress();
  const key = `${name}\0${kind}\0${text}`;
  const seen = shownErrors.get(key);
  const now = Date.now();
  if (seen && now - seen.at < ERROR_REPEAT_MS) {
    seen.suppressed += 1;
    return;
  }
  const again = seen && seen.suppressed > 0 ? ` (${seen.suppressed} more like it in the last minute)` : "";
  shownErrors.set(key, { at: now, suppressed: 0 });
  process.stderr.write(`${name}: ${kind}: ${text}${again}\n`);
}

/**
 * Events a person at the terminal must see although they are no errors: a job that failed (its
 * transaction refused by the node; the demo that waits for it asks for a new one), an attempt of
 * the relayer that failed, and a demo that cannot finish, against the table's promise of a pool
 * "within about a minute". The services log them at info or warn level; each is shown as
 * `<service>: warning: <event>: <reason>`. Error lines come through the supervisor (onEvent).
 */
const WARNING_EVENTS = new Set([
  "inscriber_job_failed",
  "amm_demo_job_failed",
  "amm_demo_cannot_finish",
  "launchpad_deploy_failed",
  "launchpad_mint_failed",
  "relayer_attempt_failed",
]);

/** Without --verbose: the WARNING_EVENTS lines and the indexer's catch-up progress. */
function showLine(name: string, line: string): void {
  showCatchUp(name, line);
  if (!line.startsWith("{")) return;
  let fields: { level?: unknown; event?: unknown };
  try {
    fields = JSON.parse(line);
  } catch {
    return;
  }
  if (typeof fields.level === "number" && fields.level >= 50) return; // shown as an error (onEvent)
  if (typeof fields.event === "string" && WARNING_EVENTS.has(fields.event))
    showOnce(name, "warning", logLineText(line));
}

/** One line a minute for a repeated error; the log file has every one. */
const ERROR_REPEAT_MS = 60_000;
const shownErrors = new Map<string, { at: number; suppressed: number }>();

/** --verbose: every log line, pretty when stdout is a terminal. */
function onLine(name: string, line: string): void {
  if (pretty && line.startsWith("{")) {
    try {
      process.stdout.write(pretty(line));
      return;
    } catch {
      // not a pino line after all
    }
  }
  process.stdout.write(`${name.padEnd(10)} | ${line}\n`);
}

/**
 * The explorer's indexer catching up (a fresh index against a real node takes hours): its
 * `catch_up` log lines become one progress line in the terminal (issue 19, item 4).
 */
function showCatchUp(name: string, line: string): void {
  if (name !== "indexer" || !line.includes('"catch_up"')) return;
  let entry: {
    event?: string;
    height?: number;
    target?: number;
    remaining?: number;
    blocks_per_s?: number;
    tx_per_s?: number;
    eta_s?: number | null;
  };
  try {
    entry = JSON.parse(line);
  } catch {
    return;
  }
  if (entry.event !== "catch_up" || typeof entry.height !== "number" || typeof entry.target !== "number") return;
  const percent = entry.target > 0 ? ((100 * entry.height) / entry.target).toFixed(1) : "100";
  const eta = entry.eta_s == null ? "" : `, about ${formatDuration(entry.eta_s)} left`;
  progress(
    `indexer catching up: block ${entry.height} of ${entry.target} (${percent}%), ${entry.blocks_per_s ?? 0} blocks/s, ${entry.tx_per_s ?? 0} tx/s${eta}`,
  );
  if (entry.remaining === 0) endProgress();
}

function formatDuration(seconds: number): string {
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

const supervisor = new Supervisor({ logDir: LOG_DIR, onEvent, onLine: VERBOSE ? onLine : showLine });
let stopping = false;

async function stopAll(exitCode: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    endProgress();
    process.stderr.write("stopping...\n");
    await supervisor.stopAll();
  }
  process.exit(exitCode);
}

/** A one-shot step (the deploy): its stdout is returned, its stderr goes to its log file. */
function runStep(name: string, argv: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const log = fs.openSync(path.join(LOG_DIR, `${name}.log`), "a");
    const child = spawn(process.execPath, ["--require", WATCH_PARENT_PRELOAD, ...argv], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", log],
      env: { ...process.env, L2_RPC_URL: L2_URL, ...l2DeployEnv() },
    });
    fs.closeSync(log);
    let stdout = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk;
      fs.appendFileSync(path.join(LOG_DIR, `${name}.log`), chunk);
    });
    child.once("exit", (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`${name} exited with ${code} (see ${path.join(LOG_DIR, `${name}.log`)})`)),
    );
  });
}

/**
 * `npm start` runs this under `sh -c`, below npm: if npm is killed, sh lives on and this
 * process's parent does not change, so watch npm too (/proc/<pid>/stat's start time tells a
 * reused pid apart). Our own daemons watch this process (src/config/daemon.ts).
 */
function watchAncestors(onGone: () => void): void {
  const startTime = (pid: number): string | null => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return fields[0] === "Z" ? null : fields[19];
    } catch {
      return null;
    }
  };
  const parentOf = (pid: number): number | null => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      return null;
    }
  };
  const parent = process.ppid;
  const watched = [parent];
  if (process.env.npm_lifecycle_event) {
    const grandparent = parentOf(parent);
    if (grandparent && grandparent > 1) watched.push(grandparent);
  }
  const starts = watched.map(startTime);
  const timer = setInterval(() => {
    if (process.ppid !== parent || watched.some((pid, i) => startTime(pid) !== starts[i])) {
      clearInterval(timer);
      onGone();
    }
  }, 1_000);
  timer.unref();
}

/** The logs are appended across starts: one larger than this at a start is kept as <name>.log.1 and begun anew. */
const LOG_ROTATE_BYTES = 64 * 1024 * 1024;
function rotateLogs(): void {
  for (const file of fs.readdirSync(LOG_DIR)) {
    const full = path.join(LOG_DIR, file);
    if (file.endsWith(".log") && fs.statSync(full).size > LOG_ROTATE_BYTES) fs.renameSync(full, `${full}.1`);
  }
}

async function main(): Promise<void> {
  process.on("SIGINT", () => void stopAll(0));
  process.on("SIGTERM", () => void stopAll(0));
  process.on("SIGHUP", () => void stopAll(0));
  watchAncestors(() => void stopAll(1));
  fs.mkdirSync(LOG_DIR, { recursive: true });
  rotateLogs();
  if (NODE_URL) await prepareNode();
  const table: string[] = [];
  if (L2_EXTERNAL_URL) table.push(`${"l2".padEnd(10)}  ${L2_EXTERNAL_URL} (existing L2, chain ${await prepareL2()})`);
  const total = STAGES.length;
  let index = 0;
  for (const stage of STAGES) {
    index += 1;
    if ("step" in stage) {
      progress(`[${index}/${total}] running ${stage.step.name}...`);
      const recorded = stage.step.name === "deploy" && L2_EXTERNAL_URL ? await recordedDeployment() : null;
      const output = recorded ?? (await runStep(stage.step.name, stage.step.argv));
      if (stage.step.name === "deploy") deployOutput.text = output;
      for (const line of output.trim().split("\n")) table.push(`  ${line}`);
      continue;
    }
    const spec = stage.service;
    if (NODE_URL && NETWORK !== "regtest" && spec.name === "inscriber") await waitUntilFunded();
    progress(`[${index}/${total}] starting ${spec.name}...`);
    const notes = spec.prepare ? await spec.prepare() : [];
    const url = await supervisor.start({
      name: spec.name,
      args: () => [
        ...(spec.argv ?? ["--import", "tsx", path.join(ROOT, spec.entry!)]),
        ...(typeof spec.args === "function" ? spec.args() : spec.args),
      ],
      ready: spec.ready,
      cwd: ROOT,
    });
    table.push(`${spec.name.padEnd(10)}  ${url}`, ...notes.map((note) => `  ${note}`));
  }
  endProgress();
  process.stdout.write(`${table.join("\n")}\n`);
  process.stderr.write(
    `all services running (logs in ${LOG_DIR}${VERBOSE ? "" : "; --verbose streams them"}); Ctrl-C stops them\n`,
  );
}

main().catch((error) => {
  endProgress();
  process.stderr.write(`start: ${(error as Error).message}\n`);
  void stopAll(1);
});
