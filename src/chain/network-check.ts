/**
 * Start-up checks of a daemon's nodes: the dogecoind (or devnet) is on the network `--network`
 * names, it keeps a transaction index when the daemon needs one, and the L2 has the chain id
 * `--chain-id` names. A mismatch is a `NodeCheckError` whose message is the one line the daemon
 * prints before it exits (status 2); a node that does not answer yet is retried (`runNodeChecks`)
 * until it does or the daemon stops.
 */
import { getNetwork, hexToBytes, isCoinbase, parseBlock, parseTransaction } from "../doge";
import { type BlockchainInfo, abortableSleep } from "./dogecoin-rpc";
import { DogecoinRpcError, RPC_INVALID_ADDRESS_OR_KEY, RpcAuthError } from "./errors";
import { DogeosError } from "../errors";

/**
 * `getblockchaininfo`'s `chain` for each `--network`: Dogecoin Core's `strNetworkID` in
 * src/chainparams.cpp (CMainParams "main", CTestNetParams "test", CRegTestParams "regtest").
 */
export const CHAIN_OF_NETWORK = { mainnet: "main", testnet: "test", regtest: "regtest" } as const;

const NETWORK_OF_CHAIN: Record<string, string> = { main: "mainnet", test: "testnet", regtest: "regtest" };

/** A node that is not what the daemon was told: the message is the line to print. */
export class NodeCheckError extends DogeosError {
  constructor(message: string) {
    super("invalid", "NODE_CHECK_FAILED", message);
  }
}

/** A URL as it may be shown: no user name, no password. */
export function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.href;
  } catch {
    return "(the configured URL)";
  }
}

/** What the checks ask dogecoind; DogecoinRpcClient has it. */
export interface CheckedNode {
  /** The node's URL (credentials are removed before it is shown). */
  readonly endpoint: string;
  getBlockchainInfo(): Promise<BlockchainInfo>;
  getBestBlockHash(): Promise<string>;
  getBlockHex(hash: string): Promise<string>;
  getRawTransactionHex(txid: string): Promise<string>;
  getTxOut(txid: string, vout: number, includeMempool?: boolean): Promise<unknown | null>;
}

/**
 * Compares `getblockchaininfo.chain` with `network` (mainnet, testnet, regtest; "main" and "test"
 * accepted). Resolves with the node's answer; throws NodeCheckError on a mismatch.
 */
export async function checkNodeNetwork(
  node: Pick<CheckedNode, "endpoint" | "getBlockchainInfo">,
  network: string,
  daemon: string,
  flag = "--rpc-url",
): Promise<BlockchainInfo> {
  const wanted = getNetwork(network).name;
  const info = await node.getBlockchainInfo();
  const expected = CHAIN_OF_NETWORK[wanted];
  if (info.chain !== expected) {
    const actual = NETWORK_OF_CHAIN[info.chain];
    const where = `the node at ${withoutCredentials(node.endpoint)}`;
    throw new NodeCheckError(
      actual
        ? `${daemon}: ${where} is on ${actual} ("${info.chain}") but --network is ${wanted}; pass --network ${actual} or point ${flag} at a ${wanted} node`
        : `${daemon}: ${where} is on an unknown chain "${info.chain}" but --network is ${wanted}; point ${flag} at a ${wanted} node`,
    );
  }
  return info;
}

export type TxindexProbe =
  { state: "on"; txid: string } | { state: "off"; txid: string } | { state: "unknown"; reason: string };

/**
 * Whether dogecoind keeps `-txindex=1`. Dogecoin Core 1.14 has no `getindexinfo`, and its
 * `getrawtransaction` also finds, without the index, any transaction with an unspent output (the
 * "DEPRECATED: for now, it also works for transactions with unspent outputs" path of
 * GetTransaction in 1.14's src/validation.cpp). So the probe needs a confirmed transaction whose
 * outputs are all spent: the previous transaction of an input of a recent block. -5 for it means
 * no index; found with every output spent (`gettxout` null) means an index; a fresh chain with no
 * such transaction in its last `maxBlocks` blocks cannot tell ("unknown").
 */
