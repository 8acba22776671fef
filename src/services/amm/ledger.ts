/**
 * The AMM's ledger (issue 9): pools, quotes, swaps, liquidity and fee claims over SQLite, with the
 * math of src/amm. Every change that moves value runs in one IMMEDIATE transaction: the deposit is
 * read from the index and consumed (its txid once, ever), the pool and positions are updated, a
 * ledger row records the change in order, and the payouts it owes are queued for the settlement
 * worker; a crash leaves all of it or none of it.
 *
 * Deposits are bound to their payer's own orders (deposits.ts, orders.ts): a swap's deposit must be
 * paid by the swap's address, which signs the swap's terms with the deposit's txid, and it counts
 * only once it is deep enough. A deposit that arrived but cannot be used as asked (too small, too
 * late, the minimum out not met) is consumed and refunded on chain in full.
 *
 * Quotes are stateless: a quote's id carries its terms under an HMAC of this ledger's key, so a
 * quote (the hot read) writes nothing; a swap made from it keeps its own copy.
 */
import crypto from "node:crypto";
import type { Sqlite } from "../../db/sqlite";
import type { DogeNetwork } from "../../doge";
import { drc20TickKey } from "../../inscription/drc20";
import {
  AmmMathError,
  Direction,
  MAX_AMOUNT,
  Pool,
  Position,
  addLiquidity,
  auditFees,
  claimFees,
  claimableFees,
  depth,
  emptyPosition,
  minAmountOut,
  priceImpactBps,
  quoteExactIn,
  quoteExactOut,
  removeLiquidity,
  swapExactIn,
} from "../../amm";
import { Refusal, badRequest, conflict, notFound, unprocessable } from "../../errors";
import { DepositOrder, DepositReader, UsedDeposits, consumeDeposit, inspectDeposit, pendingError } from "./deposits";
import { Announcement, AnnouncementLimits, DepositAnnouncements } from "./announcements";
import { Authorization, OrderDomain, authorizationMessage, orderMessage, requireSignature } from "./orders";
import { Payout, PayoutAsset, readPayout, readPayoutsOf, unsentPayoutTotals } from "./settlement";
import { Custody, CustodyOrder, CustodyVia, MIN_DOGE_KOINU, PayoutCosts, payoutAboveDust } from "./custody";

export const DEFAULT_SLIPPAGE_BPS = 50;
export { MIN_DOGE_KOINU };
export type { PayoutCosts };
/** How long a quote may be turned into a swap. */
export const DEFAULT_QUOTE_SECONDS = 60;
/** How long a swap waits for its deposit to be mined (the deposit's block time must not be later). */
export const DEFAULT_SWAP_SECONDS = 600;
/** An announced deposit the index has not shown this long after its announcement or its order's expiry is cleared (announcements.ts). */
export { DEPOSIT_GRACE_SECONDS } from "./announcements";
/** Longest validity of a wallet-signed authorization. */
export const MAX_AUTHORIZATION_SECONDS = 3_600;

export type SwapStatus = "created" | "deposit_seen" | "executed" | "settled" | "refunded" | "expired" | "failed";
export type { PayoutAsset };

export interface PoolRecord {
  tick: string;
  tickKey: string;
  status: string;
  pool: Pool;
  createdAt: number;
  updatedAt: number;
}

export interface QuoteRecord {
  id: string;
  tick: string;
  direction: Direction;
  amountIn: bigint;
  amountOut: bigint;
  fee: bigint;
  slippageBps: number;
  minAmountOut: bigint;
  priceImpactBps: number;
  createdAt: number;
  expiresAt: number;
}

/** One executed swap of a pool as its ledger entry records it (amounts before the payout's cost; reserves after). */
export interface PoolSwapRecord {
  ledgerSeq: number;
  swapId: string;
  address: string;
  direction: Direction;
  amountIn: bigint;
  amountOut: bigint;
  fee: bigint;
  dogeReserve: bigint;
  tokenReserve: bigint;
  at: number;
  depositTxid: string | null;
  status: string | null;
}

export interface SwapRecord {
  id: string;
  quoteId: string;
  tick: string;
  direction: Direction;
  address: string;
  amountIn: bigint;
  quotedOut: bigint;
  minAmountOut: bigint;
  depositAddress: string;
  /** DOGE the deposit carries on top of `amountIn` for the DRC-20 payout's cost (DOGE_TO_TOKEN; 0 otherwise). */
  payoutCost: bigint;
  status: SwapStatus;
  depositTxid: string | null;
  depositAmount: bigint | null;
  amountOut: bigint | null;
  fee: bigint | null;
  ledgerSeq: number | null;
  payoutId: string | null;
  refundPayoutId: string | null;
  error: { code: string; message: string } | null;
  createdAt: number;
  expiresAt: number;
  updatedAt: number;
}

/** A payout as the ledger answers it (settlement.ts owns the table's life cycle). */
export type PayoutRecord = Payout;
export type { Authorization };

/**
 * The limits of pending announcements (announcements.ts), swaps' and bonding confirms' together:
 * `maxPendingPerAddress` (3), `maxPendingPerClient` (20), `pendingChecksPerPass` (50 of each kind).
 */
export interface AmmLedgerOptions extends AnnouncementLimits {
  db: Sqlite;
  network: DogeNetwork;
  deposits: DepositReader;
  /** Unix seconds (default: the system clock). */
  clock?: () => number;
  quoteSeconds?: number;
  swapSeconds?: number;
  /** Swap fee of new pools (default 100 bps). */
  feeBps?: bigint;
  /** Whether a tick is deployed on chain (new pools only for deployed ticks). */
  tickDeployed: (tick: string) => string | null;
  /** Key of the quotes' HMAC (default: 32 random bytes per process; quotes live a minute). */
  quoteKey?: Uint8Array;
  /** The operator's cost of each payout, charged to the order that owes it (default: none). */
  payoutCosts?: PayoutCosts;
}

export const NO_PAYOUT_COSTS: PayoutCosts = { dogeKoinu: 0n, drc20Koinu: 0n };
/**
 * The daemon's default costs: a DOGE payout's network fee, 0.01 DOGE (one kilobyte at Core's
 * recommended 0.01 DOGE/kB, wallet/fees.ts RECOMMENDED_FEE_RATE: a payout with up to six inputs);
 * a DRC-20 payout's, 0.1 DOGE (the transfer inscription's commit and reveal fees, its postage,
 * which goes to the user with the carrier, and the carrier's send). Measured on the devnet at
 * 0.01 DOGE/kB with 0.01 DOGE of postage (test/adversarial/amm-costs.test.ts, AMM_COSTS_PRINT=1):
 * two DOGE payouts and one DRC-20 payout cost the custody 1,597,000 koinu and the inscriber
 * 1,513,000, against 12,000,000 charged; the margin is for higher fee rates and fee bumps.
 */
export const DEFAULT_PAYOUT_COSTS: PayoutCosts = { dogeKoinu: 1_000_000n, drc20Koinu: 10_000_000n };

/**
 * What the ledger asks of the bonding curves sharing its custody (the bonding store, which owns
 * their table, attaches itself: AmmLedger.attachCurves).
 */
export interface CurvesBesidePools {
  /**
   * The curve of `tickKey` (its status, and whether graduation's seed is in its pool yet), or null
   * when the tick was never launched on a curve.
   */
  curveOf(tickKey: string): { status: string; poolSeeded: boolean } | null;
  /** The DOGE curves not yet in a pool hold, except the curve of `exceptTickKey` (what its graduation seeds from). */
  dogeHeldBesidePools(exceptTickKey: string): bigint;
}

/** How long an expired swap that never got a deposit is kept (then pruned). */
export const EXPIRED_SWAP_KEEP_SECONDS = 86_400;

const newId = (prefix: string) => `${prefix}_${crypto.randomBytes(12).toString("hex")}`;
const big = (text: string | null): bigint | null => (text === null ? null : BigInt(text));

interface PoolRow {
  tick_key: string;
  tick: string;
  status: string;
  doge_reserve: string;
  token_reserve: string;
  lp_supply: string;
  fee_bps: number;
  acc_fee_per_share: string;
  acc_remainder: string;
  fees_credited: string;
  fees_claimed: string;
  fee_dust: string;
  created_at: number;
  updated_at: number;
}
interface PositionRow {
  tick_key: string;
  address: string;
  shares: string;
  fee_debt: string;
  unclaimed: string;
  unclaimed_fraction: string;
}
interface SwapRow {
  id: string;
  quote_id: string;
  tick_key: string;
  direction: Direction;
  address: string;
  amount_in: string;
  quoted_out: string;
  min_amount_out: string;
  deposit_address: string;
  payout_cost: string;
  status: SwapStatus;
  deposit_txid: string | null;
  deposit_amount: string | null;
  amount_out: string | null;
  fee: string | null;
  ledger_seq: number | null;
  payout_id: string | null;
  refund_payout_id: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: number;
  expires_at: number;
  updated_at: number;
}

