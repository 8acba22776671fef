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
  {
    version: 2,
    description: "mints (one per index; a failed one may be attempted again) and payments (a txid consumed once)",
    sql: `
CREATE TABLE mints (
  slug TEXT NOT NULL REFERENCES collections (slug),
  token_index INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  reservation_id INTEGER NOT NULL REFERENCES reservations (id),
  address TEXT NOT NULL,
  payment_txid TEXT,
  status TEXT NOT NULL,
  inscriber_job_id TEXT,
  inscription_id TEXT,
  mint_txid TEXT,
  error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (slug, token_index)
) WITHOUT ROWID;
CREATE INDEX mints_open ON mints (status) WHERE status IN ('accepted', 'submitted', 'revealed');
CREATE TABLE payments (
  txid TEXT NOT NULL UNIQUE,
  slug TEXT NOT NULL REFERENCES collections (slug),
  token_index INTEGER NOT NULL,
  reservation_id INTEGER NOT NULL REFERENCES reservations (id),
  address TEXT NOT NULL,
  payer_address TEXT,
  received_koinu TEXT NOT NULL,
  price_koinu TEXT NOT NULL,
  status TEXT NOT NULL,
  refund_reason TEXT,
  refund_koinu TEXT NOT NULL,
  refund_status TEXT NOT NULL,
  refund_txid TEXT,
  refund_error TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (txid)
) WITHOUT ROWID;
CREATE INDEX payments_refund_due ON payments (refund_status) WHERE refund_status = 'due';
`,
  },
  {
    version: 3,
    description: "payment PSBTs built for reservations (the unsigned transaction a signed PSBT must match)",
    sql: `
CREATE TABLE payment_psbts (
  reservation_id INTEGER PRIMARY KEY REFERENCES reservations (id),
  address TEXT NOT NULL,
  pubkey TEXT NOT NULL,
  unsigned_tx TEXT NOT NULL,
  psbt TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  signed_txid TEXT
);
`,
  },
  {
    version: 4,
    description: "claim floor: every index below it is taken, so a claim looks for the lowest free index from there",
    sql: `
ALTER TABLE collections ADD COLUMN claim_floor INTEGER NOT NULL DEFAULT 0;
`,
  },
  {
    version: 5,
    description:
      "issue 17: no refunds (what a creator owes a payer is recorded as a settlement), reservations carry their client's key (the per-IP cap), sign-in challenges are stateless (only used ones are kept, until they expire)",
    sql: `
ALTER TABLE payments RENAME COLUMN refund_reason TO settlement_reason;
ALTER TABLE payments RENAME COLUMN refund_koinu TO settlement_koinu;
DROP INDEX payments_refund_due;
ALTER TABLE reservations ADD COLUMN client_key TEXT;
CREATE INDEX reservations_live_client ON reservations (slug, client_key) WHERE status = 'active';
DROP TABLE challenges;
CREATE TABLE used_challenges (
  nonce TEXT PRIMARY KEY,
  address TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX used_challenges_by_expiry ON used_challenges (expires_at);
`,
  },
  {
    version: 6,
    description:
      "issue 26: a mint the index judges no member is rejected_by_index with the index's reason; deploys are pending, submitted, indexed or failed (a TEXT column: no change)",
    sql: `
ALTER TABLE mints ADD COLUMN index_reason TEXT;
`,
  },
];

/** Opens (creating if needed) the launchpad database; ":memory:" for tests. */
export function openLaunchpadDatabase(file: string): Sqlite {
  return openDatabase(file, LAUNCHPAD_MIGRATIONS, LAUNCHPAD_SCHEMA);
}
