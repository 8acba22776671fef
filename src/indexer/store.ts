/**
 * The indexer's repository: the writes of block application and rollback, and the reads the
 * follower needs. Routes read through the query module, never through this one.
 *
 * On SQLite every row is written by its own prepared statement (in-process, microseconds). On
 * PostgreSQL a statement is a round trip, so the rows of a batch (blocks, transactions, outputs,
 * spends, history, OP_RETURN outputs, balances) are buffered and written with one multi-row
 * statement per table (`unnest` of one array per column) when the batch ends or before any other
 * statement runs on the connection (PostgresDatabase.beforeQuery), so every read still sees every
 * earlier write. The outputs a batch spends are fetched in one query before it is applied
 * (prefetchOutputs).
 */
import type { SqlDatabase } from "../db/sql";
import { PostgresDatabase } from "../db/postgres";
import type { ZkpUse } from "../zkp";

export interface StoredOutput {
  txid: string;
  vout: number;
  value: bigint;
  address: string | null;
  height: number;
}

export interface IndexedBlockRow {
  height: number;
  hash: string;
  prevHash: string;
  time: number;
  txCount: number;
  size: number;
}

export class IndexerStore {
  private readonly s;
  private readonly pendingBalances = new Map<string, BalanceChange>();
  /** PostgreSQL only: the batch's rows not yet written. */
  private readonly bulk: BulkRows | null;

