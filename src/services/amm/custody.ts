/**
 * The custody procedure (issue 26, item 8), written once for every order that pays the custody a
 * deposit and is then filled or refunded: a swap's execute (ledger.ts) and a bonding reservation's
 * confirm (bonding-store.ts). The order supplies only its trade (CustodyOrder: what it expects of its
 * deposit, how to apply the trade, what the trade pays); this module runs the rest, inside the
 * caller's write transaction:
 *
 * 1. A closed order (filled or refunded) answers `unchanged` for the txid it was closed with (and
 *    to the pending pass), and is refused 409 `<ORDER>_CLOSED` for any other.
 * 2. The deposit is bound through deposits.ts (its payer, not the service, deep enough, once). A
 *    deposit refused for the order is thrown (nothing consumed); the pending pass drops its
 *    announcement instead (`cleared`).
 * 3. A deposit the index does not show deep enough yet is announced through announcements.ts
 *    (`pending`, within the caps), except that an expired order takes no announcement of a txid
 *    the index does not hold (409 DEPOSIT_NOT_FOUND: announce it again once it is mined). The
 *    pending pass backs a pending announcement off, and clears it (`cleared`, DEPOSIT_NOT_SEEN)
 *    once the index has not shown the txid by its clear time.
 * 4. A bound deposit that cannot serve the order (late, too small: deposits.ts), or whose trade the
 *    order refuses, is refunded in full to its payer and the order closed `refunded`; the refusal
 *    is answered (committed first) with the refund's payout.
 * 5. Otherwise the trade is applied and its payouts queued: the DRC-20 payout of a DOGE deposit is
 *    paid for by the DOGE the deposit carries on top (`payoutCost`), the DOGE payout of a token
 *    deposit has its cost withheld; a deposit larger than the trade takes has its excess refunded,
 *    a token excess at the cost of a DRC-20 payout, which the order's DOGE payout pays when it can
 *    and still pay the order's minimum (else the operator does). The order is closed `filled`.
 *
 * The net payout rule lives here too: a DOGE payout is its gross less its cost (and the cost of a
 * sibling DRC-20 payout it pays for); nothing is sent when that is not positive, and an order's DOGE
 * side must leave at least MIN_DOGE_KOINU after its costs (payoutAboveDust).
 */
import type { Sqlite } from "../../db/sqlite";
import { Refusal, conflict } from "../../errors";
import { SOFT_DUST_LIMIT } from "../../wallet/fees";
import { Announcement, AnnouncementKind, DepositAnnouncements } from "./announcements";
import { Deposit, DepositOrder, DepositReader, UsedDeposits, bindDeposit } from "./deposits";
import { Payout, PayoutAsset, queuePayout, readPayout } from "./settlement";

/** The DOGE side of a swap (in or out), an added side and a fee claim are at least this (0.01 DOGE, Core's soft dust limit). */
export const MIN_DOGE_KOINU = SOFT_DUST_LIMIT;

/**
 * What one payout costs the operator, in koinu, charged to the order that owes it (docs/security.md,
 * threat-model rule 3): a DOGE payout's network fee is withheld from it; a DRC-20 payout's network
 * fees and postage are paid in DOGE by its order (on top of a DOGE deposit, or withheld from the
 * order's DOGE payout).
 */
export interface PayoutCosts {
  dogeKoinu: bigint;
  drc20Koinu: bigint;
}

/** What a DOGE payout of `grossKoinu` sends after `costKoinu` (its own cost and any it pays for): null when nothing is left. */
export function netDogePayout(grossKoinu: bigint, costKoinu: bigint): bigint | null {
  const net = grossKoinu - costKoinu;
  return net > 0n ? net : null;
}

/** Whether a DOGE payout of `grossKoinu` still pays at least MIN_DOGE_KOINU after `costKoinu` (below it a payout is dust). */
export function payoutAboveDust(grossKoinu: bigint, costKoinu: bigint): boolean {
  return grossKoinu - costKoinu >= MIN_DOGE_KOINU;
}

