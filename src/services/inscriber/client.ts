/**
 * The one client of the inscriber's HTTP API (docs/api.md, "Inscriber"), used by every caller (the
 * relayer, the launchpad, the AMM's settlement and bonding launches, the demo seeding):
 * `POST /inscribe` with a project key and an Idempotency-Key (a retried call gets the same job,
 * never a second inscription) and `GET /jobs/:id`.
 *
 * It reads the inscriber's answers once: a job comes back typed (InscriberJob), which job statuses
 * are final is one table (INSCRIBER_JOB_FINAL, held to the inscriber's own enum by a test), and a
 * call that did not give a job throws one InscriberCallError whose `kind`, `failure` and
 * `retryable` say what it means. Each caller still decides what a final job means for its own work.
 */
import { DogeosError } from "../../errors";
import type { ErrorKind } from "../../errors";
import type { jobView } from "./app";
import type { JobStatus } from "./store";

/** The status of an inscriber job (the inscriber's own enum, src/services/inscriber/store.ts). */
export type InscriberJobStatus = JobStatus;

/**
 * THE table of which job statuses are final: a final job never changes again (confirmed: its
 * reveal is in a block; failed: given up, with a reason). The others move on by themselves.
 */
export const INSCRIBER_JOB_FINAL: Readonly<Record<InscriberJobStatus, boolean>> = {
  queued: false,
  committed: false,
  revealed: false,
  confirmed: true,
  failed: true,
};

export function isFinalJobStatus(status: InscriberJobStatus): boolean {
  return INSCRIBER_JOB_FINAL[status];
}

/** A job as the inscriber reports it (`GET /jobs/:id`, and the answer of `POST /inscribe`). */
export interface InscriberJob {
  id: string;
  project: string;
  status: InscriberJobStatus;
  form: "v1" | "doginals";
  contentType: string;
  action: string | null;
  recipient: string;
  envelopeHash: string;
  commitTxid: string | null;
  /** The reveal transactions, in order; the last completes the inscription. */
  revealTxids: string[];
  inscriptionId: string | null;
  /** Commit plus reveals, once signed. */
  feeKoinu: bigint | null;
  confirmedHeight: number | null;
  /** On a live job why it waits (WAITING_FOR_FUNDS...); on a failed job the reason. */
  error: { code: string; message: string | null } | null;
}

/** Why a final failed job failed, in one form for every caller's records. */
export function jobFailure(job: InscriberJob): string {
  return `inscriber job ${job.id} failed: ${job.error?.code ?? "UNKNOWN"} ${job.error?.message ?? ""}`.trim();
}

/** What a call of the client asks to inscribe. */
export interface InscribeRequest {
  /** The project the job is filed under (default: the client's `project`). */
  project?: string;
  contentType: string;
  /** null: no ACTION. */
  action: string | null;
  content: Uint8Array;
  recipient: string;
}

/**
 * Refusals about how the caller called the inscriber (its configuration), not about the content:
 * retryable, since the operator fixes them without the request changing.
 */
export const CONFIGURATION_REFUSALS: ReadonlySet<string> = new Set([
  "INVALID_PROJECT",
  "INVALID_IDEMPOTENCY_KEY",
  "UNKNOWN_FIELDS",
  "MALFORMED_JSON",
  "BAD_REQUEST",
]);

/** What a failed call came to, as callers record it. */
export type InscriberFailure =
  /** 400, 413, 422: the request itself is refused (final unless a configuration refusal). */
  | "INSCRIBER_REFUSED"
  /** 401, 403: the key is not the project's. */
  | "INSCRIBER_UNAUTHORIZED"
  /** 404 on a job: the inscriber does not know it (another database?). */
  | "INSCRIBER_JOB_NOT_FOUND"
  /** 429, 5xx, an answer that is not a job: try again later. */
  | "INSCRIBER_UNAVAILABLE"
  /** No answer (connection refused, timeout). */
  | "INSCRIBER_UNREACHABLE";

/**
 * A call to the inscriber that did not give a job. `code` is the inscriber's own code (HTTP_<status>
 * when it gave none, INSCRIBER_UNREACHABLE without an answer), `status` the HTTP status (0 without
 * an answer), `details` the answer's.
 */
export class InscriberCallError extends DogeosError {
  readonly failure: InscriberFailure;

  constructor(
    readonly status: number,
    code: string,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    const { kind, failure, retryable } = classify(status, code);
    super(kind, code, message, { ...options, retryable });
    this.failure = failure;
  }

  /** The inscriber refused the request itself (the content, the recipient...), as opposed to being unable to take it. */
  get refused(): boolean {
    return this.failure === "INSCRIBER_REFUSED";
  }
}