const poolOf = (r: PoolRow): Pool => ({
  dogeReserve: BigInt(r.doge_reserve),
  tokenReserve: BigInt(r.token_reserve),
  lpSupply: BigInt(r.lp_supply),
  feeBps: BigInt(r.fee_bps),
  accFeePerShare: BigInt(r.acc_fee_per_share),
  accRemainder: BigInt(r.acc_remainder),
  feesCredited: BigInt(r.fees_credited),
  feesClaimed: BigInt(r.fees_claimed),
  feeDust: BigInt(r.fee_dust),
});
const positionOf = (r: PositionRow | undefined): Position =>
  r
    ? {
        shares: BigInt(r.shares),
        feeDebt: BigInt(r.fee_debt),
        unclaimed: BigInt(r.unclaimed),
        unclaimedFraction: BigInt(r.unclaimed_fraction),
      }
    : emptyPosition();

/** koinu / tokens as a decimal string with up to 8 fraction digits, rounded down: every price the AMM answers. */
export function priceString(koinu: bigint, tokens: bigint): string {
  const scaled = (koinu * 100_000_000n) / tokens;
  const fraction = (scaled % 100_000_000n).toString().padStart(8, "0").replace(/0+$/, "");
  return fraction ? `${scaled / 100_000_000n}.${fraction}` : (scaled / 100_000_000n).toString();
}

/** A decimal string of base units in [1, 2^128 - 1]; each way to miss it has its own code. */
export function parseAmount(value: unknown, field: string): bigint {
  if (typeof value === "number" && Number.isSafeInteger(value)) value = String(value);
  if (typeof value !== "string" || value.length === 0)
    throw badRequest("INVALID_AMOUNT", `${field} must be a decimal string of base units`, { field });
  if (/^-/.test(value)) throw badRequest("AMOUNT_NEGATIVE", `${field} must be positive`, { field, value });
  if (!/^[0-9]+$/.test(value))
    throw badRequest("AMOUNT_NOT_INTEGER", `${field} must be a whole number of base units (digits only)`, {
      field,
      value,
    });
  if (value.length > 40)
    throw badRequest("AMOUNT_TOO_LARGE", `${field} is above 2^128 - 1`, { field, max: MAX_AMOUNT.toString() });
  const amount = BigInt(value);
  if (amount === 0n) throw badRequest("AMOUNT_ZERO", `${field} must be at least 1`, { field });
  if (amount > MAX_AMOUNT)
    throw badRequest("AMOUNT_TOO_LARGE", `${field} is above 2^128 - 1`, { field, max: MAX_AMOUNT.toString() });
  return amount;
}

/** The fields of a swap's execute-swap message, in order (orders.ts). */
export function executeSwapFields(
  swap: Pick<SwapRecord, "id" | "tick" | "direction" | "amountIn" | "minAmountOut" | "expiresAt" | "address">,
  depositTxid: string,
): Record<string, string> {
  return {
    swap: swap.id,
    tick: swap.tick,
    direction: swap.direction,
    "amount in": swap.amountIn.toString(),
    "min amount out": swap.minAmountOut.toString(),
    expires: String(swap.expiresAt),
    address: swap.address,
    deposit: depositTxid,
  };
}

/** The fields of an add-liquidity message, in order (orders.ts). */
export function addLiquidityFields(request: {
  tick: string;
  address: string;
  dogeTxid: string;
  tokenTxid: string;
  minShares?: bigint;
}): Record<string, string> {
  return {
    tick: request.tick,
    address: request.address,
    "doge deposit": request.dogeTxid,
    "token deposit": request.tokenTxid,
    "min shares": request.minShares === undefined ? "0" : request.minShares.toString(),
  };
}

/** Math refusals as HTTP answers (422: well formed, but the pool cannot do it). */
function mathError(error: unknown): never {
  if (error instanceof AmmMathError) {
    const details = Object.fromEntries(
      Object.entries(error.details ?? {}).map(([k, v]) => [k, typeof v === "bigint" ? v.toString() : v]),
    );
    throw unprocessable(error.code, error.message, details);
  }
  throw error;
}

export class AmmLedger {
  readonly custodyAddress: string;
  /** The deployment every signed message names. */
  readonly domain: OrderDomain;
  /** The operator's cost of each payout, charged to the orders. */
  readonly payoutCosts: PayoutCosts;
  private readonly quoteKey: Uint8Array;
  private readonly clock: () => number;
  private readonly quoteSeconds: number;
  private readonly swapSeconds: number;
  private readonly s;
  private readonly poolCache = new Map<string, PoolRecord>();
  private readonly used: UsedDeposits;
  /** Deposits announced before the index showed them, of swaps and (through the bonding store) of reservations. */
  readonly announcements: DepositAnnouncements;
  /** The custody procedure (custody.ts): swaps' executes and, through the bonding store, reservations' confirms. */
  readonly custody: Custody;
  /** The bonding curves sharing the custody, once a bonding store attached them. */
  private curves: CurvesBesidePools | null = null;