  constructor(readonly db: SqlDatabase) {
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
      insertBlock: db.prepare(
        "INSERT INTO blocks (height, hash, prev_hash, time, tx_count, size) VALUES (?, ?, ?, ?, ?, ?)",
      ),
      insertTx: db.prepare(
        "INSERT OR REPLACE INTO txs (txid, height, position, size, fee, coinbase, input_count, output_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      ),
      insertOutput: db.prepare(
        "INSERT OR REPLACE INTO outputs (txid, vout, height, value, script, address) VALUES (?, ?, ?, ?, ?, ?)",
      ),
      getOutput: db
        .prepare("SELECT txid, vout, value, address, height FROM outputs WHERE txid = ? AND vout = ?")
        .safeIntegers(true),
      spendOutput: db.prepare(
        "UPDATE outputs SET spent_txid = ?, spent_vin = ?, spent_height = ? WHERE txid = ? AND vout = ?",
      ),
      insertHistory: db.prepare(
        "INSERT OR REPLACE INTO address_history (address, height, position, txid, received, sent, counterparty) VALUES (?, ?, ?, ?, ?, ?, ?)",
      ),
      addBalance:
        db.prepare(`INSERT INTO balances (address, confirmed, tx_count, funded_txo_count, funded_txo_sum, spent_txo_count, spent_txo_sum)
        VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(address) DO UPDATE SET confirmed = confirmed + excluded.confirmed, tx_count = tx_count + excluded.tx_count,
        funded_txo_count = funded_txo_count + excluded.funded_txo_count, funded_txo_sum = funded_txo_sum + excluded.funded_txo_sum,
        spent_txo_count = spent_txo_count + excluded.spent_txo_count, spent_txo_sum = spent_txo_sum + excluded.spent_txo_sum`),
      insertOpReturn: db.prepare(
        "INSERT OR REPLACE INTO op_returns (txid, vout, height, position, payload, magic, sha256, size) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      ),
      getOutputScript: db.prepare("SELECT script FROM outputs WHERE txid = ? AND vout = ?"),
      insertZkpUse:
        db.prepare(`INSERT OR REPLACE INTO zkp_uses (txid, height, position, role, input_index, output_index, op_index, mode, mode_name,
        proof_hex, vk_hex, vk_sha256, public_inputs, parse_error) VALUES (@txid, @height, @position, @role, @input_index, @output_index, @op_index,
        @mode, @mode_name, @proof_hex, @vk_hex, @vk_sha256, @public_inputs, @parse_error)`),
      deleteZkpAbove: db.prepare("DELETE FROM zkp_uses WHERE height > ?"),
      // rollback
      historyAbove: db
        .prepare("SELECT address, received, sent FROM address_history WHERE height > ?")
        .safeIntegers(true),
      subtractBalance: db.prepare(
        "UPDATE balances SET confirmed = confirmed - ?, tx_count = tx_count - 1 WHERE address = ?",
      ),
      // The outputs created above a height, and those spent above it, per address (before they go).
      fundedAbove: db
        .prepare(
          `SELECT address, COUNT(*) AS n, SUM(value) AS koinu FROM outputs
        WHERE txid IN (SELECT txid FROM txs WHERE height > ?) AND address IS NOT NULL GROUP BY address`,
        )
        .safeIntegers(true),
      spentAbove: db
        .prepare(
          `SELECT address, COUNT(*) AS n, SUM(value) AS koinu FROM outputs
        WHERE spent_txid IN (SELECT txid FROM txs WHERE height > ?) AND address IS NOT NULL GROUP BY address`,
        )
        .safeIntegers(true),
      subtractFunded: db.prepare(
        "UPDATE balances SET funded_txo_count = funded_txo_count - ?, funded_txo_sum = funded_txo_sum - ? WHERE address = ?",
      ),
      subtractSpent: db.prepare(
        "UPDATE balances SET spent_txo_count = spent_txo_count - ?, spent_txo_sum = spent_txo_sum - ? WHERE address = ?",
      ),
      dropEmptyBalances: db.prepare("DELETE FROM balances WHERE tx_count <= 0"),
      deleteHistoryAbove: db.prepare("DELETE FROM address_history WHERE height > ?"),
      // Spends above the fork are found through the spending transactions (outputs_by_spent_txid).
      unspendAbove: db.prepare(
        "UPDATE outputs SET spent_txid = NULL, spent_vin = NULL, spent_height = NULL WHERE spent_txid IN (SELECT txid FROM txs WHERE height > ?)",
      ),
      // Outputs are found through their transactions (no height index on outputs: it slowed every insert).
      deleteOutputsAbove: db.prepare("DELETE FROM outputs WHERE txid IN (SELECT txid FROM txs WHERE height > ?)"),
      deleteTxsAbove: db.prepare("DELETE FROM txs WHERE height > ?"),
      deleteOpReturnsAbove: db.prepare("DELETE FROM op_returns WHERE height > ?"),
      deleteBlocksAbove: db.prepare("DELETE FROM blocks WHERE height > ?"),
    };
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

  insertBlock(block: IndexedBlockRow): void {
    if (this.bulk)
      return void this.bulk.blocks.push([
        block.height,
        block.hash,
        block.prevHash,
        block.time,
        block.txCount,
        block.size,
      ]);
    this.s.insertBlock.run(block.height, block.hash, block.prevHash, block.time, block.txCount, block.size);
  }

  insertTx(
    txid: string,
    height: number,
    position: number,
    size: number,
    fee: bigint | null,
    coinbase: boolean,
    inputCount: number,
    outputCount: number,
  ): void {
    if (this.bulk)
      return void this.bulk.txs.set(txid, [
        txid,
        height,
        position,
        size,
        fee,
        coinbase ? 1 : 0,
        inputCount,
        outputCount,
      ]);
    this.s.insertTx.run(txid, height, position, size, fee, coinbase ? 1 : 0, inputCount, outputCount);
  }

  insertOutput(
    txid: string,
    vout: number,
    height: number,
    value: bigint,
    script: Uint8Array,
    address: string | null,
  ): void {
    if (address !== null) {
      const change = this.balanceChange(address);
      change.fundedCount += 1;
      change.fundedKoinu += value;
    }
    if (this.bulk)
      return void this.bulk.outputs.set(`${txid}:${vout}`, [
        txid,
        vout,
        height,
        value,
        script,
        address,
        null,
        null,
        null,
      ]);
    this.s.insertOutput.run(txid, vout, height, value, script, address);
  }

  getOutput(txid: string, vout: number): StoredOutput | null {
    if (this.bulk) {
      const key = `${txid}:${vout}`;
      const pending = this.bulk.outputs.get(key);
      if (pending)
        return {
          txid,
          vout,
          value: pending[3] as bigint,
          address: pending[5] as string | null,
          height: pending[2] as number,
        };
      const fetched = this.bulk.prefetched.get(key);
      if (fetched !== undefined) return fetched;
    }
    const row = this.s.getOutput.get(txid, vout) as
      { txid: string; vout: bigint; value: bigint; address: string | null; height: bigint } | undefined;
    return row
      ? { txid: row.txid, vout: Number(row.vout), value: row.value, address: row.address, height: Number(row.height) }
      : null;
  }

  /** Marks an output spent; `spent` is what the index knows of it (its value and address). */
  spendOutput(
    txid: string,
    vout: number,
    spentTxid: string,
    spentVin: number,
    height: number,
    spent: { value: bigint; address: string | null },
  ): void {
    if (spent.address !== null) {
      const change = this.balanceChange(spent.address);
      change.spentCount += 1;
      change.spentKoinu += spent.value;
    }
    if (this.bulk) {
      const pending = this.bulk.outputs.get(`${txid}:${vout}`);
      if (pending) {
        pending[6] = spentTxid;
        pending[7] = spentVin;
        pending[8] = height;
      } else {
        this.bulk.spends.push([txid, vout, spentTxid, spentVin, height]);
      }
      return;
    }
    this.s.spendOutput.run(spentTxid, spentVin, height, txid, vout);
  }

  /** Records one transaction's effect on an address; the balance change is buffered until flushBalances(). */
  addHistory(
    address: string,
    height: number,
    position: number,
    txid: string,
    received: bigint,
    sent: bigint,
    counterparty: string | null,
  ): void {
    if (this.bulk)
      this.bulk.history.set(`${address}:${height}:${position}`, [
        address,
        height,
        position,
        txid,
        received,
        sent,
        counterparty,
      ]);
    else this.s.insertHistory.run(address, height, position, txid, received, sent, counterparty);
    const change = this.balanceChange(address);
    change.delta += received - sent;
    change.txs += 1;
  }

  /**
   * Writes every buffered row and balance change; call inside the batch's transaction, after its
   * last block.
   */
  flushWrites(): void {
    if (this.bulk) {
      this.flushRows();
      this.bulk.prefetched.clear();
      return;
    }
    for (const [address, c] of this.pendingBalances)
      this.s.addBalance.run(address, c.delta, c.txs, c.fundedCount, c.fundedKoinu, c.spentCount, c.spentKoinu);
    this.pendingBalances.clear();
  }

  private balanceChange(address: string): BalanceChange {
    let change = this.pendingBalances.get(address);
    if (!change) {
      change = { delta: 0n, txs: 0, fundedCount: 0, fundedKoinu: 0n, spentCount: 0, spentKoinu: 0n };
      this.pendingBalances.set(address, change);
    }
    return change;
  }

  private flushRows(): void {
    this.bulk?.write(this.pendingBalances);
  }

  /** Drops buffered writes (after a failed transaction). */
  discardPending(): void {
    this.pendingBalances.clear();
    this.bulk?.clear();
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
    if (this.bulk)
      return void this.bulk.opReturns.set(`${txid}:${vout}`, [
        txid,
        vout,
        height,
        position,
        payload,
        magic,
        sha256Hex,
        payload.length,
      ]);
    this.s.insertOpReturn.run(txid, vout, height, position, payload, magic, sha256Hex, payload.length);
  }

  getOutputScript(txid: string, vout: number): Uint8Array | null {
    const row = this.s.getOutputScript.get(txid, vout) as { script: Buffer } | undefined;
    return row ? new Uint8Array(row.script) : null;
  }

  insertZkpUse(use: ZkpUse, position: number): void {
    this.s.insertZkpUse.run({
      txid: use.txid,
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
      vk_sha256: use.vk_sha256,
      public_inputs: JSON.stringify(use.public_inputs),
      parse_error: use.parse_error,
    });
  }

  /** Removes everything above `height` (the fork point stays). Runs inside the caller's transaction. */
  rollbackAbove(height: number): void {
    for (const row of this.s.historyAbove.all(height) as { address: string; received: bigint; sent: bigint }[]) {
      this.s.subtractBalance.run(row.received - row.sent, row.address);
    }
    for (const row of this.s.fundedAbove.all(height) as { address: string; n: bigint; koinu: bigint }[])
      this.s.subtractFunded.run(row.n, row.koinu, row.address);
    for (const row of this.s.spentAbove.all(height) as { address: string; n: bigint; koinu: bigint }[])
      this.s.subtractSpent.run(row.n, row.koinu, row.address);
    this.s.dropEmptyBalances.run();
    this.s.deleteHistoryAbove.run(height);
    this.s.unspendAbove.run(height);
    this.s.deleteOutputsAbove.run(height);
    this.s.deleteTxsAbove.run(height);
    this.s.deleteOpReturnsAbove.run(height);
    this.s.deleteZkpAbove.run(height);
    this.s.deleteBlocksAbove.run(height);
  }
}

interface BlockRow {
  height: number;
  hash: string;
  prev_hash: string;
  time: number;
  tx_count: number;
  size: number;
}

function toBlock(row: BlockRow): IndexedBlockRow {
  return {
    height: row.height,
    hash: row.hash,
    prevHash: row.prev_hash,
    time: row.time,
    txCount: row.tx_count,
    size: row.size,
  };
}

type Cells = unknown[];

/**
 * The rows of one batch on PostgreSQL, keyed like their tables' primary keys (a later row for the
 * same key replaces an earlier one, as INSERT OR REPLACE does), and their multi-row writes.
 */
class BulkRows {
  readonly blocks: Cells[] = [];
  readonly txs = new Map<string, Cells>();
  readonly outputs = new Map<string, Cells>();
  readonly spends: Cells[] = [];
  readonly history = new Map<string, Cells>();
  readonly opReturns = new Map<string, Cells>();
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
      answer =
        !/^\s*(SELECT|INSERT|UPDATE|DELETE)\b/i.test(sql) ||
        /\b(blocks|txs|outputs|address_history|balances|op_returns)\b/.test(sql);
      this.needsFlush.set(sql, answer);
    }
    return answer;
  }

