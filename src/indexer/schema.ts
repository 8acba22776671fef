/**
 * The indexer's SQLite schema. Every derived row carries the height of the block that produced it,
 * so a rollback to a fork point deletes rows above it; mutable rows (balances, spends) are undone
 * from the height-tagged rows that changed them. The block row is written last in each block's
 * transaction.
 */
import { Migration } from "../db/sqlite";

export const INDEXER_SCHEMA = "dogeos-indexer";

/**
 * An address's six balance counters, as the addresses rows held them until version 13 and
 * address_stats holds them since (balance_log holds their changes): one text, so that every table
 * declares them alike (schema-postgres.ts has its twin).
 */
const COUNTERS = `confirmed INTEGER NOT NULL,
  tx_count INTEGER NOT NULL,
  funded_txo_count INTEGER NOT NULL,
  funded_txo_sum INTEGER NOT NULL,
  spent_txo_count INTEGER NOT NULL,
  spent_txo_sum INTEGER NOT NULL`;

/**
 * Version 8's chain tables. Transactions get an integer id in chain order (the block records the
 * id of its first transaction and of the first address it added, so a height maps to id ranges); every other chain table refers to
 * ids, so each batch appends at the right edge of every B-tree instead of touching leaves at random
 * hex keys. The only random-key trees left are txs_by_txid (since version 10 txs_by_txid_prefix, since
 * version 12 random only within the newest bucket of ids, txs_by_txid_bucket) and addresses_by_address
 * (one entry per transaction and per new address), and the spend update of an output.
 *
 * outputs.script is NULL when it equals its address's standard script (addresses.script): P2PKH and
 * P2SH outputs store none. Balances are counters on the address row (since version 13 on its
 * address_stats row); a rollback deletes the rows of addresses first paid above the fork, so ids
 * stay those a fresh index of the chain assigns.
 * addresses.script_hash is SHA-256 of that standard script, in the hash's own byte order.
 */
const CHAIN_TABLES_V8 = `
CREATE TABLE blocks (
  height INTEGER PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  prev_hash TEXT NOT NULL,
  time INTEGER NOT NULL,
  tx_count INTEGER NOT NULL,
  size INTEGER NOT NULL,
  first_tx_id INTEGER NOT NULL,
  first_address_id INTEGER NOT NULL
);
CREATE TABLE txs (
  id INTEGER PRIMARY KEY,
  txid BLOB NOT NULL,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  size INTEGER NOT NULL,
  fee INTEGER,
  coinbase INTEGER NOT NULL,
  input_count INTEGER NOT NULL,
  output_count INTEGER NOT NULL
);
CREATE UNIQUE INDEX txs_by_txid ON txs (txid);
CREATE TABLE addresses (
  id INTEGER PRIMARY KEY,
  address TEXT NOT NULL,
  script BLOB NOT NULL,
  script_hash BLOB NOT NULL,
  ${COUNTERS}
);
CREATE UNIQUE INDEX addresses_by_address ON addresses (address);
CREATE INDEX addresses_by_script_hash ON addresses (script_hash);
CREATE TABLE outputs (
  tx_id INTEGER NOT NULL,
  vout INTEGER NOT NULL,
  value INTEGER NOT NULL,
  script BLOB,
  address_id INTEGER,
  spent_tx_id INTEGER,
  spent_vin INTEGER,
  PRIMARY KEY (tx_id, vout)
) WITHOUT ROWID;
CREATE INDEX outputs_unspent_by_address ON outputs (address_id, tx_id) WHERE spent_tx_id IS NULL AND address_id IS NOT NULL;
CREATE INDEX outputs_by_spent_tx ON outputs (spent_tx_id) WHERE spent_tx_id IS NOT NULL;
CREATE TABLE address_history (
  tx_id INTEGER NOT NULL,
  address_id INTEGER NOT NULL,
  received INTEGER NOT NULL,
  sent INTEGER NOT NULL,
  counterparty_id INTEGER,
  PRIMARY KEY (tx_id, address_id)
) WITHOUT ROWID;
CREATE INDEX address_history_by_address ON address_history (address_id, tx_id, received, sent);
`;

