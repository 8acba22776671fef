/**
 * PostgreSQL behind the index's synchronous SQL surface (src/db/sql.ts). A worker thread holds
 * the connection (src/db/postgres-worker.cjs); each call posts its request and blocks on a shared
 * Int32Array until the worker answers, so the indexer and every reader run the same code on both
 * backends. The cost is one query in flight per process: a reader process serves one request's
 * query at a time, which is why readers scale out as processes (docs/operations.md, "Many
 * readers"). Measured in `npm run bench:api` and `npm run bench:indexer`.
 *
 * Values come back as better-sqlite3 gives them: integers as number, or bigint for every integer
 * column when the statement asked for safeIntegers(); booleans as 1/0; bytea as Buffer.
 */
import path from "node:path";
import { MessageChannel, Worker, receiveMessageOnPort } from "node:worker_threads";
import type { MessagePort } from "node:worker_threads";
import { toPostgres } from "./dialect";
import { ReplicaState, SqlDatabase, SqlRunResult, SqlStatement, printableLocation } from "./sql";
import { DogeosError } from "../errors";

/**
 * A statement failed on PostgreSQL. `code` is the SQLSTATE (TIMEOUT when the worker did not answer,
 * POSTGRES_ERROR without one); retryable: a timeout, a lost connection (class 08), a serialization
 * failure or deadlock (40001, 40P01), a server shutting down or starting (57P01-57P03).
 */
export class PostgresError extends DogeosError {
  constructor(
    message: string,
    readonly sqlState: string | undefined,
    readonly sql: string | null,
  ) {
    const retryable =
      sqlState !== undefined &&
      (sqlState === "TIMEOUT" ||
        sqlState.startsWith("08") ||
        ["40001", "40P01", "57P01", "57P02", "57P03"].includes(sqlState));
    super(retryable ? "unavailable" : "internal", sqlState ?? "POSTGRES_ERROR", message, { retryable });
  }
}

export interface PostgresOptions {
  /** Every transaction read-only (readers, replicas). */
  readOnly?: boolean;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
  /** Server-side limit per statement (default 60 s; 0 for none). */
  statementTimeoutMs?: number;
  /** Key columns per table, for `INSERT OR REPLACE` (src/db/dialect.ts). */
  conflictKeys?: Readonly<Record<string, readonly string[]>>;
  /** How long a call waits for its answer (default: the statement timeout and 30 s more). */
  answerWaitMs?: number;
}

interface Answer {
  /** The id of the request answered. */
  id: number;
  rows: unknown[][];
  fields: [string, number][];
  rowCount: number;
  error?: { message: string; code?: string };
}

const OID = { bool: 16, bytea: 17, int8: 20, int2: 21, int4: 23, numeric: 1700 } as const;

/** One connection, driven synchronously through its worker. */
class Connection {
  private readonly signal = new Int32Array(new SharedArrayBuffer(4));
  private readonly port: MessagePort;
  private readonly worker: Worker;
  private closed = false;
  private lastId = 0;

  constructor(
    url: string,
    private readonly waitMs: number,
    options: PostgresOptions,
  ) {
    const channel = new MessageChannel();
    this.port = channel.port1;
    this.worker = new Worker(path.join(__dirname, "postgres-worker.cjs"), {
      workerData: {
        url,
        signal: this.signal.buffer,
        port: channel.port2,
        readOnly: options.readOnly ?? false,
        applicationName: options.applicationName ?? "dogeos",
        statementTimeoutMs: options.statementTimeoutMs ?? 60_000,
      },
      transferList: [channel.port2],
    });
    // The worker never keeps a process alive on its own: close() ends it, exit ends it anyway.
    this.worker.unref();
  }

