/**
 * The base of a JSON API that answers no-store (the launchpad, the AMM): an Express app with JSON
 * bodies up to `bodyLimit`, simple query strings, no X-Powered-By and no ETag (a hash of every
 * body would only cost time when nothing may be cached), and a router whose answers all carry
 * `Cache-Control: no-store`, to mount at `/api`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import express, { NextFunction, Request, RequestHandler, Response } from "express";
import { AppError, errorBody, statusOf } from "./errors";

export function noStoreJsonApp(bodyLimit = "16kb"): { app: express.Express; api: express.Router } {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", "simple");
  app.use(express.json({ limit: bodyLimit }));
  const api = express.Router();
  api.use((_req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    next();
  });
  return { app, api };
}

/**
 * The `Link` header every documented answer carries (RFC 8631 "service-desc"): where the
 * surface's OpenAPI document is. Clients discover the contract from any answer, and the tests'
 * response check (test/helpers/openapi.ts) knows which answers to check against what.
 */
export const SERVICE_DESC_LINK = '</openapi.json>; rel="service-desc"';

/** An Express route from a handler, sync or async: whatever it throws or rejects with goes to `next` (the app's error middleware). */
export function route(handler: (req: Request, res: Response) => unknown): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    Promise.resolve()
      .then(() => handler(req, res))
      .catch(next);
  };
}

/** What a fast route's answer returns to leave the request to the Express app. */
export const TO_EXPRESS = Symbol("to Express");

/**
 * A hot GET route served on node:http in front of an Express app, skipping Express's router and
 * response helpers: `answer` gets the path's match and returns the JSON body (200), throws an
 * AppError (its status and error body), or returns TO_EXPRESS. Any other failure is also left to
 * the Express app, which logs it. Answers are no-store, written by `stringify` (JSON.stringify unless
 * the app writes bigints: the explorer's exactJson). Use:
 * `http.createServer((req, res) => { if (!fast(req, res)) app(req, res); })`.
 */
export function fastJsonGet(
  pattern: RegExp,
  answer: (match: RegExpExecArray) => unknown,
  stringify: (body: unknown) => string = JSON.stringify,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== "GET" || !req.url) return false;
    const match = pattern.exec(req.url);
    if (!match) return false;
    let status = 200;
    let body: unknown;
    try {
      body = answer(match);
      if (body === TO_EXPRESS) return false;
    } catch (error) {
      if (!(error instanceof AppError)) return false;
      status = statusOf(error);
      body = errorBody(error.code, error.message, error.details);
    }
    const text = stringify(body);
    res.writeHead(status, {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Length": Buffer.byteLength(text),
      "Cache-Control": "no-store",
      Link: SERVICE_DESC_LINK,
    });
    res.end(text);
    return true;
  };
}

/**
 * CORS for a public API without credentials (the explorer's /api and its Esplora subset): pages on
 * any origin may read it and broadcast through it; no cookie or auth header is ever read. Mounted
 * before the rate limits, so that a page can read a 429 and its Retry-After too. Preflights
 * (OPTIONS) are answered 204 here.
 */
export const publicCors: RequestHandler = (req, res, next) => {
  res.setHeader("Access-Control-Allow-Origin", "*");
  res.setHeader("Access-Control-Expose-Headers", "Retry-After");
  if (req.method === "OPTIONS") {
    res.setHeader("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
    res.setHeader("Access-Control-Allow-Headers", "Content-Type");
    res.setHeader("Access-Control-Max-Age", "600");
    res.status(204).end();
    return;
  }
  next();
};
