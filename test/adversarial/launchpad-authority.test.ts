/**
 * Issue 26, item 3 and the inscriber half of item 2: the launchpad's authority is its own. Each
 * attack of "Custody you can trust, part 3" on the launchpad, tried as an attacker would, on the
 * devnet over HTTP with the real inscriber and the index as the judge (test/helpers/launchpad-stack.ts).
 * Each test was committed failing on the code before its fix (DESIGN.md section 8, docs/security.md
 * "Launchpad payments").
 */
import { expect } from "chai";
import type { Server } from "node:http";
import { getAddress } from "ethers";
import { NETWORKS, OP, compileScript } from "../../src/doge";
import { envelopeHash } from "../../src/inscription/envelope";
import { encodeLaunchpadDeploy, encodeLaunchpadMint } from "../../src/inscription/launchpad";
import { createInscriberApp, sha256Hex } from "../../src/services/inscriber/app";
import { InscriberCallError, InscriberClient } from "../../src/services/inscriber/client";
import { openInscriberDatabase } from "../../src/services/inscriber/store";
import { UserSignedInscriber } from "../../src/services/inscriber/user-signed";
import { LaunchpadApp, createLaunchpadApp, openLaunchpadDatabase } from "../../src/services/launchpad";
import { nodeRawTransactions } from "../../src/services/user-psbt";
import { Relayer, openRelayerDatabase } from "../../src/relayer";
import type { RelayerPanel } from "../../src/relayer";
import { KOINU_PER_DOGE, inscribeV1 } from "../helpers/inscribe";
import { Spendable, TestKey, newKey, spendP2pkh } from "../helpers/keys";
import { jsonRequest } from "../helpers/http";
import {
  Answer,
  LAUNCHPAD_PROJECT_KEY,
  LaunchpadStack,
  STACK_FEE_RATE,
  STACK_POSTAGE,
  startLaunchpadStack,
} from "../helpers/launchpad-stack";
import { listenLocal } from "../helpers/listen";
import { FakeL2, announced } from "../relayer/fake-l2";

const PRICE = 2n * KOINU_PER_DOGE;
const FAUCET = 100n * KOINU_PER_DOGE;
const RELAYER_KEY = "ik_test_relayer_key";
const AMM_KEY = "ik_test_amm_key";
const utf8 = (text: string) => new TextEncoder().encode(text);

/** Attesters that are never reached: a refused inscription never gets that far. */
const NO_PANEL: RelayerPanel = {
  receipt: async () => {
    throw new Error("no receipt expected");
  },
  fact: async () => {
    throw new Error("no fact expected");
  },
};

