/**
 * SQLite persistence of the devnet node: every block (active or not), the active chain, the UTXO
 * set, per-block undo data, a transaction index and the mempool. One SQLite transaction per block
 * connect or disconnect, so a kill -9 leaves the node at a consistent tip.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";

export const DEVNET_SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS blocks (
  hash TEXT PRIMARY KEY,
  seq INTEGER NOT NULL UNIQUE,
  height INTEGER NOT NULL,
  prev_hash TEXT NOT NULL,
  chainwork TEXT NOT NULL,
  time INTEGER NOT NULL,
  bits INTEGER NOT NULL,
  invalid INTEGER NOT NULL DEFAULT 0,
  size INTEGER NOT NULL,
  raw BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS chain (height INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS utxos (
  txid TEXT NOT NULL,
  vout INTEGER NOT NULL,
  value INTEGER NOT NULL,
  script BLOB NOT NULL,
  height INTEGER NOT NULL,
  coinbase INTEGER NOT NULL,
  PRIMARY KEY (txid, vout)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS utxos_by_script ON utxos (script);
CREATE TABLE IF NOT EXISTS undo (hash TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS txindex (txid TEXT PRIMARY KEY, block_hash TEXT NOT NULL, position INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS mempool (seq INTEGER PRIMARY KEY AUTOINCREMENT, txid TEXT NOT NULL UNIQUE, raw BLOB NOT NULL, time INTEGER NOT NULL);
`;

export interface StoredCoin {
  txid: string;
  vout: number;
  value: bigint;
  script: Uint8Array;
  height: number;
  coinbase: boolean;
}

export interface StoredBlockRow {
  hash: string;
  seq: number;
  height: number;
  prevHash: string;
  chainwork: bigint;
  time: number;
  bits: number;
  invalid: boolean;
  size: number;
}

/** One spent output remembered so that a disconnect can restore it. */
export interface UndoCoin {
  txid: string;
  vout: number;
  value: string;
  script: string;
  height: number;
  coinbase: boolean;
}

export class DevnetStore {
  readonly db: Database.Database;
  private readonly stmts;

  constructor(dataDir: string | ":memory:") {
    if (dataDir === ":memory:") {
      this.db = new Database(":memory:");
    } else {
      fs.mkdirSync(dataDir, { recursive: true });
      this.db = new Database(path.join(dataDir, "devnet.sqlite"));
      this.db.pragma("journal_mode = WAL");
      this.db.pragma("synchronous = NORMAL");
    }
    this.db.exec(SCHEMA);
    const db = this.db;
    this.stmts = {
      getMeta: db.prepare("SELECT value FROM meta WHERE key = ?"),
      setMeta: db.prepare(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      ),
      insertBlock:
        db.prepare(`INSERT INTO blocks (hash, seq, height, prev_hash, chainwork, time, bits, invalid, size, raw)
        VALUES (@hash, @seq, @height, @prevHash, @chainwork, @time, @bits, 0, @size, @raw)`),
      allBlocks: db.prepare(
        "SELECT hash, seq, height, prev_hash, chainwork, time, bits, invalid, size FROM blocks ORDER BY seq",
      ),
      blockRaw: db.prepare("SELECT raw FROM blocks WHERE hash = ?"),
      setInvalid: db.prepare("UPDATE blocks SET invalid = ? WHERE hash = ?"),
      chainAll: db.prepare("SELECT height, hash FROM chain ORDER BY height"),
      chainSet: db.prepare("INSERT INTO chain (height, hash) VALUES (?, ?)"),
      chainDelete: db.prepare("DELETE FROM chain WHERE height = ?"),
      getCoin: db
        .prepare("SELECT txid, vout, value, script, height, coinbase FROM utxos WHERE txid = ? AND vout = ?")
        .safeIntegers(true),
      anyCoinOfTx: db.prepare("SELECT 1 FROM utxos WHERE txid = ? LIMIT 1"),
      insertCoin: db.prepare(
        "INSERT OR REPLACE INTO utxos (txid, vout, value, script, height, coinbase) VALUES (?, ?, ?, ?, ?, ?)",
      ),
      deleteCoin: db.prepare("DELETE FROM utxos WHERE txid = ? AND vout = ?"),
      coinsByScript: db
        .prepare(
          "SELECT txid, vout, value, script, height, coinbase FROM utxos WHERE script = ? ORDER BY height, txid, vout",
        )
        .safeIntegers(true),
      utxoStats: db.prepare("SELECT COUNT(*) AS n, COALESCE(SUM(value), 0) AS total FROM utxos").safeIntegers(true),
      putUndo: db.prepare("INSERT OR REPLACE INTO undo (hash, data) VALUES (?, ?)"),
      getUndo: db.prepare("SELECT data FROM undo WHERE hash = ?"),
      deleteUndo: db.prepare("DELETE FROM undo WHERE hash = ?"),
      putTx: db.prepare("INSERT OR REPLACE INTO txindex (txid, block_hash, position) VALUES (?, ?, ?)"),
      getTx: db.prepare("SELECT block_hash, position FROM txindex WHERE txid = ?"),
      deleteTx: db.prepare("DELETE FROM txindex WHERE txid = ? AND block_hash = ?"),
      mempoolAll: db.prepare("SELECT txid, raw, time FROM mempool ORDER BY seq"),
      mempoolPut: db.prepare("INSERT OR IGNORE INTO mempool (txid, raw, time) VALUES (?, ?, ?)"),
      mempoolDelete: db.prepare("DELETE FROM mempool WHERE txid = ?"),
      mempoolClear: db.prepare("DELETE FROM mempool"),
    };
    const version = this.getMeta("schema_version");
    if (version === null) this.setMeta("schema_version", String(DEVNET_SCHEMA_VERSION));
    else if (Number(version) !== DEVNET_SCHEMA_VERSION) {
      throw new Error(
        `devnet data directory has schema version ${version}, this build expects ${DEVNET_SCHEMA_VERSION}; use a fresh data directory`,
      );
    }
  }