export async function probeTxindex(node: CheckedNode, maxBlocks = 10, maxCandidates = 20): Promise<TxindexProbe> {
  let hash: string | undefined = await node.getBestBlockHash();
  let candidates = 0;
  for (let walked = 0; walked < maxBlocks && hash; walked++) {
    const parsed = parseBlock(hexToBytes(await node.getBlockHex(hash)));
    if (!parsed.ok) return { state: "unknown", reason: `block ${hash} does not parse` };
    for (const tx of parsed.value.txs) {
      if (isCoinbase(tx)) continue;
      for (const input of tx.inputs) {
        if (++candidates > maxCandidates)
          return { state: "unknown", reason: `no fully spent transaction among ${maxCandidates} candidates` };
        let raw: string;
        try {
          raw = await node.getRawTransactionHex(input.prevTxid);
        } catch (error) {
          // The transaction is confirmed (a confirmed one spends it): only a missing index hides it.
          if (error instanceof DogecoinRpcError && error.code === RPC_INVALID_ADDRESS_OR_KEY)
            return { state: "off", txid: input.prevTxid };
          throw error;
        }
        const prev = parseTransaction(hexToBytes(raw));
        if (!prev.ok) continue;
        let unspent = false;
        for (let vout = 0; vout < prev.value.outputs.length && !unspent; vout++) {
          if ((await node.getTxOut(input.prevTxid, vout, false)) !== null) unspent = true;
        }
        if (!unspent) return { state: "on", txid: input.prevTxid };
      }
    }
    hash = parsed.value.header.prevHash;
    if (/^0+$/.test(hash)) break;
  }
  return { state: "unknown", reason: `no spent transaction in the last ${maxBlocks} blocks` };
}

/**
 * Throws NodeCheckError when the probe finds no transaction index; resolves with the probe
 * otherwise, after a `txindex_unverified` warning on `logger` when the probe could not tell.
 */
export async function checkTxindex(
  node: CheckedNode,
  daemon: string,
  why: string,
  logger?: NodeCheckLogger,
): Promise<TxindexProbe> {
  const probe = await probeTxindex(node);
  if (probe.state === "off") {
    throw new NodeCheckError(
      `${daemon}: the node at ${withoutCredentials(node.endpoint)} has no transaction index (getrawtransaction ${probe.txid} answers -5), which ${why} needs; restart dogecoind with -txindex=1 (once: -reindex)`,
    );
  }
  if (probe.state === "unknown")
    logger?.warn(
      { event: "txindex_unverified", reason: probe.reason },
      `could not tell whether dogecoind has -txindex=1; ${why} needs it`,
    );
  return probe;
}

/** The L2 JSON-RPC call the chain id check makes (ethers' JsonRpcProvider has it). */
export interface L2Rpc {
  send(method: string, params: unknown[]): Promise<unknown>;
}

/** Compares the L2's `eth_chainId` with `chainId`; throws NodeCheckError on a mismatch. */
export async function checkL2ChainId(
  l2: L2Rpc,
  url: string,
  chainId: number | bigint,
  daemon: string,
  flag = "--l2-rpc-url",
): Promise<bigint> {
  const answer = await l2.send("eth_chainId", []);
  const actual = BigInt(answer as string);
  if (actual !== BigInt(chainId)) {
    throw new NodeCheckError(
      `${daemon}: the L2 at ${withoutCredentials(url)} has chain id ${actual} but --chain-id is ${chainId}; pass --chain-id ${actual} or point ${flag} at chain ${chainId}`,
    );
  }
  return actual;
}

export interface NodeCheckLogger {
  info(fields: Record<string, unknown>): void;
  warn(fields: Record<string, unknown>, message?: string): void;
}

/**
 * Runs `check` until it passes: a NodeCheckError (or a refused password) is final and goes to
 * `fatal` (default: the line on stderr, exit 2); any other failure (the node does not answer yet)
 * is logged once and retried every `retryMs`. Resolves true once passed, false when `signal` aborts.
 */
export async function runNodeChecks(options: {
  daemon: string;
  check: () => Promise<void>;
  logger: NodeCheckLogger;
  signal?: AbortSignal;
  retryMs?: number;
  fatal?: (line: string) => void;
}): Promise<boolean> {
  const fatal =
    options.fatal ??
    ((line: string) => {
      process.stderr.write(`${line}\n`);
      process.exit(2);
    });
  let lastFailure: string | null = null;
  while (!options.signal?.aborted) {
    try {
      await options.check();
      if (lastFailure !== null) options.logger.info({ event: "node_checks_passed" });
      return true;
    } catch (error) {
      if (options.signal?.aborted) return false;
      if (error instanceof NodeCheckError) {
        fatal(error.message);
        return false;
      }
      if (error instanceof RpcAuthError) {
        fatal(`${options.daemon}: ${error.message}`);
        return false;
      }
      const message = (error as Error).message.split("\n")[0];
      if (message !== lastFailure) options.logger.warn({ event: "node_checks_waiting", err: message });
      lastFailure = message;
    }
    await abortableSleep(options.retryMs ?? 5_000, options.signal);
  }
  return false;
}
