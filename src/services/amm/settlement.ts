/**
 * The AMM's settlement worker: pays the rows of `payouts` (schema.ts) out of the custody hot wallet
 * and follows each one to confirmation.
 *
 * Status machine; every arrow is one UPDATE guarded by the row's current status (compare-and-set),
 * so of two workers (or two passes) that reach the same step only one moves the row and logs it:
 *
 *   DOGE    queued ──fund + broadcast──▶ sent ──`confirmations` deep──▶ confirmed
 *           queued ──below HARD_DUST_LIMIT──▶ below_dust                                  (final, never sent)
 *   DRC20   queued ──POST /inscribe──▶ inscribing ──job confirmed──▶ inscribed
 *                  ──carrier sent to the user──▶ sent ──`confirmations` deep──▶ confirmed
 *   queued | inscribing | inscribed | sent ──▶ failed                                     (final, see below)
 *   queued | inscribing | inscribed ──a deposit of its order is gone from the index──▶ frozen
 *   DRC20   inscribed ──the index voided its transfer (available short at the reveal)──▶ queued (inscribed again)
 *
 * Never twice: every effect outside the AMM database is keyed by the payout id, and the status moves
 * only after the effect, so a step repeated after a crash (or by a second worker) finds the effect
 * already made instead of making another:
 * - the wallet transaction (DOGE payment, or the carrier send of a DRC-20 payout) is owner
 *   `amm-payout`, label `<payout id>`: the wallet returns the stored transaction to the same owner
 *   and label, and a DRC-20 payout in `inscribed` looks for that transaction before anything else;
 * - the inscriber job is filed with `Idempotency-Key: <payout id>`: the same key gets the same job.
 *
 * DRC-20 (DESIGN.md 4.4): the pools' tokens are the custody address's available balance. A payout
 * inscribes `{"p":"drc-20","op":"transfer","tick","amt"}` (encodeDrc20, text/plain;charset=utf-8,
 * which the inscriber puts in the Doginals form) to the custody address itself, which moves `amt`
 * to its transferable balance; the output carrying that inscription is then sent whole to the user
 * (output 0 is exactly the carrier's value, the wallet's plain coins pay the fee), and that first
 * send credits the user's available balance.
 *
 * Decisions:
 * - DOGE below HARD_DUST_LIMIT (0.001 DOGE) cannot be sent at all: `below_dust`, with the reason in
 *   `error`; the amount stays owed in the AMM's books and nothing here pays it. Between the hard and
 *   the soft dust limit (0.01 DOGE) a payout is sent; Core's fee rule makes the custody pay 0.01 DOGE
 *   more fee for such an output.
 * - Transient trouble (the wallet cannot pay yet, the node or the inscriber does not answer, a
 *   broadcast refused for now) leaves the row where it is with `error` set and `attempts` counted;
 *   every pass tries again, without a limit (the custody may be topped up at any time). A transition
 *   clears `error`; `attempts` keeps counting over the row's life.
 * - `failed` is final and never retried by the worker, because retrying needs a second wallet
 *   transaction or a second inscription, and the first might still get in. It is reached when: the
 *   row cannot be paid as written (address of another network, malformed amount or tick); the wallet
 *   says the payout's transaction can never confirm (an input spent elsewhere, or it could not pay a
 *   fee high enough after being dropped; it might still be in some mempool); the inscriber refused
 *   or failed the transfer inscription; the index did not accept the inscription as a transfer of
 *   the custody's balance (short available balance when it was inscribed: the inscription then
 *   carries nothing); or the carrier was spent by something else. An operator settles those by hand.
 * - `confirmed` is the index showing the transaction `confirmations` deep (default 1); a reorg deeper
 *   than that after the row is confirmed is not followed here (choose `confirmations` for it). Before
 *   that, the wallet follows the transaction (rebroadcasts, fee replacements: the row's txid follows
 *   the replacement).
 * - A DRC-20 payout is confirmed only when the index also shows its transfer sent to the payout's
 *   address.
 * - Depth is re-checked right before value leaves: in every state before its broadcast (queued,
 *   inscribing, inscribed), each step of a payout first reads the deposits its order consumed
 *   (deposits.ts `txidsOf`) in the index. A deposit gone from the index (a reorg deeper than the
 *   deposit depth, a double spend) freezes the payout (`frozen`, final until an operator settles
 *   it, counted on /health and logged as amm_payout_frozen), so the custody never pays for coins it
 *   no longer holds. A deposit still indexed but below `depositConfirmations` (re-mined after a
 *   reorg) holds the payout where it is (`DEPOSIT_NOT_DEEP_ENOUGH`) until it is that deep again.
 * - Foreign transfer inscriptions (docs/security.md): anyone can reveal a DRC-20 transfer
 *   inscription to the custody's address, which moves the custody's available balance of the tick
 *   to transferable, where no payout can use it. Before the DRC-20 payouts of a tick are inscribed
 *   (or sent), each pass reads the index's unsent transfer carriers of that tick at the custody;
 *   one that is not the inscription of an open payout (nor of a job being inscribed for one) is
 *   sent whole to the custody's own address (wallet owner `amm-reclaim`, label the inscription id:
 *   one self-send per foreign inscription, ever), which returns its amount to available; the
 *   attacker's postage stays with the custody. Foreign transfers of a tick no payout needs are left
 *   alone until one does (reclaimed lazily). The transfer of a frozen or failed payout counts as
 *   foreign too, so its tokens return to available.
 * - A DRC-20 payout is inscribed only while the custody's available balance in the index covers it
 *   and the payouts of the tick being inscribed (`DRC20_AVAILABLE_SHORT`, or
 *   `FOREIGN_TRANSFER_RECLAIMING` while a self-send is on its way; the payout stays queued). When
 *   the index still voids its transfer (a foreign transfer mined ahead of it in the same block, or
 *   our own self-send took it), the transfer carries nothing and never can: the payout goes back to
 *   `queued` with that inscription id and is inscribed again under the Idempotency-Key
 *   `<payout id>:<void inscription id>`; it never fails finally because of a foreign transfer.
 * - Solvency (`solvency`, docs/security.md reserves): consulted once per asset and tick per pass,
 *   right before a payout is inscribed or its transaction sent; a shortfall holds the payout in its
 *   state (not failed) with `error` = `<code>: <message>`, logged once as amm_payout_held_shortfall.
 */
