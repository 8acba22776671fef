import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { RebuildRequiredError, SchemaMismatchError, openDatabase } from "../../src/db/sqlite";
import {
  INDEX_PAGE_SIZE,
  INDEXER_SCHEMA_VERSION,
  IndexUnreadableError,
  indexPageSize,
  openIndexReader,
  openIndexerDatabase,
} from "../../src/indexer/database";
import {
  CATCH_UP_DEFERRED_INDEXES,
  INDEXER_MIGRATIONS,
  INDEXER_SCHEMA,
  TXID_BUCKET_BITS,
  TX_ID_OF_TXID,
} from "../../src/indexer/schema";
import { openPostgres } from "../../src/db/postgres";
import { createTestDatabase } from "../helpers/postgres";

/** The schema version an index's meta records, as text. */
function schemaVersionOf(db: { prepare(sql: string): { get(): unknown } }): string {
  return (db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string }).value;
}

/**
 * Drops every index a catch-up defers and builds it again from CATCH_UP_DEFERRED_INDEXES: the
 * definitions (`name: sql` lines, from `definitions`) must come back as the schema created them.
 */
function expectDeferredIndexesRebuiltAlike(db: { exec(sql: string): void }, definitions: () => string[]): void {
  const created = definitions();
  for (const index of CATCH_UP_DEFERRED_INDEXES) {
    expect(
      created.some((d) => d.startsWith(`${index.name}: `)),
      index.name,
    ).to.equal(true);
    db.exec(`DROP INDEX ${index.name}`);
  }
  for (const index of CATCH_UP_DEFERRED_INDEXES) db.exec(index.sql);
  expect(definitions()).to.deep.equal(created);
}

/**
 * Transactions in three buckets of TXID_BUCKET_BITS ids: two in the first bucket and one in the
 * second share their txid's first 8 bytes, one sits on the first bucket's last id.
 */
function bucketedTxs(): [number, Buffer][] {
  const bucket = 2 ** TXID_BUCKET_BITS;
  return [
    [1, Buffer.from("cd".repeat(32), "hex")],
    [2, Buffer.from(`${"cd".repeat(8)}${"ef".repeat(24)}`, "hex")],
    [bucket - 1, Buffer.from("99".repeat(32), "hex")],
    [bucket + 5, Buffer.from(`${"cd".repeat(8)}${"01".repeat(24)}`, "hex")],
    [2 * bucket + 7, Buffer.from("ab".repeat(32), "hex")],
  ];
}

/** Address rows before version 13: id, address, then the six counters (2^60 koinu among them). */
const COUNTER_ROWS: (number | bigint | string)[][] = [
  [1, "DAlice", 700n, 3, 4, 1000n, 1, 300n],
  [2, "DBob", 2n ** 60n, 1, 1, 2n ** 60n, 0, 0n],
  [5, "DCarol", 0n, 2, 1, 50n, 1, 50n],
];

const SCRIPT = Buffer.from("00", "hex");
const SCRIPT_HASH = Buffer.from("01", "hex");

/** The counters of COUNTER_ROWS are address_stats rows now, and `addresses` keeps the rest only. */
function expectCountersMoved(db: { prepare(sql: string): { all(...params: unknown[]): unknown[] } }): void {
  const stats = db
    .prepare(
      "SELECT id, confirmed, tx_count, funded_txo_count, funded_txo_sum, spent_txo_count, spent_txo_sum FROM address_stats ORDER BY id",
    )
    .all()
    .map((row) => Object.values(row as object).map((v) => BigInt(v as number | string)));
  expect(stats).to.deep.equal(COUNTER_ROWS.map(([id, , ...counters]) => [id, ...counters].map((v) => BigInt(v))));
  const addresses = db
    .prepare("SELECT * FROM addresses ORDER BY id")
    .all()
    .map((row) => Object.keys(row as object).join(","));
  expect(addresses).to.deep.equal(COUNTER_ROWS.map(() => "id,address,script,script_hash"));
}

/** A transaction row of `txs` with its id and txid bound, the rest fixed. */
const INSERT_TX =
  "INSERT INTO txs (id, txid, height, position, size, fee, coinbase, input_count, output_count) VALUES (?, ?, 1, 0, 100, NULL, 0, 1, 1)";

/** A reader's refusal of an index of `version`, which this build's indexer converts. */
function convertsInPlace(version: number): RegExp {
  return new RegExp(`which converts version ${version} in place`);
}