  constructor(private readonly options: AmmLedgerOptions) {
    this.custodyAddress = options.deposits.custodyAddress;
    this.domain = { network: options.network, custodyAddress: this.custodyAddress };
    this.quoteKey = options.quoteKey ?? crypto.randomBytes(32);
    this.payoutCosts = options.payoutCosts ?? NO_PAYOUT_COSTS;
    this.clock = options.clock ?? (() => Math.floor(Date.now() / 1000));
    this.quoteSeconds = options.quoteSeconds ?? DEFAULT_QUOTE_SECONDS;
    this.swapSeconds = options.swapSeconds ?? DEFAULT_SWAP_SECONDS;
    this.used = new UsedDeposits(options.db);
    this.announcements = new DepositAnnouncements(options.db, options);
    this.custody = new Custody({
      db: options.db,
      clock: this.clock,
      payoutCosts: this.payoutCosts,
      deposits: options.deposits,
      used: this.used,
      announcements: this.announcements,
    });
    const p = (sql: string) => options.db.prepare(sql);
    this.s = {
      pool: p("SELECT * FROM pools WHERE tick_key = ?"),
      pools: p("SELECT * FROM pools WHERE status = 'active' ORDER BY tick_key"),
      insertPool:
        p(`INSERT INTO pools (tick_key, tick, status, doge_reserve, token_reserve, lp_supply, fee_bps, acc_fee_per_share, acc_remainder,
        fees_credited, fees_claimed, fee_dust, created_at, updated_at) VALUES (?, ?, 'active', '0', '0', '0', ?, '0', '0', '0', '0', '0', ?, ?)`),
      savePool:
        p(`UPDATE pools SET doge_reserve = ?, token_reserve = ?, lp_supply = ?, acc_fee_per_share = ?, acc_remainder = ?, fees_credited = ?,
        fees_claimed = ?, fee_dust = ?, updated_at = ? WHERE tick_key = ?`),
      position: p("SELECT * FROM positions WHERE tick_key = ? AND address = ?"),
      positionsOf: p("SELECT * FROM positions WHERE address = ? ORDER BY tick_key"),
      positionsIn: p("SELECT * FROM positions WHERE tick_key = ?"),
      savePosition:
        p(`INSERT INTO positions (tick_key, address, shares, fee_debt, unclaimed, unclaimed_fraction, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (tick_key, address) DO UPDATE SET shares = excluded.shares, fee_debt = excluded.fee_debt, unclaimed = excluded.unclaimed,
        unclaimed_fraction = excluded.unclaimed_fraction, updated_at = excluded.updated_at`),
      ledger:
        p(`INSERT INTO ledger (tick_key, kind, ref_id, address, direction, amount_in, amount_out, fee, doge_delta, token_delta, lp_delta,
        doge_reserve, token_reserve, lp_supply, at) VALUES (@tick_key, @kind, @ref_id, @address, @direction, @amount_in, @amount_out, @fee,
        @doge_delta, @token_delta, @lp_delta, @doge_reserve, @token_reserve, @lp_supply, @at)`),
      ledgerOf: p("SELECT * FROM ledger WHERE tick_key = ? ORDER BY seq"),
      pruneQuotes: p("DELETE FROM quotes WHERE expires_at < ?"),
      pruneSwaps: p("DELETE FROM swaps WHERE status = 'expired' AND deposit_txid IS NULL AND expires_at < ?"),
      pruneNonces: p("DELETE FROM auth_nonces WHERE used_at < ?"),
      insertSwap:
        p(`INSERT INTO swaps (id, quote_id, tick_key, direction, address, amount_in, quoted_out, min_amount_out, deposit_address, payout_cost, status,
        created_at, expires_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'created', ?, ?, ?)`),
      swap: p("SELECT * FROM swaps WHERE id = ?"),
      swapOfQuote: p("SELECT * FROM swaps WHERE quote_id = ?"),
      swapsOf: p(
        "SELECT * FROM swaps WHERE address = ? AND (created_at < ? OR (created_at = ? AND id < ?)) ORDER BY created_at DESC, id DESC LIMIT ?",
      ),
      // A pool's executed swaps by the (tick_key, seq) index, each with its order's deposit and status.
      poolSwapsDesc: p(
        `SELECT l.seq, l.ref_id, l.address, l.direction, l.amount_in, l.amount_out, l.fee, l.doge_reserve, l.token_reserve, l.at,
        s.deposit_txid, s.status FROM ledger l LEFT JOIN swaps s ON s.id = l.ref_id
        WHERE l.tick_key = ? AND l.kind = 'swap' AND l.seq < ? ORDER BY l.seq DESC LIMIT ?`,
      ),
      poolSwapsAsc: p(
        `SELECT l.seq, l.ref_id, l.address, l.direction, l.amount_in, l.amount_out, l.fee, l.doge_reserve, l.token_reserve, l.at,
        s.deposit_txid, s.status FROM ledger l LEFT JOIN swaps s ON s.id = l.ref_id
        WHERE l.tick_key = ? AND l.kind = 'swap' AND l.seq > ? ORDER BY l.seq ASC LIMIT ?`,
      ),
      // Swaps never announced that expired (by the (status, expires_at) index).
      expireUnannounced: p(
        `UPDATE swaps SET status = 'expired', error_code = 'DEPOSIT_NOT_SEEN', error_message = 'no deposit was mined for this swap before ' || expires_at,
        updated_at = ? WHERE status = 'created' AND expires_at < ?`,
      ),
      // An announced txid: a created swap is deposit_seen; an expired one stays expired (its deposit is refunded once bound).
      swapAnnounced: p(
        `UPDATE swaps SET status = CASE status WHEN 'created' THEN 'deposit_seen' ELSE status END, deposit_txid = ?, updated_at = ?
        WHERE id = ? AND status IN ('created', 'deposit_seen', 'expired')`,
      ),
      // The announcement is gone unbound (never seen by the index, or refused): the swap waits again, or is expired.
      swapUnannounced: p(
        `UPDATE swaps SET status = CASE WHEN expires_at < ? THEN 'expired' ELSE 'created' END, deposit_txid = NULL, error_code = ?,
        error_message = ?, updated_at = ? WHERE id = ? AND status IN ('created', 'deposit_seen', 'expired')`,
      ),
      swapClosed:
        p(`UPDATE swaps SET status = ?, deposit_txid = ?, deposit_amount = ?, amount_out = ?, fee = ?, ledger_seq = ?, payout_id = ?,
        refund_payout_id = ?, error_code = ?, error_message = ?, updated_at = ? WHERE id = ?`),
      insertLiquidity:
        p(`INSERT INTO liquidity_ops (id, tick_key, address, kind, doge_txid, token_txid, doge_amount, token_amount, shares, fees, ledger_seq, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      liquidity: p("SELECT * FROM liquidity_ops WHERE id = ?"),
      useNonce: p(
        "INSERT INTO auth_nonces (address, nonce, action, used_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
      ),
      insertClaim: p(
        "INSERT INTO fee_claims (id, address, nonce, amount, pools, payout_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      ),
      claimsOf: p("SELECT * FROM fee_claims WHERE address = ? ORDER BY created_at DESC, id DESC LIMIT 100"),
      seedOf: p("SELECT seq FROM ledger WHERE tick_key = ? AND kind = 'seed' AND ref_id = ?"),
    };
  }

  private now(): number {
    return this.clock();
  }

  /** The bonding curves that share this custody (the bonding store calls it when it is made over this ledger). */
  attachCurves(curves: CurvesBesidePools): void {
    this.curves = curves;
  }

  /** Whether a seed of `tick`'s pool made for `refId` (a curve's id) is in the pool's ledger. */
  hasSeed(tick: string, refId: string): boolean {
    return this.s.seedOf.get(drc20TickKey(tick), refId) !== undefined;
  }

  private write<T>(fn: () => T): T {
    try {
      return this.options.db.transaction(fn).immediate();
    } finally {
      // Whatever the transaction wrote (or rolled back), the cache reads the database again.
      this.poolCache.clear();
    }
  }

  // -------------------------------------------------------------------------------- pools

  /**
   * The pool of `tick`. Read from the database inside writes; outside them, from a cache this
   * ledger refreshes whenever it writes a pool (quotes read it on every request). One ledger
   * process writes a database.
   */
  pool(tick: string): PoolRecord | null {
    const key = drc20TickKey(tick);
    if (!this.options.db.inTransaction) {
      const cached = this.poolCache.get(key);
      if (cached) return cached;
    }
    const row = this.s.pool.get(key) as PoolRow | undefined;
    if (!row) return null;
    const record = {
      tick: row.tick,
      tickKey: row.tick_key,
      status: row.status,
      pool: poolOf(row),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
    if (!this.options.db.inTransaction) this.poolCache.set(key, record);
    return record;
  }

  poolOr404(tick: string): PoolRecord {
    const found = this.pool(tick);
    if (!found || found.status !== "active") throw notFound("POOL_NOT_FOUND", `no ${tick}/DOGE pool`, { tick });
    return found;
  }

  pools(): PoolRecord[] {
    return (this.s.pools.all() as PoolRow[]).map((row) => ({
      tick: row.tick,
      tickKey: row.tick_key,
      status: row.status,
      pool: poolOf(row),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }));
  }

  /** The pool of `tick`, made (empty) when the tick is deployed on chain and has none yet. Inside a write. */
  private poolForDeposit(tick: string): PoolRecord {
    const existing = this.pool(tick);
    if (existing) return existing;
    const deployed = this.options.tickDeployed(tick);
    if (!deployed) throw notFound("TICK_NOT_DEPLOYED", `DRC-20 ${tick} is not deployed in the indexed chain`, { tick });
    const now = this.now();
    this.s.insertPool.run(drc20TickKey(deployed), deployed, Number(this.options.feeBps ?? 100n), now, now);
    return this.pool(deployed)!;
  }

  private savePool(tickKey: string, pool: Pool): void {
    this.s.savePool.run(
      pool.dogeReserve.toString(),
      pool.tokenReserve.toString(),
      pool.lpSupply.toString(),
      pool.accFeePerShare.toString(),
      pool.accRemainder.toString(),
      pool.feesCredited.toString(),
      pool.feesClaimed.toString(),
      pool.feeDust.toString(),
      this.now(),
      tickKey,
    );
  }

  private savePosition(tickKey: string, address: string, position: Position): void {
    this.s.savePosition.run(
      tickKey,
      address,
      position.shares.toString(),
      position.feeDebt.toString(),
      position.unclaimed.toString(),
      position.unclaimedFraction.toString(),
      this.now(),
    );
  }

  private record(entry: {
    tickKey: string;
    kind: string;
    refId: string;
    address: string;
    direction?: Direction;
    amountIn?: bigint;
    amountOut?: bigint;
    fee?: bigint;
    before: Pool;
    after: Pool;
  }): number {
    const { before, after } = entry;
    return Number(
      this.s.ledger.run({
        tick_key: entry.tickKey,
        kind: entry.kind,
        ref_id: entry.refId,
        address: entry.address,
        direction: entry.direction ?? null,
        amount_in: entry.amountIn?.toString() ?? null,
        amount_out: entry.amountOut?.toString() ?? null,
        fee: entry.fee?.toString() ?? null,
        doge_delta: (after.dogeReserve - before.dogeReserve).toString(),
        token_delta: (after.tokenReserve - before.tokenReserve).toString(),
        lp_delta: (after.lpSupply - before.lpSupply).toString(),
        doge_reserve: after.dogeReserve.toString(),
        token_reserve: after.tokenReserve.toString(),
        lp_supply: after.lpSupply.toString(),
        at: this.now(),
      }).lastInsertRowid,
    );
  }

  /** The pool's ledger in the order it was applied. */
  ledgerOf(tick: string): Record<string, unknown>[] {
    return this.s.ledgerOf.all(drc20TickKey(tick)) as Record<string, unknown>[];
  }

  /** Owes `gross` koinu to `address` less its costs (inside the caller's write): Custody.oweDoge. */
  oweDoge(
    tick: string | null,
    address: string,
    gross: bigint,
    reason: string,
    refId: string,
    siblingCostKoinu = 0n,
  ): string | null {
    return this.custody.oweDoge(tick, address, gross, reason, refId, siblingCostKoinu);
  }

  /** Owes `amount` of `tick` to `address` (inside the caller's write): Custody.oweToken. */
  oweToken(tick: string, address: string, amount: bigint, reason: string, refId: string, paidKoinu: bigint): string {
    return this.custody.oweToken(tick, address, amount, reason, refId, paidKoinu);
  }

  /** Owes a deposit back in full to its payer (inside the caller's write): Custody.oweRefund. */
  oweRefund(
    asset: PayoutAsset,
    tick: string,
    address: string,
    amount: bigint,
    reason: string,
    refId: string,
  ): string | null {
    return this.custody.oweRefund(asset, tick, address, amount, reason, refId);
  }

  payout(id: string): PayoutRecord | null {
    return this.custody.payout(id);
  }

  payoutsOf(refId: string): PayoutRecord[] {
    return readPayoutsOf(this.options.db, refId);
  }

  /** Depth: the inputs that move the price by 1%, 2% and 5%. */
  depthOf(pool: Pool) {
    if (pool.lpSupply === 0n) return [];
    return [100n, 200n, 500n].map((bps) => depth(pool, bps));
  }

  // ------------------------------------------------------------------------------- quotes

  /** Prices a swap (exact in, or exact out when `amountOut` is given) and keeps the quote until it expires. */
  quote(request: {
    tick: string;
    direction: Direction;
    amountIn?: bigint;
    amountOut?: bigint;
    slippageBps: number;
  }): QuoteRecord {
    const { pool, tick } = this.poolOr404(request.tick);
    if (pool.lpSupply === 0n)
      throw unprocessable("POOL_EMPTY", `the ${tick}/DOGE pool holds no liquidity yet`, { tick });
    let amountIn: bigint;
    let amountOut: bigint;
    let fee: bigint;
    const tooSmall = (doge: bigint) =>
      unprocessable(
        "AMOUNT_TOO_SMALL",
        `the DOGE side of a swap must be at least ${MIN_DOGE_KOINU} koinu (payouts below it are dust)`,
        {
          min_koinu: MIN_DOGE_KOINU.toString(),
          doge_koinu: doge.toString(),
        },
      );
    const dogeGiven = request.direction === "DOGE_TO_TOKEN" ? request.amountIn : request.amountOut;
    if (dogeGiven !== undefined && dogeGiven < MIN_DOGE_KOINU) throw tooSmall(dogeGiven);
    try {
      if (request.amountOut !== undefined) {
        ({ amountIn, amountOut, fee } = quoteExactOut(
          pool.dogeReserve,
          pool.tokenReserve,
          pool.feeBps,
          request.direction,
          request.amountOut,
        ));
      } else {
        amountIn = request.amountIn!;
        ({ amountOut, fee } = quoteExactIn(
          pool.dogeReserve,
          pool.tokenReserve,
          pool.feeBps,
          request.direction,
          amountIn,
        ));
      }
    } catch (error) {
      mathError(error);
    }
    const dogeSide = request.direction === "DOGE_TO_TOKEN" ? amountIn : amountOut;
    if (dogeSide < MIN_DOGE_KOINU) throw tooSmall(dogeSide);
    if (request.direction === "TOKEN_TO_DOGE" && !payoutAboveDust(amountOut, this.payoutCosts.dogeKoinu)) {
      throw unprocessable(
        "AMOUNT_TOO_SMALL",
        `the swap pays ${amountOut} koinu; less its payout's cost ${this.payoutCosts.dogeKoinu} that is below ${MIN_DOGE_KOINU}`,
        {
          min_koinu: MIN_DOGE_KOINU.toString(),
          doge_koinu: amountOut.toString(),
          payout_cost: this.payoutCosts.dogeKoinu.toString(),
        },
      );
    }
    const impact = priceImpactBps(pool.dogeReserve, pool.tokenReserve, request.direction, amountIn, { amountOut, fee });
    const now = this.now();
    const terms = {
      tick,
      direction: request.direction,
      amountIn,
      amountOut,
      fee,
      slippageBps: request.slippageBps,
      // The minimum is of what the user gets: tokens, or DOGE after its payout's cost.
      minAmountOut: minAmountOut(
        request.direction === "TOKEN_TO_DOGE" ? amountOut - this.payoutCosts.dogeKoinu : amountOut,
        BigInt(request.slippageBps),
      ),
      priceImpactBps: Number(impact),
      createdAt: now,
      expiresAt: now + this.quoteSeconds,
    };
    return { id: this.quoteId(terms), ...terms };
  }

