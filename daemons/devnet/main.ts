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
import pino from "pino";
import { DEVNET_OPTIONS } from "../../src/config/devnet-options";
import { loadDaemonConfig } from "../../src/config/load";
import { DevnetNode } from "../../src/devnet/node";
import { DevnetRpcServer } from "../../src/devnet/rpc-server";
import { stopSignal } from "../../src/services/ops/stopping";

async function main(): Promise<void> {
  const config = loadDaemonConfig("devnet", DEVNET_OPTIONS, undefined, {
    summary: "the devnet base chain: a Dogecoin regtest-compatible node speaking dogecoind's JSON-RPC",
  });
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