/** How a deposit reached the procedure: a request (its client's key for the caps; null: none), or the pending pass's check. */
export type CustodyVia = { client: string | null } | { check: Announcement; indexedHeight: number };

/** What the trade of an order came to, given its bound deposit. */
export type CustodyTrade<Applied> =
  /** The order cannot be filled (the deposit is refunded in full). */
  | { refused: Refusal }
  | {
      /** Of the deposit (less `payoutCost`), what the trade takes; the rest is refunded as excess. */
      paid: bigint;
      /** What the trade pays the order's address: tokens for a DOGE deposit, koinu (before its cost) for a token deposit. */
      amountOut: bigint;
      /** The least the order's address must get of a DOGE payout, after its cost (its minimum out). */
      minimumNet: bigint;
      /** The payout's reason ("swap", "bonding_buy", ...). */
      reason: string;
      /** Applies the trade to the order's book (pool, curve): called once the trade is certain. */
      apply(): Applied;
    };

/** What an order is closed with. */
export interface CustodyClose<Applied> {
  depositTxid: string;
  depositAmount: bigint;
  /** Filled: what the trade took of the deposit and paid out, its payout, the trade's own record. */
  paid?: bigint;
  amountOut?: bigint;
  payoutId?: string;
  applied?: Applied;
  /** The refund of a refused deposit, or of a filled order's excess. */
  refundPayoutId?: string;
  /** Refunded: why. */
  error?: Refusal;
}

/** An order as the custody procedure sees it: swaps and bonding reservations supply this. */
export interface CustodyOrder<Applied> {
  /** The announcement's kind. */
  kind: AnnouncementKind;
  /** What the order expects of its deposit (deposits.ts): its id, address, asset, tick, exact amount and expiry. */
  deposit: DepositOrder;
  /** DOGE a DOGE deposit carries on top of the trade for its DRC-20 payout's cost (0 otherwise). */
  payoutCost: bigint;
  /** The order's status when it is closed (filled or refunded), else null. */
  closedStatus: string | null;
  /** The txid a closed order was closed with. */
  closedWith: string | null;
  /** Whether the order expired (by its status or its expiry): it takes no announcement of a txid the index does not hold. */
  expired: boolean;
  /** The order's words: "swap" / "reservation", its deposit's ("deposit" / "payment"), the id field of its answers, its closed code, its payouts' reason prefix. */
  words: { order: string; deposit: string; idField: string; closedCode: string; reason: string };
  /** The announced txid is the order's pending deposit (its row shows it). */
  markAnnounced(txid: string, now: number): void;
  /** The announcement is gone unbound (never seen by the index, or refused): the order forgets it. */
  markUnannounced(code: string, message: string, now: number): void;
  /** Closes the order, filled or refunded. */
  close(status: "filled" | "refunded", fields: CustodyClose<Applied>, now: number): void;
  /** The trade the bound deposit `deposit` makes (nothing written until `apply`). */
  trade(deposit: Deposit): CustodyTrade<Applied>;
  /** Told of a refund (its amount after cost), after the order is closed. */
  refunded?(error: Refusal, refundAmount: bigint): void;
}

/** What the procedure came to (a refusal that consumed and refunded the deposit is answered as a Refusal, to be thrown after the commit). */
export type CustodyOutcome<Applied> =
  { outcome: "filled"; applied: Applied } | { outcome: "pending" | "unchanged" | "cleared" };

export interface CustodyOptions {
  db: Sqlite;
  /** Unix seconds: the payouts' times. */
  clock: () => number;
  payoutCosts: PayoutCosts;
  deposits: DepositReader;
  used: UsedDeposits;
  announcements: DepositAnnouncements;
}

export class Custody {
  readonly payoutCosts: PayoutCosts;
  readonly announcements: DepositAnnouncements;

