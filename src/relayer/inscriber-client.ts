/**
 * The relayer's client of the inscriber service (docs/api.md, "Inscriber"): `POST /inscribe` with
 * the relayer's own project key and an Idempotency-Key derived from the L2 job id, so a relayer that
 * restarts (or lost an answer) gets the same inscriber job back, never a second inscription; and
 * `GET /jobs/:id` to follow it. The transport is the inscriber's own client (InscriberHttp); this
 * decides what each answer means for a relayer job.
 */
import { DogeosError } from "../errors";
import { InscriberAnswer, InscriberHttp, InscriberUnreachableError } from "../services/inscriber/client";

/** The inscriber's job view (only the fields the relayer reads). */
export interface InscriberJobView {
  id: string;
  status: "queued" | "committed" | "revealed" | "confirmed" | "failed";
  envelope_hash: string;
  commit_txid: string | null;
  reveal_txids: string[];
  inscription_id: string | null;
  confirmed_height: number | null;
  error: { code: string; message: string } | null;
}

export interface InscribeRequest {
  contentType: string;
  /** null: no ACTION. */
  action: string | null;
  content: Uint8Array;
  recipient: string;
}

/**
 * Refusals about how the relayer called the inscriber (its configuration), not about the content:
 * retryable, since the operator fixes them without the job changing.
 */
export const CONFIGURATION_REFUSALS: ReadonlySet<string> = new Set(["INVALID_PROJECT", "INVALID_IDEMPOTENCY_KEY", "UNKNOWN_FIELDS", "MALFORMED_JSON", "BAD_REQUEST"]);

/**
 * The inscriber refused the request (a 4xx about the request itself). Not retryable (the content is
 * refused for good) unless its code is one of CONFIGURATION_REFUSALS. `details`: the answer's.
 */
export class InscriberRefusedError extends DogeosError {
  constructor(readonly status: number, code: string, message: string, details: unknown) {
    super(status === 422 ? "unprocessable" : "invalid", code, message, {
      details: details === null || details === undefined ? undefined : typeof details === "object" ? (details as Record<string, unknown>) : { value: details },
      retryable: CONFIGURATION_REFUSALS.has(code),
    });
  }
}

/** The inscriber could not be reached or answered with something to retry later (5xx, 401, 429...): retryable. */
export class InscriberUnavailableError extends DogeosError {
  constructor(readonly status: number, code: string, message: string, cause?: unknown) {
    super("unavailable", code, message, { retryable: true, cause });
  }
}

export interface InscriberClientOptions {
  /** Base URL of the inscriber (http://host:port). */
  url: string;
  /** The relayer's project on the inscriber, and its key. */
  project: string;
  key: string;
  timeoutMs?: number;
}

/** Statuses that say the request itself is wrong (as opposed to credentials, limits or the service's health). */
const REFUSALS = new Set([400, 413, 422]);

export class InscriberClient {
  private readonly http: InscriberHttp;

  constructor(private readonly options: InscriberClientOptions) {
    this.http = new InscriberHttp({ url: options.url, key: options.key, timeoutMs: options.timeoutMs });
  }

  private async call(send: () => Promise<InscriberAnswer>): Promise<InscriberAnswer> {
    try {
      return await send();
    } catch (error) {
      if (error instanceof InscriberUnreachableError) {
        throw new InscriberUnavailableError(0, "INSCRIBER_UNREACHABLE", `the inscriber at ${error.base} did not answer: ${error.reason}`, error);
      }
      throw error;
    }
  }

  private failure(status: number, body: any, what: string): Error {
    const code = typeof body?.error?.code === "string" ? body.error.code : `HTTP_${status}`;
    const message = typeof body?.error?.message === "string" ? body.error.message : `${what} answered ${status}`;
    if (REFUSALS.has(status)) return new InscriberRefusedError(status, code, message, body?.error?.details ?? null);
    return new InscriberUnavailableError(status, code, `${what}: ${status} ${code}: ${message}`);
  }

  /** Submits (or finds again, by `idempotencyKey`) the platform job. */
  async inscribe(idempotencyKey: string, request: InscribeRequest): Promise<{ job: InscriberJobView; created: boolean }> {
    const answer = await this.call(() => this.http.inscribe(idempotencyKey, { project: this.options.project, ...request }));
    if (answer.status === 200 || answer.status === 202) return { job: answer.body as InscriberJobView, created: answer.status === 202 };
    throw this.failure(answer.status, answer.body, "POST /inscribe");
  }

  async job(id: string): Promise<InscriberJobView> {
    const answer = await this.call(() => this.http.job(id));
    if (answer.status === 200) return answer.body as InscriberJobView;
    // A job the inscriber no longer knows (another database?) is not the content's fault: keep retrying.
    throw new InscriberUnavailableError(answer.status, answer.body?.error?.code ?? `HTTP_${answer.status}`, `GET /jobs/${id} answered ${answer.status}`);
  }
}
