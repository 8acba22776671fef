/**
 * The relayer for DogeInscriber and DogeAnchor jobs (docs/operations.md, "Relayer").
 *
 * A scan (scanner.ts) records every job its request event announces; a worker then takes each live
 * job through its steps, one attempt at a time:
 *
 *   seen       -> the base-chain work is handed off: an inscription to the inscriber service (the
 *                 relayer's own project, Idempotency-Key = the L2 job id), an anchor to the relayer's
 *                 hot wallet (owner = the job id, label "anchor"), both idempotent across restarts
 *   submitted  -> the inscriber job is confirmed / the wallet's transaction is broadcast
 *   l1_done    -> two attesters sign the receipt (each checks on its own index that the transaction
 *                 is 6 deep and matches the job); the attested L1 tip is raised with an L1_TIP fact
 *                 when it is too low for `settle`; settle. A transaction the contract can never take
 *                 for this job (mined at or below the tip recorded at request time, or already
 *                 spent on another job) starts the next round of base-chain work instead
 *   settled | refunded | expired | dropped | failed_permanently   (final)
 *
 * Before every attempt the job is read from its contract (`jobOf`): a job settled or refunded by
 * anyone is final here too. An attempt that cannot go on (the transaction is not 6 deep yet, an
 * attester is down, the inscriber is busy) is tried again after an exponential back-off. A job is
 * started only while its deadline is at least `startMarginSeconds` away; work that was started is
 * still settled after the deadline while the job is Open (the contract accepts it, and the base-chain
 * cost is spent), until `lateSettleSeconds` past it. Content the inscriber refuses for good, and
 * jobs given up, are logged and listed in `status()`: their requesters take the fee back with
 * `refund` after the deadline.
 */
import type { Signer } from "ethers";
import { Counter, Gauge } from "prom-client";
import type { Registry } from "prom-client";
import { nullDataScript } from "../doge";
import { hashToBytes32, settleTipNeeded } from "../facts";
import type { FactTypeName } from "../facts";
import { factFromJson, receiptFromJson } from "../attester/wire";
import type { FactParamsJson } from "../attester/wire";
import type { AttestedFact, AttestedReceipt } from "../services/attest-api/panel";
import { DogeosError, Refusal } from "../errors";
import type { Sqlite } from "../db/sqlite";
import { InsufficientFundsError } from "../wallet/types";
import type { HotWallet } from "../wallet/hot-wallet";
import { InscriberCallError, InscriberClient, isFinalJobStatus, jobFailure } from "../services/inscriber/client";
import type { InscriberClientOptions, InscriberJob, InscribeRequest } from "../services/inscriber/client";
import { JOB_STATUS, ContractRefusedError, ethersRelayerL2, guardL2 } from "./l2";
import type { RelayerL2 } from "./l2";
import { JobScanner } from "./scanner";
import type { ScanResult } from "./scanner";
import { RelayerStore } from "./store";
import type { JobChanges, RelayerJob, RelayerJobStatus } from "./store";

/** The attesters as the relayer uses them (an AttesterPanel). */
export interface RelayerPanel {
  receipt(kind: "inscription" | "anchor", jobContract: string, jobId: string, l1Txid: string): Promise<AttestedReceipt>;
  fact(type: FactTypeName, params: FactParamsJson, options?: { notBefore?: number }): Promise<AttestedFact>;
}

/** The inscriber as the relayer uses it (an InscriberClient). */
export interface RelayerInscriber {
  inscribe(idempotencyKey: string, request: InscribeRequest): Promise<{ job: InscriberJob; created: boolean }>;
  job(id: string): Promise<InscriberJob>;
}

/** The relayer's own hot wallet (never the inscriber's). */
export type RelayerWallet = Pick<HotWallet, "fund" | "broadcast" | "txOf">;

/** External actions, reported to `afterAction` right after they happened and before they are recorded. */
export type RelayerAction = "inscription_submitted" | "anchor_funded" | "settle_sent";

export type RelayerLog = (level: "info" | "warn" | "error", event: string, fields: Record<string, unknown>) => void;

