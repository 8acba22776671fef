/** DOGE held by an address: its balance and transaction count, its unspent outputs, its output totals. */
import type { SqlDatabase } from "../../db/sql";
import type { Drc20Reads } from "./drc20";
import type { InscriptionReads } from "./inscriptions";
import { hexOf, keyInt, prepareAll } from "./rows";

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

export class BalanceReads {
  private readonly s;

  constructor(
    db: SqlDatabase,
    private readonly inscriptions: InscriptionReads,
    private readonly drc20: Drc20Reads,
  ) {
    this.s = prepareAll(db, {
      balance: "SELECT confirmed, tx_count FROM balances WHERE address = ?",
      // outputs_unspent_by_address (address, height) from the cursor's height on (`o.height >= ?`
      // bounds the range), then the primary key's (txid, vout) order.
      utxos: `SELECT o.txid, o.vout, o.value, o.height, o.script, (SELECT coinbase FROM txs WHERE txid = o.txid) AS coinbase FROM outputs o
        WHERE o.address = ? AND o.spent_txid IS NULL AND o.height >= ? AND (o.height > ? OR (o.height = ? AND (o.txid > ? OR (o.txid = ? AND o.vout > ?))))
        ORDER BY o.height, o.txid, o.vout LIMIT ?`,
      // The indexer's counters (one row per address).
      txoStats:
        "SELECT funded_txo_count, funded_txo_sum, spent_txo_count, spent_txo_sum FROM balances WHERE address = ?",
      busiest: "SELECT address, tx_count FROM balances ORDER BY tx_count DESC, address LIMIT ?",
    });
    for (const key of ["balance", "utxos", "txoStats"] as const) this.s[key].safeIntegers(true);
  }

  balance(address: string): { confirmedKoinu: bigint; txCount: number } {
    const row = this.s.balance.get(address) as { confirmed: bigint; tx_count: bigint } | undefined;
    return row
      ? { confirmedKoinu: BigInt(row.confirmed), txCount: Number(row.tx_count) }
      : { confirmedKoinu: 0n, txCount: 0 };
  }

  /**
   * A page of `address`'s unspent outputs, oldest first, after the key `after`. No total: counting
   * an address's unspent outputs reads all of them (the caller pages until a short page).
   */
  utxos(
    address: string,
    after: { height: number; txid: string; vout: number } | null,
    pageSize: number,
  ): { items: UtxoView[] } {
    const height = keyInt(after?.height ?? -1);
    const txid = after?.txid ?? "";
    const vout = keyInt(after?.vout ?? -1);
    const rows = this.s.utxos.all(address, height, height, height, txid, txid, vout, pageSize) as {
      txid: string;
      vout: bigint;
      value: bigint;
      height: bigint;
      script: Buffer;
      coinbase: bigint | null;
    }[];
    return {
      items: rows.map((r) => {
        const vout = Number(r.vout);
        const inscriptions = this.inscriptions.on(r.txid, vout);
        const drc20 = inscriptions.map((i) => this.drc20.unsentTransfer(i.id)).filter((d) => d !== null);
        return {
          txid: r.txid,
          vout,
          valueKoinu: BigInt(r.value),
          height: Number(r.height),
          scriptHex: hexOf(r.script),
          coinbase: r.coinbase !== null && BigInt(r.coinbase) === 1n,
          inscriptions,
          drc20: drc20.map((d) => ({ tick: d!.tick, amount: d!.amount })),
        };
      }),
    };
  }

  /**
   * Outputs ever paid to `address` (funded) and those of them spent since, counted and summed in
   * koinu (Esplora's chain_stats): the indexer's counters on the address's balance row, one read
   * whatever the address's history.
   */
  txoStats(address: string): { fundedCount: number; fundedKoinu: bigint; spentCount: number; spentKoinu: bigint } {
    const row = this.s.txoStats.get(address) as
      { funded_txo_count: bigint; funded_txo_sum: bigint; spent_txo_count: bigint; spent_txo_sum: bigint } | undefined;
    if (!row) return { fundedCount: 0, fundedKoinu: 0n, spentCount: 0, spentKoinu: 0n };
    return {
      fundedCount: Number(row.funded_txo_count),
      fundedKoinu: BigInt(row.funded_txo_sum),
      spentCount: Number(row.spent_txo_count),
      spentKoinu: BigInt(row.spent_txo_sum),
    };
  }

  /** The addresses with the most transactions. Reads every balance row: for benches and operators' tools, never a request. */
  busiestAddresses(limit: number): { address: string; txCount: number }[] {
    return (this.s.busiest.all(limit) as { address: string; tx_count: number }[]).map((r) => ({
      address: r.address,
      txCount: Number(r.tx_count),
    }));
  }
}
