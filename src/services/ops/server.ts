/**
 * The operations endpoints every daemon serves: GET /health (its own state and what it depends
 * on), GET /metrics (Prometheus text format), and any extra read-only JSON routes a daemon adds
 * (the relayer's /v1/status).
 *
 * Where they share a port with a public API (mountOpsRoutes), /metrics answers only clients on this
 * host: it tells a stranger the process's memory, load and counters (docs/security.md). A daemon
 * with its own ops port (startOpsServer) serves it to whoever can reach that port.
 */
import http from "node:http";
import net from "node:net";
import type { Request, Router } from "express";
import { Registry } from "prom-client";
import type { IndexQueries } from "../../indexer/queries";
import { errorBody } from "../http/errors";
import { ApiSurface, z } from "../http/openapi";

export type HealthDocument = { ok: boolean } & Record<string, unknown>;

/** How far behind its node an index may be and still serve (blocks). */
export const INDEX_LAG_LIMIT = 6;

/** A daemon's index as its health reports it: ok while at most INDEX_LAG_LIMIT blocks behind the node (or with no node height known). */
export function indexHealth(queries: Pick<IndexQueries, "status">): { ok: boolean; indexedHeight: number; nodeHeight: number | null; startHeight: number } {
  const status = queries.status();
  const ok = status.nodeHeight === null || status.indexedHeight >= status.nodeHeight - INDEX_LAG_LIMIT;
  return { ok, indexedHeight: status.indexedHeight, nodeHeight: status.nodeHeight, startHeight: status.startHeight };
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
  if (req.get("x-forwarded-for") !== undefined || req.get("forwarded") !== undefined || req.get("x-real-ip") !== undefined) return false;
  return isLoopbackAddress(req.socket.remoteAddress);
}

/**
 * GET /health and GET /metrics on a daemon whose HTTP surface is an Express app (mounted beside its
 * API, before its 404 handler): /health as startOpsServer answers it, to everyone; /metrics only to
 * a local client (isLocalRequest), any other gets 403 LOCAL_ONLY with the JSON error body.
 */
export function mountOpsRoutes(router: Router, options: { registry: Registry; health: () => HealthDocument | Promise<HealthDocument>; surface?: ApiSurface }): void {
  const routes = (options.surface ?? new ApiSurface({ title: "operations", description: "health and metrics" })).on(router);
  routes.get("/health", { summary: "The daemon's state and what it depends on (503 when not ok)", tags: ["operations"], responses: { 200: HealthBody, 503: HealthBody } }, async (_input, _req, res) => {
    const health = await options.health();
    res.status(health.ok ? 200 : 503).json(health);
  });
  routes.get("/metrics", { summary: "Prometheus metrics, only to clients on this host (403 LOCAL_ONLY otherwise)", tags: ["operations"], responses: { 200: { description: "Prometheus text format", contentType: "text/plain" } } }, async (_input, req, res) => {
    if (!isLocalRequest(req)) {
      res.status(403).json(errorBody("LOCAL_ONLY", "/metrics is served only to clients on this host; scrape it from there (docs/operations.md)"));
      return;
    }
    res.setHeader("Content-Type", options.registry.contentType);
    res.send(await options.registry.metrics());
  });
}

/** A health document: `ok` and whatever the daemon reports beside it. */
export const HealthBody = z.object({ ok: z.boolean() }).catchall(z.unknown()).openapi("Health");

export interface OpsServerOptions {
  host: string;
  port: number;
  registry: Registry;
  /** Health document; `ok: false` answers 503. */
  health: () => HealthDocument | Promise<HealthDocument>;
  /** Extra GET routes by path, each answering a JSON document. */
  routes?: Record<string, () => unknown | Promise<unknown>>;
}

export async function startOpsServer(options: OpsServerOptions): Promise<{ url: string; close(): Promise<void> }> {
  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "Content-Type": "application/json", "Cache-Control": "no-store" }).end(JSON.stringify(body));
  };
  const paths = ["/health", "/metrics", ...Object.keys(options.routes ?? {})];
  const server = http.createServer(async (req, res) => {
    try {
      const path = (req.url ?? "/").split("?")[0];
      const route = options.routes?.[path];
      if (req.method !== "GET") {
        json(res, 405, { error: { code: "METHOD_NOT_ALLOWED", message: "only GET is served here" } });
      } else if (path === "/health") {
        const health = await options.health();
        json(res, health.ok ? 200 : 503, health);
      } else if (path === "/metrics") {
        res.writeHead(200, { "Content-Type": options.registry.contentType }).end(await options.registry.metrics());
      } else if (route) {
        json(res, 200, await route());
      } else {
        json(res, 404, { error: { code: "NOT_FOUND", message: `only GET ${paths.join(", ")} are served here` } });
      }
    } catch {
      json(res, 500, { error: { code: "INTERNAL", message: "internal error" } });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  return {
    url: `http://${options.host}:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