export interface RelayerOptions {
  /** The relayer's database (openRelayerDatabase). */
  db: Sqlite;
  /** The L2 signer, with its provider: reads the chain, sends submitFact and settle. Not needed when `l2` is given. */
  signer?: Signer;
  addresses: { attestation: string; inscriber?: string | null; anchor?: string | null };
  /** Replaces the ethers L2 built from `signer` and `addresses` (tests). */
  l2?: RelayerL2;
  panel: RelayerPanel;
  /** The inscriber's URL and the relayer's project and key there (or a client). Without it, inscription jobs wait. */
  inscriber?: InscriberClientOptions | RelayerInscriber;
  /** Pays the anchors' OP_RETURN transactions. Without it, anchor jobs wait. */
  wallet?: RelayerWallet;
  /** Milliseconds (default Date.now): schedules attempts. Deadlines use the L2's block time. */
  clock?: () => number;
  /** First L2 block scanned when the database has no cursor (default 0). */
  fromBlock?: number;
  /** Blocks the scan stays behind the L2 head (default 0). */
  l2Confirmations?: number;
  /** Blocks scanned again after an L2 reorg (default 12). */
  reorgDepth?: number;
  /** Most blocks per getLogs call (default 2000). */
  maxBlockRange?: number;
  /** First back-off (default 1000 ms), doubled per attempt up to `retryMaxMs` (default 60,000 ms). */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** A job is started only while its deadline is at least this far (default 1800 s). */
  startMarginSeconds?: number;
  /** Started work is still settled this long after the deadline while the job is Open (default 7 days). */
  lateSettleSeconds?: number;
  /** Tries at the base-chain work (a failed inscriber job or wallet transaction starts the next; default 3). */
  maxRounds?: number;
  /** Jobs attempted at once (default 4); L2 transactions are sent one at a time. */
  concurrency?: number;
  /** Metrics (relayer_jobs, relayer_l2_cursor_block, relayer_settled_total, relayer_attempt_failures_total). */
  registry?: Registry;
  log?: RelayerLog;
  /** Test hook: a throw here stops the attempt as a crash would, after the action and before it is recorded. */
  afterAction?: (job: RelayerJob, action: RelayerAction) => void;
}

/** What an attempt came to. */
type Outcome =
  | { kind: "advance"; changes: JobChanges; event?: string; fields?: Record<string, unknown> }
  | { kind: "wait" | "error"; code: string; message: string; details?: Record<string, unknown> }
  | {
      kind: "final";
      status: Exclude<RelayerJobStatus, "seen" | "submitted" | "l1_done">;
      code: string | null;
      message: string | null;
      changes?: JobChanges;
    };

/** The current base-chain transaction of a job, ready for a receipt. */
interface Landed {
  l1Txid: string;
}

export interface RelayerStatus {
  running: boolean;
  cursor: { block: number; hash: string } | null;
  l2_head: number | null;
  last_scan_at: string | null;
  last_scan_error: string | null;
  last_pass_at: string | null;
  jobs: Record<RelayerJobStatus, number>;
  live: JobSummary[];
  attention: { failed_permanently: JobSummary[]; expired: JobSummary[]; dropped: JobSummary[] };
}

export interface JobSummary {
  job_id: string;
  kind: string;
  contract: string;
  status: RelayerJobStatus;
  round: number;
  deadline: number;
  inscriber_job: string | null;
  wallet_label: string | null;
  l1_txid: string | null;
  l1_height: number | null;
  settle_tx: string | null;
  attempts: number;
  next_attempt_at: string | null;
  last_error: { code: string; message: string | null } | null;
}

function summary(job: RelayerJob): JobSummary {
  const live = job.status === "seen" || job.status === "submitted" || job.status === "l1_done";
  return {
    job_id: job.jobId,
    kind: job.kind,
    contract: job.contract,
    status: job.status,
    round: job.round,
    deadline: job.deadline,
    inscriber_job: job.kind === "inscription" ? job.workRef : null,
    wallet_label: job.kind === "anchor" ? job.workRef : null,
    l1_txid: job.l1Txid,
    l1_height: job.l1Height,
    settle_tx: job.settleTx,
    attempts: job.attempts,
    next_attempt_at: live ? new Date(job.nextAttemptAt).toISOString() : null,
    last_error: job.lastErrorCode === null ? null : { code: job.lastErrorCode, message: job.lastError },
  };
}

