/**
 * The index's schema on PostgreSQL: the same tables, columns, keys and indexes as the SQLite
 * migrations in schema.ts, at their latest version, in PostgreSQL's types (BIGINT for koinu and
 * 64-bit counts, BYTEA for scripts and bodies, byte-order "C" collation so text sorts as SQLite's
 * does). test/indexer/schema.test.ts holds the two to the same tables and columns. A future
 * migration is written for both.
 *
 * Differences that keep the semantics: zkp_uses has nullable key columns (an input's use has no
 * output index), so its key is a UNIQUE NULLS NOT DISTINCT constraint rather than a primary key,
 * as SQLite's primary key there treats NULLs; the journal's sequence is an identity column.
 */
import { INDEXER_MIGRATIONS, TXS_BY_TXID_BUCKET } from "./schema";

export const INDEXER_PG_SCHEMA_VERSION = INDEXER_MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);

const T = 'TEXT COLLATE "C"';

/** An address's six balance counters, as address_stats holds them and balance_log their changes. */
const COUNTERS = `confirmed BIGINT NOT NULL,
  tx_count BIGINT NOT NULL,
  funded_txo_count BIGINT NOT NULL,
  funded_txo_sum BIGINT NOT NULL,
  spent_txo_count BIGINT NOT NULL,
  spent_txo_sum BIGINT NOT NULL`;

/** An address's balance counters since version 13 (schema.ts migration 13). */
const ADDRESS_STATS = `CREATE TABLE address_stats (
  id BIGINT PRIMARY KEY,
  ${COUNTERS}
)`;

/** The spend log since version 14 (schema.ts SPEND_LOG). PostgreSQL's catch-up writes a batch's spends in one statement and never logs them: the table stays empty. */
const SPEND_LOG = `CREATE TABLE spend_log (
  spent_tx_id BIGINT NOT NULL,
  spent_vin INTEGER NOT NULL,
  tx_id BIGINT NOT NULL,
  vout INTEGER NOT NULL,
  PRIMARY KEY (spent_tx_id, spent_vin)
)`;

/** The balance log since version 15 (schema.ts BALANCE_LOG). PostgreSQL's catch-up writes a batch's balance changes in one statement and never logs them: the table stays empty. */
const BALANCE_LOG = `CREATE TABLE balance_log (
  address_id BIGINT NOT NULL,
  ${COUNTERS}
)`;

/**
 * The SQLite migrations since the PostgreSQL backend began (version 9) that convert an index in
 * place, in PostgreSQL's SQL, by the version they bring it to. An older PostgreSQL index whose every
 * step is here is upgraded when the indexer opens it; any other is refused (it must be rebuilt).
 */
export const INDEXER_PG_UPGRADES: Readonly<Record<number, string>> = {
  10: `
DROP INDEX txs_by_txid;
CREATE INDEX txs_by_txid_prefix ON txs (substr(txid, 1, 8));
`,
  11: `
ALTER TABLE inscription_moves DROP CONSTRAINT inscription_moves_pkey;
ALTER TABLE inscription_moves ADD PRIMARY KEY (height, position, inscription_id, kind);
DROP INDEX IF EXISTS inscription_moves_by_height;
CREATE INDEX IF NOT EXISTS inscription_moves_by_inscription ON inscription_moves (inscription_id, height, position, kind);
`,
  12: `
DROP INDEX txs_by_txid_prefix;
${TXS_BY_TXID_BUCKET};
`,
  13: `
${ADDRESS_STATS};
INSERT INTO address_stats (id, confirmed, tx_count, funded_txo_count, funded_txo_sum, spent_txo_count, spent_txo_sum)
  SELECT id, confirmed, tx_count, funded_txo_count, funded_txo_sum, spent_txo_count, spent_txo_sum FROM addresses ORDER BY id;
ALTER TABLE addresses DROP COLUMN confirmed, DROP COLUMN tx_count, DROP COLUMN funded_txo_count,
  DROP COLUMN funded_txo_sum, DROP COLUMN spent_txo_count, DROP COLUMN spent_txo_sum;
`,
  14: `
${SPEND_LOG};
`,
  15: `
${BALANCE_LOG};
`,
};

