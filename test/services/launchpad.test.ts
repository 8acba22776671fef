import { expect } from "chai";
import crypto from "node:crypto";
import type { Server } from "node:http";
import createClient from "openapi-fetch";
import { Registry } from "prom-client";
import { NETWORKS, encodeAddress, signMessage } from "../../src/doge";
import type { Sqlite } from "../../src/db/sqlite";
import { openIndexerDatabase } from "../../src/indexer/database";
import { IndexQueries } from "../../src/indexer/queries";
import {
  LaunchpadApp,
  LaunchpadInscriptionRequest,
  createLaunchpadApp,
  openLaunchpadDatabase,
} from "../../src/services/launchpad";
import { inscriberJob } from "../helpers/inscriber-job";
import { LAUNCHPAD_DEMO_COLLECTIONS, seedLaunchpadDemo } from "../../src/services/launchpad/demo";
import { undocumentedRoutes } from "../../src/services/http/openapi";
import { mountOpsRoutes } from "../../src/services/ops/server";
import type { paths } from "../../shared/openapi/launchpad";
import { expectPublished } from "../helpers/openapi-publish";
import { TestKey, newKey } from "../helpers/keys";
import { jsonRequest } from "../helpers/http";
import { listenLocal } from "../helpers/listen";

const START = 1_800_000_000;
const OPERATOR_KEY = "lk_test_operator_key";
/** What every app of these tests is given besides its database: free listings take OPERATOR_KEY, no per-IP limits (every client is 127.0.0.1). */
const OPTIONS = {
  operatorKeySha256: crypto.createHash("sha256").update(OPERATOR_KEY).digest("hex"),
  rateLimitPerMinute: 0,
  claimsPerSessionPerMinute: 0,
  maxReservationsPerClient: 0,
};

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

