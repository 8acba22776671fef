/**
 * The launchpad's mint path end to end on the devnet: the real inscriber (in process, as
 * test/services/inscriber.test.ts builds it) reached over HTTP by InscriberClient, payments
 * made by the claimants' own keys and read back from the index; a wrong amount is recorded as the
 * creator's to settle (the launchpad has no wallet and refunds nothing). The index is the judge of
 * what landed.
 */
import { expect } from "chai";
import { NETWORKS, OP, compileScript } from "../../src/doge";
import { IndexQueries } from "../../src/indexer/queries";
import {
  LaunchpadApp,
  LaunchpadInscriptionRequest,
  createLaunchpadApp,
  openLaunchpadDatabase,
} from "../../src/services/launchpad";
import { CONFIGURATION_REFUSALS, InscriberClient } from "../../src/services/inscriber/client";
import type { InscriberJob } from "../../src/services/inscriber/client";
import { inscriberFailure, inscriberJob } from "../helpers/inscriber-job";
import { encodeLaunchpadMint } from "../../src/inscription/launchpad";
import type { RunningDevnet } from "../helpers/devnet";
import { KOINU_PER_DOGE } from "../helpers/inscribe";
import { Spendable, TestKey, newKey, spendP2pkh } from "../helpers/keys";
import { Answer, LAUNCHPAD_PROJECT_KEY, LaunchpadStack, startLaunchpadStack } from "../helpers/launchpad-stack";
import { listenLocal } from "../helpers/listen";

const LAUNCHPAD_KEY = LAUNCHPAD_PROJECT_KEY;
const PRICE = 5n * KOINU_PER_DOGE;
const PAID = "paid-pups";
const FREE = "free-pups";
const MAX = 10;

