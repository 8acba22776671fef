/** DOGE held by an address: its balance and transaction count, its unspent outputs, its output totals. */
import type { SqlDatabase } from "../../db/sql";
import { unsentTransfer } from "./drc20";
import { inscriptionsOn } from "./inscriptions";
import { KEY_MAX, PlanRunner, ReadPlan, hexOf, keyInt, prepareAll, rowsOf, txIdBefore } from "./rows";
import { refuseWhileCatchUpLogged } from "./status";

export interface UtxoView {
  txid: string;
  vout: number;
  valueKoinu: bigint;
  height: number;
  scriptHex: string;
  coinbase: boolean;
  inscriptions: { id: string; offset: number; contentType: string }[];
  drc20: { tick: string; amount: string }[];
}

const SQL = {
  balance: "SELECT s.confirmed, s.tx_count FROM addresses a JOIN address_stats s ON s.id = a.id WHERE a.address = ?",
  addressId: "SELECT id FROM addresses WHERE address = ?",
  // outputs_unspent_by_address (address_id, tx_id) in chain order from a transaction id on;
  // the page's order (height, then txid, then vout) is restored per height by utxoPage().
  utxos: `SELECT o.tx_id, o.vout, o.value, COALESCE(o.script, a.script) AS script, t.txid, t.height, t.coinbase
    FROM outputs o JOIN txs t ON t.id = o.tx_id JOIN addresses a ON a.id = o.address_id
    WHERE o.address_id = ? AND o.spent_tx_id IS NULL AND o.tx_id >= ? AND (o.tx_id > ? OR (o.tx_id = ? AND o.vout > ?))
    ORDER BY o.tx_id, o.vout LIMIT ?`,
  // The indexer's counters (one address_stats row per address, schema version 13).
  txoStats: `SELECT s.funded_txo_count, s.funded_txo_sum, s.spent_txo_count, s.spent_txo_sum, s.tx_count
    FROM addresses a JOIN address_stats s ON s.id = a.id WHERE a.address = ?`,
  byScriptHash:
    "SELECT a.address FROM addresses a JOIN address_stats s ON s.id = a.id WHERE a.script_hash = ? AND s.tx_count > 0",
};

/** `address`'s confirmed balance and transaction count (a read plan, ./rows.ts). */
export function* balanceOf(address: string): ReadPlan<{ confirmedKoinu: bigint; txCount: number }> {
  yield* refuseWhileCatchUpLogged({ address });
  const [row] = yield* rowsOf<{ confirmed: bigint; tx_count: bigint }>(SQL.balance, [address], {
    safe: true,
    one: true,
  });
  return row
    ? { confirmedKoinu: BigInt(row.confirmed), txCount: Number(row.tx_count) }
    : { confirmedKoinu: 0n, txCount: 0 };
}

/** Outputs paid to an address and spent since, counted and summed (Esplora's chain_stats). */
export interface TxoStats {
  fundedCount: number;
  fundedKoinu: bigint;
  spentCount: number;
  spentKoinu: bigint;
}

/**
 * `address`'s output counters and its transaction count, from its row in `address_stats` (a read plan,
 * ./rows.ts): one read whatever the address's history. Zeros for an address the index never saw.
 */
export function* txoStatsOf(address: string): ReadPlan<TxoStats & { txCount: number }> {
  yield* refuseWhileCatchUpLogged({ address });
  const [row] = yield* rowsOf<{
    funded_txo_count: bigint;
    funded_txo_sum: bigint;
    spent_txo_count: bigint;
    spent_txo_sum: bigint;
    tx_count: bigint;
  }>(SQL.txoStats, [address], { safe: true, one: true });
  if (!row) return { fundedCount: 0, fundedKoinu: 0n, spentCount: 0, spentKoinu: 0n, txCount: 0 };
  return {
    fundedCount: Number(row.funded_txo_count),
    fundedKoinu: BigInt(row.funded_txo_sum),
    spentCount: Number(row.spent_txo_count),
    spentKoinu: BigInt(row.spent_txo_sum),
    txCount: Number(row.tx_count),
  };
}

/**
 * The address whose standard output script has SHA-256 `scriptHashHex` (64 hex digits, the hash
 * in its own byte order, as Esplora's /scripthash/:hash routes take it), or null when the index
 * holds no transaction of such an address (a read plan, ./rows.ts).
 */
export function* addressForScriptHashOf(scriptHashHex: string): ReadPlan<string | null> {
  if (!/^[0-9a-fA-F]{64}$/.test(scriptHashHex)) return null;
  // An address counts once address_stats has its row, which a logged catch-up writes when it ends.
  yield* refuseWhileCatchUpLogged({ scripthash: scriptHashHex });
  const [row] = yield* rowsOf<{ address: string }>(SQL.byScriptHash, [Buffer.from(scriptHashHex, "hex")], {
    one: true,
  });
  return row ? row.address : null;
}

/**
 * A page of `address`'s unspent outputs, oldest first, after the key `after` (a read plan,
 * ./rows.ts). No total: counting an address's unspent outputs reads all of them (the caller pages
 * until a short page). `carriers: false` leaves every output's inscriptions and DRC-20 amounts
 * empty without reading them (one more read per output), for callers that do not answer them.
 */
