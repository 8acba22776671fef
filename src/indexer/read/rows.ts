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
