/**
 * Attacks on the public write endpoints and on what the public surfaces show (issue 17, DESIGN.md
 * section 8): a burst from one client, unbounded preparations, a reused idempotency key with other
 * content, the attesters' internal URLs, and /metrics to a client that is not on this host. Each
 * was written to fail before its fix.
 *
 * Clients are told apart by their source address: 127.0.0.2, 127.0.0.3, ... are all this host's
 * loopback on Linux, and a request can leave from any of them.
 */
import { expect } from "chai";
import express from "express";
import { ApiSurface } from "../../src/services/http/openapi";
import { statusOf } from "../../src/services/http/errors";
import http from "node:http";
import os from "node:os";
import type { AddressInfo } from "node:net";
import { Registry } from "prom-client";
import { NETWORKS, bytesToHex, serializeTransaction, txidOf } from "../../src/doge";
import type { Transaction } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { IndexQueries } from "../../src/indexer/queries";
import { createAttestApp } from "../../src/services/attest-api/app";
import { AttesterPanel } from "../../src/services/attest-api/panel";
import { createExplorerApp } from "../../src/services/explorer/app";
import { PQC_MIGRATIONS, PQC_SCHEMA, PqcRegistry } from "../../src/services/explorer/pqc";
import { openDatabase } from "../../src/db/sqlite";
import { createInscriberApp, sha256Hex } from "../../src/services/inscriber/app";
import { PlatformInscriber } from "../../src/services/inscriber/platform";
import { JobStore, openInscriberDatabase } from "../../src/services/inscriber/store";
import { UserSignedInscriber } from "../../src/services/inscriber/user-signed";
import { isLoopbackAddress, mountOpsRoutes } from "../../src/services/ops/server";
import type { HotWallet } from "../../src/wallet";
import { TestKey, newKey } from "../helpers/keys";

const DOGE = 100_000_000n;
/** More requests than any default limit allows in a minute. */
const BURST = 150;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: any;
}