export function* utxoPage(
  address: string,
  after: { height: number; txid: string; vout: number } | null,
  pageSize: number,
  options: { carriers?: boolean } = {},
): ReadPlan<{ items: UtxoView[] }> {
  const carriers = options.carriers ?? true;
  const height = keyInt(after?.height ?? -1);
  const txid = after?.txid ?? "";
  const vout = keyInt(after?.vout ?? -1);
  const [idRow] = yield* rowsOf<{ id: number | bigint }>(SQL.addressId, [address], { one: true });
  if (!idRow || pageSize <= 0) return { items: [] };
  yield* refuseWhileCatchUpLogged({ address });
  const addressId = Number(idRow.id);
  // Rows come in chain order (height, position, vout); a page orders each height's rows by txid.
  // Read on in chunks until the page's rows are known and the last height they reach is whole.
  const isAfter = (r: UtxoRow) =>
    r.height > height || (r.height === height && (r.txid > txid || (r.txid === txid && r.vout > vout)));
  const rows: UtxoRow[] = [];
  const chunk = Math.max(pageSize + 1, 64);
  let key = { txId: (yield* txIdBefore(height, 0)) - 1, vout: KEY_MAX };
  for (;;) {
    const got = yield* rowsOf<RawUtxoRow>(SQL.utxos, [addressId, key.txId, key.txId, key.txId, key.vout, chunk], {
      safe: true,
    });
    for (const r of got) {
      const row: UtxoRow = {
        txid: hexOf(r.txid),
        vout: Number(r.vout),
        value: BigInt(r.value),
        height: Number(r.height),
        script: r.script,
        coinbase: BigInt(r.coinbase) === 1n,
      };
      if (isAfter(row)) rows.push(row);
    }
    if (got.length < chunk) break;
    const last = got[got.length - 1];
    key = { txId: Number(last.tx_id), vout: Number(last.vout) };
    // Rows below the last height read are complete: enough of them ends the reading.
    const lastHeight = Number(last.height);
    let complete = 0;
    for (const r of rows) if (r.height < lastHeight) complete++;
    if (complete >= pageSize) break;
  }
  rows.sort((a, b) => a.height - b.height || (a.txid < b.txid ? -1 : a.txid > b.txid ? 1 : a.vout - b.vout));
  const items: UtxoView[] = [];
  for (const r of rows.slice(0, pageSize)) {
    const inscriptions = carriers ? yield* inscriptionsOn(r.txid, r.vout) : [];
    const drc20: { tick: string; amount: string }[] = [];
    for (const i of inscriptions) {
      const transfer = yield* unsentTransfer(i.id);
      if (transfer !== null) drc20.push({ tick: transfer.tick, amount: transfer.amount });
    }
    items.push({
      txid: r.txid,
      vout: r.vout,
      valueKoinu: r.value,
      height: r.height,
      scriptHex: hexOf(r.script),
      coinbase: r.coinbase,
      inscriptions,
      drc20,
    });
  }
  return { items };
}

export class BalanceReads {
  private readonly s;
  private readonly plans: PlanRunner;

  constructor(db: SqlDatabase) {
    this.plans = new PlanRunner(db);
    this.s = {
      ...this.plans.prepare(SQL),
      ...prepareAll(db, {
        busiest: `SELECT a.address, s.tx_count FROM address_stats s JOIN addresses a ON a.id = s.id WHERE s.tx_count > 0
          ORDER BY s.tx_count DESC, a.address LIMIT ?`,
      }),
    };
  }

  balance(address: string): { confirmedKoinu: bigint; txCount: number } {
    return this.plans.run(balanceOf(address));
  }

  /** A page of `address`'s unspent outputs, oldest first, after the key `after` (see utxoPage). */
  utxos(
    address: string,
    after: { height: number; txid: string; vout: number } | null,
    pageSize: number,
  ): { items: UtxoView[] } {
    return this.plans.run(utxoPage(address, after, pageSize));
  }

  /**
   * Outputs ever paid to `address` (funded) and those of them spent since, counted and summed in
   * koinu (Esplora's chain_stats): the indexer's counters on the address's balance row, one read
   * whatever the address's history.
   */
  txoStats(address: string): TxoStats {
    const { fundedCount, fundedKoinu, spentCount, spentKoinu } = this.plans.run(txoStatsOf(address));
    return { fundedCount, fundedKoinu, spentCount, spentKoinu };
  }

  /** The address whose standard output script has SHA-256 `scriptHashHex` (see addressForScriptHashOf). */
  addressForScriptHash(scriptHashHex: string): string | null {
    return this.plans.run(addressForScriptHashOf(scriptHashHex));
  }

  /** The addresses with the most transactions. Reads every balance row: for benches and operators' tools, never a request. */
  busiestAddresses(limit: number): { address: string; txCount: number }[] {
    this.plans.run(refuseWhileCatchUpLogged({}));
    return (this.s.busiest.all(limit) as { address: string; tx_count: number }[]).map((r) => ({
      address: r.address,
      txCount: Number(r.tx_count),
    }));
  }
}

interface RawUtxoRow {
  tx_id: bigint;
  vout: bigint;
  value: bigint;
  script: Buffer;
  txid: Buffer;
  height: bigint;
  coinbase: bigint;
}

interface UtxoRow {
  txid: string;
  vout: number;
  value: bigint;
  height: number;
  script: Buffer;
  coinbase: boolean;
}
