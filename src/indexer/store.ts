/**
 * The indexer's repository over SQLite: the writes of block application and rollback, and the
 * reads the follower needs. Routes read through the query module, never through this one.
 */
import type { SqlDatabase } from "../db/sql";
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
  private readonly pendingBalances = new Map<string, { delta: bigint; txs: number }>();

  constructor(readonly db: SqlDatabase) {
    this.s = {
      getMeta: db.prepare("SELECT value FROM meta WHERE key = ?"),
      setMeta: db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"),
      tip: db.prepare("SELECT height, hash, prev_hash, time, tx_count, size FROM blocks ORDER BY height DESC LIMIT 1"),
      blockAt: db.prepare("SELECT height, hash, prev_hash, time, tx_count, size FROM blocks WHERE height = ?"),
      insertBlock: db.prepare("INSERT INTO blocks (height, hash, prev_hash, time, tx_count, size) VALUES (?, ?, ?, ?, ?, ?)"),
      insertTx: db.prepare("INSERT OR REPLACE INTO txs (txid, height, position, size, fee, coinbase, input_count, output_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
      insertOutput: db.prepare("INSERT OR REPLACE INTO outputs (txid, vout, height, value, script, address) VALUES (?, ?, ?, ?, ?, ?)"),
      getOutput: db.prepare("SELECT txid, vout, value, address, height FROM outputs WHERE txid = ? AND vout = ?").safeIntegers(true),
      spendOutput: db.prepare("UPDATE outputs SET spent_txid = ?, spent_vin = ?, spent_height = ? WHERE txid = ? AND vout = ?"),
      insertHistory: db.prepare("INSERT OR REPLACE INTO address_history (address, height, position, txid, received, sent, counterparty) VALUES (?, ?, ?, ?, ?, ?, ?)"),
      addBalance: db.prepare(`INSERT INTO balances (address, confirmed, tx_count) VALUES (?, ?, ?)
        ON CONFLICT(address) DO UPDATE SET confirmed = confirmed + excluded.confirmed, tx_count = tx_count + excluded.tx_count`),
      insertOpReturn: db.prepare("INSERT OR REPLACE INTO op_returns (txid, vout, height, position, payload, magic, sha256, size) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
      getOutputScript: db.prepare("SELECT script FROM outputs WHERE txid = ? AND vout = ?"),
      insertZkpUse: db.prepare(`INSERT OR REPLACE INTO zkp_uses (txid, height, position, role, input_index, output_index, op_index, mode, mode_name,
        proof_hex, vk_hex, vk_sha256, public_inputs, parse_error) VALUES (@txid, @height, @position, @role, @input_index, @output_index, @op_index,
        @mode, @mode_name, @proof_hex, @vk_hex, @vk_sha256, @public_inputs, @parse_error)`),
      deleteZkpAbove: db.prepare("DELETE FROM zkp_uses WHERE height > ?"),
      // rollback
      historyAbove: db.prepare("SELECT address, received, sent FROM address_history WHERE height > ?").safeIntegers(true),
      subtractBalance: db.prepare("UPDATE balances SET confirmed = confirmed - ?, tx_count = tx_count - 1 WHERE address = ?"),
      dropEmptyBalances: db.prepare("DELETE FROM balances WHERE tx_count <= 0"),
      deleteHistoryAbove: db.prepare("DELETE FROM address_history WHERE height > ?"),
      // Spends above the fork are found through the spending transactions (outputs_by_spent_txid).
      unspendAbove: db.prepare("UPDATE outputs SET spent_txid = NULL, spent_vin = NULL, spent_height = NULL WHERE spent_txid IN (SELECT txid FROM txs WHERE height > ?)"),
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
    this.s.insertBlock.run(block.height, block.hash, block.prevHash, block.time, block.txCount, block.size);
  }

  insertTx(txid: string, height: number, position: number, size: number, fee: bigint | null, coinbase: boolean, inputCount: number, outputCount: number): void {
    this.s.insertTx.run(txid, height, position, size, fee, coinbase ? 1 : 0, inputCount, outputCount);
  }

  insertOutput(txid: string, vout: number, height: number, value: bigint, script: Uint8Array, address: string | null): void {
    this.s.insertOutput.run(txid, vout, height, value, script, address);
  }

  getOutput(txid: string, vout: number): StoredOutput | null {
    const row = this.s.getOutput.get(txid, vout) as { txid: string; vout: bigint; value: bigint; address: string | null; height: bigint } | undefined;
    return row ? { txid: row.txid, vout: Number(row.vout), value: row.value, address: row.address, height: Number(row.height) } : null;
  }

  spendOutput(txid: string, vout: number, spentTxid: string, spentVin: number, height: number): void {
    this.s.spendOutput.run(spentTxid, spentVin, height, txid, vout);
  }

  /** Records one transaction's effect on an address; the balance change is buffered until flushBalances(). */
  addHistory(address: string, height: number, position: number, txid: string, received: bigint, sent: bigint, counterparty: string | null): void {
    this.s.insertHistory.run(address, height, position, txid, received, sent, counterparty);
    const pending = this.pendingBalances.get(address);
    if (pending) {
      pending.delta += received - sent;
      pending.txs += 1;
    } else {
      this.pendingBalances.set(address, { delta: received - sent, txs: 1 });
    }
  }

  /** Writes the buffered balance changes; call inside the same transaction as the history rows. */
  flushBalances(): void {
    for (const [address, { delta, txs }] of this.pendingBalances) this.s.addBalance.run(address, delta, txs);
    this.pendingBalances.clear();
  }

  /** Drops buffered balance changes (after a failed transaction). */
  discardPending(): void {
    this.pendingBalances.clear();
  }

  insertOpReturn(txid: string, vout: number, height: number, position: number, payload: Uint8Array, magic: string, sha256Hex: string): void {
    this.s.insertOpReturn.run(txid, vout, height, position, payload, magic, sha256Hex, payload.length);
  }

  getOutputScript(txid: string, vout: number): Uint8Array | null {
    const row = this.s.getOutputScript.get(txid, vout) as { script: Buffer } | undefined;
    return row ? new Uint8Array(row.script) : null;
  }

  insertZkpUse(use: ZkpUse, position: number): void {
    this.s.insertZkpUse.run({
      txid: use.txid, height: use.block_height, position, role: use.role, input_index: use.input_index, output_index: use.output_index,
      op_index: use.op_index, mode: use.mode, mode_name: use.mode_name, proof_hex: use.proof_hex, vk_hex: use.vk_hex, vk_sha256: use.vk_sha256,
      public_inputs: JSON.stringify(use.public_inputs), parse_error: use.parse_error,
    });
  }

  /** Removes everything above `height` (the fork point stays). Runs inside the caller's transaction. */
  rollbackAbove(height: number): void {
    for (const row of this.s.historyAbove.all(height) as { address: string; received: bigint; sent: bigint }[]) {
      this.s.subtractBalance.run(row.received - row.sent, row.address);
    }
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
  return { height: row.height, hash: row.hash, prevHash: row.prev_hash, time: row.time, txCount: row.tx_count, size: row.size };
}
