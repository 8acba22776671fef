/**
 * The wallet's view of the chain over our own index and a dogecoind (or the devnet): confirmed
 * outputs and confirmations from the index, the mempool and broadcasts from the node.
 */
import {
  DogecoinRpcClient,
  DogecoinRpcError,
  RPC_DESERIALIZATION_ERROR,
  RPC_INVALID_ADDRESS_OR_KEY,
  RPC_VERIFY_ALREADY_IN_CHAIN,
  RPC_VERIFY_ERROR,
  RPC_VERIFY_REJECTED,
} from "../chain/dogecoin-rpc";
import { hexToBytes, parseTransaction } from "../doge";
import type { IndexQueries } from "../indexer/queries";
import { BroadcastError, BroadcastFailureKind, ChainTxStatus, ChainUtxo, WalletChain } from "./types";

/** Page size when reading an address's outputs from the index. */
const UTXO_PAGE = 1000;

/**
 * dogecoind's answer to `sendrawtransaction`, as the wallet needs it: "success" when the
 * transaction is in the mempool or the chain already, else the failure kind.
 * -27 (already in chain) and -26 `txn-already-in-mempool` / `txn-already-known` / `already known`
 * are success; -26 `txn-mempool-conflict` / `bad-txns-inputs-spent` are conflicts; -25 (missing
 * inputs) says an input is unknown or spent (1.14 does not tell which); -26 `insufficient fee`,
 * `mempool min fee not met`, `min relay fee not met`, `insufficient priority` are fee refusals;
 * anything else from the node is a refusal; no answer is "unavailable".
 */
export function classifyBroadcastError(error: unknown): "success" | BroadcastFailureKind {
  if (error instanceof DogecoinRpcError) {
    const message = error.message;
    if (error.code === RPC_VERIFY_ALREADY_IN_CHAIN) return "success";
    if (error.code === RPC_VERIFY_ERROR) return "missing_inputs";
    if (error.code === RPC_VERIFY_REJECTED) {
      if (/txn-already-in-mempool|txn-already-known|already known/i.test(message)) return "success";
      if (/mempool-conflict|inputs-spent/i.test(message)) return "conflict";
      if (/insufficient fee|mempool min fee not met|min relay fee not met|insufficient priority/i.test(message))
        return "insufficient_fee";
      return "rejected";
    }
    if (error.code === RPC_DESERIALIZATION_ERROR) return "rejected";
    return "unavailable";
  }
  return "unavailable";
}

/**
 * A WalletChain over the index (`queries`, read-only) and a node (`rpc`): confirmed outputs from
 * the index (all pages); a transaction's status from the index, else the node's mempool
 * (`getmempoolentry`), else the node's chain (`getrawtransaction`, which needs `-txindex=1`) for a
 * block the index has not reached yet; broadcasts through `sendrawtransaction`.
 */
export function indexNodeChain(queries: IndexQueries, rpc: DogecoinRpcClient): WalletChain {
  return {
    async confirmedUtxos(address: string): Promise<ChainUtxo[]> {
      const tip = queries.status().indexedHeight;
      return [...queries.allUtxos(address, UTXO_PAGE)].map((item) => ({
        txid: item.txid,
        vout: item.vout,
        valueKoinu: item.valueKoinu,
        height: item.height,
        scriptHex: item.scriptHex,
        inscriptionIds: item.inscriptions.map((i) => i.id),
        drc20: item.drc20.map((d) => ({ tick: d.tick, amount: d.amount })),
        coinbase: item.coinbase,
        confirmations: Math.max(1, tip - item.height + 1),
      }));
    },

    async txStatus(txid: string): Promise<ChainTxStatus> {
      const view = queries.tx(txid);
      if (view)
        return {
          state: "confirmed",
          height: view.height,
          confirmations: Math.max(1, queries.status().indexedHeight - view.height + 1),
        };
      try {
        await rpc.call("getmempoolentry", [txid]);
        return { state: "mempool" };
      } catch (error) {
        if (!(error instanceof DogecoinRpcError && error.code === RPC_INVALID_ADDRESS_OR_KEY)) throw error;
      }
      try {
        const raw = await rpc.getRawTransactionVerbose(txid);
        if (raw.blockhash && (raw.confirmations ?? 0) > 0) {
          const header = await rpc.getBlockHeader(raw.blockhash);
          if (header.confirmations > 0)
            return { state: "confirmed", height: header.height, confirmations: header.confirmations };
        }
        // Not in a block of the active chain; it may have entered the mempool in between.
        if (!raw.blockhash) return { state: "mempool" };
      } catch (error) {
        if (!(error instanceof DogecoinRpcError && error.code === RPC_INVALID_ADDRESS_OR_KEY)) throw error;
      }
      return { state: "unknown" };
    },

    async broadcast(hex: string): Promise<string> {
      const parsed = parseTransaction(hexToBytes(hex));
      if (!parsed.ok) throw new BroadcastError("rejected", `not a transaction: ${parsed.error.message}`);
      try {
        return await rpc.sendRawTransaction(hex);
      } catch (error) {
        const kind = classifyBroadcastError(error);
        if (kind === "success") return parsed.value.txid;
        const code = error instanceof DogecoinRpcError ? error.code : undefined;
        throw new BroadcastError(kind, error instanceof Error ? error.message : String(error), code);
      }
    },
  };
}