  constructor(private readonly options: CustodyOptions) {
    this.payoutCosts = options.payoutCosts;
    this.announcements = options.announcements;
  }

  // ------------------------------------------------------------------------------ payouts

  /**
   * Owes `gross` koinu to `address` (inside the caller's write), less the operator's cost of paying
   * it (`payoutCosts.dogeKoinu`) and of `siblingCostKoinu` (a DRC-20 payout of the same order paid
   * from this DOGE). Answers the payout's id, or null when the costs take it all (nothing is sent).
   */
  oweDoge(
    tick: string | null,
    address: string,
    gross: bigint,
    reason: string,
    refId: string,
    siblingCostKoinu = 0n,
  ): string | null {
    const net = netDogePayout(gross, this.payoutCosts.dogeKoinu + siblingCostKoinu);
    if (net === null) return null;
    return queuePayout(this.options.db, this.options.clock(), {
      asset: "DOGE",
      tick,
      address,
      amount: net,
      reason,
      refId,
      costKoinu: this.payoutCosts.dogeKoinu,
    });
  }

  /** Owes `amount` of `tick` to `address` (inside the caller's write); `paidKoinu`: the DOGE its order paid toward its cost (0: the operator's). */
  oweToken(tick: string, address: string, amount: bigint, reason: string, refId: string, paidKoinu: bigint): string {
    return queuePayout(this.options.db, this.options.clock(), {
      asset: "DRC20",
      tick,
      address,
      amount,
      reason,
      refId,
      costKoinu: paidKoinu,
    });
  }

  /** Owes a deposit back in full to its payer: DOGE less its payout cost; DRC-20 at the operator's cost (there is no DOGE to charge). */
  oweRefund(
    asset: PayoutAsset,
    tick: string,
    address: string,
    amount: bigint,
    reason: string,
    refId: string,
  ): string | null {
    return asset === "DOGE"
      ? this.oweDoge(tick, address, amount, reason, refId)
      : this.oweToken(tick, address, amount, reason, refId, 0n);
  }

  payout(id: string): Payout | null {
    return readPayout(this.options.db, id);
  }

  // ---------------------------------------------------------------------------- procedure

