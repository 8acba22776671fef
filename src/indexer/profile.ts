/**
 * Index profiles (issue 27, item 5). An index is built with one profile for its life, recorded in
 * its meta table (`profile`; an index from before profiles existed is `full`):
 *
 * - `full`: every row the indexer derives; what the explorer, Esplora and the custody services read.
 * - `attester`: what an attester's facts read and what the indexer itself reads back while it
 *   writes. The facts read the index only through IndexHistory (read/as-of-height.ts), which never
 *   reads `outputs`; the writer reads an output again only to spend it (an output is spent once),
 *   to undo spends above a fork (rollbackAbove: never below the deepest reorg it handles) and, for
 *   an inscription's inscriber, to find what a commit's input 0 spent (the tracker's `funder`
 *   statement, asked when a reveal spends one of the commit's outputs). So this profile deletes a
 *   spent output once its spender's block is deeper than `maxReorgDepth` below the tip, except the
 *   output a transaction's input 0 spent while that transaction has an output a later transaction
 *   could still spend (unspent, or spent above that depth, which a reorg may undo): `funder` then
 *   answers as on a full index. Only rows of `outputs` are deleted; every other table is the full
 *   profile's, row for row (test/indexer/attester-profile.test.ts).
 *
 * A rollback below the deepest height pruned so far would need deleted rows: the indexer refuses
 * it as a reorg too deep (meta `spends_pruned_to_height`). The indexer refuses to open an index
 * with another profile than it was built with; readers that need spent outputs (the explorer,
 * Esplora, the custody services) refuse an attester index (database.ts openIndexReader).
 */
import type { SqlDatabase, SqlStatement } from "../db/sql";
import { DogeosError } from "../errors";

export const INDEX_PROFILES = ["full", "attester"] as const;
export type IndexProfile = (typeof INDEX_PROFILES)[number];

export function isIndexProfile(value: string): value is IndexProfile {
  return (INDEX_PROFILES as readonly string[]).includes(value);
}

/** The profile an index records; `full` for an index built before profiles existed (or none yet). */
export function profileOf(db: SqlDatabase): string {
  const row = db.prepare<{ value: string }>("SELECT value FROM meta WHERE key = 'profile'").get();
  return row?.value ?? "full";
}

export class IndexProfileMismatchError extends DogeosError<"INDEX_PROFILE_MISMATCH"> {
  constructor(location: string, built: string, requested: IndexProfile) {
    super(
      "conflict",
      "INDEX_PROFILE_MISMATCH",
      `index ${location} was built with --profile ${built}, not ${requested}: start the indexer with --profile ${built}, or build a ${requested} index in another database (--db)`,
      { retryable: false, details: { built, requested } },
    );
  }
}

/**
 * Records `profile` on an index that has none yet, or refuses one built with another. An index that
 * already has rows (meta start_height) but no profile predates profiles: it is `full`.
 */