  close(): void {
    this.db.close();
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  getMeta(key: string): string | null {
    const row = this.stmts.getMeta.get(key) as { value: string } | undefined;
    return row ? row.value : null;
  }

  setMeta(key: string, value: string): void {
    this.stmts.setMeta.run(key, value);
  }

  insertBlock(row: Omit<StoredBlockRow, "invalid">, raw: Uint8Array): void {
    this.stmts.insertBlock.run({ ...row, chainwork: row.chainwork.toString(16), raw: Buffer.from(raw) });
  }

  allBlocks(): StoredBlockRow[] {
    return (
      this.stmts.allBlocks.all() as {
        hash: string;
        seq: number;
        height: number;
        prev_hash: string;
        chainwork: string;
        time: number;
        bits: number;
        invalid: number;
        size: number;
      }[]
    ).map((r) => ({
      hash: r.hash,
      seq: r.seq,
      height: r.height,
      prevHash: r.prev_hash,
      chainwork: BigInt("0x" + r.chainwork),
      time: r.time,
      bits: r.bits,
      invalid: r.invalid !== 0,
      size: r.size,
    }));
  }

  blockRaw(hash: string): Uint8Array | null {
    const row = this.stmts.blockRaw.get(hash) as { raw: Buffer } | undefined;
    return row ? new Uint8Array(row.raw) : null;
  }

  setInvalid(hash: string, invalid: boolean): void {
    this.stmts.setInvalid.run(invalid ? 1 : 0, hash);
  }

  activeChain(): string[] {
    return (this.stmts.chainAll.all() as { height: number; hash: string }[]).map((r) => r.hash);
  }

  pushChain(height: number, hash: string): void {
    this.stmts.chainSet.run(height, hash);
  }

  popChain(height: number): void {
    this.stmts.chainDelete.run(height);
  }

  getCoin(txid: string, vout: number): StoredCoin | null {
    const row = this.stmts.getCoin.get(txid, vout) as
      { txid: string; vout: bigint; value: bigint; script: Buffer; height: bigint; coinbase: bigint } | undefined;
    return row ? toCoin(row) : null;
  }

  hasAnyCoinOf(txid: string): boolean {
    return this.stmts.anyCoinOfTx.get(txid) !== undefined;
  }

  addCoin(coin: StoredCoin): void {
    this.stmts.insertCoin.run(
      coin.txid,
      coin.vout,
      coin.value,
      Buffer.from(coin.script),
      coin.height,
      coin.coinbase ? 1 : 0,
    );
  }

  spendCoin(txid: string, vout: number): void {
    this.stmts.deleteCoin.run(txid, vout);
  }

  coinsByScript(script: Uint8Array): StoredCoin[] {
    return (
      this.stmts.coinsByScript.all(Buffer.from(script)) as {
        txid: string;
        vout: bigint;
        value: bigint;
        script: Buffer;
        height: bigint;
        coinbase: bigint;
      }[]
    ).map(toCoin);
  }

  utxoStats(): { count: number; total: bigint } {
    const row = this.stmts.utxoStats.get() as { n: bigint; total: bigint };
    return { count: Number(row.n), total: row.total };
  }

  /** Every unspent output (for gettxoutsetinfo's serialized hash), in no particular order. */
  allCoins(): StoredCoin[] {
    const rows = this.db
      .prepare("SELECT txid, vout, value, script, height, coinbase FROM utxos")
      .safeIntegers(true)
      .all() as { txid: string; vout: bigint; value: bigint; script: Buffer; height: bigint; coinbase: bigint }[];
    return rows.map((row) => ({
      txid: row.txid,
      vout: Number(row.vout),
      value: row.value,
      script: new Uint8Array(row.script),
      height: Number(row.height),
      coinbase: row.coinbase === 1n,
    }));
  }

  /** Bytes of every stored block (active or not) and of the undo data, and the number of blocks. */
  storedBytes(): { blocks: number; blockBytes: number; undoBytes: number } {
    const blocks = this.db.prepare("SELECT COUNT(*) AS n, COALESCE(SUM(size), 0) AS bytes FROM blocks").get() as {
      n: number;
      bytes: number;
    };
    const undo = this.db.prepare("SELECT COALESCE(SUM(LENGTH(data)), 0) AS bytes FROM undo").get() as {
      bytes: number;
    };
    return { blocks: blocks.n, blockBytes: blocks.bytes, undoBytes: undo.bytes };
  }

  /** Size of the database file on disk (0 in memory). */
  fileBytes(): number {
    const file = this.db.name;
    if (!file || file === ":memory:") return 0;
    let total = 0;
    for (const suffix of ["", "-wal"]) {
      try {
        total += fs.statSync(file + suffix).size;
      } catch {
        // no WAL file yet
      }
    }
    return total;
  }

  putUndo(hash: string, coins: UndoCoin[]): void {
    this.stmts.putUndo.run(hash, JSON.stringify(coins));
  }

  takeUndo(hash: string): UndoCoin[] {
    const row = this.stmts.getUndo.get(hash) as { data: string } | undefined;
    if (!row) throw new Error(`undo data for block ${hash} is missing`);
    this.stmts.deleteUndo.run(hash);
    return JSON.parse(row.data) as UndoCoin[];
  }

  indexTx(txid: string, blockHash: string, position: number): void {
    this.stmts.putTx.run(txid, blockHash, position);
  }

  unindexTx(txid: string, blockHash: string): void {
    this.stmts.deleteTx.run(txid, blockHash);
  }

  findTx(txid: string): { blockHash: string; position: number } | null {
    const row = this.stmts.getTx.get(txid) as { block_hash: string; position: number } | undefined;
    return row ? { blockHash: row.block_hash, position: row.position } : null;
  }

  mempoolAll(): { txid: string; raw: Uint8Array; time: number }[] {
    return (this.stmts.mempoolAll.all() as { txid: string; raw: Buffer; time: number }[]).map((r) => ({
      txid: r.txid,
      raw: new Uint8Array(r.raw),
      time: r.time,
    }));
  }

  mempoolPut(txid: string, raw: Uint8Array, time: number): void {
    this.stmts.mempoolPut.run(txid, Buffer.from(raw), time);
  }

  mempoolDelete(txid: string): void {
    this.stmts.mempoolDelete.run(txid);
  }

  mempoolClear(): void {
    this.stmts.mempoolClear.run();
  }
}

function toCoin(row: {
  txid: string;
  vout: bigint;
  value: bigint;
  script: Buffer;
  height: bigint;
  coinbase: bigint;
}): StoredCoin {
  return {
    txid: row.txid,
    vout: Number(row.vout),
    value: row.value,
    script: new Uint8Array(row.script),
    height: Number(row.height),
    coinbase: row.coinbase !== 0n,
  };
}
