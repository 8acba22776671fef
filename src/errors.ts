/**
 * The one error base of the project (issue 21), modelled on viem's BaseError and on the dogecoind
 * client's family (src/chain/errors.ts):
 *
 * - `kind`: what went wrong, in words every caller shares (never an HTTP status: one table,
 *   STATUS_OF_KIND below, says a kind's status; the HTTP layer, src/services/http/errors.ts, answers
 *   with it, and a client of another service reads an answer's status back into a kind with it);
 * - `code`: a stable SNAKE_CASE code (dogecoind's numeric code for its own errors);
 * - `details`: machine-readable fields (the JSON `details` of an HTTP answer);
 * - `cause`: the standard ES2022 cause, the error this one wraps (`walk` follows the chain);
 * - `retryable`: whether the same request may succeed if made again (by default: the kinds
 *   `unavailable`, `rate_limited` and `upstream`).
 *
 * A `Refusal` is a DogeosError whose message and details are meant for the caller: what a service
 * answers with (the HTTP layer tells the client any other error only as a 500 INTERNAL).
 *
 * `failureFromExternal` wraps what ethers, the dogecoind client and fetch throw at the boundary of a
 * daemon into an `ExternalCallError` whose `retryable` follows one table (RETRYABLE_* below).
 */

export type ErrorKind =
  /** The request itself is malformed (HTTP 400). */
  | "invalid"
  /** Missing or wrong credentials or signature (401). */
  | "unauthorized"
  /** Authenticated, but not allowed (403). */
  | "forbidden"
  /** No such thing (404). */
  | "not_found"
  /** The state does not allow it now: a duplicate, a race, a replay (409). */
  | "conflict"
  /** It existed and is gone for good (410). */
  | "gone"
  /** Well-formed, but the rules refuse it (422). */
  | "unprocessable"
  /** Too many requests (429). */
  | "rate_limited"
  /** A service this one depends on answered wrongly or not at all (502). */
  | "upstream"
  /** Not possible yet: warming up, behind, a dependency down (503). */
  | "unavailable"
  /** A bug or a broken invariant (500). */
  | "internal";

export const ERROR_KINDS: readonly ErrorKind[] = [
  "invalid",
  "unauthorized",
  "forbidden",
  "not_found",
  "conflict",
  "gone",
  "unprocessable",
  "rate_limited",
  "upstream",
  "unavailable",
  "internal",
];

/**
 * The one place a kind becomes an HTTP status (the HTTP layer answers a Refusal with it; domain
 * code never reads it except to turn another service's answer back into a kind, kindOfStatus).
 */
export const STATUS_OF_KIND: Readonly<Record<ErrorKind, number>> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  upstream: 502,
  unavailable: 503,
};

/**
 * The kind of another service's HTTP answer (the attest panel passes two attesters' refusal on):
 * the status STATUS_OF_KIND maps back to, a 4xx it does not name is `invalid`, a 5xx `upstream`.
 */
export function kindOfStatus(status: number): ErrorKind {
  const kind = (Object.keys(STATUS_OF_KIND) as ErrorKind[]).find((k) => STATUS_OF_KIND[k] === status);
  return kind ?? (status < 500 ? "invalid" : "upstream");
}

/** The kinds whose errors are retryable unless a class says otherwise. */
const RETRYABLE_KINDS: ReadonlySet<ErrorKind> = new Set(["rate_limited", "upstream", "unavailable"]);

export interface DogeosErrorOptions {
  details?: Record<string, unknown>;
  cause?: unknown;
  /** Defaults to the kind's (unavailable, rate_limited, upstream: true; the others false). */
  retryable?: boolean;
}

export class DogeosError<Code extends string | number = string> extends Error {
  readonly kind: ErrorKind;
  readonly code: Code;
  readonly details: Record<string, unknown> | undefined;
  readonly retryable: boolean;

  constructor(kind: ErrorKind, code: Code, message: string, options: DogeosErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.kind = kind;
    this.code = code;
    this.details = options.details;
    this.retryable = options.retryable ?? RETRYABLE_KINDS.has(kind);
  }

