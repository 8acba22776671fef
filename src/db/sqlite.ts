/**
 * Opening SQLite databases: WAL, foreign keys, a busy timeout, and numbered migrations recorded in
 * `meta.schema_version`. A database written by a newer or different schema is refused, never
 * silently upgraded past what this build knows.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { DogeosError } from "../errors";

export type Sqlite = Database.Database;

export interface Migration {
  version: number;
  description: string;
  sql: string;
  /**
   * True when the migration adds data derived from history (an indexer table): applying it to an
   * existing database would leave the new table incomplete, so such a database must be rebuilt.
   */
  requiresRebuild?: boolean;
}

export class RebuildRequiredError extends DogeosError {
  constructor(
    readonly found: number,
    readonly expected: number,
    readonly file: string,
    /** One line saying how to rebuild (the daemon's own command); a generic one when absent. */
    message?: string,
  ) {
    super(
      "internal",
      "REBUILD_REQUIRED",
      message ??
        `database ${file} has schema version ${found}; this build (version ${expected}) adds tables derived from chain history, so it must be rebuilt: move the file away (or start the daemon with its reset option) and let it re-index.`,
      {
        details: { found, expected, file },
      },
    );
  }
}

export class SchemaMismatchError extends DogeosError {
  constructor(
    readonly found: number,
    readonly expected: number,
    readonly file: string,
  ) {
    super(
      "internal",
      "SCHEMA_MISMATCH",
      `database ${file} has schema version ${found}; this build uses ${expected}. Point the daemon at a new database file (or rebuild the index from scratch).`,
      {
        details: { found, expected, file },
      },
    );
  }
}

/**
 * Opens (creating if needed) a database at `file` (":memory:" for tests) and applies the
 * migrations it lacks, in order, in one transaction. A database newer than this build is refused
 * (SchemaMismatchError); one that lacks a migration marked `requiresRebuild` is refused with
 * RebuildRequiredError.
 */
export function openDatabase(
  file: string,
  migrations: readonly Migration[],
  schemaName: string,
  options: { pageSize?: number } = {},
): Sqlite {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file);
  // Only a database not written yet takes a page size (an existing one keeps its own).
  if (options.pageSize !== undefined) db.pragma(`page_size = ${options.pageSize}`);
  if (file !== ":memory:") {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
  }
  db.pragma("busy_timeout = 5000");
  // 128 MB page cache: the indexer's hot pages (recent outputs, balances) stay in memory.
  db.pragma("cache_size = -131072");
  db.pragma("temp_store = MEMORY");
  db.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  const schemaRow = db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as { value: string } | undefined;
  const versionRow = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as
    { value: string } | undefined;
  if (schemaRow && schemaRow.value !== schemaName) {
    db.close();
    throw new Error(`database ${file} holds a "${schemaRow.value}" schema, not "${schemaName}"`);
  }
  const current = versionRow ? Number(versionRow.value) : 0;
  if (current > latest) {
    db.close();
    throw new SchemaMismatchError(current, latest, file);
  }
  const missing = [...migrations].filter((m) => m.version > current).sort((a, b) => a.version - b.version);
  if (current !== 0 && missing.some((m) => m.requiresRebuild)) {
    db.close();
    throw new RebuildRequiredError(current, latest, file);
  }
  if (missing.length > 0) {
    db.transaction(() => {
      for (const migration of missing) db.exec(migration.sql);
      db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)").run(schemaName);
      db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)").run(String(latest));
    })();
  }
  return db;
}
