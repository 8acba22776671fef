/**
 * Opening the index. One process writes it (the indexer: `openIndexerDatabase`, which applies
 * migrations); every other process reads it (`openIndexReader`: read-only, never migrates, and
 * refuses an index whose schema this build does not read). The location is a SQLite file (the
 * embedded default) or a PostgreSQL URL.
 */
import fs from "node:fs";
import Database from "better-sqlite3";
import { RebuildRequiredError, SchemaMismatchError, openDatabase } from "../db/sqlite";
import { SqlDatabase, isPostgresUrl, printableLocation, sqliteDatabase } from "../db/sql";
import { PostgresDatabase, openPostgres } from "../db/postgres";
import { INDEXER_MIGRATIONS, INDEXER_SCHEMA } from "./schema";
import { INDEXER_PG_CONFLICT_KEYS, INDEXER_PG_DDL, INDEXER_PG_UPGRADES } from "./schema-postgres";
import { IndexProfile, profileOf } from "./profile";
import { DogeosError } from "../errors";

export const INDEXER_SCHEMA_VERSION = INDEXER_MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);

export class IndexUnreadableError extends DogeosError<"INDEX_UNREADABLE"> {
  constructor(
    readonly location: string,
    reason: string,
  ) {
    super("unavailable", "INDEX_UNREADABLE", `index ${printableLocation(location)} cannot be read: ${reason}`, {
      retryable: false,
      details: { location: printableLocation(location) },
    });
  }
}

/**
 * The one line an index older than this build's schema is refused with: version 8 changed every
 * chain table's keys (integer ids, binary hashes) and version 9 every inscription, DRC-20,
 * launchpad, OP_RETURN and OP_CHECKZKP row's (ids for txids, addresses and inscriptions, BLOB
 * hashes), so an older index is rebuilt, never converted.
 */
export function rebuildIndexMessage(found: number, location: string): string {
  return `index ${printableLocation(location)} has schema version ${found}, this build writes version ${INDEXER_SCHEMA_VERSION} and cannot convert it: rebuild it with \`dogeos indexer --db ${printableLocation(location)} --reset-on-rebuild\` (deletes it and re-indexes from its start height)`;
}

/**
 * The page size of a new SQLite index, in bytes: SQLite's default. 16 KB pages cut the commit's time
 * at 10M transactions by half (fewer WAL frames for the same keys) but not the catch-up's: reads
 * and B-tree changes work on pages four times larger (docs/operations.md "Sizing", measured and not
 * adopted). An index keeps the page size it was created with.
 */
export const INDEX_PAGE_SIZE = 4096;
/** WAL a commit lets grow before it checkpoints: 20,000 pages of 4 KB, in the file's own pages. */
const WAL_AUTOCHECKPOINT_BYTES = 20_000 * 4096;

/** The page size of an open SQLite index, in bytes. */
export function indexPageSize(db: SqlDatabase): number {
  return Number(db.prepare<{ page_size: number }>("PRAGMA page_size").get()?.page_size ?? 4096);
}

/** The indexer's own handle: creates the index if needed and migrates it. */
export function openIndexerDatabase(
  location: string,
  options: { cacheMb?: number; resetIfRebuildRequired?: boolean; pageSize?: number } = {},
): SqlDatabase {
  if (isPostgresUrl(location)) return openPostgresIndexWriter(location, options);
  let db: Database.Database;
  const pageSize = { pageSize: options.pageSize ?? INDEX_PAGE_SIZE };
  try {
    db = openDatabase(location, INDEXER_MIGRATIONS, INDEXER_SCHEMA, pageSize);
  } catch (error) {
    if (!(error instanceof RebuildRequiredError)) throw error;
    if (!options.resetIfRebuildRequired)
      throw new RebuildRequiredError(
        error.found,
        error.expected,
        error.file,
        rebuildIndexMessage(error.found, location),
      );
    // The index is derived from the chain: starting over is always correct, only slower.
    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(location + suffix, { force: true });
    db = openDatabase(location, INDEXER_MIGRATIONS, INDEXER_SCHEMA, pageSize);
  }
  // Random txid and address keys dirty pages all over the B-trees: a larger page cache and fewer,
  // larger WAL checkpoints roughly doubled catch-up speed (npm run bench:indexer).
  db.pragma(`cache_size = -${(options.cacheMb ?? 256) * 1024}`);
  const handle = sqliteDatabase(db, location);
  if (location !== ":memory:")
    db.pragma(`wal_autocheckpoint = ${Math.max(1, Math.round(WAL_AUTOCHECKPOINT_BYTES / indexPageSize(handle)))}`);
  return handle;
}