  private quoteMac(payload: string): string {
    return crypto.createHmac("sha256", this.quoteKey).update(payload).digest().subarray(0, 16).toString("base64url");
  }

  /**
   * `qt_<terms, base64url JSON>.<HMAC-SHA256 of them, 16 bytes, base64url>`. The terms start with 8
   * random bytes, so two equal quotes in one second are two ids (one swap per quote: an equal
   * quote asked by someone else must not take this one).
   */
  private quoteId(q: Omit<QuoteRecord, "id">): string {
    const payload = Buffer.from(
      JSON.stringify([
        crypto.randomBytes(8).toString("hex"),
        q.tick,
        q.direction,
        q.amountIn.toString(),
        q.amountOut.toString(),
        q.fee.toString(),
        q.slippageBps,
        q.minAmountOut.toString(),
        q.priceImpactBps,
        q.createdAt,
        q.expiresAt,
      ]),
    ).toString("base64url");
    return `qt_${payload}.${this.quoteMac(payload)}`;
  }

  /** The quote an id carries, or null when the id is not one this ledger made. */
  getQuote(id: string): QuoteRecord | null {
    const match = /^qt_([A-Za-z0-9_-]{1,800})\.([A-Za-z0-9_-]{22})$/.exec(id);
    if (!match) return null;
    const expected = Buffer.from(this.quoteMac(match[1]));
    const given = Buffer.from(match[2]);
    if (expected.length !== given.length || !crypto.timingSafeEqual(expected, given)) return null;
    const [, tick, direction, amountIn, amountOut, fee, slippageBps, minOut, priceImpactBps, createdAt, expiresAt] =
      JSON.parse(Buffer.from(match[1], "base64url").toString("utf8"));
    return {
      id,
      tick,
      direction,
      amountIn: BigInt(amountIn),
      amountOut: BigInt(amountOut),
      fee: BigInt(fee),
      slippageBps,
      minAmountOut: BigInt(minOut),
      priceImpactBps,
      createdAt,
      expiresAt,
    };
  }

  /**
   * Drops what requests left behind that nothing needs any more: swaps that expired without a
   * deposit more than EXPIRED_SWAP_KEEP_SECONDS ago, the quote rows of earlier versions (quotes are
   * stateless now), and authorization nonces used before any authorization still valid could have
   * been signed (an authorization lives at most MAX_AUTHORIZATION_SECONDS, and an expired one is
   * refused before its nonce is looked at, so its nonce can no longer be replayed).
   */
  prune(): { swaps: number; quotes: number; nonces: number } {
    const before = this.now() - EXPIRED_SWAP_KEEP_SECONDS;
    return {
      swaps: this.s.pruneSwaps.run(before).changes,
      quotes: this.s.pruneQuotes.run(before).changes,
      nonces: this.s.pruneNonces.run(this.now() - MAX_AUTHORIZATION_SECONDS - 60).changes,
    };
  }

  // -------------------------------------------------------------------------------- swaps

