/**
 * One error family for every HTTP surface (DESIGN.md section 6): an AppError carries a stable
 * SNAKE_CASE code, the HTTP status and details; the middleware maps it once to the JSON body.
 * Anything else is a 500 that is logged and tells the client nothing more.
 */
import type { ErrorRequestHandler, RequestHandler } from "express";
import { IndexStatus, indexIsBehind } from "../../indexer/read/status";

export class AppError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly details?: Record<string, unknown>, readonly headers?: Record<string, string>) {
    super(message);
    this.name = "AppError";
  }
}

export const badRequest = (code: string, message: string, details?: Record<string, unknown>) => new AppError(400, code, message, details);
export const notFound = (code: string, message: string, details?: Record<string, unknown>) => new AppError(404, code, message, details);
export const conflict = (code: string, message: string, details?: Record<string, unknown>) => new AppError(409, code, message, details);
export const unprocessable = (code: string, message: string, details?: Record<string, unknown>) => new AppError(422, code, message, details);
export const indexBehind = (indexedHeight: number, nodeHeight: number | null, details?: Record<string, unknown>) =>
  new AppError(503, "INDEX_BEHIND", "the index has not reached the data asked for yet", { indexedHeight, nodeHeight, ...details }, { "Retry-After": "5" });

/**
 * Not found in an index: 503 INDEX_BEHIND while the index is behind (indexIsBehind: behind its
 * node, or a replica with WAL not yet replayed; it may only not have it yet), else 404 `code`.
 */
export function absentOrBehind(status: IndexStatus, code: string, message: string, details: Record<string, unknown>): AppError {
  if (indexIsBehind(status)) {
    return indexBehind(status.indexedHeight, status.nodeHeight, status.replica ? { ...details, replica_lag_bytes: status.replica.lagBytes } : details);
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
    if (error instanceof AppError) {
      if (error.headers) for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
      res.status(error.status).json(errorBody(error.code, error.message, error.details));
      return;
    }
    // Body-parser failures (malformed JSON, too large) arrive with a status and a type.
    const status = (error as { status?: number }).status;
    if (typeof status === "number" && status >= 400 && status < 500) {
      const type = (error as { type?: string }).type;
      const code = type === "entity.too.large" ? "BODY_TOO_LARGE" : type === "entity.parse.failed" ? "MALFORMED_JSON" : "BAD_REQUEST";
      res.status(status).json(errorBody(code, code === "MALFORMED_JSON" ? "request body is not valid JSON" : String((error as Error).message)));
      return;
    }
    log("http_internal_error", { method: req.method, path: req.path, err: (error as Error)?.stack ?? String(error) });
    res.status(500).json(errorBody("INTERNAL", "internal error"));
  };
}