  /**
   * Sends a request and blocks until its answer. Answers carry their request's id: the late answer
   * of a call that timed out is dropped when it arrives, never taken for a later call's.
   */
  call(request: Record<string, unknown>, sql: string | null, transfer?: ArrayBuffer[]): Answer {
    if (this.closed) throw new PostgresError("the PostgreSQL handle is closed", undefined, sql);
    const id = ++this.lastId;
    const deadline = Date.now() + this.waitMs;
    this.worker.postMessage({ ...request, id }, transfer);
    for (;;) {
      // Reset before reading the port: an answer posted after the read sets the signal again.
      Atomics.store(this.signal, 0, 0);
      const message = receiveMessageOnPort(this.port);
      if (message) {
        const answer = message.message as Answer;
        if (answer.id !== id) continue;
        if (answer.error) throw new PostgresError(answer.error.message, answer.error.code, sql);
        return answer;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new PostgresError(`PostgreSQL did not answer within ${this.waitMs} ms`, "TIMEOUT", sql);
      // Woken by the worker's signal; at most 50 ms at a time, so that an answer whose signal came
      // before it could be read (the reset above cleared it) is still found.
      Atomics.wait(this.signal, 0, 0, Math.min(left, 50));
    }
  }

  /** Sends a request without waiting: its error, if any, is thrown by the next call(). */
  send(request: Record<string, unknown>): void {
    if (this.closed) throw new PostgresError("the PostgreSQL handle is closed", undefined, null);
    this.worker.postMessage({ ...request, op: "send" });
  }

  close(): void {
    if (this.closed) return;
    try {
      this.call({ op: "close" }, null);
    } finally {
      this.closed = true;
      void this.worker.terminate();
      this.port.close();
    }
  }
}

/**
 * One value as better-sqlite3 would give it (see the module's comment), from node-postgres with
 * 64-bit integers, numerics and dates left as text. Shared with the pool (./postgres-pool.ts).
 */
export function fromPostgres(value: unknown, oid: number, safe: boolean): unknown {
  if (value === null || value === undefined) return null;
  switch (oid) {
    case OID.int8:
    case OID.numeric: {
      const text = value as string;
      if (safe && /^-?\d+$/.test(text)) return BigInt(text);
      return Number(text);
    }
    case OID.int2:
    case OID.int4:
      return safe ? BigInt(value as number) : value;
    case OID.bool:
      return safe ? (value ? 1n : 0n) : value ? 1 : 0;
    case OID.bytea: {
      const bytes = value as Uint8Array;
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }
    default:
      return value;
  }
}

/** Array-mode rows and their [name, type oid] fields as objects, values through fromPostgres. */
export function rowsFromPostgres<Row>(rows: unknown[][], fields: [string, number][], safe: boolean): Row[] {
  return rows.map((values) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < fields.length; i++) row[fields[i][0]] = fromPostgres(values[i], fields[i][1], safe);
    return row as Row;
  });
}

/** The column types copyRows() writes, by their PostgreSQL names. */
export type CopyType = "smallint" | "int" | "bigint" | "boolean" | "bytea" | "text";

/** A column of copyRows(): its name and type (the table's own type: binary COPY does not convert). */
export type CopyColumn = readonly [name: string, type: CopyType];

/**
 * PostgreSQL's binary COPY format (PostgreSQL documentation, SQL Commands, COPY, "File Formats" ->
 * "Binary Format"): an 11-byte signature, a 32-bit flags field (0: no OIDs) and a 32-bit header
 * extension length (0); each row a 16-bit field count, then per field a 32-bit byte length (-1 for
 * NULL) and the value in the type's binary send form (int2/int4/int8 big-endian two's complement,
 * boolean one byte, bytea its bytes, text its UTF-8 bytes); a 16-bit -1 ends the data.
 */
const COPY_SIGNATURE = Buffer.from([0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00]);
const TWO_32 = 2 ** 32;
const INT8_MIN = -(2n ** 63n);
const INT8_MAX = 2n ** 63n - 1n;
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** Rows in binary COPY form, in a growing buffer of its own (transferred to the worker, never pooled). */
class CopyEncoder {
  private bytes = Buffer.allocUnsafeSlow(1 << 16);
  private at = 0;