/**
 * Version 9's tables: everything derived from inscriptions, OP_RETURN outputs and OP_CHECKZKP uses
 * refers to ids instead of repeating hex text. An inscription's key is the id of its genesis (first
 * reveal) transaction: this indexer gives each reveal at most one inscription, `<txid>i0`, so the
 * text id is derived from txs.txid (a multi-transaction Doginals reveal keeps its first
 * transaction's id, its last is `reveal_tx_id`). Addresses are addresses.id (every address an
 * inscription or DRC-20 balance names was paid by an output first), transactions txs.id, hashes
 * 32-byte BLOBs in display byte order (as txs.txid). Heights and positions stay where they key
 * pages and rollbacks. doginals_pending (a few rows while a multi-transaction reveal is open) keeps
 * its text.
 */
const INSCRIPTION_TABLES_V9 = `
CREATE TABLE blocks (
  height INTEGER PRIMARY KEY,
  hash BLOB NOT NULL UNIQUE,
  prev_hash BLOB NOT NULL,
  time INTEGER NOT NULL,
  tx_count INTEGER NOT NULL,
  size INTEGER NOT NULL,
  first_tx_id INTEGER NOT NULL,
  first_address_id INTEGER NOT NULL
);
CREATE TABLE op_returns (
  tx_id INTEGER NOT NULL,
  vout INTEGER NOT NULL,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  payload BLOB NOT NULL,
  magic TEXT NOT NULL,
  sha256 BLOB NOT NULL,
  size INTEGER NOT NULL,
  PRIMARY KEY (tx_id, vout)
) WITHOUT ROWID;
CREATE INDEX op_returns_by_height ON op_returns (height, position);
CREATE INDEX op_returns_by_magic ON op_returns (magic, height);
CREATE INDEX op_returns_by_sha256 ON op_returns (sha256);
CREATE TABLE zkp_uses (
  tx_id INTEGER NOT NULL,
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
  vk_sha256 BLOB,
  public_inputs TEXT NOT NULL,
  parse_error TEXT,
  shadow_valid INTEGER,
  shadow_encoding TEXT,
  shadow_error TEXT,
  verified_at INTEGER,
  PRIMARY KEY (tx_id, role, input_index, output_index, op_index)
);
CREATE INDEX zkp_uses_by_height ON zkp_uses (height, position);
CREATE INDEX zkp_uses_pending ON zkp_uses (height) WHERE mode = 0 AND parse_error IS NULL AND verified_at IS NULL;
CREATE INDEX zkp_uses_by_vk ON zkp_uses (vk_sha256, height, position) WHERE vk_sha256 IS NOT NULL;
CREATE TABLE journal (seq INTEGER PRIMARY KEY AUTOINCREMENT, height INTEGER NOT NULL, tbl TEXT NOT NULL, pk TEXT NOT NULL, previous TEXT);
CREATE INDEX journal_by_height ON journal (height);
CREATE TABLE inscriptions (
  id INTEGER PRIMARY KEY,
  number INTEGER NOT NULL UNIQUE,
  form TEXT NOT NULL,
  content_type TEXT NOT NULL,
  action TEXT,
  body BLOB NOT NULL,
  body_size INTEGER NOT NULL,
  envelope_hash BLOB,
  collection_key TEXT,
  reveal_tx_id INTEGER NOT NULL,
  reveal_tx_count INTEGER NOT NULL,
  inscriber_id INTEGER,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL
);
CREATE INDEX inscriptions_by_height ON inscriptions (height, position);
CREATE INDEX inscriptions_by_collection ON inscriptions (collection_key) WHERE collection_key IS NOT NULL;
CREATE INDEX inscriptions_by_reveal ON inscriptions (reveal_tx_id);
CREATE TABLE inscription_locations (
  inscription_id INTEGER PRIMARY KEY,
  tx_id INTEGER,
  vout INTEGER,
  offset INTEGER,
  owner_id INTEGER,
  height INTEGER NOT NULL
);
CREATE INDEX inscription_locations_by_outpoint ON inscription_locations (tx_id, vout) WHERE tx_id IS NOT NULL;
CREATE INDEX inscription_locations_by_owner ON inscription_locations (owner_id) WHERE owner_id IS NOT NULL;
CREATE TABLE inscription_moves (
  inscription_id INTEGER NOT NULL,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  kind TEXT NOT NULL,
  tx_id INTEGER NOT NULL,
  to_tx_id INTEGER,
  to_vout INTEGER,
  to_offset INTEGER,
  owner_id INTEGER,
  PRIMARY KEY (inscription_id, height, position, kind)
) WITHOUT ROWID;
CREATE INDEX inscription_moves_by_height ON inscription_moves (height);
CREATE TABLE inscription_rejections (
  tx_id INTEGER NOT NULL,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  form TEXT NOT NULL,
  reason TEXT NOT NULL,
  PRIMARY KEY (tx_id, form, reason)
) WITHOUT ROWID;
CREATE INDEX inscription_rejections_by_height ON inscription_rejections (height);
CREATE TABLE doginals_pending (
  outpoint TEXT PRIMARY KEY,
  inscription_id TEXT NOT NULL,
  state TEXT NOT NULL,
  inscriber_address TEXT,
  height INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE drc20_ticks (
  tick_key TEXT PRIMARY KEY,
  tick TEXT NOT NULL,
  max_supply TEXT NOT NULL,
  mint_limit TEXT NOT NULL,
  minted TEXT NOT NULL,
  deployer_id INTEGER NOT NULL,
  inscription_id INTEGER NOT NULL,
  height INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE drc20_balances (
  address_id INTEGER NOT NULL,
  tick_key TEXT NOT NULL,
  available TEXT NOT NULL,
  transferable TEXT NOT NULL,
  PRIMARY KEY (address_id, tick_key)
) WITHOUT ROWID;
CREATE INDEX drc20_balances_by_tick ON drc20_balances (tick_key);
CREATE TABLE drc20_transfers (
  inscription_id INTEGER PRIMARY KEY,
  tick_key TEXT NOT NULL,
  amount TEXT NOT NULL,
  owner_id INTEGER NOT NULL,
  sent INTEGER NOT NULL,
  receiver_id INTEGER,
  returned INTEGER NOT NULL,
  height INTEGER NOT NULL,
  sent_height INTEGER
);
CREATE INDEX drc20_transfers_by_owner ON drc20_transfers (owner_id, tick_key);
CREATE TABLE drc20_operations (
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  inscription_id INTEGER NOT NULL,
  event TEXT NOT NULL,
  op TEXT,
  tick_key TEXT,
  tick TEXT,
  amount TEXT,
  address_id INTEGER,
  valid INTEGER NOT NULL,
  reason TEXT,
  note TEXT,
  PRIMARY KEY (height, position, seq)
) WITHOUT ROWID;
CREATE INDEX drc20_operations_by_tick ON drc20_operations (tick_key, height);
CREATE INDEX drc20_operations_by_inscription ON drc20_operations (inscription_id);
CREATE INDEX drc20_operations_by_address ON drc20_operations (address_id, tick_key, height) WHERE address_id IS NOT NULL;
CREATE TABLE collections (
  slug TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  price_koinu TEXT NOT NULL,
  max_supply TEXT NOT NULL,
  inscriber_id INTEGER NOT NULL,
  deploy_inscription INTEGER NOT NULL,
  height INTEGER NOT NULL,
  minted_count INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE collection_members (
  slug TEXT NOT NULL,
  token_id TEXT NOT NULL,
  inscription_id INTEGER NOT NULL,
  height INTEGER NOT NULL,
  PRIMARY KEY (slug, token_id)
) WITHOUT ROWID;
CREATE INDEX collection_members_by_height ON collection_members (height);
CREATE TABLE launchpad_operations (
  inscription_id INTEGER PRIMARY KEY,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  op TEXT NOT NULL,
  slug TEXT,
  token_id TEXT,
  valid INTEGER NOT NULL,
  reason TEXT
);
CREATE INDEX launchpad_operations_by_height ON launchpad_operations (height);
`;

