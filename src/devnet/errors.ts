/**
 * The devnet's JSON-RPC refusals: dogecoind's code (src/doge/policy.ts, from Core's
 * src/rpc/protocol.h) and its message. Mempool refusals are TxRejected (src/doge/standardness.ts).
 */
export class RpcFailure extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.name = "RpcFailure";
    this.code = code;
  }
}
