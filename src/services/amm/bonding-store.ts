/**
 * Bonding-curve launches that graduate into AMM pools (issue 10), over the AMM's database (schema
 * version 2) with the curve math of src/amm/bonding.ts.
 *
 * Life of a curve:
 *
 *   awaiting_supply ──the launcher's bound deposits reach the total supply, and the custody's
 *                     available balance of the tick covers it──▶ active
 *   active ──a confirmed buy makes it ready (threshold raised or sold out)──▶ graduated
 *   awaiting_supply ──the supply deadline passed, or the tick's max is not the total supply──▶ failed
 *
 * - Launch (operator key, and signed by the launcher: orders.ts bonding-launch with a nonce used
 *   once): the curve names its launcher and waits for its supply. The launcher deploys the tick
 *   (max = the curve's total supply) and mints it on chain itself, before or after the launch: a
 *   mint race is the launcher's, never the custody's, and nothing is for sale while it runs. It then
 *   deposits the supply (DRC-20 transfers to the custody, payer = the launcher) and announces each
 *   deposit (orders.ts bonding-supply, signed by the launcher): the deposit is bound by deposits.ts
 *   (kind bonding_supply, ref_id the curve's id), so it is never refunded on request nor used twice.
 *   Only the launcher's bound deposits count toward the supply; a third party's deposit of the tick
 *   is an unbound deposit its payer may have refunded as any other. The curve becomes `active`
 *   when they reach the total supply and the index shows the custody's available balance of the
 *   tick covering it on top of the tick's payouts still owed; what the launcher deposited beyond the
 *   total supply is queued back to it then.
 * - A launch that cannot complete fails (`failed`, with its reason in `error`): the supply not
 *   deposited by `supplyDeadline` (default a day after the launch: SUPPLY_NOT_DEPOSITED), or the
 *   tick deployed with a max other than the total supply (TICK_SUPPLY_MISMATCH, refused at launch
 *   when it is already so). The supply bound to a failed launch is queued back to the launcher in
 *   one DRC-20 payout (`refund_payout_id`). There is no launch fee: launches are the operator's, by
 *   API key. `runOnce` (the daemon's loop) activates and fails launches.
 * - Reservations: an allocation held ahead of payment, priced on the curve as it is: BUY reserves
 *   the tokens an exact DOGE deposit buys now, SELL the DOGE an exact token deposit sells for now.
 *   A reservation is made by its payer: the address signs it (orders.ts bonding-reserve, with a
 *   nonce used once). Live reservations (status reserved, not expired) of a curve never hold more
 *   tokens than its real token reserve (buys), nor more tokens than it sold (sells); an address
 *   holds at most `maxReservationsPerAddress` live reservations, and at most
 *   `maxReservationShareBps` of the curve's remaining tokens (buys) or of its sold tokens (sells)
 *   in them, except that the last slice of the curve (at most that share of the sellable supply)
 *   may be reserved whole. An expired reservation holds nothing.
 * - Confirm: the reservation's address signs the deposit's txid (orders.ts bonding-confirm); the
 *   deposit is bound by deposits.ts (paid by that address, not by the service, deep enough) and
 *   consumed once (`deposits`, kind bonding_buy / bonding_sell). The trade is executed on the curve
 *   as it is then, never taking tokens other live reservations hold, and it honours the
 *   reservation: a trade that would pay less than the reservation's `reservedOut` is refunded in
 *   full instead (RESERVATION_NOT_HONOURED). What it owes is queued in `payouts` in the same
 *   transaction, and the settlement worker pays it. A deposit mined after the reservation's expiry,
 *   smaller than asked, or that finds nothing left to buy (sold out, graduated) is refunded in full;
 *   the excess of a larger deposit is refunded.
 * - Graduation: in the transaction of the buy that makes the curve ready, the curve is marked
 *   graduated (graduate(): its reserves frozen) and its pool is seeded through AmmLedger.seedPool
 *   (nested: a savepoint of this transaction) with graduate()'s poolDoge / poolToken, the position
 *   owned by `graduated:<tick>`, which is no address, so no signature can ever remove it. If the
 *   seed is refused (custody short, a pool someone else filled first), the curve stays graduated
 *   with the reason in `error`, and `runOnce` tries the seed again; a seed is recognised by its
 *   ledger row (ref_id = the curve's id), so it is never made twice.
 */
import crypto from "node:crypto";
import type { Sqlite } from "../../db/sqlite";
import {
  BondingError,
  CurveState,
  buy,
  buyExactOut,
  createCurve,
  graduate,
  progressBps,
  quoteBuy,
  quoteBuyExactOut,
  quoteSell,
  quoteSellExactOut,
  readyToGraduate,
  sell,
  tokensSold,
} from "../../amm/bonding";
import { DRC20_MAX_SUPPLY, drc20TickKey } from "../../inscription/drc20";
import type { IndexQueries } from "../../indexer/queries";
import { Refusal, conflict, notFound, unprocessable } from "../../errors";
import { DepositOrder, DepositReader, UsedDeposits, bindDeposit, pendingError } from "./deposits";
import { payoutAboveDust } from "./custody";
import type { CustodyOrder, CustodyTrade, CustodyVia } from "./custody";
import { AmmLedger, MIN_DOGE_KOINU, priceString } from "./ledger";
import { Authorization, orderMessage, requireSignature } from "./orders";

/** How long a reservation holds its allocation (short: an unpaid reservation blocks others). */
export const DEFAULT_RESERVATION_SECONDS = 300;
/** The share of a curve's remaining tokens one address may hold in live reservations, basis points. */
export const DEFAULT_MAX_RESERVATION_SHARE_BPS = 1_000;
/** Live reservations an address may hold at once (over every curve). */
export const DEFAULT_MAX_RESERVATIONS_PER_ADDRESS = 3;
/** How long a reservation that expired unpaid (and is not announced) is kept, then pruned. */
export const EXPIRED_RESERVATION_KEEP_SECONDS = 86_400;
/** How long after its launch a curve waits for its launcher's supply before it fails (a day). */
export const DEFAULT_SUPPLY_DEADLINE_SECONDS = 86_400;
/** Owner recorded on a graduated curve's pool position: not an address, so nobody can sign for it. */
export const graduatedProvider = (tick: string): string => `graduated:${tick}`;

export type CurveStatus = "awaiting_supply" | "active" | "graduated" | "failed";
export type BondingSide = "BUY" | "SELL";
export type ReservationStatus = "reserved" | "confirmed" | "refunded" | "expired";

export interface CurveRecord {
  id: string;
  tick: string;
  tickKey: string;
  status: CurveStatus;
  state: CurveState;
  /** The virtual DOGE reserve the curve was launched with, koinu. */
  launchVirtualDoge: bigint;
  /** The address that signed the launch and deposits the supply (null: a curve of the old launch). */
  launcher: string | null;
  /** The tokens the launcher's bound deposits brought so far. */
  supplyDeposited: bigint;
  /** When an incomplete launch fails, unix seconds (null: a curve of the old launch). */
  supplyDeadline: number | null;
  /** The payout returning a failed launch's bound supply to its launcher. */
  refundPayoutId: string | null;
  /** What graduation handed to the pool (null before). */
  poolDoge: bigint | null;
  poolToken: bigint | null;
  poolSeededAt: number | null;
  error: string | null;
  createdAt: number;
  activatedAt: number | null;
  graduatedAt: number | null;
  /** The reservation whose confirmed BUY graduated the curve (null before, and for curves graduated before schema version 9). */
  graduationReservationId: string | null;
  updatedAt: number;
}

export interface ReservationRecord {
  id: string;
  tick: string;
  side: BondingSide;
  address: string;
  /** What the trade takes: koinu for a buy, tokens for a sell (the deposit is this plus `payoutCost` for a buy). */
  amountIn: bigint;
  /** DOGE a buy's deposit carries on top of `amountIn` for its DRC-20 payout's cost (0 for a sell: its DOGE payout's is withheld). */
  payoutCost: bigint;
  /** Held for the deposit: tokens for a buy, DOGE (koinu, after the fee) for a sell. */
  reservedOut: bigint;
  feeKoinu: bigint;
  status: ReservationStatus;
  depositTxid: string | null;
  /** A payment announced to confirm before it was mined: the bonding pass confirms it once it is. */
  pendingTxid: string | null;
  depositAmount: bigint | null;
  /** What the confirm paid (tokens or koinu). */
  amountOut: bigint | null;
  payoutId: string | null;
  refundPayoutId: string | null;
  error: { code: string; message: string } | null;
  createdAt: number;
  expiresAt: number;
  updatedAt: number;
}