/** Transaction ids per bucket of txs_by_txid_bucket, as a power of two (TX_ID_OF_TXID). */
export const TXID_BUCKET_BITS = 22;
/** The txid index since version 12: the id's bucket, then the txid's first 8 bytes. */
export const TXS_BY_TXID_BUCKET = `CREATE INDEX txs_by_txid_bucket ON txs ((id >> ${TXID_BUCKET_BITS}), substr(txid, 1, 8))`;

/** The tables version 9 recreates (their indexes go with them). */
const V9_TABLES = [...INSCRIPTION_TABLES_V9.matchAll(/CREATE TABLE (\w+)/g)].map((m) => m[1]);

/**
 * The spends of outputs already written, logged while a catch-up defers the read indexes (schema
 * version 14): keyed by the spender (its transaction id and input), so a batch appends to the
 * tree's end. Marking each spend on its output instead dirtied pages all over `outputs`: 74,706 of
 * them per 250,000-transaction batch at 10M transactions, the largest share of what a batch wrote
 * (docs/operations.md "Sizing"). When the catch-up ends, and before a rollback or a refill of the
 * UTXO cache, IndexerStore.mergeSpendLog() writes the logged spends into `outputs` in (tx id, vout)
 * order, one pass over its pages, and empties the log. Until then the outputs it names read as
 * unspent, so the reads that answer spent state refuse while the log holds rows (spendsPending).
 */