  private room(n: number): void {
    if (this.at + n <= this.bytes.length) return;
    const bigger = Buffer.allocUnsafeSlow(Math.max(this.bytes.length * 2, this.at + n));
    this.bytes.copy(bigger, 0, 0, this.at);
    this.bytes = bigger;
  }

  int16(n: number): void {
    this.room(2);
    this.at = this.bytes.writeInt16BE(n, this.at);
  }

  int32(n: number): void {
    this.room(4);
    this.at = this.bytes.writeInt32BE(n, this.at);
  }

  raw(data: Uint8Array): void {
    this.room(data.length);
    this.bytes.set(data, this.at);
    this.at += data.length;
  }

  /** One field: its length, then its value (a NULL is length -1 alone). */
  field(value: unknown, type: CopyType): void {
    if (value === null || value === undefined) return this.int32(-1);
    switch (type) {
      case "bigint": {
        this.room(12);
        this.at = this.bytes.writeInt32BE(8, this.at);
        if (typeof value === "bigint") {
          if (value < INT8_MIN || value > INT8_MAX) throw new RangeError(`${value} is out of bigint's range`);
          this.at = this.bytes.writeBigInt64BE(value, this.at);
          return;
        }
        if (typeof value !== "number" || !Number.isSafeInteger(value))
          throw new TypeError(`${String(value)} is not an integer`);
        const high = Math.floor(value / TWO_32);
        this.at = this.bytes.writeInt32BE(high, this.at);
        this.at = this.bytes.writeUInt32BE(value - high * TWO_32, this.at);
        return;
      }
      case "int":
      case "smallint": {
        const n = typeof value === "bigint" ? Number(value) : value;
        if (typeof n !== "number" || !Number.isInteger(n)) throw new TypeError(`${String(value)} is not an integer`);
        // write*BE throw a RangeError for a value outside the type's range.
        if (type === "int") {
          this.room(8);
          this.at = this.bytes.writeInt32BE(4, this.at);
          this.at = this.bytes.writeInt32BE(n, this.at);
        } else {
          this.room(6);
          this.at = this.bytes.writeInt32BE(2, this.at);
          this.at = this.bytes.writeInt16BE(n, this.at);
        }
        return;
      }
      case "boolean":
        this.room(5);
        this.at = this.bytes.writeInt32BE(1, this.at);
        this.bytes[this.at++] = value === true || value === 1 || value === 1n ? 1 : 0;
        return;
      case "bytea":
        if (!(value instanceof Uint8Array)) throw new TypeError("bytea takes a Buffer or Uint8Array");
        this.int32(value.length);
        return this.raw(value);
      case "text": {
        if (typeof value !== "string") throw new TypeError("text takes a string");
        const length = Buffer.byteLength(value, "utf8");
        this.room(4 + length);
        this.at = this.bytes.writeInt32BE(length, this.at);
        this.at += this.bytes.write(value, this.at, length, "utf8");
        return;
      }
    }
  }

  /** The data so far, as a view of a buffer the caller may transfer. */
  done(): Uint8Array {
    return new Uint8Array(this.bytes.buffer, this.bytes.byteOffset, this.at);
  }
}

/**
 * `rows` in binary COPY form for `columns` (each row one value per column, in order). A value the
 * column cannot take throws, naming the row and column.
 */
export function encodeCopyRows(columns: readonly CopyColumn[], rows: Iterable<ArrayLike<unknown>>): Uint8Array {
  const out = new CopyEncoder();
  out.raw(COPY_SIGNATURE);
  out.int32(0);
  out.int32(0);
  const width = columns.length;
  const types = columns.map(([, type]) => type);
  let n = 0;
  for (const row of rows) {
    out.int16(width);
    for (let i = 0; i < width; i++) {
      try {
        out.field(row[i], types[i]);
      } catch (error) {
        throw new TypeError(`row ${n}, column ${columns[i][0]} (${types[i]}): ${(error as Error).message}`);
      }
    }
    n += 1;
  }
  out.int16(-1);
  return out.done();
}