  constructor(private readonly db: PostgresDatabase) {
    // One array parameter per column: the statement text is the same whatever the row count.
    const upsert = (table: string, columns: [string, string][], key: string[]) => {
      const names = columns.map(([c]) => c);
      const rest = names.filter((c) => !key.includes(c));
      return db.prepareNative(`INSERT INTO ${table} (${names.join(", ")}) SELECT * FROM unnest(${columns.map(([, t], i) => `$${i + 1}::${t}[]`).join(", ")})
        ON CONFLICT (${key.join(", ")}) DO UPDATE SET ${rest.map((c) => `${c} = EXCLUDED.${c}`).join(", ")}`);
    };
    this.q = {
      blocks: db.prepareNative(`INSERT INTO blocks (height, hash, prev_hash, time, tx_count, size)
        SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::bigint[], $5::int[], $6::int[])`),
      txs: upsert(
        "txs",
        [
          ["txid", "text"],
          ["height", "int"],
          ["position", "int"],
          ["size", "int"],
          ["fee", "bigint"],
          ["coinbase", "int"],
          ["input_count", "int"],
          ["output_count", "int"],
        ],
        ["txid"],
      ),
      outputs: upsert(
        "outputs",
        [
          ["txid", "text"],
          ["vout", "int"],
          ["height", "int"],
          ["value", "bigint"],
          ["script", "bytea"],
          ["address", "text"],
          ["spent_txid", "text"],
          ["spent_vin", "int"],
          ["spent_height", "int"],
        ],
        ["txid", "vout"],
      ),
      history: upsert(
        "address_history",
        [
          ["address", "text"],
          ["height", "int"],
          ["position", "int"],
          ["txid", "text"],
          ["received", "bigint"],
          ["sent", "bigint"],
          ["counterparty", "text"],
        ],
        ["address", "height", "position"],
      ),
      opReturns: upsert(
        "op_returns",
        [
          ["txid", "text"],
          ["vout", "int"],
          ["height", "int"],
          ["position", "int"],
          ["payload", "bytea"],
          ["magic", "text"],
          ["sha256", "text"],
          ["size", "int"],
        ],
        ["txid", "vout"],
      ),
      spends:
        db.prepareNative(`UPDATE outputs o SET spent_txid = s.spent_txid, spent_vin = s.spent_vin, spent_height = s.spent_height
        FROM unnest($1::text[], $2::int[], $3::text[], $4::int[], $5::int[]) AS s(txid, vout, spent_txid, spent_vin, spent_height)
        WHERE o.txid = s.txid AND o.vout = s.vout`),
      balances:
        db.prepareNative(`INSERT INTO balances (address, confirmed, tx_count, funded_txo_count, funded_txo_sum, spent_txo_count, spent_txo_sum)
        SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[])
        ON CONFLICT (address) DO UPDATE SET ${["confirmed", "tx_count", "funded_txo_count", "funded_txo_sum", "spent_txo_count", "spent_txo_sum"].map((c) => `${c} = balances.${c} + EXCLUDED.${c}`).join(", ")}`),
      prefetch: db
        .prepareNative(
          `SELECT o.txid, o.vout, o.value, o.address, o.height FROM outputs o
        JOIN unnest($1::text[], $2::int[]) AS k(txid, vout) ON o.txid = k.txid AND o.vout = k.vout`,
        )
        .safeIntegers(true),
    };
  }