export const SPEND_LOG = `CREATE TABLE spend_log (
  spent_tx_id INTEGER NOT NULL,
  spent_vin INTEGER NOT NULL,
  tx_id INTEGER NOT NULL,
  vout INTEGER NOT NULL,
  PRIMARY KEY (spent_tx_id, spent_vin)
) WITHOUT ROWID`;

/**
 * The balance log of a catch-up (schema version 15): the batch's changes to each address's counters
 * (address_stats), appended in batch order under a rowid. Adding them to address_stats as they
 * came dirtied a page per changed address all over that table: 8,205 leaves at 10M transactions,
 * nearly all rewritten by every 250,000-transaction batch, and at mainnet's hundred million
 * addresses one page per changed address. While a catch-up logs spends (SPEND_LOG), a SQLite
 * index logs these too; IndexerStore.mergeLogs() adds them up per address and writes them into
 * address_stats in id order, one pass over its pages, when the catch-up ends and before a
 * rollback. Until then balances, transaction counts and output totals read short, so the reads of
 * address_stats refuse while the log holds rows, as those of spent state do.
 */
export const BALANCE_LOG = `CREATE TABLE balance_log (
  address_id INTEGER NOT NULL,
  ${COUNTERS}
)`;

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
    requiresRebuild: true,
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
  {
    version: 3,
    description:
      "inscriptions (v1 envelope and Doginals), their locations, DRC-20, launchpad collections, undo journal",
    requiresRebuild: true,
    sql: `
CREATE TABLE journal (seq INTEGER PRIMARY KEY AUTOINCREMENT, height INTEGER NOT NULL, tbl TEXT NOT NULL, pk TEXT NOT NULL, previous TEXT);
CREATE INDEX journal_by_height ON journal (height);
CREATE TABLE inscriptions (
  id TEXT PRIMARY KEY,
  number INTEGER NOT NULL UNIQUE,
  form TEXT NOT NULL,
  content_type TEXT NOT NULL,
  action TEXT,
  body BLOB NOT NULL,
  body_size INTEGER NOT NULL,
  envelope_hash TEXT,
  collection_key TEXT,
  genesis_txid TEXT NOT NULL,
  reveal_txid TEXT NOT NULL,
  reveal_tx_count INTEGER NOT NULL,
  inscriber_address TEXT,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX inscriptions_by_height ON inscriptions (height, position);
CREATE INDEX inscriptions_by_collection ON inscriptions (collection_key) WHERE collection_key IS NOT NULL;
CREATE TABLE inscription_locations (
  inscription_id TEXT PRIMARY KEY,
  txid TEXT,
  vout INTEGER,
  offset INTEGER,
  owner_address TEXT,
  height INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX inscription_locations_by_outpoint ON inscription_locations (txid, vout) WHERE txid IS NOT NULL;
CREATE INDEX inscription_locations_by_owner ON inscription_locations (owner_address) WHERE owner_address IS NOT NULL;
CREATE TABLE inscription_moves (
  inscription_id TEXT NOT NULL,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  txid TEXT NOT NULL,
  kind TEXT NOT NULL,
  to_txid TEXT,
  to_vout INTEGER,
  to_offset INTEGER,
  owner_address TEXT,
  PRIMARY KEY (inscription_id, height, position, kind)
) WITHOUT ROWID;
CREATE INDEX inscription_moves_by_height ON inscription_moves (height);
CREATE TABLE inscription_rejections (
  txid TEXT NOT NULL,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  form TEXT NOT NULL,
  reason TEXT NOT NULL,
  PRIMARY KEY (txid, form, reason)
) WITHOUT ROWID;
CREATE INDEX inscription_rejections_by_height ON inscription_rejections (height);
CREATE TABLE doginals_pending (
  outpoint TEXT PRIMARY KEY,
  inscription_id TEXT NOT NULL,
  state TEXT NOT NULL,
  inscriber_address TEXT,
  height INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE drc20_ticks (
  tick_key TEXT PRIMARY KEY,
  tick TEXT NOT NULL,
  max_supply TEXT NOT NULL,
  mint_limit TEXT NOT NULL,
  minted TEXT NOT NULL,
  deployer_address TEXT NOT NULL,
  inscription_id TEXT NOT NULL,
  height INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE drc20_balances (
  address TEXT NOT NULL,
  tick_key TEXT NOT NULL,
  available TEXT NOT NULL,
  transferable TEXT NOT NULL,
  PRIMARY KEY (address, tick_key)
) WITHOUT ROWID;
CREATE TABLE drc20_transfers (
  inscription_id TEXT PRIMARY KEY,
  tick_key TEXT NOT NULL,
  amount TEXT NOT NULL,
  owner_address TEXT NOT NULL,
  sent INTEGER NOT NULL,
  receiver_address TEXT,
  returned INTEGER NOT NULL,
  height INTEGER NOT NULL,
  sent_height INTEGER
) WITHOUT ROWID;
CREATE INDEX drc20_transfers_by_owner ON drc20_transfers (owner_address, tick_key);
CREATE TABLE drc20_operations (
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  inscription_id TEXT NOT NULL,
  event TEXT NOT NULL,
  op TEXT,
  tick_key TEXT,
  tick TEXT,
  amount TEXT,
  address TEXT,
  valid INTEGER NOT NULL,
  reason TEXT,
  note TEXT,
  PRIMARY KEY (height, position, seq)
) WITHOUT ROWID;
CREATE INDEX drc20_operations_by_tick ON drc20_operations (tick_key, height);
CREATE INDEX drc20_operations_by_inscription ON drc20_operations (inscription_id);
CREATE TABLE collections (
  slug TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  price_koinu TEXT NOT NULL,
  max_supply TEXT NOT NULL,
  inscriber_address TEXT NOT NULL,
  deploy_inscription TEXT NOT NULL,
  height INTEGER NOT NULL,
  minted_count INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE collection_members (
  slug TEXT NOT NULL,
  token_id TEXT NOT NULL,
  inscription_id TEXT NOT NULL,
  height INTEGER NOT NULL,
  PRIMARY KEY (slug, token_id)
) WITHOUT ROWID;
CREATE INDEX collection_members_by_height ON collection_members (height);
CREATE TABLE launchpad_operations (
  inscription_id TEXT PRIMARY KEY,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  op TEXT NOT NULL,
  slug TEXT,
  token_id TEXT,
  valid INTEGER NOT NULL,
  reason TEXT
) WITHOUT ROWID;
CREATE INDEX launchpad_operations_by_height ON launchpad_operations (height);
`,
  },
  {
    version: 4,
    description: "OP_RETURN lookup by payload hash (anchors, /explorer/opreturn/sha256)",
    sql: "CREATE INDEX op_returns_by_sha256 ON op_returns (sha256);",
  },
  {
    version: 5,
    description: "history counterparties written at index time; lookups of spends and reveals by txid",
    requiresRebuild: true,
    sql: `
ALTER TABLE address_history ADD COLUMN counterparty TEXT;
CREATE INDEX outputs_by_spent_txid ON outputs (spent_txid) WHERE spent_txid IS NOT NULL;
DROP INDEX outputs_by_spent_height;
CREATE INDEX inscriptions_by_reveal ON inscriptions (reveal_txid);
`,
  },
  {
    version: 6,
    description: "DRC-20 operations by address and tick (balances as of a height, for attesters)",
    // An index over rows the table already has: built from them, no rebuild needed.
    sql: "CREATE INDEX drc20_operations_by_address ON drc20_operations (address, tick_key, height) WHERE address IS NOT NULL;",
  },
  {
    version: 7,
    description:
      "Esplora's chain_stats kept as counters on balances (no walk of an address's history); a verifying key's uses by height",
    // Derived from the outputs the index already holds: backfilled in one pass, no rebuild needed.
    sql: `
ALTER TABLE balances ADD COLUMN funded_txo_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE balances ADD COLUMN funded_txo_sum INTEGER NOT NULL DEFAULT 0;
ALTER TABLE balances ADD COLUMN spent_txo_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE balances ADD COLUMN spent_txo_sum INTEGER NOT NULL DEFAULT 0;
UPDATE balances SET funded_txo_count = a.fc, funded_txo_sum = a.fs, spent_txo_count = a.sc, spent_txo_sum = a.ss
  FROM (SELECT address, COUNT(*) AS fc, SUM(value) AS fs, SUM(CASE WHEN spent_txid IS NULL THEN 0 ELSE 1 END) AS sc,
    SUM(CASE WHEN spent_txid IS NULL THEN 0 ELSE value END) AS ss FROM outputs WHERE address IS NOT NULL GROUP BY address) AS a
  WHERE balances.address = a.address;
CREATE INDEX zkp_uses_by_vk ON zkp_uses (vk_sha256, height, position) WHERE vk_sha256 IS NOT NULL;
`,
  },
  {
    version: 8,
    description:
      "keys that append: integer transaction ids in chain order (txid a 32-byte BLOB), outputs by (tx id, vout), integer address ids (the text once, with its Esplora script hash) carrying the balance counters, history by (tx id, address id)",
    // Every row of the chain tables changes shape: a version-7 index is rebuilt, never converted.
    requiresRebuild: true,
    sql: `
DROP TABLE blocks;
DROP TABLE txs;
DROP TABLE outputs;
DROP TABLE address_history;
DROP TABLE balances;
${CHAIN_TABLES_V8}`,
  },
  {
    version: 9,
    description:
      "inscription, DRC-20, launchpad, OP_RETURN and OP_CHECKZKP rows refer to transaction, address and inscription ids; block hashes and payload hashes as 32-byte BLOBs; DRC-20 balances by tick",
    // Every row of these tables changes shape: a version-8 index is rebuilt, never converted.
    requiresRebuild: true,
    sql: `
${V9_TABLES.map((t) => `DROP TABLE ${t};`).join("\n")}
${INSCRIPTION_TABLES_V9}`,
  },
  {
    version: 10,
    description:
      "transactions found by the first 8 bytes of their txid (txs_by_txid_prefix) instead of the whole 32 (txs_by_txid)",
    // An index over the rows the table already has: built from them, no rebuild needed.
    sql: `
DROP INDEX txs_by_txid;
CREATE INDEX txs_by_txid_prefix ON txs (substr(txid, 1, 8));
`,
  },
  {
    version: 11,
    description:
      "inscription moves keyed in chain order (height, position, inscription id, kind), found by inscription through inscription_moves_by_inscription",
    // The same rows under a key that appends: a move lands at the right edge of the table instead
    // of beside its inscription's earlier moves (a random leaf per move at 10M transactions). The
    // old key's order is the by-inscription index, which a catch-up defers (CATCH_UP_DEFERRED_INDEXES);
    // the key's first column replaces inscription_moves_by_height.
    sql: `
CREATE TABLE inscription_moves_v11 (
  inscription_id INTEGER NOT NULL,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  kind TEXT NOT NULL,
  tx_id INTEGER NOT NULL,
  to_tx_id INTEGER,
  to_vout INTEGER,
  to_offset INTEGER,
  owner_id INTEGER,
  PRIMARY KEY (height, position, inscription_id, kind)
) WITHOUT ROWID;
INSERT INTO inscription_moves_v11 (inscription_id, height, position, kind, tx_id, to_tx_id, to_vout, to_offset, owner_id)
  SELECT inscription_id, height, position, kind, tx_id, to_tx_id, to_vout, to_offset, owner_id FROM inscription_moves
  ORDER BY height, position, inscription_id, kind;
DROP TABLE inscription_moves;
ALTER TABLE inscription_moves_v11 RENAME TO inscription_moves;
CREATE INDEX inscription_moves_by_inscription ON inscription_moves (inscription_id, height, position, kind);
`,
  },
  {
    version: 12,
    description:
      "transactions found by their txid's first 8 bytes within buckets of 2^22 transaction ids (txs_by_txid_bucket), so that new entries land in the newest bucket's part of the tree",
    // An index over the rows the table already has: built from them, no rebuild needed.
    sql: `
DROP INDEX txs_by_txid_prefix;
${TXS_BY_TXID_BUCKET};
`,
  },
  {
    version: 13,
    description:
      "the balance counters of an address in a table of their own (address_stats, keyed by the address id), off the address text, script and script hash",
    // Every batch updates the counters of the addresses it touches, at random ids: on rows of their
    // own (about 27 bytes instead of about 70 with the address text and hashes) a batch dirties a
    // quarter of the pages it did (docs/operations.md "Sizing"). The addresses are copied in id
    // order without the counters and their two indexes built again (an index converted in the
    // middle of a catch-up then keeps addresses_by_script_hash, which catch-ups defer, row by row
    // until that catch-up ends: the same answers, a little slower).
    sql: `
CREATE TABLE address_stats (
  id INTEGER PRIMARY KEY,
  ${COUNTERS}
);
INSERT INTO address_stats (id, confirmed, tx_count, funded_txo_count, funded_txo_sum, spent_txo_count, spent_txo_sum)
  SELECT id, confirmed, tx_count, funded_txo_count, funded_txo_sum, spent_txo_count, spent_txo_sum FROM addresses ORDER BY id;
CREATE TABLE addresses_v13 (
  id INTEGER PRIMARY KEY,
  address TEXT NOT NULL,
  script BLOB NOT NULL,
  script_hash BLOB NOT NULL
);
INSERT INTO addresses_v13 (id, address, script, script_hash) SELECT id, address, script, script_hash FROM addresses ORDER BY id;
DROP TABLE addresses;
ALTER TABLE addresses_v13 RENAME TO addresses;
CREATE UNIQUE INDEX addresses_by_address ON addresses (address);
CREATE INDEX addresses_by_script_hash ON addresses (script_hash);
`,
  },
  {
    version: 14,
    description:
      "spends of written outputs logged in chain order (spend_log) during a catch-up and merged into outputs, in key order, when it ends",
    // SPEND_LOG's comment says why. The table is empty outside a catch-up, so an index converted
    // in place only gains it.
    sql: `
${SPEND_LOG};
`,
  },
  {
    version: 15,
    description:
      "balance changes logged in batch order (balance_log) during a catch-up and added into address_stats, in id order, when it ends",
    // BALANCE_LOG's comment says why. Like spend_log, the table is empty outside a catch-up: an
    // index converted in place only gains it.
    sql: `
${BALANCE_LOG};
`,
  },
];