import crypto from "node:crypto";
import type { Statement as SqliteStatement } from "better-sqlite3";
import { DogeNetwork, addressToOutputScript } from "../../doge";
import { DRC20_MAX_SUPPLY, DRC20_TICK_BYTES, drc20TickKey, encodeDrc20, parseDrc20 } from "../../inscription/drc20";
import type { IndexQueries } from "../../indexer/queries";
import {
  BroadcastError,
  CarrierNotAvailableError,
  CarrierOutput,
  HARD_DUST_LIMIT,
  HotWallet,
  InsufficientFundsError,
  InvalidOutputError,
  WalletTx,
} from "../../wallet";
import type { Sqlite } from "../../db/sqlite";
import { InscriberCallError, isFinalJobStatus, jobFailure } from "../inscriber/client";
import type { InscriberClient, InscriberJob } from "../inscriber/client";
import { UsedDeposits } from "./deposits";

/** Owner of every wallet transaction of a payout; the label is the payout id. */
export const PAYOUT_OWNER = "amm-payout";
/** Owner of the self-sends of foreign transfer inscriptions at the custody; the label is the inscription id. */
export const RECLAIM_OWNER = "amm-reclaim";
/** Content type of the DRC-20 transfer inscriptions. */
export const DRC20_TRANSFER_CONTENT_TYPE = "text/plain;charset=utf-8";
export const DEFAULT_INSCRIBER_PROJECT = "amm";
export const DEFAULT_CONFIRMATIONS = 1;

export type PayoutAsset = "DOGE" | "DRC20";

export type PayoutStatus =
  /** Owed, nothing done yet (or the last try failed transiently: see `error`). */
  | "queued"
  /** DRC-20: the transfer inscription is asked of the inscriber (`inscriberJobId`). */
  | "inscribing"
  /** DRC-20: the transfer inscription (`inscriptionId`) is confirmed on the custody address. */
  | "inscribed"
  /** The paying transaction (`txid`) is broadcast. */
  | "sent"
  /** The paying transaction is `confirmations` deep in the index (`confirmedHeight`). Final. */
  | "confirmed"
  /** DOGE below the hard dust limit: never sent. Final. */
  | "below_dust"
  /** Cannot be paid by the worker (`error` says why); settled by hand. Final. */
  | "failed"
  /** Held back: a deposit of its order left the index in a reorg (`error`); settled by an operator. Final. */
  | "frozen";

/** The statuses the worker still acts on. */
export const OPEN_PAYOUT_STATUSES: readonly PayoutStatus[] = ["queued", "inscribing", "inscribed", "sent"];

/** A row of `payouts`, amount in base units (koinu, or whole DRC-20 units). */
export interface Payout {
  id: string;
  asset: PayoutAsset;
  tick: string | null;
  address: string;
  amount: bigint;
  reason: string;
  refId: string;
  status: PayoutStatus;
  inscriberJobId: string | null;
  inscriptionId: string | null;
  txid: string | null;
  confirmedHeight: number | null;
  error: string | null;
  attempts: number;
  /** DOGE (koinu) the payout's order paid toward the operator's cost of it (withheld from a DOGE payout, or charged on the order's DOGE side). */
  costKoinu: bigint;
  createdAt: number;
  updatedAt: number;
}

export interface SettlementWorkerOptions {
  /** The AMM database (openAmmDatabase). */
  db: Sqlite;
  /** The custody wallet: its address holds the pools' DOGE and DRC-20 balances. */
  wallet: HotWallet;
  /** The explorer's index. */
  queries: IndexQueries;
  /** The inscriber, with the key of `inscriberProject`. */
  inscriber: Pick<InscriberClient, "inscribe" | "job">;
  network: DogeNetwork;
  /** The inscriber project the transfer inscriptions are filed under (default "amm"). */
  inscriberProject?: string;
  /** Unix seconds (default the system clock). */
  clock?: () => number;
  log?: (event: string, fields: Record<string, unknown>) => void;
  /** Depth at which a payout is confirmed (default 1). */
  confirmations?: number;
  /**
   * Depth the deposits of a payout's order must still have right before it is sent (default 1:
   * still in the index). The daemon passes its DepositReader's `confirmations`.
   */
  depositConfirmations?: number;
  /** The solvency gate, consulted right before a payout is inscribed or sent (see the top of this file). */
  solvency?: SolvencyGate;
}

/** What the custody's reserves say of an asset right now: a shortfall holds its payouts. */
export interface SolvencyGate {
  shortfall(asset: PayoutAsset, tick: string | null): { code: string; message: string } | null;
}

/** What one pass read once and shares between payouts. */
interface PassState {
  /** Inscriber jobs read this pass, by payout id (null: the read failed). */
  jobs: Map<string, InscriberJob | null>;
  /** The custody's available balance in the index, by tick key. */
  available: Map<string, bigint>;
  /** Amounts of payouts being inscribed (already asked of the inscriber), by tick key. */
  inFlight: Map<string, bigint>;
  /** Tick keys with a foreign transfer at the custody not yet reclaimed (or whose owner is unknown this pass). */
  reclaiming: Set<string>;
  /** The solvency gate's answers, by `<asset>:<tick>`. */
  shortfalls: Map<string, { code: string; message: string } | null>;
}

function newPassState(): PassState {
  return { jobs: new Map(), available: new Map(), inFlight: new Map(), reclaiming: new Set(), shortfalls: new Map() };
}

