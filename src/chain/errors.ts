/**
 * Errors of the dogecoind JSON-RPC client (src/chain/dogecoin-rpc.ts) and dogecoind's error codes
 * (Dogecoin Core 1.14 src/rpc/protocol.h).
 *
 * Three kinds of failure, told apart by class:
 * - `DogecoinRpcError`: dogecoind answered with a JSON-RPC error; `code` is its code, `message` its
 *   message, word for word. Never retried, except warm-up (-28).
 * - `RpcTransportError` (and `RpcTimeoutError`): no usable answer: connection refused or reset, a
 *   timeout, a body that is not JSON-RPC. Retried when the request may succeed on a second try.
 * - `RpcAuthError`: dogecoind refused the credentials (401) or the client's address (403).
 *
 * Every message names the method and the node's URL with the password replaced by `***`.
 */

// dogecoind's error codes are defined once, in src/doge/policy.ts; the client re-exports them for its callers.
export {
  RPC_MISC_ERROR,
  RPC_TYPE_ERROR,
  RPC_INVALID_ADDRESS_OR_KEY,
  RPC_OUT_OF_MEMORY,
  RPC_INVALID_PARAMETER,
  RPC_CLIENT_NOT_CONNECTED,
  RPC_CLIENT_IN_INITIAL_DOWNLOAD,
  RPC_DATABASE_ERROR,
  RPC_DESERIALIZATION_ERROR,
  RPC_VERIFY_ERROR,
  RPC_VERIFY_REJECTED,
  RPC_VERIFY_ALREADY_IN_CHAIN,
  RPC_IN_WARMUP,
  RPC_INVALID_REQUEST,
  RPC_METHOD_NOT_FOUND,
  RPC_INVALID_PARAMS,
  RPC_INTERNAL_ERROR,
  RPC_PARSE_ERROR,
} from "../doge/policy";
import { RPC_IN_WARMUP } from "../doge/policy";
import { DogeosError, RETRYABLE_HTTP_STATUS } from "../errors";
import type { ErrorKind } from "../errors";

/**
 * Base of the client's errors, on the project's base (src/errors.ts): which call failed, against
 * which node (password redacted), and whether the same request may succeed if sent again (the
 * client's retry loop asks `retryable`).
 */
export abstract class RpcClientError extends DogeosError<string | number> {
  constructor(
    message: string,
    /** The JSON-RPC method that was called. */
    readonly method: string,
    /** The node's URL with the password replaced by `***`. */
    readonly endpoint: string,
    options: {
      kind: ErrorKind;
      code: string | number;
      retryable: boolean;
      cause?: unknown;
      details?: Record<string, unknown>;
    },
  ) {
    super(options.kind, options.code, message, {
      cause: options.cause,
      retryable: options.retryable,
      details: { method, endpoint, ...options.details },
    });
  }
}

/** dogecoind answered `{"error":{"code","message"}}`. `message` is dogecoind's message, unchanged. */
export class DogecoinRpcError extends RpcClientError {
  /** dogecoind's error code, e.g. RPC_VERIFY_REJECTED (-26). */
  declare readonly code: number;

  constructor(
    code: number,
    message: string,
    method: string,
    endpoint: string,
    /** The HTTP status it came with (500 for most errors, 404 for -32601, 400 for -32600). */
    readonly httpStatus: number,
  ) {
    // Only warm-up is worth another try: every other error is dogecoind's final word.
    super(message, method, endpoint, {
      kind: code === RPC_IN_WARMUP ? "unavailable" : "unprocessable",
      code,
      retryable: code === RPC_IN_WARMUP,
    });
  }
}

export type RpcTransportFailure =
  /** No HTTP answer: refused, reset, DNS, TLS. */
  | "connection"
  /** No complete answer within the client's timeout. */
  | "timeout"
  /** An HTTP answer without a JSON-RPC body, e.g. 503 "Work queue depth exceeded". */
  | "http-status"
  /** A body that is not the JSON-RPC reply to our request. */
  | "invalid-response";

/**
 * The request got no usable JSON-RPC answer (code RPC_CONNECTION, RPC_TIMEOUT, RPC_HTTP_STATUS,
 * RPC_INVALID_RESPONSE). `cause` holds the underlying error, if any.
 */
export class RpcTransportError extends RpcClientError {
  /** HTTP status of the answer, when there was one. */
  readonly httpStatus: number | undefined;
  /** The system error code behind a connection failure: ECONNREFUSED, ECONNRESET, ... */
  readonly systemCode: string | undefined;

  constructor(
    message: string,
    method: string,
    endpoint: string,
    readonly failure: RpcTransportFailure,
    details: { cause?: unknown; httpStatus?: number; systemCode?: string } = {},
  ) {
    // No answer passes, and a server-side status (503 during start-up or under load, 502/504 from a
    // proxy, 429) by src/errors.ts's table; a well-formed answer that is not JSON-RPC (wrong URL,
    // wrong server) will not change.
    const retryable =
      failure === "connection" ||
      failure === "timeout" ||
      (details.httpStatus !== undefined && RETRYABLE_HTTP_STATUS(details.httpStatus));
    super(message, method, endpoint, {
      kind: retryable ? "unavailable" : "upstream",
      code: `RPC_${failure.toUpperCase().replace("-", "_")}`,
      retryable,
      cause: details.cause,
      details: {
        ...(details.httpStatus === undefined ? {} : { http_status: details.httpStatus }),
        ...(details.systemCode === undefined ? {} : { system_code: details.systemCode }),
      },
    });
    this.httpStatus = details.httpStatus;
    this.systemCode = details.systemCode;
  }
}

/** No complete answer within `timeoutMs`; the request was aborted. */
export class RpcTimeoutError extends RpcTransportError {
  constructor(
    method: string,
    endpoint: string,
    readonly timeoutMs: number,
  ) {
    super(`dogecoind RPC ${method} at ${endpoint} timed out after ${timeoutMs} ms`, method, endpoint, "timeout");
  }
}

/** dogecoind refused the request: 401 (wrong rpcuser/rpcpassword) or 403 (not in rpcallowip). RPC_AUTH, not retryable. */
export class RpcAuthError extends RpcClientError {
  constructor(
    method: string,
    endpoint: string,
    readonly httpStatus: number,
  ) {
    super(
      httpStatus === 403
        ? `dogecoind refused ${method} at ${endpoint}: HTTP 403, this address is not in its rpcallowip`
        : `dogecoind refused the credentials for ${method} at ${endpoint}: HTTP ${httpStatus}`,
      method,
      endpoint,
      {
        kind: httpStatus === 403 ? "forbidden" : "unauthorized",
        code: "RPC_AUTH",
        retryable: false,
        details: { http_status: httpStatus },
      },
    );
  }
}

/** True for a failure that the same request may not hit again: transport trouble and warm-up. */
export function isRetryableRpcError(error: unknown): boolean {
  return error instanceof RpcClientError && error.retryable;
}
