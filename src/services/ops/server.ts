/**
 * The operations endpoints every daemon serves: GET /health (its own state and what it depends
 * on) and GET /metrics (Prometheus text format).
 */
import http from "node:http";
import { Registry } from "prom-client";

export interface OpsServerOptions {
  host: string;
  port: number;
  registry: Registry;
  /** Health document; `ok: false` answers 503. */
  health: () => Promise<{ ok: boolean } & Record<string, unknown>> | ({ ok: boolean } & Record<string, unknown>);
}

export async function startOpsServer(options: OpsServerOptions): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(async (req, res) => {
    try {
      if (req.method === "GET" && req.url === "/health") {
        const health = await options.health();
        res.writeHead(health.ok ? 200 : 503, { "Content-Type": "application/json" }).end(JSON.stringify(health));
      } else if (req.method === "GET" && req.url === "/metrics") {
        res.writeHead(200, { "Content-Type": options.registry.contentType }).end(await options.registry.metrics());
      } else {
        res.writeHead(404, { "Content-Type": "application/json" }).end(JSON.stringify({ error: { code: "NOT_FOUND", message: "only GET /health and GET /metrics are served here" } }));
      }
    } catch {
      res.writeHead(500, { "Content-Type": "application/json" }).end(JSON.stringify({ error: { code: "INTERNAL", message: "internal error" } }));
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