  /** The message without its causes (viem's shortMessage): what a log line or an answer shows. */
  get shortMessage(): string {
    return this.message;
  }

  /**
   * Follows `cause` from this error (viem's walk): the first error `fn` accepts, or without `fn`
   * the innermost cause. Stops at a cycle.
   */
  walk(fn?: (error: unknown) => boolean): unknown {
    return walkCauses(this, fn);
  }
}

/** `error`, then its causes in order (stops at a cycle). */
export function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && !chain.includes(current)) {
    chain.push(current);
    current = current instanceof Error ? current.cause : undefined;
  }
  return chain;
}

/** The first of `error` and its causes that `fn` accepts (null when none), or without `fn` the innermost. */
export function walkCauses(error: unknown, fn?: (error: unknown) => boolean): unknown {
  const chain = causeChain(error);
  if (!fn) return chain[chain.length - 1] ?? null;
  return chain.find(fn) ?? null;
}

/** True for an error (or a cause of it) that says the same request may succeed if made again. */
export function isRetryable(error: unknown): boolean {
  return error instanceof DogeosError && error.retryable;
}

/**
 * A refusal meant for the caller: services answer it. Domain code says what the caller needs in
 * words of its own (when to ask again, which credentials to present); the HTTP layer
 * (src/services/http/errors.ts) maps `kind` to the status once, `retryAfterSeconds` to
 * `Retry-After` and `challenge` to `WWW-Authenticate`.
 */
export class Refusal extends DogeosError {
  constructor(
    kind: ErrorKind,
    code: string,
    message: string,
    details?: Record<string, unknown>,
    options: { cause?: unknown; retryable?: boolean; retryAfterSeconds?: number; challenge?: string } = {},
  ) {
    super(kind, code, message, { details, cause: options.cause, retryable: options.retryable });
    if (
      options.retryAfterSeconds !== undefined &&
      (!Number.isInteger(options.retryAfterSeconds) || options.retryAfterSeconds < 0)
    )
      throw new RangeError(`retryAfterSeconds must be a whole number of seconds, got ${options.retryAfterSeconds}`);
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.challenge = options.challenge;
  }

  /** When the same request may be made again, in seconds (HTTP: Retry-After). */
  readonly retryAfterSeconds: number | undefined;
  /** The credentials to present, as an authentication challenge such as `Bearer` (HTTP: WWW-Authenticate). */
  readonly challenge: string | undefined;
}

export const badRequest = (code: string, message: string, details?: Record<string, unknown>) =>
  new Refusal("invalid", code, message, details);
export const notFound = (code: string, message: string, details?: Record<string, unknown>) =>
  new Refusal("not_found", code, message, details);
export const conflict = (code: string, message: string, details?: Record<string, unknown>) =>
  new Refusal("conflict", code, message, details);
export const unprocessable = (code: string, message: string, details?: Record<string, unknown>) =>
  new Refusal("unprocessable", code, message, details);
export const unavailable = (code: string, message: string, details?: Record<string, unknown>) =>
  new Refusal("unavailable", code, message, details);

// -------------------------------------------------------------------- failures at the boundary

/**
 * The one table of which failures of an outside call (the L2 through ethers, dogecoind, another
 * service over fetch) may pass when the call is made again:
 *
 * | failure                                                           | retryable |
 * |-------------------------------------------------------------------|-----------|
 * | no answer: connection refused/reset, DNS, a socket timeout         | yes       |
 * | ethers NETWORK_ERROR, TIMEOUT, SERVER_ERROR, UNKNOWN_ERROR         | yes       |
 * | a nonce race: NONCE_EXPIRED, REPLACEMENT_UNDERPRICED, TRANSACTION_REPLACED | yes |
 * | HTTP 408, 425, 429 and every 5xx                                   | yes       |
 * | an aborted or timed-out fetch (AbortError, TimeoutError)           | yes       |
 * | a revert: ethers CALL_EXCEPTION, a message saying "revert"         | no        |
 * | ethers BAD_DATA, INVALID_ARGUMENT, UNSUPPORTED_OPERATION, ...      | no        |
 * | any other HTTP 4xx                                                 | no        |
 * | a DogeosError (the dogecoind client's included)                    | its own   |
 * | anything else                                                      | no        |
 */
