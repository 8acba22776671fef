/**
 * The inscriber's one client (src/services/inscriber/client.ts): its table of final job statuses
 * held to the inscriber's own enum (the published schema, the store's counts) and to what the
 * inscriber's worker still picks up (a job is final exactly when no query of the worker selects
 * it); its typed job read from the inscriber's own serializer; and its one reading of a failed call
 * (kind, failure, retryable) for every status the inscriber answers. Without a network: the answers
 * come from a fetch stand-in.
 */
import { expect } from "chai";
import {
  INSCRIBER_JOB_FINAL,
  InscriberClient,
  isFinalJobStatus,
  jobFailure,
} from "../../src/services/inscriber/client";
import type { InscriberJobStatus } from "../../src/services/inscriber/client";
import { Job as JobSchema } from "../../src/services/inscriber/schemas";
import { JobStore, openInscriberDatabase } from "../../src/services/inscriber/store";
import { jobView } from "../../src/services/inscriber/app";
import { inscriberFailure } from "../helpers/inscriber-job";

const TXID = "ab".repeat(32);

function newStore(): JobStore {
  let now = 1_000;
  return new JobStore(openInscriberDatabase(":memory:"), () => now++);
}

function addJob(store: JobStore, id: string) {
  return store.insert({
    id,
    project: "test",
    idempotencyKey: null,
    form: "v1",
    contentType: "application/json",
    action: null,
    body: new TextEncoder().encode("{}"),
    recipient: "nXXXX",
    envelopeHash: "cd".repeat(32),
    feeRateKoinuPerKb: 1_000_000n,
    postageKoinu: 100_000n,
  });
}

/** A fetch that answers `status` with `body` (JSON) to every call, recording the calls. */
function answering(status: number, body: unknown, calls: { url: string; init: RequestInit }[] = []): typeof fetch {
  return (async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return new Response(body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body), { status });
  }) as unknown as typeof fetch;
}