export interface BondingQuote {
  tick: string;
  side: BondingSide;
  amountIn: bigint;
  amountOut: bigint;
  feeKoinu: bigint;
  /** DOGE of the offer a buy would not use (it takes the last tokens); 0 otherwise. */
  refundKoinu: bigint;
}

export interface LaunchRequest {
  tick: string;
  totalSupply: bigint;
  sellableSupply: bigint;
  virtualDoge: bigint;
  graduationThreshold: bigint;
  /**
   * The launcher's bonding-launch authorization (launchFields, orders.ts): its address is the
   * launcher. Without it (in-process callers only: the HTTP route requires it) the curve has no
   * launcher, takes no supply, and fails at its deadline unless the caller activates it itself.
   */
  auth?: Authorization;
}

export interface BondingStoreOptions {
  /** The AMM's database (schema version 2 or later). */
  db: Sqlite;
  /** The AMM ledger over the same database: graduation seeds its pools. */
  ledger: AmmLedger;
  deposits: DepositReader;
  /** The explorer's index: deployed ticks, the custody's balances. */
  queries: IndexQueries;
  /** Unix seconds (default: the system clock). */
  clock?: () => number;
  /** How long a launch waits for its launcher's supply before it fails, seconds (default a day). */
  supplyDeadlineSeconds?: number;
  reservationSeconds?: number;
  maxReservationsPerAddress?: number;
  /** The share of a curve's remaining (buys) or sold (sells) tokens one address may hold in live reservations, bps (default 1,000). */
  maxReservationShareBps?: number;
  /** Fee of new curves on the DOGE side, basis points (default: bonding.ts DEFAULT_FEE_BPS). */
  feeBps?: bigint;
  log?: (event: string, fields: Record<string, unknown>) => void;
}

interface CurveRow {
  tick_key: string;
  tick: string;
  id: string;
  status: CurveStatus;
  total_supply: string;
  sellable_supply: string;
  launch_virtual_doge: string;
  graduation_threshold: string;
  fee_bps: number;
  virtual_doge: string;
  virtual_token: string;
  real_doge: string;
  real_token: string;
  fees_collected: string;
  deploy_job_id: string | null;
  deploy_inscription_id: string | null;
  mint_job_id: string | null;
  pool_doge: string | null;
  pool_token: string | null;
  pool_seeded_at: number | null;
  error: string | null;
  api_key_id: string;
  created_at: number;
  activated_at: number | null;
  graduated_at: number | null;
  updated_at: number;
  launcher: string | null;
  supply_deposited: string;
  supply_deadline: number | null;
  refund_payout_id: string | null;
  graduation_reservation_id: string | null;
}

interface ReservationRow {
  id: string;
  tick_key: string;
  side: BondingSide;
  address: string;
  amount_in: string;
  reserved_out: string;
  fee: string;
  status: ReservationStatus;
  deposit_txid: string | null;
  deposit_amount: string | null;
  amount_out: string | null;
  payout_id: string | null;
  refund_payout_id: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: number;
  expires_at: number;
  updated_at: number;
  pending_txid: string | null;
  payout_cost: string;
}

const newId = (prefix: string) => `${prefix}_${crypto.randomBytes(12).toString("hex")}`;
const big = (text: string | null): bigint | null => (text === null ? null : BigInt(text));
const sha256Hex = (text: string) => crypto.createHash("sha256").update(text, "utf8").digest("hex");

const stateOf = (r: CurveRow): CurveState => ({
  totalSupply: BigInt(r.total_supply),
  sellableSupply: BigInt(r.sellable_supply),
  graduationThreshold: BigInt(r.graduation_threshold),
  feeBps: BigInt(r.fee_bps),
  virtualDoge: BigInt(r.virtual_doge),
  virtualToken: BigInt(r.virtual_token),
  realDoge: BigInt(r.real_doge),
  realToken: BigInt(r.real_token),
  feesCollected: BigInt(r.fees_collected),
  graduated: r.status === "graduated",
});

const curveOf = (r: CurveRow): CurveRecord => ({
  id: r.id,
  tick: r.tick,
  tickKey: r.tick_key,
  status: r.status,
  state: stateOf(r),
  launchVirtualDoge: BigInt(r.launch_virtual_doge),
  launcher: r.launcher,
  supplyDeposited: BigInt(r.supply_deposited),
  supplyDeadline: r.supply_deadline,
  refundPayoutId: r.refund_payout_id,
  poolDoge: big(r.pool_doge),
  poolToken: big(r.pool_token),
  poolSeededAt: r.pool_seeded_at,
  error: r.error,
  createdAt: r.created_at,
  activatedAt: r.activated_at,
  graduatedAt: r.graduated_at,
  graduationReservationId: r.graduation_reservation_id,
  updatedAt: r.updated_at,
});

/** Curve refusals as HTTP answers (422: well formed, but the curve cannot do it). */
function curveError(error: unknown): Refusal {
  if (error instanceof BondingError) {
    const details = Object.fromEntries(
      Object.entries(error.details).map(([k, v]) => [k, typeof v === "bigint" ? v.toString() : v]),
    );
    return unprocessable(error.code, error.message, details);
  }
  throw error;
}

/** The fields of a bonding-launch authorization, in order (orders.ts); the authorization's address is the launcher. */
export function launchFields(request: Omit<LaunchRequest, "auth">): Record<string, string> {
  return {
    symbol: request.tick,
    "total supply": request.totalSupply.toString(),
    "sellable supply": request.sellableSupply.toString(),
    "virtual doge": request.virtualDoge.toString(),
    "graduation threshold": request.graduationThreshold.toString(),
  };
}

/** The fields of a bonding-supply message, in order (orders.ts): the launcher binds `depositTxid` to its launch. */
export function supplyFields(curve: { tick: string; launcher: string }, depositTxid: string): Record<string, string> {
  return { symbol: curve.tick, launcher: curve.launcher, deposit: depositTxid };
}

/** The fields of a bonding-reserve authorization, in order (orders.ts). */
export function reserveFields(request: {
  tick: string;
  side: BondingSide;
  amountIn: bigint;
  minAmountOut?: bigint;
}): Record<string, string> {
  return {
    symbol: request.tick,
    side: request.side,
    "amount in": request.amountIn.toString(),
    "min amount out": (request.minAmountOut ?? 0n).toString(),
  };
}

/** The fields of a bonding-confirm message, in order (orders.ts). */
export function confirmFields(
  reservation: Pick<ReservationRecord, "id" | "tick" | "side" | "amountIn" | "reservedOut" | "address">,
  depositTxid: string,
): Record<string, string> {
  return {
    reservation: reservation.id,
    symbol: reservation.tick,
    side: reservation.side,
    "amount in": reservation.amountIn.toString(),
    "reserved out": reservation.reservedOut.toString(),
    address: reservation.address,
    deposit: depositTxid,
  };
}

/** Operator API keys of bonding launches: made here and shown once, stored as their SHA-256 only. */
export class BondingApiKeys {
  private readonly s;

  constructor(
    db: Sqlite,
    private readonly clock: () => number = () => Math.floor(Date.now() / 1000),
  ) {
    this.s = {
      insert: db.prepare("INSERT INTO bonding_api_keys (id, key_sha256, label, created_at) VALUES (?, ?, ?, ?)"),
      byHash: db.prepare("SELECT id FROM bonding_api_keys WHERE key_sha256 = ? AND revoked_at IS NULL"),
      revoke: db.prepare("UPDATE bonding_api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
    };
  }

  issue(label: string): { id: string; key: string } {
    const id = newId("bkey");
    const key = `bk_${crypto.randomBytes(24).toString("hex")}`;
    this.s.insert.run(id, sha256Hex(key), label, this.clock());
    return { id, key };
  }

  revoke(id: string): boolean {
    return this.s.revoke.run(this.clock(), id).changes === 1;
  }

  /** The key id of `Authorization: Bearer <key>`; 401 otherwise. */
  authenticate(authorization: string | undefined): string {
    const match = /^Bearer ([\x21-\x7e]{1,200})$/.exec(authorization ?? "");
    if (!match)
      throw new Refusal(
        "unauthorized",
        "MISSING_CREDENTIALS",
        "send an operator key as Authorization: Bearer <key>",
        undefined,
        { challenge: "Bearer" },
      );
    const row = this.s.byHash.get(sha256Hex(match[1])) as { id: string } | undefined;
    if (!row)
      throw new Refusal("unauthorized", "INVALID_API_KEY", "the key is not a live operator key", undefined, {
        challenge: "Bearer",
      });
    return row.id;
  }
}

export class BondingStore {
  readonly custodyAddress: string;
  private readonly clock: () => number;
  private readonly reservationSeconds: number;
  private readonly maxReservationsPerAddress: number;
  private readonly maxReservationShareBps: bigint;
  private readonly supplyDeadlineSeconds: number;
  private readonly log: (event: string, fields: Record<string, unknown>) => void;
  private readonly used: UsedDeposits;
  private readonly s;

