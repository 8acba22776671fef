/**
 * The index's blocks by height, as read plans (./rows.ts), so that a caller runs them synchronously
 * or on a connection pool (./async.ts): the indexed tip, and the hash and time of the block at a
 * height (Esplora's confirmation status of a transaction or output of that block). Block hashes are
 * stored as 32-byte BLOBs in display byte order (schema version 9) and read as hex.
 */
import { KEY_MAX, ReadPlan, hexOf, rowsOf } from "./rows";

/** A block of the index: its hash (64 hex digits) and its header time (Unix seconds). */
export interface IndexedBlock {
  hash: string;
  time: number;
}

/**
 * Every SQL text the plans of this module ask for (the index-readers test explains each of them and
 * checks that the plans ask for nothing else).
 */
export const BLOCKS_SQL = {
  // ORDER BY height DESC LIMIT 1: one row from the end of the primary key.
  tip: "SELECT height, hash FROM blocks ORDER BY height DESC LIMIT 1",
  at: "SELECT hash, time FROM blocks WHERE height = ?",
};

/** The last indexed block (height and hash), or null before the first. */
export function* indexedTip(): ReadPlan<{ height: number; hash: string } | null> {
  const [row] = yield* rowsOf<{ height: number | bigint; hash: Uint8Array }>(BLOCKS_SQL.tip, [], { one: true });
  return row ? { height: Number(row.height), hash: hexOf(row.hash) } : null;
}

/** The index's block at `height`, or null when it holds none there. */
export function* blockAt(height: number): ReadPlan<IndexedBlock | null> {
  // PostgreSQL's INTEGER is 32 bits: no block is outside [0, KEY_MAX], so nothing is asked.
  if (!Number.isInteger(height) || height < 0 || height > KEY_MAX) return null;
  const [row] = yield* rowsOf<{ hash: Uint8Array; time: number | bigint }>(BLOCKS_SQL.at, [height], { one: true });
  return row ? { hash: hexOf(row.hash), time: Number(row.time) } : null;
}
