/**
 * The indexer's repository: the writes of block application and rollback, and the reads the
 * follower needs. Routes read through the query module, never through this one.
 *
 * Schema version 8 (schema.ts): the store hands out the integer ids itself, transactions in chain
 * order and addresses in order of first appearance, so that every row of a batch can be written
 * without reading an id back. Recent txid -> id and address -> id pairs are cached; a miss reads
 * the unique index. After a rollback or a failed batch the counters are read again from the tables.
 *
 * Both backends buffer a batch's transactions, outputs and history rows in memory and write them
 * when the batch ends (flushWrites), so that an output created and spent inside one batch is
 * written once, already spent, instead of inserted and then updated. On SQLite the buffered rows
 * go out in multi-row INSERTs of up to 64 rows (one statement's overhead for many rows); the
 * outputs the index already holds are marked spent as the batch meets them. On PostgreSQL a
 * statement is a round trip, so every row of a batch (blocks, addresses, spends, OP_RETURN outputs
 * and balance counters too) is buffered and written when the batch ends or before any other
 * statement runs on the connection (PostgresDatabase.beforeQuery): transactions, outputs and
 * history with one binary `COPY` per table (PostgresDatabase.copyRows), the other tables with one
 * multi-row statement each (`unnest` of one array per column); the outputs a batch spends are
 * fetched in one query before it is applied (prefetchOutputs). Either way every read sees every
 * earlier write: the store answers its own reads of buffered rows from memory, and the statements
 * of other modules that read chain tables (trackerDatabase) write the buffer out first.
 */
import type { SqlDatabase, SqlStatement } from "../db/sql";
import { PostgresDatabase, PostgresStatement } from "../db/postgres";
import type { CopyColumn } from "../db/postgres";
import { base58CheckDecode, sha256 } from "../doge";
import type { ZkpUse } from "../zkp";
import { TXID_BUCKET_BITS, TX_ID_OF_TXID } from "./schema";
import { UtxoCache } from "./utxo-cache";

/** An output as the follower needs it to spend it. */
export interface StoredOutput {
  txId: number;
  vout: number;
  value: bigint;
  /** The id of the address it pays (null for none); addressTextOf() gives its text. */
  addressId: number | null;
}

/** An output of the current batch: its row waits in memory, spender included, until flushWrites(). */
interface PendingOutput extends StoredOutput {
  /** The script column (null when it is the address's standard script). */
  script: Buffer | null;
  spentTxId: number | null;
  spentVin: number | null;
  /** Set once its row is in the database: a later spend is then an UPDATE. */
  written: boolean;
}

/** Rows per multi-row INSERT on SQLite (64 rows of 9 columns stay far below its 32,766 parameters). */
const ROWS_PER_INSERT = 64;

export interface IndexedBlockRow {
  height: number;
  hash: string;
  prevHash: string;
  time: number;
  txCount: number;
  size: number;
}

/**
 * The standard script of an address an output pays: the output's own script when it is P2PKH or
 * P2SH, else (bare pay-to-pubkey, reported as the key's P2PKH address) the P2PKH script of the
 * address's hash.
 */
export function standardScriptOf(script: Uint8Array, address: string): Uint8Array {
  if (isStandardScript(script)) return script;
  const hash = base58CheckDecode(address).subarray(1, 21);
  const out = new Uint8Array(25);
  out.set([0x76, 0xa9, 0x14]);
  out.set(hash, 3);
  out.set([0x88, 0xac], 23);
  return out;
}

/** P2PKH or P2SH: the scripts an address stands for exactly. */
function isStandardScript(script: Uint8Array): boolean {
  if (script.length === 25)
    return script[0] === 0x76 && script[1] === 0xa9 && script[2] === 0x14 && script[23] === 0x88 && script[24] === 0xac;
  return script.length === 23 && script[0] === 0xa9 && script[1] === 0x14 && script[22] === 0x87;
}

const buf = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/**
 * A bounded map that forgets its oldest third when full (Map iteration follows insertion order),
 * handing each forgotten entry to `forgotten`. Entries `keep` holds on to are never forgotten: the
 * oldest of them stops the eviction, so the map may outgrow its limit by the entries remembered
 * after it (a batch's, until it is written).
 */
class RecentMap<K, V> extends Map<K, V> {
  constructor(
    private readonly limit: number,
    private readonly keep: (key: K, value: V) => boolean = () => false,
    private readonly forgotten: ((value: V) => void) | null = null,
  ) {
    super();
  }

  /** The size at which eviction is tried again after a kept entry stopped it. */
  private retryAt = 0;

  remember(key: K, value: V): void {
    if (this.size >= this.limit && this.size >= this.retryAt) {
      let drop = Math.ceil(this.limit / 3);
      let dropped = 0;
      for (const [old, oldValue] of this) {
        if (this.keep(old, oldValue)) break;
        this.delete(old);
        this.forgotten?.(oldValue);
        dropped += 1;
        if (--drop === 0) break;
      }
      // Stopped at once by a kept entry: not tried at every call (a batch larger than the limit
      // would start an iteration per entry), but again once a third of the limit more is held.
      this.retryAt = dropped === 0 ? this.size + Math.ceil(this.limit / 3) : 0;
    }
    this.set(key, value);
  }

  clear(): void {
    super.clear();
    this.retryAt = 0;
  }
}

/** The UTXO cache's default size (`dogeos indexer --utxo-cache-mb`; measured in operations.md "Sizing"). */
export const DEFAULT_UTXO_CACHE_MB = 192;

export interface IndexerStoreOptions {
  /** MB of unspent outputs held in memory (SQLite only; 0 for none). Default DEFAULT_UTXO_CACHE_MB. */
  utxoCacheMb?: number;
  /** Transactions whose outputs recentOutputs holds before older ones move to the UTXO cache (tests lower it). */
  recentTxs?: number;
}