  prefetch(outpoints: readonly { txid: string; vout: number }[]): void {
    for (const { txid, vout } of outpoints) this.prefetched.set(`${txid}:${vout}`, null);
    const rows = this.q.prefetch.all(
      outpoints.map((o) => o.txid),
      outpoints.map((o) => o.vout),
    ) as { txid: string; vout: bigint; value: bigint; address: string | null; height: bigint }[];
    for (const row of rows) {
      this.prefetched.set(`${row.txid}:${row.vout}`, {
        txid: row.txid,
        vout: Number(row.vout),
        value: row.value,
        address: row.address,
        height: Number(row.height),
      });
    }
  }

  /**
   * Writes everything buffered (and empties `balances`), in an order where each write finds what
   * it refers to. Its own statements re-enter through the connection's beforeQuery hook: ignored.
   */
  write(balances: Map<string, BalanceChange>): void {
    if (this.writing) return;
    this.writing = true;
    try {
      const columns = (rows: Iterable<Cells>, width: number) => {
        const out: unknown[][] = Array.from({ length: width }, () => []);
        for (const row of rows) for (let i = 0; i < width; i++) out[i].push(row[i]);
        return out;
      };
      if (this.txs.size > 0) this.q.txs.run(...columns(this.txs.values(), 8));
      if (this.outputs.size > 0) this.q.outputs.run(...columns(this.outputs.values(), 9));
      if (this.spends.length > 0) this.q.spends.run(...columns(this.spends, 5));
      if (this.history.size > 0) this.q.history.run(...columns(this.history.values(), 7));
      if (this.opReturns.size > 0) this.q.opReturns.run(...columns(this.opReturns.values(), 8));
      if (balances.size > 0) {
        const rows: Cells[] = [];
        for (const [address, c] of balances)
          rows.push([address, c.delta, c.txs, c.fundedCount, c.fundedKoinu, c.spentCount, c.spentKoinu]);
        this.q.balances.run(...columns(rows, 7));
        balances.clear();
      }
      if (this.blocks.length > 0) this.q.blocks.run(...columns(this.blocks, 6));
    } finally {
      this.writing = false;
      this.clearRows();
    }
  }

  private clearRows(): void {
    this.blocks.length = 0;
    this.txs.clear();
    this.outputs.clear();
    this.spends.length = 0;
    this.history.clear();
    this.opReturns.clear();
  }

  clear(): void {
    this.blocks.length = 0;
    this.txs.clear();
    this.outputs.clear();
    this.spends.length = 0;
    this.history.clear();
    this.opReturns.clear();
    this.prefetched.clear();
  }
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
