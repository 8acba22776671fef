/**
 * The explorer's hot address reads (balance, a history page, a UTXO page, and any other read plan:
 * Esplora's address routes compose theirs) answered as promises from a PostgreSQL connection pool
 * (src/db/postgres-pool.ts), so that one process keeps several requests' queries in flight instead
 * of one (the synchronous handle's limit). Each read is the same read plan the synchronous readers
 * run (./rows.ts, ReadPlan): the same SQL, the same logic, the same answer. SQLite keeps the
 * synchronous path: its reads do not wait on a network.
 */
import type { PostgresPool } from "../../db/postgres-pool";
import { UtxoView, balanceOf, utxoPage } from "./balances";
import { HistoryItemView, historyPage } from "./history";
import type { ReadPlan } from "./rows";

/** Runs a read plan on the pool: each statement it yields is awaited, its rows handed back. */
export async function runPlanAsync<T>(pool: PostgresPool, plan: ReadPlan<T>): Promise<T> {
  let next = plan.next();
  while (!next.done) {
    const step = next.value;
    // The pool is PostgreSQL's: a SQLite-only step has no rows there.
    if (step.sqliteOnly) {
      next = plan.next([]);
      continue;
    }
    let rows = await pool.rows<Record<string, unknown>>(step.sql, step.params, step.safe);
    if (step.one) rows = rows.slice(0, 1);
    next = plan.next(rows);
  }
  return next.value;
}

/** The async counterparts of IndexQueries.balance, .history and .utxos (same arguments, same answers). */
export class AsyncIndexReads {
  constructor(readonly pool: PostgresPool) {}

  /** Any read plan, on the pool (what PlanRunner.run answers synchronously). */
  run<T>(plan: ReadPlan<T>): Promise<T> {
    return runPlanAsync(this.pool, plan);
  }

  balance(address: string): Promise<{ confirmedKoinu: bigint; txCount: number }> {
    return runPlanAsync(this.pool, balanceOf(address));
  }

  /** A page of `address`'s transactions, newest first; `total` is the indexer's transaction counter. */
  history(
    address: string,
    before: { height: number; position: number } | null,
    pageSize: number,
  ): Promise<{ total: number; items: HistoryItemView[] }> {
    return runPlanAsync(this.pool, historyPage(address, before, pageSize));
  }

  /** A page of `address`'s unspent outputs, oldest first, after `after`. */
  utxos(
    address: string,
    after: { height: number; txid: string; vout: number } | null,
    pageSize: number,
  ): Promise<{ items: UtxoView[] }> {
    return runPlanAsync(this.pool, utxoPage(address, after, pageSize));
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