const firstLine = (error: unknown) => ((error as Error)?.message ?? String(error)).split("\n")[0];

export class Relayer {
  readonly store: RelayerStore;
  private readonly l2: RelayerL2;
  private readonly scanner: JobScanner;
  private readonly inscriber: RelayerInscriber | null;
  private readonly clock: () => number;
  private readonly log: RelayerLog;
  private readonly inFlight = new Set<string>();
  private l2Lock: Promise<unknown> = Promise.resolve();
  private running = false;
  private pass: Promise<void> | null = null;
  private lastHead: number | null = null;
  private lastScanAt: number | null = null;
  private lastScanError: string | null = null;
  private lastPassAt: number | null = null;
  private readonly settledTotal: Counter | null;
  private readonly failuresTotal: Counter | null;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly startMarginSeconds: number;
  private readonly lateSettleSeconds: number;
  private readonly maxRounds: number;
  private readonly concurrency: number;

  constructor(private readonly options: RelayerOptions) {
    this.clock = options.clock ?? Date.now;
    this.log = options.log ?? (() => undefined);
    this.store = new RelayerStore(options.db, this.clock);
    // Failures of the L2 come out of guardL2 as DogeosErrors, retryable or not by src/errors.ts's table.
    if (options.l2) this.l2 = guardL2(options.l2);
    else if (options.signer) this.l2 = guardL2(ethersRelayerL2({ signer: options.signer, ...options.addresses }));
    else throw new TypeError("the relayer needs an L2 signer (or an l2)");
    const inscriber = options.inscriber;
    this.inscriber = !inscriber ? null : "url" in inscriber ? new InscriberClient(inscriber) : inscriber;
    this.retryBaseMs = options.retryBaseMs ?? 1000;
    this.retryMaxMs = options.retryMaxMs ?? 60_000;
    this.startMarginSeconds = options.startMarginSeconds ?? 1800;
    this.lateSettleSeconds = options.lateSettleSeconds ?? 7 * 86_400;
    this.maxRounds = options.maxRounds ?? 3;
    this.concurrency = options.concurrency ?? 4;
    if (this.retryBaseMs < 0 || this.retryMaxMs < this.retryBaseMs)
      throw new RangeError("retryBaseMs must be >= 0 and retryMaxMs >= retryBaseMs");
    if (!Number.isInteger(this.maxRounds) || this.maxRounds < 1)
      throw new RangeError("maxRounds must be a positive integer");
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1)
      throw new RangeError("concurrency must be a positive integer");
    this.scanner = new JobScanner({
      source: this.l2,
      store: this.store,
      fromBlock: options.fromBlock,
      confirmations: options.l2Confirmations,
      reorgDepth: options.reorgDepth,
      maxBlockRange: options.maxBlockRange,
      log: (event, fields) => this.log(event === "relayer_job_seen" ? "info" : "warn", event, fields),
    });
    const registry = options.registry;
    if (registry) {
      const store = this.store;
      // The gauges' collect() runs with the gauge as `this`: the head is read through a closure.
      const lastHead = () => this.lastHead;
      new Gauge({
        name: "relayer_jobs",
        help: "Jobs by relayer status",
        labelNames: ["status"],
        registers: [registry],
        collect() {
          for (const [status, n] of Object.entries(store.counts())) this.set({ status }, n);
        },
      });
      new Gauge({
        name: "relayer_l2_cursor_block",
        help: "Last L2 block scanned for job requests",
        registers: [registry],
        collect() {
          this.set(store.cursor()?.blockNumber ?? -1);
        },
      });
      new Gauge({
        name: "relayer_l2_head_block",
        help: "L2 head at the last scan",
        registers: [registry],
        collect() {
          this.set(lastHead() ?? -1);
        },
      });
      this.settledTotal = new Counter({
        name: "relayer_settled_total",
        help: "Jobs this relayer settled",
        labelNames: ["kind"],
        registers: [registry],
      });
      this.failuresTotal = new Counter({
        name: "relayer_attempt_failures_total",
        help: "Attempts that waited or failed, by code",
        labelNames: ["code"],
        registers: [registry],
      });
    } else {
      this.settledTotal = null;
      this.failuresTotal = null;
    }
  }

  // ==================================================================== running

  /**
   * Marks the relayer stopped and waits for the pass and the attempts in progress (work already
   * handed off is resumed by the next run). The daemon stops its loop (runEvery) first.
   */
  async stop(): Promise<void> {
    this.running = false;
    while (this.pass || this.inFlight.size > 0) {
      if (this.pass) await this.pass.catch(() => undefined);
      else await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** One scan of the L2 and one pass over the due jobs. Throws when the scan fails (after the pass). */
  async runOnce(): Promise<{ scan: ScanResult | null; attempted: number }> {
    this.running = true;
    const run = (async () => {
      let scan: ScanResult | null = null;
      let scanError: unknown = null;
      try {
        scan = await this.scanner.scan();
        this.lastHead = scan.head;
        this.lastScanAt = this.clock();
        this.lastScanError = null;
      } catch (error) {
        scanError = error;
        this.lastScanError = firstLine(error);
      }
      const attempted = await this.workOnce();
      this.lastPassAt = this.clock();
      if (scanError) throw scanError;
      return { scan, attempted };
    })();
    const tracked = run.then(
      () => undefined,
      () => undefined,
    );
    this.pass = tracked;
    try {
      return await run;
    } finally {
      if (this.pass === tracked) this.pass = null;
    }
  }

  /** Attempts every due job once (up to `concurrency` at a time). */
  async workOnce(): Promise<number> {
    const due = this.store.due(this.clock(), 500).filter((job) => !this.inFlight.has(job.jobId));
    let next = 0;
    const lane = async () => {
      while (next < due.length) {
        const job = due[next++];
        this.inFlight.add(job.jobId);
        try {
          await this.attempt(job);
        } finally {
          this.inFlight.delete(job.jobId);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, due.length) }, lane));
    return due.length;
  }

  status(): RelayerStatus {
    const cursor = this.store.cursor();
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    return {
      running: this.running,
      cursor: cursor ? { block: cursor.blockNumber, hash: cursor.blockHash } : null,
      l2_head: this.lastHead,
      last_scan_at: iso(this.lastScanAt),
      last_scan_error: this.lastScanError,
      last_pass_at: iso(this.lastPassAt),
      jobs: this.store.counts(),
      live: this.store.live(100).map(summary),
      attention: {
        failed_permanently: this.store.byStatus("failed_permanently", 50).map(summary),
        expired: this.store.byStatus("expired", 50).map(summary),
        dropped: this.store.byStatus("dropped", 50).map(summary),
      },
    };
  }

  // ==================================================================== one attempt

  private async attempt(job: RelayerJob): Promise<void> {
    let outcome: Outcome;
    try {
      outcome = await this.step(job);
    } catch (error) {
      outcome = this.outcomeOfError(job, error);
    }
    this.record(job, outcome);
  }

  private async step(job: RelayerJob): Promise<Outcome> {
    const onChain = await this.l2.jobOf(job.kind, job.jobId);
    if (onChain.status === JOB_STATUS.Settled) {
      const byUs = job.settleTx !== null && (await this.l2.outcome(job.settleTx)) === "success";
      return {
        kind: "final",
        status: "settled",
        code: null,
        message: null,
        changes: { settledByUs: byUs, l1Height: Number(onChain.l1Height), l1Txid: onChain.l1Txid.replace(/^0x/, "") },
      };
    }
    if (onChain.status === JOB_STATUS.Refunded) {
      return { kind: "final", status: "refunded", code: "REFUNDED", message: "the requester took the fee back" };
    }
    const now = await this.l2.timestamp();
    if (onChain.status !== JOB_STATUS.Open) {
      if (now > job.deadline)
        return {
          kind: "final",
          status: "dropped",
          code: "JOB_NOT_ON_L2",
          message: "the contract does not hold this job (its request left the chain) and its deadline passed",
        };
      return { kind: "wait", code: "JOB_NOT_ON_L2", message: "the contract does not hold this job now (an L2 reorg?)" };
    }
    if (job.status === "seen") {
      if (now + this.startMarginSeconds > job.deadline) {
        return {
          kind: "final",
          status: "expired",
          code: now > job.deadline ? "DEADLINE_PASSED" : "DEADLINE_TOO_CLOSE",
          message: `the deadline (${job.deadline}) is less than ${this.startMarginSeconds} s away at L2 time ${now}: not started, left for refund`,
        };
      }
      return job.kind === "inscription" ? this.startInscription(job) : this.startAnchor(job);
    }
    if (now > job.deadline) {
      if (now > job.deadline + this.lateSettleSeconds) {
        return {
          kind: "final",
          status: "expired",
          code: "NOT_SETTLED_IN_TIME",
          message: `still not settled ${this.lateSettleSeconds} s after the deadline: given up`,
        };
      }
      if (!job.lateReported) {
        this.store.update(job.jobId, { lateReported: true });
        this.log("warn", "relayer_job_late", {
          job_id: job.jobId,
          kind: job.kind,
          deadline: job.deadline,
          l2_time: now,
          status: job.status,
        });
      }
    }
    const landed = job.kind === "inscription" ? await this.followInscription(job) : await this.followAnchor(job);
    if ("kind" in landed) return landed;
    return this.settle(this.store.get(job.jobId)!, landed.l1Txid, onChain.l1TipAtRequest);
  }

  // -------------------------------------------------------------------- inscriptions

  private idempotencyKey(job: RelayerJob): string {
    return job.round === 1 ? job.jobId : `${job.jobId}#${job.round}`;
  }

  private async startInscription(job: RelayerJob): Promise<Outcome> {
    if (!this.inscriber) return { kind: "wait", code: "NO_INSCRIBER", message: "no inscriber is configured" };
    const key = this.idempotencyKey(job);
    const { job: view, created } = await this.inscriber.inscribe(key, {
      contentType: job.contentType ?? "",
      action: job.action ? job.action : null,
      content: job.payload,
      recipient: job.dogeRecipient ?? "",
    });
    this.options.afterAction?.(job, "inscription_submitted");
    if (`0x${view.envelopeHash}`.toLowerCase() !== job.resultHash) {
      return {
        kind: "final",
        status: "failed_permanently",
        code: "RESULT_HASH_MISMATCH",
        message: `the inscriber's envelope hash ${view.envelopeHash} is not the job's ${job.resultHash}: no receipt can match`,
        changes: { workRef: view.id },
      };
    }
    return {
      kind: "advance",
      changes: { status: "submitted", workRef: view.id, l1Txid: null },
      event: "relayer_inscription_submitted",
      fields: { inscriber_job: view.id, idempotency_key: key, created },
    };
  }

  private async followInscription(job: RelayerJob): Promise<Landed | Outcome> {
    if (!this.inscriber) return { kind: "wait", code: "NO_INSCRIBER", message: "no inscriber is configured" };
    let view: InscriberJob;
    try {
      view = await this.inscriber.job(job.workRef!);
    } catch (error) {
      // The inscription is in a block already: an inscriber that is down need not hold settlement back.
      if (error instanceof InscriberCallError && job.status === "l1_done" && job.l1Txid) return { l1Txid: job.l1Txid };
      throw error;
    }
    if (view.status === "failed") {
      return this.nextRound(job, "INSCRIBER_JOB_FAILED", jobFailure(view));
    }
    // The receipt names the transaction that completes the reveal (the one reveal of a v1 inscription,
    // the last of a Doginals chain): the attesters' index finds the inscription by it.
    const txid = view.revealTxids[view.revealTxids.length - 1];
    if (!isFinalJobStatus(view.status) || !txid) {
      return {
        kind: "wait",
        code: "INSCRIBER_PENDING",
        message: `inscriber job ${view.id} is ${view.status}`,
        details: { inscription_id: view.inscriptionId },
      };
    }
    if (job.status !== "l1_done" || job.l1Txid !== txid) {
      this.store.update(job.jobId, { status: "l1_done", l1Txid: txid, attempts: 0 });
      this.log("info", "relayer_inscription_confirmed", {
        job_id: job.jobId,
        inscriber_job: view.id,
        inscription_id: view.inscriptionId,
        l1_txid: txid,
      });
    }
    return { l1Txid: txid };
  }

  // -------------------------------------------------------------------- anchors

  private async startAnchor(job: RelayerJob): Promise<Outcome> {
    const wallet = this.options.wallet;
    if (!wallet) return { kind: "wait", code: "NO_WALLET", message: "no hot wallet is configured" };
    const label = job.round === 1 ? "anchor" : `anchor#${job.round}`;
    // Idempotent per (job id, label): a restarted relayer gets the same signed transaction back.
    const funded = wallet.fund(job.jobId, label, [{ script: nullDataScript(job.payload), value: 0n }]);
    this.options.afterAction?.(job, "anchor_funded");
    this.store.update(job.jobId, { status: "submitted", workRef: label, l1Txid: funded.txid });
    const sent = await wallet.broadcast(funded.txid);
    return {
      kind: "advance",
      changes: { status: "l1_done", l1Txid: sent.txid },
      event: "relayer_anchor_broadcast",
      fields: { wallet_label: label, l1_txid: sent.txid, fee_koinu: funded.feeKoinu.toString() },
    };
  }

  private async followAnchor(job: RelayerJob): Promise<Landed | Outcome> {
    const wallet = this.options.wallet;
    if (!wallet) return { kind: "wait", code: "NO_WALLET", message: "no hot wallet is configured" };
    let tx = wallet.txOf(job.jobId, job.workRef!);
    if (!tx)
      return {
        kind: "advance",
        changes: { status: "seen", l1Txid: null },
        event: "relayer_anchor_missing",
        fields: { wallet_label: job.workRef },
      };
    if (tx.state === "failed")
      return this.nextRound(
        job,
        "ANCHOR_TX_FAILED",
        `wallet transaction ${tx.txid} can never confirm: ${tx.error ?? ""}`,
      );
    // Sent again here when its first broadcast failed (the wallet's own sync resends dropped ones).
    if (tx.state === "signed") tx = await wallet.broadcast(tx.txid);
    if (job.status !== "l1_done" || job.l1Txid !== tx.txid) {
      this.store.update(job.jobId, { status: "l1_done", l1Txid: tx.txid });
      if (job.l1Txid !== null && job.l1Txid !== tx.txid)
        this.log("info", "relayer_anchor_replaced", { job_id: job.jobId, previous: job.l1Txid, l1_txid: tx.txid });
    }
    return { l1Txid: tx.txid };
  }

  private nextRound(job: RelayerJob, code: string, message: string): Outcome {
    if (job.round >= this.maxRounds)
      return {
        kind: "final",
        status: "failed_permanently",
        code,
        message: `${message} (round ${job.round} of ${this.maxRounds})`,
      };
    return {
      kind: "advance",
      changes: {
        status: "seen",
        round: job.round + 1,
        workRef: null,
        l1Txid: null,
        lastErrorCode: code,
        lastError: message,
      },
      event: "relayer_job_new_round",
      fields: { round: job.round + 1, code, reason: message },
    };
  }

  // -------------------------------------------------------------------- settlement

  /** Runs `fn` with no other L2 transaction of this relayer in flight (one nonce sequence). */
  private withL2Lock<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.l2Lock.then(fn, fn);
    this.l2Lock = run.catch(() => undefined);
    return run;
  }

  private async settle(job: RelayerJob, l1Txid: string, l1TipAtRequest: bigint): Promise<Outcome> {
    if (job.settleTx) {
      const outcome = await this.l2.outcome(job.settleTx);
      if (outcome === "pending")
        return { kind: "wait", code: "SETTLE_PENDING", message: `settle transaction ${job.settleTx} is not mined yet` };
      // success shows as Settled in jobOf (read first); reverted or gone: send a new one.
      this.store.update(job.jobId, { settleTx: null });
    }
    const attested = await this.options.panel.receipt(job.kind, job.contract, job.jobId, l1Txid);
    const receipt = receiptFromJson(attested.receipt);
    if (
      receipt.jobId !== job.jobId ||
      receipt.resultHash !== job.resultHash ||
      receipt.l1Txid !== hashToBytes32(l1Txid)
    ) {
      return {
        kind: "error",
        code: "RECEIPT_MISMATCH",
        message: "the attesters signed a receipt for another job, result or transaction",
      };
    }
    // settle takes only a transaction mined above the attested tip of the request (JobL1TxNotAfterRequest):
    // one at or below it (a base-chain reorg, or work done for a request an L2 reorg replaced) never settles.
    if (receipt.l1Height <= l1TipAtRequest) {
      return this.nextRound(
        job,
        "L1_TX_BEFORE_REQUEST",
        `transaction ${l1Txid} is at height ${receipt.l1Height}, not above the tip ${l1TipAtRequest} recorded when the job was requested`,
      );
    }
    const needed = settleTipNeeded(receipt.l1Height);
    if ((await this.l2.l1Tip()) < needed) {
      // DogeAttestation keeps a stored fact unless the new one is attested later (AttestationStaleFact).
      const notBefore = Number(await this.l2.l1TipAttestedAt()) + 1;
      const tip = await this.options.panel.fact("L1_TIP", {}, { notBefore });
      const fact = factFromJson(tip.fact);
      if (fact.l1Height < needed) {
        return {
          kind: "wait",
          code: "L1_TIP_BEHIND",
          message: `the transaction at height ${receipt.l1Height} settles once the attested tip reaches ${needed}; the attesters sign ${fact.l1Height}`,
        };
      }
      await this.withL2Lock(async () => {
        if ((await this.l2.l1Tip()) >= needed) return;
        try {
          const sent = await this.l2.submitFact(fact, tip.signatures);
          if (await sent.wait())
            this.log("info", "relayer_l1_tip_submitted", { l1_height: fact.l1Height.toString(), tx: sent.hash });
        } catch (error) {
          // Another relayer may have stored a newer tip meanwhile (AttestationStaleFact): read it again below.
          if (!(error instanceof ContractRefusedError)) throw error;
        }
      });
      const tipNow = await this.l2.l1Tip();
      if (tipNow < needed)
        return {
          kind: "wait",
          code: "L1_TIP_BEHIND",
          message: `the attested tip is ${tipNow}; settle needs ${needed}`,
        };
    }
    try {
      await this.l2.checkSettle(job.kind, job.jobId, receipt, attested.signatures);
    } catch (error) {
      // A transaction settles at most one job: one spent on another job (of the same result) needs new work.
      if (
        error instanceof ContractRefusedError &&
        /^Job(L1TxidAlreadySettled|L1TxNotAfterRequest)\b/.test(error.revert ?? "")
      ) {
        return this.nextRound(
          job,
          "L1_TX_UNUSABLE",
          `settle refuses transaction ${l1Txid} for this job: ${error.revert}`,
        );
      }
      throw error;
    }
    return this.withL2Lock(async (): Promise<Outcome> => {
      const sent = await this.l2.settle(job.kind, job.jobId, receipt, attested.signatures);
      this.options.afterAction?.(job, "settle_sent");
      this.store.update(job.jobId, { settleTx: sent.hash });
      if (!(await sent.wait()))
        return { kind: "wait", code: "SETTLE_REVERTED", message: `settle transaction ${sent.hash} reverted` };
      this.settledTotal?.inc({ kind: job.kind });
      return {
        kind: "final",
        status: "settled",
        code: null,
        message: null,
        changes: { settledByUs: true, l1Height: Number(receipt.l1Height), l1Txid },
      };
    });
  }

  // -------------------------------------------------------------------- bookkeeping

  /**
   * What a failed attempt means for the job:
   * - the inscriber refuses the content (InscriberCallError.refused, not retryable): failed for good;
   * - conditions that pass as the chains move on: the attesters' refusals (not deep enough yet...),
   *   the contract refusing settle, the wallet short of funds: the job waits;
   * - any other DogeosError (the inscriber, the L2 behind guardL2, the wallet's broadcast): tried
   *   again after the back-off under its own code; one that is not `retryable` is logged at error
   *   level, as waiting will not mend it (the job's deadline bounds the tries);
   * - anything else is a bug: logged with its stack, and tried again.
   */
  private outcomeOfError(job: RelayerJob, error: unknown): Outcome {
    if (error instanceof InscriberCallError && error.refused) {
      if (error.retryable) return { kind: "error", code: `INSCRIBER_${error.code}`, message: error.message };
      return {
        kind: "final",
        status: "failed_permanently",
        code: error.code,
        message: `the inscriber refuses this content: ${error.message}`,
      };
    }
    if (error instanceof Refusal) return { kind: "wait", code: error.code, message: error.message };
    if (error instanceof ContractRefusedError)
      return { kind: "wait", code: "SETTLE_REFUSED", message: error.revert ?? error.message };
    if (error instanceof InsufficientFundsError)
      return { kind: "wait", code: "WAITING_FOR_FUNDS", message: error.message };
    if (error instanceof DogeosError) {
      if (!error.retryable)
        this.log("error", "relayer_attempt_not_retryable", {
          job_id: job.jobId,
          status: job.status,
          code: error.code,
          err: firstLine(error),
        });
      return { kind: "error", code: String(error.code), message: firstLine(error) };
    }
    this.log("error", "relayer_attempt_crashed", {
      job_id: job.jobId,
      status: job.status,
      err: (error as Error)?.stack ?? String(error),
    });
    return { kind: "error", code: "ATTEMPT_FAILED", message: firstLine(error) };
  }

  private backoff(attempts: number): number {
    return Math.min(this.retryMaxMs, this.retryBaseMs * 2 ** Math.min(attempts, 30));
  }

  private record(job: RelayerJob, outcome: Outcome): void {
    const now = this.clock();
    const fresh = this.store.get(job.jobId)!;
    const fields = { job_id: job.jobId, kind: job.kind, contract: job.contract };
    switch (outcome.kind) {
      case "advance": {
        this.store.update(job.jobId, {
          lastErrorCode: null,
          lastError: null,
          ...outcome.changes,
          attempts: 0,
          nextAttemptAt: now + this.retryBaseMs,
        });
        if (outcome.event) this.log("info", outcome.event, { ...fields, ...outcome.fields });
        return;
      }
      case "wait":
      case "error": {
        const attempts = fresh.attempts + 1;
        this.failuresTotal?.inc({ code: outcome.code });
        this.store.update(job.jobId, {
          attempts,
          nextAttemptAt: now + this.backoff(attempts - 1),
          lastErrorCode: outcome.code,
          lastError: outcome.message,
        });
        // A wait is logged when its reason changes; an error every time.
        if (outcome.kind === "error" || fresh.lastErrorCode !== outcome.code) {
          this.log(
            outcome.kind === "error" ? "warn" : "info",
            outcome.kind === "error" ? "relayer_attempt_failed" : "relayer_job_waiting",
            {
              ...fields,
              status: fresh.status,
              code: outcome.code,
              reason: outcome.message,
              attempts,
              ...(outcome.details ?? {}),
            },
          );
        }
        return;
      }
      case "final": {
        this.store.update(job.jobId, {
          ...outcome.changes,
          status: outcome.status,
          lastErrorCode: outcome.code,
          lastError: outcome.message,
        });
        const level =
          outcome.status === "settled" || outcome.status === "refunded"
            ? "info"
            : outcome.status === "failed_permanently"
              ? "error"
              : "warn";
        this.log(level, `relayer_job_${outcome.status}`, {
          ...fields,
          requester: job.requester,
          deadline: job.deadline,
          code: outcome.code,
          reason: outcome.message,
          ...(outcome.status === "settled"
            ? {
                l1_txid: outcome.changes?.l1Txid,
                l1_height: outcome.changes?.l1Height,
                by_us: outcome.changes?.settledByUs,
              }
            : {}),
          ...(outcome.status === "failed_permanently" || outcome.status === "expired" ? { left_for_refund: true } : {}),
        });
      }
    }
  }
}
