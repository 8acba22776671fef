/**
 * The operations endpoints every daemon serves: GET /health (its own state and what it depends
 * on), GET /metrics (Prometheus text format), and any extra read-only JSON routes a daemon adds
 * (the relayer's /v1/status).
 *
 * Where they share a port with a public API (mountOpsRoutes), /metrics answers only clients on this
 * host: it tells a stranger the process's memory, load and counters (docs/security.md). A daemon
 * with its own ops port (startOpsServer) serves it to whoever can reach that port, with the port's
 * own OpenAPI document (GET /openapi.json, reference page GET /docs).
 */
import http from "node:http";
import net from "node:net";
import express from "express";
import type { Request, Router } from "express";
import { Registry } from "prom-client";
import type { IndexQueries } from "../../indexer/queries";
import { errorBody, errorMiddleware } from "../http/errors";
import { ApiSurface, z } from "../http/openapi";

export type HealthDocument = { ok: boolean } & Record<string, unknown>;

/** How far behind its node an index may be and still serve (blocks). */
export const INDEX_LAG_LIMIT = 6;

/** How much received WAL a PostgreSQL replica may hold unreplayed and still serve (bytes). */
export const REPLICA_LAG_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * A daemon's index as its health reports it: ok while at most INDEX_LAG_LIMIT blocks behind the
 * node (or with no node height known) and, read from a replica, with at most
 * REPLICA_LAG_LIMIT_BYTES of WAL not replayed (a load balancer drops a replica that is not ok).
 */
export function indexHealth(queries: Pick<IndexQueries, "status">): {
  ok: boolean;
  indexedHeight: number;
  nodeHeight: number | null;
  startHeight: number;
  replicaLagBytes?: number;
} {
  const status = queries.status();
  const ok =
    (status.nodeHeight === null || status.indexedHeight >= status.nodeHeight - INDEX_LAG_LIMIT) &&
    (status.replica === null || status.replica.lagBytes <= REPLICA_LAG_LIMIT_BYTES);
  const health = {
    ok,
    indexedHeight: status.indexedHeight,
    nodeHeight: status.nodeHeight,
    startHeight: status.startHeight,
  };
  return status.replica ? { ...health, replicaLagBytes: status.replica.lagBytes } : health;
}

const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/** Whether an IP address is this host's loopback: 127.0.0.0/8, ::1, or 127.x mapped into IPv6. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return LOOPBACK.check(mapped[1], "ipv4");
  if (net.isIPv4(address)) return LOOPBACK.check(address, "ipv4");
  return net.isIPv6(address) && LOOPBACK.check(address, "ipv6");
}

/**
 * Whether a request was made on this host: it reached the socket from a loopback address and no
 * proxy forwarded it (a reverse proxy on the same host connects from loopback for every client, so
 * a request carrying forwarding headers is never taken as local, whatever "trust proxy" says).
 */
export function isLocalRequest(req: Request): boolean {
  if (
    req.get("x-forwarded-for") !== undefined ||
    req.get("forwarded") !== undefined ||
    req.get("x-real-ip") !== undefined
  )
    return false;
  return isLoopbackAddress(req.socket.remoteAddress);
}

/**
 * GET /health and GET /metrics on a daemon whose HTTP surface is an Express app (mounted beside its
 * API, before its 404 handler): /health as startOpsServer answers it, to everyone; /metrics only to
 * a local client (isLocalRequest), any other gets 403 LOCAL_ONLY with the JSON error body.
 */
export function mountOpsRoutes(
  router: Router,
  options: { registry: Registry; health: () => HealthDocument | Promise<HealthDocument>; surface: ApiSurface },
): void {
  const routes = options.surface.on(router);
  routes.get(
    "/health",
    {
      summary: "The daemon's state and what it depends on (503 when not ok)",
      tags: ["operations"],
      responses: { 200: HealthBody, 503: HealthBody },
    },
    async (_input, _req, res) => {
      const health = await options.health();
      res.status(health.ok ? 200 : 503).json(health);
    },
  );
  routes.get(
    "/metrics",
    {
      summary: "Prometheus metrics, only to clients on this host (403 LOCAL_ONLY otherwise)",
      tags: ["operations"],
      responses: { 200: { description: "Prometheus text format", contentType: "text/plain" } },
    },
    async (_input, req, res) => {
      if (!isLocalRequest(req)) {
        res
          .status(403)
          .json(
            errorBody(
              "LOCAL_ONLY",
              "/metrics is served only to clients on this host; scrape it from there (docs/operations.md)",
            ),
          );
        return;
      }
      res.setHeader("Content-Type", options.registry.contentType);
      res.send(await options.registry.metrics());
    },
  );
}

