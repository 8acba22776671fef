/**
 * The AMM service's own SQLite schema (`dogeos-amm`; the explorer's index is only read). Amounts are
 * decimal strings of base units (koinu for DOGE, whole DRC-20 units for tokens, which are
 * integers: src/inscription/drc20.ts); times are unix seconds.
 *
 * - pools: each pool's state as src/amm/math.ts `Pool` (reserves, LP supply, fee accumulator).
 * - positions: each provider's `Position` in a pool.
 * - ledger: every change of a pool, in the order it was applied (`seq`); replaying it from empty
 *   pools gives the pools' state.
 * - quotes, swaps: a quote is kept until it expires; a swap is made from one quote and executed
 *   against one deposit.
 * - deposits: every deposit txid consumed, once (primary key), whatever consumed it.
 * - liquidity_ops, fee_claims, auth_nonces: adds and removes, fee claims, and the wallet-signed
 *   authorizations' nonces (each used once).
 * - payouts: every amount owed to an address on chain (swap outputs, refunds, withdrawals, fee
 *   claims), queued in the same transaction as the ledger change that owes it, and followed by the
 *   settlement worker to confirmation.
 *
 * Version 2 (bonding curves, bonding-store.ts):
 * - bonding_curves: each launch's curve as src/amm/bonding.ts `CurveState`, its status
 *   (deploying -> active -> graduated, or failed), the inscriber jobs that deploy and mint its tick
 *   to the custody address, and what seeded its pool at graduation.
 * - bonding_reservations: allocations held ahead of payment (BUY: tokens reserved for an exact DOGE
 *   deposit; SELL: DOGE reserved for an exact token deposit) and how each was closed. Their
 *   deposits are consumed in `deposits` (kind bonding_buy / bonding_sell) and paid through `payouts`.
 * - bonding_api_keys: the operators' launch keys, sha256 only.
 *
 * Version 5 (payout costs, docs/security.md): each payout's `cost_koinu` (the DOGE its order paid
 * toward the operator's network fee and postage for it), and each swap's and reservation's
 * `payout_cost` (the DOGE its deposit carries on top of the trade for a DRC-20 payout).
 *
 * Version 6 (bonding launches that cannot be sniped, issue 26): a curve names its `launcher` (the
 * address that signed the launch and deposits the supply), the supply its deposits bound so far
 * (`supply_deposited`; the deposits themselves are rows of `deposits`, kind bonding_supply, ref_id
 * the curve's id), the `supply_deadline` after which an incomplete launch fails, and the payout
 * that returns the bound supply of a failed launch to its launcher (`refund_payout_id`). Curves of
 * the old launch (status deploying: the custody minting the supply to itself, which a third party
 * could race) are failed with LAUNCH_RETIRED.
 *
 * Version 7 (announcements that expire, issue 26): deposit_announcements, the deposits announced
 * before the index showed them (announcements.ts owns it): one row per order (a swap's or a
 * reservation's id), with the announcing address and client, when it is next checked and when it
 * is cleared unseen. Pending announcements of earlier versions move in (checked at the next pass,
 * cleared an hour after their order's expiry once the index has a block), and expired swaps forget
 * the txid they announced (so that they are pruned like any unpaid swap). Swaps and reservations
 * get a (status, expires_at) index for the passes' expiry and pruning (it replaces swaps_by_status).
 *
 * Version 9: each graduated curve's `graduation_reservation_id` (the reservation whose confirmed
 * BUY graduated it; null for curves graduated before version 9), and indexes that page the curves
 * by status, newest launch first (GET /api/bonding/curves).
 */
import { Migration, Sqlite, openDatabase } from "../../db/sqlite";

export const AMM_SCHEMA = "dogeos-amm";

