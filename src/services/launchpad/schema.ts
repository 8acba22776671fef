/**
 * The launchpad's own SQLite schema (separate from the explorer's index, which it only reads).
 * Times are unix seconds. A reservation is live while `status = 'active'` and `expires_at` is
 * later than now; the partial unique indexes make "one index to one live claimant" and "one live
 * reservation per address and collection" hold in the database itself, not only in the code.
 */
import { Migration, Sqlite, openDatabase } from "../../db/sqlite";

export const LAUNCHPAD_SCHEMA = "dogeos-launchpad";

export const LAUNCHPAD_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "sign-in challenges, sessions (token hashes), collections, reservations, minted items",
    sql: `
CREATE TABLE challenges (
  nonce TEXT PRIMARY KEY,
  address TEXT NOT NULL,
  text TEXT NOT NULL UNIQUE,
  issued_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
) WITHOUT ROWID;
CREATE INDEX challenges_by_expiry ON challenges (expires_at);
CREATE TABLE sessions (
  token_sha256 TEXT PRIMARY KEY,
  address TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX sessions_by_expiry ON sessions (expires_at);
CREATE TABLE collections (
  slug TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  price_koinu TEXT NOT NULL,
  max_supply INTEGER NOT NULL,
  creator_address TEXT NOT NULL,
  listed_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  deploy_status TEXT NOT NULL,
  deploy_job_id TEXT,
  deploy_inscription_id TEXT,
  deploy_error TEXT
) WITHOUT ROWID;
CREATE TABLE reservations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  slug TEXT NOT NULL REFERENCES collections (slug),
  token_index INTEGER NOT NULL,
  address TEXT NOT NULL,
  reserved_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  status TEXT NOT NULL
);
CREATE UNIQUE INDEX reservations_live_index ON reservations (slug, token_index) WHERE status = 'active';
CREATE UNIQUE INDEX reservations_live_address ON reservations (slug, address) WHERE status = 'active';
CREATE INDEX reservations_active_by_expiry ON reservations (slug, expires_at) WHERE status = 'active';
CREATE TABLE collection_items (
  slug TEXT NOT NULL REFERENCES collections (slug),
  token_index INTEGER NOT NULL,
  address TEXT NOT NULL,
  reservation_id INTEGER REFERENCES reservations (id),
  mint_txid TEXT,
  inscription_id TEXT,
  minted_at INTEGER NOT NULL,
  PRIMARY KEY (slug, token_index)
) WITHOUT ROWID;
`,
  },
];

/** Opens (creating if needed) the launchpad database; ":memory:" for tests. */
export function openLaunchpadDatabase(file: string): Sqlite {
  return openDatabase(file, LAUNCHPAD_MIGRATIONS, LAUNCHPAD_SCHEMA);
}