  /** A swap from a live quote: where to deposit, exactly how much, and until when. One swap per quote. */
  createSwap(quoteId: string, address: string): { swap: SwapRecord; created: boolean } {
    this.refuseServiceAddress(address);
    return this.write(() => {
      const quote = this.getQuote(quoteId);
      if (!quote) throw notFound("QUOTE_NOT_FOUND", `no quote ${quoteId}`, { quote_id: quoteId });
      const existing = this.s.swapOfQuote.get(quoteId) as SwapRow | undefined;
      if (existing) {
        if (existing.address !== address)
          throw conflict("QUOTE_USED", `quote ${quoteId} was already turned into a swap for another address`, {
            quote_id: quoteId,
          });
        return { swap: this.swapOf(existing), created: false };
      }
      const now = this.now();
      if (quote.expiresAt <= now)
        throw unprocessable("QUOTE_EXPIRED", `quote ${quoteId} expired at ${quote.expiresAt}; ask for a new one`, {
          quote_id: quoteId,
          expires_at: quote.expiresAt,
        });
      const id = newId("swp");
      // A DRC-20 payout's cost rides on the DOGE deposit; a DOGE payout's is withheld from it.
      const payoutCost = quote.direction === "DOGE_TO_TOKEN" ? this.payoutCosts.drc20Koinu : 0n;
      this.s.insertSwap.run(
        id,
        quoteId,
        drc20TickKey(quote.tick),
        quote.direction,
        address,
        quote.amountIn.toString(),
        quote.amountOut.toString(),
        quote.minAmountOut.toString(),
        this.custodyAddress,
        payoutCost.toString(),
        now,
        now + this.swapSeconds,
        now,
      );
      return { swap: this.swap(id)!, created: true };
    });
  }

  swap(id: string): SwapRecord | null {
    const row = this.s.swap.get(id) as SwapRow | undefined;
    return row ? this.swapOf(row) : null;
  }

  private swapOf(r: SwapRow): SwapRecord {
    const tick = (this.s.pool.get(r.tick_key) as PoolRow).tick;
    let status = r.status;
    // Settled once its payout is confirmed on chain.
    if (status === "executed" && r.payout_id) {
      if (readPayout(this.options.db, r.payout_id)?.status === "confirmed") status = "settled";
    }
    return {
      id: r.id,
      quoteId: r.quote_id,
      tick,
      direction: r.direction,
      address: r.address,
      amountIn: BigInt(r.amount_in),
      quotedOut: BigInt(r.quoted_out),
      minAmountOut: BigInt(r.min_amount_out),
      depositAddress: r.deposit_address,
      payoutCost: BigInt(r.payout_cost),
      status,
      depositTxid: r.deposit_txid,
      depositAmount: big(r.deposit_amount),
      amountOut: big(r.amount_out),
      fee: big(r.fee),
      ledgerSeq: r.ledger_seq,
      payoutId: r.payout_id,
      refundPayoutId: r.refund_payout_id,
      error: r.error_code ? { code: r.error_code, message: r.error_message ?? "" } : null,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      updatedAt: r.updated_at,
    };
  }

  swapsOf(address: string, limit: number, before: { createdAt: number; id: string } | null): SwapRecord[] {
    const at = before?.createdAt ?? Number.MAX_SAFE_INTEGER;
    return (this.s.swapsOf.all(address, at, at, before?.id ?? "\uffff", limit) as SwapRow[]).map((r) => this.swapOf(r));
  }

  /**
   * The pool's executed swaps (those that moved its reserves), newest first or oldest first, `limit`
   * of them after the ledger sequence `afterSeq` in that order (null: from the newest or the oldest).
   */
  poolSwaps(tick: string, limit: number, afterSeq: number | null, order: "asc" | "desc"): PoolSwapRecord[] {
    const rows = (
      order === "desc"
        ? this.s.poolSwapsDesc.all(drc20TickKey(tick), afterSeq ?? Number.MAX_SAFE_INTEGER, limit)
        : this.s.poolSwapsAsc.all(drc20TickKey(tick), afterSeq ?? 0, limit)
    ) as Record<string, string | number | null>[];
    return rows.map((r) => ({
      ledgerSeq: Number(r.seq),
      swapId: String(r.ref_id),
      address: String(r.address),
      direction: r.direction as Direction,
      amountIn: BigInt(r.amount_in as string),
      amountOut: BigInt(r.amount_out as string),
      fee: BigInt(r.fee as string),
      dogeReserve: BigInt(r.doge_reserve as string),
      tokenReserve: BigInt(r.token_reserve as string),
      at: Number(r.at),
      depositTxid: (r.deposit_txid as string | null) ?? null,
      status: (r.status as string | null) ?? null,
    }));
  }

  /** 422 ADDRESS_IS_SERVICE when `address` is one of the service's own (the custody's): never an order's address. */
  refuseServiceAddress(address: string): void {
    if (this.options.deposits.isServiceAddress(address)) {
      throw unprocessable(
        "ADDRESS_IS_SERVICE",
        `${address} is an address of this service; orders are made by their payers' own addresses`,
        { address },
      );
    }
  }

  /** The exact text the swap's address signs to bind `depositTxid` to swap `swapId` (orders.ts execute-swap). */
  executeSwapMessage(swapId: string, depositTxid: string): string {
    const swap = this.swap(swapId);
    if (!swap) throw notFound("SWAP_NOT_FOUND", `no swap ${swapId}`, { swap_id: swapId });
    return orderMessage(this.domain, "execute-swap", executeSwapFields(swap, depositTxid));
  }

  /**
   * Executes `swapId` against the deposit `depositTxid` that the swap's address signed for
   * (`signature` over executeSwapMessage), atomically. Answers the swap as it stands (`outcome`
   * says what happened); throws for refusals that change nothing. A deposit the index does not
   * show deep enough yet is announced (announcements.ts: 429 TOO_MANY_PENDING past the caps of the
   * swap's address and of `client`, the HTTP client's key; null: no client cap).
   */
  executeSwap(
    swapId: string,
    depositTxid: string,
    signature: string,
    client: string | null = null,
  ): { swap: SwapRecord; outcome: "executed" | "pending" | "unchanged" | "refunded" } {
    const swap = this.swap(swapId);
    if (!swap) throw notFound("SWAP_NOT_FOUND", `no swap ${swapId}`, { swap_id: swapId });
    requireSignature(
      this.domain,
      swap.address,
      signature,
      orderMessage(this.domain, "execute-swap", executeSwapFields(swap, depositTxid)),
    );
    const { swap: answered, outcome } = this.executeAnnounced(swapId, depositTxid, { client });
    if (outcome === "cleared") throw new Error("only the pending pass clears an announcement");
    return { swap: answered, outcome };
  }

  /**
   * Executes a swap against a deposit its payer announced with a valid signature: over HTTP
   * (`{client}`, executeSwap), or the pending pass's check of a due announcement (`{check}`), which
   * backs the announcement off while it is pending, and clears it ("cleared") when the index has
   * not shown the txid by its clear time or refuses it for this swap.
   */
  private executeAnnounced(
    swapId: string,
    depositTxid: string,
    via: CustodyVia,
  ): { swap: SwapRecord; outcome: "executed" | "pending" | "unchanged" | "refunded" | "cleared" } {
    type Answer = { swap: SwapRecord; outcome: "executed" | "pending" | "unchanged" | "refunded" | "cleared" };
    const result = this.write((): Answer | Refusal => {
      const row = this.s.swap.get(swapId) as SwapRow | undefined;
      if (!row) throw notFound("SWAP_NOT_FOUND", `no swap ${swapId}`, { swap_id: swapId });
      const now = this.now();
      const settled = this.custody.settle(this.swapOrder(row, now), depositTxid, via, now);
      if (settled instanceof Refusal) return settled;
      return { swap: this.swap(swapId)!, outcome: settled.outcome === "filled" ? "executed" : settled.outcome };
    });
    // Refusals that consumed (and refunded) the deposit are committed before they are answered.
    if (result instanceof Refusal) throw result;
    return result;
  }