  constructor(private readonly options: BondingStoreOptions) {
    this.custodyAddress = options.deposits.custodyAddress;
    this.clock = options.clock ?? (() => Math.floor(Date.now() / 1000));
    this.apiKeys = new BondingApiKeys(options.db, this.clock);
    this.used = new UsedDeposits(options.db);
    this.reservationSeconds = options.reservationSeconds ?? DEFAULT_RESERVATION_SECONDS;
    this.maxReservationsPerAddress = options.maxReservationsPerAddress ?? DEFAULT_MAX_RESERVATIONS_PER_ADDRESS;
    this.maxReservationShareBps = BigInt(options.maxReservationShareBps ?? DEFAULT_MAX_RESERVATION_SHARE_BPS);
    this.supplyDeadlineSeconds = options.supplyDeadlineSeconds ?? DEFAULT_SUPPLY_DEADLINE_SECONDS;
    this.log = options.log ?? (() => undefined);
    const p = (sql: string) => options.db.prepare(sql);
    this.s = {
      curve: p("SELECT * FROM bonding_curves WHERE tick_key = ?"),
      curvesIn: p("SELECT * FROM bonding_curves WHERE status = ? ORDER BY created_at, tick_key"),
      curvesPage: p(`SELECT * FROM bonding_curves
        WHERE (@status IS NULL OR status = @status)
          AND (@createdAt IS NULL OR created_at < @createdAt OR (created_at = @createdAt AND tick_key < @tickKey))
        ORDER BY created_at DESC, tick_key DESC LIMIT @limit`),
      curvesToAdvance: p(
        "SELECT * FROM bonding_curves WHERE status = 'awaiting_supply' OR (status = 'graduated' AND pool_seeded_at IS NULL) ORDER BY created_at",
      ),
      insertCurve:
        p(`INSERT INTO bonding_curves (tick_key, tick, id, status, total_supply, sellable_supply, launch_virtual_doge, graduation_threshold, fee_bps,
        virtual_doge, virtual_token, real_doge, real_token, fees_collected, api_key_id, created_at, updated_at, launcher, supply_deadline)
        VALUES (?, ?, ?, 'awaiting_supply', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      saveState:
        p(`UPDATE bonding_curves SET virtual_doge = ?, virtual_token = ?, real_doge = ?, real_token = ?, fees_collected = ?, updated_at = ?
        WHERE tick_key = ?`),
      graduated: p(
        `UPDATE bonding_curves SET status = 'graduated', pool_doge = ?, pool_token = ?, graduated_at = ?, graduation_reservation_id = ?, updated_at = ?
        WHERE tick_key = ? AND status = 'active'`,
      ),
      seeded: p(
        "UPDATE bonding_curves SET pool_seeded_at = ?, error = NULL, updated_at = ? WHERE tick_key = ? AND pool_seeded_at IS NULL",
      ),
      curveError: p("UPDATE bonding_curves SET error = ?, updated_at = ? WHERE tick_key = ?"),
      supplyCredited: p(
        "UPDATE bonding_curves SET supply_deposited = ?, updated_at = ? WHERE tick_key = ? AND status = 'awaiting_supply'",
      ),
      activated: p(
        "UPDATE bonding_curves SET status = 'active', error = NULL, activated_at = ?, updated_at = ? WHERE tick_key = ? AND status = 'awaiting_supply'",
      ),
      failed: p(
        "UPDATE bonding_curves SET status = 'failed', error = ?, updated_at = ? WHERE tick_key = ? AND status = 'awaiting_supply'",
      ),
      launchRefunded: p("UPDATE bonding_curves SET refund_payout_id = ? WHERE tick_key = ?"),
      insertReservation:
        p(`INSERT INTO bonding_reservations (id, tick_key, side, address, amount_in, reserved_out, fee, payout_cost, status, created_at, expires_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'reserved', ?, ?, ?)`),
      reservation: p("SELECT * FROM bonding_reservations WHERE id = ?"),
      heldCounters: p("SELECT held_buy, held_sell, held_valid_until FROM bonding_curves WHERE tick_key = ?"),
      setHeld: p("UPDATE bonding_curves SET held_buy = ?, held_sell = ?, held_valid_until = ? WHERE tick_key = ?"),
      addHeld: p(
        "UPDATE bonding_curves SET held_buy = ?, held_sell = ?, held_valid_until = MIN(held_valid_until, ?) WHERE tick_key = ?",
      ),
      invalidateHeld: p("UPDATE bonding_curves SET held_valid_until = 0 WHERE tick_key = ?"),
      invalidateAllHeld: p("UPDATE bonding_curves SET held_valid_until = 0"),
      earliestLive: p(
        "SELECT MIN(expires_at) AS earliest FROM bonding_reservations WHERE tick_key = ? AND status = 'reserved' AND expires_at >= ?",
      ),
      heldBuy: p(`SELECT SUM(CAST(reserved_out AS INTEGER)) AS held FROM bonding_reservations
        WHERE tick_key = ? AND side = 'BUY' AND status = 'reserved' AND expires_at >= ? AND id <> ?`).safeIntegers(
        true,
      ),
      heldSell: p(`SELECT SUM(CAST(amount_in AS INTEGER)) AS held FROM bonding_reservations
        WHERE tick_key = ? AND side = 'SELL' AND status = 'reserved' AND expires_at >= ? AND id <> ?`).safeIntegers(
        true,
      ),
      liveOfCurve: p(
        "SELECT id, amount_in, reserved_out FROM bonding_reservations WHERE tick_key = ? AND side = ? AND status = 'reserved' AND expires_at >= ?",
      ),
      liveOfAddress: p(
        "SELECT COUNT(*) AS n FROM bonding_reservations WHERE address = ? AND status = 'reserved' AND expires_at >= ?",
      ),
      liveOfAddressOnCurve: p(`SELECT side, amount_in, reserved_out FROM bonding_reservations
        WHERE address = ? AND tick_key = ? AND status = 'reserved' AND expires_at >= ?`),
      expire: p(
        "UPDATE bonding_reservations SET status = 'expired', updated_at = ? WHERE status = 'reserved' AND expires_at < ?",
      ),
      pruneExpired: p(
        `DELETE FROM bonding_reservations WHERE status = 'expired' AND deposit_txid IS NULL AND pending_txid IS NULL AND expires_at < ?`,
      ),
      closeReservation:
        p(`UPDATE bonding_reservations SET status = ?, deposit_txid = ?, deposit_amount = ?, amount_out = ?, payout_id = ?, refund_payout_id = ?,
        error_code = ?, error_message = ?, updated_at = ? WHERE id = ? AND status IN ('reserved', 'expired')`),
      setPending: p(
        "UPDATE bonding_reservations SET pending_txid = ?, updated_at = ? WHERE id = ? AND status IN ('reserved', 'expired')",
      ),
      // The announcement is gone unbound (never seen by the index, or refused): the reservation forgets its txid.
      clearPending: p(
        "UPDATE bonding_reservations SET pending_txid = NULL, error_code = ?, error_message = ?, updated_at = ? WHERE id = ? AND status IN ('reserved', 'expired')",
      ),
      curveStatus: p("SELECT status, pool_seeded_at FROM bonding_curves WHERE tick_key = ?"),
      curvesHoldingDoge: p(
        "SELECT real_doge FROM bonding_curves WHERE tick_key <> ? AND pool_seeded_at IS NULL AND status <> 'failed'",
      ),
      activateUnsupplied: p(
        "UPDATE bonding_curves SET status = 'active', error = NULL, activated_at = ?, updated_at = ? WHERE tick_key = ? AND status = 'awaiting_supply' AND launcher IS NULL",
      ),
      reservationsIn: p("SELECT * FROM bonding_reservations WHERE tick_key = ? AND status = ? ORDER BY created_at, id"),
    };
    // The ledger counts the curves' DOGE among its obligations and keeps their ticks' pools closed.
    options.ledger.attachCurves({
      curveOf: (tickKey) => {
        const row = this.s.curveStatus.get(tickKey) as
          { status: CurveStatus; pool_seeded_at: number | null } | undefined;
        return row ? { status: row.status, poolSeeded: row.pool_seeded_at !== null } : null;
      },
      dogeHeldBesidePools: (exceptTickKey) =>
        (this.s.curvesHoldingDoge.all(exceptTickKey) as { real_doge: string }[]).reduce(
          (sum, curve) => sum + BigInt(curve.real_doge),
          0n,
        ),
    });
  }

  private now(): number {
    return this.clock();
  }

  private write<T>(fn: () => T): T {
    return this.options.db.transaction(fn).immediate();
  }

  // ------------------------------------------------------------------------------ API keys

  /** A new operator key for launches: the key is answered once, only its sha256 is stored. */
  /** The operator keys of bonding launches (BondingApiKeys over the same database). */
  readonly apiKeys: BondingApiKeys;

  issueApiKey(label: string): { id: string; key: string } {
    return this.apiKeys.issue(label);
  }

  revokeApiKey(id: string): boolean {
    return this.apiKeys.revoke(id);
  }

  /** The key id of `Authorization: Bearer <key>`; 401 otherwise. */
  authenticate(authorization: string | undefined): string {
    return this.apiKeys.authenticate(authorization);
  }

  // -------------------------------------------------------------------------------- curves

  curve(tick: string): CurveRecord | null {
    const row = this.s.curve.get(drc20TickKey(tick)) as CurveRow | undefined;
    return row ? curveOf(row) : null;
  }

  curveOr404(tick: string): CurveRecord {
    const found = this.curve(tick);
    if (!found) throw notFound("CURVE_NOT_FOUND", `no bonding curve for ${tick}`, { symbol: tick });
    return found;
  }

  curves(status: CurveStatus): CurveRecord[] {
    return (this.s.curvesIn.all(status) as CurveRow[]).map(curveOf);
  }

  /**
   * Up to `limit` curves of `status` (null: any status), newest launch first (created_at, then
   * tick key, descending), after `before` (the last curve of the previous page).
   */
  curvesPage(
    status: CurveStatus | null,
    limit: number,
    before: { createdAt: number; tickKey: string } | null,
  ): CurveRecord[] {
    const rows = this.s.curvesPage.all({
      status,
      createdAt: before?.createdAt ?? null,
      tickKey: before?.tickKey ?? null,
      limit,
    }) as CurveRow[];
    return rows.map(curveOf);
  }

  /**
   * Opens for sale a curve launched in process without a launcher (no `auth`: it takes no supply
   * deposits): the caller vouches that the custody holds its supply (benches, tests). Refused 409
   * CURVE_NOT_AWAITING_SUPPLY for any other curve.
   */
  activateUnsupplied(tick: string): CurveRecord {
    const curve = this.curveOr404(tick);
    const now = this.now();
    if (this.s.activateUnsupplied.run(now, now, curve.tickKey).changes !== 1)
      throw conflict(
        "CURVE_NOT_AWAITING_SUPPLY",
        `${curve.tick} is ${curve.status}${curve.launcher === null ? "" : ", launched by " + curve.launcher}; only a curve launched without a launcher is activated by its caller`,
        { symbol: curve.tick, status: curve.status },
      );
    return this.curve(tick)!;
  }

  /** Tokens (BUY) or tokens offered (SELL) that live reservations of `tickKey` hold, other than `except`. */
  /**
   * Tokens `side`'s live reservations of a curve hold (BUY: tokens reserved; SELL: tokens to come
   * in). The reservation path asks this on every request, so the curve row keeps both sums as
   * counters, valid until its earliest live reservation expires: a reservation adds to them, any
   * other change of a reservation (confirmed, refunded, expired) invalidates them, and they are
   * summed again from the rows when invalid. `except` leaves one reservation out (its own confirm).
   */
  private held(tickKey: string, side: BondingSide, except: string | null = null): bigint {
    const now = this.now();
    if (except === null) {
      const counters = this.s.heldCounters.get(tickKey) as
        { held_buy: string; held_sell: string; held_valid_until: number } | undefined;
      if (counters && now <= counters.held_valid_until)
        return BigInt(side === "BUY" ? counters.held_buy : counters.held_sell);
      const buy = this.sumHeld(tickKey, "BUY", now, null);
      const sell = this.sumHeld(tickKey, "SELL", now, null);
      const earliest =
        (this.s.earliestLive.get(tickKey, now) as { earliest: number | null }).earliest ?? Number.MAX_SAFE_INTEGER;
      this.s.setHeld.run(buy.toString(), sell.toString(), earliest, tickKey);
      return side === "BUY" ? buy : sell;
    }
    return this.sumHeld(tickKey, side, now, except);
  }

  private sumHeld(tickKey: string, side: BondingSide, now: number, except: string | null): bigint {
    // SQLite sums in C; a sum beyond 2^63 (a supply near DRC-20's 2^64 limit) overflows there and is summed here.
    try {
      const row = (side === "BUY" ? this.s.heldBuy : this.s.heldSell).get(tickKey, now, except ?? "") as {
        held: number | bigint | null;
      };
      return BigInt(row.held ?? 0);
    } catch (error) {
      if (!/overflow/i.test((error as Error).message)) throw error;
    }
    return (this.s.liveOfCurve.all(tickKey, side, now) as { id: string; amount_in: string; reserved_out: string }[])
      .filter((r) => r.id !== except)
      .reduce((sum, r) => sum + BigInt(side === "BUY" ? r.reserved_out : r.amount_in), 0n);
  }

  /** Live reservations' holdings of a curve: tokens held for buys, tokens expected from sells. */
  reserved(tick: string): { buyTokens: bigint; sellTokens: bigint } {
    const key = drc20TickKey(tick);
    return { buyTokens: this.held(key, "BUY"), sellTokens: this.held(key, "SELL") };
  }

  /**
   * Records a launch by the operator (`apiKeyId`) for the launcher who signed it (`request.auth`,
   * bonding-launch): the curve waits for the launcher's supply (awaiting_supply) until the supply
   * deadline. Refused: parameters that make no curve (422 INVALID_PARAMS), a total supply DRC-20
   * cannot hold (422 SUPPLY_TOO_LARGE), a service address as the launcher (422 ADDRESS_IS_SERVICE),
   * a bad, expired or used authorization (401/409, ledger.checkAuthorization), a tick already
   * deployed on chain with another max than the total supply (422 TICK_SUPPLY_MISMATCH), a tick
   * already launched here (409 CURVE_EXISTS).
   */
  launch(request: LaunchRequest, apiKeyId: string): CurveRecord {
    let state: CurveState;
    try {
      state = createCurve({
        totalSupply: request.totalSupply,
        sellableSupply: request.sellableSupply,
        virtualDoge: request.virtualDoge,
        graduationThreshold: request.graduationThreshold,
        ...(this.options.feeBps !== undefined ? { feeBps: this.options.feeBps } : {}),
      });
    } catch (error) {
      throw curveError(error);
    }
    if (request.totalSupply > DRC20_MAX_SUPPLY) {
      throw unprocessable("SUPPLY_TOO_LARGE", `a DRC-20 supply is at most ${DRC20_MAX_SUPPLY}`, {
        max: DRC20_MAX_SUPPLY.toString(),
      });
    }
    const launcher = request.auth?.address ?? null;
    if (launcher !== null) this.options.ledger.refuseServiceAddress(launcher);
    const tickKey = drc20TickKey(request.tick);
    this.write(() => {
      if (this.s.curve.get(tickKey))
        throw conflict("CURVE_EXISTS", `${request.tick} was already launched here`, { symbol: request.tick });
      const mismatch = this.supplyMismatch(tickKey, state.totalSupply);
      if (mismatch) throw mismatch;
      if (request.auth) this.options.ledger.checkAuthorization("bonding-launch", launchFields(request), request.auth);
      const now = this.now();
      this.s.insertCurve.run(
        tickKey,
        request.tick,
        newId("bnd"),
        state.totalSupply.toString(),
        state.sellableSupply.toString(),
        state.virtualDoge.toString(),
        state.graduationThreshold.toString(),
        Number(state.feeBps),
        state.virtualDoge.toString(),
        state.virtualToken.toString(),
        state.realDoge.toString(),
        state.realToken.toString(),
        state.feesCollected.toString(),
        apiKeyId,
        now,
        now,
        launcher,
        now + this.supplyDeadlineSeconds,
      );
    });
    const curve = this.curve(request.tick)!;
    this.log("bonding_launched", {
      curve: curve.id,
      tick: curve.tick,
      launcher,
      totalSupply: state.totalSupply.toString(),
      supplyDeadline: curve.supplyDeadline,
    });
    return curve;
  }

  /**
   * 422 TICK_SUPPLY_MISMATCH when the index shows the tick deployed with a max other than
   * `totalSupply` (a curve sells the tick's whole supply: a larger max could be minted and sold
   * beside it, a smaller one never fills it), else null (not deployed yet, or deployed to fit).
   */
  private supplyMismatch(tickKey: string, totalSupply: bigint): Refusal | null {
    const deployed = this.options.queries.drc20Tick(tickKey);
    if (!deployed || BigInt(deployed.maxSupply) === totalSupply) return null;
    return unprocessable(
      "TICK_SUPPLY_MISMATCH",
      `${deployed.tick} is deployed on chain with max ${deployed.maxSupply}, not the curve's total supply ${totalSupply}`,
      {
        symbol: deployed.tick,
        max_supply: deployed.maxSupply,
        total_supply: totalSupply.toString(),
        inscription_id: deployed.inscriptionId,
      },
    );
  }

  /** The exact text the launcher signs to bind `depositTxid` to curve `tick`'s supply (orders.ts bonding-supply). */
  supplyMessage(tick: string, depositTxid: string): string {
    const curve = this.curveOr404(tick);
    return orderMessage(
      this.options.ledger.domain,
      "bonding-supply",
      supplyFields(this.launcherOf(curve), depositTxid),
    );
  }

  private launcherOf(curve: CurveRecord): { tick: string; launcher: string } {
    if (curve.launcher === null)
      throw conflict("CURVE_NOT_AWAITING_SUPPLY", `${curve.tick} was launched without a launcher; it takes no supply`, {
        symbol: curve.tick,
        status: curve.status,
      });
    return { tick: curve.tick, launcher: curve.launcher };
  }

  /**
   * Binds the launcher's DRC-20 deposit `depositTxid` to curve `tick`'s supply (signed by the
   * launcher: bonding-supply), and activates the curve when the supply is complete. The same txid
   * again answers unchanged. Refused, nothing consumed: 401 INVALID_SIGNATURE (not the launcher's
   * signature), 409 CURVE_NOT_AWAITING_SUPPLY (the curve is active, graduated or failed: the deposit
   * stays the launcher's to refund through POST /deposits/refund), 409 DEPOSIT_NOT_FOUND /
   * DEPOSIT_NOT_DEEP_ENOUGH (retry), 409 DEPOSIT_ALREADY_USED, 422 DEPOSIT_NOT_FROM_ADDRESS /
   * DEPOSIT_NOT_TO_CUSTODY / DEPOSIT_FROM_SERVICE. A deposit mined after the supply deadline is
   * consumed and queued back to the launcher (422 DEPOSIT_LATE, committed).
   */
  depositSupply(
    tick: string,
    depositTxid: string,
    signature: string,
  ): { curve: CurveRecord; outcome: "credited" | "unchanged" } {
    const known = this.curveOr404(tick);
    const { launcher } = this.launcherOf(known);
    requireSignature(
      this.options.ledger.domain,
      launcher,
      signature,
      orderMessage(
        this.options.ledger.domain,
        "bonding-supply",
        supplyFields({ tick: known.tick, launcher }, depositTxid),
      ),
    );
    const result = this.write((): { curve: CurveRecord; outcome: "credited" | "unchanged" } | Refusal => {
      const curve = curveOf(this.s.curve.get(known.tickKey) as CurveRow);
      const used = this.used.usedBy(depositTxid);
      if (used && used.kind === "bonding_supply" && used.refId === curve.id) return { curve, outcome: "unchanged" };
      const now = this.now();
      // A launch past its deadline fails first (its bound supply queued back), then takes nothing more.
      if (curve.status === "awaiting_supply") this.advanceLaunch(curve.tickKey);
      const current = curveOf(this.s.curve.get(curve.tickKey) as CurveRow);
      if (current.status !== "awaiting_supply")
        throw conflict(
          "CURVE_NOT_AWAITING_SUPPLY",
          `${current.tick} is ${current.status}; the deposit is not taken (its payer may ask for it back: POST /api/deposits/refund)`,
          { symbol: current.tick, status: current.status, error: current.error },
        );
      const order: DepositOrder = {
        kind: "bonding_supply",
        id: current.id,
        address: launcher,
        asset: "DRC20",
        tick: current.tick,
        amountIn: 0n,
        expiresAt: current.supplyDeadline,
        whose: "the launch's launcher",
      };
      const bound = bindDeposit(this.options.deposits, this.used, order, depositTxid, now);
      if (bound.kind === "refused") throw bound.error;
      if (bound.kind === "pending") throw pendingError(bound, depositTxid, this.options.deposits);
      if (bound.kind === "refund") {
        const refundPayoutId = this.options.ledger.oweRefund(
          "DRC20",
          current.tick,
          launcher,
          bound.deposit.amount,
          `bonding_supply_refund:${bound.error.code}`,
          current.id,
        );
        return new Refusal(bound.error.kind, bound.error.code, bound.error.message, {
          ...bound.error.details,
          refund_payout_id: refundPayoutId,
          refund_amount: bound.deposit.amount.toString(),
        });
      }
      const supplied = current.supplyDeposited + bound.deposit.amount;
      this.s.supplyCredited.run(supplied.toString(), now, current.tickKey);
      this.log("bonding_supply_deposited", {
        curve: current.id,
        tick: current.tick,
        deposit: depositTxid,
        amount: bound.deposit.amount.toString(),
        supplyDeposited: supplied.toString(),
      });
      this.advanceLaunch(current.tickKey);
      return { curve: curveOf(this.s.curve.get(current.tickKey) as CurveRow), outcome: "credited" };
    });
    // A late deposit consumed and queued back is committed before it is answered.
    if (result instanceof Refusal) throw result;
    return result;
  }

  /**
   * Fails a launch that waits for its supply (inside a write): its reason in `error`, and the
   * supply its launcher deposited queued back to it in one DRC-20 payout.
   */
  private failLaunch(curve: CurveRecord, code: string, message: string): void {
    if (this.s.failed.run(`${code}: ${message}`, this.now(), curve.tickKey).changes !== 1) return;
    let refundPayoutId: string | null = null;
    if (curve.supplyDeposited > 0n && curve.launcher !== null) {
      refundPayoutId = this.options.ledger.oweRefund(
        "DRC20",
        curve.tick,
        curve.launcher,
        curve.supplyDeposited,
        `bonding_launch_refund:${code}`,
        curve.id,
      );
      this.s.launchRefunded.run(refundPayoutId, curve.tickKey);
    }
    this.log("bonding_launch_failed", {
      curve: curve.id,
      tick: curve.tick,
      code,
      reason: message,
      refunded: curve.supplyDeposited.toString(),
      refundPayoutId,
    });
  }

  /**
   * The daemon's pass: moves launches along (awaiting_supply -> active, or failed past the supply
   * deadline), expires reservations, and seeds the pools of graduated curves whose seed was refused
   * before. Throws only on unexpected errors (the daemon's loop catches).
   */
  async runOnce(): Promise<{ activated: number; expired: number; seeded: number; checked: number; cleared: number }> {
    let activated = 0;
    let seeded = 0;
    const expired = this.s.expire.run(this.now(), this.now()).changes;
    if (expired > 0) this.s.invalidateAllHeld.run();
    // Reservations that expired unpaid and unannounced hold nothing and owe nothing: kept a day, then dropped.
    this.s.pruneExpired.run(this.now() - EXPIRED_RESERVATION_KEEP_SECONDS);
    // Announced payments that are due a check (announcements.ts: at most the per-pass limit, most
    // overdue first): confirmed once mined and deep enough, cleared when the index has not shown
    // them by their clear time (the reservation is then pruned like any unpaid one).
    const due = this.options.ledger.announcements.due("bonding", this.now());
    let cleared = 0;
    // One transaction for the checks (each a savepoint in it), and the indexed height read once:
    // see AmmLedger.retryPending.
    const indexedHeight = due.length > 0 ? this.options.deposits.indexedHeight() : 0;
    this.write(() => {
      for (const announcement of due) {
        try {
          if (
            this.confirmAnnounced(announcement.refId, announcement.txid, { check: announcement, indexedHeight })
              .outcome === "cleared"
          )
            cleared += 1;
        } catch (error) {
          if (!(error instanceof Refusal)) throw error;
          // A refusal that consumed the payment refunded it and closed the reservation (and its
          // announcement); an announcement without its reservation is dropped.
          if (error.code === "RESERVATION_NOT_FOUND") this.options.ledger.announcements.remove(announcement.refId);
        }
      }
    });
    for (const row of this.s.curvesToAdvance.all() as CurveRow[]) {
      const curve = curveOf(row);
      if (curve.status === "graduated") {
        if (this.write(() => this.seed(curve.tickKey))) seeded += 1;
        continue;
      }
      if (this.write(() => this.advanceLaunch(curve.tickKey))) activated += 1;
    }
    return { activated, expired, seeded, checked: due.length, cleared };
  }

  /**
   * A launch waiting for its supply, one step (inside a write): failed on a tick deployed with
   * another max, or past its deadline when it is not complete (SUPPLY_NOT_DEPOSITED, or
   * SUPPLY_NOT_HELD: deposited, but not in the custody's available balance); active once the launcher's bound deposits reach the total
   * supply and the custody's available balance of the tick (the index) covers it on top of the
   * tick's DRC-20 payouts still owed. What the launcher deposited beyond the total supply is queued
   * back to it. True when it became active.
   */
  private advanceLaunch(tickKey: string): boolean {
    const curve = curveOf(this.s.curve.get(tickKey) as CurveRow);
    if (curve.status !== "awaiting_supply") return false;
    const { totalSupply } = curve.state;
    const mismatch = this.supplyMismatch(tickKey, totalSupply);
    if (mismatch) {
      this.failLaunch(curve, mismatch.code, mismatch.message);
      return false;
    }
    if (curve.supplyDeadline !== null && this.now() > curve.supplyDeadline && curve.supplyDeposited < totalSupply) {
      this.failLaunch(
        curve,
        "SUPPLY_NOT_DEPOSITED",
        `the launcher deposited ${curve.supplyDeposited} of the total supply ${totalSupply} by the deadline ${curve.supplyDeadline}`,
      );
      return false;
    }
    if (curve.launcher === null || curve.supplyDeposited < totalSupply) return false;
    if (!this.options.queries.drc20Tick(tickKey)) return false;
    const available = this.options.queries.drc20Balance(this.custodyAddress, tickKey).available;
    const owed = this.options.ledger.obligations(curve.tick).token;
    if (available < totalSupply + owed) {
      // The launcher deposited it all, but the custody does not hold it free (a deposit reorged out,
      // the balance locked): past the deadline the launch ends rather than wait for good.
      if (curve.supplyDeadline !== null && this.now() > curve.supplyDeadline)
        this.failLaunch(
          curve,
          "SUPPLY_NOT_HELD",
          `the custody's available ${available} ${curve.tick} does not cover the total supply ${totalSupply} and the ${owed} it owes, at the deadline ${curve.supplyDeadline}`,
        );
      return false;
    }
    const now = this.now();
    if (this.s.activated.run(now, now, tickKey).changes !== 1) return false;
    const excess = curve.supplyDeposited - totalSupply;
    if (excess > 0n)
      this.options.ledger.oweRefund("DRC20", curve.tick, curve.launcher, excess, "bonding_supply_excess", curve.id);
    this.log("bonding_active", { curve: curve.id, tick: curve.tick, excess: excess.toString() });
    return true;
  }

  // -------------------------------------------------------------------------------- quotes

  private activeCurve(tick: string): CurveRecord {
    const curve = this.curveOr404(tick);
    if (curve.status === "graduated")
      throw conflict("CURVE_GRADUATED", `${curve.tick} has graduated: trade it in its AMM pool`, {
        symbol: curve.tick,
      });
    if (curve.status !== "active")
      throw conflict("CURVE_NOT_ACTIVE", `${curve.tick} is ${curve.status}`, {
        symbol: curve.tick,
        status: curve.status,
      });
    return curve;
  }

  /** Prices a trade on the curve as it is (BUY: amountIn koinu or amountOut tokens; SELL: amountIn tokens or amountOut koinu). */
  quote(request: { tick: string; side: BondingSide; amountIn?: bigint; amountOut?: bigint }): BondingQuote {
    const curve = this.activeCurve(request.tick);
    return { tick: curve.tick, side: request.side, ...this.price(curve.state, request) };
  }

  private price(
    state: CurveState,
    request: { side: BondingSide; amountIn?: bigint; amountOut?: bigint },
  ): Omit<BondingQuote, "tick" | "side"> {
    try {
      if (request.side === "BUY") {
        const q =
          request.amountIn !== undefined
            ? quoteBuy(state, request.amountIn)
            : quoteBuyExactOut(state, request.amountOut!);
        return { amountIn: q.dogeInKoinu, amountOut: q.tokensOut, feeKoinu: q.feeKoinu, refundKoinu: q.refundKoinu };
      }
      const q =
        request.amountIn !== undefined
          ? quoteSell(state, request.amountIn)
          : quoteSellExactOut(state, request.amountOut!);
      return { amountIn: q.tokensIn, amountOut: q.dogeOutKoinu, feeKoinu: q.feeKoinu, refundKoinu: 0n };
    } catch (error) {
      throw curveError(error);
    }
  }

  // -------------------------------------------------------------------------- reservations

  /**
   * Holds an allocation for an exact deposit from `address`, priced on the curve now. Refused:
   * 409 TOO_MANY_RESERVATIONS (the address's cap), 409 RESERVATION_CAP_REACHED (live reservations
   * would hold more than the curve has), 422 AMOUNT_TOO_SMALL (the DOGE side below 0.01 DOGE), and
   * the curve's own refusals.
   */
  reserve(request: {
    tick: string;
    side: BondingSide;
    address: string;
    amountIn: bigint;
    minAmountOut?: bigint;
    auth: Authorization;
  }): ReservationRecord {
    this.options.ledger.refuseServiceAddress(request.address);
    if (request.auth.address !== request.address)
      throw new Refusal("unauthorized", "INVALID_SIGNATURE", "the reservation's address must sign it", {
        address: request.address,
      });
    return this.write(() => {
      const curve = this.activeCurve(request.tick);
      this.options.ledger.checkAuthorization(
        "bonding-reserve",
        reserveFields({ ...request, tick: curve.tick }),
        request.auth,
      );
      const now = this.now();
      const live = (this.s.liveOfAddress.get(request.address, now) as { n: number }).n;
      if (live >= this.maxReservationsPerAddress) {
        throw conflict(
          "TOO_MANY_RESERVATIONS",
          `${request.address} already holds ${live} live reservations (at most ${this.maxReservationsPerAddress})`,
          {
            address: request.address,
            live,
            max: this.maxReservationsPerAddress,
          },
        );
      }
      const tooSmall = (doge: bigint) =>
        unprocessable(
          "AMOUNT_TOO_SMALL",
          `the DOGE side must be at least ${MIN_DOGE_KOINU} koinu (payouts below it are dust)`,
          {
            min_koinu: MIN_DOGE_KOINU.toString(),
            doge_koinu: doge.toString(),
          },
        );
      const { state } = curve;
      let amountIn: bigint;
      let reservedOut: bigint;
      let fee: bigint;
      if (request.side === "BUY") {
        if (request.amountIn < MIN_DOGE_KOINU) throw tooSmall(request.amountIn);
        const q = this.price(state, { side: "BUY", amountIn: request.amountIn });
        const held = this.held(curve.tickKey, "BUY");
        if (held + q.amountOut > state.realToken) {
          throw conflict(
            "RESERVATION_CAP_REACHED",
            `${q.amountOut} tokens asked; ${state.realToken - held} of the curve's ${state.realToken} are not held by live reservations`,
            {
              symbol: curve.tick,
              tokens: q.amountOut.toString(),
              real_token: state.realToken.toString(),
              held: held.toString(),
            },
          );
        }
        // A buy that takes the last tokens costs less than offered: the exact deposit is its cost.
        ({ amountIn, amountOut: reservedOut, feeKoinu: fee } = q);
      } else {
        const q = this.price(state, { side: "SELL", amountIn: request.amountIn });
        if (!payoutAboveDust(q.amountOut, this.options.ledger.payoutCosts.dogeKoinu)) throw tooSmall(q.amountOut);
        const held = this.held(curve.tickKey, "SELL");
        const sold = tokensSold(state);
        if (held + request.amountIn > sold) {
          throw conflict(
            "RESERVATION_CAP_REACHED",
            `${request.amountIn} tokens offered; the curve sold ${sold}, ${held} of them are held by live sell reservations`,
            {
              symbol: curve.tick,
              tokens: request.amountIn.toString(),
              tokens_sold: sold.toString(),
              held: held.toString(),
            },
          );
        }
        ({ amountIn, amountOut: reservedOut, feeKoinu: fee } = q);
      }
      if (request.minAmountOut !== undefined && reservedOut < request.minAmountOut) {
        throw unprocessable(
          "MIN_OUT_NOT_MET",
          `the curve gives ${reservedOut} now, below minAmountOut ${request.minAmountOut}`,
          {
            amount_out: reservedOut.toString(),
            min_amount_out: request.minAmountOut.toString(),
          },
        );
      }
      this.refuseOverShare(curve, request.address, request.side, request.side === "BUY" ? reservedOut : amountIn, now);
      const id = newId("rsv");
      // A buy's DRC-20 payout is paid for on top of its deposit; a sell's DOGE payout pays for itself.
      const payoutCost = request.side === "BUY" ? this.options.ledger.payoutCosts.drc20Koinu : 0n;
      this.s.insertReservation.run(
        id,
        curve.tickKey,
        request.side,
        request.address,
        amountIn.toString(),
        reservedOut.toString(),
        fee.toString(),
        payoutCost.toString(),
        now,
        now + this.reservationSeconds,
        now,
      );
      // held() just made the counters valid; this reservation adds to its side's.
      const buy = this.held(curve.tickKey, "BUY") + (request.side === "BUY" ? reservedOut : 0n);
      const sell = this.held(curve.tickKey, "SELL") + (request.side === "SELL" ? amountIn : 0n);
      this.s.addHeld.run(buy.toString(), sell.toString(), now + this.reservationSeconds, curve.tickKey);
      return this.reservation(id)!;
    });
  }

  /**
   * 409 RESERVATION_SHARE_EXCEEDED when `address` would hold more than its share of the curve in
   * live reservations of `side`: of the remaining tokens for buys, of the sold tokens for sells. The
   * last slice of a curve (remaining at most the share of its sellable supply) may be reserved whole.
   */
  private refuseOverShare(curve: CurveRecord, address: string, side: BondingSide, tokens: bigint, now: number): void {
    const mine = (
      this.s.liveOfAddressOnCurve.all(address, curve.tickKey, now) as {
        side: BondingSide;
        amount_in: string;
        reserved_out: string;
      }[]
    )
      .filter((r) => r.side === side)
      .reduce((sum, r) => sum + BigInt(side === "BUY" ? r.reserved_out : r.amount_in), 0n);
    const base = side === "BUY" ? curve.state.realToken : tokensSold(curve.state);
    const lastSlice = side === "BUY" && base * 10_000n <= curve.state.sellableSupply * this.maxReservationShareBps;
    const cap = lastSlice ? base : (base * this.maxReservationShareBps) / 10_000n;
    if (mine + tokens > cap) {
      throw conflict(
        "RESERVATION_SHARE_EXCEEDED",
        `${address} would hold ${mine + tokens} tokens of ${curve.tick} in live reservations; one address may hold at most ${cap}`,
        {
          address,
          symbol: curve.tick,
          held: mine.toString(),
          asked: tokens.toString(),
          cap: cap.toString(),
          share_bps: Number(this.maxReservationShareBps),
        },
      );
    }
  }

  /** The reservations of curve `tick` whose row has `status` (operators, benches), oldest first. */
  reservations(tick: string, status: ReservationStatus): ReservationRecord[] {
    return (this.s.reservationsIn.all(drc20TickKey(tick), status) as ReservationRow[]).map((r) =>
      this.reservationOf(r)!,
    );
  }

  reservation(id: string): ReservationRecord | null {
    return this.reservationOf(this.s.reservation.get(id) as ReservationRow | undefined);
  }

  private reservationOf(r: ReservationRow | undefined): ReservationRecord | null {
    if (!r) return null;
    const tick = (this.s.curve.get(r.tick_key) as CurveRow).tick;
    // Expired once past its expiry even before a pass marks it.
    const status = r.status === "reserved" && r.expires_at < this.now() ? "expired" : r.status;
    return {
      id: r.id,
      tick,
      side: r.side,
      address: r.address,
      amountIn: BigInt(r.amount_in),
      payoutCost: BigInt(r.payout_cost),
      reservedOut: BigInt(r.reserved_out),
      feeKoinu: BigInt(r.fee),
      status,
      depositTxid: r.deposit_txid,
      pendingTxid: r.pending_txid,
      depositAmount: big(r.deposit_amount),
      amountOut: big(r.amount_out),
      payoutId: r.payout_id,
      refundPayoutId: r.refund_payout_id,
      error: r.error_code ? { code: r.error_code, message: r.error_message ?? "" } : null,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      updatedAt: r.updated_at,
    };
  }

  /**
   * Confirms reservation `id` with the deposit `depositTxid`, atomically: consumes the deposit,
   * trades on the curve, queues the payouts, and graduates the curve when the trade makes it
   * ready. The same reservation and txid again answer it unchanged. Refusals that change nothing
   * throw (the deposit not indexed yet: 409 DEPOSIT_NOT_FOUND; not to the custody, not from the
   * reservation's address: 422); refusals that consumed and refunded the deposit are committed,
   * then thrown (422 DEPOSIT_LATE, DEPOSIT_TOO_SMALL, SOLD_OUT, CURVE_GRADUATED, ...). A payment the
   * index does not show deep enough yet is announced (announcements.ts: 429 TOO_MANY_PENDING past
   * the caps of the reservation's address and of `client`, the HTTP client's key; null: no client cap).
   */
  confirm(
    id: string,
    depositTxid: string,
    signature: string,
    client: string | null = null,
  ): { reservation: ReservationRecord; outcome: "confirmed" | "unchanged" | "pending"; graduated: boolean } {
    const reservation = this.reservation(id);
    if (!reservation) throw notFound("RESERVATION_NOT_FOUND", `no reservation ${id}`, { reservation_id: id });
    requireSignature(
      this.options.ledger.domain,
      reservation.address,
      signature,
      orderMessage(this.options.ledger.domain, "bonding-confirm", confirmFields(reservation, depositTxid)),
    );
    const answered = this.confirmAnnounced(id, depositTxid, { client });
    if (answered.outcome === "cleared") throw new Error("only the bonding pass clears an announcement");
    return { ...answered, outcome: answered.outcome };
  }

  /** The exact text the reservation's address signs to pay reservation `id` with `depositTxid` (orders.ts bonding-confirm). */
  confirmMessage(id: string, depositTxid: string): string {
    const reservation = this.reservation(id);
    if (!reservation) throw notFound("RESERVATION_NOT_FOUND", `no reservation ${id}`, { reservation_id: id });
    return orderMessage(this.options.ledger.domain, "bonding-confirm", confirmFields(reservation, depositTxid));
  }

  /**
   * Confirms a reservation with a payment its payer announced with a valid signature: over HTTP
   * (`{client}`, confirm), or the bonding pass's check of a due announcement (`{check}`), which
   * backs the announcement off while it is pending, and clears it ("cleared") when the index has
   * not shown the txid by its clear time or refuses it for this reservation.
   */
  private confirmAnnounced(
    id: string,
    depositTxid: string,
    via: CustodyVia,
  ): {
    reservation: ReservationRecord;
    outcome: "confirmed" | "unchanged" | "pending" | "cleared";
    graduated: boolean;
  } {
    type Answer = {
      reservation: ReservationRecord;
      outcome: "confirmed" | "unchanged" | "pending" | "cleared";
      graduated: boolean;
    };
    const result = this.write((): Answer | Refusal => {
      const row = this.s.reservation.get(id) as ReservationRow | undefined;
      if (!row) throw notFound("RESERVATION_NOT_FOUND", `no reservation ${id}`, { reservation_id: id });
      const now = this.now();
      const settled = this.options.ledger.custody.settle(this.reservationOrder(row, now), depositTxid, via, now);
      if (settled instanceof Refusal) return settled;
      if (settled.outcome !== "filled")
        return { reservation: this.reservation(id)!, outcome: settled.outcome, graduated: false };
      const { next, tickKey } = settled.applied;
      const graduated = row.side === "BUY" && readyToGraduate(next) && this.graduate(tickKey, id);
      return { reservation: this.reservation(id)!, outcome: "confirmed", graduated };
    });
    // Refusals that consumed (and refunded) the deposit are committed before they are answered.
    if (result instanceof Refusal) throw result;
    return result;
  }

  /** A reservation as the custody procedure sees it (custody.ts): its deposit, its trade on the curve, its row's updates. */
  private reservationOrder(row: ReservationRow, now: number): CustodyOrder<{ next: CurveState; tickKey: string }> {
    const id = row.id;
    const curve = curveOf(this.s.curve.get(row.tick_key) as CurveRow);
    const isBuy = row.side === "BUY";
    const payoutCost = BigInt(row.payout_cost);
    const amountIn = BigInt(row.amount_in);
    const { dogeKoinu } = this.options.ledger.payoutCosts;
    const closed = row.status === "confirmed" || row.status === "refunded";
    return {
      kind: "bonding",
      deposit: {
        kind: isBuy ? "bonding_buy" : "bonding_sell",
        id,
        address: row.address,
        asset: isBuy ? "DOGE" : "DRC20",
        tick: curve.tick,
        amountIn: amountIn + payoutCost,
        expiresAt: row.expires_at,
        whose: "the reservation's address",
      },
      payoutCost,
      closedStatus: closed ? row.status : null,
      closedWith: row.deposit_txid,
      expired: row.status === "expired" || row.expires_at < now,
      words: {
        order: "reservation",
        deposit: "payment",
        idField: "reservation_id",
        closedCode: "RESERVATION_CLOSED",
        reason: "bonding",
      },
      markAnnounced: (txid, at) => {
        this.s.setPending.run(txid, at, id);
      },
      markUnannounced: (code, message, at) => {
        this.s.clearPending.run(code, message, at, id);
      },
      close: (status, fields, at) => {
        this.s.closeReservation.run(
          status === "filled" ? "confirmed" : "refunded",
          fields.depositTxid,
          fields.depositAmount.toString(),
          fields.amountOut?.toString() ?? null,
          fields.payoutId ?? null,
          fields.refundPayoutId ?? null,
          fields.error?.code ?? null,
          fields.error?.message ?? null,
          at,
          id,
        );
        this.s.invalidateHeld.run(row.tick_key);
        if (status === "filled")
          this.log("bonding_confirmed", {
            reservation: id,
            tick: curve.tick,
            side: row.side,
            amountIn: (fields.paid ?? 0n).toString(),
            amountOut: (fields.amountOut ?? 0n).toString(),
          });
      },
      refunded: (error, refundAmount) => {
        this.log("bonding_refunded", {
          reservation: id,
          tick: curve.tick,
          code: error.code,
          amount: refundAmount.toString(),
        });
      },
      trade: (): CustodyTrade<{ next: CurveState; tickKey: string }> => {
        if (curve.status !== "active") {
          const code = curve.status === "graduated" ? (isBuy ? "SOLD_OUT" : "CURVE_GRADUATED") : "CURVE_NOT_ACTIVE";
          return {
            refused: unprocessable(code, `${curve.tick}'s curve is ${curve.status}; the deposit is refunded`, {
              symbol: curve.tick,
              status: curve.status,
            }),
          };
        }
        let next: CurveState;
        let paid: bigint;
        let amountOut: bigint;
        if (isBuy) {
          // Tokens other live reservations hold are not for sale to this one.
          const available = curve.state.realToken - this.held(curve.tickKey, "BUY", id);
          let traded;
          try {
            traded = buy(curve.state, amountIn);
            if (traded.quote.tokensOut > available) {
              if (available <= 0n) throw new BondingError("SOLD_OUT", "every token left is held by other reservations");
              traded = buyExactOut(curve.state, available);
              if (traded.quote.tokensOut > available)
                throw new BondingError("SOLD_OUT", `only ${available} tokens are not held by other reservations`);
            }
          } catch (error) {
            if (!(error instanceof BondingError)) throw error;
            const code = error.code === "OUTPUT_ZERO" ? "OUTPUT_ZERO" : "SOLD_OUT";
            return {
              refused: unprocessable(
                code,
                `the curve cannot fill the buy now (${error.code}); the deposit is refunded`,
                { reason: error.code },
              ),
            };
          }
          next = traded.state;
          paid = traded.quote.dogeInKoinu;
          amountOut = traded.quote.tokensOut;
        } else {
          const available = tokensSold(curve.state) - this.held(curve.tickKey, "SELL", id);
          let traded;
          try {
            if (amountIn > available)
              throw new BondingError(
                "INSUFFICIENT_LIQUIDITY",
                `only ${available} sold tokens are not held by other sell reservations`,
              );
            traded = sell(curve.state, amountIn);
          } catch (error) {
            if (!(error instanceof BondingError)) throw error;
            return {
              refused: unprocessable(
                error.code,
                `the curve cannot fill the sell now (${error.code}); the deposit is refunded`,
                { reason: error.code },
              ),
            };
          }
          next = traded.state;
          paid = amountIn;
          amountOut = traded.quote.dogeOutKoinu;
        }
        // The reservation's promise: at least what it reserved, or the whole deposit back.
        const promised = BigInt(row.reserved_out);
        if (amountOut < promised) {
          return {
            refused: unprocessable(
              "RESERVATION_NOT_HONOURED",
              `the curve would pay ${amountOut} now, below the ${promised} reserved; the deposit is refunded`,
              { amount_out: amountOut.toString(), reserved_out: promised.toString() },
            ),
          };
        }
        return {
          paid,
          amountOut,
          // A sell's DOGE payout pays at least what was reserved, less its own cost.
          minimumNet: isBuy ? 0n : promised - dogeKoinu,
          reason: isBuy ? "bonding_buy" : "bonding_sell",
          apply: () => {
            this.s.saveState.run(
              next.virtualDoge.toString(),
              next.virtualToken.toString(),
              next.realDoge.toString(),
              next.realToken.toString(),
              next.feesCollected.toString(),
              now,
              curve.tickKey,
            );
            return { next, tickKey: curve.tickKey };
          },
        };
      },
    };
  }

  // ---------------------------------------------------------------------------- graduation

  /**
   * Marks the curve graduated by reservation `reservationId`'s confirmed buy and seeds its pool
   * (inside the caller's transaction).
   */
  private graduate(tickKey: string, reservationId: string): boolean {
    const curve = curveOf(this.s.curve.get(tickKey) as CurveRow);
    const graduation = graduate(curve.state);
    const now = this.now();
    if (
      this.s.graduated.run(
        graduation.poolDoge.toString(),
        graduation.poolToken.toString(),
        now,
        reservationId,
        now,
        tickKey,
      ).changes !== 1
    )
      return false;
    this.log("bonding_graduated", {
      curve: curve.id,
      tick: curve.tick,
      reservation: reservationId,
      poolDoge: graduation.poolDoge.toString(),
      poolToken: graduation.poolToken.toString(),
    });
    this.seed(tickKey);
    return true;
  }

  /**
   * Seeds a graduated curve's pool with what graduation handed it, once: a seed ledger row of the
   * curve's id means it is done. A refusal is kept in `error` for the next pass. Inside a write.
   */
  private seed(tickKey: string): boolean {
    const curve = curveOf(this.s.curve.get(tickKey) as CurveRow);
    if (curve.status !== "graduated" || curve.poolSeededAt !== null) return false;
    const now = this.now();
    if (this.options.ledger.hasSeed(curve.tick, curve.id)) {
      this.s.seeded.run(now, now, tickKey);
      return true;
    }
    try {
      this.options.ledger.seedPool({
        tick: curve.tick,
        doge: curve.poolDoge!,
        token: curve.poolToken!,
        provider: graduatedProvider(curve.tick),
        refId: curve.id,
        holdings: this.holdings(curve),
      });
    } catch (error) {
      // seedPool ran in a savepoint of this transaction: its refusal rolled back only itself.
      if (!(error instanceof Refusal)) throw error;
      this.s.curveError.run(`${error.code}: ${error.message}`, now, tickKey);
      this.log("bonding_seed_refused", { curve: curve.id, tick: curve.tick, code: error.code, message: error.message });
      return false;
    }
    this.s.seeded.run(now, now, tickKey);
    this.log("bonding_pool_seeded", { curve: curve.id, tick: curve.tick });
    return true;
  }

  /**
   * What the custody holds for seedPool's check, as the index shows it: the DOGE it can spend with
   * its own key (DepositReader.spendableKoinu: not the address's balance, which counts inscribed and
   * bare P2PK outputs; seedPool takes off the pools, the other curves and the queued payouts:
   * AmmLedger.obligations) and its whole balance of the tick (available and transferable: seedPool
   * counts payouts still being inscribed as owed).
   */
  private holdings(curve: CurveRecord): { doge: bigint; token: bigint } {
    const balance = this.options.queries.drc20Balance(this.custodyAddress, curve.tickKey);
    return {
      doge: this.options.deposits.spendableKoinu(),
      token: balance.available + balance.transferable,
    };
  }

  /** A curve's progress (basis points of its threshold) and price (koinu per token scaled by 10^8). */
  static progress(state: CurveState): { progressBps: number; priceKoinuPerToken: string } {
    return { progressBps: progressBps(state), priceKoinuPerToken: priceString(state.virtualDoge, state.virtualToken) };
  }
}