export function claimIndexProfile(db: SqlDatabase, profile: IndexProfile, location = db.location): void {
  const meta = db.prepare<{ value: string }>("SELECT value FROM meta WHERE key = ?");
  const recorded = meta.get("profile")?.value;
  const built = recorded ?? (meta.get("start_height") !== undefined ? "full" : undefined);
  if (built !== undefined && built !== profile) throw new IndexProfileMismatchError(location, built, profile);
  if (recorded === undefined)
    db.prepare(
      "INSERT INTO meta (key, value) VALUES ('profile', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    ).run(profile);
}

/** C (outputs.spent_tx_id) is dead at F (the last `?`): none of its outputs is unspent or spent at or above F. */
const SPENDER_DEAD =
  "NOT EXISTS (SELECT 1 FROM outputs l WHERE l.tx_id = outputs.spent_tx_id AND (l.spent_tx_id IS NULL OR l.spent_tx_id >= ?))";

/** The pruning statements (exported for the plan checks of test/indexer/attester-profile.test.ts). */
export const PRUNE_SQL = {
  /** (P, F, F): input-0 outputs kept for their spender C, once C's last live output is spent in [P, F). */
  releaseFunders: `DELETE FROM outputs WHERE spent_tx_id IS NOT NULL AND spent_vin = 0
    AND spent_tx_id IN (SELECT c.tx_id FROM outputs c WHERE c.spent_tx_id IS NOT NULL AND c.spent_tx_id >= ? AND c.spent_tx_id < ?)
    AND ${SPENDER_DEAD}`,
  /** (P, F, F): outputs spent in [P, F), but an input-0 one whose spender still has a live output. */
  pruneRange: `DELETE FROM outputs WHERE spent_tx_id IS NOT NULL AND spent_tx_id >= ? AND spent_tx_id < ?
    AND (spent_vin <> 0 OR ${SPENDER_DEAD})`,
  /** (lo, hi, F, F): the same test for every output of transactions lo..hi-1 spent below F, in key order. */
  pruneChunk: `DELETE FROM outputs WHERE tx_id >= ? AND tx_id < ? AND spent_tx_id IS NOT NULL AND spent_tx_id < ?
    AND (spent_vin <> 0 OR ${SPENDER_DEAD})`,
  /** (tx id, vout, spender, vin, F): one spend a catch-up batch made, by its key, if the row still says so. */
  pruneSpend: `DELETE FROM outputs WHERE tx_id = ? AND vout = ? AND spent_tx_id = ? AND spent_vin = ?
    AND (spent_vin <> 0 OR ${SPENDER_DEAD})`,
};

/** Transaction ids per statement of the whole-table pass (bounds the rows one DELETE collects). */
const FULL_PASS_CHUNK = 500_000;

/**
 * The attester profile's pruning of spent outputs. The floor F is the id of the first transaction
 * of the block just above the deepest fork point a rollback may reach (tip - maxReorgDepth): every
 * spend by a transaction below F is final. An output X spent by transaction C at input `vin` is
 * deleted once C < F and either vin > 0 or C has no output left that is unspent or spent at or
 * above F ("C is dead": no later transaction can spend C, so no reveal asks who funded it).
 *
 * Per batch, with outputs_by_spent_tx: the spends by transactions in [P, F) (P: the floor of the
 * previous pass, meta `spends_pruned_below_tx_id`), and the input-0 outputs of transactions that
 * died in that range (their last outputs' spenders are in it), each found through the index; no
 * scan of the table. While a catch-up has dropped that index (schema.ts CATCH_UP_DEFERRED_INDEXES)
 * the indexer hands over the spends its batches made on SQLite (`pruneSpends`: each deleted by its
 * key once final; on PostgreSQL a statement per spend would be a round trip), and `fullPass` then checks every spent output once, in key order, before the deferred
 * indexes are built again: it also finds what the spends could not (input-0 outputs released
 * later, spends made before a restart).
 */
export class SpentOutputPruner {
  private readonly q: Record<
    "getMeta" | "setMeta" | "firstTxIdAt" | "releaseFunders" | "pruneRange" | "pruneChunk" | "pruneSpend",
    SqlStatement
  >;

  constructor(
    db: SqlDatabase,
    private readonly maxReorgDepth: number,
  ) {
    const p = (sql: string) => db.prepare(sql);
    this.q = {
      getMeta: p("SELECT value FROM meta WHERE key = ?"),
      setMeta: p("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"),
      firstTxIdAt: p("SELECT first_tx_id FROM blocks WHERE height = ?"),
      releaseFunders: p(PRUNE_SQL.releaseFunders),
      pruneRange: p(PRUNE_SQL.pruneRange),
      pruneChunk: p(PRUNE_SQL.pruneChunk),
      pruneSpend: p(PRUNE_SQL.pruneSpend),
    };
  }

  /** Spends in blocks at or below this height are pruned (null before the first pass): no rollback may go below it. */
  prunedToHeight(): number | null {
    const value = this.meta("spends_pruned_to_height");
    return value === null ? null : Number(value);
  }

  /**
   * After a batch that ends at `tipHeight`, inside its transaction, with outputs_by_spent_tx in
   * place: prunes the spends that became final since the last pass. Returns the rows deleted.
   */
  afterBatch(tipHeight: number): number {
    const floor = this.floorAt(tipHeight);
    if (floor === null) return 0;
    const from = Number(this.meta("spends_pruned_below_tx_id") ?? 0);
    // Funders first: their candidates are found through the rows pruneRange deletes.
    let deleted = this.q.releaseFunders.run(from, floor.txId, floor.txId).changes;
    deleted += this.q.pruneRange.run(from, floor.txId, floor.txId).changes;
    this.record(floor);
    return deleted;
  }

  /**
   * While outputs_by_spent_tx is deferred: deletes the final ones of `spends` (tx id, vout, spender
   * id, vin, four numbers each, as the batches spent them) and keeps the rest in the array for a
   * later batch. A spend a rollback undid no longer matches its row (deleted or spent by another
   * input), and is not deleted. Returns the rows deleted.
   */
  pruneSpends(spends: number[], tipHeight: number): number {
    const floor = this.floorTxIdAt(tipHeight);
    if (floor === null) return 0;
    let deleted = 0;
    let kept = 0;
    for (let i = 0; i < spends.length; i += 4) {
      if (spends[i + 2] < floor.txId) {
        deleted += this.q.pruneSpend.run(spends[i], spends[i + 1], spends[i + 2], spends[i + 3], floor.txId).changes;
      } else {
        for (let j = 0; j < 4; j++) spends[kept + j] = spends[i + j];
        kept += 4;
      }
    }
    spends.length = kept;
    // Not spends_pruned_below_tx_id: released input-0 outputs are left for fullPass.
    if (deleted > 0) this.recordHeight(floor.height);
    return deleted;
  }

  /** Checks every spent output against the floor at `tipHeight` (a catch-up's end, without outputs_by_spent_tx). */
  fullPass(tipHeight: number): number {
    const floor = this.floorAt(tipHeight);
    if (floor === null) return 0;
    let deleted = 0;
    // An output spent below F was created below F.
    for (let lo = 0; lo < floor.txId; lo += FULL_PASS_CHUNK)
      deleted += this.q.pruneChunk.run(lo, Math.min(lo + FULL_PASS_CHUNK, floor.txId), floor.txId, floor.txId).changes;
    this.record(floor);
    return deleted;
  }

  /** The floor for a tip: the first transaction id of block tip - maxReorgDepth + 1 (null below the start). */
  private floorTxIdAt(tipHeight: number): { height: number; txId: number } | null {
    const height = tipHeight - this.maxReorgDepth;
    const row = this.q.firstTxIdAt.get(height + 1) as { first_tx_id: number | bigint } | undefined;
    return row ? { height, txId: Number(row.first_tx_id) } : null;
  }

  /** floorTxIdAt, or null when it is not above the last pass's (after a rollback the tip may be lower). */
  private floorAt(tipHeight: number): { height: number; txId: number } | null {
    const floor = this.floorTxIdAt(tipHeight);
    if (floor === null || floor.txId <= Number(this.meta("spends_pruned_below_tx_id") ?? 0)) return null;
    return floor;
  }

  private record(floor: { height: number; txId: number }): void {
    this.q.setMeta.run("spends_pruned_below_tx_id", String(floor.txId));
    this.recordHeight(floor.height);
  }

  private recordHeight(height: number): void {
    if (height > (this.prunedToHeight() ?? -1)) this.q.setMeta.run("spends_pruned_to_height", String(height));
  }

  private meta(key: string): string | null {
    const row = this.q.getMeta.get(key) as { value: string } | undefined;
    return row ? row.value : null;
  }
}
