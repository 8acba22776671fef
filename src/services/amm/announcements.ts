/**
 * Deposits announced before the index shows them (issue 26, item 6): a swap's execute or a bonding
 * reservation's confirm whose signed txid is not in an indexed block yet, or not deep enough, is
 * answered 202 and remembered here, and the pending passes (AmmLedger.retryPending,
 * BondingStore.runOnce) bind it once the index shows it. This module owns the
 * `deposit_announcements` table; the ledger and the bonding store call it inside their own write
 * transactions, and keep the txid on their order's row for display (`deposit_txid`, `pending_txid`).
 *
 * The rules (docs/security.md "AMM and bonding custody"):
 * - Live announcements are capped per address (`maxPendingPerAddress`, default 3) and per client
 *   (`maxPendingPerClient`, default 20; the client key of the HTTP rate limit, IPv6 by its /56),
 *   swaps and reservations together: past a cap a new one is refused 429 TOO_MANY_PENDING with
 *   Retry-After. Replacing an order's announcement with another txid is not a new one.
 * - An announcement is checked when it is due (`next_check_at`, indexed): at the next pass, then
 *   2 s later, doubling up to 64 s; a pass takes at most `pendingChecksPerPass` of each kind, the
 *   most overdue first, so a pass does work proportional to what is due, never to every row.
 * - A txid the index has not seen by `clear_at` (DEPOSIT_GRACE_SECONDS after the announcement or
 *   the order's expiry, whichever is later; a replacement never moves it) is cleared once the
 *   index has indexed a block since the announcement (a stopped indexer clears nothing): its order
 *   is expired like any unpaid one, and pruned with them. A txid the index shows but not deep
 *   enough yet is kept until it is deep (and bound) or leaves the index (and is cleared).
 */
import type { Sqlite } from "../../db/sqlite";
import { Refusal } from "../../errors";

/** How long an announced txid may stay unseen by the index after its announcement or its order's expiry (then it is cleared). */
export const DEPOSIT_GRACE_SECONDS = 3_600;
/** Live pending announcements of one address (swaps and reservations together). */
export const DEFAULT_MAX_PENDING_PER_ADDRESS = 3;
/** Live pending announcements of one client (the rate limit's client key). */
export const DEFAULT_MAX_PENDING_PER_CLIENT = 20;
/** Announcements of each kind one pass checks at most. */
export const DEFAULT_PENDING_CHECKS_PER_PASS = 50;
/** The first re-check after the first pass's, seconds; each later one waits twice as long, up to MAX_CHECK_INTERVAL_SECONDS. */
export const FIRST_CHECK_INTERVAL_SECONDS = 2;
export const MAX_CHECK_INTERVAL_SECONDS = 64;

export type AnnouncementKind = "swap" | "bonding";

export interface AnnouncementLimits {
  /** Live pending announcements of one address (default 3). */
  maxPendingPerAddress?: number;
  /** Live pending announcements of one client IP (default 20). */
  maxPendingPerClient?: number;
  /** Announcements of each kind a pass checks at most (default 50). */
  pendingChecksPerPass?: number;
}

export interface Announcement {
  /** The order's id (a swap's, a reservation's). */
  refId: string;
  kind: AnnouncementKind;
  txid: string;
  address: string;
  /** The announcing client's key (the rate limit's), or null when it was not made over HTTP. */
  client: string | null;
  announcedAt: number;
  /** The indexed height when it was announced. */
  announcedHeight: number;
  /** Cleared when the index has not shown the txid by then. */
  clearAt: number;
  nextCheckAt: number;
  checks: number;
}

interface AnnouncementRow {
  ref_id: string;
  kind: AnnouncementKind;
  txid: string;
  address: string;
  client: string | null;
  announced_at: number;
  announced_height: number;
  clear_at: number;
  next_check_at: number;
  checks: number;
}

const announcementOf = (r: AnnouncementRow): Announcement => ({
  refId: r.ref_id,
  kind: r.kind,
  txid: r.txid,
  address: r.address,
  client: r.client,
  announcedAt: r.announced_at,
  announcedHeight: r.announced_height,
  clearAt: r.clear_at,
  nextCheckAt: r.next_check_at,
  checks: r.checks,
});

const positive = (value: number | undefined, fallback: number, name: string): number => {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`${name} must be an integer of at least 1, got ${n}`);
  return n;
};

export class DepositAnnouncements {
  readonly maxPendingPerAddress: number;
  readonly maxPendingPerClient: number;
  readonly pendingChecksPerPass: number;
  private readonly s;

