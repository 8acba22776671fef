/**
 * DRC-20 holders of one tick, largest first: the tick page's holder list and count.
 *
 * Balances are decimal strings (bigint's toString: no sign, no leading zeros), so neither backend
 * can order them by value or add available and transferable exactly; the tick's rows are read and
 * ordered here by their total (available + transferable), ties by address (bytewise, as both
 * backends compare `COLLATE "C"` text). A page starts after the previous page's last (total,
 * address), so a holder whose balance changes between pages is seen at most once per position.
 *
 * Cost: one pass over the tick's balance rows (drc20_balances_by_tick, schema version 9: bounded by
 * the addresses that ever held the tick, not by its operations) with each holder's address read
 * by id.
 */
import type { SqlDatabase } from "../../db/sql";
import { prepareAll } from "./rows";

export interface Drc20HolderView {
  address: string;
  available: string;
  transferable: string;
}

/** Where a page of holders starts: after this (total, address). */
export interface Drc20HolderKey {
  total: bigint;
  address: string;
}

export class Drc20HolderReads {
  private readonly s;

  constructor(db: SqlDatabase) {
    this.s = prepareAll(db, {
      holders: `SELECT a.address, b.available, b.transferable FROM drc20_balances b JOIN addresses a ON a.id = b.address_id
        WHERE b.tick_key = ? AND (b.available != '0' OR b.transferable != '0')`,
    });
  }

  /**
   * Holders of the tick keyed `tickKey` (non-zero available or transferable), largest total first,
   * at most `limit` after `after`; `holderCount` counts every holder, `next` is the key of the last
   * item when more follow.
   */
  holders(
    tickKey: string,
    after: Drc20HolderKey | null,
    limit: number,
  ): { holderCount: number; items: Drc20HolderView[]; next: Drc20HolderKey | null } {
    const rows = (this.s.holders.all(tickKey) as Drc20HolderView[]).map((r) => ({
      address: r.address,
      available: r.available,
      transferable: r.transferable,
      total: BigInt(r.available) + BigInt(r.transferable),
    }));
    const before = (a: Drc20HolderKey, b: Drc20HolderKey) =>
      a.total !== b.total ? a.total > b.total : a.address < b.address;
    rows.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
    const start = after === null ? 0 : rows.findIndex((r) => before(after, r));
    const page = start < 0 ? [] : rows.slice(start, start + Math.max(0, limit));
    const last = page[page.length - 1];
    const more = start >= 0 && start + page.length < rows.length;
    return {
      holderCount: rows.length,
      items: page.map((r) => ({ address: r.address, available: r.available, transferable: r.transferable })),
      next: more && last ? { total: last.total, address: last.address } : null,
    };
  }
}
