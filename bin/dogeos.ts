/**
 * `npx dogeos <command>`: the stack's one command line (commander for the command tree).
 *
 * Daemons (each runs in this process with the rest of the arguments; `--help` prints its options,
 * generated from the option table that validates them, src/config/load.ts):
 *   devnet, indexer, explorer, inscriber, attester, attest-api, relayer, launchpad, amm
 * Operator tasks:
 *   key new <file>   project add   bonding-key   amm-authorize   deploy   abi export
 *   indexer snapshot --db <index> --out <file>
 *
 * Exit status: the daemon's or task's own; 2 for an unknown command or a bad option.
 */
import { spawn } from "node:child_process";
import Module from "node:module";
import path from "node:path";
import { Command, CommanderError } from "commander";
import { loadDaemonConfig, setUsagePrefix } from "../src/config/load";
import { readSecretLine } from "../src/config/secret-file";
import { getNetwork } from "../src/doge";
import { generateWalletKeyFile } from "../src/wallet/keys";

const ROOT = path.resolve(__dirname, "..");

/** Subcommand, directory under daemons/, one line for `dogeos --help`. */
const DAEMONS: [string, string, string][] = [
  ["devnet", "devnet", "the devnet base chain: a regtest-compatible Dogecoin node speaking dogecoind's RPC"],
  [
    "indexer",
    "indexer",
    "follows a dogecoind over JSON-RPC and writes the index to SQLite (`dogeos indexer snapshot`: a copy of the index)",
  ],
  ["explorer", "explorer", "the explorer API over an index (Esplora subset, inscriptions, tokens)"],
  ["inscriber", "inscriber", "the inscriber service: inscriptions paid from its hot wallet"],
  ["attester", "attester", "one attester: signs facts about the Dogecoin chain for the L2"],
  ["attest-api", "attest-api", "the attest API: facts, proofs and paid requests over the attesters (also `attest`)"],
  ["relayer", "relayer", "relays the L2's inscriber and anchor jobs to Dogecoin"],
  ["launchpad", "launchpad", "the launchpad API and pages"],
  ["amm", "amm", "the AMM and bonding-curve API"],
];

/**
 * Runs daemons/<dir>/main.ts in this process as if it were the main module (`node main.ts args`):
 * process.argv is the daemon's, and `require.main === module` holds in it.
 */
function runDaemon(dir: string, args: string[], summary: string): void {
  const main = path.join(ROOT, "daemons", dir, "main.ts");
  process.argv = [process.argv[0], main, ...args];
  setUsagePrefix("dogeos", summary);
  // Module._load(request, parent, isMain) is how Node loads its entry point (lib/internal/modules/
  // run_main.js); isMain sets process.mainModule and require.main. tsx's hooks compile the file.
  (Module as unknown as { _load(request: string, parent: null, isMain: boolean): unknown })._load(main, null, true);
}

/** Runs a Hardhat script (`hardhat run <script> --network <network>`) in a child process; resolves with its exit status. */
function runHardhat(script: string, network: string | undefined, env: NodeJS.ProcessEnv): Promise<number> {
  const cli = require.resolve("hardhat/internal/cli/cli.js");
  const args = [cli, "run", script, ...(network ? ["--network", network] : [])];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: "inherit", env: { ...process.env, ...env } });
  const forward = (signal: NodeJS.Signals) => () => {
    child.kill(signal);
  };
  const onTerm = forward("SIGTERM");
  const onInt = forward("SIGINT");
  process.on("SIGTERM", onTerm);
  process.on("SIGINT", onInt);
  return new Promise((resolve) => {
    child.on("error", (error) => {
      process.stderr.write(`dogeos: cannot run hardhat: ${error.message}\n`);
      resolve(1);
    });
    child.on("exit", (code, signal) => {
      process.off("SIGTERM", onTerm);
      process.off("SIGINT", onInt);
      resolve(
        code ?? (signal ? 128 + (({ SIGINT: 2, SIGTERM: 15, SIGKILL: 9 } as Record<string, number>)[signal] ?? 1) : 1),
      );
    });
  });
}

