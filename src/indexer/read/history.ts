/** An address's transactions, newest first, from the rows the indexer wrote per (address, transaction). */
import type { SqlDatabase } from "../../db/sql";
import { KEY_MAX, PlanRunner, ReadPlan, hexOf, keyInt, rowsOf, txIdBefore } from "./rows";
import { refuseWhileCatchUpLogged } from "./status";

export interface HistoryItemView {
  txid: string;
  height: number;
  position: number;
  direction: "in" | "out" | "self";
  counterparty: string | null;
  amountKoinu: bigint;
  isDoginal: boolean;
}

/** Transactions per reveal lookup (the statement's placeholders; a short chunk is padded with -1, no id). */
const REVEAL_CHUNK = 25;

// address_history_by_address (address_id, tx_id) newest first below the cursor's transaction id: a
// deep page starts at its cursor instead of walking the address's newer rows.
const SQL = {
  address: "SELECT a.id, s.tx_count FROM addresses a JOIN address_stats s ON s.id = a.id WHERE a.address = ?",
  // `+ 0`: PostgreSQL then probes txs by id per history row (a nested loop) instead of merging with
  // txs walked down from the newest transaction (5.7 ms for a first page of 50 of an address with
  // 1,240 on the bench chain, 0.6 ms so); SQLite's plan is the same either way.
  history: `SELECT h.tx_id, t.txid, t.height, t.position, h.received, h.sent, c.address AS counterparty
    FROM address_history h JOIN txs t ON t.id = h.tx_id + 0 LEFT JOIN addresses c ON c.id = h.counterparty_id
    WHERE h.address_id = ? AND h.tx_id < ? ORDER BY h.tx_id DESC LIMIT ?`,
  // Which of a page's transactions are Doginals reveals: one statement per page, not one per row.
  revealed: `SELECT DISTINCT reveal_tx_id FROM inscriptions WHERE reveal_tx_id IN (${Array(REVEAL_CHUNK).fill("?").join(", ")})`,
};

/**
 * A page of `address`'s transactions before the key `before`; `total` is the address's transaction
 * count. A read plan (./rows.ts): HistoryReads runs it synchronously, AsyncIndexReads from a pool.
 */
export function* historyPage(
  address: string,
  before: { height: number; position: number } | null,
  pageSize: number,
): ReadPlan<{ total: number; items: HistoryItemView[] }> {
  const height = keyInt(before?.height ?? KEY_MAX);
  const position = keyInt(before?.position ?? 0);
  // The transaction count is address_stats', which a logged catch-up writes when it ends.
  yield* refuseWhileCatchUpLogged({ address });
  const [found] = yield* rowsOf<{ id: number | bigint; tx_count: number | bigint }>(SQL.address, [address], {
    one: true,
  });
  if (!found) return { total: 0, items: [] };
  const bound = yield* txIdBefore(height, position);
  const rows = yield* rowsOf<{
    tx_id: bigint;
    txid: Buffer;
    height: bigint;
    position: bigint;
    received: bigint;
    sent: bigint;
    counterparty: string | null;
  }>(SQL.history, [found.id, bound, pageSize], { safe: true });
  const txids = rows.map((r) => hexOf(r.txid));
  const ids = rows.map((r) => Number(r.tx_id));
  const revealed = new Set<number>();
  for (let i = 0; i < ids.length; i += REVEAL_CHUNK) {
    const part = ids.slice(i, i + REVEAL_CHUNK);
    while (part.length < REVEAL_CHUNK) part.push(-1);
    for (const r of yield* rowsOf<{ reveal_tx_id: number | bigint }>(SQL.revealed, part))
      revealed.add(Number(r.reveal_tx_id));
  }
  return {
    total: Number(found.tx_count),
    items: rows.map((r, i) => {
      const received = BigInt(r.received);
      const sent = BigInt(r.sent);
      const net = received - sent;
      const direction = sent === 0n ? "in" : received === 0n ? "out" : net >= 0n ? "self" : "out";
      return {
        txid: txids[i],
        height: Number(r.height),
        position: Number(r.position),
        direction,
        counterparty: r.counterparty,
        amountKoinu: net < 0n ? -net : net,
        isDoginal: revealed.has(ids[i]),
      };
    }),
  };
}

export class HistoryReads {
  private readonly plans: PlanRunner;
  private readonly s;

  constructor(db: SqlDatabase) {
    this.plans = new PlanRunner(db);
    this.s = this.plans.prepare(SQL);
  }

  /** A page of `address`'s transactions before the key `before`; `total` is the address's transaction count. */
  history(
    address: string,
    before: { height: number; position: number } | null,
    pageSize: number,
  ): { total: number; items: HistoryItemView[] } {
    return this.plans.run(historyPage(address, before, pageSize));
  }
}