export class PostgresStatement<Row> implements SqlStatement<Row> {
  private safe = false;
  /** The text sent to the server (translated to PostgreSQL's placeholders unless prepared native). */
  readonly text: string;
  private readonly names: string[] | null;

  /** `conflictKeys` null: the SQL is PostgreSQL's own, sent as written. */
  constructor(
    private readonly db: PostgresDatabase,
    readonly source: string,
    private readonly name: string,
    conflictKeys: Readonly<Record<string, readonly string[]>> | null,
  ) {
    if (conflictKeys === null) {
      this.text = source;
      this.names = null;
    } else {
      const translated = toPostgres(source, conflictKeys);
      this.text = translated.text;
      this.names = translated.names;
    }
  }

  safeIntegers(toggle = true): this {
    this.safe = toggle;
    return this;
  }

  private values(params: unknown[]): unknown[] {
    if (this.names === null) return params;
    const bag = (params[0] ?? {}) as Record<string, unknown>;
    return this.names.map((n) => (bag[n] === undefined ? null : bag[n]));
  }

  private query(params: unknown[]): Answer {
    this.db.runBeforeQuery(this.text);
    return this.db.connection.call(
      { op: "query", text: this.text, values: this.values(params), name: this.name },
      this.source,
    );
  }

  private rows(answer: Answer): Row[] {
    return rowsFromPostgres<Row>(answer.rows, answer.fields, this.safe);
  }

  get(...params: unknown[]): Row | undefined {
    return this.rows(this.query(params))[0];
  }

  all(...params: unknown[]): Row[] {
    return this.rows(this.query(params));
  }

  iterate(...params: unknown[]): IterableIterator<Row> {
    return this.all(...params)[Symbol.iterator]();
  }

  run(...params: unknown[]): SqlRunResult {
    return { changes: this.query(params).rowCount };
  }

  /** Queues the statement without waiting for it (writes inside a transaction whose count nobody reads). */
  send(...params: unknown[]): void {
    this.db.runBeforeQuery(this.text);
    this.db.connection.send({ text: this.text, values: this.values(params), name: this.name });
  }
}

export class PostgresDatabase implements SqlDatabase {
  readonly dialect = "postgres" as const;
  readonly location: string;
  readonly readonly: boolean;
  readonly connection: Connection;
  private depth = 0;
  private readonly names = new Map<string, string>();
  private readonly conflictKeys: Readonly<Record<string, readonly string[]>>;

  constructor(url: string, options: PostgresOptions = {}) {
    this.location = printableLocation(url);
    this.readonly = options.readOnly ?? false;
    this.conflictKeys = options.conflictKeys ?? {};
    const timeout = options.statementTimeoutMs ?? 60_000;
    // The client-side wait outlasts the server's own limit, so the server's error is what is seen.
    this.connection = new Connection(
      url,
      options.answerWaitMs ?? (timeout === 0 ? 3_600_000 : timeout + 30_000),
      options,
    );
    this.connection.call({ op: "query", text: "SELECT 1", values: [] }, "SELECT 1");
  }

  get inTransaction(): boolean {
    return this.depth > 0;
  }

  private statementName(sql: string): string {
    let name = this.names.get(sql);
    if (!name) {
      name = `s${this.names.size + 1}`;
      this.names.set(sql, name);
    }
    return name;
  }

  prepare<Row = unknown>(sql: string): SqlStatement<Row> {
    return new PostgresStatement<Row>(this, sql, this.statementName(sql), this.conflictKeys);
  }

  /** A statement in PostgreSQL's own SQL ($n placeholders, arrays, casts), not translated. */
  prepareNative<Row = unknown>(sql: string): PostgresStatement<Row> {
    return new PostgresStatement<Row>(this, sql, this.statementName(sql), null);
  }

  private readonly hooks: ((sql: string) => void)[] = [];
  private hooking = false;