/** TX_ID_OF_TXID finds each of `rows` whatever its bucket, and nothing for txids the index lacks. */
function expectBucketedLookups(
  db: { prepare(sql: string): { get(...params: unknown[]): unknown } },
  rows: [number, Buffer][],
): void {
  const idOf = db.prepare(`SELECT id FROM txs WHERE id = ${TX_ID_OF_TXID}`);
  for (const [id, txid] of rows)
    expect(Number((idOf.get(txid) as { id: number | string }).id), txid.toString("hex")).to.equal(id);
  expect(idOf.get(Buffer.from(`${"cd".repeat(8)}${"00".repeat(24)}`, "hex"))).to.equal(undefined);
  expect(idOf.get(Buffer.from("00".repeat(32), "hex"))).to.equal(undefined);
}

describe("indexer database", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "indexer-schema-"));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("refuses to open a database written under another schema version", () => {
    const file = path.join(dir, "index.sqlite");
    openIndexerDatabase(file).close();
    const db = openIndexerDatabase(file);
    db.prepare("UPDATE meta SET value = '999' WHERE key = 'schema_version'").run();
    db.close();
    expect(() => openIndexerDatabase(file)).to.throw(SchemaMismatchError, /schema version 999/);
  });

  it("asks for a rebuild when an older index lacks tables derived from history, and resets when allowed", () => {
    const file = path.join(dir, "old.sqlite");
    openDatabase(
      file,
      INDEXER_MIGRATIONS.filter((m) => m.version === 1),
      "dogeos-indexer",
    ).close();
    expect(() => openIndexerDatabase(file)).to.throw(RebuildRequiredError);
    const db = openIndexerDatabase(file, { resetIfRebuildRequired: true });
    expect(schemaVersionOf(db)).to.equal(String(INDEXER_MIGRATIONS.length));
    db.close();
  });

  it("applies plain forward migrations to an existing database", () => {
    const file = path.join(dir, "plain.sqlite");
    const v1 = [{ version: 1, description: "a", sql: "CREATE TABLE a (x)" }];
    openDatabase(file, v1, "plain").close();
    const db = openDatabase(file, [...v1, { version: 2, description: "b", sql: "CREATE TABLE b (y)" }], "plain");
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'b'").get()).to.deep.equal({ name: "b" });
    db.close();
  });

  it("upgrades a version 6 index to version 7 by backfilling chain_stats counters from its outputs", () => {
    const file = path.join(dir, "v6.sqlite");
    const v6 = openDatabase(
      file,
      INDEXER_MIGRATIONS.filter((m) => m.version <= 6),
      INDEXER_SCHEMA,
    );
    const output = v6.prepare(
      "INSERT INTO outputs (txid, vout, height, value, script, address, spent_txid) VALUES (?, ?, 1, ?, x'51', ?, ?)",
    );
    output.run("aa".repeat(32), 0, 2n ** 60n, "alice", null);
    output.run("aa".repeat(32), 1, 5, "alice", "bb".repeat(32));
    output.run("aa".repeat(32), 2, 7, "bob", null);
    v6.prepare("INSERT INTO balances (address, confirmed, tx_count) VALUES ('alice', 0, 1), ('bob', 7, 1)").run();
    v6.close();
    // Version 7 applied alone (version 8 rebuilds every older index: see the test below).
    const db = openDatabase(
      file,
      INDEXER_MIGRATIONS.filter((m) => m.version <= 7),
      INDEXER_SCHEMA,
    );
    expect(
      db
        .prepare(
          "SELECT address, funded_txo_count, funded_txo_sum, spent_txo_count, spent_txo_sum FROM balances ORDER BY address",
        )
        .safeIntegers(true)
        .all(),
    ).to.deep.equal([
      {
        address: "alice",
        funded_txo_count: 2n,
        funded_txo_sum: 2n ** 60n + 5n,
        spent_txo_count: 1n,
        spent_txo_sum: 5n,
      },
      { address: "bob", funded_txo_count: 1n, funded_txo_sum: 7n, spent_txo_count: 0n, spent_txo_sum: 0n },
    ]);
    db.close();
  });

  it("refuses a version-7 index with one line naming the rebuild command, and rebuilds it when told to", () => {
    const file = path.join(dir, "v7.sqlite");
    const v7 = openDatabase(
      file,
      INDEXER_MIGRATIONS.filter((m) => m.version <= 7),
      INDEXER_SCHEMA,
    );
    // A version-7 row: hex txid text keys, address text on every output.
    v7.prepare(
      "INSERT INTO txs (txid, height, position, size, fee, coinbase, input_count, output_count) VALUES (?, 1, 0, 100, NULL, 1, 1, 1)",
    ).run("aa".repeat(32));
    v7.close();
    let refusal: unknown;
    try {
      openIndexerDatabase(file);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).to.be.instanceOf(RebuildRequiredError);
    const message = (refusal as Error).message;
    expect(message).to.not.include("\n");
    expect(message).to.equal(
      `index ${file} has schema version 7, this build writes version ${INDEXER_SCHEMA_VERSION} and cannot convert it: rebuild it with \`dogeos indexer --db ${file} --reset-on-rebuild\` (deletes it and re-indexes from its start height)`,
    );
    // Never misread: a reader refuses it too, naming the same command.
    expect(() => openIndexReader(file)).to.throw(IndexUnreadableError, /schema version 7.*--reset-on-rebuild/);
    const db = openIndexerDatabase(file, { resetIfRebuildRequired: true });
    expect(db.prepare("SELECT COUNT(*) AS n FROM txs").get()).to.deep.equal({ n: 0 });
    expect(schemaVersionOf(db)).to.equal(String(INDEXER_SCHEMA_VERSION));
    db.close();
  });

  it("refuses a version-8 index (text keys in its inscription tables) with the same one line, and rebuilds it when told to", () => {
    const file = path.join(dir, "v8.sqlite");
    const v8 = openDatabase(
      file,
      INDEXER_MIGRATIONS.filter((m) => m.version <= 8),
      INDEXER_SCHEMA,
    );
    // A version-8 row: the inscription keyed by its text id, its reveal by hex txid.
    v8.prepare(
      `INSERT INTO inscriptions (id, number, form, content_type, action, body, body_size, envelope_hash, collection_key, genesis_txid,
      reveal_txid, reveal_tx_count, inscriber_address, height, position) VALUES (?, 0, 'doginals', 'text/plain', NULL, x'61', 1, NULL, NULL, ?, ?, 1, NULL, 1, 1)`,
    ).run(`${"bb".repeat(32)}i0`, "bb".repeat(32), "bb".repeat(32));
    v8.close();
    let refusal: unknown;
    try {
      openIndexerDatabase(file);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).to.be.instanceOf(RebuildRequiredError);
    const message = (refusal as Error).message;
    expect(message).to.not.include("\n");
    expect(message).to.equal(
      `index ${file} has schema version 8, this build writes version ${INDEXER_SCHEMA_VERSION} and cannot convert it: rebuild it with \`dogeos indexer --db ${file} --reset-on-rebuild\` (deletes it and re-indexes from its start height)`,
    );
    expect(() => openIndexReader(file)).to.throw(IndexUnreadableError, /schema version 8.*--reset-on-rebuild/);
    const db = openIndexerDatabase(file, { resetIfRebuildRequired: true });
    expect(db.prepare("SELECT COUNT(*) AS n FROM inscriptions").get()).to.deep.equal({ n: 0 });
    expect(schemaVersionOf(db)).to.equal(String(INDEXER_SCHEMA_VERSION));
    db.close();
  });

  for (const version of [9, 11])
    it(`converts a version-${version} index in place: transactions found by txid within buckets of ids, every row kept`, () => {
      const file = path.join(dir, `v${version}.sqlite`);
      const old = openDatabase(
        file,
        INDEXER_MIGRATIONS.filter((m) => m.version <= version),
        INDEXER_SCHEMA,
      );
      const insert = old.prepare(INSERT_TX);
      for (const [id, txid] of bucketedTxs()) insert.run(id, txid);
      old.close();
      expect(() => openIndexReader(file)).to.throw(IndexUnreadableError, convertsInPlace(version));
      const db = openIndexerDatabase(file);
      try {
        expect(schemaVersionOf(db)).to.equal(String(INDEXER_SCHEMA_VERSION));
        const indexes = db
          .prepare<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'txs'")
          .all()
          .map((r) => r.name);
        expect(indexes).to.deep.equal(["txs_by_txid_bucket"]);
        expectBucketedLookups(db, bucketedTxs());
      } finally {
        db.close();
      }
      openIndexReader(file).close();
    });

  it("converts a version-12 index in place: the balance counters move to address_stats, every row kept", () => {
    const file = path.join(dir, "v12.sqlite");
    const v12 = openDatabase(
      file,
      INDEXER_MIGRATIONS.filter((m) => m.version <= 12),
      INDEXER_SCHEMA,
    );
    const insert = v12.prepare(
      `INSERT INTO addresses (id, address, script, script_hash, confirmed, tx_count, funded_txo_count, funded_txo_sum,
        spent_txo_count, spent_txo_sum) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const [id, address, ...counters] of COUNTER_ROWS) insert.run(id, address, SCRIPT, SCRIPT_HASH, ...counters);
    v12.close();
    expect(() => openIndexReader(file)).to.throw(IndexUnreadableError, convertsInPlace(12));
    const db = openIndexerDatabase(file);
    try {
      expect(schemaVersionOf(db)).to.equal(String(INDEXER_SCHEMA_VERSION));
      expectCountersMoved(db);
      const indexes = db
        .prepare<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'addresses' ORDER BY name",
        )
        .all()
        .map((r) => r.name);
      expect(indexes).to.deep.equal(["addresses_by_address", "addresses_by_script_hash"]);
    } finally {
      db.close();
    }
  });

  it("converts a version-13 index in place: an empty spend log, every row kept", () => {
    const file = path.join(dir, "v13.sqlite");
    const v13 = openDatabase(
      file,
      INDEXER_MIGRATIONS.filter((m) => m.version <= 13),
      INDEXER_SCHEMA,
    );
    v13.prepare(INSERT_TX).run(1, Buffer.alloc(32, 7));
    v13.close();
    expect(() => openIndexReader(file)).to.throw(IndexUnreadableError, convertsInPlace(13));
    const db = openIndexerDatabase(file);
    try {
      expect(schemaVersionOf(db)).to.equal(String(INDEXER_SCHEMA_VERSION));
      expect(db.prepare<{ n: number }>("SELECT COUNT(*) AS n FROM spend_log").get()!.n).to.equal(0);
      expect(db.prepare<{ n: number }>("SELECT COUNT(*) AS n FROM balance_log").get()!.n).to.equal(0);
      expect(db.prepare<{ n: number }>("SELECT COUNT(*) AS n FROM txs").get()!.n).to.equal(1);
      // Keyed by the spender, so a catch-up appends to it.
      const key = db
        .prepare<{ name: string }>("SELECT name FROM pragma_table_info('spend_log') WHERE pk > 0 ORDER BY pk")
        .all()
        .map((r) => r.name);
      expect(key).to.deep.equal(["spent_tx_id", "spent_vin"]);
    } finally {
      db.close();
    }
    openIndexReader(file).close();
  });

  it("converts a version-14 index in place: an empty balance log, every row kept", () => {
    const file = path.join(dir, "v14.sqlite");
    const v14 = openDatabase(
      file,
      INDEXER_MIGRATIONS.filter((m) => m.version <= 14),
      INDEXER_SCHEMA,
    );
    v14.prepare(INSERT_TX).run(1, Buffer.alloc(32, 7));
    v14.close();
    expect(() => openIndexReader(file)).to.throw(IndexUnreadableError, convertsInPlace(14));
    const db = openIndexerDatabase(file);
    try {
      expect(schemaVersionOf(db)).to.equal(String(INDEXER_SCHEMA_VERSION));
      expect(db.prepare<{ n: number }>("SELECT COUNT(*) AS n FROM balance_log").get()!.n).to.equal(0);
      expect(db.prepare<{ n: number }>("SELECT COUNT(*) AS n FROM txs").get()!.n).to.equal(1);
    } finally {
      db.close();
    }
    openIndexReader(file).close();
  });

  it("converts a version-10 index in place: inscription moves keyed in chain order, every row kept", () => {
    const file = path.join(dir, "v10.sqlite");
    const v10 = openDatabase(
      file,
      INDEXER_MIGRATIONS.filter((m) => m.version <= 10),
      INDEXER_SCHEMA,
    );
    const insert = v10.prepare(
      "INSERT INTO inscription_moves (inscription_id, height, position, tx_id, kind, to_tx_id, to_vout, to_offset, owner_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    // Two inscriptions' moves, written in the old key's order (by inscription), one lost to fees.
    const rows = [
      [7, 10, 1, 7, "genesis", 7, 0, 0, 3],
      [7, 12, 4, 21, "move", 21, 1, 0, 5],
      [7, 15, 0, 30, "fee", 30, 0, 5000, 2],
      [9, 11, 2, 9, "genesis", 9, 0, 0, 3],
      [9, 12, 4, 21, "move", 21, 0, 0, 4],
      [9, 13, 1, 25, "lost", null, null, null, null],
    ];
    for (const row of rows) insert.run(...row);
    v10.close();
    expect(() => openIndexReader(file)).to.throw(IndexUnreadableError, /which converts version 10 in place/);
    const db = openIndexerDatabase(file);
    try {
      expect(schemaVersionOf(db)).to.equal(String(INDEXER_SCHEMA_VERSION));
      // The rows in key order: by height and position, the inscription and kind breaking ties.
      const stored = db
        .prepare<Record<string, unknown>>(
          "SELECT inscription_id, height, position, tx_id, kind, to_tx_id, to_vout, to_offset, owner_id FROM inscription_moves",
        )
        .all()
        .map((row) => Object.values(row));
      const byChainOrder = [...rows].sort((a, b) =>
        a[1] !== b[1]
          ? Number(a[1]) - Number(b[1])
          : a[2] !== b[2]
            ? Number(a[2]) - Number(b[2])
            : Number(a[0]) - Number(b[0]),
      );
      expect(stored).to.deep.equal(byChainOrder);
      const keyColumns = db
        .prepare<{ name: string; pk: number }>("PRAGMA table_info(inscription_moves)")
        .all()
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name);
      expect(keyColumns).to.deep.equal(["height", "position", "inscription_id", "kind"]);
      const indexes = db
        .prepare<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'inscription_moves' AND sql IS NOT NULL",
        )
        .all()
        .map((r) => r.name);
      expect(indexes).to.deep.equal(["inscription_moves_by_inscription"]);
      // An inscription's moves, oldest first, through the new index.
      const moves = db.prepare<{ height: number; kind: string }>(
        "SELECT height, kind FROM inscription_moves WHERE inscription_id = ? ORDER BY height, position, kind",
      );
      expect(moves.all(9)).to.deep.equal([
        { height: 11, kind: "genesis" },
        { height: 12, kind: "move" },
        { height: 13, kind: "lost" },
      ]);
      const plan = db
        .prepare<{ detail: string }>(
          "EXPLAIN QUERY PLAN SELECT height, kind FROM inscription_moves WHERE inscription_id = ? ORDER BY height, position, kind",
        )
        .all(9)
        .map((r) => r.detail)
        .join("; ");
      expect(plan).to.include("inscription_moves_by_inscription").and.not.include("TEMP B-TREE");
    } finally {
      db.close();
    }
    openIndexReader(file).close();
  });

  it("builds each index a catch-up defers as the migrations define it", () => {
    const db = openIndexerDatabase(":memory:");
    try {
      expectDeferredIndexesRebuiltAlike(db, () =>
        db
          .prepare<{ name: string; sql: string }>(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name",
          )
          .all()
          .map((r) => `${r.name}: ${r.sql.replace(/ IF NOT EXISTS/, "")}`),
      );
    } finally {
      db.close();
    }
  });

  it("refuses a database of another daemon", () => {
    const file = path.join(dir, "other.sqlite");
    openDatabase(file, [{ version: 1, description: "x", sql: "CREATE TABLE x (a)" }], "something-else").close();
    expect(() => openIndexerDatabase(file)).to.throw(/"something-else" schema/);
  });

  it("creates a new index with 4 KB pages and sizes its WAL checkpoints in the index's own pages", () => {
    const autocheckpoint = (db: { prepare(sql: string): { get(): unknown } }) =>
      (db.prepare("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint;
    const file = path.join(dir, "new.sqlite");
    const db = openIndexerDatabase(file);
    expect(indexPageSize(db)).to.equal(INDEX_PAGE_SIZE).and.to.equal(4096);
    expect(autocheckpoint(db)).to.equal(20_000);
    db.close();
    // An index made with 16 KB pages (bench:scale --page-size) keeps them, and checkpoints after as many bytes.
    const larger = path.join(dir, "larger.sqlite");
    openIndexerDatabase(larger, { pageSize: 16_384 }).close();
    const reopened = openIndexerDatabase(larger);
    expect(indexPageSize(reopened)).to.equal(16_384);
    expect(autocheckpoint(reopened)).to.equal(5000);
    reopened.close();
  });

  it("records the latest migration's version in a new database", () => {
    const db = openIndexerDatabase(":memory:");
    const version = schemaVersionOf(db);
    expect(Number(version)).to.equal(Math.max(...INDEXER_MIGRATIONS.map((m) => m.version)));
  });
});

describe("indexer database on PostgreSQL", function () {
  this.timeout(60_000);
  const databases: { drop(): Promise<void> }[] = [];
  after(async () => {
    for (const database of databases) await database.drop();
  });
  const newUrl = async () => {
    const database = await createTestDatabase();
    databases.push(database);
    return database.url;
  };

  it("has the SQLite schema's tables, columns (in order), keys and indexes", async () => {
    const pg = openIndexerDatabase(await newUrl());
    const lite = openIndexerDatabase(":memory:");
    try {
      const liteTables = lite
        .prepare<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .all()
        .map((r) => r.name);
      const pgTables = pg
        .prepare<{ name: string }>(
          "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name",
        )
        .all()
        .map((r) => r.name);
      expect(pgTables).to.deep.equal(liteTables);
      for (const table of liteTables) {
        const liteColumns = lite
          .prepare<{ name: string; notnull: number; pk: number }>(`PRAGMA table_info(${table})`)
          .all();
        const pgColumns = pg
          .prepare<{ name: string; nullable: string }>(
            "SELECT column_name AS name, is_nullable AS nullable FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position",
          )
          .all(table);
        expect(
          pgColumns.map((c) => c.name),
          table,
        ).to.deep.equal(liteColumns.map((c) => c.name));
        // NOT NULL alike (a key column is NOT NULL in PostgreSQL even where SQLite lets it be null).
        const liteNotNull = liteColumns
          .filter((c) => c.notnull === 1 || (c.pk > 0 && table !== "zkp_uses"))
          .map((c) => c.name);
        expect(
          pgColumns.filter((c) => c.nullable === "NO").map((c) => c.name),
          table,
        ).to.include.members(liteNotNull);
      }
      const liteIndexes = lite
        .prepare<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name",
        )
        .all()
        .map((r) => r.name);
      const pgIndexes = pg
        .prepare<{ name: string }>(
          "SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND indexname NOT LIKE '%_pkey' AND indexname NOT LIKE '%_key' ORDER BY indexname",
        )
        .all()
        .map((r) => r.name);
      expect(pgIndexes).to.deep.equal(liteIndexes);
    } finally {
      pg.close();
      lite.close();
    }
  });

  it("builds each index a catch-up defers as its DDL defines it", async () => {
    const db = openIndexerDatabase(await newUrl());
    try {
      expectDeferredIndexesRebuiltAlike(db, () =>
        db
          .prepare<{ name: string; def: string }>(
            "SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname",
          )
          .all()
          .map((r) => `${r.name}: ${r.def}`),
      );
    } finally {
      db.close();
    }
  });

  // The tables before version 13: the balance counters on the address row, no address_stats (and
  // no spend_log, version 14's, nor balance_log, version 15's).
  const PG_ADDRESSES_BEFORE_13 = `DROP TABLE spend_log;
DROP TABLE balance_log;
DROP TABLE address_stats;
ALTER TABLE addresses ADD COLUMN confirmed BIGINT NOT NULL DEFAULT 0, ADD COLUMN tx_count BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN funded_txo_count BIGINT NOT NULL DEFAULT 0, ADD COLUMN funded_txo_sum BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN spent_txo_count BIGINT NOT NULL DEFAULT 0, ADD COLUMN spent_txo_sum BIGINT NOT NULL DEFAULT 0;`;

  it("converts a version-13 index in place, as SQLite does: an empty spend log", async () => {
    const url = await newUrl();
    const writer = openIndexerDatabase(url);
    try {
      writer.exec("DROP TABLE spend_log");
      writer.exec("DROP TABLE balance_log");
      writer.prepare("UPDATE meta SET value = '13' WHERE key = 'schema_version'").run();
    } finally {
      writer.close();
    }
    expect(() => openIndexReader(url)).to.throw(IndexUnreadableError, convertsInPlace(13));
    const db = openIndexerDatabase(url);
    try {
      expect(schemaVersionOf(db)).to.equal(String(INDEXER_SCHEMA_VERSION));
      expect(Number(db.prepare<{ n: number | bigint }>("SELECT COUNT(*) AS n FROM spend_log").get()!.n)).to.equal(0);
      expect(Number(db.prepare<{ n: number | bigint }>("SELECT COUNT(*) AS n FROM balance_log").get()!.n)).to.equal(0);
      const key = db
        .prepare<{ name: string }>(
          `SELECT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
           WHERE i.indrelid = 'spend_log'::regclass AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)`,
        )
        .all()
        .map((r) => r.name);
      expect(key).to.deep.equal(["spent_tx_id", "spent_vin"]);
    } finally {
      db.close();
    }
  });

  it("converts a version-14 index in place, as SQLite does: an empty balance log", async () => {
    const url = await newUrl();
    const writer = openIndexerDatabase(url);
    try {
      writer.exec("DROP TABLE balance_log");
      writer.prepare("UPDATE meta SET value = '14' WHERE key = 'schema_version'").run();
    } finally {
      writer.close();
    }
    expect(() => openIndexReader(url)).to.throw(IndexUnreadableError, convertsInPlace(14));
    const db = openIndexerDatabase(url);
    try {
      expect(schemaVersionOf(db)).to.equal(String(INDEXER_SCHEMA_VERSION));
      expect(Number(db.prepare<{ n: number | bigint }>("SELECT COUNT(*) AS n FROM balance_log").get()!.n)).to.equal(0);
    } finally {
      db.close();
    }
  });

  it("converts a version-12 index in place, as SQLite does: the balance counters move to address_stats", async () => {
    const url = await newUrl();
    const writer = openIndexerDatabase(url);
    try {
      writer.exec(PG_ADDRESSES_BEFORE_13);
      const insert = writer.prepare(
        `INSERT INTO addresses (id, address, script, script_hash, confirmed, tx_count, funded_txo_count, funded_txo_sum,
          spent_txo_count, spent_txo_sum) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const [id, address, ...counters] of COUNTER_ROWS) insert.run(id, address, SCRIPT, SCRIPT_HASH, ...counters);
      writer.prepare("UPDATE meta SET value = '12' WHERE key = 'schema_version'").run();
    } finally {
      writer.close();
    }
    expect(() => openIndexReader(url)).to.throw(IndexUnreadableError, convertsInPlace(12));
    const db = openIndexerDatabase(url);
    try {
      expect(schemaVersionOf(db)).to.equal(String(INDEXER_SCHEMA_VERSION));
      expectCountersMoved(db);
    } finally {
      db.close();
    }
  });

  // The txid index each version before 12 had: version 9's on the whole txid, 10 and 11's on its prefix.
  const OLD_TXID_INDEX: Record<number, string> = {
    9: "CREATE UNIQUE INDEX txs_by_txid ON txs (txid)",
    11: "CREATE INDEX txs_by_txid_prefix ON txs (substr(txid, 1, 8))",
  };
  for (const [version, oldIndex] of Object.entries(OLD_TXID_INDEX))
    it(`converts a version-${version} index in place, as SQLite does: transactions found by txid within buckets of ids`, async () => {
      const url = await newUrl();
      const writer = openIndexerDatabase(url);
      try {
        const insert = writer.prepare(INSERT_TX);
        for (const [id, txid] of bucketedTxs()) insert.run(id, txid);
        // The txid index as an indexer of that version left it.
        writer.exec("DROP INDEX txs_by_txid_bucket");
        writer.exec(oldIndex);
        writer.exec(PG_ADDRESSES_BEFORE_13);
        writer.prepare(`UPDATE meta SET value = '${version}' WHERE key = 'schema_version'`).run();
      } finally {
        writer.close();
      }
      expect(() => openIndexReader(url)).to.throw(IndexUnreadableError, convertsInPlace(Number(version)));
      const db = openIndexerDatabase(url);
      try {
        expect(schemaVersionOf(db)).to.equal(String(INDEXER_SCHEMA_VERSION));
        const indexes = db
          .prepare<{ name: string }>(
            "SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'txs' AND indexname <> 'txs_pkey'",
          )
          .all()
          .map((r) => r.name);
        expect(indexes).to.deep.equal(["txs_by_txid_bucket"]);
        expectBucketedLookups(db, bucketedTxs());
        // PostgreSQL matches the fragment's expressions to the index's: with sequential scans off (a
        // table this small would otherwise be read whole), the plan searches txs_by_txid_bucket.
        db.exec("SET enable_seqscan = off");
        const plan = db
          .prepare<Record<string, string>>(`EXPLAIN SELECT id FROM txs WHERE id = ${TX_ID_OF_TXID}`)
          .all(bucketedTxs()[0][1])
          .map((row) => Object.values(row)[0])
          .join("\n");
        expect(plan).to.match(/Index (Only )?Scan using txs_by_txid_bucket on txs k_t/);
        expect(plan).not.to.match(/Seq Scan on txs/);
      } finally {
        db.close();
      }
    });

  it("converts a version-10 index in place, as SQLite does: inscription moves keyed in chain order", async () => {
    const url = await newUrl();
    const writer = openIndexerDatabase(url);
    try {
      // Version 10's inscription_moves and txid index, as a version-10 indexer left them.
      writer.exec(`DROP INDEX txs_by_txid_bucket;
CREATE INDEX txs_by_txid_prefix ON txs (substr(txid, 1, 8));
ALTER TABLE inscription_moves DROP CONSTRAINT inscription_moves_pkey;
ALTER TABLE inscription_moves ADD PRIMARY KEY (inscription_id, height, position, kind);
DROP INDEX inscription_moves_by_inscription;
CREATE INDEX inscription_moves_by_height ON inscription_moves (height);`);
      const insert = writer.prepare(
        "INSERT INTO inscription_moves (inscription_id, height, position, tx_id, kind, to_tx_id, to_vout, to_offset, owner_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      );
      insert.run(7, 10, 1, 7, "genesis", 7, 0, 0, 3);
      insert.run(9, 13, 1, 25, "lost", null, null, null, null);
      writer.exec(PG_ADDRESSES_BEFORE_13);
      writer.prepare("UPDATE meta SET value = '10' WHERE key = 'schema_version'").run();
    } finally {
      writer.close();
    }
    expect(() => openIndexReader(url)).to.throw(IndexUnreadableError, /which converts version 10 in place/);
    const db = openIndexerDatabase(url);
    try {
      expect(schemaVersionOf(db)).to.equal(String(INDEXER_SCHEMA_VERSION));
      const key = db
        .prepare<{ name: string }>(
          `SELECT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
           WHERE i.indrelid = 'inscription_moves'::regclass AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)`,
        )
        .all()
        .map((r) => r.name);
      expect(key).to.deep.equal(["height", "position", "inscription_id", "kind"]);
      const indexes = db
        .prepare<{ name: string }>(
          "SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'inscription_moves' AND indexname <> 'inscription_moves_pkey'",
        )
        .all()
        .map((r) => r.name);
      expect(indexes).to.deep.equal(["inscription_moves_by_inscription"]);
      const kinds = db
        .prepare<{ kind: string }>("SELECT kind FROM inscription_moves ORDER BY height, position")
        .all()
        .map((r) => r.kind);
      expect(kinds).to.deep.equal(["genesis", "lost"]);
    } finally {
      db.close();
    }
  });

  it("is written by one indexer at a time, read read-only, and refused by a reader of another version", async () => {
    const url = await newUrl();
    const writer = openIndexerDatabase(url);
    try {
      expect(() => openIndexerDatabase(url)).to.throw(IndexUnreadableError, /another indexer is writing/);
      const reader = openIndexReader(url);
      try {
        expect(() => reader.prepare("INSERT INTO meta (key, value) VALUES ('x', 'y')").run()).to.throw(/read-only/);
      } finally {
        reader.close();
      }
      writer.prepare("UPDATE meta SET value = '5' WHERE key = 'schema_version'").run();
      expect(() => openIndexReader(url)).to.throw(IndexUnreadableError, /schema version 5, this build reads/);
    } finally {
      writer.close();
    }
    // The lock goes with the writer's session; an older index is refused unless a rebuild is allowed.
    expect(() => openIndexerDatabase(url)).to.throw(
      RebuildRequiredError,
      /^index \S+ has schema version 5, this build writes version \d+ and cannot convert it: rebuild it with `dogeos indexer --db postgres:\/\/\S+ --reset-on-rebuild`/,
    );
    // A version-7 table the rebuild must not leave behind.
    const old = openPostgres(url, { conflictKeys: {} });
    old.exec("CREATE TABLE balances (address TEXT PRIMARY KEY)");
    old.close();
    const rebuilt = openIndexerDatabase(url, { resetIfRebuildRequired: true });
    expect(Number(schemaVersionOf(rebuilt))).to.equal(Math.max(...INDEXER_MIGRATIONS.map((m) => m.version)));
    expect(rebuilt.prepare("SELECT to_regclass('balances') AS t").get()).to.deep.equal({ t: null });
    rebuilt.close();
  });
});
