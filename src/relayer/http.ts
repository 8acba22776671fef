/**
 * The relayer daemon's HTTP endpoints: GET /health (its own state and what it depends on),
 * GET /metrics (Prometheus text) and GET /v1/status (the jobs, and those left for refund).
 */
import http from "node:http";
import type { Registry } from "prom-client";
import type { Relayer } from "./relayer";

export interface RelayerServerOptions {
  relayer: Relayer;
  registry: Registry;
  host: string;
  port: number;
  /** Extra health fields (the wallet's balance, the attesters...); `ok: false` there fails the check. */
  health?: () => Promise<Record<string, unknown> & { ok?: boolean }>;
  /** How old the last successful scan may be before /health says 503 (default 60 s). */
  maxScanAgeMs?: number;
  clock?: () => number;
}

export async function startRelayerServer(options: RelayerServerOptions): Promise<{ url: string; close(): Promise<void> }> {
  const clock = options.clock ?? Date.now;
  const maxScanAgeMs = options.maxScanAgeMs ?? 60_000;
  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "Content-Type": "application/json", "Cache-Control": "no-store" }).end(JSON.stringify(body));
  };
  const server = http.createServer(async (req, res) => {
    try {
      const path = (req.url ?? "/").split("?")[0];
      if (req.method !== "GET") {
        json(res, 405, { error: { code: "METHOD_NOT_ALLOWED", message: "only GET is served here" } });
      } else if (path === "/health") {
        const status = options.relayer.status();
        const extra = options.health ? await options.health() : {};
        const scanAge = status.last_scan_at === null ? null : clock() - Date.parse(status.last_scan_at);
        const scanOk = scanAge !== null && scanAge <= maxScanAgeMs;
        const ok = scanOk && extra.ok !== false;
        json(res, ok ? 200 : 503, {
          ...extra, ok, name: "relayer", l2: { head: status.l2_head, cursor: status.cursor, last_scan_at: status.last_scan_at, last_scan_error: status.last_scan_error },
          jobs: status.jobs,
        });
      } else if (path === "/metrics") {
        res.writeHead(200, { "Content-Type": options.registry.contentType }).end(await options.registry.metrics());
      } else if (path === "/v1/status") {
        json(res, 200, options.relayer.status());
      } else {
        json(res, 404, { error: { code: "NOT_FOUND", message: "GET /health, /metrics and /v1/status are served here" } });
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