export interface PayoutRow {
  id: string;
  asset: string;
  tick: string | null;
  address: string;
  amount: string;
  reason: string;
  ref_id: string;
  status: string;
  inscriber_job_id: string | null;
  inscription_id: string | null;
  txid: string | null;
  confirmed_height: number | null;
  error: string | null;
  attempts: number;
  cost_koinu: string | null;
  created_at: number;
  updated_at: number;
}

const DECIMAL = /^(0|[1-9][0-9]*)$/;
const utf8 = new TextEncoder();

/** The two statements every writer of payouts shares, prepared once per database. */
type Statement = SqliteStatement<unknown[]>;
const payoutStatements = new WeakMap<Sqlite, { insert: Statement; get: Statement; ofRef: Statement }>();
function statementsOf(db: Sqlite) {
  let found: { insert: Statement; get: Statement; ofRef: Statement } | undefined = payoutStatements.get(db);
  if (!found) {
    found = {
      insert:
        db.prepare(`INSERT INTO payouts (id, asset, tick, address, amount, reason, ref_id, status, cost_koinu, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?)`),
      get: db.prepare("SELECT * FROM payouts WHERE id = ?"),
      ofRef: db.prepare("SELECT * FROM payouts WHERE ref_id = ? ORDER BY created_at, asset, id"),
    };
    payoutStatements.set(db, found);
  }
  return found;
}

/**
 * Queues a payout (status `queued`) inside the caller's transaction, so that it is owed exactly
 * when the ledger change that owes it is made; answers its id.
 */
export function queuePayout(
  db: Sqlite,
  now: number,
  payout: {
    asset: PayoutAsset;
    tick: string | null;
    address: string;
    amount: bigint;
    reason: string;
    refId: string;
    costKoinu?: bigint;
  },
): string {
  const id = `pay_${crypto.randomBytes(12).toString("hex")}`;
  statementsOf(db).insert.run(
    id,
    payout.asset,
    payout.asset === "DRC20" ? payout.tick : null,
    payout.address,
    payout.amount.toString(),
    payout.reason,
    payout.refId,
    (payout.costKoinu ?? 0n).toString(),
    now,
    now,
  );
  return id;
}

/** The payout `id` as a record, or null. */
export function readPayout(db: Sqlite, id: string): Payout | null {
  const row = statementsOf(db).get.get(id) as PayoutRow | undefined;
  return row ? toPayout(row) : null;
}

/** The payouts an order (swap, liquidity operation, claim, reservation, curve) owes, oldest first. */
export function readPayoutsOf(db: Sqlite, refId: string): Payout[] {
  return (statementsOf(db).ofRef.all(refId) as PayoutRow[]).map(toPayout);
}

