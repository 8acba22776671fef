/**
 * Opening the index. One process writes it (the indexer: `openIndexerDatabase`, which applies
 * migrations); every other process reads it (`openIndexReader`: read-only, never migrates, and
 * refuses an index whose schema this build does not read). The location is a SQLite file (the
 * embedded default) or a PostgreSQL URL.
 */
import fs from "node:fs";
import Database from "better-sqlite3";
import { RebuildRequiredError, openDatabase } from "../db/sqlite";
import { SqlDatabase, isPostgresUrl, printableLocation, sqliteDatabase } from "../db/sql";
import { INDEXER_MIGRATIONS, INDEXER_SCHEMA } from "./schema";

export const INDEXER_SCHEMA_VERSION = INDEXER_MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);

export class IndexUnreadableError extends Error {
  readonly code = "INDEX_UNREADABLE";
  constructor(readonly location: string, reason: string) {
    super(`index ${printableLocation(location)} cannot be read: ${reason}`);
    this.name = "IndexUnreadableError";
  }
}

/** The indexer's own handle: creates the index if needed and migrates it. */
export function openIndexerDatabase(location: string, options: { cacheMb?: number; resetIfRebuildRequired?: boolean } = {}): SqlDatabase {
  if (isPostgresUrl(location)) throw new IndexUnreadableError(location, "PostgreSQL is not supported by this build yet");
  let db: Database.Database;
  try {
    db = openDatabase(location, INDEXER_MIGRATIONS, INDEXER_SCHEMA);
  } catch (error) {
    if (!(error instanceof RebuildRequiredError) || !options.resetIfRebuildRequired) throw error;
    // The index is derived from the chain: starting over is always correct, only slower.
    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(location + suffix, { force: true });
    db = openDatabase(location, INDEXER_MIGRATIONS, INDEXER_SCHEMA);
  }
  // Random txid and address keys dirty pages all over the B-trees: a larger page cache and fewer,
  // larger WAL checkpoints roughly doubled catch-up speed (npm run bench:indexer).
  db.pragma(`cache_size = -${(options.cacheMb ?? 256) * 1024}`);
  if (location !== ":memory:") db.pragma("wal_autocheckpoint = 20000");
  return sqliteDatabase(db, location);
}

/**
 * A reader's handle on the index the indexer writes: read-only (a statement that writes fails),
 * never migrated. An index that does not exist yet, or whose schema version differs from this
 * build's, is refused with IndexUnreadableError naming what to do.
 */
export function openIndexReader(location: string, options: { cacheMb?: number } = {}): SqlDatabase {
  if (isPostgresUrl(location)) throw new IndexUnreadableError(location, "PostgreSQL is not supported by this build yet");
  if (location === ":memory:") throw new IndexUnreadableError(location, "an in-memory index has no reader; pass the indexer's handle");
  if (!fs.existsSync(location)) throw new IndexUnreadableError(location, "the file does not exist (start the indexer first; it creates the index)");
  const db = new Database(location, { readonly: true, fileMustExist: true });
  db.pragma("busy_timeout = 5000");
  db.pragma(`cache_size = -${(options.cacheMb ?? 64) * 1024}`);
  const handle = sqliteDatabase(db, location);
  try {
    checkIndexSchema(handle);
  } catch (error) {
    db.close();
    throw error;
  }
  return handle;
}

/** Refuses an index this build cannot read: another schema, or a version other than this build's. */
export function checkIndexSchema(db: SqlDatabase): void {
  let rows: { key: string; value: string }[];
  try {
    rows = db.prepare<{ key: string; value: string }>("SELECT key, value FROM meta WHERE key IN ('schema', 'schema_version')").all();
  } catch {
    throw new IndexUnreadableError(db.location, "it has no meta table (not an index, or the indexer has not created it yet)");
  }
  const meta = Object.fromEntries(rows.map((r) => [r.key, r.value]));
  if (meta.schema !== INDEXER_SCHEMA) throw new IndexUnreadableError(db.location, `it holds a "${meta.schema ?? "(none)"}" schema, not "${INDEXER_SCHEMA}"`);
  const version = Number(meta.schema_version);
  if (version !== INDEXER_SCHEMA_VERSION) {
    const hint = version < INDEXER_SCHEMA_VERSION ? "upgrade the indexer first (it migrates the index), then this reader" : "this reader is older than the indexer; upgrade it";
    throw new IndexUnreadableError(db.location, `schema version ${version}, this build reads ${INDEXER_SCHEMA_VERSION}: ${hint}`);
  }
}