  /** A swap as the custody procedure sees it (custody.ts): its deposit, its trade on the pool, its row's updates. */
  private swapOrder(row: SwapRow, now: number): CustodyOrder<{ fee: bigint; ledgerSeq: number }> {
    const swapId = row.id;
    const tick = (this.s.pool.get(row.tick_key) as PoolRow).tick;
    const dogeIn = row.direction === "DOGE_TO_TOKEN";
    const payoutCost = BigInt(row.payout_cost);
    const amountIn = BigInt(row.amount_in);
    // An expired swap still takes its deposit, to refund it: a payment mined after the swap
    // expired must not be stranded in custody.
    const open = ["created", "deposit_seen", "expired"].includes(row.status);
    return {
      kind: "swap",
      deposit: {
        kind: "swap",
        id: swapId,
        address: row.address,
        asset: dogeIn ? "DOGE" : "DRC20",
        tick,
        amountIn: amountIn + payoutCost,
        expiresAt: row.expires_at,
        whose: "the swap's address",
      },
      payoutCost,
      closedStatus: open ? null : row.status,
      closedWith: row.deposit_txid,
      expired: row.status === "expired" || row.expires_at < now,
      words: { order: "swap", deposit: "deposit", idField: "swap_id", closedCode: "SWAP_CLOSED", reason: "swap" },
      markAnnounced: (txid, at) => {
        this.s.swapAnnounced.run(txid, at, swapId);
      },
      markUnannounced: (code, message, at) => {
        this.s.swapUnannounced.run(at, code, message, at, swapId);
      },
      close: (status, fields, at) => {
        this.s.swapClosed.run(
          status === "filled" ? "executed" : "refunded",
          fields.depositTxid,
          fields.depositAmount.toString(),
          fields.amountOut?.toString() ?? null,
          fields.applied?.fee.toString() ?? null,
          fields.applied?.ledgerSeq ?? null,
          fields.payoutId ?? null,
          fields.refundPayoutId ?? null,
          fields.error?.code ?? null,
          fields.error?.message ?? null,
          at,
          swapId,
        );
      },
      trade: () => {
        const before = this.pool(tick)!.pool;
        let swapped: ReturnType<typeof swapExactIn>;
        try {
          swapped = swapExactIn(before, row.direction, amountIn);
        } catch (error) {
          if (!(error instanceof AmmMathError)) throw error;
          return {
            refused: unprocessable(
              "MIN_OUT_NOT_MET",
              `the pool cannot fill the swap now (${error.code}); the deposit is refunded`,
              { reason: error.code },
            ),
          };
        }
        const minOut = BigInt(row.min_amount_out);
        const { dogeKoinu } = this.payoutCosts;
        if (!dogeIn && !payoutAboveDust(swapped.amountOut, dogeKoinu)) {
          return {
            refused: unprocessable(
              "MIN_OUT_NOT_MET",
              `the swap would pay ${swapped.amountOut} koinu, too little to cover its payout's cost ${dogeKoinu} and a payout; the deposit is refunded`,
              { amount_out: swapped.amountOut.toString(), payout_cost: dogeKoinu.toString() },
            ),
          };
        }
        // What the user gets: the tokens, or the DOGE less its payout's cost.
        const paidOut = dogeIn ? swapped.amountOut : swapped.amountOut - dogeKoinu;
        if (paidOut < minOut) {
          return {
            refused: unprocessable(
              "MIN_OUT_NOT_MET",
              `the swap would pay ${paidOut}, below its minimum ${minOut}; the deposit is refunded`,
              {
                amount_out: swapped.amountOut.toString(),
                payout_amount: paidOut.toString(),
                min_amount_out: minOut.toString(),
              },
            ),
          };
        }
        return {
          paid: amountIn,
          amountOut: swapped.amountOut,
          minimumNet: minOut,
          reason: "swap",
          apply: () => {
            this.savePool(row.tick_key, swapped.pool);
            const ledgerSeq = this.record({
              tickKey: row.tick_key,
              kind: "swap",
              refId: swapId,
              address: row.address,
              direction: row.direction,
              amountIn,
              amountOut: swapped.amountOut,
              fee: swapped.fee,
              before,
              after: swapped.pool,
            });
            return { fee: swapped.fee, ledgerSeq };
          },
        };
      },
    };
  }

  /**
   * The worker's pass: expires the swaps never announced that expired, and checks the swap
   * announcements that are due (announcements.ts: at most `pendingChecksPerPass`, most overdue
   * first), executing those whose deposit is now indexed and deep enough and clearing those the
   * index has not shown by their clear time (the swap expires, and is pruned like any unpaid one).
   * `checked` is how many announcements it read from the index.
   */
  retryPending(): { executed: number; expired: number; checked: number; cleared: number } {
    const now = this.now();
    const counts = { executed: 0, expired: 0, cleared: 0 };
    const expired = this.s.expireUnannounced.run(now, now).changes;
    const due = this.announcements.due("swap", now);
    // One transaction for the pass (each check is a savepoint in it): a check that stays pending
    // writes only its next check time, and a commit per check would cost more than the check.
    if (due.length > 0) {
      // The indexed height, read once for the pass (an announcement is cleared only once the index moved).
      const indexedHeight = this.options.deposits.indexedHeight();
      this.write(() => {
        for (const announcement of due) this.checkSwapAnnouncement(announcement, indexedHeight, counts);
      });
    }
    return {
      executed: counts.executed,
      expired: expired + counts.expired,
      checked: due.length,
      cleared: counts.cleared,
    };
  }

  /** The pass's check of one due swap announcement (retryPending), counted in `counts`. */
  private checkSwapAnnouncement(
    announcement: Announcement,
    indexedHeight: number,
    counts: { executed: number; expired: number; cleared: number },
  ): void {
    try {
      const { swap, outcome } = this.executeAnnounced(announcement.refId, announcement.txid, {
        check: announcement,
        indexedHeight,
      });
      if (outcome === "executed") counts.executed += 1;
      if (outcome === "cleared") {
        counts.cleared += 1;
        if (swap.status === "expired") counts.expired += 1;
      }
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      // A refusal that consumed the deposit refunded it and closed the swap (and its announcement);
      // an announcement without its swap is dropped.
      if (error.code === "SWAP_NOT_FOUND") this.announcements.remove(announcement.refId);
    }
  }

  /** The fields of a refund-deposit message, in order (orders.ts): the tick is "DOGE" for a DOGE deposit. */
  static refundFields(request: {
    asset: PayoutAsset;
    tick: string | null;
    address: string;
    depositTxid: string;
  }): Record<string, string> {
    return {
      asset: request.asset,
      tick: request.asset === "DOGE" ? "DOGE" : (request.tick ?? ""),
      address: request.address,
      deposit: request.depositTxid,
    };
  }

  /**
   * Refunds a deposit that serves no order (never announced, or paid to an order that was filled,
   * refunded or expired) to its payer, who signs refund-deposit naming it: the deposit is bound
   * like any other (paid by `address`, not by the service, deep enough, unused), consumed as kind
   * `refund`, and its whole amount queued back to the payer. Answers the payout.
   */
  refundDeposit(request: {
    asset: PayoutAsset;
    tick: string | null;
    address: string;
    depositTxid: string;
    signature: string;
  }): PayoutRecord {
    this.refuseServiceAddress(request.address);
    requireSignature(
      this.domain,
      request.address,
      request.signature,
      orderMessage(this.domain, "refund-deposit", AmmLedger.refundFields(request)),
    );
    return this.write(() => {
      const id = newId("rfd");
      const order: DepositOrder = {
        kind: "refund",
        id,
        address: request.address,
        asset: request.asset,
        tick: request.tick ?? "",
        amountIn: 0n,
        expiresAt: null,
        whose: "the signing address",
      };
      const bound = inspectDeposit(this.options.deposits, this.used, order, request.depositTxid);
      if (bound.kind === "refused") throw bound.error;
      if (bound.kind === "pending") throw pendingError(bound, request.depositTxid, this.options.deposits);
      if (request.asset === "DOGE" && bound.deposit.amount <= this.payoutCosts.dogeKoinu) {
        throw unprocessable(
          "REFUND_BELOW_COST",
          `the deposit is ${bound.deposit.amount} koinu, not more than the ${this.payoutCosts.dogeKoinu}-koinu cost of paying it back`,
          {
            deposit_amount: bound.deposit.amount.toString(),
            payout_cost: this.payoutCosts.dogeKoinu.toString(),
          },
        );
      }
      consumeDeposit(this.used, order, bound, this.now());
      return this.payout(
        this.oweRefund(request.asset, request.tick ?? "", request.address, bound.deposit.amount, "deposit_refund", id)!,
      )!;
    });
  }

  // ---------------------------------------------------------------------------- liquidity

