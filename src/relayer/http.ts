/**
 * The relayer daemon's HTTP endpoints, on the ops server every daemon uses: GET /health (its own
 * state and what it depends on), GET /metrics (Prometheus text) and GET /v1/status (the jobs, and
 * those left for refund).
 */
import type { Registry } from "prom-client";
import { startOpsServer } from "../services/ops/server";
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

export function startRelayerServer(options: RelayerServerOptions): Promise<{ url: string; close(): Promise<void> }> {
  const clock = options.clock ?? Date.now;
  const maxScanAgeMs = options.maxScanAgeMs ?? 60_000;
  return startOpsServer({
    host: options.host,
    port: options.port,
    registry: options.registry,
    health: async () => {
      const status = options.relayer.status();
      const extra = options.health ? await options.health() : {};
      const scanAge = status.last_scan_at === null ? null : clock() - Date.parse(status.last_scan_at);
      const scanOk = scanAge !== null && scanAge <= maxScanAgeMs;
      return {
        ...extra, ok: scanOk && extra.ok !== false, name: "relayer",
        l2: { head: status.l2_head, cursor: status.cursor, last_scan_at: status.last_scan_at, last_scan_error: status.last_scan_error },
        jobs: status.jobs,
      };
    },
    routes: { "/v1/status": () => options.relayer.status() },
  });
}