export const RETRYABLE_ETHERS_CODES: ReadonlySet<string> = new Set([
  "NETWORK_ERROR",
  "TIMEOUT",
  "SERVER_ERROR",
  "UNKNOWN_ERROR",
  "NONCE_EXPIRED",
  "REPLACEMENT_UNDERPRICED",
  "TRANSACTION_REPLACED",
]);
export const RETRYABLE_SYSTEM_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
]);
export const RETRYABLE_HTTP_STATUS = (status: number): boolean =>
  status >= 500 || status === 408 || status === 425 || status === 429;

/** What an outside call's failure is, by the table above. */
export interface ExternalFailure {
  /** A stable code: the ethers code, the system code, HTTP_<status>, REVERT (Hardhat's), TIMEOUT, NETWORK_ERROR (fetch). */
  code: string;
  retryable: boolean;
  revert: boolean;
}

const field = (error: unknown, name: string): unknown =>
  typeof error === "object" && error !== null ? (error as Record<string, unknown>)[name] : undefined;

/**
 * The table's verdict on `error`, or null for an error it does not know (not from an outside call:
 * a bug, which callers let through as it is).
 */
export function classifyExternalFailure(error: unknown): ExternalFailure | null {
  if (error instanceof DogeosError) return { code: String(error.code), retryable: error.retryable, revert: false };
  const code = field(error, "code");
  // ethers v6 errors carry a string code and a shortMessage.
  if (typeof code === "string" && typeof field(error, "shortMessage") === "string") {
    return { code, retryable: RETRYABLE_ETHERS_CODES.has(code), revert: code === "CALL_EXCEPTION" };
  }
  const message = String(field(error, "message") ?? "");
  // Hardhat's in-process network throws its own revert errors, carrying the revert data.
  if (field(error, "data") !== undefined && /revert/i.test(message))
    return { code: "REVERT", retryable: false, revert: true };
  for (const candidate of [error, field(error, "cause")]) {
    const system = field(candidate, "code");
    if (typeof system === "string" && RETRYABLE_SYSTEM_CODES.has(system))
      return { code: system, retryable: true, revert: false };
  }
  const status = field(error, "status") ?? field(error, "httpStatus");
  if (typeof status === "number" && status >= 400)
    return { code: `HTTP_${status}`, retryable: RETRYABLE_HTTP_STATUS(status), revert: false };
  const name = field(error, "name");
  if (name === "AbortError" || name === "TimeoutError") return { code: "TIMEOUT", retryable: true, revert: false };
  // fetch's "fetch failed" TypeError: the cause holds the system code (handled above) or nothing useful.
  if (name === "TypeError" && message === "fetch failed")
    return { code: "NETWORK_ERROR", retryable: true, revert: false };
  return null;
}

/** An outside call failed; `cause` is what the client library threw, `retryable` follows the table above. */
export class ExternalCallError extends DogeosError {
  constructor(
    code: string,
    message: string,
    options: { retryable: boolean; cause?: unknown; details?: Record<string, unknown> },
  ) {
    super(options.retryable ? "unavailable" : "upstream", code, message, options);
  }
}

/**
 * Wraps the failure of an outside call (`service`: "L2", "DOGECOIND", "INSCRIBER"...) as an
 * ExternalCallError coded `<service>_<failure code>` (`<service>_FAILED`, not retryable, for one the
 * table does not know); a DogeosError passes unchanged. The message is the failure's own.
 */
export function failureFromExternal(service: string, error: unknown): DogeosError<string | number> {
  if (error instanceof DogeosError) return error;
  const failure = classifyExternalFailure(error) ?? { code: "FAILED", retryable: false, revert: false };
  const message = error instanceof Error ? error.message : String(error);
  return new ExternalCallError(`${service}_${failure.code}`, message, {
    retryable: failure.retryable,
    cause: error,
    details: failure.revert ? { revert: true } : undefined,
  });
}