describe("launchpad authority attacks (issue 26)", function () {
  this.timeout(300_000);
  let stack: LaunchpadStack;
  /** The operator's inscriber as every project reaches it: launchpad, relayer (L2 requesters) and AMM. */
  let inscriberBase: string;
  let inscriberServer: Server;
  let hotWallet: string;
  const custody = newKey(); // the AMM's custody address

  const call = (method: string, p: string, options: { token?: string; body?: unknown } = {}): Promise<Answer> =>
    stack.call(method, p, options);
  const signIn = (key: TestKey): Promise<string> => stack.signIn(key);
  const mine = () => stack.mine();
  const faucet = async (key: TestKey): Promise<Spendable> => {
    const { txid } = await stack.devnet.rpc<{ txid: string }>("devnet_faucet", [key.address, 100, false]);
    return { txid, vout: 0, value: FAUCET };
  }; /** `squatter` deploys launchpad collection `slug` on chain itself, in the v1 envelope (broadcast, not mined). */
  const squatDeploy = async (squatter: TestKey, slug: string, name: string) =>
    inscribeV1(
      stack.devnet,
      squatter,
      await faucet(squatter),
      {
        contentType: "application/json",
        action: "LAUNCHPAD_DEPLOY",
        body: encodeLaunchpadDeploy({ slug, name, priceKoinu: 0n, maxSupply: 10n }),
      },
      squatter.script,
    );

  async function pay(key: TestKey, coin: Spendable, to: TestKey, amountKoinu: bigint, memo: string): Promise<string> {
    const outputs = [
      { script: to.script, value: amountKoinu },
      { script: compileScript([OP.OP_RETURN, utf8(memo)]), value: 0n },
      { script: key.script, value: coin.value - amountKoinu - KOINU_PER_DOGE },
    ];
    return stack.devnet.rpc<string>("sendrawtransaction", [spendP2pkh(key, [coin], outputs).hex]);
  }
  const inscribe = (key: string, body: Record<string, unknown>, idempotencyKey?: string) =>
    fetch(`${inscriberBase}/inscribe`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${key}`,
        "Content-Type": "application/json",
        ...(idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {}),
      },
      body: JSON.stringify(body),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as any }));
  const mintBody = (slug: string, id: number, max: number) =>
    JSON.stringify({ p: "service", op: "LAUNCHPAD_MINT", slug, id: String(id), max: String(max) });

  /** Lists a priced collection as `creator`, lets the inscriber confirm its deploy and the launchpad see it indexed. */
  async function listDeployed(creator: TestKey, slug: string, max = 10): Promise<any> {
    const listed = await call("POST", "/collections", {
      token: await signIn(creator),
      body: { slug, name: slug, price_koinu: PRICE.toString(), max, creator_address: creator.address },
    });
    expect(listed.status, JSON.stringify(listed.body)).to.equal(201);
    await stack.confirmInscriberJob(listed.body.deploy.job_id);
    await stack.app.launchpad.mints.runOnce();
    return listed.body;
  }

  /** A relayer over a fake L2 whose requester asks for `request`, reaching the inscriber as project "relayer". */
  async function relayerRun(request: { contentType: string; action: string; body: Uint8Array; recipient: string }) {
    const chain = new FakeL2(1);
    const job = announced("inscription", 0, {
      contentType: request.contentType,
      action: request.action,
      payload: request.body,
      dogeRecipient: request.recipient,
      resultHash: `0x${envelopeHash({ contentType: request.contentType, action: request.action || null, body: request.body })}`,
      deadline: chain.now + 86_400,
    });
    chain.extend(1, { 0: [job] });
    chain.open(job);
    const relayer = new Relayer({
      db: openRelayerDatabase(":memory:"),
      l2: chain,
      panel: NO_PANEL,
      inscriber: { url: inscriberBase, project: "relayer", key: RELAYER_KEY },
      addresses: { attestation: getAddress(`0x${"cc".repeat(20)}`) },
      log: () => undefined,
    });
    await relayer.runOnce();
    return { row: relayer.store.get(job.jobId)!, status: relayer.status(), jobId: job.jobId };
  }

  before(async () => {
    stack = await startLaunchpadStack();
    // The inscriber as the operator runs it: the launchpad, the relayer and the AMM are projects, the
    // AMM's custody is the AMM's own (the fix's options; the code before it ignores them).
    const userSigned = new UserSignedInscriber({
      db: openInscriberDatabase(":memory:"),
      queries: stack.queries,
      network: NETWORKS.regtest,
      feeRateKoinuPerKb: STACK_FEE_RATE,
      postageKoinu: STACK_POSTAGE,
      rawTransactions: nodeRawTransactions(stack.client),
    });
    const app = createInscriberApp({
      network: NETWORKS.regtest,
      projects: new Map([
        ["launchpad", sha256Hex(LAUNCHPAD_PROJECT_KEY)],
        ["relayer", sha256Hex(RELAYER_KEY)],
        ["amm", sha256Hex(AMM_KEY)],
      ]),
      platform: stack.platform,
      jobs: stack.jobs,
      userSigned,
      maxPayloadBytes: 16_384,
      feeRateKoinuPerKb: STACK_FEE_RATE,
      postageKoinu: STACK_POSTAGE,
      rateLimitPerMinute: 0,
      ...({ launchpadProject: "launchpad", protectedAddresses: new Map([[custody.address, "amm"]]) } as Record<
        string,
        unknown
      >),
    });
    ({ server: inscriberServer, base: inscriberBase } = await listenLocal(app));
    hotWallet = stack.platform.walletAddress;
  });

  after(async () => {
    inscriberServer?.close();
    await stack?.stop();
  });

  describe("1. launchpad members only through the launchpad", () => {
    it("refuses a LAUNCHPAD_MINT or LAUNCHPAD_DEPLOY body from any project but the launchpad with 422 ACTION_RESERVED, and makes no member", async () => {
      const creator = newKey();
      const attacker = newKey();
      const slug = "authority-pups";
      await listDeployed(creator, slug);
      for (const [project, key] of [
        ["relayer", RELAYER_KEY],
        ["amm", AMM_KEY],
      ]) {
        for (const [action, content] of [
          ["LAUNCHPAD_MINT", mintBody(slug, 0, 10)],
          [
            "LAUNCHPAD_DEPLOY",
            JSON.stringify({
              p: "service",
              op: "LAUNCHPAD_DEPLOY",
              slug: `${project}-x`,
              name: "x",
              price: "0",
              max: "1",
            }),
          ],
        ]) {
          const answer = await inscribe(key, {
            project,
            content_type: "application/json",
            action,
            content,
            recipient: attacker.address,
          });
          expect([answer.status, answer.body?.error?.code], JSON.stringify(answer.body)).to.deep.equal([
            422,
            "ACTION_RESERVED",
          ]);
          expect(answer.body.error.details).to.include({ action, project, reserved_for: "launchpad" });
        }
      }
      await mine();
      await mine();
      expect(stack.queries.collectionTokensHeld(slug, attacker.address)).to.deep.equal([]);
      // The launchpad's own project still inscribes them.
      const own = await inscribe(LAUNCHPAD_PROJECT_KEY, {
        project: "launchpad",
        content_type: "application/json",
        action: "LAUNCHPAD_MINT",
        content: mintBody("someone-elses", 0, 1),
        recipient: attacker.address,
      });
      expect(own.status, JSON.stringify(own.body)).to.equal(202);
    });

    it("fails an L2 request of a LAUNCHPAD_MINT body for good, with no inscriber job, left for the requester's refund", async () => {
      const attacker = newKey();
      const body = utf8(mintBody("authority-pups", 1, 10));
      const { row, status, jobId } = await relayerRun({
        contentType: "application/json",
        action: "LAUNCHPAD_MINT",
        body,
        recipient: attacker.address,
      });
      expect([row.status, row.lastErrorCode]).to.deep.equal(["failed_permanently", "ACTION_RESERVED"]);
      expect(status.attention.failed_permanently.map((j) => j.job_id)).to.include(jobId);
      expect(
        stack.jobs.db.prepare("SELECT COUNT(*) AS n FROM jobs WHERE idempotency_key = ?").get(jobId),
      ).to.deep.equal({ n: 0 });
    });
  });

  describe("2. a service address receives only its owner's inscriptions", () => {
    const transfer = JSON.stringify({ p: "drc-20", op: "transfer", tick: "WOOF", amt: "1000000000" });

    it("refuses another project's inscription to the AMM custody or to the inscriber's hot wallet with 422 RECIPIENT_PROTECTED, and takes the AMM's own", async () => {
      for (const [recipient, owner] of [
        [custody.address, "amm"],
        [hotWallet, null],
      ] as const) {
        for (const [project, key] of [
          ["relayer", RELAYER_KEY],
          ["launchpad", LAUNCHPAD_PROJECT_KEY],
          ...(owner === "amm" ? [] : [["amm", AMM_KEY]]),
        ]) {
          const answer = await inscribe(key, {
            project,
            content_type: "text/plain;charset=utf-8",
            content: transfer,
            recipient,
          });
          expect(
            [answer.status, answer.body?.error?.code],
            `${project} -> ${recipient}: ${JSON.stringify(answer.body)}`,
          ).to.deep.equal([422, "RECIPIENT_PROTECTED"]);
          expect(answer.body.error.details).to.include({ recipient, project });
        }
      }
      // The AMM inscribes its own deploys, mints and transfers to its custody.
      const own = await inscribe(AMM_KEY, {
        project: "amm",
        content_type: "text/plain;charset=utf-8",
        content: transfer,
        recipient: custody.address,
      });
      expect(own.status, JSON.stringify(own.body)).to.equal(202);
      // Nor does a user-signed preparation name a service address.
      const user = newKey();
      const prepared = await jsonRequest(`${inscriberBase}/prepare`, "POST", {
        body: {
          address: user.address,
          public_key: Buffer.from(user.publicKey).toString("hex"),
          content_type: "text/plain;charset=utf-8",
          content: transfer,
          recipient: custody.address,
        },
      });
      expect([prepared.status, prepared.body?.error?.code]).to.deep.equal([422, "RECIPIENT_PROTECTED"]);
    });

    it("fails an L2 request of a transfer inscription to the custody for good, with no inscriber job, left for refund", async () => {
      const { row, jobId } = await relayerRun({
        contentType: "text/plain;charset=utf-8",
        action: "",
        body: utf8(transfer),
        recipient: custody.address,
      });
      expect([row.status, row.lastErrorCode]).to.deep.equal(["failed_permanently", "RECIPIENT_PROTECTED"]);
      expect(
        stack.jobs.db.prepare("SELECT COUNT(*) AS n FROM jobs WHERE idempotency_key = ?").get(jobId),
      ).to.deep.equal({ n: 0 });
      const client = new InscriberClient({ url: inscriberBase, project: "relayer", key: RELAYER_KEY });
      const refusal = await client
        .inscribe("direct", {
          contentType: "text/plain;charset=utf-8",
          action: null,
          content: utf8(transfer),
          recipient: custody.address,
        })
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(refusal).to.be.instanceOf(InscriberCallError);
      expect(refusal as InscriberCallError).to.include({
        refused: true,
        retryable: false,
        code: "RECIPIENT_PROTECTED",
      });
    });
  });

  describe("3. slug squatting", () => {
    it("refuses with 409 SLUG_TAKEN_ON_CHAIN the listing of a slug someone else already deployed on chain", async () => {
      const squatter = newKey();
      const creator = newKey();
      const slug = "squat-pups";
      await squatDeploy(squatter, slug, "Squat");
      await mine();
      expect(stack.queries.hasCollection(slug)).to.equal(true);
      const listed = await call("POST", "/collections", {
        token: await signIn(creator),
        body: { slug, name: slug, price_koinu: PRICE.toString(), max: 10, creator_address: creator.address },
      });
      expect([listed.status, listed.body?.error?.code], JSON.stringify(listed.body)).to.deep.equal([
        409,
        "SLUG_TAKEN_ON_CHAIN",
      ]);
      expect((await call("GET", `/collections/${slug}`)).status).to.equal(404);
    });

    it("fails a listing whose slug a squatter deployed on chain before the launchpad's deploy, and takes no claim for it", async () => {
      // A launchpad whose inscriber is down when the listing is made: the deploy waits, the squatter
      // sees the listing and deploys the slug first.
      let down = true;
      const real = new InscriberClient({ url: stack.inscriberBase, key: LAUNCHPAD_PROJECT_KEY });
      const app: LaunchpadApp = createLaunchpadApp({
        db: openLaunchpadDatabase(":memory:"),
        queries: stack.queries,
        network: NETWORKS.regtest,
        rateLimitPerMinute: 0,
        claimsPerSessionPerMinute: 0,
        maxReservationsPerClient: 0,
        inscriber: {
          inscribe: (key, request) =>
            down
              ? Promise.reject(new InscriberCallError(0, "INSCRIBER_UNREACHABLE", "down"))
              : real.inscribe(key, request),
          job: (id) => real.job(id),
        },
      });
      const { server, base } = await listenLocal(app);
      const saved = stack.base;
      stack.base = base;
      try {
        const creator = newKey();
        const squatter = newKey();
        const slug = "race-pups";
        const listed = await call("POST", "/collections", {
          token: await signIn(creator),
          body: { slug, name: slug, price_koinu: PRICE.toString(), max: 10, creator_address: creator.address },
        });
        expect(listed.status, JSON.stringify(listed.body)).to.equal(201);
        await squatDeploy(squatter, slug, "Race");
        await mine();
        down = false;
        await app.launchpad.mints.runOnce();
        const detail = (await call("GET", `/collections/${slug}`)).body;
        expect(detail.deploy.status).to.equal("failed");
        expect(detail.deploy.error).to.contain("SLUG_TAKEN_ON_CHAIN");
        const claim = await call("POST", `/collections/${slug}/claim`, { token: await signIn(newKey()) });
        expect([claim.status, claim.body?.error?.code]).to.deep.equal([409, "COLLECTION_NOT_DEPLOYED"]);
      } finally {
        stack.base = saved;
        app.launchpad.feed.close();
        server.closeAllConnections();
        server.close();
      }
    });
  });

  describe("4. no claim and no payment before the collection's own deploy is indexed at depth", () => {
    it("refuses claims with 409 COLLECTION_NOT_DEPLOYED until the deploy is indexed at the payment depth, and says so", async () => {
      const app = createLaunchpadApp({
        db: openLaunchpadDatabase(":memory:"),
        queries: stack.queries,
        network: NETWORKS.regtest,
        rateLimitPerMinute: 0,
        claimsPerSessionPerMinute: 0,
        maxReservationsPerClient: 0,
        paymentConfirmations: 2,
        inscriber: new InscriberClient({ url: stack.inscriberBase, key: LAUNCHPAD_PROJECT_KEY }),
      });
      const { server, base } = await listenLocal(app);
      const saved = stack.base;
      stack.base = base;
      try {
        const creator = newKey();
        const slug = "deep-pups";
        const listed = await call("POST", "/collections", {
          token: await signIn(creator),
          body: { slug, name: slug, price_koinu: PRICE.toString(), max: 10, creator_address: creator.address },
        });
        expect(listed.status).to.equal(201);
        const buyer = await signIn(newKey());
        const early = await call("POST", `/collections/${slug}/claim`, { token: buyer });
        expect([early.status, early.body?.error?.code], JSON.stringify(early.body)).to.deep.equal([
          409,
          "COLLECTION_NOT_DEPLOYED",
        ]);
        expect(early.body.error.details).to.include({ slug, deploy_status: "submitted" });
        // In a block: 1 confirmation of the 2 this launchpad's depth asks.
        await stack.confirmInscriberJob(listed.body.deploy.job_id);
        await app.launchpad.mints.runOnce();
        expect((await call("GET", `/collections/${slug}`)).body.deploy.status).to.equal("submitted");
        expect((await call("POST", `/collections/${slug}/claim`, { token: buyer })).body.error.code).to.equal(
          "COLLECTION_NOT_DEPLOYED",
        );
        await mine();
        await app.launchpad.mints.runOnce();
        const detail = (await call("GET", `/collections/${slug}`)).body;
        expect(detail.deploy).to.include({ status: "indexed", error: null });
        expect(detail.deploy.inscription_id).to.match(/^[0-9a-f]{64}i0$/);
        expect((await call("POST", `/collections/${slug}/claim`, { token: buyer })).status).to.equal(201);
      } finally {
        stack.base = saved;
        app.launchpad.feed.close();
        server.closeAllConnections();
        server.close();
      }
    });

    it("fails a collection whose deploy job failed: status failed with the reason, and no claim ever", async () => {
      const app = createLaunchpadApp({
        db: openLaunchpadDatabase(":memory:"),
        queries: stack.queries,
        network: NETWORKS.regtest,
        rateLimitPerMinute: 0,
        claimsPerSessionPerMinute: 0,
        maxReservationsPerClient: 0,
        inscriber: {
          inscribe: async () => ({
            job: {
              id: "job_000000000000000000000001",
              project: "launchpad",
              status: "queued",
              form: "v1",
              contentType: "application/json",
              action: "LAUNCHPAD_DEPLOY",
              recipient: "",
              envelopeHash: "00".repeat(32),
              commitTxid: null,
              revealTxids: [],
              inscriptionId: null,
              feeKoinu: null,
              confirmedHeight: null,
              error: null,
            } as never,
            created: true,
          }),
          job: async (id) =>
            ({
              id,
              project: "launchpad",
              status: "failed",
              revealTxids: [],
              inscriptionId: null,
              error: { code: "BROADCAST_REJECTED", message: "the node refused the commit" },
            }) as never,
        },
      });
      const { server, base } = await listenLocal(app);
      const saved = stack.base;
      stack.base = base;
      try {
        const creator = newKey();
        const slug = "failed-pups";
        const listed = await call("POST", "/collections", {
          token: await signIn(creator),
          body: { slug, name: slug, price_koinu: PRICE.toString(), max: 10, creator_address: creator.address },
        });
        expect(listed.status).to.equal(201);
        await app.launchpad.mints.runOnce();
        const detail = (await call("GET", `/collections/${slug}`)).body;
        expect(detail.deploy.status).to.equal("failed");
        expect(detail.deploy.error).to.contain("BROADCAST_REJECTED");
        await mine();
        await app.launchpad.mints.runOnce();
        const claim = await call("POST", `/collections/${slug}/claim`, { token: await signIn(newKey()) });
        expect([claim.status, claim.body?.error?.code]).to.deep.equal([409, "COLLECTION_NOT_DEPLOYED"]);
        expect(claim.body.error.details).to.include({ deploy_status: "failed" });
      } finally {
        stack.base = saved;
        app.launchpad.feed.close();
        server.closeAllConnections();
        server.close();
      }
    });
  });

  describe("5. a mint counts only when the index judges it a member at the buyer's address", () => {
    it("shows a mint the index refuses as rejected_by_index with the index's reason and what the creator owes, and never counts it", async () => {
      const creator = newKey();
      const slug = "judged-pups";
      await listDeployed(creator, slug);
      // Index 0 is minted on chain as the deploy's inscriber, outside the launchpad's records.
      const outside = new InscriberClient({ url: stack.inscriberBase, key: LAUNCHPAD_PROJECT_KEY });
      const { job } = await outside.inscribe("outside-mint", {
        project: "launchpad",
        contentType: "application/json",
        action: "LAUNCHPAD_MINT",
        content: encodeLaunchpadMint({ slug, tokenId: 0n, maxSupply: 10n }),
        recipient: newKey().address,
      });
      await stack.confirmInscriberJob(job.id);

      const buyer = newKey();
      const token = await signIn(buyer);
      const coin = await faucet(buyer);
      await mine();
      const claim = await call("POST", `/collections/${slug}/claim`, { token });
      expect(claim.status, JSON.stringify(claim.body)).to.equal(201);
      expect(claim.body.index).to.equal(0);
      const txid = await pay(buyer, coin, creator, PRICE, `service-launch-mint:${slug}:0`);
      await mine();
      const minted = await call("POST", `/collections/${slug}/mint`, {
        token,
        body: { reservation_id: claim.body.reservation_id, payment_txid: txid },
      });
      expect(minted.status, JSON.stringify(minted.body)).to.equal(202);
      await stack.confirmInscriberJob(minted.body.inscriber_job_id);
      await stack.app.launchpad.mints.runOnce();
      await stack.app.launchpad.mints.runOnce();

      const record = (await call("GET", `/collections/${slug}/mints/0`)).body;
      expect(record.status).to.equal("rejected_by_index");
      expect(record.index_reason).to.equal("ALREADY_MINTED");
      expect(record.payment.settlement).to.deep.equal({
        reason: "MINT_REJECTED",
        owed_koinu: PRICE.toString(),
        owed_by: creator.address,
        owed_to: buyer.address,
      });
      expect((await call("GET", `/collections/${slug}`)).body.minted).to.equal(0);
      expect((await call("GET", `/collections/${slug}/membership?address=${buyer.address}`)).body.member).to.equal(
        false,
      );
      // The buyer's claim shows what it is owed.
      const again = await call("POST", `/collections/${slug}/claim`, { token });
      expect(again.body.owed_payments.map((p: any) => [p.txid, p.settlement.reason])).to.deep.include([
        txid,
        "MINT_REJECTED",
      ]);
      // An honest mint of the next index still confirms and counts.
      expect(again.body.index).to.equal(1);
      const coin2 = await faucet(buyer);
      await mine();
      const txid2 = await pay(buyer, coin2, creator, PRICE, `service-launch-mint:${slug}:1`);
      await mine();
      const honest = await call("POST", `/collections/${slug}/mint`, {
        token,
        body: { reservation_id: again.body.reservation_id, payment_txid: txid2 },
      });
      expect(honest.status, JSON.stringify(honest.body)).to.equal(202);
      await stack.confirmInscriberJob(honest.body.inscriber_job_id);
      await stack.app.launchpad.mints.runOnce();
      const honestRecord = (await call("GET", `/collections/${slug}/mints/1`)).body;
      expect(honestRecord.status).to.equal("confirmed");
      expect(honestRecord.index_reason).to.equal(null);
      expect((await call("GET", `/collections/${slug}`)).body.minted).to.equal(1);
    });
  });
});