/** The one reading of a failed call's status: its kind, what it came to and whether to retry. */
function classify(status: number, code: string): { kind: ErrorKind; failure: InscriberFailure; retryable: boolean } {
  if (status === 0) return { kind: "unavailable", failure: "INSCRIBER_UNREACHABLE", retryable: true };
  if (status === 400 || status === 413 || status === 422) {
    return {
      kind: status === 422 ? "unprocessable" : "invalid",
      failure: "INSCRIBER_REFUSED",
      retryable: CONFIGURATION_REFUSALS.has(code),
    };
  }
  if (status === 401 || status === 403)
    return { kind: status === 401 ? "unauthorized" : "forbidden", failure: "INSCRIBER_UNAUTHORIZED", retryable: false };
  if (status === 404) return { kind: "not_found", failure: "INSCRIBER_JOB_NOT_FOUND", retryable: false };
  if (status === 429) return { kind: "rate_limited", failure: "INSCRIBER_UNAVAILABLE", retryable: true };
  return { kind: "upstream", failure: "INSCRIBER_UNAVAILABLE", retryable: true };
}

export interface InscriberClientOptions {
  /** Base URL of the inscriber (http://host:port). */
  url: string;
  /** The project's key, sent as `Authorization: Bearer`. */
  key: string;
  /** The project requests are filed under when they name none. */
  project?: string;
  /** Per call (default 10 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** The wire form of a job: what the inscriber's own app serializes (jobView). */
type JobJson = ReturnType<typeof jobView>;

export class InscriberClient {
  readonly base: string;
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;

  constructor(private readonly options: InscriberClientOptions) {
    this.base = options.url.replace(/\/+$/, "");
    this.fetch = options.fetch ?? fetch;
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** Submits (or finds again, by `idempotencyKey`) a platform job; `created` is false for a job the key already had. */
  async inscribe(idempotencyKey: string, request: InscribeRequest): Promise<{ job: InscriberJob; created: boolean }> {
    const project = request.project ?? this.options.project;
    if (!project) throw new TypeError("InscriberClient.inscribe: no project (neither the request's nor the client's)");
    const { status, job } = await this.call(
      "POST",
      "/inscribe",
      { "Idempotency-Key": idempotencyKey },
      {
        project,
        content_type: request.contentType,
        ...(request.action ? { action: request.action } : {}),
        content: Buffer.from(request.content).toString("base64"),
        encoding: "base64",
        recipient: request.recipient,
      },
    );
    return { job, created: status === 202 };
  }

  /** `GET /jobs/:id`. */
  async job(id: string): Promise<InscriberJob> {
    return (await this.call("GET", `/jobs/${encodeURIComponent(id)}`)).job;
  }

  private async call(
    method: "GET" | "POST",
    path: string,
    headers: Record<string, string> = {},
    body?: unknown,
  ): Promise<{ status: number; job: InscriberJob }> {
    let response: Response;
    try {
      response = await this.fetch(`${this.base}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${this.options.key}`,
          ...(body === undefined ? {} : { "Content-Type": "application/json" }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new InscriberCallError(
        0,
        "INSCRIBER_UNREACHABLE",
        `the inscriber at ${this.base} did not answer ${method} ${path}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    const text = await response.text();
    let parsed: any = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    const status = response.status;
    if (status >= 200 && status < 300 && isJobJson(parsed)) return { status, job: toJob(parsed) };
    const refusal = parsed?.error;
    const code = typeof refusal?.code === "string" ? refusal.code : `HTTP_${status}`;
    const said =
      typeof refusal?.message === "string"
        ? `${code}: ${refusal.message}`
        : `${status}${status < 300 ? " without a job" : ""}`;
    const details =
      refusal?.details && typeof refusal.details === "object"
        ? (refusal.details as Record<string, unknown>)
        : undefined;
    // A 2xx that is not a job (a proxy's page) is the service's trouble: 502 reads it as such.
    return Promise.reject(
      new InscriberCallError(
        status < 300 ? 502 : status,
        code,
        `the inscriber answered ${method} ${path} with ${said}`,
        { details },
      ),
    );
  }
}

function isJobJson(body: any): body is JobJson {
  return (
    body !== null &&
    typeof body === "object" &&
    typeof body.id === "string" &&
    typeof body.status === "string" &&
    body.status in INSCRIBER_JOB_FINAL
  );
}

function toJob(json: JobJson): InscriberJob {
  return {
    id: json.id,
    project: json.project,
    status: json.status,
    form: json.form,
    contentType: json.content_type,
    action: json.action ?? null,
    recipient: json.recipient,
    envelopeHash: json.envelope_hash,
    commitTxid: json.commit_txid ?? null,
    revealTxids: json.reveal_txids ?? [],
    inscriptionId: json.inscription_id ?? null,
    feeKoinu: json.fee_koinu === null || json.fee_koinu === undefined ? null : BigInt(json.fee_koinu),
    confirmedHeight: json.confirmed_height ?? null,
    error: json.error ?? null,
  };
}
