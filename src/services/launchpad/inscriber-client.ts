/**
 * The launchpad's HTTP client of the inscriber (docs/api.md "Inscriber"): `POST {url}/inscribe` with
 * project "launchpad", the project key as a Bearer token, an Idempotency-Key (a retried call never
 * makes a second inscription) and the body in base64; `GET {url}/jobs/:id` to follow a job.
 */
import { InscriberAnswer, InscriberHttp, InscriberUnreachableError } from "../inscriber/client";
import type { InscriberHttpOptions } from "../inscriber/client";
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

/** The inscriber's base URL (no trailing /inscribe), the key of project "launchpad", a timeout per call. */
export type HttpInscriberOptions = InscriberHttpOptions;

interface JobJson {
  id: string;
  status: InscriberJob["status"];
  reveal_txids: string[] | null;
  inscription_id: string | null;
  confirmed_height: number | null;
  error: { code: string; message: string } | null;
}

export class HttpLaunchpadInscriber implements LaunchpadInscriber {
  private readonly http: InscriberHttp;

  constructor(options: HttpInscriberOptions) {
    this.http = new InscriberHttp(options);
  }

  async inscribe(request: LaunchpadInscriptionRequest): Promise<{ jobId: string }> {
    const job = await this.call("POST", "/inscribe", () => this.http.inscribe(request.idempotencyKey, {
      project: request.project, contentType: request.contentType, action: request.action, content: request.body, recipient: request.recipient,
    }));
    return { jobId: job.id };
  }

  async job(jobId: string): Promise<InscriberJob> {
    const job = await this.call("GET", `/jobs/${encodeURIComponent(jobId)}`, () => this.http.job(jobId));
    return {
      id: job.id,
      status: job.status,
      revealTxids: job.reveal_txids ?? [],
      inscriptionId: job.inscription_id,
      confirmedHeight: job.confirmed_height,
      error: job.error,
    };
  }

  private async call(method: "GET" | "POST", path: string, send: () => Promise<InscriberAnswer>): Promise<JobJson> {
    let answer: InscriberAnswer;
    try {
      answer = await send();
    } catch (error) {
      if (error instanceof InscriberUnreachableError) throw new InscriberCallError("INSCRIBER_UNREACHABLE", error.message, true);
      throw error;
    }
    const { status, body: parsed } = answer;
    const ok = status >= 200 && status < 300;
    if (ok && parsed && typeof (parsed as JobJson).id === "string") return parsed as JobJson;
    const refusal = (parsed as { error?: { code?: string; message?: string } } | null)?.error;
    const inscriberCode = typeof refusal?.code === "string" ? refusal.code : null;
    const said = refusal?.message ? `: ${inscriberCode} ${refusal.message}` : ` (HTTP ${status})`;
    if (status === 401 || status === 403) {
      throw new InscriberCallError("INSCRIBER_UNAUTHORIZED", `the inscriber refused the launchpad's project key${said}`, false, status, inscriberCode);
    }
    if (status === 429 || status >= 500 || ok) {
      throw new InscriberCallError("INSCRIBER_UNAVAILABLE", `the inscriber could not take ${method} ${path} now${said}`, true, status, inscriberCode);
    }
    if (status === 404) {
      throw new InscriberCallError("INSCRIBER_JOB_NOT_FOUND", `the inscriber does not know ${path}${said}`, false, status, inscriberCode);
    }
    throw new InscriberCallError("INSCRIBER_REFUSED", `the inscriber refused ${method} ${path}${said}`, false, status, inscriberCode);
  }
}