describe("InscriberClient (src/services/inscriber/client.ts)", () => {
  describe("the table of final job statuses", () => {
    it("names exactly the statuses of the inscriber's own enum (the published schema and the store's counts)", () => {
      const schemaStatuses = [...(JobSchema.shape.status.options as readonly string[])].sort();
      expect(Object.keys(INSCRIBER_JOB_FINAL).sort()).to.deep.equal(schemaStatuses);
      expect(Object.keys(newStore().counts()).sort()).to.deep.equal(schemaStatuses);
    });

    it("calls a status final exactly when the inscriber's worker no longer picks a job in it up", () => {
      const store = newStore();
      const statuses = Object.keys(INSCRIBER_JOB_FINAL) as InscriberJobStatus[];
      for (const status of statuses) {
        const { job } = addJob(store, `job_${status}`);
        store.update(job.id, { status, nextAttemptAt: 0 });
      }
      const worked = new Set([...store.due(100, new Set()), ...store.awaitingConfirmation()].map((job) => job.status));
      for (const status of statuses) expect(isFinalJobStatus(status), status).to.equal(!worked.has(status));
      expect(statuses.filter(isFinalJobStatus).sort()).to.deep.equal(["confirmed", "failed"]);
    });
  });

  describe("a job", () => {
    it("is read typed from the inscriber's own serialization of it", async () => {
      const store = newStore();
      const { job: row } = addJob(store, "job_typed");
      const confirmed = store.update(row.id, {
        status: "confirmed",
        commitTxid: TXID,
        revealTxids: [TXID],
        inscriptionId: `${TXID}i0`,
        feeKoinu: 123_456n,
        confirmedHeight: 42,
      });
      const client = new InscriberClient({
        url: "http://inscriber.test/",
        key: "ik",
        fetch: answering(200, jobView(confirmed)),
      });
      const job = await client.job(row.id);
      expect(job).to.deep.equal({
        id: "job_typed",
        project: "test",
        status: "confirmed",
        form: "v1",
        contentType: "application/json",
        action: null,
        recipient: "nXXXX",
        envelopeHash: "cd".repeat(32),
        commitTxid: TXID,
        revealTxids: [TXID],
        inscriptionId: `${TXID}i0`,
        feeKoinu: 123_456n,
        confirmedHeight: 42,
        error: null,
      });
      const failed = { ...job, status: "failed" as const, error: { code: "TX_CONFLICT", message: "spent elsewhere" } };
      expect(jobFailure(failed)).to.equal("inscriber job job_typed failed: TX_CONFLICT spent elsewhere");
      expect(jobFailure({ ...failed, error: null })).to.equal("inscriber job job_typed failed: UNKNOWN");
    });

    it("is filed under the request's project, else the client's, with the key as Idempotency-Key; 202 is a new job, 200 the key's earlier one", async () => {
      const store = newStore();
      const { job: row } = addJob(store, "job_filed");
      const calls: { url: string; init: RequestInit }[] = [];
      const client = new InscriberClient({
        url: "http://inscriber.test",
        key: "ik_secret",
        project: "relayer",
        fetch: answering(202, jobView(row), calls),
      });
      const request = {
        contentType: "text/plain",
        action: null,
        content: new TextEncoder().encode("hi"),
        recipient: "nXXXX",
      };
      expect((await client.inscribe("key-1", request)).created).to.equal(true);
      await client.inscribe("key-2", { ...request, project: "other" });
      expect(calls.map((c) => c.url)).to.deep.equal([
        "http://inscriber.test/inscribe",
        "http://inscriber.test/inscribe",
      ]);
      const headers = calls[0].init.headers as Record<string, string>;
      expect(headers).to.include({ Authorization: "Bearer ik_secret", "Idempotency-Key": "key-1" });
      expect(JSON.parse(String(calls[0].init.body))).to.deep.equal({
        project: "relayer",
        content_type: "text/plain",
        content: "aGk=",
        encoding: "base64",
        recipient: "nXXXX",
      });
      expect(JSON.parse(String(calls[1].init.body)).project).to.equal("other");
      const again = new InscriberClient({
        url: "http://inscriber.test",
        key: "ik",
        project: "relayer",
        fetch: answering(200, jobView(row)),
      });
      expect((await again.inscribe("key-1", request)).created).to.equal(false);
    });
  });

  describe("a failed call", () => {
    const refusal = (code: string) => ({ error: { code, message: `refused: ${code}`, details: { field: "x" } } });
    const cases: { status: number; body: unknown; kind: string; failure: string; retryable: boolean; code: string }[] =
      [
        {
          status: 400,
          body: refusal("INVALID_ADDRESS"),
          kind: "invalid",
          failure: "INSCRIBER_REFUSED",
          retryable: false,
          code: "INVALID_ADDRESS",
        },
        {
          status: 400,
          body: refusal("INVALID_PROJECT"),
          kind: "invalid",
          failure: "INSCRIBER_REFUSED",
          retryable: true,
          code: "INVALID_PROJECT",
        },
        {
          status: 413,
          body: refusal("PAYLOAD_TOO_LARGE"),
          kind: "invalid",
          failure: "INSCRIBER_REFUSED",
          retryable: false,
          code: "PAYLOAD_TOO_LARGE",
        },
        {
          status: 422,
          body: refusal("IDEMPOTENCY_KEY_REUSED"),
          kind: "unprocessable",
          failure: "INSCRIBER_REFUSED",
          retryable: false,
          code: "IDEMPOTENCY_KEY_REUSED",
        },
        {
          status: 401,
          body: refusal("INVALID_PROJECT_KEY"),
          kind: "unauthorized",
          failure: "INSCRIBER_UNAUTHORIZED",
          retryable: false,
          code: "INVALID_PROJECT_KEY",
        },
        {
          status: 403,
          body: refusal("FORBIDDEN"),
          kind: "forbidden",
          failure: "INSCRIBER_UNAUTHORIZED",
          retryable: false,
          code: "FORBIDDEN",
        },
        {
          status: 404,
          body: refusal("JOB_NOT_FOUND"),
          kind: "not_found",
          failure: "INSCRIBER_JOB_NOT_FOUND",
          retryable: false,
          code: "JOB_NOT_FOUND",
        },
        {
          status: 429,
          body: refusal("RATE_LIMITED"),
          kind: "rate_limited",
          failure: "INSCRIBER_UNAVAILABLE",
          retryable: true,
          code: "RATE_LIMITED",
        },
        {
          status: 503,
          body: "<html>bad gateway</html>",
          kind: "upstream",
          failure: "INSCRIBER_UNAVAILABLE",
          retryable: true,
          code: "HTTP_503",
        },
        {
          status: 200,
          body: { hello: "not a job" },
          kind: "upstream",
          failure: "INSCRIBER_UNAVAILABLE",
          retryable: true,
          code: "HTTP_200",
        },
      ];
    for (const c of cases) {
      it(`reads ${c.status} ${c.code} as ${c.failure} (${c.kind}, ${c.retryable ? "retryable" : "not retryable"})`, async () => {
        const client = new InscriberClient({
          url: "http://inscriber.test",
          key: "ik",
          fetch: answering(c.status, c.body),
        });
        const error = await inscriberFailure(client.job("job_x"));
        expect(error).to.include({
          kind: c.kind,
          failure: c.failure,
          retryable: c.retryable,
          code: c.code,
          refused: c.failure === "INSCRIBER_REFUSED",
        });
        if (typeof c.body === "object" && c.status >= 300) expect(error.details).to.deep.equal({ field: "x" });
      });
    }

    it("reads no answer at all as INSCRIBER_UNREACHABLE, retryable, with the cause", async () => {
      const cause = new Error("connect ECONNREFUSED");
      const client = new InscriberClient({
        url: "http://inscriber.test",
        key: "ik",
        fetch: (async () => {
          throw cause;
        }) as unknown as typeof fetch,
      });
      const error = await inscriberFailure(
        client.inscribe("k", {
          project: "p",
          contentType: "text/plain",
          action: null,
          content: new Uint8Array([1]),
          recipient: "n",
        }),
      );
      expect(error).to.include({
        status: 0,
        kind: "unavailable",
        failure: "INSCRIBER_UNREACHABLE",
        code: "INSCRIBER_UNREACHABLE",
        retryable: true,
      });
      expect(error.cause).to.equal(cause);
    });
  });
});