function toPayout(row: PayoutRow): Payout {
  return {
    id: row.id,
    asset: row.asset as PayoutAsset,
    tick: row.tick,
    address: row.address,
    amount: BigInt(row.amount),
    reason: row.reason,
    refId: row.ref_id,
    status: row.status as PayoutStatus,
    inscriberJobId: row.inscriber_job_id,
    inscriptionId: row.inscription_id,
    txid: row.txid,
    confirmedHeight: row.confirmed_height,
    error: row.error,
    attempts: row.attempts,
    costKoinu: BigInt(row.cost_koinu ?? "0"),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class SettlementWorker {
  private readonly db: Sqlite;
  private readonly wallet: HotWallet;
  private readonly queries: IndexQueries;
  private readonly inscriber: Pick<InscriberClient, "inscribe" | "job">;
  private readonly network: DogeNetwork;
  private readonly project: string;
  private readonly clock: () => number;
  private readonly log: (event: string, fields: Record<string, unknown>) => void;
  private readonly confirmations: number;
  private readonly depositConfirmations: number;
  private readonly solvency: SolvencyGate | null;
  private readonly custodyScript: Uint8Array;
  private readonly s;
  private readonly used: UsedDeposits;
  private pass: Promise<void> | null = null;
  private state: PassState = newPassState();
  /** Foreign transfers already logged as out of the wallet's reach. */
  private readonly unreachable = new Set<string>();

  constructor(options: SettlementWorkerOptions) {
    this.db = options.db;
    this.wallet = options.wallet;
    this.queries = options.queries;
    this.inscriber = options.inscriber;
    this.network = options.network;
    this.project = options.inscriberProject ?? DEFAULT_INSCRIBER_PROJECT;
    this.clock = options.clock ?? (() => Math.floor(Date.now() / 1000));
    this.log = options.log ?? (() => undefined);
    this.confirmations = options.confirmations ?? DEFAULT_CONFIRMATIONS;
    if (!Number.isSafeInteger(this.confirmations) || this.confirmations < 1)
      throw new RangeError(`confirmations must be a positive integer, got ${this.confirmations}`);
    this.depositConfirmations = options.depositConfirmations ?? 1;
    if (!Number.isSafeInteger(this.depositConfirmations) || this.depositConfirmations < 1)
      throw new RangeError(`depositConfirmations must be a positive integer, got ${this.depositConfirmations}`);
    this.solvency = options.solvency ?? null;
    this.custodyScript = addressToOutputScript(this.wallet.address, this.network);
    const p = (sql: string) => this.db.prepare(sql);
    this.s = {
      get: p("SELECT * FROM payouts WHERE id = ?"),
      open: p(
        `SELECT * FROM payouts WHERE status IN (${OPEN_PAYOUT_STATUSES.map((status) => `'${status}'`).join(", ")}) ORDER BY created_at, id`,
      ),
      belowDust: p(
        "UPDATE payouts SET status = 'below_dust', error = ?, updated_at = ? WHERE id = ? AND status = 'queued'",
      ),
      inscribing: p(
        "UPDATE payouts SET status = 'inscribing', inscriber_job_id = ?, inscription_id = NULL, error = NULL, updated_at = ? WHERE id = ? AND status = 'queued'",
      ),
      reinscribe: p(
        "UPDATE payouts SET status = 'queued', inscriber_job_id = NULL, error = ?, attempts = attempts + 1, updated_at = ? WHERE id = ? AND status = 'inscribed' AND inscription_id = ?",
      ),
      held: p("UPDATE payouts SET error = ?, updated_at = ? WHERE id = ? AND status = ?"),
      inscribed: p(
        "UPDATE payouts SET status = 'inscribed', inscription_id = ?, error = NULL, updated_at = ? WHERE id = ? AND status = 'inscribing' AND inscriber_job_id = ?",
      ),
      sent: p("UPDATE payouts SET status = 'sent', txid = ?, error = NULL, updated_at = ? WHERE id = ? AND status = ?"),
      txReplaced: p("UPDATE payouts SET txid = ?, updated_at = ? WHERE id = ? AND status = 'sent' AND txid = ?"),
      confirmed: p(
        "UPDATE payouts SET status = 'confirmed', confirmed_height = ?, error = NULL, updated_at = ? WHERE id = ? AND status = 'sent' AND txid = ?",
      ),
      failed: p("UPDATE payouts SET status = 'failed', error = ?, updated_at = ? WHERE id = ? AND status = ?"),
      retry: p("UPDATE payouts SET error = ?, attempts = attempts + 1, updated_at = ? WHERE id = ? AND status = ?"),
      frozen: p(
        "UPDATE payouts SET status = 'frozen', error = ?, updated_at = ? WHERE id = ? AND status = ? AND status IN ('queued', 'inscribing', 'inscribed')",
      ),
      frozenCount: p("SELECT COUNT(*) AS n FROM payouts WHERE status = 'frozen'"),
    };
    this.used = new UsedDeposits(this.db);
  }

  /** Payouts held back because a deposit of their order left the index (for /health and operators). */
  frozenCount(): number {
    return (this.s.frozenCount.get() as { n: number }).n;
  }

  /** The payout `id`, or null. */
  payout(id: string): Payout | null {
    const row = this.s.get.get(id) as PayoutRow | undefined;
    return row ? toPayout(row) : null;
  }

  /**
   * One pass: syncs the wallet, then moves every open payout at most one step. A payout whose step
   * fails transiently keeps its status with `error` and `attempts` (the other payouts go on); a
   * failed wallet sync fails the pass. Concurrent calls share one pass.
   */
  runOnce(): Promise<void> {
    if (!this.pass) {
      this.pass = this.runPass().finally(() => {
        this.pass = null;
      });
    }
    return this.pass;
  }

  private async runPass(): Promise<void> {
    await this.wallet.sync();
    this.state = newPassState();
    const rows = this.s.open.all() as PayoutRow[];
    for (const row of rows) {
      if (row.asset === "DRC20" && row.status === "inscribing" && row.tick !== null)
        this.addInFlight(row.tick, row.amount);
    }
    try {
      await this.reclaimForeignTransfers(rows);
    } catch (error) {
      // The payouts go on: the available-balance gate keeps a DRC-20 payout from being inscribed without cover.
      this.log("amm_foreign_transfer_reclaim_error", { err: messageOf(error) });
    }
    for (const row of rows) {
      try {
        await this.step(row);
      } catch (error) {
        // One payout's trouble must not hold the others back; the next pass tries it again.
        this.retry(row, error instanceof Error ? error.name : "Error", messageOf(error));
      }
    }
  }

  private async step(row: PayoutRow): Promise<void> {
    // Checked before anything is done for the row; later steps act on what this check let through.
    const invalid = row.status === "queued" ? this.invalidReason(row) : null;
    if (invalid) {
      this.fail(row, "INVALID_PAYOUT", invalid);
      return;
    }
    const payout = toPayout(row);
    if (payout.status === "queued" || payout.status === "inscribing" || payout.status === "inscribed") {
      if (!this.depositsHold(payout)) return;
    }
    switch (payout.status) {
      case "queued":
        if (payout.asset === "DOGE") await this.payDoge(payout);
        else await this.requestTransferInscription(payout);
        return;
      case "inscribing":
        await this.followInscription(payout);
        return;
      case "inscribed":
        await this.sendCarrier(payout);
        return;
      case "sent":
        await this.followSend(payout);
        return;
      default:
        return;
    }
  }

  /**
   * Whether the deposits the payout's order consumed are still in the index, `depositConfirmations`
   * deep (point reads: the order's deposit rows, then each txid in the index). A deposit gone
   * freezes the payout; one too shallow holds it where it is.
   */
  private depositsHold(payout: Payout): boolean {
    const txids = this.used.txidsOf(payout.refId);
    if (txids.length === 0) return true;
    const gone: string[] = [];
    const shallow: string[] = [];
    let tip: number | null = null;
    for (const txid of txids) {
      const view = this.queries.tx(txid);
      if (!view) {
        gone.push(txid);
        continue;
      }
      tip ??= this.queries.status().indexedHeight;
      const depth = tip - view.height + 1;
      if (depth < this.depositConfirmations) shallow.push(`${txid} (${depth} deep)`);
    }
    if (gone.length > 0) {
      const reason = `DEPOSIT_REORGED: deposit ${gone.join(", ")} of ${payout.refId} is no longer in the index`;
      if (this.s.frozen.run(reason, this.clock(), payout.id, payout.status).changes === 1)
        this.log("amm_payout_frozen", { payout: payout.id, ref: payout.refId, from: payout.status, deposits: gone });
      return false;
    }
    if (shallow.length > 0) {
      this.retry(
        payout,
        "DEPOSIT_NOT_DEEP_ENOUGH",
        `deposit ${shallow.join(", ")} of ${payout.refId} is below ${this.depositConfirmations} confirmations (re-mined after a reorg?)`,
      );
      return false;
    }
    return true;
  }

  /**
   * The solvency gate for `payout`, right before it is inscribed or sent: true (and the payout held
   * in its state with the shortfall as its error) when the custody is short of the payout's asset.
   */
  private heldForShortfall(payout: Payout): boolean {
    if (!this.solvency) return false;
    const key = `${payout.asset}:${payout.tick ?? ""}`;
    let shortfall = this.state.shortfalls.get(key);
    if (shortfall === undefined) {
      shortfall = this.solvency.shortfall(payout.asset, payout.asset === "DRC20" ? payout.tick : null);
      this.state.shortfalls.set(key, shortfall);
    }
    if (!shortfall) return false;
    const error = `${shortfall.code}: ${shortfall.message}`;
    if (
      this.s.held.run(error, this.clock(), payout.id, payout.status).changes === 1 &&
      !payout.error?.startsWith(`${shortfall.code}:`)
    ) {
      this.log("amm_payout_held_shortfall", {
        id: payout.id,
        status: payout.status,
        asset: payout.asset,
        tick: payout.tick,
        amount: payout.amount.toString(),
        code: shortfall.code,
        err: shortfall.message,
      });
    }
    return true;
  }

  private addInFlight(tick: string, amount: string | bigint): void {
    const key = drc20TickKey(tick);
    this.state.inFlight.set(key, (this.state.inFlight.get(key) ?? 0n) + BigInt(amount));
  }

  /** The custody's available balance of `tickKey` in the index, read once per pass. */
  private availableOf(tickKey: string): bigint {
    let available = this.state.available.get(tickKey);
    if (available === undefined) {
      available = this.queries.drc20Balance(this.wallet.address, tickKey).available;
      this.state.available.set(tickKey, available);
    }
    return available;
  }

  /** The inscriber job of an inscribing payout, read once per pass (null when the read failed). */
  private async jobOf(payoutId: string, jobId: string): Promise<InscriberJob> {
    const cached = this.state.jobs.get(payoutId);
    if (cached) return cached;
    try {
      const job = await this.inscriber.job(jobId);
      this.state.jobs.set(payoutId, job);
      return job;
    } catch (error) {
      this.state.jobs.set(payoutId, null);
      throw error;
    }
  }

  // ================================================================ foreign transfers

  /**
   * Sends every foreign unsent transfer inscription at the custody, of a tick an open DRC-20
   * payout still needs (queued or inscribed), to the custody itself (see the top of this file).
   * Reads per tick: the index's unsent transfer carriers at the custody (its own in-flight payouts'
   * and any foreign ones); the inscriber is asked only when a carrier is not an open payout's.
   */
  private async reclaimForeignTransfers(rows: readonly PayoutRow[]): Promise<void> {
    const drc20 = rows.filter(
      (row) => row.asset === "DRC20" && row.tick !== null && utf8.encode(row.tick).length === DRC20_TICK_BYTES,
    );
    const ticks = new Set(
      drc20
        .filter((row) => row.status === "queued" || row.status === "inscribed")
        .map((row) => drc20TickKey(row.tick!)),
    );
    if (ticks.size === 0) return;
    const own = new Set(rows.flatMap((row) => (row.inscription_id ? [row.inscription_id] : [])));
    let walletCarriers: Map<string, CarrierOutput> | null = null;
    for (const tickKey of ticks) {
      let foreign = this.queries
        .tickCarriers(this.wallet.address, tickKey)
        .filter((carrier) => !own.has(carrier.inscriptionId));
      if (foreign.length === 0) continue;
      // Payouts being inscribed now: their inscriptions are the custody's own, whatever the index shows first.
      let known = true;
      for (const row of drc20) {
        if (row.status !== "inscribing" || drc20TickKey(row.tick!) !== tickKey) continue;
        try {
          const job = await this.jobOf(row.id, row.inscriber_job_id!);
          if (job.inscriptionId) own.add(job.inscriptionId);
          for (const txid of job.revealTxids) own.add(`${txid}i0`);
        } catch {
          known = false;
        }
      }
      this.state.reclaiming.add(tickKey);
      if (!known) continue; // whose they are is not known this pass: nothing is reclaimed, the tick's payouts wait
      foreign = foreign.filter((carrier) => !own.has(carrier.inscriptionId));
      if (foreign.length === 0) {
        this.state.reclaiming.delete(tickKey);
        continue;
      }
      walletCarriers ??= new Map(this.wallet.carriers().map((c) => [`${c.txid}:${c.vout}`, c]));
      const outpoints = new Set<string>();
      for (const carrier of foreign) {
        // Several transfers on one output go with it in one self-send.
        const outpoint = `${carrier.txid}:${carrier.vout}`;
        if (outpoints.has(outpoint)) continue;
        outpoints.add(outpoint);
        await this.reclaim(tickKey, carrier, walletCarriers.get(outpoint) ?? null);
      }
    }
  }

  /** Sends the output carrying a foreign transfer to the custody itself, once per inscription (owner RECLAIM_OWNER). */
  private async reclaim(
    tickKey: string,
    carrier: { txid: string; vout: number; inscriptionId: string; amount: string },
    held: CarrierOutput | null,
  ): Promise<void> {
    const fields = {
      inscriptionId: carrier.inscriptionId,
      tick: tickKey,
      amount: carrier.amount,
      carrier: `${carrier.txid}:${carrier.vout}`,
    };
    let txid = this.wallet.txOf(RECLAIM_OWNER, carrier.inscriptionId)?.txid ?? null;
    if (txid === null) {
      // The pass synced the wallet first: a carrier the index shows at the custody that the wallet
      // does not hold is not on its P2PKH script (a bare pay-to-pubkey output, say) and cannot be
      // reclaimed by it: said once per inscription, for the operator. A held one is free after its hold.
      if (!held) {
        if (!this.unreachable.has(carrier.inscriptionId)) {
          this.unreachable.add(carrier.inscriptionId);
          this.log("amm_foreign_transfer_unreachable", fields);
        }
        return;
      }
      if (held.heldUntil !== null) return;
      try {
        txid = this.wallet.sendCarrier(
          RECLAIM_OWNER,
          carrier.inscriptionId,
          { txid: carrier.txid, vout: carrier.vout },
          this.custodyScript,
        ).txid;
      } catch (error) {
        if (!(error instanceof InsufficientFundsError || error instanceof CarrierNotAvailableError)) throw error;
        this.log("amm_foreign_transfer_reclaim_waiting", { ...fields, err: error.message });
        return;
      }
      this.log("amm_foreign_transfer_reclaimed", { ...fields, txid });
    }
    try {
      const tx = await this.wallet.broadcast(txid);
      if (tx.state === "failed")
        this.log("amm_foreign_transfer_reclaim_failed", { ...fields, txid, err: tx.error ?? "conflict" });
    } catch (error) {
      if (!(error instanceof BroadcastError)) throw error;
      this.log("amm_foreign_transfer_reclaim_waiting", { ...fields, txid, err: error.message });
    }
  }

  /** Why the row cannot be paid as written, or null. */
  private invalidReason(row: PayoutRow): string | null {
    if (row.asset !== "DOGE" && row.asset !== "DRC20")
      return `asset must be DOGE or DRC20, got ${JSON.stringify(row.asset)}`;
    if (!DECIMAL.test(row.amount)) return `amount must be a decimal integer, got ${JSON.stringify(row.amount)}`;
    try {
      addressToOutputScript(row.address, this.network);
    } catch (error) {
      return `address ${row.address} is not an address of ${this.network.name}: ${messageOf(error)}`;
    }
    if (row.asset === "DRC20") {
      if (row.tick === null || utf8.encode(row.tick).length !== DRC20_TICK_BYTES)
        return `tick must be ${DRC20_TICK_BYTES} bytes, got ${JSON.stringify(row.tick)}`;
      const amount = BigInt(row.amount);
      if (amount === 0n || amount > DRC20_MAX_SUPPLY)
        return `a DRC-20 amount must be 1 to ${DRC20_MAX_SUPPLY}, got ${amount}`;
    }
    return null;
  }

  // ================================================================ DOGE

  private async payDoge(payout: Payout): Promise<void> {
    if (payout.amount < HARD_DUST_LIMIT) {
      const reason = `${payout.amount} koinu is below the hard dust limit of ${HARD_DUST_LIMIT} koinu`;
      if (this.s.belowDust.run(`BELOW_DUST: ${reason}`, this.clock(), payout.id).changes === 1) {
        this.log("amm_payout_below_dust", {
          id: payout.id,
          address: payout.address,
          amountKoinu: payout.amount.toString(),
        });
      }
      return;
    }
    if (this.heldForShortfall(payout)) return;
    let txid: string;
    try {
      // After a crash between this and the status change, the same owner and label give back this transaction.
      txid = this.wallet.fund(PAYOUT_OWNER, payout.id, [
        { script: addressToOutputScript(payout.address, this.network), value: payout.amount },
      ]).txid;
    } catch (error) {
      if (error instanceof InsufficientFundsError) {
        this.retry(payout, "INSUFFICIENT_FUNDS", error.message);
        return;
      }
      if (error instanceof InvalidOutputError) {
        this.fail(payout, "INVALID_OUTPUT", error.message);
        return;
      }
      throw error;
    }
    await this.broadcastAndMarkSent(payout, txid);
  }

  // ================================================================ DRC-20

  private async requestTransferInscription(payout: Payout): Promise<void> {
    const tick = payout.tick!;
    const content = encodeDrc20({ kind: "transfer", tick, tickKey: drc20TickKey(tick), amount: payout.amount });
    const parsed = parseDrc20(content, DRC20_TRANSFER_CONTENT_TYPE);
    if (!parsed.ok || parsed.op.kind !== "transfer" || parsed.op.amount !== payout.amount) {
      this.fail(
        payout,
        "INVALID_PAYOUT",
        `the transfer body ${new TextDecoder().decode(content)} does not read back as a DRC-20 transfer`,
      );
      return;
    }
    // Inscribed only while the index's available balance covers it: a transfer revealed without
    // it carries nothing (and costs an inscription).
    const tickKey = drc20TickKey(tick);
    const available = this.availableOf(tickKey);
    const inFlight = this.state.inFlight.get(tickKey) ?? 0n;
    if (available - inFlight < payout.amount) {
      if (this.state.reclaiming.has(tickKey)) {
        this.retry(
          payout,
          "FOREIGN_TRANSFER_RECLAIMING",
          `a transfer inscription the custody did not make holds its ${tick} balance; it is being sent back to available (available ${available}, ${inFlight} being inscribed, this payout ${payout.amount})`,
        );
      } else {
        this.retry(
          payout,
          "DRC20_AVAILABLE_SHORT",
          `the custody's available ${tick} balance is ${available} with ${inFlight} being inscribed for other payouts; this payout needs ${payout.amount}`,
        );
      }
      return;
    }
    if (this.heldForShortfall(payout)) return;
    // A payout whose earlier transfer the index voided is inscribed again under a key of its own.
    const idempotencyKey = payout.inscriptionId === null ? payout.id : `${payout.id}:${payout.inscriptionId}`;
    let job: InscriberJob;
    try {
      ({ job } = await this.inscriber.inscribe(idempotencyKey, {
        project: this.project,
        contentType: DRC20_TRANSFER_CONTENT_TYPE,
        action: null,
        content,
        recipient: this.wallet.address,
      }));
    } catch (error) {
      if (!(error instanceof InscriberCallError)) throw error;
      // A refused content or recipient will never be accepted; anything else (auth, 5xx, no answer) may pass later.
      if (error.refused && !error.retryable) this.fail(payout, error.failure, error.message);
      else this.retry(payout, error.failure, error.message);
      return;
    }
    this.addInFlight(tick, payout.amount);
    if (this.s.inscribing.run(job.id, this.clock(), payout.id).changes === 1) {
      this.log("amm_payout_inscribing", { id: payout.id, tick, amount: payout.amount.toString(), job: job.id });
    }
  }

  private async followInscription(payout: Payout): Promise<void> {
    const jobId = payout.inscriberJobId!;
    let job: InscriberJob;
    try {
      job = await this.jobOf(payout.id, jobId);
    } catch (error) {
      if (!(error instanceof InscriberCallError)) throw error;
      this.retry(payout, error.failure, error.message);
      return;
    }
    if (!isFinalJobStatus(job.status)) return;
    if (job.status === "confirmed" && job.inscriptionId) {
      if (this.s.inscribed.run(job.inscriptionId, this.clock(), payout.id, jobId).changes === 1) {
        this.log("amm_payout_inscribed", { id: payout.id, job: jobId, inscriptionId: job.inscriptionId });
      }
    } else {
      this.fail(payout, "INSCRIPTION_FAILED", jobFailure(job));
    }
  }

  /**
   * The transfer inscription's carrier goes to the user once the index shows it as a valid transfer
   * of the custody address and the wallet has it as a locked output.
   */
  private async sendCarrier(payout: Payout): Promise<void> {
    const made = this.wallet.txOf(PAYOUT_OWNER, payout.id);
    if (made) {
      // Made by an earlier pass that stopped before the status change: that one, never a second.
      if (this.heldForShortfall(payout)) return;
      await this.broadcastAndMarkSent(payout, made.txid);
      return;
    }
    const custody = this.wallet.address;
    const inscriptionId = payout.inscriptionId!;
    const inscription = this.queries.inscription(inscriptionId);
    if (!inscription) return; // the index has not reached its block yet
    const transfer = this.transferOf(inscriptionId, inscription.revealTxid);
    if (!transfer) {
      const deployed = this.queries.drc20Tick(drc20TickKey(payout.tick!));
      if (deployed && payout.amount <= BigInt(deployed.maxSupply)) {
        // Only a short available balance at the reveal voids such a transfer (a foreign transfer
        // mined ahead of it): it carries nothing, and never will, so another one is safe.
        this.reinscribe(
          payout,
          "TRANSFER_VOID",
          `the index did not take inscription ${inscriptionId} as a DRC-20 transfer of ${custody} (its available ${payout.tick} was short at the reveal); inscribing the transfer again`,
        );
        return;
      }
      this.fail(
        payout,
        "TRANSFER_INVALID",
        `the index did not take inscription ${inscriptionId} as a DRC-20 transfer of ${custody} (${deployed ? `more than ${payout.tick}'s max supply` : `${payout.tick} is not deployed`})`,
      );
      return;
    }
    if (transfer.sent && transfer.receiver_address === custody && this.wallet.txOf(RECLAIM_OWNER, inscriptionId)) {
      // Taken for a foreign transfer and sent back to available (its job was not known yet): the amount is available again.
      this.reinscribe(
        payout,
        "TRANSFER_RECLAIMED",
        `transfer inscription ${inscriptionId} was sent back to the custody's available ${payout.tick}; inscribing the transfer again`,
      );
      return;
    }
    if (transfer.sent) {
      this.fail(
        payout,
        "TRANSFER_ALREADY_SENT",
        `transfer inscription ${inscriptionId} was already sent to ${transfer.receiver_address} by a transaction the payout did not make`,
      );
      return;
    }
    if (transfer.tick_key !== drc20TickKey(payout.tick!) || transfer.amount !== payout.amount.toString()) {
      this.fail(
        payout,
        "TRANSFER_MISMATCH",
        `inscription ${inscriptionId} transfers ${transfer.amount} ${transfer.tick}, not ${payout.amount} ${payout.tick}`,
      );
      return;
    }
    const location = inscription.location;
    if (!location || inscription.ownerAddress !== custody) return;
    const carrier = this.wallet
      .carriers()
      .find((output) => output.txid === location.txid && output.vout === location.vout);
    if (!carrier) return; // the wallet's next sync picks it up
    if (this.heldForShortfall(payout)) return;
    const others = carrier.inscriptionIds.filter((id) => id !== inscriptionId);
    if (others.length > 0) {
      this.fail(
        payout,
        "CARRIER_SHARED",
        `output ${location.txid}:${location.vout} also carries ${others.join(", ")}, which would go to the user too`,
      );
      return;
    }
    let txid: string;
    try {
      txid = this.wallet.sendCarrier(
        PAYOUT_OWNER,
        payout.id,
        { txid: location.txid, vout: location.vout },
        addressToOutputScript(payout.address, this.network),
      ).txid;
    } catch (error) {
      if (error instanceof InsufficientFundsError) {
        this.retry(payout, "INSUFFICIENT_FUNDS", error.message);
        return;
      }
      if (error instanceof CarrierNotAvailableError) {
        if (error.code === "CARRIER_SPENT") this.fail(payout, error.code, error.message);
        else this.retry(payout, error.code, error.message);
        return;
      }
      throw error;
    }
    await this.broadcastAndMarkSent(payout, txid);
  }

  /** The index's record of a DRC-20 transfer inscribed to the custody address, or null. */
  private transferOf(inscriptionId: string, revealTxid: string) {
    return (
      this.queries
        .transferInscriptions(this.wallet.address, { order: "asc", count: 1_000, revealTxid })
        .items.find((item) => item.inscription_id === inscriptionId) ?? null
    );
  }

  // ================================================================ both

  /** Broadcasts the payout's wallet transaction and moves the row to `sent` with its (current) txid. */
  private async broadcastAndMarkSent(payout: Payout, txid: string): Promise<void> {
    let tx: WalletTx;
    try {
      tx = await this.wallet.broadcast(txid);
    } catch (error) {
      if (!(error instanceof BroadcastError)) throw error;
      if (this.wallet.txOf(PAYOUT_OWNER, payout.id)?.state === "failed")
        this.fail(payout, "TX_FAILED", `transaction ${txid} can never confirm: ${error.message}`);
      else this.retry(payout, error.code, error.message);
      return;
    }
    if (tx.state === "failed") {
      this.fail(payout, "TX_FAILED", `transaction ${tx.txid} can never confirm: ${tx.error ?? "conflict"}`);
      return;
    }
    if (this.s.sent.run(tx.txid, this.clock(), payout.id, payout.status).changes === 1) {
      this.log("amm_payout_sent", {
        id: payout.id,
        asset: payout.asset,
        tick: payout.tick,
        address: payout.address,
        amount: payout.amount.toString(),
        txid: tx.txid,
      });
    }
  }

  private async followSend(payout: Payout): Promise<void> {
    const tx = this.wallet.txOf(PAYOUT_OWNER, payout.id);
    if (!tx) {
      this.retry(
        payout,
        "WALLET_TX_MISSING",
        `the wallet has no transaction ${PAYOUT_OWNER}/${payout.id} (is it the custody wallet's database?)`,
      );
      return;
    }
    let txid = payout.txid!;
    if (tx.txid !== txid) {
      // The wallet rebuilt it for its fee (or an earlier version got in after all).
      if (this.s.txReplaced.run(tx.txid, this.clock(), payout.id, txid).changes !== 1) return;
      this.log("amm_payout_tx_replaced", { id: payout.id, previous: txid, txid: tx.txid });
      txid = tx.txid;
    }
    if (tx.state === "failed") {
      this.fail(payout, "TX_FAILED", `transaction ${txid} can never confirm: ${tx.error ?? "conflict"}`);
      return;
    }
    const view = this.queries.tx(txid);
    if (!view || this.queries.status().indexedHeight - view.height + 1 < this.confirmations) return;
    if (payout.asset === "DRC20") {
      const inscription = this.queries.inscription(payout.inscriptionId!);
      const transfer = inscription ? this.transferOf(inscription.id, inscription.revealTxid) : null;
      if (!transfer || !transfer.sent || transfer.receiver_address !== payout.address) {
        this.fail(
          payout,
          "TRANSFER_NOT_RECEIVED",
          `transaction ${txid} confirmed but the index shows transfer ${payout.inscriptionId} ${transfer?.sent ? `received by ${transfer.receiver_address}` : "not sent"}`,
        );
        return;
      }
    }
    if (this.s.confirmed.run(view.height, this.clock(), payout.id, txid).changes === 1) {
      this.log("amm_payout_confirmed", { id: payout.id, asset: payout.asset, txid, height: view.height });
    }
  }

  // ================================================================ transitions

  private fail(payout: { id: string; status: string }, code: string, message: string): void {
    if (this.s.failed.run(`${code}: ${message}`, this.clock(), payout.id, payout.status).changes === 1) {
      this.log("amm_payout_failed", { id: payout.id, from: payout.status, code, err: message });
    }
  }

  /** An inscribed payout whose transfer carries nothing goes back to `queued`, remembering the void inscription. */
  private reinscribe(payout: Payout, code: string, message: string): void {
    if (this.s.reinscribe.run(`${code}: ${message}`, this.clock(), payout.id, payout.inscriptionId).changes === 1) {
      this.log("amm_payout_reinscribe", { id: payout.id, void: payout.inscriptionId, code, err: message });
    }
  }

  private retry(payout: { id: string; status: string; attempts: number }, code: string, message: string): void {
    if (this.s.retry.run(`${code}: ${message}`, this.clock(), payout.id, payout.status).changes === 1) {
      this.log("amm_payout_retry", {
        id: payout.id,
        status: payout.status,
        attempts: payout.attempts + 1,
        code,
        err: message,
      });
    }
  }
}

/**
 * What the payouts the worker has not sent yet (queued, inscribing, inscribed) owe, per asset: DOGE
 * in koinu, each tick's DRC-20 by tick key. A `sent` payout is no longer owed: its transaction
 * has spent the custody's coins, or moved its transfer inscription, already.
 */
export function unsentPayoutTotals(db: Sqlite): {
  doge: bigint;
  tokens: Map<string, { tick: string; amount: bigint }>;
} {
  const rows = db
    .prepare("SELECT asset, tick, amount FROM payouts WHERE status IN ('queued', 'inscribing', 'inscribed')")
    .all() as { asset: string; tick: string | null; amount: string }[];
  let doge = 0n;
  const tokens = new Map<string, { tick: string; amount: bigint }>();
  for (const row of rows) {
    if (row.asset === "DOGE") {
      doge += BigInt(row.amount);
      continue;
    }
    if (row.tick === null) continue;
    const key = drc20TickKey(row.tick);
    const entry = tokens.get(key) ?? { tick: row.tick, amount: 0n };
    entry.amount += BigInt(row.amount);
    tokens.set(key, entry);
  }
  return { doge, tokens };
}

/** Payouts that need an operator: `failed` ones, and open ones whose last try lacked funds (INSUFFICIENT_FUNDS). */
export function stuckPayoutCounts(db: Sqlite): { failed: number; insufficientFunds: number } {
  const row = db
    .prepare(
      `SELECT SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END) AS failed,
              SUM(CASE WHEN status IN ('queued', 'inscribing', 'inscribed') AND error LIKE 'INSUFFICIENT_FUNDS:%' THEN 1 ELSE 0 END) AS short
         FROM payouts WHERE status IN ('failed', 'queued', 'inscribing', 'inscribed')`,
    )
    .get() as { failed: number | null; short: number | null };
  return { failed: row.failed ?? 0, insufficientFunds: row.short ?? 0 };
}
