/** An address's transactions, newest first, from the rows the indexer wrote per (address, transaction). */
import type { SqlDatabase } from "../../db/sql";
import { KEY_MAX, keyInt, prepareAll } from "./rows";

export interface HistoryItemView {
  txid: string;
  height: number;
  position: number;
  direction: "in" | "out" | "self";
  counterparty: string | null;
  amountKoinu: bigint;
  isDoginal: boolean;
}

export class HistoryReads {
  private readonly s;

  constructor(db: SqlDatabase) {
    this.s = prepareAll(db, {
      // `h.height <= ?` bounds the primary key's range: a deep page starts at its cursor instead of
      // walking the address's newer rows.
      // Whether each is a Doginals reveal, in the same statement: one round trip per page, not one per row.
      history: `SELECT h.txid, h.height, h.position, h.received, h.sent, h.counterparty,
        CASE WHEN EXISTS (SELECT 1 FROM inscriptions i WHERE i.reveal_txid = h.txid) THEN 1 ELSE 0 END AS revealed
        FROM address_history h WHERE h.address = ? AND h.height <= ?
        AND (h.height < ? OR (h.height = ? AND h.position < ?)) ORDER BY h.height DESC, h.position DESC LIMIT ?`,
      // The indexer's counter (one row per address), not a count of the history rows.
      txCount: "SELECT tx_count FROM balances WHERE address = ?",
    });
    this.s.history.safeIntegers(true);
  }

  /** A page of `address`'s transactions before the key `before`; `total` is the address's transaction count. */
  history(
    address: string,
    before: { height: number; position: number } | null,
    pageSize: number,
  ): { total: number; items: HistoryItemView[] } {
    const height = keyInt(before?.height ?? KEY_MAX);
    const position = keyInt(before?.position ?? 0);
    const rows = this.s.history.all(address, height, height, height, position, pageSize) as {
      txid: string;
      height: bigint;
      position: bigint;
      received: bigint;
      sent: bigint;
      counterparty: string | null;
      revealed: bigint;
    }[];
    const total = Number((this.s.txCount.get(address) as { tx_count: number } | undefined)?.tx_count ?? 0);
    return {
      total,
      items: rows.map((r) => {
        const received = BigInt(r.received);
        const sent = BigInt(r.sent);
        const net = received - sent;
        const direction = sent === 0n ? "in" : received === 0n ? "out" : net >= 0n ? "self" : "out";
        return {
          txid: r.txid,
          height: Number(r.height),
          position: Number(r.position),
          direction,
          counterparty: r.counterparty,
          amountKoinu: net < 0n ? -net : net,
          isDoginal: Number(r.revealed) === 1,
        };
      }),
    };
  }
}