export const AMM_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "pools, positions, ledger, quotes, swaps, deposits, liquidity operations, fee claims, nonces, payouts",
    sql: `
CREATE TABLE pools (
  tick_key TEXT PRIMARY KEY,
  tick TEXT NOT NULL,
  status TEXT NOT NULL,
  doge_reserve TEXT NOT NULL,
  token_reserve TEXT NOT NULL,
  lp_supply TEXT NOT NULL,
  fee_bps INTEGER NOT NULL,
  acc_fee_per_share TEXT NOT NULL,
  acc_remainder TEXT NOT NULL,
  fees_credited TEXT NOT NULL,
  fees_claimed TEXT NOT NULL,
  fee_dust TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE positions (
  tick_key TEXT NOT NULL,
  address TEXT NOT NULL,
  shares TEXT NOT NULL,
  fee_debt TEXT NOT NULL,
  unclaimed TEXT NOT NULL,
  unclaimed_fraction TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (tick_key, address)
) WITHOUT ROWID;
CREATE INDEX positions_by_address ON positions (address);
CREATE TABLE ledger (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  tick_key TEXT NOT NULL,
  kind TEXT NOT NULL,
  ref_id TEXT NOT NULL,
  address TEXT NOT NULL,
  direction TEXT,
  amount_in TEXT,
  amount_out TEXT,
  fee TEXT,
  doge_delta TEXT NOT NULL,
  token_delta TEXT NOT NULL,
  lp_delta TEXT NOT NULL,
  doge_reserve TEXT NOT NULL,
  token_reserve TEXT NOT NULL,
  lp_supply TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX ledger_by_pool ON ledger (tick_key, seq);
CREATE TABLE quotes (
  id TEXT PRIMARY KEY,
  tick_key TEXT NOT NULL,
  direction TEXT NOT NULL,
  amount_in TEXT NOT NULL,
  amount_out TEXT NOT NULL,
  fee TEXT NOT NULL,
  slippage_bps INTEGER NOT NULL,
  min_amount_out TEXT NOT NULL,
  price_impact_bps INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX quotes_by_expiry ON quotes (expires_at);
CREATE TABLE swaps (
  id TEXT PRIMARY KEY,
  quote_id TEXT NOT NULL,
  tick_key TEXT NOT NULL,
  direction TEXT NOT NULL,
  address TEXT NOT NULL,
  amount_in TEXT NOT NULL,
  quoted_out TEXT NOT NULL,
  min_amount_out TEXT NOT NULL,
  deposit_address TEXT NOT NULL,
  status TEXT NOT NULL,
  deposit_txid TEXT,
  deposit_amount TEXT,
  amount_out TEXT,
  fee TEXT,
  ledger_seq INTEGER,
  payout_id TEXT,
  refund_payout_id TEXT,
  error_code TEXT,
  error_message TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX swaps_by_address ON swaps (address, created_at);
CREATE INDEX swaps_by_status ON swaps (status);
CREATE TABLE deposits (
  txid TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  ref_id TEXT NOT NULL,
  asset TEXT NOT NULL,
  amount TEXT NOT NULL,
  address TEXT NOT NULL,
  used_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE liquidity_ops (
  id TEXT PRIMARY KEY,
  tick_key TEXT NOT NULL,
  address TEXT NOT NULL,
  kind TEXT NOT NULL,
  doge_txid TEXT,
  token_txid TEXT,
  doge_amount TEXT NOT NULL,
  token_amount TEXT NOT NULL,
  shares TEXT NOT NULL,
  fees TEXT NOT NULL,
  ledger_seq INTEGER NOT NULL,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX liquidity_ops_by_address ON liquidity_ops (address, created_at);
CREATE TABLE fee_claims (
  id TEXT PRIMARY KEY,
  address TEXT NOT NULL,
  nonce TEXT NOT NULL,
  amount TEXT NOT NULL,
  pools TEXT NOT NULL,
  payout_id TEXT NOT NULL,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX fee_claims_by_address ON fee_claims (address, created_at);
CREATE TABLE auth_nonces (
  address TEXT NOT NULL,
  nonce TEXT NOT NULL,
  action TEXT NOT NULL,
  used_at INTEGER NOT NULL,
  PRIMARY KEY (address, nonce)
) WITHOUT ROWID;
CREATE TABLE payouts (
  id TEXT PRIMARY KEY,
  asset TEXT NOT NULL,
  tick TEXT,
  address TEXT NOT NULL,
  amount TEXT NOT NULL,
  reason TEXT NOT NULL,
  ref_id TEXT NOT NULL,
  status TEXT NOT NULL,
  inscriber_job_id TEXT,
  inscription_id TEXT,
  txid TEXT,
  confirmed_height INTEGER,
  error TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX payouts_by_status ON payouts (status);
CREATE INDEX payouts_by_ref ON payouts (ref_id);
`,
  },
  {
    version: 2,
    description:
      "bonding curves (launches that graduate into pools), their reservations, and the operators' launch keys",
    sql: `
CREATE TABLE bonding_curves (
  tick_key TEXT PRIMARY KEY,
  tick TEXT NOT NULL,
  id TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL,
  total_supply TEXT NOT NULL,
  sellable_supply TEXT NOT NULL,
  launch_virtual_doge TEXT NOT NULL,
  graduation_threshold TEXT NOT NULL,
  fee_bps INTEGER NOT NULL,
  virtual_doge TEXT NOT NULL,
  virtual_token TEXT NOT NULL,
  real_doge TEXT NOT NULL,
  real_token TEXT NOT NULL,
  fees_collected TEXT NOT NULL,
  deploy_job_id TEXT,
  deploy_inscription_id TEXT,
  mint_job_id TEXT,
  pool_doge TEXT,
  pool_token TEXT,
  pool_seeded_at INTEGER,
  error TEXT,
  api_key_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  activated_at INTEGER,
  graduated_at INTEGER,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX bonding_curves_by_status ON bonding_curves (status);
CREATE TABLE bonding_reservations (
  id TEXT PRIMARY KEY,
  tick_key TEXT NOT NULL,
  side TEXT NOT NULL,
  address TEXT NOT NULL,
  amount_in TEXT NOT NULL,
  reserved_out TEXT NOT NULL,
  fee TEXT NOT NULL,
  status TEXT NOT NULL,
  deposit_txid TEXT,
  deposit_amount TEXT,
  amount_out TEXT,
  payout_id TEXT,
  refund_payout_id TEXT,
  error_code TEXT,
  error_message TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX bonding_reservations_live ON bonding_reservations (tick_key, status, expires_at);
CREATE INDEX bonding_reservations_by_address ON bonding_reservations (address, status, expires_at);
CREATE TABLE bonding_api_keys (
  id TEXT PRIMARY KEY,
  key_sha256 TEXT NOT NULL UNIQUE,
  label TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
) WITHOUT ROWID;
`,
  },
  {
    version: 3,
    description:
      "each curve's tokens held by live reservations, kept as counters valid until the earliest live reservation expires",
    sql: `
ALTER TABLE bonding_curves ADD COLUMN held_buy TEXT NOT NULL DEFAULT '0';
ALTER TABLE bonding_curves ADD COLUMN held_sell TEXT NOT NULL DEFAULT '0';
ALTER TABLE bonding_curves ADD COLUMN held_valid_until INTEGER NOT NULL DEFAULT 0;
`,
  },
  {
    version: 4,
    description: "a bonding reservation's announced payment, confirmed by the bonding pass once it is mined",
    sql: `
ALTER TABLE bonding_reservations ADD COLUMN pending_txid TEXT;
CREATE INDEX bonding_reservations_pending ON bonding_reservations (pending_txid) WHERE pending_txid IS NOT NULL;
`,
  },
  {
    version: 5,
    description:
      "the operator's payout costs charged to the orders (per payout, per swap and reservation), and swaps found by their quote",
    sql: `
ALTER TABLE payouts ADD COLUMN cost_koinu TEXT NOT NULL DEFAULT '0';
ALTER TABLE swaps ADD COLUMN payout_cost TEXT NOT NULL DEFAULT '0';
ALTER TABLE bonding_reservations ADD COLUMN payout_cost TEXT NOT NULL DEFAULT '0';
CREATE INDEX swaps_by_quote ON swaps (quote_id);
`,
  },
  {
    version: 6,
    description:
      "bonding launches by a launcher who deposits the supply: each curve's launcher, bound supply, supply deadline and refund; old deploying curves failed",
    sql: `
ALTER TABLE bonding_curves ADD COLUMN launcher TEXT;
ALTER TABLE bonding_curves ADD COLUMN supply_deposited TEXT NOT NULL DEFAULT '0';
ALTER TABLE bonding_curves ADD COLUMN supply_deadline INTEGER;
ALTER TABLE bonding_curves ADD COLUMN refund_payout_id TEXT;
UPDATE bonding_curves
  SET status = 'failed',
      error = 'LAUNCH_RETIRED: launched before launches took the launcher''s deposited supply (the custody''s own mint could be sniped); launch it again with a launcher',
      updated_at = CAST(strftime('%s', 'now') AS INTEGER)
  WHERE status = 'deploying';
`,
  },
  {
    version: 7,
    description:
      "announced deposits the index does not show yet (announcements.ts): capped per address and client, checked when due, cleared after the grace period",
    sql: `
CREATE TABLE deposit_announcements (
  ref_id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  txid TEXT NOT NULL,
  address TEXT NOT NULL,
  client TEXT,
  announced_at INTEGER NOT NULL,
  announced_height INTEGER NOT NULL,
  clear_at INTEGER NOT NULL,
  next_check_at INTEGER NOT NULL,
  checks INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX deposit_announcements_due ON deposit_announcements (kind, next_check_at);
CREATE INDEX deposit_announcements_by_address ON deposit_announcements (address);
CREATE INDEX deposit_announcements_by_client ON deposit_announcements (client) WHERE client IS NOT NULL;
INSERT INTO deposit_announcements (ref_id, kind, txid, address, client, announced_at, announced_height, clear_at, next_check_at, checks)
  SELECT id, 'swap', deposit_txid, address, NULL, updated_at, -1, MAX(updated_at, expires_at) + 3600, 0, 0
  FROM swaps WHERE status IN ('created', 'deposit_seen') AND deposit_txid IS NOT NULL;
INSERT INTO deposit_announcements (ref_id, kind, txid, address, client, announced_at, announced_height, clear_at, next_check_at, checks)
  SELECT id, 'bonding', pending_txid, address, NULL, updated_at, -1, MAX(updated_at, expires_at) + 3600, 0, 0
  FROM bonding_reservations WHERE status IN ('reserved', 'expired') AND pending_txid IS NOT NULL;
UPDATE swaps SET deposit_txid = NULL WHERE status = 'expired' AND deposit_txid IS NOT NULL;
CREATE INDEX swaps_by_status_expiry ON swaps (status, expires_at);
DROP INDEX swaps_by_status;
CREATE INDEX bonding_reservations_by_status_expiry ON bonding_reservations (status, expires_at);
`,
  },
  {
    version: 8,
    description:
      "the deposits an order consumed, by order (deposits.ts txidsOf): every payout re-reads them before each step (settlement.ts)",
    sql: "CREATE INDEX deposits_by_ref ON deposits (ref_id);",
  },
  {
    version: 9,
    description:
      "the reservation whose confirmed buy graduated each curve (null for curves graduated before), and curves listed by status, newest first",
    sql: `
ALTER TABLE bonding_curves ADD COLUMN graduation_reservation_id TEXT;
CREATE INDEX bonding_curves_by_status_created ON bonding_curves (status, created_at DESC, tick_key DESC);
CREATE INDEX bonding_curves_by_created ON bonding_curves (created_at DESC, tick_key DESC);
`,
  },
];

/** Opens (creating or migrating) the AMM's database; ":memory:" for tests. */
export function openAmmDatabase(file: string): Sqlite {
  return openDatabase(file, AMM_MIGRATIONS, AMM_SCHEMA);
}
