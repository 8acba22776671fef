/** Handing signed transactions to the node, and its refusals mapped to the HTTP error family. */
import {
  RPC_DESERIALIZATION_ERROR,
  RPC_VERIFY_ALREADY_IN_CHAIN,
  RPC_VERIFY_ERROR,
  RPC_VERIFY_REJECTED,
} from "../../doge/policy";
import { Refusal, badRequest } from "../../errors";

export interface BroadcastNode {
  sendRawTransaction(hex: string): Promise<string>;
}

/** dogecoind's sendrawtransaction answers mapped to the HTTP error family. */
export function mapBroadcastError(error: unknown): Refusal {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === RPC_VERIFY_ALREADY_IN_CHAIN)
    return new Refusal("conflict", "ALREADY_IN_CHAIN", "the transaction is already in the block chain");
  if (code === RPC_VERIFY_ERROR)
    return new Refusal("unprocessable", "MISSING_INPUTS", "an input is unknown or already spent", {
      node_message: message,
    });
  if (code === RPC_VERIFY_REJECTED) {
    const conflict = /mempool-conflict|inputs-spent|already-known|already-in-mempool/.test(message);
    return new Refusal(
      conflict ? "conflict" : "unprocessable",
      conflict ? "TX_CONFLICT" : "TX_REJECTED",
      `the node refused the transaction: ${message}`,
      { node_message: message },
    );
  }
  if (code === RPC_DESERIALIZATION_ERROR)
    return badRequest("TX_DECODE_FAILED", "the node could not decode the transaction");
  return new Refusal("upstream", "NODE_UNAVAILABLE", "the base-chain node did not accept the request", {
    node_message: message,
  });
}
