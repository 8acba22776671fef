/**
 * The relayer daemon's HTTP endpoints, on the ops server every daemon uses: GET /health (its own
 * state and what it depends on), GET /metrics (Prometheus text), GET /v1/status (the jobs, and
 * those left for refund), and the port's OpenAPI document (GET /openapi.json, GET /docs).
 */
import type { Registry } from "prom-client";
import { z } from "../services/http/openapi";
import { OpsServer, startOpsServer } from "../services/ops/server";
import type { Relayer } from "./relayer";
import { ALL_STATUSES } from "./store";

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

const Status = z.enum(ALL_STATUSES as [string, ...string[]]).openapi("RelayerJobStatus", {
  description:
    "seen (found on the L2), submitted (base-chain work asked for), l1_done (the base-chain transaction is out), then one of settled, expired, refunded, dropped, failed_permanently",
});
const Bytes32 = z.string().regex(/^0x[0-9a-f]{64}$/);
const Timestamp = z.string().openapi({ format: "date-time" });

/** One job as GET /v1/status lists it (relayer.ts JobSummary). */
export const RelayerJobSummary = z
  .object({
    job_id: Bytes32.openapi({ description: "the L2 job id (bytes32)" }),
    kind: z.enum(["inscription", "anchor"]),
    contract: z.string().openapi({ description: "the service contract (DogeInscriber or DogeAnchor), checksummed" }),
    status: Status,
    round: z.int().min(1).openapi({
      description:
        "1 for the first try at the base-chain work; each failed inscriber job or wallet transaction starts the next",
    }),
    deadline: z.int().openapi({ description: "the job's deadline, L2 unix seconds" }),
    inscriber_job: z
      .string()
      .nullable()
      .openapi({ description: "inscription jobs: the inscriber's job id once submitted" }),
    wallet_label: z
      .string()
      .nullable()
      .openapi({ description: "anchor jobs: the wallet label of the OP_RETURN transaction" }),
    l1_txid: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .nullable()
      .openapi({ description: "the base-chain transaction the receipt is asked for" }),
    l1_height: z.int().nullable(),
    settle_tx: z.string().nullable().openapi({ description: "the L2 settle transaction, once sent" }),
    attempts: z.int().min(0),
    next_attempt_at: Timestamp.nullable().openapi({
      description: "live jobs: when the next attempt is due; null for finished jobs",
    }),
    last_error: z
      .object({ code: z.string(), message: z.string().nullable() })
      .nullable()
      .openapi({ description: "why the last attempt failed or had to wait" }),
  })
  .openapi("RelayerJobSummary");

/** GET /v1/status (relayer.ts RelayerStatus). */
export const RelayerStatusBody = z
  .object({
    running: z.boolean(),
    cursor: z
      .object({ block: z.int().min(0), hash: Bytes32 })
      .nullable()
      .openapi({ description: "the last L2 block scanned; null before the first scan" }),
    l2_head: z.int().min(0).nullable(),
    last_scan_at: Timestamp.nullable(),
    last_scan_error: z.string().nullable(),
    last_pass_at: Timestamp.nullable(),
    jobs: z
      .object(Object.fromEntries(ALL_STATUSES.map((status) => [status, z.int().min(0)])))
      .openapi({ description: "how many jobs are in each status" }),
    live: z
      .array(RelayerJobSummary)
      .openapi({ description: "the jobs in progress (seen, submitted, l1_done), oldest first, at most 100" }),
    attention: z
      .object({
        failed_permanently: z.array(RelayerJobSummary),
        expired: z.array(RelayerJobSummary),
        dropped: z.array(RelayerJobSummary),
      })
      .openapi({ description: "the jobs left for their requesters' refund, most recent first, at most 50 of each" }),
  })
  .openapi("RelayerStatus");

export function startRelayerServer(options: RelayerServerOptions): Promise<OpsServer> {
  const clock = options.clock ?? Date.now;
  const maxScanAgeMs = options.maxScanAgeMs ?? 60_000;
  return startOpsServer({
    host: options.host,
    port: options.port,
    registry: options.registry,
    title: "DogeOS relayer",
    description:
      "The relayer's status port: its health (503 when the last L2 scan is older than allowed or a dependency is down), its metrics and its jobs.",
    health: async () => {
      const status = options.relayer.status();
      const extra = options.health ? await options.health() : {};
      const scanAge = status.last_scan_at === null ? null : clock() - Date.parse(status.last_scan_at);
      const scanOk = scanAge !== null && scanAge <= maxScanAgeMs;
      return {
        ...extra,
        ok: scanOk && extra.ok !== false,
        name: "relayer",
        l2: {
          head: status.l2_head,
          cursor: status.cursor,
          last_scan_at: status.last_scan_at,
          last_scan_error: status.last_scan_error,
        },
        jobs: status.jobs,
      };
    },
    routes: {
      "/v1/status": {
        summary: "The relayer's jobs: counts by status, the live ones and those left for refund",
        schema: RelayerStatusBody,
        answer: () => options.relayer.status(),
      },
    },
  });
}
