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

/**
 * One statement a read plan asks for: its SQL (the portable subset, as every reader writes it), its
 * parameters, whether 64-bit integers come back as bigint (`safe`, SqlStatement.safeIntegers) and
 * whether only the first row is wanted (`one`). The plan receives the rows.
 */
export interface ReadStep {
  sql: string;
  params: unknown[];
  safe: boolean;
  one: boolean;
  /** A statement about what only a SQLite index holds (refuseWhileCatchUpLogged): no rows on PostgreSQL, without a query. */
  sqliteOnly?: boolean;
}

/**
 * A read written once and run two ways: a generator that yields the statements it needs and gets
 * their rows back. runPlan() answers it synchronously (SqlDatabase: SQLite, or PostgreSQL through
 * its worker); src/indexer/read/async.ts answers it from a connection pool. So each read's SQL and
 * logic live in one place whichever path serves it.
 */
export type ReadPlan<T> = Generator<ReadStep, T, Record<string, unknown>[]>;

/** A step of a plan: `yield* rowsOf(...)` gives the rows. */
export function* rowsOf<Row>(
  sql: string,
  params: unknown[],
  options: { safe?: boolean; one?: boolean; sqliteOnly?: boolean } = {},
): Generator<ReadStep, Row[], Record<string, unknown>[]> {
  const step: ReadStep = { sql, params, safe: options.safe ?? false, one: options.one ?? false };
  if (options.sqliteOnly) step.sqliteOnly = true;
  return (yield step) as Row[];
}

/** Runs plans on a synchronous handle, each SQL text prepared once. */
export class PlanRunner {
  private readonly statements = new Map<string, SqlStatement>();

  constructor(private readonly db: SqlDatabase) {}

  /**
   * Prepares each SQL text of `sql` now, as prepareAll does (a reader's statements fail at
   * construction, and its `s` map shows them to the query-plan test), and keeps them for the plans.
   */
  prepare<K extends string>(sql: Record<K, string>): Statements<K> {
    const statements = prepareAll(this.db, sql);
    for (const key of Object.keys(sql) as K[]) this.statements.set(sql[key], statements[key]);
    return statements;
  }

  private statement(sql: string): SqlStatement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  run<T>(plan: ReadPlan<T>): T {
    let next = plan.next();
    while (!next.done) {
      const step = next.value;
      let rows: Record<string, unknown>[];
      if (step.sqliteOnly && this.db.dialect !== "sqlite") {
        next = plan.next([]);
        continue;
      }
      const statement = this.statement(step.sql).safeIntegers(step.safe);
      if (step.one) {
        const row = statement.get(...step.params) as Record<string, unknown> | undefined;
        rows = row === undefined ? [] : [row];
      } else {
        rows = statement.all(...step.params) as Record<string, unknown>[];
      }
      next = plan.next(rows);
    }
    return next.value;
  }
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
 * Every SQL text the plans of this module ask for (the index-readers test explains each of them and
 * checks that the plans ask for nothing else).
 */
export const ROWS_SQL = {
  firstAtOrAbove: "SELECT height, first_tx_id, tx_count FROM blocks WHERE height >= ? ORDER BY height LIMIT 1",
};

/** The first id of a transaction at or after (height, position): every id below it comes before. */
export function* txIdBefore(height: number, position: number): ReadPlan<number> {
  if (Number.isNaN(height) || Number.isNaN(position)) return 0;
  if (height > KEY_MAX) return Number.MAX_SAFE_INTEGER;
  if (height < -1) height = -1;
  const [row] = yield* rowsOf<{ height: number | bigint; first_tx_id: number | bigint; tx_count: number | bigint }>(
    ROWS_SQL.firstAtOrAbove,
    [height],
    { one: true },
  );
  if (!row) return Number.MAX_SAFE_INTEGER;
  const first = Number(row.first_tx_id);
  if (Number(row.height) !== height) return first;
  return first + Math.min(Math.max(position, 0), Number(row.tx_count));
}

/**
 * Turns a (height, position) key into a transaction id bound: transaction ids are in chain order
 * and a block records its first one, so "before (height, position)" is "id below the bound" and
 * "at or below height" is "id below the first id above it".
 */
export class TxIdBounds {
  private readonly plans: PlanRunner;

  constructor(db: SqlDatabase) {
    this.plans = new PlanRunner(db);
    this.plans.prepare(ROWS_SQL);
  }

  /** The first id of a transaction at or after (height, position): every id below it comes before. */
  before(height: number, position: number): number {
    return this.plans.run(txIdBefore(height, position));
  }

  /** The first id of a transaction above `height` (every id below it is at or below the height). */
  above(height: number): number {
    if (Number.isNaN(height)) return 0;
    return this.before(Math.floor(height) + 1, 0);
  }
}