/** deploy/deploy.ts's settings: each option sets the environment variable the script (or hardhat.config.ts) reads. */
export const DEPLOY_SPEC = {
  network: {
    kind: "string",
    env: "HARDHAT_NETWORK",
    default: "localhost",
    description: "the Hardhat network: localhost (a local node at L2_RPC_URL) or dogeosTestnet (chain id 6281971)",
  },
  "rpc-url": {
    kind: "url",
    env: "DOGEOS_RPC_URL",
    description: "the L2 JSON-RPC URL of dogeosTestnet (also sets L2_RPC_URL for localhost)",
  },
  "key-file": {
    kind: "string",
    env: "DOGEOS_PRIVATE_KEY_FILE",
    description: "the deployer's private key file, 0x + 64 hex digits, chmod 600 (local chains: the Hardhat accounts)",
  },
  parameters: {
    kind: "string",
    env: "DEPLOY_PARAMETERS",
    description: "the Ignition parameters file (default ignition/parameters/<devnet|dogeos|network>.json)",
  },
  attesters: {
    kind: "string",
    env: "DEPLOY_ATTESTERS",
    description: "three attester addresses, comma-separated (overrides the parameters file)",
  },
  admin: { kind: "string", env: "DEPLOY_ADMIN", description: "the contracts' admin (overrides the parameters file)" },
  guardian: {
    kind: "string",
    env: "DEPLOY_GUARDIAN",
    description: "the guardian that can pause (overrides the parameters file)",
  },
  treasury: {
    kind: "string",
    env: "DEPLOY_TREASURY",
    description: "the treasury and job services' operator (overrides the parameters file)",
  },
  "timelock-delay": {
    kind: "integer",
    env: "DEPLOY_TIMELOCK_DELAY",
    min: 0,
    description: "seconds of the admin timelock (overrides the parameters file)",
  },
} as const;

async function deploy(args: string[]): Promise<number> {
  const config = loadDaemonConfig(
    "dogeos deploy",
    DEPLOY_SPEC,
    (values) => {
      // The key goes to Hardhat as the file's name, never as a value in its environment; checked here
      // first so that a readable or missing file is one clear line.
      if (values["key-file"]) readSecretLine(values["key-file"], "deployer key");
    },
    {
      summary:
        "Deploys the published contracts with Hardhat Ignition (deploy/deploy.ts) and records them in the ABI index; after a failure, run it again: nothing is deployed twice.",
    },
    args,
  );
  const env: NodeJS.ProcessEnv = {};
  for (const [key, option] of Object.entries(DEPLOY_SPEC)) {
    const value = (config as Record<string, unknown>)[key];
    if (value !== undefined && key !== "network") env[option.env] = String(value);
  }
  if (config["rpc-url"]) env.L2_RPC_URL = config["rpc-url"];
  return runHardhat("deploy/deploy.ts", config.network, env);
}

/** `dogeos indexer snapshot`'s settings (src/indexer/snapshot.ts); --db is the indexer daemon's own option and default. */
export const SNAPSHOT_SPEC = {
  db: {
    kind: "string",
    env: "INDEXER_DB",
    alias: "database",
    default: "data/indexer/index.sqlite",
    description:
      "the index to copy: the indexer's SQLite file (a postgres:// URL is refused with the pg_dump / pg_basebackup commands to use)",
  },
  out: { kind: "string", required: true, description: "the snapshot file to write; never replaced if it exists" },
} as const;

