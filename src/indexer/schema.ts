/**
 * The indexer's SQLite schema. Every derived row carries the height of the block that produced it,
 * so a rollback to a fork point deletes rows above it; mutable rows (balances, spends) are undone
 * from the height-tagged rows that changed them. The block row is written last in each block's
 * transaction.
 */
import { Migration } from "../db/sqlite";

export const INDEXER_SCHEMA = "dogeos-indexer";

export const INDEXER_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "chain, outputs and spends, address history and balances, OP_RETURN outputs",
    sql: `
CREATE TABLE blocks (
  height INTEGER PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  prev_hash TEXT NOT NULL,
  time INTEGER NOT NULL,
  tx_count INTEGER NOT NULL,
  size INTEGER NOT NULL
);
CREATE TABLE txs (
  txid TEXT PRIMARY KEY,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  size INTEGER NOT NULL,
  fee INTEGER,
  coinbase INTEGER NOT NULL,
  input_count INTEGER NOT NULL,
  output_count INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX txs_by_height ON txs (height, position);
CREATE TABLE outputs (
  txid TEXT NOT NULL,
  vout INTEGER NOT NULL,
  height INTEGER NOT NULL,
  value INTEGER NOT NULL,
  script BLOB NOT NULL,
  address TEXT,
  spent_txid TEXT,
  spent_vin INTEGER,
  spent_height INTEGER,
  PRIMARY KEY (txid, vout)
) WITHOUT ROWID;
CREATE INDEX outputs_unspent_by_address ON outputs (address, height) WHERE spent_txid IS NULL AND address IS NOT NULL;
CREATE INDEX outputs_by_height ON outputs (height);
CREATE INDEX outputs_by_spent_height ON outputs (spent_height) WHERE spent_height IS NOT NULL;
CREATE TABLE address_history (
  address TEXT NOT NULL,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  txid TEXT NOT NULL,
  received INTEGER NOT NULL,
  sent INTEGER NOT NULL,
  PRIMARY KEY (address, height, position)
) WITHOUT ROWID;
CREATE INDEX address_history_by_height ON address_history (height);
CREATE TABLE balances (
  address TEXT PRIMARY KEY,
  confirmed INTEGER NOT NULL,
  tx_count INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE op_returns (
  txid TEXT NOT NULL,
  vout INTEGER NOT NULL,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  payload BLOB NOT NULL,
  magic TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  size INTEGER NOT NULL,
  PRIMARY KEY (txid, vout)
) WITHOUT ROWID;
CREATE INDEX op_returns_by_height ON op_returns (height, position);
CREATE INDEX op_returns_by_magic ON op_returns (magic, height);
`,
  },
  {
    version: 2,
    description: "OP_CHECKZKP uses (shadow mode)",
    sql: `
CREATE TABLE zkp_uses (
  txid TEXT NOT NULL,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  role TEXT NOT NULL,
  input_index INTEGER,
  output_index INTEGER,
  op_index INTEGER NOT NULL,
  mode INTEGER,
  mode_name TEXT,
  proof_hex TEXT,
  vk_hex TEXT,
  vk_sha256 TEXT,
  public_inputs TEXT NOT NULL,
  parse_error TEXT,
  shadow_valid INTEGER,
  shadow_encoding TEXT,
  shadow_error TEXT,
  verified_at INTEGER,
  PRIMARY KEY (txid, role, input_index, output_index, op_index)
);
CREATE INDEX zkp_uses_by_height ON zkp_uses (height, position);
CREATE INDEX zkp_uses_pending ON zkp_uses (height) WHERE mode = 0 AND parse_error IS NULL AND verified_at IS NULL;
`,
  },
];
