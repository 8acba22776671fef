/**
 * What every subject reader shares: the statement map type and the conversions of stored values
 * that both backends return alike (BLOB columns come back as Buffer; hex is computed here, never
 * with SQL's hex(), which PostgreSQL lacks).
 */
import type { SqlDatabase, SqlStatement } from "../../db/sql";

export type Statements<K extends string> = Record<K, SqlStatement>;

/** Prepares each SQL text of `sql` on `db`, keeping the keys. */
export function prepareAll<K extends string>(db: SqlDatabase, sql: Record<K, string>): Statements<K> {
  return Object.fromEntries(
    Object.entries(sql).map(([key, text]) => [key, db.prepare(text as string)]),
  ) as Statements<K>;
}

/** Lower-case hexadecimal of a BLOB column's value. */
export function hexOf(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** Above every height, position in a block and output index: INTEGER is 32 bits on PostgreSQL. */
export const KEY_MAX = 2 ** 31 - 1;

/**
 * A page key's number as both backends can compare it: an integer in [-1, KEY_MAX]. Cursors come
 * from clients (any JSON number) and first pages start "above everything" (KEY_MAX); PostgreSQL
 * refuses a parameter outside its column's type instead of comparing it.
 */
export function keyInt(value: number): number {
  if (Number.isNaN(value)) return -1;
  return Math.min(Math.max(Math.trunc(value), -1), KEY_MAX);
}

/**
 * A txid (64 lower-case hex digits) as the index stores it, a 32-byte BLOB; null for anything else,
 * which matches no row (as a text key in another case or length matched none before version 8).
 */
export function txidKey(txid: string): Buffer | null {
  return /^[0-9a-f]{64}$/.test(txid) ? Buffer.from(txid, "hex") : null;
}

/**
 * Statements that turn a (height, position) key into a transaction id bound: transaction ids are
 * in chain order and a block records its first one, so "before (height, position)" is "id below
 * the bound" and "at or below height" is "id below the first id above it".
 */
export class TxIdBounds {
  private readonly s;

  constructor(db: SqlDatabase) {
    this.s = prepareAll(db, {
      firstAtOrAbove: "SELECT height, first_tx_id, tx_count FROM blocks WHERE height >= ? ORDER BY height LIMIT 1",
    });
  }

  /** The first id of a transaction at or after (height, position): every id below it comes before. */
  before(height: number, position: number): number {
    if (Number.isNaN(height) || Number.isNaN(position)) return 0;
    if (height > KEY_MAX) return Number.MAX_SAFE_INTEGER;
    if (height < -1) height = -1;
    const row = this.s.firstAtOrAbove.get(height) as
      { height: number | bigint; first_tx_id: number | bigint; tx_count: number | bigint } | undefined;
    if (!row) return Number.MAX_SAFE_INTEGER;
    const first = Number(row.first_tx_id);
    if (Number(row.height) !== height) return first;
    return first + Math.min(Math.max(position, 0), Number(row.tx_count));
  }

  /** The first id of a transaction above `height` (every id below it is at or below the height). */
  above(height: number): number {
    if (Number.isNaN(height)) return 0;
    return this.before(Math.floor(height) + 1, 0);
  }
}