/** `dogeos indexer snapshot`: a consistent copy of a SQLite index, taken while the indexer runs. */
function indexerSnapshot(args: string[]): number {
  const config = loadDaemonConfig(
    "dogeos indexer snapshot",
    SNAPSHOT_SPEC,
    undefined,
    {
      summary:
        "Writes a consistent copy of the index (SQLite VACUUM INTO, safe while the indexer writes) and prints its size and indexed height; a new explorer or attester starts from it instead of genesis.",
    },
    args,
  );
  // Loaded here: the daemons' start-up does not pay for it.
  const { formatSnapshotResult, snapshotIndex } =
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only by this task
    require("../src/indexer/snapshot") as typeof import("../src/indexer/snapshot");
  try {
    process.stdout.write(`${formatSnapshotResult(snapshotIndex(config.db, config.out))}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`dogeos indexer snapshot: ${(error as Error).message}\n`);
    return 1;
  }
}

async function abiExport(args: string[]): Promise<number> {
  loadDaemonConfig(
    "dogeos abi export",
    {},
    undefined,
    {
      summary:
        "Writes shared/abi/: the published contracts' ABI files and index.json (compiles first; scripts/export-abi.ts).",
    },
    args,
  );
  return runHardhat("scripts/export-abi.ts", undefined, {});
}

/** Runs a task that resolves with an exit status, and exits with it. */
function finish(status: number | Promise<number>): void {
  Promise.resolve(status).then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`dogeos: ${(error as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}

/** A subcommand whose arguments go untouched to a handler (which prints its own --help). */
function passThrough(parent: Command, name: string, description: string, handler: (args: string[]) => void): Command {
  return parent
    .command(name)
    .description(description)
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument("[options...]", "the command's options (--help lists them)")
    .action((_operands: string[], _options: unknown, command: Command) => handler(command.args));
}

export function buildProgram(): Command {
  const program = new Command("dogeos")
    .description(
      "The dogeos-stack command line: the daemons and the operator tasks. `dogeos <command> --help` lists a command's options.",
    )
    .showSuggestionAfterError()
    .configureOutput({ outputError: (text, write) => write(`dogeos: ${text.replace(/^error: /, "")}`) })
    .exitOverride((error: CommanderError) => {
      // Commander has printed its message; help and version are success, anything else a usage error.
      if (error.code === "commander.unknownCommand")
        process.stderr.write("dogeos: `dogeos --help` lists the commands\n");
      process.exit(error.exitCode === 0 ? 0 : 2);
    });
  program.configureHelp({ sortSubcommands: false });

  for (const [name, dir, description] of DAEMONS) {
    const command = passThrough(program, name, `${description} (daemons/${dir})`, (args) => {
      // `dogeos indexer snapshot ...` is an operator task beside the daemon, not one of its options.
      if (name === "indexer" && args[0] === "snapshot") process.exitCode = indexerSnapshot(args.slice(1));
      else runDaemon(dir, args, `The ${name} daemon (daemons/${dir}/main.ts): ${description}.`);
    });
    // The attest API's command before it was named apart from the attester's: installed units use it.
    if (name === "attest-api") command.alias("attest");
  }

  const key = program.command("key").description("wallet key files");
  key
    .command("new")
    .description("creates a Dogecoin wallet key file (WIF, mode 0600) and prints its address; never overwrites a file")
    .argument("<file>", "the key file to create")
    .option("--network <name>", "mainnet, testnet or regtest", "regtest")
    .action((file: string, options: { network: string }) => {
      let network;
      try {
        network = getNetwork(options.network);
      } catch (error) {
        process.stderr.write(`dogeos key new: ${(error as Error).message}\n`);
        process.exit(2);
      }
      try {
        const walletKey = generateWalletKeyFile(file, network);
        process.stdout.write(`${walletKey.address}\n`);
      } catch (error) {
        process.stderr.write(`dogeos key new: ${(error as Error).message}\n`);
        process.exitCode = 1;
      }
    });

  const project = program.command("project").description("inscriber projects");
  passThrough(project, "add", "adds a project to an inscriber's projects file and prints its key once", (args) => {
    // Operator tasks are loaded only when run: the daemons' start-up does not pay for them.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    finish(require("../scripts/inscriber-project").run(args));
  });

  passThrough(program, "bonding-key", "issues or revokes an operator key for the AMM's bonding launches", (args) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    finish(require("../scripts/amm-bonding-key").run(args));
  });
  passThrough(
    program,
    "amm-authorize",
    "prints a wallet-signed AMM authorization (claim fees, remove liquidity) for curl",
    (args) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      finish(require("../scripts/amm-authorize").run(args));
    },
  );
  passThrough(
    program,
    "deploy",
    "deploys the contracts through Hardhat (deploy/deploy.ts) and records their addresses",
    (args) => finish(deploy(args)),
  );

  const abi = program.command("abi").description("the published contract ABIs");
  passThrough(abi, "export", "writes shared/abi/ (ABI files and index.json)", (args) => finish(abiExport(args)));

  return program;
}

/** The entry point (bin/dogeos.js). */
export function main(argv: string[] = process.argv): void {
  buildProgram().parse(argv);
}