/** One HTTP request from a chosen local address (the "client"), JSON in and out. */
function request(
  url: string,
  options: { method?: string; body?: unknown; from?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const payload =
    options.body === undefined
      ? undefined
      : Buffer.from(typeof options.body === "string" ? options.body : JSON.stringify(options.body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: options.method ?? "GET",
        localAddress: options.from ?? "127.0.0.1",
        agent: false,
        headers: {
          ...(payload ? { "Content-Type": "application/json", "Content-Length": payload.length } : {}),
          ...(options.headers ?? {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let body: unknown = null;
          try {
            body = text ? JSON.parse(text) : null;
          } catch {
            body = null;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

async function listen(
  app: express.Express,
  host = "127.0.0.1",
): Promise<{ server: http.Server; port: number; close(): void }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}

/** A burst of `count` requests from one client, all at once; the answers in order. */
function burst(count: number, make: () => Promise<Answer>): Promise<Answer[]> {
  return Promise.all(Array.from({ length: count }, make));
}

function expectRateLimited(answers: Answer[]): void {
  const refused = answers.filter((answer) => answer.status === 429);
  expect(refused.length, `statuses ${[...new Set(answers.map((a) => a.status))].join(", ")}`).to.be.greaterThan(0);
  expect(answers.length - refused.length, "the first requests of the burst are served").to.be.greaterThan(0);
  for (const answer of refused) {
    expect(answer.body.error.code).to.equal("RATE_LIMITED");
    expect(Number(answer.headers["retry-after"])).to.be.within(1, 60);
  }
}

/** A transaction that decodes (one input, one output to `script`). */
function fundingTransaction(script: Uint8Array, value: bigint, salt: number): Transaction {
  return {
    version: 1,
    inputs: [
      {
        prevTxid: salt.toString(16).padStart(64, "0"),
        vout: 0,
        scriptSig: new Uint8Array([0x51]),
        sequence: 0xffffffff,
      },
    ],
    outputs: [{ value, script }],
    locktime: 0,
  };
}

describe("limits on public writes (adversarial)", () => {
  describe("explorer", () => {
    let base: string;
    let stop: () => void;
    let broadcasts = 0;
    const hex = bytesToHex(serializeTransaction(fundingTransaction(newKey().script, DOGE, 1)));

    before(async () => {
      const indexDb = openIndexerDatabase(":memory:");
      const queries = new IndexQueries(indexDb);
      const pqc = new PqcRegistry(openDatabase(":memory:", PQC_MIGRATIONS, PQC_SCHEMA), NETWORKS.regtest, queries);
      const app = createExplorerApp({
        queries,
        network: NETWORKS.regtest,
        statusCacheMs: 0,
        pqc,
        node: {
          sendRawTransaction: async () => {
            broadcasts++;
            return "ab".repeat(32);
          },
        },
      });
      const running = await listen(app);
      base = `http://127.0.0.1:${running.port}/api`;
      stop = running.close;
    });
    after(() => stop?.());

    it("answers 429 RATE_LIMITED with Retry-After to a burst of broadcasts from one client, and keeps serving other clients and reads", async () => {
      const answers = await burst(BURST, () =>
        request(`${base}/tx/broadcast`, { method: "POST", body: { hex }, from: "127.0.0.2" }),
      );
      expectRateLimited(answers);
      const refused = answers.find((a) => a.status === 429)!;
      expect(refused.headers["access-control-allow-origin"], "a page on another origin can read the refusal").to.equal(
        "*",
      );
      expect(refused.headers["access-control-expose-headers"]).to.include("Retry-After");
      expect(broadcasts, "refused requests never reach the node").to.equal(
        answers.filter((a) => a.status === 200).length,
      );
      const other = await request(`${base}/tx/broadcast`, { method: "POST", body: { hex }, from: "127.0.0.3" });
      expect(other.status, other.text).to.equal(200);
      expect((await request(`${base}/status`, { from: "127.0.0.2" })).status, "reads are not limited").to.equal(200);
    });

    it("limits the pipeline and the post-quantum registry writes the same way", async () => {
      expectRateLimited(
        await burst(BURST, () =>
          request(`${base}/tx/pipeline`, { method: "POST", body: { transactions: [hex] }, from: "127.0.0.4" }),
        ),
      );
      expectRateLimited(
        await burst(BURST, () =>
          request(`${base}/pqc/register`, { method: "POST", body: { address: "x" }, from: "127.0.0.5" }),
        ),
      );
      expectRateLimited(
        await burst(BURST, () =>
          request(`${base}/pqc/revoke`, { method: "POST", body: { address: "x" }, from: "127.0.0.6" }),
        ),
      );
    });
  });

  it("takes the limit its daemon passes (--rate-limit), and 0 turns it off", async () => {
    const queries = new IndexQueries(openIndexerDatabase(":memory:"));
    const hex = bytesToHex(serializeTransaction(fundingTransaction(newKey().script, DOGE, 2)));
    for (const [limit, served] of [
      [3, 3],
      [0, 20],
    ]) {
      const running = await listen(
        createExplorerApp({
          queries,
          network: NETWORKS.regtest,
          node: { sendRawTransaction: async () => "ab".repeat(32) },
          rateLimitPerMinute: limit,
        }),
      );
      try {
        const answers = await burst(20, () =>
          request(`http://127.0.0.1:${running.port}/api/tx/broadcast`, { method: "POST", body: { hex } }),
        );
        expect(answers.filter((a) => a.status === 200).length, `limit ${limit}`).to.equal(served);
        if (limit > 0)
          expect(answers.find((a) => a.status === 429)!.body.error.details).to.include({
            limit_name: "explorer broadcast",
            limit: 3,
          });
      } finally {
        running.close();
      }
    }
  });

  it("gives a client one broadcast budget across /api/tx/broadcast and the Esplora subset's POST /tx", async () => {
    const queries = new IndexQueries(openIndexerDatabase(":memory:"));
    const hex = bytesToHex(serializeTransaction(fundingTransaction(newKey().script, DOGE, 3)));
    const running = await listen(
      createExplorerApp({
        queries,
        network: NETWORKS.regtest,
        node: { sendRawTransaction: async () => "ab".repeat(32) },
        rateLimitPerMinute: 3,
      }),
    );
    try {
      const root = `http://127.0.0.1:${running.port}`;
      for (let i = 0; i < 2; i++)
        expect(
          (await request(`${root}/api/tx/broadcast`, { method: "POST", body: { hex }, from: "127.0.0.7" })).status,
        ).to.equal(200);
      expect(
        (
          await request(`${root}/esplora/api/tx`, {
            method: "POST",
            body: hex,
            from: "127.0.0.7",
            headers: { "Content-Type": "text/plain" },
          })
        ).status,
      ).to.equal(200);
      const fourth = await request(`${root}/esplora/api/tx`, {
        method: "POST",
        body: hex,
        from: "127.0.0.7",
        headers: { "Content-Type": "text/plain" },
      });
      expect([fourth.status, fourth.body?.error?.code]).to.deep.equal([429, "RATE_LIMITED"]);
      expect(
        (await request(`${root}/api/tx/broadcast`, { method: "POST", body: { hex }, from: "127.0.0.7" })).status,
      ).to.equal(429);
    } finally {
      running.close();
    }
  });

  describe("inscriber", () => {
    let base: string;
    let stop: () => void;
    let jobs: JobStore;
    let userSigned: UserSignedInscriber;
    let inscriberDb: ReturnType<typeof openInscriberDatabase>;
    let now = Date.UTC(2025, 0, 1);
    const LAUNCHPAD_KEY = "ik_limits_launchpad";
    /** Funded users: each has one confirmed 100 DOGE output in the fake index. */
    const funded = new Map<string, { key: TestKey; tx: Transaction; txid: string }>();

    function fund(): TestKey {
      const key = newKey();
      const tx = fundingTransaction(key.script, 100n * DOGE, funded.size + 100);
      funded.set(key.address, { key, tx, txid: txidOf(tx) });
      return key;
    }
    const prepareBody = (key: TestKey, text = "hello") => ({
      address: key.address,
      public_key: bytesToHex(key.publicKey),
      content_type: "text/plain;charset=utf-8",
      content: text,
    });
    let queries: IndexQueries;
    let rawTransactions: { rawTransaction(txid: string): Promise<string>; unspentWithMempool(): Promise<boolean> };
    const preparationRows = () => (inscriberDb.prepare("SELECT COUNT(*) AS n FROM prepares").get() as { n: number }).n;

    before(async () => {
      inscriberDb = openInscriberDatabase(":memory:");
      jobs = new JobStore(inscriberDb, () => now);
      // The index and the node as far as /prepare needs them: the user's confirmed, unspent outputs.
      queries = {
        utxos: (address: string) => {
          const user = funded.get(address);
          const items = user
            ? [
                {
                  txid: user.txid,
                  vout: 0,
                  valueKoinu: 100n * DOGE,
                  height: 1,
                  scriptHex: bytesToHex(user.key.script),
                  inscriptions: [],
                  drc20: [],
                },
              ]
            : [];
          return { items };
        },
      } as unknown as IndexQueries;
      rawTransactions = {
        rawTransaction: async (txid: string) =>
          bytesToHex(serializeTransaction([...funded.values()].find((user) => user.txid === txid)!.tx)),
        unspentWithMempool: async () => true,
      };
      userSigned = new UserSignedInscriber({
        db: inscriberDb,
        queries,
        rawTransactions,
        network: NETWORKS.regtest,
        feeRateKoinuPerKb: 1_000_000n,
        postageKoinu: 1_000_000n,
        now: () => now,
      });
      // The worker never starts: submitting a job only plans it (with the wallet's key) and stores it.
      const platform = new PlatformInscriber({
        store: jobs,
        wallet: { key: newKey() } as unknown as HotWallet,
        network: NETWORKS.regtest,
        postageKoinu: 1_000_000n,
        feeRateKoinuPerKb: 1_000_000n,
        now: () => now,
      });
      const app = createInscriberApp({
        network: NETWORKS.regtest,
        projects: new Map([["launchpad", sha256Hex(LAUNCHPAD_KEY)]]),
        platform,
        jobs,
        userSigned,
        maxPayloadBytes: 4096,
        feeRateKoinuPerKb: 1_000_000n,
        postageKoinu: 1_000_000n,
      });
      const running = await listen(app);
      base = `http://127.0.0.1:${running.port}`;
      stop = running.close;
    });
    after(() => stop?.());

    it("answers 429 RATE_LIMITED with Retry-After to a burst of /prepare from one client, and keeps serving other clients", async () => {
      // Bodies that fail validation still count: the limit is checked before any work.
      const answers = await burst(BURST, () =>
        request(`${base}/prepare`, { method: "POST", body: { address: "nope" }, from: "127.0.0.2" }),
      );
      expectRateLimited(answers);
      const other = await request(`${base}/prepare`, { method: "POST", body: prepareBody(fund()), from: "127.0.0.3" });
      expect(other.status, other.text).to.equal(201);
    });

    it("keeps a bounded number of preparations per client, and deletes expired ones", async () => {
      const user = fund();
      const made: Answer[] = [];
      // Sequential, well inside the request rate limit: only the preparation cap can refuse.
      for (let i = 0; i < 40; i++) {
        const answer = await request(`${base}/prepare`, {
          method: "POST",
          body: prepareBody(user, `note ${i}`),
          from: "127.0.0.4",
        });
        made.push(answer);
        if (answer.status !== 201) break;
      }
      const refused = made[made.length - 1];
      expect(refused.status, `after ${made.length - 1} preparations`).to.equal(429);
      expect(refused.body.error.code).to.equal("TOO_MANY_PREPARATIONS");
      expect(Number(refused.headers["retry-after"])).to.be.greaterThan(0);
      const cap = made.length - 1;
      expect(cap).to.be.within(1, 39);
      // Another client is not refused by this one's preparations.
      const other = await request(`${base}/prepare`, { method: "POST", body: prepareBody(fund()), from: "127.0.0.5" });
      expect(other.status, other.text).to.equal(201);

      // A day later every one of them has expired and been deleted: the client may prepare again
      // and the table holds only what is live.
      now += 24 * 3600_000;
      const again = await request(`${base}/prepare`, {
        method: "POST",
        body: prepareBody(user, "again"),
        from: "127.0.0.4",
      });
      expect(again.status, again.text).to.equal(201);
      expect(preparationRows()).to.equal(1);
      const gone = await request(`${base}/prepare/${made[0].body.id}`);
      expect(gone.status).to.equal(404);
    });

    it("caps the preparations of all clients together, and frees room as they expire", async () => {
      const small = new UserSignedInscriber({
        db: openInscriberDatabase(":memory:"),
        queries,
        rawTransactions,
        network: NETWORKS.regtest,
        feeRateKoinuPerKb: 1_000_000n,
        postageKoinu: 1_000_000n,
        maxPerClient: 5,
        maxTotal: 2,
        ttlMs: 60_000,
        now: () => now,
      });
      const input = {
        form: "v1" as const,
        recipient: "",
        content: { contentType: "text/plain", action: null, body: new TextEncoder().encode("x") },
      };
      const prepareFor = (client: string) => {
        const user = fund();
        return small.prepare(user.address, bytesToHex(user.publicKey), { ...input, recipient: user.address }, client);
      };
      await prepareFor("198.51.100.1");
      await prepareFor("198.51.100.2");
      let refusal: any = null;
      await prepareFor("198.51.100.3").catch((error) => {
        refusal = error;
      });
      expect(refusal && statusOf(refusal)).to.equal(429);
      expect(refusal?.code).to.equal("TOO_MANY_PREPARATIONS");
      expect(refusal?.details).to.deep.equal({ scope: "total", limit: 2 });
      expect(refusal?.retryAfterSeconds).to.be.within(1, 60);
      now += 60_000;
      expect((await prepareFor("198.51.100.3")).status).to.equal("awaiting_commit_signature");
    });

    it("refuses with 409 IDEMPOTENCY_KEY_REUSED a repeated Idempotency-Key with other content, and answers the same job for the same content", async () => {
      const recipient = newKey().address;
      const send = (content: string, to = recipient) =>
        request(`${base}/inscribe`, {
          method: "POST",
          headers: { Authorization: `Bearer ${LAUNCHPAD_KEY}`, "Idempotency-Key": "mint-x-5-attempt-2" },
          body: { project: "launchpad", content_type: "text/plain", content, recipient: to },
        });
      const first = await send("token 5 of x");
      expect(first.status, first.text).to.equal(202);
      const retry = await send("token 5 of x");
      expect(retry.status).to.equal(200);
      expect(retry.body.id).to.equal(first.body.id);
      const other = await send("token 2 of x-5-attempt");
      expect(other.status, other.text).to.equal(409);
      expect(other.body.error.code).to.equal("IDEMPOTENCY_KEY_REUSED");
      expect(other.body.error.details.job_id).to.equal(first.body.id);
      const elsewhere = await send("token 5 of x", newKey().address);
      expect(elsewhere.status, "another recipient is other content").to.equal(409);
      expect(jobs.counts().queued).to.equal(1);
    });
  });

  describe("attest API", () => {
    let base: string;
    let stops: (() => void)[] = [];
    let fulfilments = 0;
    let attesterUrl: string;
    const signer = "0x" + "11".repeat(20);

    before(async () => {
      const attester = express();
      attester.get("/v1/info", (_req, res) => {
        res.json({
          signer,
          signable_height: 10,
          indexed_height: 15,
          attester_set_id: "1",
          domain: { name: "DogeAttestation", version: "1", chainId: 31337, verifyingContract: "0x" + "22".repeat(20) },
        });
      });
      const runningAttester = await listen(attester);
      attesterUrl = `http://127.0.0.1:${runningAttester.port}`;
      // One attester up, two that refuse connections: their errors name their addresses.
      const panel = new AttesterPanel({
        attesters: [attesterUrl, "http://127.0.0.1:1", "http://127.0.0.1:2"],
        timeoutMs: 2000,
        infoCacheMs: 0,
        answerCacheMs: 0,
      });
      const app = createAttestApp({
        panel,
        queries: new IndexQueries(openIndexerDatabase(":memory:")),
        network: NETWORKS.regtest,
        minConfirmations: 6,
        fulfil: async ({ requestId }) => {
          fulfilments++;
          return { requestId, status: "fulfilled" };
        },
      });
      const running = await listen(app);
      base = `http://127.0.0.1:${running.port}/api/attest`;
      stops = [runningAttester.close, running.close];
    });
    after(() => stops.forEach((stop) => stop()));

    it("answers 429 RATE_LIMITED with Retry-After to a burst of /fulfill from one client, and keeps serving other clients", async () => {
      const body = { requestId: "0x" + "ab".repeat(32), address: newKey().address };
      const answers = await burst(BURST, () => request(`${base}/fulfill`, { method: "POST", body, from: "127.0.0.2" }));
      expectRateLimited(answers);
      expect(fulfilments).to.equal(answers.filter((a) => a.status === 200).length);
      const other = await request(`${base}/fulfill`, { method: "POST", body, from: "127.0.0.3" });
      expect(other.status, other.text).to.equal(200);
    });

    it("shows the attesters by number, address and status in GET /api/attest, never by their internal URLs", async () => {
      const { status, body, text } = await request(`${base}/`);
      expect(status).to.equal(200);
      expect(text).to.not.include("http://");
      expect(text).to.not.include("127.0.0.1");
      expect(body.attesters).to.deep.equal([
        { index: 1, address: signer, up: true, signable_height: 10, indexed_height: 15 },
        { index: 2, address: null, up: false, error: body.attesters[1].error },
        { index: 3, address: null, up: false, error: body.attesters[2].error },
      ]);
      expect(body.attesters[1].error.code).to.equal("UNREACHABLE");
    });

    it("names no internal URL in a fact endpoint's refusal either", async () => {
      const { status, body, text } = await request(`${base}/l1-tip`);
      expect(status).to.equal(503);
      expect(body.error.code).to.equal("ATTESTERS_UNAVAILABLE");
      expect(body.error.details.attesters.map((a: { attester: unknown }) => a.attester)).to.deep.equal([1, 2, 3]);
      expect(text).to.not.include("http://");
      expect(text).to.not.include("127.0.0.1");
    });
  });

  describe("ops routes", () => {
    const registry = new Registry();
    const opsApp = (trustProxy: boolean) => {
      const app = express();
      if (trustProxy) app.set("trust proxy", "loopback");
      const surface = new ApiSurface({ title: "ops routes", description: "health and metrics beside an API" });
      mountOpsRoutes(app, { registry, health: () => ({ ok: true, name: "test" }), surface });
      surface.serve(app);
      return app;
    };

    it("serves /metrics to a client on this host, and refuses it with a JSON error to one behind a proxy", async () => {
      for (const trust of [true, false]) {
        const running = await listen(opsApp(trust));
        try {
          const url = `http://127.0.0.1:${running.port}`;
          expect((await request(`${url}/metrics`)).status).to.equal(200);
          const proxied = await request(`${url}/metrics`, { headers: { "X-Forwarded-For": "203.0.113.7" } });
          expect(proxied.status, `trust proxy ${trust}`).to.be.oneOf([403, 404]);
          expect(proxied.body.error.code).to.be.a("string");
          expect(proxied.text).to.not.include("process_cpu");
          expect(
            (await request(`${url}/health`, { headers: { "X-Forwarded-For": "203.0.113.7" } })).status,
            "/health stays public",
          ).to.equal(200);
        } finally {
          running.close();
        }
      }
    });

    it("takes only 127.0.0.0/8 and ::1 (also IPv4-mapped) as this host", () => {
      for (const local of ["127.0.0.1", "127.8.0.3", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"])
        expect(isLoopbackAddress(local), local).to.equal(true);
      for (const remote of [
        "10.0.0.1",
        "192.0.2.2",
        "::ffff:10.0.0.1",
        "::",
        "::2",
        "fe80::1",
        "2001:db8::1",
        "",
        "localhost",
        undefined,
      ]) {
        expect(isLoopbackAddress(remote), String(remote)).to.equal(false);
      }
    });

    const external = Object.values(os.networkInterfaces())
      .flat()
      .find((item) => item && item.family === "IPv4" && !item.internal);
    (external ? it : it.skip)("refuses /metrics to a client that reaches the daemon on another interface", async () => {
      const running = await listen(opsApp(false), "0.0.0.0");
      try {
        const answer = await request(`http://${external!.address}:${running.port}/metrics`, {
          from: external!.address,
        });
        expect(answer.status).to.be.oneOf([403, 404]);
        expect(answer.body.error.code).to.be.a("string");
        expect(
          (await request(`http://${external!.address}:${running.port}/health`, { from: external!.address })).status,
        ).to.equal(200);
      } finally {
        running.close();
      }
    });
  });
});