  /**
   * Adds liquidity from two deposits (DOGE and the pool's DRC-20, both paid by `address`, which
   * signs the add-liquidity message naming both txids): shares are minted pro rata (the first
   * deposit: sqrt(doge x token) - 1000, 1000 locked), the excess side is refunded on chain. The pair
   * of txids is the operation's identity: the same pair again answers it.
   */
  addLiquidity(request: {
    tick: string;
    address: string;
    dogeTxid: string;
    tokenTxid: string;
    minShares?: bigint;
    signature: string;
  }) {
    this.refuseServiceAddress(request.address);
    requireSignature(
      this.domain,
      request.address,
      request.signature,
      orderMessage(this.domain, "add-liquidity", addLiquidityFields(request)),
    );
    const result = this.write(() => {
      const usedDoge = this.used.usedBy(request.dogeTxid);
      const usedToken = this.used.usedBy(request.tokenTxid);
      if (usedDoge && usedToken && usedDoge.refId === usedToken.refId && usedDoge.kind === "liquidity_add") {
        return { operation: this.liquidityOp(usedDoge.refId)!, created: false };
      }
      if (request.dogeTxid === request.tokenTxid)
        throw badRequest("SAME_DEPOSIT", "dogeTxid and tokenTxid must be two transactions", { field: "tokenTxid" });
      // A tick launched on a bonding curve gets its pool at graduation, seeded by the curve: until
      // that seed is in, nobody may open it (the seed needs an empty pool, and a refused seed is
      // tried again on later passes, so graduation alone does not open the pool).
      const curve = this.curves?.curveOf(drc20TickKey(request.tick)) ?? null;
      if (curve !== null && !(curve.status === "graduated" && curve.poolSeeded)) {
        throw conflict(
          "TICK_ON_BONDING_CURVE",
          curve.status === "graduated"
            ? `${request.tick} graduated from its bonding curve, whose seed is not in its pool yet; the pool opens once it is`
            : `${request.tick} is on a bonding curve (${curve.status}); its pool opens when the curve graduates`,
          { tick: request.tick, curve_status: curve.status, pool_seeded: curve.poolSeeded },
        );
      }
      const record = this.poolForDeposit(request.tick);
      const id = newId("liq");
      const now = this.now();
      const orderOf = (asset: "DOGE" | "DRC20"): DepositOrder => ({
        kind: "liquidity_add",
        id,
        address: request.address,
        asset,
        tick: record.tick,
        amountIn: 0n,
        expiresAt: null,
        whose: "the provider's address",
      });
      const dogeOrder = orderOf("DOGE");
      const tokenOrder = orderOf("DRC20");
      // Both deposits are judged before either is consumed: an add takes both or neither.
      const dogeOutcome = inspectDeposit(this.options.deposits, this.used, dogeOrder, request.dogeTxid);
      const tokenOutcome = inspectDeposit(this.options.deposits, this.used, tokenOrder, request.tokenTxid);
      for (const [outcome, txid] of [
        [dogeOutcome, request.dogeTxid],
        [tokenOutcome, request.tokenTxid],
      ] as const) {
        if (outcome.kind === "refused") throw outcome.error;
        if (outcome.kind === "pending") throw pendingError(outcome, txid, this.options.deposits);
      }
      if (dogeOutcome.kind !== "credited" || tokenOutcome.kind !== "credited")
        throw new Error("an add's deposits have no expiry or amount to miss");
      consumeDeposit(this.used, dogeOrder, dogeOutcome, now);
      consumeDeposit(this.used, tokenOrder, tokenOutcome, now);
      const doge = dogeOutcome.deposit;
      const token = tokenOutcome.deposit;
      const before = record.pool;
      const position = positionOf(this.s.position.get(record.tickKey, request.address) as PositionRow | undefined);
      let added;
      try {
        added = addLiquidity(before, position, doge!.amount, token!.amount);
        if (request.minShares !== undefined && added.shares < request.minShares) {
          throw unprocessable(
            "MIN_SHARES_NOT_MET",
            `the deposits would mint ${added.shares} shares, below min_shares ${request.minShares}; both are refunded`,
            { shares: added.shares.toString() },
          );
        }
      } catch (error) {
        const refusal =
          error instanceof AmmMathError
            ? unprocessable(error.code, `${error.message}; both deposits are refunded`)
            : error;
        if (!(refusal instanceof Refusal)) throw error;
        // Both deposits go back; the DOGE refund also pays the token refund's cost when it can.
        const tokenRefundCost =
          doge.amount - this.payoutCosts.dogeKoinu - this.payoutCosts.drc20Koinu > 0n
            ? this.payoutCosts.drc20Koinu
            : 0n;
        const refunds = [
          this.oweDoge(
            record.tick,
            request.address,
            doge.amount,
            `liquidity_refund:${refusal.code}`,
            id,
            tokenRefundCost,
          ),
          this.oweToken(
            record.tick,
            request.address,
            token.amount,
            `liquidity_refund:${refusal.code}`,
            id,
            tokenRefundCost,
          ),
        ].filter((payoutId) => payoutId !== null);
        this.s.insertLiquidity.run(
          id,
          record.tickKey,
          request.address,
          "add_refunded",
          request.dogeTxid,
          request.tokenTxid,
          "0",
          "0",
          "0",
          "0",
          0,
          now,
        );
        return new Refusal(refusal.kind, refusal.code, refusal.message, {
          ...refusal.details,
          operation_id: id,
          refund_payout_ids: refunds,
        });
      }
      this.savePool(record.tickKey, added.pool);
      this.savePosition(record.tickKey, request.address, added.position);
      const seq = this.record({
        tickKey: record.tickKey,
        kind: "add",
        refId: id,
        address: request.address,
        before,
        after: added.pool,
      });
      if (added.dogeRefund > 0n)
        this.oweRefund("DOGE", record.tick, request.address, added.dogeRefund, "liquidity_excess", id);
      if (added.tokenRefund > 0n)
        this.oweRefund("DRC20", record.tick, request.address, added.tokenRefund, "liquidity_excess", id);
      this.s.insertLiquidity.run(
        id,
        record.tickKey,
        request.address,
        "add",
        request.dogeTxid,
        request.tokenTxid,
        added.dogeUsed.toString(),
        added.tokenUsed.toString(),
        added.shares.toString(),
        "0",
        seq,
        now,
      );
      return { operation: this.liquidityOp(id)!, created: true };
    });
    if (result instanceof Refusal) throw result;
    return result;
  }

  /**
   * What each pool owes out of the custody: its DOGE reserve with the fees credited to its
   * providers and not claimed yet, and its token reserve (for seedPool's check and the reserves).
   */
  poolsOwed(): { tick: string; tickKey: string; doge: bigint; token: bigint }[] {
    return this.pools().map(({ tick, tickKey, pool }) => ({
      tick,
      tickKey,
      doge: pool.dogeReserve + pool.feesCredited - pool.feesClaimed,
      token: pool.tokenReserve,
    }));
  }

  /**
   * What the custody address owes beyond its pools' free holdings: every pool's DOGE reserve, the
   * fees held for providers, the DOGE of bonding curves of other ticks not yet in a pool, and the
   * DOGE payouts not yet sent; for `tick`, its token reserve and its DRC-20 payouts not yet sent.
   * A seed must come on top of these.
   */
  obligations(tick: string): { doge: bigint; token: bigint } {
    let doge = 0n;
    let token = 0n;
    for (const owed of this.poolsOwed()) {
      doge += owed.doge;
      if (owed.tickKey === drc20TickKey(tick)) token += owed.token;
    }
    // Bonding curves not yet in a pool hold their buyers' DOGE in the same custody (the curve of
    // `tick` itself is what a graduation seeds from, so it is not owed on top).
    if (this.curves) doge += this.curves.dogeHeldBesidePools(drc20TickKey(tick));
    const unsent = unsentPayoutTotals(this.options.db);
    doge += unsent.doge;
    token += unsent.tokens.get(drc20TickKey(tick))?.amount ?? 0n;
    return { doge, token };
  }

  /**
   * Seeds an empty pool from what the custody address already holds (the operator's demo pool, a
   * graduated bonding curve): `holdings` is the custody's DOGE and `tick` balance now, and the seed
   * is refused unless it fits in them after every obligation. The position is `provider`'s.
   */
  seedPool(request: {
    tick: string;
    doge: bigint;
    token: bigint;
    provider: string;
    refId: string;
    holdings: { doge: bigint; token: bigint };
  }) {
    return this.write(() => {
      const record = this.poolForDeposit(request.tick);
      if (record.pool.lpSupply !== 0n)
        throw conflict("POOL_NOT_EMPTY", `the ${record.tick}/DOGE pool already holds liquidity`, { tick: record.tick });
      const owed = this.obligations(record.tick);
      if (request.holdings.doge < owed.doge + request.doge || request.holdings.token < owed.token + request.token) {
        throw unprocessable(
          "SEED_NOT_COVERED",
          `the custody holds ${request.holdings.doge} koinu and ${request.holdings.token} ${record.tick}; it owes ${owed.doge} and ${owed.token} already`,
          {
            holdings_doge: request.holdings.doge.toString(),
            holdings_token: request.holdings.token.toString(),
            owed_doge: owed.doge.toString(),
            owed_token: owed.token.toString(),
          },
        );
      }
      let added;
      try {
        added = addLiquidity(record.pool, emptyPosition(), request.doge, request.token);
      } catch (error) {
        mathError(error);
      }
      const id = newId("liq");
      this.savePool(record.tickKey, added.pool);
      this.savePosition(record.tickKey, request.provider, added.position);
      const seq = this.record({
        tickKey: record.tickKey,
        kind: "seed",
        refId: request.refId,
        address: request.provider,
        before: record.pool,
        after: added.pool,
      });
      this.s.insertLiquidity.run(
        id,
        record.tickKey,
        request.provider,
        "seed",
        null,
        null,
        added.dogeUsed.toString(),
        added.tokenUsed.toString(),
        added.shares.toString(),
        "0",
        seq,
        this.now(),
      );
      return this.liquidityOp(id)!;
    });
  }

