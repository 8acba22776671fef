/**
 * Platform mints: jobs paid and signed by the hot wallet.
 *
 * A job goes queued -> committed -> revealed -> confirmed (or failed, with a reason). Every step is
 * idempotent and the signed transactions are stored (in the wallet's database, under the job id)
 * before they are broadcast, so a worker that stops anywhere resumes from the step the job reached
 * and rebroadcasts the same transactions: a job is never inscribed twice. If the commit can never
 * confirm (an input was spent elsewhere) the job is funded again in a new round; the two commits
 * conflict, so at most one of them confirms.
 */
import crypto from "node:crypto";
import {
  DogeNetwork,
  Transaction,
  addressToOutputScript,
  bytesToHex,
  serializeTransaction,
  signInput,
} from "../../doge";
import { BroadcastError, HotWallet, InsufficientFundsError } from "../../wallet";
import type { WalletTx } from "../../wallet";
import { InscriptionPlan, planInscription, revealInputScriptSig, revealRedeemScript, unsignedReveal } from "./plan";
import { JobInsertOutcome, JobRow, JobStore } from "./store";
import type { InscriptionInput } from "./request";

export interface PlatformOptions {
  store: JobStore;
  wallet: HotWallet;
  network: DogeNetwork;
  postageKoinu: bigint;
  feeRateKoinuPerKb: bigint;
  /** Jobs run at once (default 32). */
  maxInFlight?: number;
  /** How long a job waits for spendable coins before it fails (default 10 minutes). */
  fundsWaitMs?: number;
  log?: (event: string, fields: Record<string, unknown>) => void;
  now?: () => number;
  /**
   * Called after each step is recorded (`committed`, `revealed`, `confirmed`); a throw stops the
   * job's run there as a crash would (tests use it to stop a worker between commit and reveal).
   */
  afterStep?: (job: JobRow, step: "signed" | "committed" | "revealed" | "confirmed") => void;
}

const RETRY_BASE_MS = 500;
const RETRY_MAX_MS = 30_000;

export class PlatformInscriber {
  private readonly store: JobStore;
  private readonly wallet: HotWallet;
  private readonly inFlight = new Set<string>();
  private readonly log: NonNullable<PlatformOptions["log"]>;
  private readonly now: () => number;
  private pumping = false;
  private pumpAgain = false;
  /** idle until the first runOnce(); stopped for good by stop(). */
  private state: "idle" | "running" | "stopped" = "idle";
  private confirming: Promise<void> | null = null;

  constructor(private readonly options: PlatformOptions) {
    this.store = options.store;
    this.wallet = options.wallet;
    this.log = options.log ?? (() => undefined);
    this.now = options.now ?? Date.now;
  }

  /** The hot wallet's address: every platform inscription's inscriber (it funds the commits). */
  get walletAddress(): string {
    return this.wallet.address;
  }

  /**
   * Records a new job and wakes the worker; for an idempotency key the project already used, the
   * store's verdict (the same request, or another one under a reused key) and the first job.
   */
  submit(project: string, input: InscriptionInput, idempotencyKey: string | null): JobInsertOutcome {
    // Planned once here so that content the codecs cannot encode is refused before a job exists.
    const plan = this.planOf({
      form: input.form,
      content: input.content,
      recipient: input.recipient,
      postageKoinu: this.options.postageKoinu,
      feeRateKoinuPerKb: this.options.feeRateKoinuPerKb,
    });
    const result = this.store.insert({
      id: `job_${crypto.randomBytes(12).toString("hex")}`,
      project,
      idempotencyKey,
      form: input.form,
      contentType: input.content.contentType,
      action: input.content.action,
      body: input.content.body,
      recipient: input.recipient,
      envelopeHash: plan.envelopeHash,
      feeRateKoinuPerKb: this.options.feeRateKoinuPerKb,
      postageKoinu: this.options.postageKoinu,
    });
    if (result.kind === "created") this.kick();
    return result;
  }

  /**
   * One pass of the worker: runs the due jobs (the first pass resumes every unfinished one and
   * lets submit() run new jobs at once), then follows the broadcast ones. The daemon repeats it
   * with runEvery; after stop() it does nothing.
   */
  async runOnce(): Promise<void> {
    if (this.state === "stopped") return;
    this.state = "running";
    this.kick();
    await this.checkConfirmations();
  }

  /** Stops taking new steps; waits for the steps in progress (the daemon stops its loop first). */
  async stop(): Promise<void> {
    this.state = "stopped";
    while (this.inFlight.size > 0 || this.pumping || this.confirming)
      await new Promise((resolve) => setTimeout(resolve, 10));
  }

