import { expect } from "chai";
import { getAddress, makeError } from "ethers";
import { FACT_TYPE_KEYS, ZERO_KEY } from "../../src/facts";
import type { FactTypeName } from "../../src/facts";
import type { FactParamsJson, ReceiptJson } from "../../src/attester/wire";
import { AppError, unprocessable } from "../../src/services/http/errors";
import type { AttestedFact, AttestedReceipt } from "../../src/services/attest-api/panel";
import { JOB_STATUS, Relayer, openRelayerDatabase } from "../../src/relayer";
import { InscriberCallError } from "../../src/services/inscriber/client";
import type { InscribeRequest, InscriberJob } from "../../src/services/inscriber/client";
import { inscriberJob } from "../helpers/inscriber-job";
import type { RelayerInscriber, RelayerPanel, RelayerWallet } from "../../src/relayer";
import type { WalletTx } from "../../src/wallet";
import { FakeL2, announced } from "./fake-l2";

const TXID = "ab".repeat(32);
const SIGNATURES = ["0x01", "0x02"];

/** Attesters that sign whatever the test allows: receipts at `height` once `deep`, tips up to `tipHeight`. */
class FakePanel implements RelayerPanel {
  deep = false;
  height = 100;
  tipHeight = 105;
  failure: AppError | null = null;
  readonly tipRequests: { notBefore?: number }[] = [];
  receipts = 0;

  async receipt(
    _kind: "inscription" | "anchor",
    jobContract: string,
    jobId: string,
    l1Txid: string,
  ): Promise<AttestedReceipt> {
    this.receipts += 1;
    if (this.failure) throw this.failure;
    if (!this.deep) throw unprocessable("NOT_DEEP_ENOUGH", "not 6 deep", {});
    const receipt: ReceiptJson = {
      jobId,
      jobContract: getAddress(jobContract),
      l1Txid: `0x${l1Txid}`,
      resultHash: this.resultHashes.get(jobId)!,
      l1Height: String(this.height),
      attestedAt: "1000",
      attesterSetId: "1",
    };
    return { receipt, typedData: null as never, signatures: SIGNATURES, signers: [] };
  }

  async fact(
    _type: FactTypeName,
    _params: FactParamsJson,
    options: { notBefore?: number } = {},
  ): Promise<AttestedFact> {
    this.tipRequests.push(options);
    const fact = {
      factType: FACT_TYPE_KEYS.L1_TIP,
      subject: ZERO_KEY,
      qualifier: ZERO_KEY,
      value: String(this.tipHeight),
      data: `0x${"11".repeat(32)}`,
      l1Height: String(this.tipHeight),
      attestedAt: String(options.notBefore ?? 1),
      attesterSetId: "1",
    };
    return { fact, typedData: null as never, signatures: SIGNATURES, signers: [] };
  }

  readonly resultHashes = new Map<string, string>();
}

/** An inscriber whose jobs the test moves along. */
class FakeInscriber implements RelayerInscriber {
  readonly byKey = new Map<string, InscriberJob>();
  readonly requests: { key: string; request: InscribeRequest }[] = [];
  refusal: InscriberCallError | null = null;
  envelopeHash: string | null = null;

  async inscribe(key: string, request: InscribeRequest) {
    this.requests.push({ key, request });
    if (this.refusal) throw this.refusal;
    const existing = this.byKey.get(key);
    if (existing) return { job: existing, created: false };
    const job = inscriberJob({
      id: `job_${String(this.byKey.size).padStart(24, "0")}`,
      project: "relayer",
      envelopeHash: this.envelopeHash!,
    });
    this.byKey.set(key, job);
    return { job, created: true };
  }

  async job(id: string) {
    const job = [...this.byKey.values()].find((j) => j.id === id);
    if (!job) throw new Error(`no job ${id}`);
    return job;
  }

  confirm(id: string, reveals = [TXID]): void {
    Object.assign(
      [...this.byKey.values()].find((j) => j.id === id)!,
      { status: "confirmed", revealTxids: reveals, inscriptionId: `${reveals[0]}i0` },
    );
  }

  fail(id: string): void {
    Object.assign(
      [...this.byKey.values()].find((j) => j.id === id)!,
      { status: "failed", error: { code: "TX_CONFLICT", message: "spent elsewhere" } },
    );
  }
}

/** A wallet that signs one transaction per (owner, label). */
class FakeWallet {
  readonly txs = new Map<string, WalletTx>();
  funded = 0;

