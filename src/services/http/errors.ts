/**
 * One error family for every HTTP surface (DESIGN.md section 6): a Refusal (src/errors.ts) carries a
 * stable SNAKE_CASE code, a kind and details; the middleware maps its kind to the HTTP status once
 * (STATUS_OF_KIND, src/errors.ts) and writes the JSON body. Anything else is a 500 that is logged
 * and tells the client nothing more. The pure parts live in src/ (STATUS_OF_KIND and kindOfStatus
 * in src/errors.ts, indexBehind and absentOrBehind in src/indexer/read/status.ts) and are
 * re-exported here for the HTTP layer.
 */
import type { ErrorRequestHandler, RequestHandler } from "express";
import { Refusal, STATUS_OF_KIND, badRequest, conflict, kindOfStatus, notFound, unprocessable } from "../../errors";
import { absentOrBehind, indexBehind } from "../../indexer/read/status";

export {
  Refusal,
  STATUS_OF_KIND,
  absentOrBehind,
  badRequest,
  conflict,
  indexBehind,
  kindOfStatus,
  notFound,
  unprocessable,
};

/** The HTTP status a refusal is answered with. */
export const statusOf = (error: Refusal): number => STATUS_OF_KIND[error.kind];

/** The refusals of the HTTP surfaces (the name they had when they carried a status). */
export const AppError = Refusal;
export type AppError = Refusal;

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
