/**
 * The devnet's JSON-RPC refusals: dogecoind's code (src/doge/policy.ts, from Core's
 * src/rpc/protocol.h) and its message. Mempool refusals are TxRejected (src/doge/standardness.ts).
 */
import { DogeosError } from "../errors";
import { RPC_IN_WARMUP } from "../doge/policy";

export class RpcFailure extends DogeosError<number> {
  constructor(code: number, message: string) {
    super(code === RPC_IN_WARMUP ? "unavailable" : "unprocessable", code, message, {
      retryable: code === RPC_IN_WARMUP,
    });
  }
}