  /** Burns `shares` of `address`'s position, paying both sides and every fee the position earned (wallet-signed). */
  removeLiquidity(request: { tick: string; shares: bigint; auth: Authorization }) {
    const { auth } = request;
    return this.write(() => {
      const record = this.poolOr404(request.tick);
      this.checkAuthorization("remove-liquidity", { tick: record.tick, shares: request.shares.toString() }, auth);
      const position = positionOf(this.s.position.get(record.tickKey, auth.address) as PositionRow | undefined);
      if (position.shares < request.shares) {
        throw unprocessable(
          "SHARES_EXCEED_POSITION",
          `${auth.address} holds ${position.shares} shares of ${record.tick}/DOGE`,
          { shares: position.shares.toString(), requested: request.shares.toString() },
        );
      }
      let removed;
      try {
        removed = removeLiquidity(record.pool, position, request.shares);
      } catch (error) {
        mathError(error);
      }
      // Both payouts' costs come out of the DOGE side: it must cover them and still pay something.
      const dogeOut = removed.doge + removed.fees;
      const tokenCost = removed.token > 0n ? this.payoutCosts.drc20Koinu : 0n;
      const removalCost = this.payoutCosts.dogeKoinu + tokenCost;
      if (removalCost > 0n && !payoutAboveDust(dogeOut, removalCost)) {
        throw unprocessable(
          "WITHDRAWAL_BELOW_COST",
          `the removal pays ${dogeOut} koinu, too little to cover its payouts' cost ${removalCost} and a payout; remove more shares`,
          {
            doge_out: dogeOut.toString(),
            payout_cost: removalCost.toString(),
            min_koinu: MIN_DOGE_KOINU.toString(),
          },
        );
      }
      const id = newId("liq");
      const now = this.now();
      this.savePool(record.tickKey, removed.pool);
      this.savePosition(record.tickKey, auth.address, removed.position);
      const seq = this.record({
        tickKey: record.tickKey,
        kind: "remove",
        refId: id,
        address: auth.address,
        before: record.pool,
        after: removed.pool,
      });
      this.oweDoge(record.tick, auth.address, dogeOut, "liquidity_remove", id, tokenCost);
      if (removed.token > 0n)
        this.oweToken(record.tick, auth.address, removed.token, "liquidity_remove", id, tokenCost);
      this.s.insertLiquidity.run(
        id,
        record.tickKey,
        auth.address,
        "remove",
        null,
        null,
        removed.doge.toString(),
        removed.token.toString(),
        removed.shares.toString(),
        removed.fees.toString(),
        seq,
        now,
      );
      return this.liquidityOp(id)!;
    });
  }

  liquidityOp(id: string) {
    const r = this.s.liquidity.get(id) as Record<string, any> | undefined;
    if (!r) return null;
    return {
      id: r.id,
      tick: (this.s.pool.get(r.tick_key) as PoolRow).tick,
      address: r.address as string,
      kind: r.kind as string,
      dogeTxid: r.doge_txid as string | null,
      tokenTxid: r.token_txid as string | null,
      doge: BigInt(r.doge_amount),
      token: BigInt(r.token_amount),
      shares: BigInt(r.shares),
      fees: BigInt(r.fees),
      ledgerSeq: r.ledger_seq as number,
      createdAt: r.created_at as number,
      payouts: this.payoutsOf(id),
    };
  }

  /** Every position of `address`, valued at the current reserves, with its claimable fees. */
  positions(address: string) {
    return (this.s.positionsOf.all(address) as PositionRow[]).map((row) => {
      const { pool, tick } = this.pool(row.tick_key)!;
      const position = positionOf(row);
      const share = (reserve: bigint) => (pool.lpSupply === 0n ? 0n : (position.shares * reserve) / pool.lpSupply);
      return {
        tick,
        shares: position.shares,
        lpSupply: pool.lpSupply,
        doge: share(pool.dogeReserve),
        token: share(pool.tokenReserve),
        claimableFees: claimableFees(pool, position),
      };
    });
  }

  /** Fees audit of a pool over every position (the conservation check, for operators and tests). */
  audit(tick: string) {
    const { pool, tickKey } = this.poolOr404(tick);
    return auditFees(pool, (this.s.positionsIn.all(tickKey) as PositionRow[]).map(positionOf));
  }

  claims(address: string) {
    return (this.s.claimsOf.all(address) as Record<string, any>[]).map((r) => ({
      id: r.id as string,
      amount: BigInt(r.amount),
      pools: JSON.parse(r.pools) as string[],
      payout: this.payout(r.payout_id),
      createdAt: r.created_at as number,
    }));
  }

  /**
   * Claims every fee `auth.address` has earned in every pool: the positions' balances are zeroed,
   * the nonce consumed, the claim recorded and its DOGE payout queued, in one transaction.
   */
  claimFees(auth: Authorization): { id: string; amount: bigint; pools: string[]; payoutId: string } {
    return this.write(() => {
      this.checkAuthorization("claim-fees", {}, auth);
      let amount = 0n;
      const pools: string[] = [];
      const updates: [string, Pool, Position][] = [];
      for (const row of this.s.positionsOf.all(auth.address) as PositionRow[]) {
        const { pool, tick } = this.pool(row.tick_key)!;
        const claimed = claimFees(pool, positionOf(row));
        if (claimed.amount === 0n) continue;
        amount += claimed.amount;
        pools.push(tick);
        updates.push([row.tick_key, claimed.pool, claimed.position]);
      }
      if (amount === 0n)
        throw unprocessable("NOTHING_TO_CLAIM", `${auth.address} has no fees to claim`, { address: auth.address });
      if (!payoutAboveDust(amount, this.payoutCosts.dogeKoinu)) {
        throw unprocessable(
          "CLAIM_TOO_SMALL",
          `${amount} koinu, less the payout's cost ${this.payoutCosts.dogeKoinu}, is below the ${MIN_DOGE_KOINU}-koinu minimum payout; claim later`,
          {
            claimable: amount.toString(),
            min_koinu: MIN_DOGE_KOINU.toString(),
            payout_cost: this.payoutCosts.dogeKoinu.toString(),
          },
        );
      }
      for (const [tickKey, pool, position] of updates) {
        this.savePool(tickKey, pool);
        this.savePosition(tickKey, auth.address, position);
      }
      const id = newId("clm");
      const payoutId = this.oweDoge(null, auth.address, amount, "fee_claim", id)!;
      this.s.insertClaim.run(
        id,
        auth.address,
        auth.nonce,
        amount.toString(),
        JSON.stringify(pools),
        payoutId,
        this.now(),
      );
      return { id, amount, pools, payoutId };
    });
  }

  /**
   * Checks a wallet-signed authorization of `action` (orders.ts authorizationMessage, naming this
   * deployment) and consumes its nonce, inside the caller's write (the bonding store's too).
   */
  checkAuthorization(action: string, fields: Record<string, string>, auth: Authorization): void {
    const now = this.now();
    if (auth.expiresAt <= now)
      throw new Refusal("unauthorized", "AUTHORIZATION_EXPIRED", `the authorization expired at ${auth.expiresAt}`, {
        expires_at: auth.expiresAt,
        now,
      });
    if (auth.expiresAt > now + MAX_AUTHORIZATION_SECONDS) {
      throw badRequest(
        "AUTHORIZATION_TOO_LONG",
        `an authorization may be valid for at most ${MAX_AUTHORIZATION_SECONDS} s`,
        { field: "expires_at", max_seconds: MAX_AUTHORIZATION_SECONDS },
      );
    }
    requireSignature(
      this.domain,
      auth.address,
      auth.signature,
      authorizationMessage(this.domain, action, fields, auth),
    );
    if (this.s.useNonce.run(auth.address, auth.nonce, action, now).changes !== 1) {
      throw conflict("AUTHORIZATION_USED", `nonce ${auth.nonce} of ${auth.address} was already used`, {
        nonce: auth.nonce,
      });
    }
  }

  /** Spot price of a pool in koinu per token unit (priceString), or null for an empty pool. */
  static price(pool: Pool): string | null {
    return pool.tokenReserve === 0n ? null : priceString(pool.dogeReserve, pool.tokenReserve);
  }
}