  /**
   * Runs the procedure of the file's comment for `order` against the deposit `txid` its payer
   * announced with a valid signature (the caller checked it), inside the caller's write at `now`.
   * Throws the refusals that change nothing; answers the ones that consumed and refunded the deposit.
   */
  settle<Applied>(
    order: CustodyOrder<Applied>,
    txid: string,
    via: CustodyVia,
    now: number,
  ): CustodyOutcome<Applied> | Refusal {
    const { announcements } = this;
    const { words } = order;
    const id = order.deposit.id;
    const check = "check" in via ? via.check : null;
    const checkHeight = "check" in via ? via.indexedHeight : 0;
    if (order.closedStatus !== null) {
      if (check) announcements.remove(id);
      if (order.closedWith === txid || check) return { outcome: "unchanged" };
      throw conflict(words.closedCode, `${words.order} ${id} is ${order.closedStatus}`, {
        [words.idField]: id,
        status: order.closedStatus,
      });
    }
    const bound = bindDeposit(this.options.deposits, this.options.used, order.deposit, txid, now);
    const unannounce = (code: string, message: string): CustodyOutcome<Applied> => {
      announcements.remove(id);
      order.markUnannounced(code, message, now);
      return { outcome: "cleared" };
    };
    if (bound.kind === "refused") {
      // The pass drops a txid that turned out not to be this order's (it never will be).
      if (check) return unannounce(bound.error.code, bound.error.message);
      throw bound.error;
    }
    if (bound.kind === "pending") {
      if (check) {
        if (bound.reason === "NOT_INDEXED" && announcements.expired(check, now, checkHeight))
          return unannounce(
            "DEPOSIT_NOT_SEEN",
            `the announced ${words.deposit} ${txid} was not in an indexed block by ${check.clearAt}; no ${words.deposit} was mined for this ${words.order} before ${order.deposit.expiresAt}`,
          );
        announcements.checked(check, now);
        return { outcome: "pending" };
      }
      // An expired order takes no announcement of a txid the index does not hold (it could only be
      // refunded): announce it again once it is mined.
      if (order.expired && bound.reason === "NOT_INDEXED" && announcements.get(id)?.txid !== txid) {
        throw conflict(
          "DEPOSIT_NOT_FOUND",
          `${txid} is not in an indexed block; ${words.order} ${id} expired, so its ${words.deposit} is refunded once it is mined and announced again`,
          { deposit_txid: txid },
        );
      }
      // Not in an indexed block yet, or not deep enough: remembered (within the caps), and settled
      // by the pending pass once it is (a later announcement with another txid replaces it).
      announcements.announce({
        kind: order.kind,
        refId: id,
        txid,
        address: order.deposit.address,
        client: "client" in via ? via.client : null,
        orderExpiresAt: order.deposit.expiresAt ?? now,
        now,
        indexedHeight: this.options.deposits.indexedHeight(),
      });
      order.markAnnounced(txid, now);
      return { outcome: "pending" };
    }
    const { deposit } = bound;
    const { asset, tick, address } = order.deposit;
    const close = (
      status: "filled" | "refunded",
      fields: Omit<CustodyClose<Applied>, "depositTxid" | "depositAmount">,
    ) => {
      order.close(status, { depositTxid: txid, depositAmount: deposit.amount, ...fields }, now);
      announcements.remove(id);
    };
    const refuse = (error: Refusal): Refusal => {
      const refundPayoutId = this.oweRefund(
        asset,
        tick,
        address,
        deposit.amount,
        `${words.reason}_refund:${error.code}`,
        id,
      );
      close("refunded", { refundPayoutId: refundPayoutId ?? undefined, error });
      const refundAmount = refundPayoutId ? this.payout(refundPayoutId)!.amount : 0n;
      order.refunded?.(error, refundAmount);
      return new Refusal(error.kind, error.code, error.message, {
        ...error.details,
        [words.idField]: id,
        refund_payout_id: refundPayoutId,
        refund_amount: refundAmount.toString(),
      });
    };
    if (bound.kind === "refund") return refuse(bound.error);
    const trade = order.trade(deposit);
    if ("refused" in trade) return refuse(trade.refused);
    const applied = trade.apply();
    const { drc20Koinu, dogeKoinu } = this.payoutCosts;
    const excess = deposit.amount - trade.paid - order.payoutCost;
    let payoutId: string;
    let refundPayoutId: string | undefined;
    if (asset === "DOGE") {
      payoutId = this.oweToken(tick, address, trade.amountOut, trade.reason, id, order.payoutCost);
      if (excess > 0n) refundPayoutId = this.oweDoge(tick, address, excess, `${words.reason}_excess`, id) ?? undefined;
    } else {
      // Tokens paid in excess go back at the cost of a DRC-20 payout, which the order's DOGE payout
      // pays when it can do so and still pay its minimum (else the operator does).
      const floor = trade.minimumNet > MIN_DOGE_KOINU ? trade.minimumNet : MIN_DOGE_KOINU;
      const excessCost = excess > 0n && trade.amountOut - dogeKoinu - drc20Koinu >= floor ? drc20Koinu : 0n;
      payoutId = this.oweDoge(tick, address, trade.amountOut, trade.reason, id, excessCost)!;
      if (excess > 0n) refundPayoutId = this.oweToken(tick, address, excess, `${words.reason}_excess`, id, excessCost);
    }
    close("filled", { paid: trade.paid, amountOut: trade.amountOut, payoutId, refundPayoutId, applied });
    return { outcome: "filled", applied };
  }
}