  /** Runs due jobs, up to the in-flight limit. */
  kick(): void {
    if (this.state !== "running") return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        const room = (this.options.maxInFlight ?? 32) - this.inFlight.size;
        if (room <= 0) break;
        for (const job of this.store.due(room, this.inFlight)) {
          this.inFlight.add(job.id);
          void this.run(job).finally(() => {
            this.inFlight.delete(job.id);
            this.kick();
          });
        }
      } while (this.pumpAgain);
    } finally {
      this.pumping = false;
    }
  }

  private planOf(
    job: Pick<JobRow, "form" | "recipient" | "postageKoinu" | "feeRateKoinuPerKb"> & {
      content: InscriptionInput["content"];
    },
  ): InscriptionPlan {
    return planInscription(
      job.content,
      job.form,
      this.wallet.key.publicKey,
      addressToOutputScript(job.recipient, this.options.network),
      {
        feeRateKoinuPerKb: job.feeRateKoinuPerKb,
        postageKoinu: job.postageKoinu,
      },
    );
  }

  private jobPlan(job: JobRow): InscriptionPlan {
    return this.planOf({ ...job, content: { contentType: job.contentType, action: job.action, body: job.body } });
  }

  /** One pass over a job: as far as it can go now. */
  private async run(initial: JobRow): Promise<void> {
    let job = this.store.get(initial.id)!;
    try {
      const plan = this.jobPlan(job);
      const commitLabel = `commit#${job.fundingRound}`;
      let commit: { txid: string; feeKoinu: bigint };
      try {
        commit = this.wallet.fund(job.id, commitLabel, plan.commitOutputs);
      } catch (error) {
        if (error instanceof InsufficientFundsError) return this.waitForFunds(job, error);
        throw error;
      }
      const reveals = this.signReveals(job, plan, commit.txid);
      const revealTxids = reveals.map((tx) => tx.txid);
      if (job.commitTxid !== commit.txid || job.revealTxids.join() !== revealTxids.join()) {
        const fee = commit.feeKoinu + plan.revealFeesKoinu.reduce((sum, f) => sum + f, 0n);
        job = this.store.update(job.id, {
          commitTxid: commit.txid,
          revealTxids,
          inscriptionId: `${revealTxids[0]}i0`,
          feeKoinu: fee,
        });
        this.options.afterStep?.(job, "signed");
      }
      // Returns at once when the commit is already out (also after a restart or a replacement).
      await this.wallet.broadcast(commit.txid);
      if (job.status === "queued") {
        job = this.store.update(job.id, { status: "committed", errorCode: null, errorMessage: null });
        this.log("inscriber_job_committed", { job: job.id, commit: commit.txid });
        this.options.afterStep?.(job, "committed");
      }
      for (const reveal of reveals) await this.wallet.broadcast(reveal.txid);
      job = this.store.update(job.id, { status: "revealed", errorCode: null, errorMessage: null, attempts: 0 });
      this.log("inscriber_job_revealed", { job: job.id, inscription: job.inscriptionId });
      this.options.afterStep?.(job, "revealed");
    } catch (error) {
      this.onError(job, error);
    }
  }

  /**
   * The reveal transactions of the commit `commitTxid`, signed with the wallet's key and stored in
   * the wallet (labels carry the commit txid, so a new funding round gets its own reveals).
   */
  private signReveals(job: JobRow, plan: InscriptionPlan, commitTxid: string): WalletTx[] {
    const out: WalletTx[] = [];
    let previous = commitTxid;
    for (let k = 0; k < plan.revealCount; k++) {
      const label = `reveal-${k}:${commitTxid}`;
      let stored = this.wallet.txOf(job.id, label);
      if (!stored) {
        const tx: Transaction = unsignedReveal(plan, k, previous);
        tx.inputs.forEach((input, i) => {
          input.scriptSig = revealInputScriptSig(
            plan,
            k,
            i,
            signInput(tx, i, revealRedeemScript(plan, k, i), this.wallet.key.privateKey),
          );
        });
        stored = this.wallet.track(job.id, label, bytesToHex(serializeTransaction(tx)));
      }
      out.push(stored);
      previous = stored.txid;
    }
    return out;
  }

  private waitForFunds(job: JobRow, error: InsufficientFundsError): void {
    if (this.now() - job.createdAt > (this.options.fundsWaitMs ?? 600_000)) {
      this.fail(job, "INSUFFICIENT_FUNDS", error.message);
      return;
    }
    this.store.update(job.id, {
      errorCode: "WAITING_FOR_FUNDS",
      errorMessage: error.message,
      attempts: job.attempts + 1,
      nextAttemptAt: this.now() + this.backoff(job.attempts),
    });
  }

  private backoff(attempts: number): number {
    return Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.min(attempts, 10));
  }

  private onError(job: JobRow, error: unknown): void {
    const current = this.store.get(job.id) ?? job;
    if (error instanceof BroadcastError && error.reason === "conflict" && current.status === "queued") {
      // The commit's coins were spent elsewhere before it got in: nothing was inscribed, so the
      // job is funded again with other coins (the two commits conflict; at most one can confirm).
      this.store.update(current.id, {
        fundingRound: current.fundingRound + 1,
        commitTxid: null,
        revealTxids: [],
        inscriptionId: null,
        errorCode: "REFUNDED_ROUND",
        errorMessage: error.message,
        attempts: current.attempts + 1,
        nextAttemptAt: this.now() + this.backoff(current.attempts),
      });
      return;
    }
    if (error instanceof BroadcastError && (error.reason === "rejected" || error.reason === "conflict")) {
      // A transaction the node refuses on policy, or a reveal whose input is gone: the same bytes
      // can never get in. Before anything was broadcast the coins go back to the wallet.
      if (current.status === "queued") {
        try {
          this.wallet.abandon(current.id, `commit#${current.fundingRound}`);
        } catch (abandonError) {
          this.log("inscriber_abandon_failed", { job: current.id, err: (abandonError as Error).message });
        }
      }
      this.fail(current, error.reason === "conflict" ? "TX_CONFLICT" : "TX_REJECTED", error.message);
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    this.log("inscriber_job_retry", { job: current.id, status: current.status, err: message });
    this.store.update(current.id, {
      errorCode: "RETRYING",
      errorMessage: message,
      attempts: current.attempts + 1,
      nextAttemptAt: this.now() + this.backoff(current.attempts),
    });
  }

  private fail(job: JobRow, code: string, message: string): void {
    this.store.update(job.id, { status: "failed", errorCode: code, errorMessage: message });
    this.log("inscriber_job_failed", { job: job.id, code, err: message });
  }

  /**
   * Follows broadcast jobs: syncs the wallet (which rebroadcasts what fell out of the mempool),
   * marks jobs whose last reveal confirmed, and re-funds a job whose commit can never confirm.
   */
  checkConfirmations(): Promise<void> {
    if (this.confirming) return this.confirming;
    this.confirming = (async () => {
      try {
        await this.wallet.sync();
        for (const job of this.store.awaitingConfirmation()) this.followJob(job);
      } catch (error) {
        this.log("inscriber_confirmation_check_failed", { err: (error as Error).message });
      } finally {
        this.confirming = null;
      }
    })();
    return this.confirming;
  }

  private followJob(job: JobRow): void {
    const commit = this.wallet.txOf(job.id, `commit#${job.fundingRound}`);
    const last = job.revealTxids.length > 0 ? this.wallet.tx(job.revealTxids[job.revealTxids.length - 1]) : null;
    if (commit?.state === "failed") {
      // Every transaction of this round is dead: fund it again. The old and new commits conflict.
      this.store.update(job.id, {
        status: "queued",
        fundingRound: job.fundingRound + 1,
        commitTxid: null,
        revealTxids: [],
        inscriptionId: null,
        errorCode: "REFUNDED_ROUND",
        errorMessage: commit.error ?? "commit can never confirm",
        nextAttemptAt: 0,
      });
      this.kick();
      return;
    }
    if (commit && job.commitTxid !== null && commit.txid !== job.commitTxid) {
      // The wallet re-signed the commit with a higher fee (it had fallen out of the mempool and was
      // refused at its old fee): the reveals on the old commit are dead; build them on the new one.
      this.store.update(job.id, {
        status: "committed",
        errorCode: "COMMIT_REPLACED",
        errorMessage: `commit ${job.commitTxid} replaced by ${commit.txid}`,
        nextAttemptAt: 0,
      });
      this.kick();
      return;
    }
    if (last?.state === "confirmed") {
      const confirmed = this.store.update(job.id, {
        status: "confirmed",
        confirmedHeight: last.height,
        errorCode: null,
        errorMessage: null,
      });
      this.log("inscriber_job_confirmed", { job: job.id, inscription: job.inscriptionId, height: last.height });
      this.options.afterStep?.(confirmed, "confirmed");
    }
  }
}