/**
 * The id of the transaction whose txid (a 32-byte BLOB) is the one `?` parameter of this
 * fragment, or NULL when the index does not have it. Since version 12 transactions are found
 * through txs_by_txid_bucket, keyed by (id >> TXID_BUCKET_BITS, the txid's first 8 bytes): the
 * fragment searches each bucket, newest first, and checks the whole txid on the row (two txids
 * that share a prefix are told apart there), stopping at the first match. A bucket holds 2^22
 * (4,194,304) consecutive transaction ids, so a batch's new entries all land in the newest
 * bucket's part of the tree, at most about 19,000 leaves (a full bucket), instead of at random
 * among all of them: with
 * one tree on the prefix (version 10) a 250,000-transaction batch at 10M transactions dirtied
 * 49,518 pages of it, with buckets 12,042 (docs/operations.md "Sizing"). What it costs: a txid
 * the index lacks, or an old one, is looked for in every bucket in turn (3 at 10M transactions,
 * about 96 at 400M). The txid is bound once and read through a one-row subquery; the buckets come
 * from a recursive CTE down from the newest, and CROSS JOIN keeps that order on SQLite
 * (index-readers.test.ts checks the plans; PostgreSQL answers the same in its own plan).
 */
export const TX_ID_OF_TXID =
  `(SELECT k_t.id FROM (SELECT CAST(? AS BLOB) AS txid) k_ ` +
  `CROSS JOIN (WITH RECURSIVE k_b(n) AS (SELECT (SELECT MAX(id) FROM txs) >> ${TXID_BUCKET_BITS} UNION ALL SELECT n - 1 FROM k_b WHERE n > 0) SELECT n FROM k_b) k_b ` +
  `CROSS JOIN txs k_t WHERE (k_t.id >> ${TXID_BUCKET_BITS}) = k_b.n AND substr(k_t.txid, 1, 8) = substr(k_.txid, 1, 8) AND k_t.txid = k_.txid LIMIT 1)`;

