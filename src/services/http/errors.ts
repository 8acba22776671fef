/**
 * One error family for every HTTP surface (DESIGN.md section 6): a Refusal (src/errors.ts) carries a
 * stable SNAKE_CASE code, a kind and details; the middleware maps its kind to the HTTP status once
 * (STATUS_OF_KIND) and writes the JSON body. Anything else is a 500 that is logged and tells the
 * client nothing more.
 */
import type { ErrorRequestHandler, RequestHandler } from "express";
import { IndexStatus, indexIsBehind } from "../../indexer/read/status";
import { Refusal, badRequest, conflict, notFound, unprocessable } from "../../errors";
import type { ErrorKind } from "../../errors";

export { Refusal, badRequest, conflict, notFound, unprocessable };

/** The one place a kind becomes an HTTP status. */
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

/** The HTTP status a refusal is answered with. */
export const statusOf = (error: Refusal): number => STATUS_OF_KIND[error.kind];

/**
 * The kind of another service's HTTP answer (the attest panel passes two attesters' refusal on):
 * the status STATUS_OF_KIND maps back to, a 4xx it does not name is `invalid`, a 5xx `upstream`.
 */
export function kindOfStatus(status: number): ErrorKind {
  const kind = (Object.keys(STATUS_OF_KIND) as ErrorKind[]).find((k) => STATUS_OF_KIND[k] === status);
  return kind ?? (status < 500 ? "invalid" : "upstream");
}

/** The refusals of the HTTP surfaces (the name they had when they carried a status). */
export const AppError = Refusal;
export type AppError = Refusal;

export const indexBehind = (indexedHeight: number, nodeHeight: number | null, details?: Record<string, unknown>) =>
  new Refusal(
    "unavailable",
    "INDEX_BEHIND",
    "the index has not reached the data asked for yet",
    { indexedHeight, nodeHeight, ...details },
    { retryAfterSeconds: 5 },
  );

/**
 * Not found in an index: 503 INDEX_BEHIND while the index is behind (indexIsBehind: behind its
 * node, or a replica with WAL not yet replayed; it may only not have it yet), else 404 `code`.
 */
export function absentOrBehind(
  status: IndexStatus,
  code: string,
  message: string,
  details: Record<string, unknown>,
): Refusal {
  if (indexIsBehind(status)) {
    return indexBehind(
      status.indexedHeight,
      status.nodeHeight,
      status.replica ? { ...details, replica_lag_bytes: status.replica.lagBytes } : details,
    );
  }
  return notFound(code, message, details);
}

export function errorBody(code: string, message: string, details?: Record<string, unknown>) {
  return { error: details ? { code, message, details } : { code, message } };
}

/** 404 for routes that do not exist. */
export const unknownRoute: RequestHandler = (req, res) => {
  res.status(404).json(errorBody("NOT_FOUND", `no route for ${req.method} ${req.path}`));
};

export function errorMiddleware(log: (event: string, fields: Record<string, unknown>) => void): ErrorRequestHandler {
  return (error, req, res, _next) => {
    if (error instanceof Refusal) {
      if (error.retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(error.retryAfterSeconds));
      if (error.challenge !== undefined) res.setHeader("WWW-Authenticate", error.challenge);
      res.status(statusOf(error)).json(errorBody(error.code, error.message, error.details));
      return;
    }
    // Body-parser failures (malformed JSON, too large) arrive with a status and a type.
    const status = (error as { status?: number }).status;
    if (typeof status === "number" && status >= 400 && status < 500) {
      const type = (error as { type?: string }).type;
      const code =
        type === "entity.too.large"
          ? "BODY_TOO_LARGE"
          : type === "entity.parse.failed"
            ? "MALFORMED_JSON"
            : "BAD_REQUEST";
      res
        .status(status)
        .json(
          errorBody(
            code,
            code === "MALFORMED_JSON" ? "request body is not valid JSON" : String((error as Error).message),
          ),
        );
      return;
    }
    log("http_internal_error", { method: req.method, path: req.path, err: (error as Error)?.stack ?? String(error) });
    res.status(500).json(errorBody("INTERNAL", "internal error"));
  };
}
