/**
 * The inscriber's HTTP API as its clients call it (docs/api.md, "Inscriber"): `POST /inscribe` with
 * a project key and an Idempotency-Key (a retried call gets the same job, never a second
 * inscription), and `GET /jobs/:id`. Transport only: it answers the status and the parsed body, and
 * each caller (the relayer, the launchpad) decides what a status means for its own jobs.
 */

export interface InscriberAnswer {
  status: number;
  /** The parsed JSON body, or null when there was none or it was not JSON (a proxy's error page). */
  body: any;
}

/** The inscriber did not answer (connection refused, timeout...). */
export class InscriberUnreachableError extends Error {
  constructor(readonly base: string, readonly method: string, readonly path: string, readonly reason: string) {
    super(`the inscriber at ${base} did not answer ${method} ${path}: ${reason}`);
    this.name = "InscriberUnreachableError";
  }
}

export interface InscriptionCall {
  project: string;
  contentType: string;
  /** null: no ACTION. */
  action: string | null;
  content: Uint8Array;
  recipient: string;
}

export interface InscriberHttpOptions {
  /** Base URL of the inscriber (http://host:port). */
  url: string;
  /** The project's key, sent as `Authorization: Bearer`. */
  key: string;
  /** Per call (default 10 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export class InscriberHttp {
  readonly base: string;
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;

  constructor(private readonly options: InscriberHttpOptions) {
    this.base = options.url.replace(/\/+$/, "");
    this.fetch = options.fetch ?? fetch;
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** `POST /inscribe` for `call` under `idempotencyKey`; the content goes in base64. */
  inscribe(idempotencyKey: string, call: InscriptionCall): Promise<InscriberAnswer> {
    return this.call("POST", "/inscribe", { "Idempotency-Key": idempotencyKey }, {
      project: call.project,
      content_type: call.contentType,
      ...(call.action ? { action: call.action } : {}),
      content: Buffer.from(call.content).toString("base64"),
      encoding: "base64",
      recipient: call.recipient,
    });
  }

  /** `GET /jobs/:id`. */
  job(id: string): Promise<InscriberAnswer> {
    return this.call("GET", `/jobs/${encodeURIComponent(id)}`);
  }

  private async call(method: "GET" | "POST", path: string, headers: Record<string, string> = {}, body?: unknown): Promise<InscriberAnswer> {
    let response: Response;
    try {
      response = await this.fetch(`${this.base}${path}`, {
        method,
        headers: { Authorization: `Bearer ${this.options.key}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new InscriberUnreachableError(this.base, method, path, (error as Error).message);
    }
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    return { status: response.status, body: parsed };
  }
}