export const INDEXER_PG_DDL = `
CREATE TABLE blocks (
  height INTEGER PRIMARY KEY,
  hash BYTEA NOT NULL UNIQUE,
  prev_hash BYTEA NOT NULL,
  time BIGINT NOT NULL,
  tx_count INTEGER NOT NULL,
  size INTEGER NOT NULL,
  first_tx_id BIGINT NOT NULL,
  first_address_id BIGINT NOT NULL
);
CREATE TABLE txs (
  id BIGINT PRIMARY KEY,
  txid BYTEA NOT NULL,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  size INTEGER NOT NULL,
  fee BIGINT,
  coinbase INTEGER NOT NULL,
  input_count INTEGER NOT NULL,
  output_count INTEGER NOT NULL
);
${TXS_BY_TXID_BUCKET};
CREATE TABLE addresses (
  id BIGINT PRIMARY KEY,
  address ${T} NOT NULL,
  script BYTEA NOT NULL,
  script_hash BYTEA NOT NULL
);
${ADDRESS_STATS};
CREATE UNIQUE INDEX addresses_by_address ON addresses (address);
CREATE INDEX addresses_by_script_hash ON addresses (script_hash);
CREATE TABLE outputs (
  tx_id BIGINT NOT NULL,
  vout INTEGER NOT NULL,
  value BIGINT NOT NULL,
  script BYTEA,
  address_id BIGINT,
  spent_tx_id BIGINT,
  spent_vin INTEGER,
  PRIMARY KEY (tx_id, vout)
);
CREATE INDEX outputs_unspent_by_address ON outputs (address_id, tx_id) WHERE spent_tx_id IS NULL AND address_id IS NOT NULL;
CREATE INDEX outputs_by_spent_tx ON outputs (spent_tx_id) WHERE spent_tx_id IS NOT NULL;
${SPEND_LOG};
${BALANCE_LOG};
CREATE TABLE address_history (
  tx_id BIGINT NOT NULL,
  address_id BIGINT NOT NULL,
  received BIGINT NOT NULL,
  sent BIGINT NOT NULL,
  counterparty_id BIGINT,
  PRIMARY KEY (tx_id, address_id)
);
CREATE INDEX address_history_by_address ON address_history (address_id, tx_id, received, sent);
CREATE TABLE op_returns (
  tx_id BIGINT NOT NULL,
  vout INTEGER NOT NULL,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  payload BYTEA NOT NULL,
  magic ${T} NOT NULL,
  sha256 BYTEA NOT NULL,
  size INTEGER NOT NULL,
  PRIMARY KEY (tx_id, vout)
);
CREATE INDEX op_returns_by_height ON op_returns (height, position);
CREATE INDEX op_returns_by_magic ON op_returns (magic, height);
CREATE INDEX op_returns_by_sha256 ON op_returns (sha256);
CREATE TABLE zkp_uses (
  tx_id BIGINT NOT NULL,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  role ${T} NOT NULL,
  input_index INTEGER,
  output_index INTEGER,
  op_index INTEGER NOT NULL,
  mode INTEGER,
  mode_name ${T},
  proof_hex ${T},
  vk_hex ${T},
  vk_sha256 BYTEA,
  public_inputs ${T} NOT NULL,
  parse_error ${T},
  shadow_valid INTEGER,
  shadow_encoding ${T},
  shadow_error ${T},
  verified_at BIGINT,
  CONSTRAINT zkp_uses_key UNIQUE NULLS NOT DISTINCT (tx_id, role, input_index, output_index, op_index)
);
CREATE INDEX zkp_uses_by_height ON zkp_uses (height, position);
CREATE INDEX zkp_uses_pending ON zkp_uses (height) WHERE mode = 0 AND parse_error IS NULL AND verified_at IS NULL;
CREATE INDEX zkp_uses_by_vk ON zkp_uses (vk_sha256, height, position) WHERE vk_sha256 IS NOT NULL;
CREATE TABLE journal (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, height INTEGER NOT NULL, tbl ${T} NOT NULL, pk ${T} NOT NULL, previous ${T});
CREATE INDEX journal_by_height ON journal (height);
CREATE TABLE inscriptions (
  id BIGINT PRIMARY KEY,
  number BIGINT NOT NULL UNIQUE,
  form ${T} NOT NULL,
  content_type ${T} NOT NULL,
  action ${T},
  body BYTEA NOT NULL,
  body_size INTEGER NOT NULL,
  envelope_hash BYTEA,
  collection_key ${T},
  reveal_tx_id BIGINT NOT NULL,
  reveal_tx_count INTEGER NOT NULL,
  inscriber_id BIGINT,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL
);
CREATE INDEX inscriptions_by_height ON inscriptions (height, position);
CREATE INDEX inscriptions_by_collection ON inscriptions (collection_key) WHERE collection_key IS NOT NULL;
CREATE INDEX inscriptions_by_reveal ON inscriptions (reveal_tx_id);
CREATE TABLE inscription_locations (
  inscription_id BIGINT PRIMARY KEY,
  tx_id BIGINT,
  vout INTEGER,
  "offset" BIGINT,
  owner_id BIGINT,
  height INTEGER NOT NULL
);
CREATE INDEX inscription_locations_by_outpoint ON inscription_locations (tx_id, vout) WHERE tx_id IS NOT NULL;
CREATE INDEX inscription_locations_by_owner ON inscription_locations (owner_id) WHERE owner_id IS NOT NULL;
CREATE TABLE inscription_moves (
  inscription_id BIGINT NOT NULL,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  kind ${T} NOT NULL,
  tx_id BIGINT NOT NULL,
  to_tx_id BIGINT,
  to_vout INTEGER,
  to_offset BIGINT,
  owner_id BIGINT,
  PRIMARY KEY (height, position, inscription_id, kind)
);
CREATE INDEX inscription_moves_by_inscription ON inscription_moves (inscription_id, height, position, kind);
CREATE TABLE inscription_rejections (
  tx_id BIGINT NOT NULL,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  form ${T} NOT NULL,
  reason ${T} NOT NULL,
  PRIMARY KEY (tx_id, form, reason)
);
CREATE INDEX inscription_rejections_by_height ON inscription_rejections (height);
CREATE TABLE doginals_pending (
  outpoint ${T} PRIMARY KEY,
  inscription_id ${T} NOT NULL,
  state ${T} NOT NULL,
  inscriber_address ${T},
  height INTEGER NOT NULL
);
CREATE TABLE drc20_ticks (
  tick_key ${T} PRIMARY KEY,
  tick ${T} NOT NULL,
  max_supply ${T} NOT NULL,
  mint_limit ${T} NOT NULL,
  minted ${T} NOT NULL,
  deployer_id BIGINT NOT NULL,
  inscription_id BIGINT NOT NULL,
  height INTEGER NOT NULL
);
CREATE TABLE drc20_balances (
  address_id BIGINT NOT NULL,
  tick_key ${T} NOT NULL,
  available ${T} NOT NULL,
  transferable ${T} NOT NULL,
  PRIMARY KEY (address_id, tick_key)
);
CREATE INDEX drc20_balances_by_tick ON drc20_balances (tick_key);
CREATE TABLE drc20_transfers (
  inscription_id BIGINT PRIMARY KEY,
  tick_key ${T} NOT NULL,
  amount ${T} NOT NULL,
  owner_id BIGINT NOT NULL,
  sent INTEGER NOT NULL,
  receiver_id BIGINT,
  returned INTEGER NOT NULL,
  height INTEGER NOT NULL,
  sent_height INTEGER
);
CREATE INDEX drc20_transfers_by_owner ON drc20_transfers (owner_id, tick_key);
CREATE TABLE drc20_operations (
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  inscription_id BIGINT NOT NULL,
  event ${T} NOT NULL,
  op ${T},
  tick_key ${T},
  tick ${T},
  amount ${T},
  address_id BIGINT,
  valid INTEGER NOT NULL,
  reason ${T},
  note ${T},
  PRIMARY KEY (height, position, seq)
);
CREATE INDEX drc20_operations_by_tick ON drc20_operations (tick_key, height);
CREATE INDEX drc20_operations_by_inscription ON drc20_operations (inscription_id);
CREATE INDEX drc20_operations_by_address ON drc20_operations (address_id, tick_key, height) WHERE address_id IS NOT NULL;
CREATE TABLE collections (
  slug ${T} PRIMARY KEY,
  name ${T} NOT NULL,
  price_koinu ${T} NOT NULL,
  max_supply ${T} NOT NULL,
  inscriber_id BIGINT NOT NULL,
  deploy_inscription BIGINT NOT NULL,
  height INTEGER NOT NULL,
  minted_count INTEGER NOT NULL
);
CREATE TABLE collection_members (
  slug ${T} NOT NULL,
  token_id ${T} NOT NULL,
  inscription_id BIGINT NOT NULL,
  height INTEGER NOT NULL,
  PRIMARY KEY (slug, token_id)
);
CREATE INDEX collection_members_by_height ON collection_members (height);
CREATE TABLE launchpad_operations (
  inscription_id BIGINT PRIMARY KEY,
  height INTEGER NOT NULL,
  position INTEGER NOT NULL,
  op ${T} NOT NULL,
  slug ${T},
  token_id ${T},
  valid INTEGER NOT NULL,
  reason ${T}
);
CREATE INDEX launchpad_operations_by_height ON launchpad_operations (height);
`;

/** Key columns per table (primary key, or zkp_uses's unique key), read from the DDL above. */
export const INDEXER_PG_CONFLICT_KEYS: Readonly<Record<string, readonly string[]>> = (() => {
  const keys: Record<string, string[]> = { meta: ["key"] };
  for (const match of INDEXER_PG_DDL.matchAll(/CREATE TABLE (\w+) \(([\s\S]*?)\n\);/g)) {
    const [, table, body] = match;
    const composite = /(?:PRIMARY KEY|UNIQUE NULLS NOT DISTINCT) \(([^)]*)\)/.exec(body);
    if (composite) {
      keys[table] = composite[1].split(",").map((c) => c.trim());
      continue;
    }
    const single = /^\s*"?(\w+)"?\s[^,\n]*PRIMARY KEY/m.exec(body);
    if (single) keys[table] = [single[1]];
  }
  return keys;
})();