/** What a reader opens the index with: its page cache, and the index profiles it can read (default: full only). */
export interface IndexReaderOptions {
  cacheMb?: number;
  /** An attester-profile index lacks spent outputs (profile.ts): only the attester and attest-api read it. */
  profiles?: readonly IndexProfile[];
}

/**
 * A reader's handle on the index the indexer writes: read-only (a statement that writes fails),
 * never migrated. An index that does not exist yet, whose schema version differs from this
 * build's, or built with a profile the reader does not take, is refused with IndexUnreadableError
 * naming what to do.
 */
export function openIndexReader(location: string, options: IndexReaderOptions = {}): SqlDatabase {
  if (isPostgresUrl(location)) {
    let db: PostgresDatabase;
    try {
      db = openPostgres(location, {
        readOnly: true,
        applicationName: "dogeos-index-reader",
        conflictKeys: INDEXER_PG_CONFLICT_KEYS,
        statementTimeoutMs: 30_000,
      });
    } catch (error) {
      throw new IndexUnreadableError(location, (error as Error).message);
    }
    try {
      checkIndexSchema(db);
      checkIndexProfile(db, options.profiles);
    } catch (error) {
      db.close();
      throw error;
    }
    return db;
  }
  if (location === ":memory:")
    throw new IndexUnreadableError(location, "an in-memory index has no reader; pass the indexer's handle");
  if (!fs.existsSync(location))
    throw new IndexUnreadableError(location, "the file does not exist (start the indexer first; it creates the index)");
  const db = new Database(location, { readonly: true, fileMustExist: true });
  db.pragma("busy_timeout = 5000");
  db.pragma(`cache_size = -${(options.cacheMb ?? 64) * 1024}`);
  const handle = sqliteDatabase(db, location);
  try {
    checkIndexSchema(handle);
    checkIndexProfile(handle, options.profiles);
  } catch (error) {
    db.close();
    throw error;
  }
  return handle;
}