/** A health document: `ok` and whatever the daemon reports beside it. */
export const HealthBody = z.object({ ok: z.boolean() }).catchall(z.unknown()).openapi("Health");

/** An extra read-only JSON route of an ops server: its summary and the schema of its answer. */
export interface OpsRoute {
  summary: string;
  description?: string;
  /** The answer's schema (documented in the server's OpenAPI document). */
  schema: z.ZodType;
  answer: () => unknown | Promise<unknown>;
}

export interface OpsServerOptions {
  host: string;
  port: number;
  registry: Registry;
  /** Health document; `ok: false` answers 503. */
  health: () => HealthDocument | Promise<HealthDocument>;
  /** The health document's schema (default HealthBody: `ok` and anything beside it). */
  healthSchema?: z.ZodType;
  /** Extra GET routes by path, each answering a JSON document. */
  routes?: Record<string, OpsRoute>;
  /** The title and description of the server's OpenAPI document (GET /openapi.json). */
  title?: string;
  description?: string;
  /** Where an internal error is logged (default: nowhere; the client gets 500 INTERNAL). */
  log?: (event: string, fields: Record<string, unknown>) => void;
}

export interface OpsServer {
  url: string;
  /** The Express app it serves, and the surface that documents it (GET /openapi.json, /docs). */
  app: express.Express;
  surface: ApiSurface;
  close(): Promise<void>;
}

/**
 * A daemon's own ops port: GET /health, GET /metrics (to whoever reaches the port), the extra JSON
 * routes, and the port's OpenAPI document (GET /openapi.json, the reference page GET /docs). Only
 * GET is served (405 METHOD_NOT_ALLOWED otherwise); answers are no-store.
 */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const surface = new ApiSurface({
    title: options.title ?? "operations",
    description:
      options.description ??
      "A daemon's operations port: its health, its Prometheus metrics and its read-only status routes.",
  });
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use((req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    if (req.method !== "GET") {
      res.status(405).setHeader("Allow", "GET").json(errorBody("METHOD_NOT_ALLOWED", "only GET is served here"));
      return;
    }
    next();
  });
  const routes = surface.on(app);
  const healthSchema = options.healthSchema ?? HealthBody;
  routes.get(
    "/health",
    {
      summary: "The daemon's state and what it depends on (503 when not ok)",
      tags: ["operations"],
      responses: { 200: healthSchema, 503: healthSchema },
    },
    async (_input, _req, res) => {
      const health = await options.health();
      res.status(health.ok ? 200 : 503).json(health);
    },
  );
  routes.get(
    "/metrics",
    {
      summary: "Prometheus metrics",
      tags: ["operations"],
      responses: { 200: { description: "Prometheus text format", contentType: "text/plain" } },
    },
    async (_input, _req, res) => {
      res.setHeader("Content-Type", options.registry.contentType);
      res.send(await options.registry.metrics());
    },
  );
  for (const [routePath, route] of Object.entries(options.routes ?? {})) {
    routes.get(
      routePath,
      { summary: route.summary, description: route.description, tags: ["status"], responses: { 200: route.schema } },
      async (_input, _req, res) => {
        res.json(await route.answer());
      },
    );
  }
  surface.serve(app);
  const paths = ["/health", "/metrics", ...Object.keys(options.routes ?? {}), "/openapi.json", "/docs"];
  app.use((_req, res) => {
    res.status(404).json(errorBody("NOT_FOUND", `only GET ${paths.join(", ")} are served here`));
  });
  app.use(errorMiddleware(options.log ?? (() => undefined)));

  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  return {
    url: `http://${options.host}:${port}`,
    app,
    surface,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
