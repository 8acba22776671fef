/**
 * The devnet daemon's option table, the same options, environment variables, defaults and limits as
 * the hand parser in daemons/devnet/main.ts (`parseConfig`), so the devnet can validate with
 * `loadDaemonConfig("devnet", DEVNET_OPTIONS)` and get `--help` like every other daemon.
 */
import type { OptionSpec } from "./load";

export const DEVNET_OPTIONS = {
  datadir: {
    kind: "string",
    env: "DEVNET_DATADIR",
    default: "data/devnet",
    description: "the devnet's data directory (chain and mempool)",
  },
  host: { kind: "string", env: "DEVNET_HOST", default: "127.0.0.1", description: "address the RPC server listens on" },
  port: {
    kind: "integer",
    env: "DEVNET_PORT",
    default: 18332,
    min: 0,
    max: 65535,
    description: "RPC port (18332: dogecoind's testnet/regtest RPC port; 0 = any free port)",
  },
  rpcuser: { kind: "string", env: "DEVNET_RPC_USER", default: "devnet", description: "RPC user" },
  rpcpassword: {
    kind: "string",
    env: "DEVNET_RPC_PASSWORD",
    default: "devnet",
    secret: true,
    description: "RPC password",
  },
  automine: {
    kind: "integer",
    env: "DEVNET_AUTOMINE_SECONDS",
    default: 5,
    min: 0,
    max: 86_400,
    description:
      "every this many seconds, mine a block when the mempool holds transactions (0: only generatetoaddress)",
  },
  emptyblocks: {
    kind: "integer",
    env: "DEVNET_EMPTY_BLOCK_SECONDS",
    default: 0,
    min: 0,
    max: 86_400,
    description: "with automine on: also mine an empty block when none came for this many seconds (0: never)",
  },
  promiscuousmempool: {
    kind: "boolean",
    env: "DEVNET_PROMISCUOUS_MEMPOOL",
    default: false,
    description: "relax the upgradable-NOP policy (like dogecoind -promiscuousmempoolflags)",
  },
  acceptnonstdtxn: {
    kind: "boolean",
    env: "DEVNET_ACCEPT_NONSTD",
    default: false,
    description: "accept non-standard transactions (like dogecoind -acceptnonstdtxn)",
  },
} as const satisfies Record<string, OptionSpec>;
