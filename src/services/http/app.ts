/**
 * The base of a JSON API that answers no-store (the launchpad, the AMM): an Express app with JSON
 * bodies up to `bodyLimit`, simple query strings, no X-Powered-By and no ETag (a hash of every
 * body would only cost time when nothing may be cached), and a router whose answers all carry
 * `Cache-Control: no-store`, to mount at `/api`.
 */
import express from "express";

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
