/**
 * The hot wallet's SQLite schema. Amounts are decimal TEXT (koinu up to 10^19 do not fit a JS
 * number). One database belongs to one key: `meta.wallet_address` is written on first use.
 */
import { Migration, Sqlite, openDatabase } from "../db/sqlite";

export const WALLET_SCHEMA = "wallet";

export const WALLET_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "wallet outputs, transactions by owner and label, their inputs",
    sql: `
-- Outputs the wallet may spend or has spent: confirmed ones reported by the index, and the
-- outputs of its own funded transactions (change, split outputs) before they confirm.
CREATE TABLE wallet_outputs (
  txid TEXT NOT NULL,
  vout INTEGER NOT NULL,
  value_koinu TEXT NOT NULL,
  script_hex TEXT NOT NULL,
  -- Height of the block the index reported it in; NULL while unconfirmed.
  height INTEGER,
  -- Unconfirmed transactions on the way to it, its own included (0 when confirmed).
  depth INTEGER NOT NULL DEFAULT 0,
  -- Upper bound of the unconfirmed ancestors of a transaction spending it (0 when confirmed).
  ancestors INTEGER NOT NULL DEFAULT 0,
  -- available: selectable; locked: carries inscriptions or DRC-20, never selected; spent: by spent_by.
  state TEXT NOT NULL CHECK (state IN ('available', 'locked', 'spent')),
  spent_by TEXT,
  -- JSON {inscriptionIds, drc20} when the index reports anything on it.
  carries TEXT,
  -- The wallet transaction that created it (change, split outputs); NULL for outputs found in the index.
  created_by TEXT,
  -- Not selected before this time (ms): inputs given back after a conflict wait for the index.
  held_until INTEGER,
  PRIMARY KEY (txid, vout)
) WITHOUT ROWID;
CREATE INDEX wallet_outputs_by_state ON wallet_outputs (state, depth);
CREATE INDEX wallet_outputs_by_spender ON wallet_outputs (spent_by) WHERE spent_by IS NOT NULL;
CREATE INDEX wallet_outputs_by_creator ON wallet_outputs (created_by) WHERE created_by IS NOT NULL;

-- Every transaction the wallet built (funded) or was given to track, each version of a replacement chain.
CREATE TABLE wallet_txs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  txid TEXT NOT NULL UNIQUE,
  owner TEXT NOT NULL,
  label TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('funded', 'tracked')),
  hex TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('signed', 'broadcast', 'confirmed', 'replaced', 'failed')),
  fee_koinu TEXT NOT NULL,
  fee_rate_koinu_per_kb TEXT,
  extra_bytes INTEGER NOT NULL DEFAULT 0,
  change_vout INTEGER,
  height INTEGER,
  confirmations INTEGER NOT NULL DEFAULT 0,
  -- 1 once confirmed at the tracking depth: no longer followed.
  final INTEGER NOT NULL DEFAULT 0,
  replaced_by TEXT,
  replaces TEXT,
  error TEXT,
  -- BroadcastFailureKind of the last failed attempt.
  error_kind TEXT,
  created_at INTEGER NOT NULL,
  broadcast_at INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  -- 1 when the wallet sends it itself: a replacement of a transaction that had been broadcast.
  rebroadcast INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX wallet_txs_by_owner ON wallet_txs (owner, label);
CREATE INDEX wallet_txs_followed ON wallet_txs (state) WHERE final = 0;

-- The current transaction of each (owner, label): the latest of its replacement chain.
CREATE TABLE wallet_labels (
  owner TEXT NOT NULL,
  label TEXT NOT NULL,
  txid TEXT NOT NULL,
  PRIMARY KEY (owner, label)
) WITHOUT ROWID;

-- The inputs of every stored transaction: who spends what, and the parents of each transaction.
CREATE TABLE wallet_inputs (
  txid TEXT NOT NULL,
  vin INTEGER NOT NULL,
  prev_txid TEXT NOT NULL,
  prev_vout INTEGER NOT NULL,
  -- Known for the wallet's own outputs.
  value_koinu TEXT,
  PRIMARY KEY (txid, vin)
) WITHOUT ROWID;
CREATE INDEX wallet_inputs_by_prevout ON wallet_inputs (prev_txid, prev_vout);
`,
  },
];

/** Opens (creating if needed) a hot wallet database at `file` (":memory:" for tests). */
export function openWalletDatabase(file: string): Sqlite {
  return openDatabase(file, WALLET_MIGRATIONS, WALLET_SCHEMA);
}
