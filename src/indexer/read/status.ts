/** The index's own state: how far it got, what the node said, which network. */
import type { ReplicaState, SqlDatabase } from "../../db/sql";
import { Refusal, notFound } from "../../errors";
import { indexedTip } from "./blocks";
import { PlanRunner, ReadPlan, prepareAll, rowsOf } from "./rows";

export interface IndexStatus {
  indexedHeight: number;
  indexedHash: string | null;
  nodeHeight: number | null;
  nodeSeenAt: number | null;
  startHeight: number;
  network: string | null;
  /** Read from a PostgreSQL hot standby: its replay state (null on a primary and on SQLite). */
  replica: ReplicaState | null;
}

/**
 * The one "is the index behind?" rule: behind its node (the indexer has seen blocks it has not
 * written yet), or, on a replica, holding WAL from the primary that it has not replayed yet (the
 * node height it reads is the primary's as of its replay, so a lagging replica alone cannot tell
 * from heights). A reader that does not find something while the index is behind says
 * INDEX_BEHIND (503, retry) rather than not found.
 */
export function indexIsBehind(status: Pick<IndexStatus, "indexedHeight" | "nodeHeight" | "replica">): boolean {
  if (status.nodeHeight !== null && status.indexedHeight < status.nodeHeight) return true;
  return status.replica !== null && status.replica.lagBytes > 0;
}

/** The index has not reached the data asked for yet (HTTP 503 with Retry-After: 5). */
export const indexBehind = (indexedHeight: number, nodeHeight: number | null, details?: Record<string, unknown>) =>
  new Refusal(
    "unavailable",
    "INDEX_BEHIND",
    "the index has not reached the data asked for yet",
    { indexedHeight, nodeHeight, ...details },
    { retryAfterSeconds: 5 },
  );

/**
 * Not found in an index: INDEX_BEHIND (unavailable) while the index is behind (indexIsBehind: it may
 * only not have it yet, with a replica's unreplayed bytes in the details), else not found `code`.
 */
export function absentOrBehind(
  status: Pick<IndexStatus, "indexedHeight" | "nodeHeight" | "replica">,
  code: string,
  message: string,
  details: Record<string, unknown>,
): Refusal {
  if (indexIsBehind(status)) {
    return indexBehind(
      status.indexedHeight,
      status.nodeHeight,
      status.replica ? { ...details, replica_lag_bytes: status.replica.lagBytes } : details,
    );
  }
  return notFound(code, message, details);
}

/**
 * One row while a catch-up log of the index holds rows not yet written onto their tables (schema.ts
 * SPEND_LOG and BALANCE_LOG: a SQLite index in a catch-up that defers its read indexes), with the
 * heights an INDEX_BEHIND refusal names; no row otherwise.
 */
export const CATCH_UP_LOGGED = `SELECT (SELECT MAX(height) FROM blocks) AS indexed_height,
  (SELECT value FROM meta WHERE key = 'node_height') AS node_height
  FROM (SELECT 1 FROM spend_log UNION ALL SELECT 1 FROM balance_log) LIMIT 1`;

/**
 * A read of spent state (whether an output is spent, and by what) or of an address's counters
 * (balance, transaction count, output totals) refuses with INDEX_BEHIND while the catch-up logs
 * hold rows: the outputs the logged spends name still read as unspent, and address_stats lacks the
 * logged changes. A step of a read plan; PostgreSQL never logs, so its runners skip it without a
 * query (ReadStep.sqliteOnly).
 */
export function* refuseWhileCatchUpLogged(details: Record<string, unknown>): ReadPlan<void> {
  const [row] = yield* rowsOf<{ indexed_height: number | bigint | null; node_height: string | null }>(
    CATCH_UP_LOGGED,
    [],
    { one: true, sqliteOnly: true },
  );
  if (!row) return;
  throw indexBehind(
    row.indexed_height === null ? -1 : Number(row.indexed_height),
    row.node_height === null ? null : Number(row.node_height),
    {
      ...details,
      reason: "the catch-up under way writes the spends and balance changes of its blocks onto their rows when it ends",
    },
  );
}

export class StatusReads {
  private readonly s;
  private readonly plans: PlanRunner;

  constructor(private readonly db: SqlDatabase) {
    this.s = prepareAll(db, { meta: "SELECT key, value FROM meta" });
    this.plans = new PlanRunner(db);
  }

  status(): IndexStatus {
    const meta = Object.fromEntries(
      (this.s.meta.all() as { key: string; value: string }[]).map((r) => [r.key, r.value]),
    );
    const tip = this.tip();
    const startHeight = Number(meta.start_height ?? 0);
    return {
      indexedHeight: tip ? tip.height : startHeight - 1,
      indexedHash: tip ? tip.hash : null,
      nodeHeight: meta.node_height !== undefined ? Number(meta.node_height) : null,
      nodeSeenAt: meta.node_seen_at !== undefined ? Number(meta.node_seen_at) : null,
      startHeight,
      network: meta.network ?? null,
      replica: this.db.replication?.() ?? null,
    };
  }

  /** The last indexed block, or null before the first. */
  tip(): { height: number; hash: string } | null {
    return this.plans.run(indexedTip());
  }
}