export class IndexerStore {
  private readonly s;
  private readonly pendingBalances = new Map<number, BalanceChange>();
  /** PostgreSQL only: the batch's rows not yet written. */
  private readonly bulk: BulkRows | null;
  private nextTxId = 1;
  private nextAddressId = 1;
  /** The first transaction id whose rows are still buffered (nextTxId when none are). */
  private pendingFromTxId = 1;
  /** PostgreSQL only: the first address id whose row is still buffered (nextAddressId when none is). */
  private pendingFromAddressId = 1;
  /** txid -> id of recent transactions (every transaction of the batch being written is kept). */
  private readonly txIds = new RecentMap<string, number>(400_000, (_, id) => id >= this.pendingFromTxId);
  /** address -> id of recent addresses (on PostgreSQL every address whose row is still buffered is kept). */
  private readonly addressIds = new RecentMap<string, number>(
    400_000,
    (_, id) => this.bulk !== null && id >= this.pendingFromAddressId,
  );
  /**
   * The unspent outputs of recent transactions by transaction id, indexed by vout (undefined for a
   * spent or OP_RETURN output): most inputs spend young outputs, found here without a query. Every
   * transaction of the batch being written is kept (their rows are not in the database yet); the
   * unspent outputs of a transaction forgotten here move to the UTXO cache.
   */
  private readonly recentOutputs: RecentMap<number, RecentTx>;
  /**
   * SQLite only: unspent outputs of written transactions, so that spending an old one reads nothing
   * (PostgreSQL reads a batch's spent outputs in one query instead). Emptied by every rollback and
   * failed batch; null when sized 0.
   */
  private utxos: UtxoCache | null;
  /** The UTXO cache's size in MB (0: none). */
  private readonly utxoCacheMb: number;
  /** The output outputOf() last answered from the UTXO cache (spendOutput() removes it there). */
  private lastCached: StoredOutput | null = null;
  /**
   * id -> address text read back by addressTextOf() (rare: a spent output's address is carried by
   * its id, and its text is needed only for a reveal's inscriber or a pay-to-script-hash check).
   */
  private readonly addressTexts = new RecentMap<number, string>(50_000);
  /** SQLite only: the batch's rows not yet written (PostgreSQL buffers in `bulk`). */
  private readonly txRows: unknown[] = [];
  private readonly outputRows: PendingOutput[] = [];
  private readonly historyRows: unknown[] = [];
  /** SQLite only: spends of written outputs (output's tx id, vout, spender's tx id, input), applied in key order. */
  private readonly spendRows: number[] = [];
  /**
   * SQLite only: whether spends of written outputs go to spend_log, and balance changes to
   * balance_log (logSpends()), instead of onto their rows.
   */
  private loggingSpends = false;
  private readonly rowWriters;