  /**
   * Registers `hook` to run before every statement sent on this connection, with its text (a
   * writer flushing rows it buffered, so that the statement sees them). Statements the hook
   * itself sends do not run it again.
   */
  beforeQuery(hook: (sql: string) => void): void {
    this.hooks.push(hook);
  }

  runBeforeQuery(sql: string): void {
    if (this.hooking || this.hooks.length === 0) return;
    this.hooking = true;
    try {
      for (const hook of this.hooks) hook(sql);
    } finally {
      this.hooking = false;
    }
  }

  exec(sql: string): void {
    this.runBeforeQuery(sql);
    this.connection.call({ op: "exec", text: sql }, sql);
  }

  /**
   * Appends `rows` to `table` with one `COPY ... FROM STDIN (FORMAT binary)` (encodeCopyRows), inside
   * the current transaction if there is one; answers the number of rows copied. COPY only inserts:
   * a row whose key the table holds fails the whole copy (unique violation), as one INSERT would.
   * Names are plain lower-case identifiers, quoted (so `offset` is a column like any other).
   */
  copyRows(table: string, columns: readonly CopyColumn[], rows: Iterable<ArrayLike<unknown>>): number {
    for (const name of [table, ...columns.map(([c]) => c)])
      if (!IDENTIFIER.test(name))
        throw new PostgresError(`COPY: ${JSON.stringify(name)} is not a plain identifier`, undefined, null);
    const text = `COPY "${table}" (${columns.map(([c]) => `"${c}"`).join(", ")}) FROM STDIN (FORMAT binary)`;
    let data: Uint8Array;
    try {
      data = encodeCopyRows(columns, rows);
    } catch (error) {
      throw new PostgresError(`COPY ${table}: ${(error as Error).message}`, undefined, text);
    }
    this.runBeforeQuery(text);
    // The buffer is the encoder's own: handed to the worker without a copy.
    return this.connection.call({ op: "copy", text, data }, text, [data.buffer as ArrayBuffer]).rowCount;
  }

  transaction<Args extends unknown[], Result>(fn: (...args: Args) => Result): (...args: Args) => Result {
    return (...args: Args) => {
      const level = this.depth;
      this.exec(level === 0 ? "BEGIN" : `SAVEPOINT s${level}`);
      this.depth += 1;
      let result: Result;
      try {
        result = fn(...args);
      } catch (error) {
        this.depth -= 1;
        try {
          this.exec(level === 0 ? "ROLLBACK" : `ROLLBACK TO SAVEPOINT s${level}; RELEASE SAVEPOINT s${level}`);
        } catch {
          // The connection is gone: the server rolls the transaction back itself.
        }
        throw error;
      }
      this.depth -= 1;
      try {
        this.exec(level === 0 ? "COMMIT" : `RELEASE SAVEPOINT s${level}`);
      } catch (error) {
        // A queued write failed (send()): nothing of the transaction may stay.
        try {
          this.exec(level === 0 ? "ROLLBACK" : `ROLLBACK TO SAVEPOINT s${level}; RELEASE SAVEPOINT s${level}`);
        } catch {
          // As above.
        }
        throw error;
      }
      return result;
    };
  }

  close(): void {
    this.connection.close();
  }

  // Functions every role may call (pg_stat_wal_receiver would need pg_read_all_stats).
  private replicationQuery: SqlStatement<{ standby: number; lag: number | null; replayed_at: number | null }> | null =
    null;

  replication(): ReplicaState | null {
    this.replicationQuery ??= this.prepareNative(`SELECT pg_is_in_recovery() AS standby,
      pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()) AS lag,
      EXTRACT(EPOCH FROM pg_last_xact_replay_timestamp())::bigint AS replayed_at`);
    const row = this.replicationQuery.get()!;
    if (!row.standby) return null;
    return { lagBytes: Math.max(0, row.lag ?? 0), replayedAt: row.replayed_at };
  }
}

export function openPostgres(url: string, options: PostgresOptions = {}): PostgresDatabase {
  return new PostgresDatabase(url, options);
}