/** The schema name and version an index's meta table records (each undefined when absent). */
function schemaMeta(db: SqlDatabase): { schema?: string; schema_version?: string } {
  const rows = db
    .prepare<{ key: string; value: string }>("SELECT key, value FROM meta WHERE key IN ('schema', 'schema_version')")
    .all();
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

/** Whether the indexer of this build converts an index of `version` in place (no rebuild). */
function upgradesInPlace(version: number, dialect: SqlDatabase["dialect"]): boolean {
  if (!Number.isInteger(version) || version <= 0 || version >= INDEXER_SCHEMA_VERSION) return false;
  for (let next = version + 1; next <= INDEXER_SCHEMA_VERSION; next++) {
    if (dialect === "postgres" ? INDEXER_PG_UPGRADES[next] === undefined : rebuildsAt(next)) return false;
  }
  return true;
}

function rebuildsAt(version: number): boolean {
  return INDEXER_MIGRATIONS.some((m) => m.version === version && m.requiresRebuild === true);
}

/** Refuses an index this build cannot read: another schema, or a version other than this build's. */
export function checkIndexSchema(db: SqlDatabase): void {
  let meta: ReturnType<typeof schemaMeta>;
  try {
    meta = schemaMeta(db);
  } catch {
    throw new IndexUnreadableError(
      db.location,
      "it has no meta table (not an index, or the indexer has not created it yet)",
    );
  }
  if (meta.schema !== INDEXER_SCHEMA)
    throw new IndexUnreadableError(
      db.location,
      `it holds a "${meta.schema ?? "(none)"}" schema, not "${INDEXER_SCHEMA}"`,
    );
  const version = Number(meta.schema_version);
  if (version !== INDEXER_SCHEMA_VERSION) {
    const hint =
      version > INDEXER_SCHEMA_VERSION
        ? "this reader is older than the indexer; upgrade it"
        : upgradesInPlace(version, db.dialect)
          ? `start this build's indexer on it (\`dogeos indexer --db ${printableLocation(db.location)}\`), which converts version ${version} in place, then start this reader`
          : `upgrade the indexer and rebuild the index with \`dogeos indexer --db ${printableLocation(db.location)} --reset-on-rebuild\`, then start this reader`;
    throw new IndexUnreadableError(
      db.location,
      `schema version ${version}, this build reads ${INDEXER_SCHEMA_VERSION}: ${hint}`,
    );
  }
}

/** Refuses an index built with a profile the reader does not take (an attester index: every reader but the attester's). */
function checkIndexProfile(db: SqlDatabase, accepted: readonly IndexProfile[] = ["full"]): void {
  const profile = profileOf(db);
  if (!(accepted as readonly string[]).includes(profile))
    throw new IndexUnreadableError(
      db.location,
      `it was built with \`dogeos indexer --profile ${profile}\`, which deletes spent outputs this reader needs: point it at an index built without --profile (full)`,
    );
}

/** The advisory lock the writer holds for its session: a second indexer on the same database is refused. */
const WRITER_LOCK = 0x646f6765; // "doge"

/**
 * The indexer's PostgreSQL handle: takes the single-writer lock, then creates the schema in one
 * transaction when the database has none, or checks its version as openDatabase does for SQLite.
 */
function openPostgresIndexWriter(location: string, options: { resetIfRebuildRequired?: boolean }): SqlDatabase {
  const db = openPostgres(location, {
    applicationName: "dogeos-indexer",
    conflictKeys: INDEXER_PG_CONFLICT_KEYS,
    statementTimeoutMs: 0,
  });
  try {
    const locked = db.prepare<{ ok: number }>("SELECT pg_try_advisory_lock(?) AS ok").get(WRITER_LOCK);
    if (!locked?.ok)
      throw new IndexUnreadableError(location, "another indexer is writing this database (its advisory lock is held)");
    db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT COLLATE "C" PRIMARY KEY, value TEXT NOT NULL)');
    const meta = schemaMeta(db);
    if (meta.schema !== undefined && meta.schema !== INDEXER_SCHEMA)
      throw new Error(`database ${db.location} holds a "${meta.schema}" schema, not "${INDEXER_SCHEMA}"`);
    const version = meta.schema_version === undefined ? 0 : Number(meta.schema_version);
    if (version > INDEXER_SCHEMA_VERSION) throw new SchemaMismatchError(version, INDEXER_SCHEMA_VERSION, db.location);
    const inPlace = upgradesInPlace(version, "postgres");
    if (inPlace) {
      db.transaction(() => {
        for (let next = version + 1; next <= INDEXER_SCHEMA_VERSION; next++) db.exec(INDEXER_PG_UPGRADES[next]);
        db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)").run(
          "schema_version",
          String(INDEXER_SCHEMA_VERSION),
        );
      })();
    } else if (version !== 0 && version < INDEXER_SCHEMA_VERSION) {
      // A version no in-place step reaches (one that predates this backend, or a rebuild) is rebuilt.
      if (!options.resetIfRebuildRequired)
        throw new RebuildRequiredError(
          version,
          INDEXER_SCHEMA_VERSION,
          db.location,
          rebuildIndexMessage(version, db.location),
        );
      dropIndexTables(db);
    }
    // A new database, or one whose old tables were just dropped, gets the schema.
    if (!inPlace && version !== INDEXER_SCHEMA_VERSION) {
      db.transaction(() => {
        db.exec(INDEXER_PG_DDL);
        const set = db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)");
        set.run("schema", INDEXER_SCHEMA);
        set.run("schema_version", String(INDEXER_SCHEMA_VERSION));
      })();
    }
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Index tables of earlier schema versions (balances: version 7's, now counters on addresses). */
const FORMER_PG_TABLES = ["balances"];

function dropIndexTables(db: SqlDatabase): void {
  // With the tables of older versions that version 8 no longer has.
  const tables = [...[...INDEXER_PG_DDL.matchAll(/CREATE TABLE (\w+)/g)].map((m) => m[1]), ...FORMER_PG_TABLES];
  db.transaction(() => {
    for (const table of tables) db.exec(`DROP TABLE IF EXISTS ${table}`);
    db.exec("DELETE FROM meta WHERE key IN ('schema', 'schema_version')");
  })();
}