/**
 * Secondary indexes that only serve reads and rollbacks. While the indexer is far behind the node
 * it drops them and builds them again once caught up: maintaining them row by row (random keys,
 * entries removed on every spend) cost a third of catch-up speed, while building them in one sorted
 * pass takes seconds. The definitions equal those of the migrations above.
 */
export const CATCH_UP_DEFERRED_INDEXES: readonly { name: string; sql: string }[] = [
  {
    name: "outputs_unspent_by_address",
    sql: "CREATE INDEX IF NOT EXISTS outputs_unspent_by_address ON outputs (address_id, tx_id) WHERE spent_tx_id IS NULL AND address_id IS NOT NULL",
  },
  {
    name: "outputs_by_spent_tx",
    sql: "CREATE INDEX IF NOT EXISTS outputs_by_spent_tx ON outputs (spent_tx_id) WHERE spent_tx_id IS NOT NULL",
  },
  {
    // History is appended in chain order (its key is the transaction id); the by-address index,
    // covering the amounts for balances as of a height, is built once in one sorted pass.
    name: "address_history_by_address",
    sql: "CREATE INDEX IF NOT EXISTS address_history_by_address ON address_history (address_id, tx_id, received, sent)",
  },
  {
    name: "addresses_by_script_hash",
    sql: "CREATE INDEX IF NOT EXISTS addresses_by_script_hash ON addresses (script_hash)",
  },
  {
    // Moves are appended in chain order (their key starts with the height); an inscription's
    // moves, for its history and for an owner as of a height, are found through this index.
    name: "inscription_moves_by_inscription",
    sql: "CREATE INDEX IF NOT EXISTS inscription_moves_by_inscription ON inscription_moves (inscription_id, height, position, kind)",
  },
  // The explorer's inscriptions of an owner; the writer finds inscriptions by outpoint only.
  {
    name: "inscription_locations_by_owner",
    sql: "CREATE INDEX IF NOT EXISTS inscription_locations_by_owner ON inscription_locations (owner_id) WHERE owner_id IS NOT NULL",
  },
  // DRC-20 operations are appended in chain order (height, position, seq); the writer keeps its
  // state in drc20_ticks, drc20_balances and drc20_transfers and never reads them back.
  {
    name: "drc20_operations_by_tick",
    sql: "CREATE INDEX IF NOT EXISTS drc20_operations_by_tick ON drc20_operations (tick_key, height)",
  },
  {
    name: "drc20_operations_by_inscription",
    sql: "CREATE INDEX IF NOT EXISTS drc20_operations_by_inscription ON drc20_operations (inscription_id)",
  },
  {
    name: "drc20_operations_by_address",
    sql: "CREATE INDEX IF NOT EXISTS drc20_operations_by_address ON drc20_operations (address_id, tick_key, height) WHERE address_id IS NOT NULL",
  },
];