  constructor(
    readonly db: SqlDatabase,
    options: IndexerStoreOptions = {},
  ) {
    this.recentOutputs = new RecentMap<number, RecentTx>(
      options.recentTxs ?? 150_000,
      (txId) => txId >= this.pendingFromTxId,
      (tx) => this.cacheUnspent(tx),
    );
    const utxoCacheMb = options.utxoCacheMb ?? DEFAULT_UTXO_CACHE_MB;
    this.utxoCacheMb = db instanceof PostgresDatabase || !(utxoCacheMb > 0) ? 0 : utxoCacheMb;
    this.utxos = this.utxoCacheMb > 0 ? new UtxoCache(this.utxoCacheMb) : null;
    if (db instanceof PostgresDatabase) {
      this.bulk = new BulkRows(db);
      db.beforeQuery((sql) => {
        if (this.bulk!.mustFlushBefore(sql)) this.flushRows();
      });
    } else {
      this.bulk = null;
    }
    this.s = {
      getMeta: db.prepare("SELECT value FROM meta WHERE key = ?"),
      setMeta: db.prepare(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      ),
      tip: db.prepare("SELECT height, hash, prev_hash, time, tx_count, size FROM blocks ORDER BY height DESC LIMIT 1"),
      blockAt: db.prepare("SELECT height, hash, prev_hash, time, tx_count, size FROM blocks WHERE height = ?"),
      maxTxId: db.prepare("SELECT COALESCE(MAX(id), 0) AS n FROM txs"),
      maxAddressId: db.prepare("SELECT COALESCE(MAX(id), 0) AS n FROM addresses"),
      insertBlock: db.prepare(
        "INSERT INTO blocks (height, hash, prev_hash, time, tx_count, size, first_tx_id, first_address_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      ),
      txIdOf: db.prepare(`SELECT id FROM txs WHERE id = ${TX_ID_OF_TXID}`),
      addressIdOf: db.prepare("SELECT id FROM addresses WHERE address = ?"),
      addressById: db.prepare("SELECT address FROM addresses WHERE id = ?"),
      // Newest first: when the cache cannot hold them all, it keeps the ones most likely spent soon.
      unspentOutputs: db
        .prepare(
          `SELECT t.txid, o.vout, o.tx_id, o.address_id, o.value FROM outputs o JOIN txs t ON t.id = o.tx_id
          WHERE o.spent_tx_id IS NULL ORDER BY o.tx_id DESC, o.vout DESC`,
        )
        .safeIntegers(true),
      insertAddress: db.prepare("INSERT INTO addresses (id, address, script, script_hash) VALUES (?, ?, ?, ?)"),
      getOutput: db
        .prepare("SELECT o.value, o.address_id FROM outputs o WHERE o.tx_id = ? AND o.vout = ?")
        .safeIntegers(true),
      getOutputByTxid: db
        .prepare(`SELECT o.tx_id, o.value, o.address_id FROM outputs o WHERE o.tx_id = ${TX_ID_OF_TXID} AND o.vout = ?`)
        .safeIntegers(true),
      spendOutput: db.prepare("UPDATE outputs SET spent_tx_id = ?, spent_vin = ? WHERE tx_id = ? AND vout = ?"),
      spendLogged: db.prepare("SELECT 1 AS one FROM spend_log LIMIT 1"),
      // The logged spends in the outputs' key order (materialised and sorted first), each output's
      // row found by its key: one pass over the pages of outputs.
      mergeSpendLog:
        db.prepare(`WITH s AS MATERIALIZED (SELECT tx_id, vout, spent_tx_id, spent_vin FROM spend_log ORDER BY tx_id, vout)
        UPDATE outputs SET spent_tx_id = s.spent_tx_id, spent_vin = s.spent_vin FROM s WHERE outputs.tx_id = s.tx_id AND outputs.vout = s.vout`),
      clearSpendLog: db.prepare("DELETE FROM spend_log"),
      balanceLogged: db.prepare("SELECT 1 AS one FROM balance_log LIMIT 1"),
      // The logged changes added up per address, in id order (GROUP BY sorts them): one pass over
      // the pages of address_stats. An address's row comes with its first change, as addBalance's.
      mergeBalanceLog: db.prepare(`INSERT INTO address_stats (id, confirmed, tx_count, funded_txo_count, funded_txo_sum,
        spent_txo_count, spent_txo_sum)
        SELECT address_id, SUM(confirmed), SUM(tx_count), SUM(funded_txo_count), SUM(funded_txo_sum), SUM(spent_txo_count),
          SUM(spent_txo_sum) FROM balance_log WHERE true GROUP BY address_id ORDER BY address_id ${ADD_TO_COUNTERS}`),
      clearBalanceLog: db.prepare("DELETE FROM balance_log"),
      // An address's counters row comes with the first batch that pays it (schema version 13).
      addBalance: db.prepare(`INSERT INTO address_stats (id, confirmed, tx_count, funded_txo_count, funded_txo_sum,
        spent_txo_count, spent_txo_sum) VALUES (?, ?, ?, ?, ?, ?, ?) ${ADD_TO_COUNTERS}`),
      insertOpReturn: db.prepare(
        "INSERT OR REPLACE INTO op_returns (tx_id, vout, height, position, payload, magic, sha256, size) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      ),
      insertZkpUse:
        db.prepare(`INSERT OR REPLACE INTO zkp_uses (tx_id, height, position, role, input_index, output_index, op_index, mode, mode_name,
        proof_hex, vk_hex, vk_sha256, public_inputs, parse_error) VALUES (@tx_id, @height, @position, @role, @input_index, @output_index, @op_index,
        @mode, @mode_name, @proof_hex, @vk_hex, @vk_sha256, @public_inputs, @parse_error)`),
      deleteZkpAbove: db.prepare("DELETE FROM zkp_uses WHERE height > ?"),
      // rollback: the first transaction id above a height (the next block's first), else none is above.
      firstIdsAbove: db.prepare(
        "SELECT first_tx_id, first_address_id FROM blocks WHERE height > ? ORDER BY height LIMIT 1",
      ),
      historyAbove: db
        .prepare(
          "SELECT address_id, SUM(received - sent) AS delta, COUNT(*) AS n FROM address_history WHERE tx_id >= ? GROUP BY address_id",
        )
        .safeIntegers(true),
      subtractBalance: db.prepare(
        "UPDATE address_stats SET confirmed = confirmed - ?, tx_count = tx_count - ? WHERE id = ?",
      ),
      // The outputs created at or after a transaction id, and those spent by one, per address (before they go).
      fundedAbove: db
        .prepare(
          "SELECT address_id, COUNT(*) AS n, SUM(value) AS koinu FROM outputs WHERE tx_id >= ? AND address_id IS NOT NULL GROUP BY address_id",
        )
        .safeIntegers(true),
      spentAbove: db
        .prepare(
          "SELECT address_id, COUNT(*) AS n, SUM(value) AS koinu FROM outputs WHERE spent_tx_id >= ? AND address_id IS NOT NULL GROUP BY address_id",
        )
        .safeIntegers(true),
      subtractFunded: db.prepare(
        "UPDATE address_stats SET funded_txo_count = funded_txo_count - ?, funded_txo_sum = funded_txo_sum - ? WHERE id = ?",
      ),
      subtractSpent: db.prepare(
        "UPDATE address_stats SET spent_txo_count = spent_txo_count - ?, spent_txo_sum = spent_txo_sum - ? WHERE id = ?",
      ),
      deleteHistoryAbove: db.prepare("DELETE FROM address_history WHERE tx_id >= ?"),
      // Spends above the fork are found through outputs_by_spent_tx.
      unspendAbove: db.prepare(
        "UPDATE outputs SET spent_tx_id = NULL, spent_vin = NULL WHERE spent_tx_id >= ? AND spent_tx_id IS NOT NULL",
      ),
      deleteOutputsAbove: db.prepare("DELETE FROM outputs WHERE tx_id >= ?"),
      deleteTxsAbove: db.prepare("DELETE FROM txs WHERE id >= ?"),
      deleteAddressesAbove: db.prepare("DELETE FROM addresses WHERE id >= ?"),
      deleteAddressStatsAbove: db.prepare("DELETE FROM address_stats WHERE id >= ?"),
      deleteOpReturnsAbove: db.prepare("DELETE FROM op_returns WHERE height > ?"),
      deleteBlocksAbove: db.prepare("DELETE FROM blocks WHERE height > ?"),
    };
    this.rowWriters = this.bulk
      ? null
      : {
          txs: new MultiRowInsert(
            db,
            "INSERT OR REPLACE INTO txs (id, txid, height, position, size, fee, coinbase, input_count, output_count) VALUES",
            9,
          ),
          outputs: new MultiRowInsert(
            db,
            "INSERT OR REPLACE INTO outputs (tx_id, vout, value, script, address_id, spent_tx_id, spent_vin) VALUES",
            7,
          ),
          history: new MultiRowInsert(
            db,
            "INSERT OR REPLACE INTO address_history (tx_id, address_id, received, sent, counterparty_id) VALUES",
            5,
          ),
          // spendRows' order of columns; the rows come in chain order, the table's key order.
          spendLog: new MultiRowInsert(db, "INSERT INTO spend_log (tx_id, vout, spent_tx_id, spent_vin) VALUES", 4),
          balanceLog: new MultiRowInsert(
            db,
            `INSERT INTO balance_log (address_id, confirmed, tx_count, funded_txo_count, funded_txo_sum, spent_txo_count,
            spent_txo_sum) VALUES`,
            7,
          ),
        };
    // These reads never need the buffered rows: a buffered transaction or address is always in
    // memory (txIds and addressIds keep them), and an output is read only from a written transaction.
    this.bulk?.readWithoutFlush(
      this.s.txIdOf,
      this.s.addressIdOf,
      this.s.getOutput,
      this.s.getOutputByTxid,
      this.s.addressById,
    );
    this.reloadIds();
  }

  /** Reads the id counters from the tables and forgets cached ids (after a rollback or a failed batch). */
  private reloadIds(): void {
    this.nextTxId = Number((this.s.maxTxId.get() as { n: number | bigint }).n) + 1;
    this.nextAddressId = Number((this.s.maxAddressId.get() as { n: number | bigint }).n) + 1;
    this.pendingFromTxId = this.nextTxId;
    this.pendingFromAddressId = this.nextAddressId;
    this.txIds.clear();
    this.addressIds.clear();
    this.addressTexts.clear();
    this.utxos?.clear();
    this.lastCached = null;
    this.recentOutputs.clear();
  }

  /**
   * The handle other modules that share the batch's transaction (the inscription tracker) use: a
   * statement of theirs that names a chain table writes the buffered rows out first, so it sees
   * them. On PostgreSQL the connection's own hook does this already.
   */
  trackerDatabase(): SqlDatabase {
    if (this.bulk) return this.db;
    const view = Object.create(this.db) as SqlDatabase;
    view.prepare = <Row>(sql: string): SqlStatement<Row> => {
      const statement = this.db.prepare<Row>(sql);
      if (!CHAIN_TABLES.test(sql)) return statement;
      const flush = () => this.flushRows();
      return Object.assign(Object.create(statement) as SqlStatement<Row>, {
        get: (...params: unknown[]) => (flush(), statement.get(...params)),
        all: (...params: unknown[]) => (flush(), statement.all(...params)),
        run: (...params: unknown[]) => (flush(), statement.run(...params)),
        iterate: (...params: unknown[]) => (flush(), statement.iterate(...params)),
        safeIntegers(this: SqlStatement<Row>, toggle?: boolean) {
          statement.safeIntegers(toggle);
          return this;
        },
      });
    };
    return view;
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  getMeta(key: string): string | null {
    const row = this.s.getMeta.get(key) as { value: string } | undefined;
    return row ? row.value : null;
  }

  setMeta(key: string, value: string): void {
    this.s.setMeta.run(key, value);
  }

  tip(): IndexedBlockRow | null {
    const row = this.s.tip.get() as BlockRow | undefined;
    return row ? toBlock(row) : null;
  }

  blockAt(height: number): IndexedBlockRow | null {
    const row = this.s.blockAt.get(height) as BlockRow | undefined;
    return row ? toBlock(row) : null;
  }

  /** The ids the next transaction and the next new address get (a block records them before its first). */
  nextIds(): { txId: number; addressId: number } {
    return { txId: this.nextTxId, addressId: this.nextAddressId };
  }

  /** Gives `txid` the next transaction id (its row follows with insertTx). */
  assignTxId(txid: string): number {
    const id = this.nextTxId++;
    this.txIds.remember(txid, id);
    return id;
  }

  /**
   * The id of `txid` when the index has it: this batch's and recent transactions from memory (their
   * rows may still be buffered on PostgreSQL), older ones through txs_by_txid_bucket.
   */
  txIdOf(txid: string): number | null {
    const cached = this.txIds.get(txid);
    if (cached !== undefined) return cached;
    const row = this.s.txIdOf.get(Buffer.from(txid, "hex")) as { id: number | bigint } | undefined;
    if (!row) return null;
    const id = Number(row.id);
    this.txIds.remember(txid, id);
    return id;
  }

  /** The id of a transaction of the batch being written (assignTxId gave it). */
  private currentTxId(txid: string): number {
    const id = this.txIdOf(txid);
    if (id === null) throw new Error(`transaction ${txid} has no id in the index`);
    return id;
  }

  insertBlock(block: IndexedBlockRow, first: { txId: number; addressId: number }): void {
    // Hashes as 32-byte BLOBs in display byte order (as txs.txid), schema version 9.
    const row = [
      block.height,
      Buffer.from(block.hash, "hex"),
      Buffer.from(block.prevHash, "hex"),
      block.time,
      block.txCount,
      block.size,
      first.txId,
      first.addressId,
    ];
    if (this.bulk) return void this.bulk.blocks.push(row);
    this.s.insertBlock.run(...row);
  }

  insertTx(
    txId: number,
    txid: string,
    height: number,
    position: number,
    size: number,
    fee: bigint | null,
    coinbase: boolean,
    inputCount: number,
    outputCount: number,
  ): void {
    const hash = Buffer.from(txid, "hex");
    const flag = coinbase ? 1 : 0;
    if (this.bulk)
      return void this.bulk.txs.push([txId, hash, height, position, size, fee, flag, inputCount, outputCount]);
    this.txRows.push(txId, hash, height, position, size, fee, flag, inputCount, outputCount);
  }

  /** The id of `address` when the index has it (cached), else null. */
  private knownAddressId(address: string): number | null {
    const cached = this.addressIds.get(address);
    if (cached !== undefined) return cached;
    const row = this.s.addressIdOf.get(address) as { id: number | bigint } | undefined;
    if (!row) return null;
    const id = Number(row.id);
    this.addressIds.remember(address, id);
    return id;
  }

  /** The id of an address the index holds (every address of a history row was paid or spent first). */
  addressIdOf(address: string): number {
    const id = this.knownAddressId(address);
    if (id === null) throw new Error(`address ${address} has no row in the index`);
    return id;
  }

  /** The id of the address an output with `script` pays, creating its row when it is new. */
  private addressIdFor(address: string, script: Uint8Array): number {
    const known = this.knownAddressId(address);
    if (known !== null) return known;
    const id = this.nextAddressId++;
    const standard = buf(standardScriptOf(script, address));
    const row = [id, address, standard, Buffer.from(sha256(standard))];
    if (this.bulk) this.bulk.addresses.push(row);
    else this.s.insertAddress.run(...row);
    this.addressIds.remember(address, id);
    return id;
  }

  /**
   * Buffers an output (`outputCount` is its transaction's, for the slot of each vout); returns it as
   * spendOutput() takes it.
   */
  insertOutput(
    txid: string,
    txId: number,
    vout: number,
    outputCount: number,
    value: bigint,
    script: Uint8Array,
    address: string | null,
  ): StoredOutput {
    let addressId: number | null = null;
    let stored: Buffer | null = buf(script);
    if (address !== null) {
      addressId = this.addressIdFor(address, script);
      const change = this.balanceChange(addressId);
      change.fundedCount += 1;
      change.fundedKoinu += value;
      // A P2PKH or P2SH output's script is its address's standard script: stored once, on the address.
      // (A bare pay-to-pubkey output keeps its own.)
      if (isStandardScript(script)) stored = null;
    }
    const output: PendingOutput = {
      txId,
      vout,
      value,
      addressId,
      script: stored,
      spentTxId: null,
      spentVin: null,
      written: false,
    };
    let recent = this.recentOutputs.get(txId);
    if (recent === undefined) {
      recent = { txid, outputs: new Array<PendingOutput | undefined>(outputCount) };
      this.recentOutputs.remember(txId, recent);
    }
    recent.outputs[vout] = output;
    if (this.bulk) this.bulk.outputs.push(output);
    else this.outputRows.push(output);
    return output;
  }

  /** True when outputOf() answers for this outpoint without a query (PostgreSQL's prefetch skips it). */
  hasRecentOutput(txid: string, vout: number): boolean {
    const txId = this.txIds.get(txid);
    return txId !== undefined && this.recentOutputs.get(txId)?.outputs[vout] !== undefined;
  }

  /** The output `vout` of `txid` as the index holds it, or null when the index does not have it. */
  outputOf(txid: string, vout: number): StoredOutput | null {
    const txId = this.txIds.get(txid);
    if (txId !== undefined) {
      const recent = this.recentOutputs.get(txId)?.outputs[vout];
      if (recent !== undefined) return recent;
      // A transaction of the batch being written has every output it has in recentOutputs.
      if (txId >= this.pendingFromTxId) return null;
    }
    const cached = this.utxos?.get(txid, vout);
    if (cached) {
      const { txId: id, value, addressId } = cached;
      this.lastCached = { txId: id, vout, value, addressId };
      return this.lastCached;
    }
    if (this.bulk) {
      const fetched = this.bulk.prefetched.get(`${txid}:${vout}`);
      if (fetched !== undefined) return fetched;
    }
    if (txId !== undefined) {
      const row = this.s.getOutput.get(txId, vout) as { value: bigint; address_id: bigint | null } | undefined;
      return row ? storedOutput(txId, vout, row) : null;
    }
    const row = this.s.getOutputByTxid.get(Buffer.from(txid, "hex"), vout) as
      { tx_id: bigint; value: bigint; address_id: bigint | null } | undefined;
    return row ? storedOutput(Number(row.tx_id), vout, row) : null;
  }

  /**
   * Fills an empty UTXO cache with the index's unspent outputs, newest first, while it has room (a
   * catch-up starting, after a restart too); answers how many it took. Nothing on PostgreSQL or
   * without a cache.
   */
  warmUtxoCache(): number {
    if (this.utxoCacheMb === 0) return 0;
    this.utxos ??= new UtxoCache(this.utxoCacheMb);
    const utxos = this.utxos;
    if (utxos.size > 0) return 0;
    // Outputs whose spends are only logged still read as unspent: their spends are marked first.
    // (The balance log waits for the end of the catch-up: the cache does not read it.)
    this.transaction(() => this.mergeLogs({ balances: false }));
    this.flushRows();
    for (const row of this.s.unspentOutputs.iterate() as Iterable<{
      txid: Buffer;
      vout: bigint;
      tx_id: bigint;
      address_id: bigint | null;
      value: bigint;
    }>) {
      const addressId = row.address_id === null ? null : Number(row.address_id);
      if (!utxos.add(row.txid.toString("hex"), Number(row.vout), Number(row.tx_id), addressId, row.value) && utxos.full)
        break;
    }
    return utxos.size;
  }

  /**
   * Frees the UTXO cache's memory (a catch-up has ended: at the tip the recent window answers most
   * spends, and the read-index builds that follow need the memory); warmUtxoCache() makes it again.
   */
  releaseUtxoCache(): void {
    this.utxos = null;
    this.lastCached = null;
  }

  /** The text of an address the index holds, by its id (a batch's new addresses included). */
  addressTextOf(addressId: number): string {
    const cached = this.addressTexts.get(addressId);
    if (cached !== undefined) return cached;
    // PostgreSQL: a row still buffered (in id order from pendingFromAddressId) is not read back.
    const buffered = this.bulk?.addresses[addressId - this.pendingFromAddressId];
    if (buffered !== undefined && buffered[0] === addressId) return buffered[1] as string;
    const row = this.s.addressById.get(addressId) as { address: string } | undefined;
    if (!row) throw new Error(`address id ${addressId} has no row in the index`);
    this.addressTexts.remember(addressId, row.address);
    return row.address;
  }

  /** Marks output `spent` (of transaction `txid`) spent by input `spentVin` of transaction `spentTxId`. */
  spendOutput(txid: string, spent: StoredOutput, spentTxId: number, spentVin: number): void {
    if (spent === this.lastCached) {
      this.utxos!.delete(txid, spent.vout);
      this.lastCached = null;
    }
    if (spent.addressId !== null) {
      const change = this.balanceChange(spent.addressId);
      change.spentCount += 1;
      change.spentKoinu += spent.value;
    }
    const pending = spent as Partial<PendingOutput>;
    if (pending.written === false) {
      // Its row is still buffered: written once, already spent.
      pending.spentTxId = spentTxId;
      pending.spentVin = spentVin;
      return;
    }
    // A spent output is not looked for again: memory holds unspent ones (a second spend reads the row).
    const recent = this.recentOutputs.get(spent.txId);
    if (recent !== undefined) recent.outputs[spent.vout] = undefined;
    if (this.bulk) return void this.bulk.spends.push([spent.txId, spent.vout, spentTxId, spentVin]);
    this.spendRows.push(spent.txId, spent.vout, spentTxId, spentVin);
  }

  /** Records one transaction's effect on an address; the balance change is buffered until flushWrites(). */
  addHistory(addressId: number, txId: number, received: bigint, sent: bigint, counterpartyId: number | null): void {
    if (this.bulk) this.bulk.history.set(`${txId}:${addressId}`, [txId, addressId, received, sent, counterpartyId]);
    else this.historyRows.push(txId, addressId, received, sent, counterpartyId);
    const change = this.balanceChange(addressId);
    change.delta += received - sent;
    change.txs += 1;
  }

  /**
   * Writes every buffered row and balance change; call inside the batch's transaction, after its
   * last block.
   */
  flushWrites(): void {
    this.flushRows();
    if (this.bulk) {
      this.bulk.prefetched.clear();
      return;
    }
    if (this.loggingSpends) {
      // Appended to balance_log (schema.ts BALANCE_LOG), added into address_stats by mergeLogs().
      const cells: unknown[] = [];
      for (const [id, c] of this.pendingBalances)
        cells.push(id, c.delta, c.txs, c.fundedCount, c.fundedKoinu, c.spentCount, c.spentKoinu);
      this.rowWriters!.balanceLog.write(cells);
      this.pendingBalances.clear();
      return;
    }
    // In id order: the address rows are visited leaf after leaf instead of at random.
    const ids = [...this.pendingBalances.keys()].sort((a, b) => a - b);
    for (const id of ids) {
      const c = this.pendingBalances.get(id)!;
      this.s.addBalance.run(id, c.delta, c.txs, c.fundedCount, c.fundedKoinu, c.spentCount, c.spentKoinu);
    }
    this.pendingBalances.clear();
  }

  private balanceChange(addressId: number): BalanceChange {
    let change = this.pendingBalances.get(addressId);
    if (!change) {
      change = { delta: 0n, txs: 0, fundedCount: 0, fundedKoinu: 0n, spentCount: 0, spentKoinu: 0n };
      this.pendingBalances.set(addressId, change);
    }
    return change;
  }

  /** Writes the buffered rows (balance changes too on PostgreSQL); later spends of those outputs are UPDATEs. */
  private flushRows(): void {
    if (this.bulk) {
      // Its own statements re-enter through the connection's hook while it writes: nothing to do then.
      if (this.bulk.busy) return;
      this.forgetSpent(this.bulk.outputs);
      this.bulk.write(this.pendingBalances);
      this.pendingFromTxId = this.nextTxId;
      this.pendingFromAddressId = this.nextAddressId;
      return;
    }
    if (
      this.txRows.length === 0 &&
      this.outputRows.length === 0 &&
      this.historyRows.length === 0 &&
      this.spendRows.length === 0
    )
      return;
    this.forgetSpent(this.outputRows);
    const writers = this.rowWriters!;
    writers.txs.write(this.txRows);
    const outputs = this.outputRows;
    const cells: unknown[] = [];
    for (let i = 0; i < outputs.length; i++) {
      const o = outputs[i];
      cells.push(o.txId, o.vout, o.value, o.script, o.addressId, o.spentTxId, o.spentVin);
      o.written = true;
    }
    writers.outputs.write(cells);
    writers.history.write(this.historyRows);
    this.applySpends();
    this.txRows.length = 0;
    this.outputRows.length = 0;
    this.historyRows.length = 0;
    this.pendingFromTxId = this.nextTxId;
  }

  /**
   * Marks the buffered spends of written outputs in (tx id, vout) order: each page of `outputs` is
   * visited once, in key order, instead of once per spend at random.
   */
  private applySpends(): void {
    const rows = this.spendRows;
    const n = rows.length / 4;
    if (n === 0) return;
    if (this.loggingSpends) {
      this.rowWriters!.spendLog.write(rows);
      rows.length = 0;
      return;
    }
    const order = Array.from({ length: n }, (_, i) => i * 4);
    order.sort((a, b) => rows[a] - rows[b] || rows[a + 1] - rows[b + 1]);
    for (const at of order) this.s.spendOutput.run(rows[at + 2], rows[at + 3], rows[at], rows[at + 1]);
    rows.length = 0;
  }

  /**
   * From now on (`on`) the spends of written outputs are appended to spend_log instead of marked on
   * their rows (schema.ts SPEND_LOG), and each batch's balance changes to balance_log instead of
   * added into address_stats (BALANCE_LOG); or (off) written onto the rows again. SQLite only:
   * PostgreSQL writes a batch's spends and balances in one statement each. Turning it off does not
   * merge what is logged: mergeLogs() does.
   */
  logSpends(on: boolean): void {
    if (this.bulk) return;
    this.flushRows();
    this.loggingSpends = on;
  }

  /**
   * Writes the buffered rows, then marks the logged spends on their outputs, in key order, adds the
   * logged balance changes into address_stats, in id order (unless `balances` is false), and empties
   * the logs it merged; answers how many spends and addresses it wrote (0 each, reading one row of
   * each log, when they are empty; always 0 on PostgreSQL, which logs nothing). Runs inside the
   * caller's transaction, or in its own.
   */
  mergeLogs({ balances = true }: { balances?: boolean } = {}): { spends: number; addresses: number } {
    this.flushRows();
    const merged = { spends: 0, addresses: 0 };
    if (this.bulk) return merged;
    if (this.s.spendLogged.get() !== undefined) {
      merged.spends = Number(this.s.mergeSpendLog.run().changes);
      this.s.clearSpendLog.run();
    }
    if (balances && this.s.balanceLogged.get() !== undefined) {
      merged.addresses = Number(this.s.mergeBalanceLog.run().changes);
      this.s.clearBalanceLog.run();
    }
    return merged;
  }

  /** The unspent outputs of a (written) transaction recentOutputs forgets go to the UTXO cache, while it has room. */
  private cacheUnspent(tx: RecentTx): void {
    const utxos = this.utxos;
    if (utxos === null) return;
    for (const o of tx.outputs)
      if (o !== undefined && !utxos.add(tx.txid, o.vout, o.txId, o.addressId, o.value) && utxos.full) return;
  }

  /** Outputs about to be written already spent leave recentOutputs (as spendOutput() does for written ones). */
  private forgetSpent(outputs: readonly PendingOutput[]): void {
    for (let i = 0; i < outputs.length; i++) {
      const o = outputs[i];
      if (o.spentTxId === null) continue;
      const recent = this.recentOutputs.get(o.txId);
      if (recent !== undefined) recent.outputs[o.vout] = undefined;
    }
  }

  /** Drops buffered writes and cached ids (after a failed transaction). */
  discardPending(): void {
    this.pendingBalances.clear();
    this.bulk?.clear();
    this.txRows.length = 0;
    this.outputRows.length = 0;
    this.historyRows.length = 0;
    this.spendRows.length = 0;
    this.reloadIds();
  }

  /** True when prefetchOutputs() saves round trips (PostgreSQL). */
  get prefetches(): boolean {
    return this.bulk !== null;
  }

  /**
   * Reads the given outputs in one query, so that applying a batch needs no read per input. An
   * outpoint the index does not have (created before the start height) is remembered as absent.
   */
  prefetchOutputs(outpoints: readonly { txid: string; vout: number }[]): void {
    if (!this.bulk || outpoints.length === 0) return;
    this.bulk.prefetch(outpoints);
  }

  insertOpReturn(
    txid: string,
    vout: number,
    height: number,
    position: number,
    payload: Uint8Array,
    magic: string,
    sha256Hex: string,
  ): void {
    const row = [
      this.currentTxId(txid),
      vout,
      height,
      position,
      payload,
      magic,
      Buffer.from(sha256Hex, "hex"),
      payload.length,
    ];
    if (this.bulk) return void this.bulk.opReturns.set(`${txid}:${vout}`, row);
    this.s.insertOpReturn.run(...row);
  }

  insertZkpUse(use: ZkpUse, position: number): void {
    this.s.insertZkpUse.run({
      tx_id: this.currentTxId(use.txid),
      height: use.block_height,
      position,
      role: use.role,
      input_index: use.input_index,
      output_index: use.output_index,
      op_index: use.op_index,
      mode: use.mode,
      mode_name: use.mode_name,
      proof_hex: use.proof_hex,
      vk_hex: use.vk_hex,
      vk_sha256: use.vk_sha256 === null ? null : Buffer.from(use.vk_sha256, "hex"),
      public_inputs: JSON.stringify(use.public_inputs),
      parse_error: use.parse_error,
    });
  }

  /** Removes everything above `height` (the fork point stays). Runs inside the caller's transaction. */
  rollbackAbove(height: number): void {
    // The spends and balance changes above the fork are undone on the rows of outputs and
    // address_stats: the logged ones go there first.
    this.mergeLogs();
    const above = this.s.firstIdsAbove.get(height) as
      { first_tx_id: number | bigint; first_address_id: number | bigint } | undefined;
    const first = above ? Number(above.first_tx_id) : this.nextTxId;
    const firstAddress = above ? Number(above.first_address_id) : this.nextAddressId;
    for (const row of this.s.historyAbove.all(first) as { address_id: bigint; delta: bigint; n: bigint }[])
      this.s.subtractBalance.run(row.delta, row.n, row.address_id);
    for (const row of this.s.fundedAbove.all(first) as { address_id: bigint; n: bigint; koinu: bigint }[])
      this.s.subtractFunded.run(row.n, row.koinu, row.address_id);
    for (const row of this.s.spentAbove.all(first) as { address_id: bigint; n: bigint; koinu: bigint }[])
      this.s.subtractSpent.run(row.n, row.koinu, row.address_id);
    this.s.deleteHistoryAbove.run(first);
    this.s.unspendAbove.run(first);
    this.s.deleteOutputsAbove.run(first);
    this.s.deleteTxsAbove.run(first);
    // Addresses first paid above the fork are referred to by nothing below it.
    this.s.deleteAddressesAbove.run(firstAddress);
    this.s.deleteAddressStatsAbove.run(firstAddress);
    this.s.deleteOpReturnsAbove.run(height);
    this.s.deleteZkpAbove.run(height);
    this.s.deleteBlocksAbove.run(height);
    this.reloadIds();
  }
}

function storedOutput(txId: number, vout: number, row: { value: bigint; address_id: bigint | null }): StoredOutput {
  return {
    txId,
    vout,
    value: BigInt(row.value),
    addressId: row.address_id === null ? null : Number(row.address_id),
  };
}

interface BlockRow {
  height: number;
  hash: Buffer;
  prev_hash: Buffer;
  time: number;
  tx_count: number;
  size: number;
}

function toBlock(row: BlockRow): IndexedBlockRow {
  return {
    height: Number(row.height),
    hash: Buffer.from(row.hash).toString("hex"),
    prevHash: Buffer.from(row.prev_hash).toString("hex"),
    time: Number(row.time),
    txCount: Number(row.tx_count),
    size: Number(row.size),
  };
}

type Cells = unknown[];

/**
 * The upsert clause that adds a row's six counters (its `excluded` values) to the address's row in
 * address_stats, or inserts it: every write of the counters goes through it.
 */
const ADD_TO_COUNTERS = `ON CONFLICT (id) DO UPDATE SET confirmed = address_stats.confirmed + excluded.confirmed,
  tx_count = address_stats.tx_count + excluded.tx_count,
  funded_txo_count = address_stats.funded_txo_count + excluded.funded_txo_count,
  funded_txo_sum = address_stats.funded_txo_sum + excluded.funded_txo_sum,
  spent_txo_count = address_stats.spent_txo_count + excluded.spent_txo_count,
  spent_txo_sum = address_stats.spent_txo_sum + excluded.spent_txo_sum`;

/** The chain tables whose rows the store buffers: a statement naming one must see the buffer written. */
const CHAIN_TABLES = /\b(blocks|txs|addresses|outputs|address_history|op_returns|spend_log)\b/;

/**
 * SQLite's multi-row INSERT of one table: rows go out ROWS_PER_INSERT at a time through one
 * prepared statement, the rest through a statement prepared for that many rows (cached).
 */
class MultiRowInsert {
  private readonly statements = new Map<number, SqlStatement>();

  constructor(
    private readonly db: SqlDatabase,
    private readonly head: string,
    private readonly width: number,
  ) {}

  private statement(rows: number): SqlStatement {
    let statement = this.statements.get(rows);
    if (!statement) {
      const row = `(${new Array(this.width).fill("?").join(", ")})`;
      statement = this.db.prepare(`${this.head} ${new Array(rows).fill(row).join(", ")}`);
      this.statements.set(rows, statement);
    }
    return statement;
  }

  /** Writes `cells` (row after row, `width` values each) in row order. */
  write(cells: readonly unknown[]): void {
    const rows = cells.length / this.width;
    const full = this.statement(ROWS_PER_INSERT);
    const step = ROWS_PER_INSERT * this.width;
    let at = 0;
    for (; at + step <= cells.length; at += step) full.run(cells.slice(at, at + step));
    if (at < cells.length) this.statement(rows % ROWS_PER_INSERT).run(cells.slice(at));
  }
}

/** The columns BulkRows copies into `txs`, `outputs` and `address_history`, as the tables have them. */
const TX_COLUMNS: readonly CopyColumn[] = [
  ["id", "bigint"],
  ["txid", "bytea"],
  ["height", "int"],
  ["position", "int"],
  ["size", "int"],
  ["fee", "bigint"],
  ["coinbase", "int"],
  ["input_count", "int"],
  ["output_count", "int"],
];
const OUTPUT_COLUMNS: readonly CopyColumn[] = [
  ["tx_id", "bigint"],
  ["vout", "int"],
  ["value", "bigint"],
  ["script", "bytea"],
  ["address_id", "bigint"],
  ["spent_tx_id", "bigint"],
  ["spent_vin", "int"],
];
const HISTORY_COLUMNS: readonly CopyColumn[] = [
  ["tx_id", "bigint"],
  ["address_id", "bigint"],
  ["received", "bigint"],
  ["sent", "bigint"],
  ["counterparty_id", "bigint"],
];

/**
 * The rows of one batch on PostgreSQL, keyed like their tables' primary keys (a later row for the
 * same key replaces an earlier one, as INSERT OR REPLACE does), and their multi-row writes.
 *
 * Transactions, outputs and history rows are copied (binary COPY, PostgresDatabase.copyRows:
 * 150,000 output rows took 2.3-2.7 us a row against 9.4-12.7 for the `unnest` upsert, whose arrays
 * go as text, side by side on one connection; text-format COPY 2.9-3.2), and COPY only ever
 * inserts. They are always new rows: the store hands out transaction ids above the largest in
 * `txs` (read again after a rollback, which deletes every row from the fork's first transaction id
 * up, and after a failed batch), each id to one transaction; a transaction's outputs are met once
 * each, and its history rows once per address. Should a key exist all the same, the table's
 * primary key refuses the copy and the batch writes nothing, rather than replacing a row.
 */
class BulkRows {
  readonly blocks: Cells[] = [];
  readonly txs: Cells[] = [];
  readonly addresses: Cells[] = [];
  /** The batch's outputs in (tx id, vout) order, spender included when the batch spent them. */
  readonly outputs: PendingOutput[] = [];
  readonly spends: Cells[] = [];
  readonly history = new Map<string, Cells>();
  readonly opReturns = new Map<string, Cells>();
  /** Outputs read by prefetch() (keyed "txid:vout"), null when the index does not have them. */
  readonly prefetched = new Map<string, StoredOutput | null>();
  private writing = false;
  private readonly q;
  private readonly needsFlush = new Map<string, boolean>();

  /**
   * Whether `sql` may see the buffered rows: any statement naming a buffered table, and anything
   * that is not plain DML or SELECT (COMMIT, DDL...). The inscription tracker's reads and writes
   * of its own tables leave the buffer alone.
   */
  mustFlushBefore(sql: string): boolean {
    let answer = this.needsFlush.get(sql);
    if (answer === undefined) {
      answer = !/^\s*(SELECT|INSERT|UPDATE|DELETE)\b/i.test(sql) || CHAIN_TABLES.test(sql);
      this.needsFlush.set(sql, answer);
    }
    return answer;
  }

  /** Marks reads whose answers never depend on the buffered rows: they run without a flush first. */
  readWithoutFlush(...statements: SqlStatement[]): void {
    for (const statement of statements)
      if (statement instanceof PostgresStatement) this.needsFlush.set(statement.text, false);
  }

  constructor(private readonly db: PostgresDatabase) {
    // One array parameter per column: the statement text is the same whatever the row count.
    const insert = (table: string, columns: [string, string][], conflict: string) =>
      db.prepareNative(
        `INSERT INTO ${table} (${columns.map(([c]) => c).join(", ")}) SELECT * FROM unnest(${columns.map(([, t], i) => `$${i + 1}::${t}[]`).join(", ")}) ${conflict}`,
      );
    const upsert = (table: string, columns: [string, string][], key: string[]) => {
      const rest = columns.map(([c]) => c).filter((c) => !key.includes(c));
      return insert(
        table,
        columns,
        `ON CONFLICT (${key.join(", ")}) DO UPDATE SET ${rest.map((c) => `${c} = EXCLUDED.${c}`).join(", ")}`,
      );
    };
    this.q = {
      blocks: insert(
        "blocks",
        [
          ["height", "int"],
          ["hash", "bytea"],
          ["prev_hash", "bytea"],
          ["time", "bigint"],
          ["tx_count", "int"],
          ["size", "int"],
          ["first_tx_id", "bigint"],
          ["first_address_id", "bigint"],
        ],
        "",
      ),
      addresses: insert(
        "addresses",
        [
          ["id", "bigint"],
          ["address", "text"],
          ["script", "bytea"],
          ["script_hash", "bytea"],
        ],
        "",
      ),
      opReturns: upsert(
        "op_returns",
        [
          ["tx_id", "bigint"],
          ["vout", "int"],
          ["height", "int"],
          ["position", "int"],
          ["payload", "bytea"],
          ["magic", "text"],
          ["sha256", "bytea"],
          ["size", "int"],
        ],
        ["tx_id", "vout"],
      ),
      spends: db.prepareNative(`UPDATE outputs o SET spent_tx_id = s.spent_tx_id, spent_vin = s.spent_vin
        FROM unnest($1::bigint[], $2::int[], $3::bigint[], $4::int[]) AS s(tx_id, vout, spent_tx_id, spent_vin)
        WHERE o.tx_id = s.tx_id AND o.vout = s.vout`),
      balances: db.prepareNative(`INSERT INTO address_stats (id, confirmed, tx_count, funded_txo_count, funded_txo_sum,
        spent_txo_count, spent_txo_sum)
        SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[])
        ${ADD_TO_COUNTERS}`),
      prefetch: db
        .prepareNative(
          // Each outpoint's transaction through txs_by_txid_bucket, one search a bucket of ids (TX_ID_OF_TXID).
          `SELECT t.txid, t.id AS tx_id, o.vout, o.value, o.address_id FROM unnest($1::bytea[], $2::int[]) AS k(txid, vout)
          CROSS JOIN generate_series(0, (SELECT MAX(id) FROM txs) >> ${TXID_BUCKET_BITS}) AS b(n)
          JOIN txs t ON (t.id >> ${TXID_BUCKET_BITS}) = b.n AND substr(t.txid, 1, 8) = substr(k.txid, 1, 8) AND t.txid = k.txid
          JOIN outputs o ON o.tx_id = t.id AND o.vout = k.vout`,
        )
        .safeIntegers(true),
    };
  }

  prefetch(outpoints: readonly { txid: string; vout: number }[]): void {
    for (const { txid, vout } of outpoints) this.prefetched.set(`${txid}:${vout}`, null);
    const rows = this.q.prefetch.all(
      outpoints.map((o) => Buffer.from(o.txid, "hex")),
      outpoints.map((o) => o.vout),
    ) as {
      txid: Buffer;
      tx_id: bigint;
      vout: bigint;
      value: bigint;
      address_id: bigint | null;
    }[];
    for (const row of rows) {
      const vout = Number(row.vout);
      this.prefetched.set(`${row.txid.toString("hex")}:${vout}`, storedOutput(Number(row.tx_id), vout, row));
    }
  }

  /** True while write() runs (its own statements re-enter through the connection's hook). */
  get busy(): boolean {
    return this.writing;
  }

  /**
   * Writes everything buffered (and empties `balances`), in an order where each write finds what
   * it refers to. Its own statements re-enter through the connection's beforeQuery hook: ignored.
   */
  write(balances: Map<number, BalanceChange>): void {
    if (this.writing) return;
    this.writing = true;
    try {
      const columns = (rows: Iterable<Cells>, width: number) => {
        const out: unknown[][] = Array.from({ length: width }, () => []);
        for (const row of rows) for (let i = 0; i < width; i++) out[i].push(row[i]);
        return out;
      };
      if (this.addresses.length > 0) this.q.addresses.run(...columns(this.addresses, 4));
      if (this.txs.length > 0) this.db.copyRows("txs", TX_COLUMNS, this.txs);
      if (this.outputs.length > 0) {
        const rows: Cells[] = [];
        for (const o of this.outputs) {
          rows.push([o.txId, o.vout, o.value, o.script, o.addressId, o.spentTxId, o.spentVin]);
          o.written = true;
        }
        this.db.copyRows("outputs", OUTPUT_COLUMNS, rows);
      }
      if (this.spends.length > 0) this.q.spends.run(...columns(this.spends, 4));
      if (this.history.size > 0) this.db.copyRows("address_history", HISTORY_COLUMNS, this.history.values());
      if (this.opReturns.size > 0) this.q.opReturns.run(...columns(this.opReturns.values(), 8));
      if (balances.size > 0) {
        const rows: Cells[] = [];
        for (const [id, c] of balances)
          rows.push([id, c.delta, c.txs, c.fundedCount, c.fundedKoinu, c.spentCount, c.spentKoinu]);
        this.q.balances.run(...columns(rows, 7));
        balances.clear();
      }
      if (this.blocks.length > 0) this.q.blocks.run(...columns(this.blocks, 8));
    } finally {
      this.writing = false;
      this.clearRows();
    }
  }

  private clearRows(): void {
    this.blocks.length = 0;
    this.txs.length = 0;
    this.addresses.length = 0;
    this.outputs.length = 0;
    this.spends.length = 0;
    this.history.clear();
    this.opReturns.clear();
  }

  clear(): void {
    this.clearRows();
    this.prefetched.clear();
  }
}

/** A recent transaction's outputs in memory (recentOutputs). */
interface RecentTx {
  txid: string;
  outputs: (PendingOutput | undefined)[];
}

/** What a batch changes in one address's balance row. */
interface BalanceChange {
  delta: bigint;
  txs: number;
  fundedCount: number;
  fundedKoinu: bigint;
  spentCount: number;
  spentKoinu: bigint;
}
