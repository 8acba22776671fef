/** JSON-RPC errors with dogecoind's codes (src/rpc/protocol.h) and messages. */
export const RPC = Object.freeze({
  MISC_ERROR: -1,
  TYPE_ERROR: -3,
  INVALID_ADDRESS_OR_KEY: -5,
  INVALID_PARAMETER: -8,
  DATABASE_ERROR: -20,
  DESERIALIZATION_ERROR: -22,
  VERIFY_ERROR: -25,
  VERIFY_REJECTED: -26,
  VERIFY_ALREADY_IN_CHAIN: -27,
  IN_WARMUP: -28,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  PARSE_ERROR: -32700,
});

export class RpcFailure extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.name = "RpcFailure";
    this.code = code;
  }
}

/** A transaction refused by mempool policy or consensus, in Core's "<reject code>: <reason>" form. */
export class TxRejected extends RpcFailure {
  readonly rejectCode: number;
  readonly reason: string;
  constructor(rejectCode: number, reason: string) {
    super(RPC.VERIFY_REJECTED, `${rejectCode}: ${reason}`);
    this.rejectCode = rejectCode;
    this.reason = reason;
  }
}

/** Core's reject codes (src/consensus/validation.h, src/validation.h in 0.14). */
export const REJECT = Object.freeze({
  MALFORMED: 0x01,
  INVALID: 0x10,
  OBSOLETE: 0x11,
  DUPLICATE: 0x12,
  NONSTANDARD: 0x40,
  DUST: 0x41,
  INSUFFICIENTFEE: 0x42,
  HIGHFEE: 0x100,
  ALREADY_KNOWN: 0x101,
  CONFLICT: 0x102,
});