describe("launchpad mint path", function () {
  this.timeout(300_000);
  let stack: LaunchpadStack;
  let devnet: RunningDevnet;
  let queries: IndexQueries;
  let inscriberBase: string;
  let app: LaunchpadApp;
  const creator = newKey(); // lists the collections (a listing is its creator's)

  const call = (method: string, p: string, options: { token?: string; body?: unknown } = {}): Promise<Answer> =>
    stack.call(method, p, options);
  const signIn = (key: TestKey): Promise<string> => stack.signIn(key);
  const mine = () => stack.mine();
  const confirmInscriberJob = (id: string) => stack.confirmInscriberJob(id);
  const faucet = async (key: TestKey): Promise<Spendable> => {
    const { txid } = await devnet.rpc<{ txid: string }>("devnet_faucet", [key.address, 100, false]);
    return { txid, vout: 0, value: 100n * KOINU_PER_DOGE };
  };

  /** A payment from `key` to the creator carrying the OP_RETURN `memo`; sent to the devnet's mempool. */
  async function pay(key: TestKey, coin: Spendable, amountKoinu: bigint, memo: string | null): Promise<string> {
    const outputs = [{ script: creator.script, value: amountKoinu }];
    if (memo !== null)
      outputs.push({ script: compileScript([OP.OP_RETURN, new TextEncoder().encode(memo)]), value: 0n });
    outputs.push({ script: key.script, value: coin.value - amountKoinu - KOINU_PER_DOGE });
    const { hex } = spendP2pkh(key, [coin], outputs);
    return devnet.rpc<string>("sendrawtransaction", [hex]);
  }

  /** What the creator owes `payer` back for a payment, as the answers show it. */
  const owed = (reason: string, koinu: bigint, payer: TestKey) => ({
    reason,
    owed_koinu: koinu.toString(),
    owed_by: creator.address,
    owed_to: payer.address,
  });

  const minted = async (slug: string) => (await call("GET", `/collections/${slug}`)).body.minted as number;

  before(async () => {
    stack = await startLaunchpadStack();
    ({ devnet, queries, inscriberBase, app } = stack);

    // Both collections listed by their creator (the free one with the operator key), their deploys
    // inscribed by the inscriber and confirmed.
    const token = await signIn(creator);
    for (const [slug, price] of [
      [PAID, PRICE],
      [FREE, 0n],
    ] as const) {
      const listed = await stack.call("POST", "/collections", {
        token,
        operator: price === 0n,
        body: { slug, name: slug, price_koinu: price.toString(), max: MAX, creator_address: creator.address },
      });
      expect(listed.status, JSON.stringify(listed.body)).to.equal(201);
      expect(listed.body.deploy.status).to.equal("submitted");
      await confirmInscriberJob(listed.body.deploy.job_id);
    }
    await app.launchpad.mints.runOnce();
    expect((await call("GET", `/collections/${PAID}`)).body.deploy.inscription_id).to.match(/^[0-9a-f]{64}i0$/);
  });

  after(async () => {
    await stack?.stop();
  });

  /** Claims, mints and follows the inscriber until confirmed; returns the confirmed mint record. */
  async function mintToConfirmation(token: string, slug: string, reservationId: number, paymentTxid?: string) {
    const answer = await call("POST", `/collections/${slug}/mint`, {
      token,
      body: { reservation_id: reservationId, ...(paymentTxid ? { payment_txid: paymentTxid } : {}) },
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(202);
    expect(answer.body.status).to.equal("submitted");
    expect(answer.body.inscriber_job_id).to.match(/^job_[0-9a-f]{24}$/);
    expect(answer.body.payment_txid).to.equal(paymentTxid ?? null);
    await confirmInscriberJob(answer.body.inscriber_job_id);
    await app.launchpad.mints.runOnce();
    const record = await call("GET", `/collections/${slug}/mints/${answer.body.index}`);
    expect(record.status).to.equal(200);
    expect(record.body.status).to.equal("confirmed");
    return record.body;
  }

  function expectMintInIndex(record: any, owner: TestKey, slug: string) {
    expect(record.inscription_id).to.equal(`${record.mint_txid}i0`);
    const inscription = queries.inscription(record.inscription_id)!;
    expect(inscription.ownerAddress).to.equal(owner.address);
    expect(inscription.action).to.equal("LAUNCHPAD_MINT");
    const body = queries.inscriptionBody(record.inscription_id)!;
    expect(body.contentType).to.equal("application/json");
    expect(new TextDecoder().decode(body.body)).to.equal(
      JSON.stringify({ p: "service", op: "LAUNCHPAD_MINT", slug, id: String(record.index), max: String(MAX) }),
    );
  }

  describe("a priced collection", () => {
    const bob = newKey();
    const carol = newKey();
    let bobPayment: string;
    let bobToken: string;
    let bobReservationId: number;
    let carolToken: string;
    let carolReservation: any;
    let carolCoin: Spendable;

    it("mints a paid index onto the claimant, the counter going from X to X+1 once, after answering PAYMENT_NOT_FOUND until the payment is indexed", async () => {
      const token = (bobToken = await signIn(bob));
      const coin = await faucet(bob);
      await mine();
      const claim = await call("POST", `/collections/${PAID}/claim`, { token });
      expect(claim.status).to.equal(201);
      bobReservationId = claim.body.reservation_id;
      bobPayment = await pay(bob, coin, PRICE, `service-launch-mint:${PAID}:${claim.body.index}`);
      const early = await call("POST", `/collections/${PAID}/mint`, {
        token,
        body: { reservation_id: claim.body.reservation_id, payment_txid: bobPayment },
      });
      expect(early.status).to.equal(409);
      expect(early.body.error.code).to.equal("PAYMENT_NOT_FOUND");
      await mine();
      const before = await minted(PAID);
      const record = await mintToConfirmation(token, PAID, claim.body.reservation_id, bobPayment);
      expect(record.payment).to.include({ txid: bobPayment, status: "accepted", received_koinu: PRICE.toString() });
      expect(record.payment.settlement).to.equal(null);
      expectMintInIndex(record, bob, PAID);
      expect(await minted(PAID)).to.equal(before + 1);
      await app.launchpad.mints.runOnce();
      expect(await minted(PAID)).to.equal(before + 1);
      expect((await call("GET", `/collections/${PAID}/membership?address=${bob.address}`)).body.member).to.equal(true);
      // A retry of the same mint answers the same record.
      const retry = await call("POST", `/collections/${PAID}/mint`, {
        token,
        body: { reservation_id: claim.body.reservation_id, payment_txid: bobPayment },
      });
      expect(retry.status).to.equal(200);
      expect(retry.body).to.include({ created: false, status: "confirmed", inscription_id: record.inscription_id });
    });

    it("refuses a payment txid already used for another mint with 409 PAYMENT_REUSED", async () => {
      carolToken = await signIn(carol);
      carolCoin = await faucet(carol);
      await mine();
      carolReservation = (await call("POST", `/collections/${PAID}/claim`, { token: carolToken })).body;
      const answer = await call("POST", `/collections/${PAID}/mint`, {
        token: carolToken,
        body: { reservation_id: carolReservation.reservation_id, payment_txid: bobPayment },
      });
      expect(answer.status).to.equal(409);
      expect(answer.body.error.code).to.equal("PAYMENT_REUSED");
      expect(answer.body.error.details).to.include({ payment_txid: bobPayment, slug: PAID, index: 0 });
    });

    it("records a second payment for a reservation already minted, answers 409 RESERVATION_USED and shows it as the creator's to settle", async () => {
      const coin = await faucet(bob);
      const txid = await pay(bob, coin, PRICE, `service-launch-mint:${PAID}:0`);
      await mine();
      const answer = await call("POST", `/collections/${PAID}/mint`, {
        token: bobToken,
        body: { reservation_id: bobReservationId, payment_txid: txid },
      });
      expect(answer.status).to.equal(409);
      expect(answer.body.error.code).to.equal("RESERVATION_USED");
      expect(answer.body.error.details.payment).to.include({ status: "duplicate", received_koinu: PRICE.toString() });
      expect(answer.body.error.details.payment.settlement).to.deep.equal(owed("RESERVATION_USED", PRICE, bob));
      expect((await call("GET", `/collections/${PAID}/mints/0`)).body.payment_txid).to.equal(bobPayment);
    });

    it("refuses a payment bound to another index with 422 PAYMENT_NOT_BOUND and consumes nothing", async () => {
      const coin = await faucet(carol);
      const txid = await pay(carol, coin, PRICE, `service-launch-mint:${PAID}:0`);
      await mine();
      const answer = await call("POST", `/collections/${PAID}/mint`, {
        token: carolToken,
        body: { reservation_id: carolReservation.reservation_id, payment_txid: txid },
      });
      expect(answer.status).to.equal(422);
      expect(answer.body.error.code).to.equal("PAYMENT_NOT_BOUND");
      expect(answer.body.error.details.expected_op_return).to.equal(
        `service-launch-mint:${PAID}:${carolReservation.index}`,
      );
      expect(app.launchpad.mints.payment(txid)).to.equal(null);
    });

    it("records an underpayment, answers 422 UNDERPAID and shows it in the claim as owed by the creator", async () => {
      const amount = 1n * KOINU_PER_DOGE;
      const txid = await pay(carol, carolCoin, amount, `service-launch-mint:${PAID}:${carolReservation.index}`);
      await mine();
      const answer = await call("POST", `/collections/${PAID}/mint`, {
        token: carolToken,
        body: { reservation_id: carolReservation.reservation_id, payment_txid: txid },
      });
      expect(answer.status).to.equal(422);
      expect(answer.body.error.code).to.equal("UNDERPAID");
      const payment = answer.body.error.details.payment;
      expect(payment).to.include({
        txid,
        status: "underpaid",
        received_koinu: amount.toString(),
        payer_address: carol.address,
      });
      expect(payment.settlement).to.deep.equal(owed("UNDERPAID", amount, carol));
      // The claim (still live) shows the payer what the creator owes it.
      const claim = await call("GET", `/collections/${PAID}/claim`, { token: carolToken });
      expect(claim.body.owed_payments.map((p: any) => p.txid)).to.deep.equal([txid]);
      // Recorded: the same txid again is a reuse.
      const again = await call("POST", `/collections/${PAID}/mint`, {
        token: carolToken,
        body: { reservation_id: carolReservation.reservation_id, payment_txid: txid },
      });
      expect(again.body.error.code).to.equal("PAYMENT_REUSED");
    });

    it("mints an overpaid index and records the excess as the creator's to settle", async () => {
      const coin = await faucet(carol);
      const txid = await pay(
        carol,
        coin,
        PRICE + 2n * KOINU_PER_DOGE,
        `service-launch-mint:${PAID}:${carolReservation.index}`,
      );
      await mine();
      const answer = await call("POST", `/collections/${PAID}/mint`, {
        token: carolToken,
        body: { reservation_id: carolReservation.reservation_id, payment_txid: txid },
      });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(202);
      expect(answer.body.payment.settlement).to.deep.equal(owed("OVERPAID", 2n * KOINU_PER_DOGE, carol));
      await confirmInscriberJob(answer.body.inscriber_job_id);
      await app.launchpad.mints.runOnce();
      expectMintInIndex((await call("GET", `/collections/${PAID}/mints/${carolReservation.index}`)).body, carol, PAID);
    });

    it("gives concurrent mint calls with the same reservation and payment one mint and one inscriber job", async () => {
      const harry = newKey();
      const token = await signIn(harry);
      const coin = await faucet(harry);
      await mine();
      const claim = (await call("POST", `/collections/${PAID}/claim`, { token })).body;
      const txid = await pay(harry, coin, PRICE, `service-launch-mint:${PAID}:${claim.index}`);
      await mine();
      const answers = await Promise.all(
        Array.from({ length: 5 }, () =>
          call("POST", `/collections/${PAID}/mint`, {
            token,
            body: { reservation_id: claim.reservation_id, payment_txid: txid },
          }),
        ),
      );
      expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 200, 200, 200, 202]);
      const jobs = new Set(answers.map((a) => a.body.inscriber_job_id).filter((id) => id !== null));
      expect(jobs.size).to.be.at.most(1);
      await app.launchpad.mints.runOnce();
      const record = (await call("GET", `/collections/${PAID}/mints/${claim.index}`)).body;
      expect(record.inscriber_job_id).to.match(/^job_/);
      expect(record.payment.txid).to.equal(txid);
    });

    it("records a payment made after the reservation expired as its payer's, and takes it for the payer's next reservation of that index", async () => {
      const dave = newKey();
      const token = await signIn(dave);
      const coin = await faucet(dave);
      await mine();
      const claim = (await call("POST", `/collections/${PAID}/claim`, { token })).body;
      const txid = await pay(dave, coin, PRICE, `service-launch-mint:${PAID}:${claim.index}`);
      await mine();
      stack.clockOffset += 601;
      const answer = await call("POST", `/collections/${PAID}/mint`, {
        token,
        body: { reservation_id: claim.reservation_id, payment_txid: txid },
      });
      expect(answer.status).to.equal(409);
      expect(answer.body.error.code).to.equal("RESERVATION_EXPIRED");
      expect(answer.body.error.details.payment).to.include({ status: "late", received_koinu: PRICE.toString() });
      expect(answer.body.error.details.payment.settlement).to.deep.equal(owed("RESERVATION_EXPIRED", PRICE, dave));
      // The index is free again; dave claims it anew and the recorded payment pays for it.
      const again = (await call("POST", `/collections/${PAID}/claim`, { token })).body;
      expect(again.index).to.equal(claim.index);
      expect(again.owed_payments.map((p: any) => p.txid)).to.deep.equal([txid]);
      const minted = await call("POST", `/collections/${PAID}/mint`, {
        token,
        body: { reservation_id: again.reservation_id, payment_txid: txid },
      });
      expect(minted.status, JSON.stringify(minted.body)).to.equal(202);
      expect(minted.body.payment).to.include({ status: "accepted", settlement: null });
      await mine();
    });
  });

  describe("an unpriced collection", () => {
    it("mints from the reservation alone onto the claimant, the counter going from X to X+1", async () => {
      const erin = newKey();
      const token = await signIn(erin);
      const claim = (await call("POST", `/collections/${FREE}/claim`, { token })).body;
      const withPayment = await call("POST", `/collections/${FREE}/mint`, {
        token,
        body: { reservation_id: claim.reservation_id, payment_txid: "00".repeat(32) },
      });
      expect(withPayment.status).to.equal(400);
      expect(withPayment.body.error.code).to.equal("PAYMENT_NOT_EXPECTED");
      const before = await minted(FREE);
      const record = await mintToConfirmation(token, FREE, claim.reservation_id);
      expect(record.payment).to.equal(null);
      expectMintInIndex(record, erin, FREE);
      expect(await minted(FREE)).to.equal(before + 1);
    });

    it("refuses another claimant's reservation with 404 and an unknown mint with 404", async () => {
      const frank = newKey();
      const token = await signIn(frank);
      const other = await call("POST", `/collections/${FREE}/mint`, { token, body: { reservation_id: 1 } });
      expect(other.status).to.equal(404);
      expect(other.body.error.code).to.equal("RESERVATION_NOT_FOUND");
      expect((await call("GET", `/collections/${FREE}/mints/9`)).body.error.code).to.equal("MINT_NOT_FOUND");
      expect((await call("POST", `/collections/${FREE}/mint`, { body: { reservation_id: 1 } })).status).to.equal(401);
    });
  });

  describe("the inscriber client", () => {
    const request = (recipient: string, key: string): LaunchpadInscriptionRequest => ({
      project: "launchpad",
      contentType: "application/json",
      action: "LAUNCHPAD_MINT",
      content: encodeLaunchpadMint({ slug: "client-check", tokenId: 0n, maxSupply: 1n }),
      recipient,
      idempotencyKey: key,
    });
    const refusal = inscriberFailure;

    it("sends one job per Idempotency-Key however often the call is retried, and follows it", async () => {
      const client = new InscriberClient({ url: inscriberBase, key: LAUNCHPAD_KEY });
      const recipient = newKey().address;
      const first = await client.inscribe("client-check-once", request(recipient, "client-check-once"));
      const second = await client.inscribe("client-check-once", request(recipient, "client-check-once"));
      expect(first.created).to.equal(true);
      expect(second.created).to.equal(false);
      expect(second.job.id).to.equal(first.job.id);
      const job = await client.job(first.job.id);
      expect(job.id).to.equal(first.job.id);
      expect(job.status).to.be.oneOf(["queued", "committed", "revealed", "confirmed"]);
      expect(job.envelopeHash).to.match(/^[0-9a-f]{64}$/);
      await confirmInscriberJob(first.job.id);
      const confirmed = await client.job(first.job.id);
      expect(confirmed).to.deep.include({ status: "confirmed", inscriptionId: `${confirmed.revealTxids[0]}i0` });
    });

    it("maps the inscriber's refusals: a wrong key, a bad request, an unknown job and no inscriber at all", async () => {
      const wrongKey = await refusal(
        new InscriberClient({ url: inscriberBase, key: "ik_wrong" }).inscribe(
          "client-check-key",
          request(newKey().address, "client-check-key"),
        ),
      );
      expect(wrongKey).to.include({
        failure: "INSCRIBER_UNAUTHORIZED",
        kind: "unauthorized",
        retryable: false,
        status: 401,
        code: "INVALID_PROJECT_KEY",
        refused: false,
      });
      const client = new InscriberClient({ url: inscriberBase, key: LAUNCHPAD_KEY });
      const bad = await refusal(client.inscribe("client-check-bad", request("not-an-address", "client-check-bad")));
      expect(bad).to.include({
        failure: "INSCRIBER_REFUSED",
        kind: "invalid",
        retryable: false,
        status: 400,
        code: "INVALID_ADDRESS",
        refused: true,
      });
      // A refusal about how the caller is configured (not the content) is worth retrying once fixed.
      const misfiled = await refusal(
        client.inscribe("client-check-project", {
          ...request(newKey().address, "client-check-project"),
          project: "no such project!",
        }),
      );
      expect(misfiled).to.include({ failure: "INSCRIBER_REFUSED", status: 400, refused: true });
      expect(misfiled.retryable, misfiled.code).to.equal(CONFIGURATION_REFUSALS.has(misfiled.code));
      const unknown = await refusal(client.job("job_000000000000000000000000"));
      expect(unknown).to.include({
        failure: "INSCRIBER_JOB_NOT_FOUND",
        kind: "not_found",
        retryable: false,
        status: 404,
      });
      const down = await refusal(
        new InscriberClient({ url: "http://127.0.0.1:1", key: LAUNCHPAD_KEY, timeoutMs: 2_000 }).inscribe(
          "client-check-down",
          request(newKey().address, "client-check-down"),
        ),
      );
      expect(down).to.include({
        failure: "INSCRIBER_UNREACHABLE",
        code: "INSCRIBER_UNREACHABLE",
        kind: "unavailable",
        retryable: true,
        status: 0,
      });
    });
  });

  describe("a failed inscriber job", () => {
    const failedJob = (id: string, status: InscriberJob["status"]) =>
      inscriberJob({
        id,
        status,
        error: status === "failed" ? { code: "INSUFFICIENT_FUNDS", message: "the hot wallet is empty" } : null,
      });
    it("is recorded with its reason, and the index is minted again on the payer's new claim with the same payment", async () => {
      // A second launchpad over the same index whose inscriber deploys for real, and accepts each
      // mint job and then fails it.
      const real = new InscriberClient({ url: inscriberBase, key: LAUNCHPAD_KEY });
      const failingJobs = new Set<string>();
      const failing = createLaunchpadApp({
        db: openLaunchpadDatabase(":memory:"),
        queries,
        network: NETWORKS.regtest,
        rateLimitPerMinute: 0,
        claimsPerSessionPerMinute: 0,
        maxReservationsPerClient: 0,
        inscriber: {
          inscribe: async (key, request) => {
            if (request.action === "LAUNCHPAD_DEPLOY") return real.inscribe(key, request);
            const id = `job_${(failingJobs.size + 1).toString(16).padStart(24, "f")}`;
            failingJobs.add(id);
            return { job: failedJob(id, "queued"), created: true };
          },
          job: async (id) => (failingJobs.has(id) ? failedJob(id, "failed") : real.job(id)),
        },
      });
      const { server: failingServer } = await listenLocal(failing);
      const saved = stack.base;
      stack.base = `http://127.0.0.1:${(failingServer.address() as { port: number }).port}`;
      try {
        const slug = "failing-pups";
        const listed = await call("POST", "/collections", {
          token: await signIn(creator),
          body: { slug, name: slug, price_koinu: PRICE.toString(), max: MAX, creator_address: creator.address },
        });
        expect(listed.status).to.equal(201);
        await confirmInscriberJob(listed.body.deploy.job_id);
        await failing.launchpad.mints.runOnce();
        const gina = newKey();
        const token = await signIn(gina);
        const coin = await faucet(gina);
        await mine();
        const claim = (await call("POST", `/collections/${slug}/claim`, { token })).body;
        const txid = await pay(gina, coin, PRICE, `service-launch-mint:${slug}:${claim.index}`);
        await mine();
        const answer = await call("POST", `/collections/${slug}/mint`, {
          token,
          body: { reservation_id: claim.reservation_id, payment_txid: txid },
        });
        expect(answer.status, JSON.stringify(answer.body)).to.equal(202);
        await failing.launchpad.mints.runOnce();
        const record = (await call("GET", `/collections/${slug}/mints/${claim.index}`)).body;
        expect(record.status).to.equal("failed");
        expect(record.error).to.contain("INSUFFICIENT_FUNDS");
        expect(record.payment).to.include({ status: "mint_failed" });
        expect(record.payment.settlement).to.deep.equal(owed("MINT_FAILED", PRICE, gina));
        expect(await minted(slug)).to.equal(0);
        expect((await call("GET", `/collections/${slug}`)).body.deploy).to.include({ status: "indexed", error: null });
        // The failed index is free again: the next claim gets it, the payment still counts for its
        // payer, and the mint is a second attempt.
        const again = (await call("POST", `/collections/${slug}/claim`, { token })).body;
        expect(again.index).to.equal(claim.index);
        const second = await call("POST", `/collections/${slug}/mint`, {
          token,
          body: { reservation_id: again.reservation_id, payment_txid: txid },
        });
        expect(second.status, JSON.stringify(second.body)).to.equal(202);
        expect(second.body.attempt).to.equal(2);
        expect(second.body.payment).to.include({ txid, status: "accepted", settlement: null });
        // Nobody else can use it.
        const harry = newKey();
        const stolen = await call("POST", `/collections/${slug}/mint`, {
          token: await signIn(harry),
          body: { reservation_id: again.reservation_id, payment_txid: txid },
        });
        expect(stolen.status).to.equal(404);
      } finally {
        stack.base = saved;
        failingServer.close();
      }
    });
  });
});