  constructor(db: Sqlite, limits: AnnouncementLimits = {}) {
    this.maxPendingPerAddress = positive(
      limits.maxPendingPerAddress,
      DEFAULT_MAX_PENDING_PER_ADDRESS,
      "maxPendingPerAddress",
    );
    this.maxPendingPerClient = positive(
      limits.maxPendingPerClient,
      DEFAULT_MAX_PENDING_PER_CLIENT,
      "maxPendingPerClient",
    );
    this.pendingChecksPerPass = positive(
      limits.pendingChecksPerPass,
      DEFAULT_PENDING_CHECKS_PER_PASS,
      "pendingChecksPerPass",
    );
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      get: p("SELECT * FROM deposit_announcements WHERE ref_id = ?"),
      ofAddress: p(
        "SELECT COUNT(*) AS n, MIN(next_check_at) AS next FROM deposit_announcements WHERE address = ? AND ref_id <> ?",
      ),
      ofClient: p(
        "SELECT COUNT(*) AS n, MIN(next_check_at) AS next FROM deposit_announcements WHERE client = ? AND ref_id <> ?",
      ),
      insert:
        p(`INSERT INTO deposit_announcements (ref_id, kind, txid, address, client, announced_at, announced_height, clear_at, next_check_at, checks)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)`),
      replace: p("UPDATE deposit_announcements SET txid = ?, next_check_at = ?, checks = 0 WHERE ref_id = ?"),
      due: p(
        "SELECT * FROM deposit_announcements WHERE kind = ? AND next_check_at <= ? ORDER BY next_check_at LIMIT ?",
      ),
      checked: p("UPDATE deposit_announcements SET checks = checks + 1, next_check_at = ? WHERE ref_id = ?"),
      remove: p("DELETE FROM deposit_announcements WHERE ref_id = ?"),
      count: p("SELECT COUNT(*) AS n FROM deposit_announcements"),
    };
  }

  /** The live announcement of order `refId`, or null. */
  get(refId: string): Announcement | null {
    const row = this.s.get.get(refId) as AnnouncementRow | undefined;
    return row ? announcementOf(row) : null;
  }

  /**
   * Records `txid` as the pending deposit of order `refId` (inside the caller's write): a new
   * announcement when the order has none (refused 429 TOO_MANY_PENDING past a cap), else the
   * order's announcement names `txid` from now on and is checked at the next pass (its clear time
   * stays). Due at the next pass either way.
   */
  announce(request: {
    kind: AnnouncementKind;
    refId: string;
    txid: string;
    address: string;
    client: string | null;
    orderExpiresAt: number;
    now: number;
    indexedHeight: number;
  }): void {
    const { now } = request;
    const existing = this.get(request.refId);
    if (existing) {
      if (existing.txid !== request.txid) this.s.replace.run(request.txid, now, request.refId);
      return;
    }
    const caps = [
      { scope: "address", limit: this.maxPendingPerAddress, key: request.address, statement: this.s.ofAddress },
      ...(request.client === null
        ? []
        : [{ scope: "client", limit: this.maxPendingPerClient, key: request.client, statement: this.s.ofClient }]),
    ];
    for (const cap of caps) {
      const { n, next } = cap.statement.get(cap.key, request.refId) as { n: number; next: number | null };
      if (n < cap.limit) continue;
      // A slot frees when one of them is bound (at its next check at the earliest) or cleared.
      const retryAfter = Math.max(1, (next ?? now) - now);
      throw new Refusal(
        "rate_limited",
        "TOO_MANY_PENDING",
        cap.scope === "address"
          ? `${request.address} has ${n} announced deposits the index does not show yet; retry once one of them is mined or cleared`
          : `this client has ${n} announced deposits the index does not show yet; retry once one of them is mined or cleared`,
        { scope: cap.scope, limit: cap.limit, pending: n },
        { retryAfterSeconds: retryAfter },
      );
    }
    this.s.insert.run(
      request.refId,
      request.kind,
      request.txid,
      request.address,
      request.client,
      now,
      request.indexedHeight,
      Math.max(now, request.orderExpiresAt) + DEPOSIT_GRACE_SECONDS,
      now,
    );
  }

  /** The announcements of `kind` due at `now`, most overdue first, at most `pendingChecksPerPass`. */
  due(kind: AnnouncementKind, now: number): Announcement[] {
    return (this.s.due.all(kind, now, this.pendingChecksPerPass) as AnnouncementRow[]).map(announcementOf);
  }

  /** Whether `announcement`, still not seen by the index, is to be cleared now (its grace is over and the index moved). */
  expired(announcement: Announcement, now: number, indexedHeight: number): boolean {
    return now >= announcement.clearAt && indexedHeight > announcement.announcedHeight;
  }

  /** After a check of `announcement` (as `due` answered it) that left it pending: its next check, backed off (inside the caller's write). */
  checked(announcement: Announcement, now: number): void {
    const interval = Math.min(
      MAX_CHECK_INTERVAL_SECONDS,
      FIRST_CHECK_INTERVAL_SECONDS * 2 ** Math.min(announcement.checks, 16),
    );
    // The clearing is due at its time, not up to an interval late.
    const next = now < announcement.clearAt ? Math.min(now + interval, announcement.clearAt) : now + interval;
    this.s.checked.run(next, announcement.refId);
  }

  /** Forgets order `refId`'s announcement: the order was bound, closed or cleared (inside the caller's write). */
  remove(refId: string): void {
    this.s.remove.run(refId);
  }

  /** Live announcements (operators, tests). */
  count(): number {
    return (this.s.count.get() as { n: number }).n;
  }
}
