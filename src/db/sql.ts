/**
 * The SQL surface the index is written and read through, so that one query module serves two
 * backends: SQLite (better-sqlite3, the embedded default) and PostgreSQL (src/db/postgres.ts). It
 * is the synchronous subset of better-sqlite3's API the indexer uses; a better-sqlite3 statement
 * satisfies SqlStatement as it is, so the SQLite path pays nothing for the seam.
 *
 * SQL written against it keeps to the portable subset both engines run (see docs/architecture.md,
 * "Writing index SQL"): `?` placeholders (or `@name` with one object argument), no `hex()`, no
 * `rowid`, no `? IS NULL`, no SUM over a boolean, CASE instead of IIF. `INSERT OR REPLACE`,
 * `INSERT OR IGNORE`, `col IS ?` and the column name `offset` are rewritten for PostgreSQL by
 * src/db/dialect.ts.
 */
import type Database from "better-sqlite3";

export type SqlDialect = "sqlite" | "postgres";

export interface SqlRunResult {
  changes: number;
}

export interface SqlStatement<Row = unknown> {
  get(...params: unknown[]): Row | undefined;
  all(...params: unknown[]): Row[];
  run(...params: unknown[]): SqlRunResult;
  iterate(...params: unknown[]): IterableIterator<Row>;
  /** 64-bit integer columns come back as bigint (true) or number (false, the default). */
  safeIntegers(toggle?: boolean): this;
}

export interface SqlDatabase {
  readonly dialect: SqlDialect;
  /** Where it lives, for messages: a file path or a URL without its password. */
  readonly location: string;
  readonly readonly: boolean;
  /** True inside transaction(): a read that must see one committed state can reuse it. */
  readonly inTransaction: boolean;
  prepare<Row = unknown>(sql: string): SqlStatement<Row>;
  /** Runs one or more statements that take no parameters (DDL, DROP INDEX ...). */
  exec(sql: string): void;
  /** Wraps `fn` in a transaction (nested calls become savepoints), as better-sqlite3 does. */
  transaction<Args extends unknown[], Result>(fn: (...args: Args) => Result): (...args: Args) => Result;
  close(): void;
  /**
   * On a PostgreSQL hot standby: how far its replay is behind what it has received from the
   * primary. null on a primary and on SQLite.
   */
  replication?(): ReplicaState | null;
}

export interface ReplicaState {
  /** WAL bytes received from the primary and not yet replayed. */
  lagBytes: number;
  /** Commit time (unix seconds) of the last transaction replayed, null before the first. */
  replayedAt: number | null;
}

/** Wraps a better-sqlite3 handle; statements are the library's own, so the hot path is unchanged. */
export function sqliteDatabase(
  db: Database.Database,
  location: string,
): SqlDatabase & { readonly sqlite: Database.Database } {
  return {
    dialect: "sqlite",
    location,
    readonly: db.readonly,
    get inTransaction() {
      return db.inTransaction;
    },
    sqlite: db,
    prepare: <Row>(sql: string) => db.prepare<unknown[], Row>(sql) as unknown as SqlStatement<Row>,
    exec: (sql: string) => void db.exec(sql),
    transaction: <Args extends unknown[], Result>(fn: (...args: Args) => Result) =>
      db.transaction(fn) as unknown as (...args: Args) => Result,
    close: () => db.close(),
  };
}

/** True when the location names a PostgreSQL server rather than a SQLite file. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** A URL or path safe to print: a PostgreSQL URL loses its password. */
export function printableLocation(location: string): string {
  if (!isPostgresUrl(location)) return location;
  try {
    const url = new URL(location);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "postgres://(unparseable URL)";
  }
}