  fund(owner: string, label: string) {
    const key = `${owner}/${label}`;
    if (!this.txs.has(key)) {
      this.funded += 1;
      const txid = this.funded.toString(16).padStart(64, "0");
      this.txs.set(key, {
        txid,
        owner,
        label,
        hex: "",
        state: "signed",
        feeKoinu: 1000n,
        height: null,
        replacedBy: null,
        error: null,
        createdAt: 0,
        broadcastAt: null,
        attempts: 0,
      });
    }
    const tx = this.txs.get(key)!;
    return { txid: tx.txid, hex: "", tx: null as never, feeKoinu: tx.feeKoinu, changeVout: null };
  }
  async broadcast(txid: string) {
    const tx = [...this.txs.values()].find((t) => t.txid === txid)!;
    if (tx.state === "signed") tx.state = "broadcast";
    return tx;
  }
  txOf(owner: string, label: string) {
    return this.txs.get(`${owner}/${label}`) ?? null;
  }
}

/** The relayer's worker over fakes of the L2, the attesters, the inscriber and the wallet, with a clock the test moves. */
describe("relayer worker", () => {
  let chain: FakeL2;
  let panel: FakePanel;
  let inscriber: FakeInscriber;
  let wallet: FakeWallet;
  let now: number;
  let logs: { level: string; event: string; fields: Record<string, unknown> }[];

  function relayer(overrides: Partial<ConstructorParameters<typeof Relayer>[0]> = {}): Relayer {
    return new Relayer({
      db: openRelayerDatabase(":memory:"),
      l2: chain,
      panel,
      inscriber,
      wallet: wallet as unknown as RelayerWallet,
      addresses: { attestation: getAddress(`0x${"cc".repeat(20)}`) },
      clock: () => now,
      retryBaseMs: 1000,
      retryMaxMs: 8000,
      log: (level, event, fields) => logs.push({ level, event, fields }),
      ...overrides,
    });
  }
  /** Announces a job in a new block and stores it on the fake contract. */
  function request(kind: "inscription" | "anchor", deadline = chain.now + 86_400) {
    const job = announced(kind, 0, { deadline });
    chain.extend(1, { 0: [job] });
    chain.open(job);
    panel.resultHashes.set(job.jobId, job.resultHash);
    inscriber.envelopeHash = job.resultHash.slice(2);
    return job;
  }

  beforeEach(() => {
    chain = new FakeL2(1);
    panel = new FakePanel();
    inscriber = new FakeInscriber();
    wallet = new FakeWallet();
    now = 1_000_000;
    logs = [];
  });

  it("backs off exponentially up to retryMaxMs while the attesters answer NOT_DEEP_ENOUGH, then settles", async () => {
    const r = relayer();
    const job = request("anchor");
    await r.runOnce();
    expect(r.store.get(job.jobId)).to.deep.include({
      status: "l1_done",
      l1Txid: wallet.txOf(job.jobId, "anchor")!.txid,
      workRef: "anchor",
      nextAttemptAt: now + 1000,
    });
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      now = r.store.get(job.jobId)!.nextAttemptAt;
      expect((await r.runOnce()).attempted).to.equal(1);
      delays.push(r.store.get(job.jobId)!.nextAttemptAt - now);
      expect((await r.runOnce()).attempted, "not due again before its time").to.equal(0);
    }
    expect(delays).to.deep.equal([1000, 2000, 4000, 8000, 8000, 8000]);
    expect(r.store.get(job.jobId)).to.deep.include({ attempts: 6, lastErrorCode: "NOT_DEEP_ENOUGH" });
    expect(logs.filter((l) => l.event === "relayer_job_waiting")).to.have.length(1);
    panel.deep = true;
    chain.tip = 105n;
    now += 8000;
    await r.runOnce();
    expect(r.store.get(job.jobId)).to.deep.include({ status: "settled", settledByUs: true, l1Height: 100 });
    expect(chain.settles).to.have.length(1);
    expect(chain.facts).to.have.length(0);
  });

  it("raises the attested tip with an L1_TIP fact attested after the stored one only when settle needs it", async () => {
    const r = relayer({ retryBaseMs: 0, retryMaxMs: 0 });
    const job = request("anchor");
    panel.deep = true;
    chain.tip = 90n;
    chain.tipAttestedAt = 5000n;
    panel.tipHeight = 104;
    await r.runOnce();
    await r.runOnce();
    expect(r.store.get(job.jobId)).to.deep.include({ status: "l1_done", lastErrorCode: "L1_TIP_BEHIND" });
    expect(chain.facts).to.have.length(0);
    panel.tipHeight = 106;
    await r.runOnce();
    expect(panel.tipRequests.at(-1)).to.deep.equal({ notBefore: 5001 });
    expect(chain.facts.map((f) => f.l1Height)).to.deep.equal([106n]);
    expect(r.store.get(job.jobId)!.status).to.equal("settled");
    // A second job at the same height finds the tip high enough.
    const second = request("anchor");
    await r.runOnce();
    await r.runOnce();
    expect(r.store.get(second.jobId)!.status).to.equal("settled");
    expect(chain.facts).to.have.length(1);
  });

  it("leaves a settle the contract would refuse for the next attempt without sending it", async () => {
    const r = relayer({ retryBaseMs: 0, retryMaxMs: 0 });
    const job = request("anchor");
    panel.deep = true;
    chain.tip = 200n;
    chain.refuseSettle = "AttestationPaused()";
    await r.runOnce();
    await r.runOnce();
    expect(r.store.get(job.jobId)).to.deep.include({
      status: "l1_done",
      lastErrorCode: "SETTLE_REFUSED",
      lastError: "AttestationPaused()",
    });
    expect(chain.settles).to.have.length(0);
    chain.refuseSettle = null;
    await r.runOnce();
    expect(r.store.get(job.jobId)!.status).to.equal("settled");
  });

  it("starts a new round, raising no tip and sending no settle, when the receipt's transaction is not above the tip recorded at request time", async () => {
    const r = relayer({ retryBaseMs: 0, retryMaxMs: 0 });
    const job = request("anchor");
    // The contract recorded tip 100 when the job was requested; the attesters place the transaction at 100.
    chain.jobs.set(job.jobId, { ...chain.jobs.get(job.jobId)!, l1TipAtRequest: 100n });
    panel.deep = true;
    chain.tip = 90n;
    panel.tipHeight = 106;
    await r.runOnce();
    await r.runOnce();
    expect(r.store.get(job.jobId)).to.deep.include({ status: "seen", round: 2, lastErrorCode: "L1_TX_BEFORE_REQUEST" });
    expect(chain.facts).to.have.length(0);
    expect(chain.settles).to.have.length(0);
    panel.height = 101;
    await r.runOnce();
    await r.runOnce();
    expect(r.store.get(job.jobId)).to.deep.include({
      status: "settled",
      round: 2,
      l1Height: 101,
      l1Txid: wallet.txOf(job.jobId, "anchor#2")!.txid,
    });
    expect(chain.settles).to.have.length(1);
  });

  it("starts a new round when settle refuses the transaction as already spent on another job", async () => {
    const r = relayer({ retryBaseMs: 0, retryMaxMs: 0 });
    const job = request("anchor");
    panel.deep = true;
    chain.tip = 200n;
    chain.refuseSettle = `JobL1TxidAlreadySettled(${job.jobId}, 0x${"01".repeat(32)}, 0x${"02".repeat(32)})`;
    await r.runOnce();
    await r.runOnce();
    expect(r.store.get(job.jobId)).to.deep.include({ status: "seen", round: 2, lastErrorCode: "L1_TX_UNUSABLE" });
    expect(chain.settles).to.have.length(0);
    chain.refuseSettle = null;
    await r.runOnce();
    await r.runOnce();
    expect(r.store.get(job.jobId)).to.deep.include({
      status: "settled",
      round: 2,
      l1Txid: wallet.txOf(job.jobId, "anchor#2")!.txid,
    });
  });

  it("does not start a job whose deadline is closer than the start margin, and reports it", async () => {
    const r = relayer({ startMarginSeconds: 3600 });
    const job = request("inscription", chain.now + 3599);
    await r.runOnce();
    expect(r.store.get(job.jobId)).to.deep.include({ status: "expired", lastErrorCode: "DEADLINE_TOO_CLOSE" });
    expect(inscriber.requests).to.have.length(0);
    expect(r.status().attention.expired.map((j) => j.job_id)).to.deep.equal([job.jobId]);
    expect(logs.find((l) => l.event === "relayer_job_expired")).to.deep.include({ level: "warn" });
  });

  it("still settles work done before the deadline after it passes while the job is Open, and gives up lateSettleSeconds after it", async () => {
    const r = relayer({ retryBaseMs: 0, retryMaxMs: 0, lateSettleSeconds: 3600 });
    const job = request("anchor", chain.now + 7200);
    await r.runOnce();
    chain.now += 7201;
    await r.runOnce();
    await r.runOnce();
    expect(logs.filter((l) => l.event === "relayer_job_late").map((l) => l.fields.job_id)).to.deep.equal([job.jobId]);
    panel.deep = true;
    chain.tip = 200n;
    await r.runOnce();
    expect(r.store.get(job.jobId)!.status).to.equal("settled");

    const stuck = request("anchor", chain.now + 7200);
    await r.runOnce();
    expect(r.store.get(stuck.jobId)!.status).to.equal("l1_done");
    panel.deep = false;
    chain.now += 7200 + 3601;
    await r.runOnce();
    expect(r.store.get(stuck.jobId)).to.deep.include({ status: "expired", lastErrorCode: "NOT_SETTLED_IN_TIME" });
    expect(chain.settles.map((x) => x.jobId)).to.deep.equal([job.jobId]);
  });

  it("records a job settled or refunded by someone else as final without acting on it", async () => {
    const r = relayer({ retryBaseMs: 0, retryMaxMs: 0 });
    const settled = request("anchor");
    const refunded = request("inscription");
    chain.jobs.set(settled.jobId, {
      ...chain.jobs.get(settled.jobId)!,
      status: JOB_STATUS.Settled,
      l1Height: 77n,
      l1Txid: `0x${TXID}`,
    });
    chain.jobs.set(refunded.jobId, { ...chain.jobs.get(refunded.jobId)!, status: JOB_STATUS.Refunded });
    await r.runOnce();
    expect(r.store.get(settled.jobId)).to.deep.include({
      status: "settled",
      settledByUs: false,
      l1Height: 77,
      l1Txid: TXID,
    });
    expect(r.store.get(refunded.jobId)).to.deep.include({ status: "refunded", lastErrorCode: "REFUNDED" });
    expect(wallet.funded).to.equal(0);
    expect(inscriber.requests).to.have.length(0);
    expect((await r.runOnce()).attempted).to.equal(0);
  });

  it("waits for a job the contract does not hold (an L2 reorg took its request) and drops it after its deadline", async () => {
    const r = relayer({ retryBaseMs: 0, retryMaxMs: 0 });
    const job = request("anchor");
    chain.jobs.delete(job.jobId);
    await r.runOnce();
    expect(r.store.get(job.jobId)).to.deep.include({ status: "seen", lastErrorCode: "JOB_NOT_ON_L2" });
    chain.now = job.deadline + 1;
    await r.runOnce();
    expect(r.store.get(job.jobId)).to.deep.include({ status: "dropped", lastErrorCode: "JOB_NOT_ON_L2" });
    expect(wallet.funded).to.equal(0);
  });

  it("inscribes under the L2 job id as Idempotency-Key, with the job's content and recipient, and settles on the last reveal", async () => {
    const r = relayer({ retryBaseMs: 0, retryMaxMs: 0 });
    const job = request("inscription");
    await r.runOnce();
    expect(inscriber.requests).to.have.length(1);
    expect(inscriber.requests[0].key).to.equal(job.jobId);
    expect(inscriber.requests[0].request).to.deep.equal({
      contentType: job.contentType,
      action: null,
      content: job.payload,
      recipient: job.dogeRecipient,
    });
    const row = r.store.get(job.jobId)!;
    expect(row.status).to.equal("submitted");
    await r.runOnce();
    expect(r.store.get(job.jobId)!.lastErrorCode).to.equal("INSCRIBER_PENDING");
    const last = "cd".repeat(32);
    inscriber.confirm(row.workRef!, [TXID, last]);
    panel.deep = true;
    chain.tip = 200n;
    await r.runOnce();
    expect(r.store.get(job.jobId)).to.deep.include({ status: "settled", l1Txid: last });
    expect(chain.settles[0].receipt.l1Txid).to.equal(`0x${last}`);
    expect(inscriber.requests).to.have.length(1);
  });

  it("starts a new round under a new Idempotency-Key when the inscriber job fails, and fails for good after maxRounds", async () => {
    const r = relayer({ retryBaseMs: 0, retryMaxMs: 0, maxRounds: 2 });
    const job = request("inscription");
    await r.runOnce();
    inscriber.fail(r.store.get(job.jobId)!.workRef!);
    await r.runOnce();
    expect(r.store.get(job.jobId)).to.deep.include({ status: "seen", round: 2, lastErrorCode: "INSCRIBER_JOB_FAILED" });
    await r.runOnce();
    expect(inscriber.requests.map((x) => x.key)).to.deep.equal([job.jobId, `${job.jobId}#2`]);
    inscriber.fail(r.store.get(job.jobId)!.workRef!);
    await r.runOnce();
    expect(r.store.get(job.jobId)).to.deep.include({
      status: "failed_permanently",
      lastErrorCode: "INSCRIBER_JOB_FAILED",
    });
  });

  it("fails content the inscriber refuses for good, but retries a refusal of how the relayer calls it", async () => {
    const r = relayer({ retryBaseMs: 0, retryMaxMs: 0 });
    const job = request("inscription");
    inscriber.refusal = new InscriberCallError(400, "INVALID_PROJECT", "project must be a project name");
    await r.runOnce();
    expect(r.store.get(job.jobId)).to.deep.include({ status: "seen", lastErrorCode: "INSCRIBER_INVALID_PROJECT" });
    inscriber.refusal = new InscriberCallError(400, "UNKNOWN_ACTION", "action NOPE is not in the registry");
    await r.runOnce();
    expect(r.store.get(job.jobId)).to.deep.include({ status: "failed_permanently", lastErrorCode: "UNKNOWN_ACTION" });
    expect(logs.find((l) => l.event === "relayer_job_failed_permanently")).to.deep.include({ level: "error" });
  });

  it("fails a job whose inscription would not carry the job's result hash before spending anything more on it", async () => {
    const r = relayer({ retryBaseMs: 0, retryMaxMs: 0 });
    const job = request("inscription");
    inscriber.envelopeHash = "00".repeat(32);
    await r.runOnce();
    expect(r.store.get(job.jobId)).to.deep.include({
      status: "failed_permanently",
      lastErrorCode: "RESULT_HASH_MISMATCH",
    });
  });

  it("retries while the L2 does not answer, keeping the job as it was", async () => {
    const r = relayer({ retryBaseMs: 0, retryMaxMs: 0 });
    const job = request("anchor");
    await r.runOnce();
    const jobOf = chain.jobOf.bind(chain);
    chain.jobOf = async () => {
      throw makeError("could not reach the L2", "NETWORK_ERROR", { event: "test" });
    };
    await r.runOnce();
    expect(r.store.get(job.jobId)).to.deep.include({ status: "l1_done", lastErrorCode: "L2_NETWORK_ERROR" });
    expect(logs.some((l) => l.event === "relayer_attempt_crashed")).to.equal(false);
    chain.jobOf = jobOf;
    panel.deep = true;
    chain.tip = 200n;
    await r.runOnce();
    expect(r.store.get(job.jobId)!.status).to.equal("settled");
  });

  it("decides from retryable: an L2 failure that retrying cannot mend is tried again but logged at error level", async () => {
    const r = relayer({ retryBaseMs: 0, retryMaxMs: 0 });
    const job = request("anchor");
    await r.runOnce();
    chain.jobOf = async () => {
      throw makeError("could not decode result data", "BAD_DATA", { value: "0x" });
    };
    await r.runOnce();
    expect(r.store.get(job.jobId)).to.deep.include({ status: "l1_done", lastErrorCode: "L2_BAD_DATA" });
    const logged = logs.find((l) => l.event === "relayer_attempt_not_retryable");
    expect(logged?.level).to.equal("error");
    expect(logged?.fields).to.include({ job_id: job.jobId, code: "L2_BAD_DATA" });
    expect(logs.some((l) => l.event === "relayer_attempt_crashed")).to.equal(false);
    // A retryable one (a socket reset under ethers) is not.
    logs.length = 0;
    chain.jobOf = async () => {
      throw makeError("socket hang up", "NETWORK_ERROR", { event: "request" });
    };
    await r.runOnce();
    expect(r.store.get(job.jobId)).to.deep.include({ status: "l1_done", lastErrorCode: "L2_NETWORK_ERROR" });
    expect(logs.some((l) => l.event === "relayer_attempt_not_retryable")).to.equal(false);
  });

  it("keeps waiting (not failing) while the attesters are unavailable", async () => {
    const r = relayer({ retryBaseMs: 0, retryMaxMs: 0 });
    const job = request("anchor");
    panel.failure = new AppError("unavailable", "ATTESTERS_UNAVAILABLE", "fewer than two attesters answer");
    await r.runOnce();
    await r.runOnce();
    expect(r.store.get(job.jobId)).to.deep.include({
      status: "l1_done",
      lastErrorCode: "ATTESTERS_UNAVAILABLE",
      attempts: 1,
    });
    expect(r.status().live.map((j) => j.last_error?.code)).to.deep.equal(["ATTESTERS_UNAVAILABLE"]);
  });
});