describe("launchpad API", function () {
  this.timeout(60_000);
  let now = START;
  let db: Sqlite;
  let app: LaunchpadApp;
  let server: Server;
  let origin: string;
  let base: string;
  const inscribed: LaunchpadInscriptionRequest[] = [];

  const call = async (
    method: string,
    path: string,
    options: { token?: string; body?: unknown; operator?: boolean } = {},
  ): Promise<Answer> => {
    if (!options.operator) return jsonRequest(`${base}${path}`, method, options);
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        "X-Operator-Key": OPERATOR_KEY,
        "Content-Type": "application/json",
        ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}),
      },
      body: JSON.stringify(options.body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
  };
  // Typed by the published document (shared/openapi/launchpad.d.ts).
  const challengeFor = async (address: string) => {
    const { data, error } = await createClient<paths>({ baseUrl: base.replace(/\/api$/, "") }).GET(
      "/api/session/challenge",
      { params: { query: { address } } },
    );
    if (!data) throw new Error(`no challenge for ${address}: ${JSON.stringify(error)}`);
    return data;
  };
  const signIn = async (key: TestKey): Promise<string> => {
    const { challenge } = await challengeFor(key.address);
    const answer = await call("POST", "/session", {
      body: { address: key.address, challenge, signature: signMessage(challenge, key.privateKey) },
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
    return answer.body.token;
  };
  /** Lists as the token's own address (its creator); a free collection with the operator key. */
  const listCollection = async (token: string, slug: string, max: number, extra: Record<string, unknown> = {}) => {
    const me = token ? await call("GET", "/session", { token }) : null;
    const body = {
      slug,
      name: `Collection ${slug}`,
      price_koinu: "0",
      max,
      creator_address: me?.body?.address ?? newKey().address,
      ...extra,
    };
    return call("POST", "/collections", { token, body, operator: body.price_koinu === "0" });
  };

  /** The inscription a fake deploy job makes: a stand-in id, the same for the same job. */
  const inscriptionOfJob = (id: string) => `${crypto.createHash("sha256").update(id).digest("hex")}i0`;
  const indexDb = openIndexerDatabase(":memory:");
  let nextId = 1;
  /**
   * Puts `slug`'s deploy in the index as the indexer would after a block (these tests have no
   * chain), and lets the worker see it: the collection takes claims from then on (issue 26).
   */
  const deployed = async (slug: string) => {
    const jobId = (await call("GET", `/collections/${slug}`)).body.deploy.job_id as string;
    indexDb
      .prepare(
        "INSERT OR IGNORE INTO blocks (height, hash, prev_hash, time, tx_count, size, first_tx_id, first_address_id) VALUES (1, ?, ?, 0, 1, 0, 1, 1)",
      )
      .run(Buffer.from("11".repeat(32), "hex"), Buffer.alloc(32));
    // The block must be there (OR IGNORE would also hide a row the schema refuses).
    expect(indexDb.prepare("SELECT COUNT(*) AS n FROM blocks WHERE height = 1").get()).to.deep.equal({ n: 1 });
    // Schema version 9: the deploy is its genesis transaction's id, the inscriber an address id.
    const id = nextId++;
    indexDb
      .prepare(
        "INSERT INTO txs (id, txid, height, position, size, fee, coinbase, input_count, output_count) VALUES (?, ?, 1, ?, 1, 0, 0, 1, 1)",
      )
      .run(id, Buffer.from(inscriptionOfJob(jobId).slice(0, 64), "hex"), id);
    indexDb
      .prepare("INSERT INTO addresses (id, address, script, script_hash) VALUES (?, ?, x'00', x'00')")
      .run(id, newKey().address);
    indexDb
      .prepare(
        "INSERT INTO collections (slug, name, price_koinu, max_supply, inscriber_id, deploy_inscription, height, minted_count) VALUES (?, ?, '0', '1', ?, ?, 1, 0)",
      )
      .run(slug, slug, id, id);
    await app.launchpad.mints.runOnce();
    expect((await call("GET", `/collections/${slug}`)).body.deploy.status).to.equal("indexed");
  };

  before(async () => {
    db = openLaunchpadDatabase(":memory:");
    app = createLaunchpadApp({
      db,
      queries: new IndexQueries(indexDb),
      network: NETWORKS.regtest,
      clock: () => now,
      ...OPTIONS,
      // The daemon's ops routes, so that the document is the one the daemon serves.
      mount: (root, _gate, surface) =>
        mountOpsRoutes(root, { registry: new Registry(), health: () => ({ ok: true, name: "launchpad" }), surface }),
      // Records what would go to the inscriber, for the one test of the hand-over below.
      inscriber: {
        inscribe: async (idempotencyKey, request) => {
          if (idempotencyKey.endsWith("-unreachable")) throw new Error("inscriber unreachable");
          inscribed.push({ ...request, idempotencyKey } as LaunchpadInscriptionRequest);
          return { job: inscriberJob({ id: `job-${inscribed.length}` }), created: true };
        },
        // Every deploy job is confirmed at once; the index decides when the collection is deployed.
        job: async (id) => inscriberJob({ id, status: "confirmed", inscriptionId: inscriptionOfJob(id) }),
      },
    });
    ({ server } = await listenLocal(app));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    base = `${origin}/api`;
  });

  after(() => {
    server?.close();
  });

  describe("OpenAPI", () => {
    it("documents every route it serves", () => {
      expect(undocumentedRoutes(app)).to.deep.equal([]);
    });

    it("publishes its OpenAPI document", async () => {
      const document = await fetch(`${origin}/openapi.json`);
      expect(document.status).to.equal(200);
      await expectPublished("launchpad", await document.json());
      const reference = await fetch(`${origin}/docs`);
      expect(reference.status).to.equal(200);
      expect(reference.headers.get("content-type")).to.match(/^text\/html/);
      expect((await fetch(`${origin}/docs/assets/swagger-ui-bundle.js`)).status).to.equal(200);
    });
  });

  describe("sessions", () => {
    it("issues a challenge naming the address, a random nonce and its expiry", async () => {
      const alice = newKey();
      const first = await challengeFor(alice.address);
      const second = await challengeFor(alice.address);
      expect(first.address).to.equal(alice.address);
      expect(first.nonce).to.match(/^[0-9a-f]{32}$/);
      expect(first.nonce).to.not.equal(second.nonce);
      expect(first.challenge).to.include(alice.address).and.to.include(first.nonce);
      expect(first.expires_at).to.equal(now + 300);
    });

    it("refuses a challenge for a malformed or script address with 400", async () => {
      const bad = await call("GET", "/session/challenge?address=nope");
      expect(bad.status).to.equal(400);
      expect(bad.body.error.code).to.equal("INVALID_ADDRESS");
      const p2sh = await call(
        "GET",
        `/session/challenge?address=${encodeAddress(new Uint8Array(20).fill(7), "scripthash", NETWORKS.regtest)}`,
      );
      expect(p2sh.status).to.equal(400);
      expect(p2sh.body.error.code).to.equal("ADDRESS_NOT_PUBKEYHASH");
    });

    it("answers a good signature with a token that opens the session, storing only its SHA-256", async () => {
      const alice = newKey();
      const token = await signIn(alice);
      expect(token).to.match(/^[A-Za-z0-9_-]{43}$/);
      const me = await call("GET", "/session", { token });
      expect(me.body).to.deep.equal({ address: alice.address, expires_at: now + 86_400 });
      const rows = db.prepare("SELECT * FROM sessions WHERE address = ?").all(alice.address) as Record<
        string,
        unknown
      >[];
      expect(rows).to.have.length(1);
      expect(rows[0].token_sha256).to.equal(crypto.createHash("sha256").update(token).digest("hex"));
      expect(JSON.stringify(db.prepare("SELECT * FROM sessions").all())).to.not.include(token);
    });

    it("refuses a signature by another key with 401 INVALID_SIGNATURE and keeps the challenge usable", async () => {
      const alice = newKey();
      const { challenge } = await challengeFor(alice.address);
      const wrong = await call("POST", "/session", {
        body: { address: alice.address, challenge, signature: signMessage(challenge, newKey().privateKey) },
      });
      expect(wrong.status).to.equal(401);
      expect(wrong.body.error.code).to.equal("INVALID_SIGNATURE");
      expect(wrong.headers.get("www-authenticate")).to.match(/^Bearer/);
      const right = await call("POST", "/session", {
        body: { address: alice.address, challenge, signature: signMessage(challenge, alice.privateKey) },
      });
      expect(right.status).to.equal(201);
    });

    it("refuses a signature over other text than the issued challenge with 401", async () => {
      const alice = newKey();
      const { challenge } = await challengeFor(alice.address);
      const answer = await call("POST", "/session", {
        body: { address: alice.address, challenge, signature: signMessage(challenge + " ", alice.privateKey) },
      });
      expect(answer.status).to.equal(401);
      expect(answer.body.error.code).to.equal("INVALID_SIGNATURE");
      const invented = `${challenge}\nextra`;
      const unknown = await call("POST", "/session", {
        body: { address: alice.address, challenge: invented, signature: signMessage(invented, alice.privateKey) },
      });
      expect(unknown.status).to.equal(401);
      expect(unknown.body.error.code).to.equal("UNKNOWN_CHALLENGE");
    });

    it("uses a challenge once: the second sign-in with it is 401 CHALLENGE_USED", async () => {
      const alice = newKey();
      const { challenge } = await challengeFor(alice.address);
      const body = { address: alice.address, challenge, signature: signMessage(challenge, alice.privateKey) };
      expect((await call("POST", "/session", { body })).status).to.equal(201);
      const again = await call("POST", "/session", { body });
      expect(again.status).to.equal(401);
      expect(again.body.error.code).to.equal("CHALLENGE_USED");
    });

    it("refuses an expired challenge with 401 CHALLENGE_EXPIRED", async () => {
      const alice = newKey();
      const { challenge, expires_at } = await challengeFor(alice.address);
      now = expires_at;
      try {
        const answer = await call("POST", "/session", {
          body: { address: alice.address, challenge, signature: signMessage(challenge, alice.privateKey) },
        });
        expect(answer.status).to.equal(401);
        expect(answer.body.error.code).to.equal("CHALLENGE_EXPIRED");
      } finally {
        now = START;
      }
    });

    it("refuses a challenge presented for another address with 401 CHALLENGE_ADDRESS_MISMATCH, and a malformed address with 400", async () => {
      const alice = newKey();
      const bob = newKey();
      const { challenge } = await challengeFor(alice.address);
      const answer = await call("POST", "/session", {
        body: { address: bob.address, challenge, signature: signMessage(challenge, bob.privateKey) },
      });
      expect(answer.status).to.equal(401);
      expect(answer.body.error.code).to.equal("CHALLENGE_ADDRESS_MISMATCH");
      const malformed = await call("POST", "/session", {
        body: { address: "D-not-an-address", challenge, signature: signMessage(challenge, alice.privateKey) },
      });
      expect(malformed.status).to.equal(400);
      expect(malformed.body.error.code).to.equal("INVALID_ADDRESS");
    });

    it("refuses unknown fields and a malformed signature with 400", async () => {
      const alice = newKey();
      const { challenge } = await challengeFor(alice.address);
      const extra = await call("POST", "/session", {
        body: {
          address: alice.address,
          challenge,
          signature: signMessage(challenge, alice.privateKey),
          remember: true,
        },
      });
      expect(extra.status).to.equal(400);
      expect(extra.body.error.code).to.equal("UNKNOWN_FIELDS");
      const malformed = await call("POST", "/session", {
        body: { address: alice.address, challenge, signature: "abc" },
      });
      expect(malformed.status).to.equal(400);
      expect(malformed.body.error.code).to.equal("INVALID_SIGNATURE_FORMAT");
    });

    it("answers write routes without a token, or with an unknown or expired one, with 401 and WWW-Authenticate", async () => {
      const none = await listCollection("", "no-token", 5);
      expect(none.status).to.equal(401);
      expect(none.body.error.code).to.equal("SESSION_REQUIRED");
      expect(none.headers.get("www-authenticate")).to.equal('Bearer realm="launchpad"');
      const unknown = await listCollection("A".repeat(43), "no-token", 5);
      expect(unknown.status).to.equal(401);
      expect(unknown.body.error.code).to.equal("INVALID_TOKEN");
      expect(unknown.headers.get("www-authenticate")).to.equal('Bearer realm="launchpad", error="invalid_token"');
      const token = await signIn(newKey());
      now = START + 86_400;
      try {
        const expired = await listCollection(token, "no-token", 5);
        expect(expired.status).to.equal(401);
        expect(expired.body.error.code).to.equal("INVALID_TOKEN");
      } finally {
        now = START;
      }
    });
  });

  describe("collections", () => {
    let token: string;
    const lister = newKey();
    const creator = lister; // a collection is listed by its creator

    before(async () => {
      token = await signIn(lister);
    });

    it("lists a collection with its deploy handed to the inscriber and shows it in the directory and its detail", async () => {
      const created = await call("POST", "/collections", {
        token,
        body: {
          slug: "much-pups",
          name: "Much Pups",
          price_koinu: "250000000",
          max: 3,
          creator_address: creator.address,
        },
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.headers.get("location")).to.equal("/api/collections/much-pups");
      const expected = {
        slug: "much-pups",
        name: "Much Pups",
        price_koinu: "250000000",
        max: 3,
        minted: 0,
        creator_address: creator.address,
        listed_by: lister.address,
        created_at: START,
        deploy: { status: "submitted", job_id: `job-${inscribed.length}`, inscription_id: null, error: null },
      };
      expect(created.body).to.deep.equal(expected);
      const request = inscribed[inscribed.length - 1];
      expect({ ...request, content: new TextDecoder().decode(request.content) }).to.deep.equal({
        project: "launchpad",
        contentType: "application/json",
        action: "LAUNCHPAD_DEPLOY",
        recipient: creator.address,
        idempotencyKey: "launchpad-deploy-much-pups",
        content:
          '{"p":"service","op":"LAUNCHPAD_DEPLOY","slug":"much-pups","name":"Much Pups","price":"250000000","max":"3"}',
      });

      const detail = await call("GET", "/collections/much-pups");
      expect(detail.body).to.deep.equal({
        ...expected,
        mint_body_example: {
          content_type: "application/json",
          action: "LAUNCHPAD_MINT",
          body: { p: "service", op: "LAUNCHPAD_MINT", slug: "much-pups", id: "0", max: "3" },
        },
      });
      const directory = await call("GET", "/collections?limit=500");
      expect(directory.body.items.find((c: any) => c.slug === "much-pups")).to.deep.equal(expected);
    });

    it("stores a collection with its deploy pending when no inscriber is configured", async () => {
      const bare = createLaunchpadApp({
        db: openLaunchpadDatabase(":memory:"),
        queries: new IndexQueries(openIndexerDatabase(":memory:")),
        network: NETWORKS.regtest,
        clock: () => now,
        ...OPTIONS,
      });
      const { server: bareServer } = await listenLocal(bare);
      const savedBase = base;
      base = `http://127.0.0.1:${(bareServer.address() as { port: number }).port}/api`;
      try {
        const created = await listCollection(await signIn(lister), "pending-pups", 7);
        expect(created.status).to.equal(201);
        expect(created.body.deploy).to.deep.equal({
          status: "pending",
          job_id: null,
          inscription_id: null,
          error: null,
        });
        expect((await call("GET", "/collections/pending-pups")).body.deploy.status).to.equal("pending");
      } finally {
        base = savedBase;
        bareServer.close();
      }
    });

    it("keeps the listing with its deploy pending and the reason when the inscriber fails", async () => {
      const created = await listCollection(token, "deploy-unreachable", 2);
      expect(created.status).to.equal(201);
      expect(created.body.deploy).to.deep.equal({
        status: "pending",
        job_id: null,
        inscription_id: null,
        error: "inscriber unreachable",
      });
    });

    it("pages the directory by slug with a cursor", async () => {
      for (const slug of ["page-a", "page-b", "page-c"])
        expect((await listCollection(token, slug, 1)).status).to.equal(201);
      const slugs: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Answer = await call("GET", `/collections?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
        expect(page.body.items.length).to.be.at.most(2);
        slugs.push(...page.body.items.map((c: any) => c.slug));
        cursor = page.body.next_cursor;
      } while (cursor);
      expect(slugs).to.deep.equal([...slugs].sort());
      expect(slugs).to.include.members(["page-a", "page-b", "page-c", "much-pups"]);
    });

    it("refuses a taken slug with 409 SLUG_TAKEN", async () => {
      const again = await listCollection(token, "much-pups", 10);
      expect(again.status).to.equal(409);
      expect(again.body.error).to.deep.equal({
        code: "SLUG_TAKEN",
        message: 'a collection with slug "much-pups" is already listed',
        details: { slug: "much-pups" },
      });
    });

    it("refuses a priced collection whose payment memo for its last index would exceed the 80-byte OP_RETURN relay limit", async () => {
      const long = `p${"x".repeat(50)}`; // "service-launch-mint:" + 51 + ":99" = 74 bytes: fits
      expect((await listCollection(token, long, 100, { price_koinu: "100000000" })).status).to.equal(201);
      const longer = `q${"x".repeat(60)}`; // 20 + 61 + 3 = 84 bytes
      const refused = await listCollection(token, longer, 100, { price_koinu: "100000000" });
      expect(refused.status).to.equal(400);
      expect(refused.body.error.code).to.equal("SLUG_TOO_LONG_FOR_PAYMENT");
      expect(refused.body.error.details).to.deep.include({ memo_bytes: 84, max_bytes: 80 });
      expect((await listCollection(token, longer, 100)).status).to.equal(201); // unpriced: nothing to pay
    });

    it("refuses a bad slug, name, price, max, creator and unknown fields with 400", async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ slug: "Much-Pups" }, "INVALID_SLUG"],
        [{ slug: "-pups" }, "INVALID_SLUG"],
        [{ slug: "a".repeat(65) }, "INVALID_SLUG"],
        [{ name: "" }, "INVALID_NAME"],
        [{ name: "tab\there" }, "INVALID_NAME"],
        [{ price_koinu: 5 }, "INVALID_PRICE"],
        [{ price_koinu: "05" }, "INVALID_PRICE"],
        [{ price_koinu: "18446744073709551616" }, "INVALID_PRICE"],
        [{ price_koinu: "18446744073709551615" }, "INVALID_PRICE"],
        [{ price_koinu: "100000000000001" }, "INVALID_PRICE"], // 1,000,000 DOGE and 1 koinu
        [{ max: 0 }, "INVALID_MAX"],
        [{ max: "3" }, "INVALID_MAX"],
        [{ max: 1_000_001 }, "INVALID_MAX"],
        [{ creator_address: "nope" }, "INVALID_ADDRESS"],
        [{ brand: "x" }, "UNKNOWN_FIELDS"],
      ];
      for (const [change, code] of cases) {
        const answer = await listCollection(token, "fresh-slug", 3, change);
        expect(answer.status, JSON.stringify(change)).to.equal(400);
        expect(answer.body.error.code, JSON.stringify(change)).to.equal(code);
      }
      expect((await call("GET", "/collections/fresh-slug")).status).to.equal(404);
    });

    it("answers an unknown collection with 404 COLLECTION_NOT_FOUND and a malformed slug with 400", async () => {
      const unknown = await call("GET", "/collections/no-such-thing");
      expect(unknown.status).to.equal(404);
      expect(unknown.body.error.code).to.equal("COLLECTION_NOT_FOUND");
      expect((await call("GET", "/collections/BAD_SLUG")).body.error.code).to.equal("INVALID_SLUG");
      const claim = await call("POST", "/collections/no-such-thing/claim", { token });
      expect(claim.status).to.equal(404);
    });

    it("seeds the demo (src/services/launchpad/demo.ts) through the service's own listing: once, deploys handed over, the free one only with the operator key", async () => {
      const creator = newKey();
      expect(
        await seedLaunchpadDemo(app.launchpad, { creatorAddress: creator.address, withOperatorKey: false }),
      ).to.deep.equal(["demo-pups"]);
      expect(
        await seedLaunchpadDemo(app.launchpad, { creatorAddress: creator.address, withOperatorKey: true }),
      ).to.deep.equal(["demo-free"]);
      expect(
        await seedLaunchpadDemo(app.launchpad, { creatorAddress: creator.address, withOperatorKey: true }),
      ).to.deep.equal([]);
      for (const demo of LAUNCHPAD_DEMO_COLLECTIONS) {
        const listed = await call("GET", `/collections/${demo.slug}`);
        expect(listed.status).to.equal(200);
        expect(listed.body).to.deep.include({
          slug: demo.slug,
          name: demo.name,
          price_koinu: demo.priceKoinu.toString(),
          max: demo.maxSupply,
          creator_address: creator.address,
        });
        expect(listed.body.deploy.status).to.equal("submitted");
        expect(
          inscribed.filter((request) => request.idempotencyKey === `launchpad-deploy-${demo.slug}`),
        ).to.have.length(1);
      }
    });
  });

  describe("claims", () => {
    let lister: string;

    before(async () => {
      lister = await signIn(newKey());
    });

    it("gives 100 concurrent claimants of a 50-item collection 50 distinct indices and 50 SOLD_OUT answers", async () => {
      expect((await listCollection(lister, "fifty", 50)).status).to.equal(201);
      await deployed("fifty");
      const keys = Array.from({ length: 100 }, () => newKey());
      const tokens = await Promise.all(keys.map(signIn));
      const answers = await Promise.all(tokens.map((token) => call("POST", "/collections/fifty/claim", { token })));
      const won = answers.filter((a) => a.status === 201);
      const lost = answers.filter((a) => a.status === 409);
      expect(won).to.have.length(50);
      expect(lost).to.have.length(50);
      expect(new Set(won.map((a) => a.body.index)).size).to.equal(50);
      expect(won.map((a) => a.body.index).sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 50 }, (_, i) => i));
      expect(new Set(won.map((a) => a.body.address)).size).to.equal(50);
      for (const answer of lost) {
        expect(answer.body.error).to.deep.equal({
          code: "SOLD_OUT",
          message: 'every index of "fifty" is minted or reserved',
          details: { slug: "fifty", max: 50, minted: 0, reserved: 50 },
        });
      }
      const stored = db
        .prepare("SELECT token_index FROM reservations WHERE slug = 'fifty' AND status = 'active'")
        .all() as { token_index: number }[];
      expect(new Set(stored.map((r) => r.token_index)).size).to.equal(50);
    });

    it("answers a claim with the reservation and the mint body, and a second claim by the same address with the same reservation", async () => {
      expect((await listCollection(lister, "twins", 5)).status).to.equal(201);
      await deployed("twins");
      const claimant = newKey();
      const token = await signIn(claimant);
      const first = await call("POST", "/collections/twins/claim", { token });
      expect(first.status).to.equal(201);
      expect(first.body).to.deep.equal({
        reservation_id: first.body.reservation_id,
        slug: "twins",
        index: 0,
        address: claimant.address,
        status: "active",
        reserved_at: now,
        expires_at: now + 600,
        mint_body: { p: "service", op: "LAUNCHPAD_MINT", slug: "twins", id: "0", max: "5" },
        owed_payments: [],
        created: true,
      });
      const again = await call("POST", "/collections/twins/claim", { token });
      expect(again.status).to.equal(200);
      expect(again.body).to.deep.equal({ ...first.body, created: false });
      const shown = await call("GET", "/collections/twins/claim", { token });
      const { created: _created, ...withoutCreated } = first.body;
      expect(shown.body).to.deep.equal(withoutCreated);
    });

    it("frees an expired reservation's index for the next claimant", async () => {
      expect((await listCollection(lister, "short", 2)).status).to.equal(201);
      await deployed("short");
      const [a, b, c] = [newKey(), newKey(), newKey()];
      const [tokenA, tokenB, tokenC] = [await signIn(a), await signIn(b), await signIn(c)];
      try {
        expect((await call("POST", "/collections/short/claim", { token: tokenA })).body.index).to.equal(0);
        now += 100;
        expect((await call("POST", "/collections/short/claim", { token: tokenB })).body.index).to.equal(1);
        const soldOut = await call("POST", "/collections/short/claim", { token: tokenC });
        expect(soldOut.status).to.equal(409);
        expect(soldOut.body.error.code).to.equal("SOLD_OUT");
        now += 500; // A's reservation (reserved 600 s ago) has expired; B's has 100 s left.
        const reused = await call("POST", "/collections/short/claim", { token: tokenC });
        expect(reused.status).to.equal(201);
        expect(reused.body).to.include({ index: 0, address: c.address, reserved_at: now, expires_at: now + 600 });
        const gone = await call("GET", "/collections/short/claim", { token: tokenA });
        expect(gone.status).to.equal(404);
        expect(gone.body.error.code).to.equal("NO_RESERVATION");
        const statuses = db
          .prepare("SELECT address, token_index, status FROM reservations WHERE slug = 'short' ORDER BY id")
          .all();
        expect(statuses).to.deep.equal([
          { address: a.address, token_index: 0, status: "expired" },
          { address: b.address, token_index: 1, status: "active" },
          { address: c.address, token_index: 0, status: "active" },
        ]);
      } finally {
        now = START;
      }
    });

    it("refuses a claim without a token with 401 and a claim body with fields with 400", async () => {
      expect((await listCollection(lister, "guarded", 2)).status).to.equal(201);
      await deployed("guarded");
      const none = await call("POST", "/collections/guarded/claim");
      expect(none.status).to.equal(401);
      expect(none.headers.get("www-authenticate")).to.equal('Bearer realm="launchpad"');
      const token = await signIn(newKey());
      const extra = await call("POST", "/collections/guarded/claim", { token, body: { index: 1 } });
      expect(extra.status).to.equal(400);
      expect(extra.body.error.code).to.equal("UNKNOWN_FIELDS");
    });
  });
});
