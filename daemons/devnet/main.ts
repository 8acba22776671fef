/**
 * The devnet base chain daemon: a Dogecoin regtest-compatible node on 127.0.0.1:18332.
 *
 *   node --import tsx daemons/devnet/main.ts [--datadir data/devnet] [--port 18332] [--automine 5] [--emptyblocks 15]
 *        [--rpcuser devnet] [--rpcpassword devnet] [--promiscuousmempool] [--acceptnonstdtxn] [--config file.json]
 *
 * Environment: DEVNET_DATADIR, DEVNET_PORT, DEVNET_HOST, DEVNET_RPC_USER, DEVNET_RPC_PASSWORD,
 * DEVNET_AUTOMINE_SECONDS, DEVNET_PROMISCUOUS_MEMPOOL=1. Command-line flags win over the
 * environment, which wins over the config file. Prints `devnet  <url>` once it serves RPC.
 */
import fs from "node:fs";
import pino from "pino";
import { DevnetNode } from "../../src/devnet/node";
import { DevnetRpcServer } from "../../src/devnet/rpc-server";
import { stopSignal } from "../../src/services/ops/stopping";

interface DevnetConfig {
  datadir: string;
  host: string;
  port: number;
  rpcuser: string;
  rpcpassword: string;
  automine: number;
  /** With automine on: also mine an empty block when none came for this many seconds (0: never). */
  emptyblocks: number;
  promiscuousmempool: boolean;
  acceptnonstdtxn: boolean;
}

const DEFAULTS: DevnetConfig = {
  datadir: "data/devnet",
  host: "127.0.0.1",
  port: 18332,
  rpcuser: "devnet",
  rpcpassword: "devnet",
  automine: 5,
  emptyblocks: 0,
  promiscuousmempool: false,
  acceptnonstdtxn: false,
};

class ConfigError extends Error {}

function parseConfig(argv: string[], env: NodeJS.ProcessEnv): DevnetConfig {
  const flags: Record<string, string | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) throw new ConfigError(`unexpected argument "${arg}"`);
    const [key, inline] = arg.slice(2).split("=", 2);
    if (["promiscuousmempool", "acceptnonstdtxn"].includes(key) && inline === undefined) flags[key] = true;
    else if (inline !== undefined) flags[key] = inline;
    else {
      const value = argv[++i];
      if (value === undefined) throw new ConfigError(`--${key} needs a value`);
      flags[key] = value;
    }
  }
  let file: Partial<Record<keyof DevnetConfig, unknown>> = {};
  if (typeof flags.config === "string") {
    try {
      file = JSON.parse(fs.readFileSync(flags.config, "utf8"));
    } catch (error) {
      throw new ConfigError(`cannot read config file ${flags.config}: ${(error as Error).message}`);
    }
  }
  const fromEnv: Partial<Record<keyof DevnetConfig, string>> = {
    datadir: env.DEVNET_DATADIR,
    host: env.DEVNET_HOST,
    port: env.DEVNET_PORT,
    rpcuser: env.DEVNET_RPC_USER,
    rpcpassword: env.DEVNET_RPC_PASSWORD,
    automine: env.DEVNET_AUTOMINE_SECONDS,
    emptyblocks: env.DEVNET_EMPTY_BLOCK_SECONDS,
    promiscuousmempool: env.DEVNET_PROMISCUOUS_MEMPOOL,
    acceptnonstdtxn: env.DEVNET_ACCEPT_NONSTD,
  };
  const known = new Set([...Object.keys(DEFAULTS), "config"]);
  for (const key of Object.keys(flags)) if (!known.has(key)) throw new ConfigError(`unknown option --${key}`);
  const pick = (key: keyof DevnetConfig): unknown => flags[key] ?? fromEnv[key] ?? file[key] ?? DEFAULTS[key];
  const integer = (key: keyof DevnetConfig, min: number, max: number): number => {
    const value = Number(pick(key));
    if (!Number.isInteger(value) || value < min || value > max) throw new ConfigError(`${key} must be an integer between ${min} and ${max} (got ${String(pick(key))})`);
    return value;
  };
  const bool = (key: keyof DevnetConfig): boolean => {
    const value = pick(key);
    return value === true || value === "1" || value === "true";
  };
  const text = (key: keyof DevnetConfig): string => {
    const value = pick(key);
    if (typeof value !== "string" || value.length === 0) throw new ConfigError(`${key} must be a non-empty string`);
    return value;
  };
  return {
    datadir: text("datadir"),
    host: text("host"),
    port: integer("port", 0, 65535),
    rpcuser: text("rpcuser"),
    rpcpassword: text("rpcpassword"),
    automine: integer("automine", 0, 86_400),
    emptyblocks: integer("emptyblocks", 0, 86_400),
    promiscuousmempool: bool("promiscuousmempool"),
    acceptnonstdtxn: bool("acceptnonstdtxn"),
  };
}

async function main(): Promise<void> {
  let config: DevnetConfig;
  try {
    config = parseConfig(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`devnet: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = pino({ name: "devnet", level: process.env.LOG_LEVEL ?? "info" }, pino.destination(2));
  const log = (event: string, fields?: Record<string, unknown>) => logger.info({ event, ...fields });
  const node = new DevnetNode({
    dataDir: config.datadir,
    promiscuousMempool: config.promiscuousmempool,
    acceptNonStandard: config.acceptnonstdtxn,
    log: (event, fields) => logger.debug({ event, ...fields }),
  });

  let automineSeconds = 0;
  let timer: NodeJS.Timeout | null = null;
  let lastBlockAt = Date.now();
  const setAutomine = (seconds: number) => {
    automineSeconds = seconds;
    if (timer) clearInterval(timer);
    timer = null;
    if (seconds > 0) {
      timer = setInterval(() => {
        try {
          // Blocks come when there is something to confirm; with --emptyblocks also when none came for
          // that long, as a real chain keeps growing (confirmations, and facts 6 deep, need blocks).
          const idleFor = (Date.now() - lastBlockAt) / 1000;
          if (node.mempoolEntries().length === 0 && !(config.emptyblocks > 0 && idleFor >= config.emptyblocks)) return;
          node.generateToAddress(1, node.faucetAddress());
          lastBlockAt = Date.now();
        } catch (error) {
          logger.error({ event: "automine_failed", err: error });
        }
      }, seconds * 1000);
    }
    log("automine", { seconds });
  };

  let stopping = false;
  const server: DevnetRpcServer = new DevnetRpcServer({
    node,
    host: config.host,
    port: config.port,
    username: config.rpcuser,
    password: config.rpcpassword,
    setAutomine,
    getAutomine: () => automineSeconds,
    onStop: () => void shutdown("rpc stop"),
    log: (event, fields) => logger.error({ event, ...fields }),
  });
  const shutdown = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    log("stopping", { reason });
    if (timer) clearInterval(timer);
    await server.close();
    node.close();
    process.exit(0);
  };
  // A deadline on the stop: 4 s after SIGTERM the process exits whatever the close waits on.
  stopSignal("devnet");
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));

  const { host, port } = await server.listen();
  setAutomine(config.automine);
  log("ready", { host, port, height: node.height, tip: node.tipHash, datadir: config.datadir });
  process.stdout.write(`devnet  http://${config.rpcuser}:${config.rpcpassword}@${host}:${port}\n`);
}

main().catch((error) => {
  process.stderr.write(`devnet: fatal: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
