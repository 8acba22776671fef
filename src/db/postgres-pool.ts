/**
 * PostgreSQL for reads that may overlap: a pool of connections (node-postgres's Pool) answering
 * promises, beside the synchronous handle of ./postgres.ts, which has one query in flight per
 * process. A request path that reads through it waits for its rows without blocking the process,
 * so one process keeps up to `size` queries in flight (the explorer's address routes,
 * src/indexer/read/async.ts). The SQL is the portable subset the synchronous readers run,
 * translated by ./dialect.ts, and rows come back exactly as the synchronous handle gives them
 * (fromPostgres: integers as number or bigint, booleans as 1/0, bytea as Buffer).
 */
import pg from "pg";
import { toPostgres } from "./dialect";
import { PostgresError, rowsFromPostgres } from "./postgres";
import { printableLocation } from "./sql";

/** Connections a pool holds at most unless told otherwise (`--pg-pool`). */
export const DEFAULT_POOL_SIZE = 8;

export interface PostgresPoolOptions {
  /** Connections at most (default DEFAULT_POOL_SIZE). */
  size?: number;
  /** Every transaction read-only (readers, replicas). */
  readOnly?: boolean;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
  /** Server-side limit per statement (default 60 s; 0 for none). */
  statementTimeoutMs?: number;
}

// 64-bit integers, numerics and dates stay PostgreSQL's text, as in the worker
// (./postgres-worker.cjs): fromPostgres alone decides number or bigint. Per pool, not global.
const AS_TEXT = new Set([20, 1700, 1082, 1114, 1184]);
const TYPES = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    AS_TEXT.has(oid) ? (value: string) => value : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

interface Translated {
  text: string;
  name: string;
}

export class PostgresPool {
  readonly location: string;
  readonly size: number;
  private readonly pool: pg.Pool;
  private readonly translated = new Map<string, Translated>();
  private closed = false;

  constructor(url: string, options: PostgresPoolOptions = {}) {
    this.location = printableLocation(url);
    this.size = options.size ?? DEFAULT_POOL_SIZE;
    this.pool = new pg.Pool({
      connectionString: url,
      max: this.size,
      application_name: options.applicationName ?? "dogeos",
      statement_timeout: options.statementTimeoutMs ?? 60_000,
      options: options.readOnly ? "-c default_transaction_read_only=on" : undefined,
      types: TYPES,
    });
    // An idle connection that drops (a restarted server) is taken out of the pool; the next query
    // opens another. Without a listener the error would end the process.
    this.pool.on("error", () => undefined);
  }

  private translate(sql: string): Translated {
    let found = this.translated.get(sql);
    if (!found) {
      const { text, names } = toPostgres(sql, {});
      if (names !== null) throw new PostgresError("the pool takes ? placeholders only", undefined, sql);
      // Named: parsed and planned once per connection, as the synchronous handle's statements are.
      found = { text, name: `p${this.translated.size + 1}` };
      this.translated.set(sql, found);
    }
    return found;
  }

  /**
   * The rows of one statement in the portable subset (`?` placeholders), as SqlStatement.all()
   * gives them; `safe`: 64-bit integers as bigint (SqlStatement.safeIntegers).
   */
  async rows<Row = Record<string, unknown>>(sql: string, params: unknown[], safe = false): Promise<Row[]> {
    if (this.closed) throw new PostgresError("the PostgreSQL pool is closed", undefined, sql);
    const { text, name } = this.translate(sql);
    let result: pg.QueryArrayResult;
    try {
      result = await this.pool.query({ text, name, values: params, rowMode: "array" });
    } catch (error) {
      const failure = error as { message?: string; code?: string };
      throw new PostgresError(String(failure.message ?? error), failure.code, sql);
    }
    return rowsFromPostgres<Row>(
      result.rows,
      result.fields.map((f) => [f.name, f.dataTypeID]),
      safe,
    );
  }

  /** Ends every connection once the queries in flight are answered. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
