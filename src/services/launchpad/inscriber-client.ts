/**
 * The launchpad's HTTP client of the inscriber (docs/api.md "Inscriber"): `POST {url}/inscribe` with
 * project "launchpad", the project key as a Bearer token, an Idempotency-Key (a retried call never
 * makes a second inscription) and the body in base64; `GET {url}/jobs/:id` to follow a job.
 */
import type { InscriberJob, LaunchpadInscriber, LaunchpadInscriptionRequest } from "./collections";

/**
 * A refusal or failure of the inscriber. `retryable` is true when the same call may succeed later
 * (unreachable, timeout, 429, 5xx); false when the inscriber refused the request itself (4xx).
 */
export class InscriberCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
    readonly status: number | null = null,
    readonly inscriberCode: string | null = null,
  ) {
    super(message);
    this.name = "InscriberCallError";
  }
}

export interface HttpInscriberOptions {
  /** The inscriber's base URL, e.g. http://127.0.0.1:8082 (no trailing /inscribe). */
  url: string;
  /** The key of project "launchpad" (the inscriber stores only its SHA-256). */
  key: string;
  /** Per call (default 10 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

interface JobJson {
  id: string;
  status: InscriberJob["status"];
  reveal_txids: string[] | null;
  inscription_id: string | null;
  confirmed_height: number | null;
  error: { code: string; message: string } | null;
}

export class HttpLaunchpadInscriber implements LaunchpadInscriber {
  private readonly base: string;
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;

  constructor(private readonly options: HttpInscriberOptions) {
    this.base = options.url.replace(/\/+$/, "");
    this.fetch = options.fetch ?? fetch;
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  async inscribe(request: LaunchpadInscriptionRequest): Promise<{ jobId: string }> {
    const body = JSON.stringify({
      project: request.project,
      content_type: request.contentType,
      action: request.action,
      content: Buffer.from(request.body).toString("base64"),
      encoding: "base64",
      recipient: request.recipient,
    });
    const job = await this.call("POST", "/inscribe", body, { "Idempotency-Key": request.idempotencyKey });
    return { jobId: job.id };
  }

  async job(jobId: string): Promise<InscriberJob> {
    const job = await this.call("GET", `/jobs/${encodeURIComponent(jobId)}`);
    return {
      id: job.id,
      status: job.status,
      revealTxids: job.reveal_txids ?? [],
      inscriptionId: job.inscription_id,
      confirmedHeight: job.confirmed_height,
      error: job.error,
    };
  }

  private async call(method: "GET" | "POST", path: string, body?: string, headers: Record<string, string> = {}): Promise<JobJson> {
    let response: Response;
    try {
      response = await this.fetch(`${this.base}${path}`, {
        method,
        headers: { Authorization: `Bearer ${this.options.key}`, ...(body ? { "Content-Type": "application/json" } : {}), ...headers },
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new InscriberCallError("INSCRIBER_UNREACHABLE", `the inscriber at ${this.base} did not answer ${method} ${path}: ${(error as Error).message}`, true);
    }
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // A proxy's HTML error page: reported by status below.
    }
    if (response.ok && parsed && typeof (parsed as JobJson).id === "string") return parsed as JobJson;
    const refusal = (parsed as { error?: { code?: string; message?: string } } | null)?.error;
    const inscriberCode = typeof refusal?.code === "string" ? refusal.code : null;
    const said = refusal?.message ? `: ${inscriberCode} ${refusal.message}` : ` (HTTP ${response.status})`;
    if (response.status === 401 || response.status === 403) {
      throw new InscriberCallError("INSCRIBER_UNAUTHORIZED", `the inscriber refused the launchpad's project key${said}`, false, response.status, inscriberCode);
    }
    if (response.status === 429 || response.status >= 500 || response.ok) {
      throw new InscriberCallError("INSCRIBER_UNAVAILABLE", `the inscriber could not take ${method} ${path} now${said}`, true, response.status, inscriberCode);
    }
    if (response.status === 404) {
      throw new InscriberCallError("INSCRIBER_JOB_NOT_FOUND", `the inscriber does not know ${path}${said}`, false, response.status, inscriberCode);
    }
    throw new InscriberCallError("INSCRIBER_REFUSED", `the inscriber refused ${method} ${path}${said}`, false, response.status, inscriberCode);
  }
}
