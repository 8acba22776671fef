/**
 * The index has one reader (issue 20, item 1): no file outside src/indexer/ runs SQL on an index
 * table (every read goes through src/indexer/queries.ts or read/as-of-height.ts), and a reader's
 * handle (openIndexReader) is read-only, refuses another schema version and never migrates.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import Database from "better-sqlite3";
import {
  IndexUnreadableError,
  INDEXER_SCHEMA_VERSION,
  openIndexReader,
  openIndexerDatabase,
} from "../../src/indexer/database";
import { INDEXER_MIGRATIONS } from "../../src/indexer/schema";
import { indexNotCreatedYet, waitForIndex } from "../../src/indexer/wait-for-index";
import { IndexHistory, IndexQueries } from "../../src/indexer/queries";
import * as blockPlans from "../../src/indexer/read/blocks";
import * as rowPlans from "../../src/indexer/read/rows";
import type { SqlDatabase } from "../../src/db/sql";
import { ROOT, repoPath, sourceFiles, sqlTablesIn, tablesCreatedIn } from "../helpers/sql-scan";

const SCANNED = ["src", "daemons", "scripts"];

/** The index's tables: every CREATE TABLE of the indexer's migrations. */
function indexTables(): string[] {
  return tablesCreatedIn(INDEXER_MIGRATIONS.map((migration) => migration.sql).join("\n"));
}

/**
 * Files whose OWN database has a table of the same name as an index table, with the file whose
 * CREATE TABLE defines it there (checked below, so an entry cannot outlive its reason).
 */
const OWN_TABLES: { file: string; table: string; ownSchema: string; why: string }[] = [
  {
    file: "src/services/launchpad/collections.ts",
    table: "collections",
    ownSchema: "src/services/launchpad/schema.ts",
    why: "the launchpad's listed collections (its claims database)",
  },
  {
    file: "src/services/launchpad/schema.ts",
    table: "collections",
    ownSchema: "src/services/launchpad/schema.ts",
    why: "the launchpad's own schema",
  },
  {
    file: "src/devnet/store.ts",
    table: "blocks",
    ownSchema: "src/devnet/store.ts",
    why: "the devnet node's own block store",
  },
];

/**
 * The read-plan modules whose SQL no reader's `s` holds (plans every reader shares): each exports
 * every SQL text its plans ask for, and `samples` gives each plan it exports arguments that make it
 * ask the index (a plan added without an entry here fails the query-plan test).
 */
const PLAN_MODULES: {
  name: string;
  exports: Record<string, unknown>;
  sql: Record<string, string>;
  samples: Record<string, unknown[]>;
}[] = [
  { name: "read/blocks", exports: blockPlans, sql: blockPlans.BLOCKS_SQL, samples: { indexedTip: [], blockAt: [0] } },
  { name: "read/rows", exports: rowPlans, sql: rowPlans.ROWS_SQL, samples: { txIdBefore: [0, 0] } },
];

const GeneratorFunction = Object.getPrototypeOf(function* () {}) as object;

/** The SQL texts `plan` asks for, in order, each answered with its rows on `db`. */
function sqlAskedBy(db: SqlDatabase, plan: rowPlans.ReadPlan<unknown>): string[] {
  const asked: string[] = [];
  let next = plan.next();
  while (!next.done) {
    asked.push(next.value.sql);
    next = plan.next(db.prepare(next.value.sql).all(...next.value.params) as Record<string, unknown>[]);
  }
  return asked;
}

describe("the index has one reader (issue 20, item 1)", function () {
  it("reads the index tables from the indexer's migrations, and finds SQL on them", () => {
    const tables = indexTables();
    expect(tables).to.include.members([
      "blocks",
      "outputs",
      "address_history",
      "addresses",
      "drc20_ticks",
      "collection_members",
      "inscription_locations",
      "zkp_uses",
    ]);
    expect(sqlTablesIn('p("SELECT tick FROM drc20_ticks WHERE tick_key = ?")', tables)).to.deep.equal(["drc20_ticks"]);
    expect(
      sqlTablesIn("SELECT m.token_id FROM collection_members m\n JOIN inscription_locations l ON l.id = m.id", tables),
    ).to.deep.equal(["collection_members", "inscription_locations"]);
    expect(
      sqlTablesIn("DELETE FROM balances WHERE tx_count <= 0; UPDATE outputs SET spent_txid = NULL", tables),
    ).to.deep.equal(["balances", "outputs"]);
    // Prose and identifiers are not SQL.
    expect(
      sqlTablesIn(
        '// the outputs from the balances; const blocks = from(outputs); import { x } from "./blocks"',
        tables,
      ),
    ).to.deep.equal([]);
  });

  it("finds no SQL on an index table outside src/indexer/ (src, daemons, scripts)", () => {
    const tables = indexTables();
    const offenders: string[] = [];
    const allowedSeen = new Set<string>();
    for (const dir of SCANNED) {
      for (const file of sourceFiles(path.join(ROOT, dir))) {
        const relative = repoPath(file);
        if (relative.startsWith("src/indexer/")) continue;
        for (const table of sqlTablesIn(fs.readFileSync(file, "utf8"), tables)) {
          const own = OWN_TABLES.find((entry) => entry.file === relative && entry.table === table);
          if (own) allowedSeen.add(`${own.file}:${own.table}`);
          else offenders.push(`${relative}: ${table}`);
        }
      }
    }
    expect(
      offenders,
      "read the index through src/indexer/queries.ts (add the method there), never with SQL of your own",
    ).to.deep.equal([]);
    for (const entry of OWN_TABLES) {
      const schema = fs.readFileSync(path.join(ROOT, entry.ownSchema), "utf8");
      expect(schema, `${entry.ownSchema} must create its own ${entry.table} (${entry.why})`).to.match(
        new RegExp(`CREATE TABLE (IF NOT EXISTS )?${entry.table}\\b`),
      );
      expect(
        allowedSeen.has(`${entry.file}:${entry.table}`),
        `${entry.file} no longer names ${entry.table}: drop its entry`,
      ).to.equal(true);
    }
  });

  it("reads no table whole and starts every page at its cursor (SQLite's query plans of every statement and shared read plan)", () => {
    const db = openIndexerDatabase(":memory:");
    const sqlite = (db as unknown as { sqlite: Database.Database }).sqlite;
    const queries = new IndexQueries(db);
    // Every subject reader the facade holds, and the as-of-height reader: each keeps its statements in `s`.
    const readers = [...Object.values(queries), new IndexHistory(db)].filter(
      (r): r is { s: Record<string, { source: string }> } => typeof r === "object" && r !== null && "s" in r,
    );
    expect(readers.length).to.be.at.least(10);
    const plans = new Map<string, string[]>();
    for (const reader of readers) {
      for (const [key, statement] of Object.entries(reader.s)) {
        const parameters = (statement.source.match(/\?/g) ?? []).length;
        const plan = sqlite.prepare(`EXPLAIN QUERY PLAN ${statement.source}`).all(...Array(parameters).fill(null)) as {
          detail: string;
        }[];
        plans.set(
          `${reader.constructor.name}.${key}`,
          plan.map((row) => row.detail),
        );
      }
    }
    // The shared read plans: every SQL text their modules define, and nothing else asked by a plan
    // they export (each run on an index holding block 0, so it reads a row and goes on).
    db.prepare(
      "INSERT INTO blocks (height, hash, prev_hash, time, tx_count, size, first_tx_id, first_address_id) VALUES (?, ?, ?, ?, ?, ?, 1, 1)",
    ).run(0, Buffer.from("aa".repeat(32), "hex"), Buffer.alloc(32), 1, 1, 100);
    for (const { name, exports, sql, samples } of PLAN_MODULES) {
      const texts = new Set(Object.values(sql));
      const asked = new Set<string>();
      const planNames = Object.keys(exports).filter(
        (key) =>
          typeof exports[key] === "function" &&
          Object.getPrototypeOf(exports[key]) === GeneratorFunction &&
          exports[key] !== rowPlans.rowsOf, // the step every plan yields through, not a plan
      );
      expect(planNames.sort(), `${name}: the plans it exports, each with sample arguments`).to.deep.equal(
        Object.keys(samples).sort(),
      );
      for (const planName of planNames) {
        const plan = (exports[planName] as (...args: unknown[]) => rowPlans.ReadPlan<unknown>)(...samples[planName]);
        const steps = sqlAskedBy(db, plan);
        expect(steps, `${name}.${planName}(${samples[planName].join(", ")}) asks the index`).to.have.length.above(0);
        for (const text of steps) {
          expect(texts.has(text), `${name}.${planName} asks SQL its module does not export: ${text}`).to.equal(true);
          asked.add(text);
        }
      }
      for (const [key, text] of Object.entries(sql)) {
        expect(asked.has(text), `${name}: no plan asks ${key}, drop it`).to.equal(true);
        const parameters = (text.match(/\?/g) ?? []).length;
        const plan = sqlite.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...Array(parameters).fill(null)) as {
          detail: string;
        }[];
        plans.set(
          `${name}.${key}`,
          plan.map((row) => row.detail),
        );
      }
    }
    expect([...plans.keys()]).to.include.members(["read/blocks.tip", "read/blocks.at", "read/rows.firstAtOrAbove"]);
    /** The statements that read a table from one end, each with why that is bounded or accepted. */
    const WHOLE: Record<string, string> = {
      "StatusReads.meta": "meta holds a handful of rows",
      "read/blocks.tip": "ORDER BY height DESC LIMIT 1: one row from the end of the primary key",
      "ZkpReads.recent": "newest first along zkp_uses_by_height, stops at its LIMIT",
      "BalanceReads.busiest": "benches and operators' tools only, never a request",
      "ZkpReads.summary": "counts zkp_uses (shadow mode, few uses) until the indexer keeps counters",
    };
    // TX_ID_OF_TXID reads its one bound txid as a one-row subquery (k_) and the buckets of ids from a
    // CTE (k_b, one row a bucket), then searches the bucketed txid index once a bucket.
    const oneRow = /^SCAN (CONSTANT ROW|k_|k_b)$/;
    for (const [key, plan] of plans) {
      if (!plan.some((step) => oneRow.test(step))) continue;
      expect(plan, `${key} finds its transaction through txs_by_txid_bucket`).to.include(
        "SEARCH k_t USING INDEX txs_by_txid_bucket (<expr>=? AND <expr>=?)",
      );
    }
    const scans = [...plans]
      .filter(([, plan]) => plan.some((step) => /^SCAN /.test(step) && !oneRow.test(step)))
      .map(([key]) => key);
    expect(scans.sort()).to.deep.equal(Object.keys(WHOLE).sort());
    // Paged lists bound their index range by the cursor's height (or the transaction id it maps to,
    // ids being in chain order): a deep page costs what a first one does.
    for (const key of [
      "HistoryReads.history",
      "BalanceReads.utxos",
      "OpReturnReads.recent",
      "OpReturnReads.recentOfMagic",
      "ZkpReads.byVk",
    ]) {
      expect(plans.get(key)!.join("; "), key).to.match(
        /SEARCH \w+ USING (PRIMARY KEY|INDEX \w+) \([^)]*(height|tx_id)[<>]\?\)/,
      );
    }
    db.close();
  });

  describe("openIndexReader", () => {
    let dir: string;
    let file: string;

    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "index-reader-"));
      file = path.join(dir, "index.sqlite");
      const writer = openIndexerDatabase(file);
      writer
        .prepare(
          "INSERT INTO blocks (height, hash, prev_hash, time, tx_count, size, first_tx_id, first_address_id) VALUES (?, ?, ?, ?, ?, ?, 1, 1)",
        )
        .run(0, Buffer.from("aa".repeat(32), "hex"), Buffer.alloc(32), 1, 1, 100);
      writer.close();
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    const schemaVersion = () => {
      const raw = new Database(file, { readonly: true });
      try {
        return Number(
          (raw.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string }).value,
        );
      } finally {
        raw.close();
      }
    };
    const setSchemaVersion = (version: number) => {
      const raw = new Database(file);
      raw.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(version));
      raw.close();
    };

    it("reads the index and refuses every write", () => {
      const reader = openIndexReader(file);
      try {
        expect(reader.readonly).to.equal(true);
        expect(new IndexQueries(reader).status()).to.include({ indexedHeight: 0, indexedHash: "aa".repeat(32) });
        expect(() =>
          reader
            .prepare(
              "INSERT INTO blocks (height, hash, prev_hash, time, tx_count, size, first_tx_id, first_address_id) VALUES (1, 'b', 'a', 2, 1, 1, 2, 1)",
            )
            .run(),
        ).to.throw(/readonly|read-only/i);
        expect(() => reader.prepare("UPDATE meta SET value = '1' WHERE key = 'schema_version'").run()).to.throw(
          /readonly|read-only/i,
        );
        expect(() => reader.exec("CREATE TABLE extra (x INTEGER)")).to.throw(/readonly|read-only/i);
      } finally {
        reader.close();
      }
      expect(schemaVersion()).to.equal(INDEXER_SCHEMA_VERSION);
    });

    it("refuses an older schema version and leaves it unmigrated", () => {
      // Versions 10 to 15 change an index, a key or a table's columns, or add a table: this build's indexer converts them in place.
      setSchemaVersion(9);
      expect(() => openIndexReader(file)).to.throw(
        IndexUnreadableError,
        /schema version 9, this build reads 15: start this build's indexer on it \(`dogeos indexer --db \S+`\), which converts version 9 in place/,
      );
      expect(schemaVersion()).to.equal(9);
      // Version 8 -> 9 changed every inscription row: rebuilt, never converted.
      setSchemaVersion(8);
      expect(() => openIndexReader(file)).to.throw(
        IndexUnreadableError,
        /schema version 8.*rebuild the index with .dogeos indexer --db \S+ --reset-on-rebuild/,
      );
      expect(schemaVersion()).to.equal(8);
    });

    it("refuses a newer schema version and leaves it as it is", () => {
      setSchemaVersion(INDEXER_SCHEMA_VERSION + 1);
      expect(() => openIndexReader(file)).to.throw(IndexUnreadableError, /this reader is older than the indexer/);
      expect(schemaVersion()).to.equal(INDEXER_SCHEMA_VERSION + 1);
    });

    it("refuses an index that does not exist yet, which a daemon waits for", async () => {
      const later = path.join(dir, "later.sqlite");
      let refusal: unknown;
      try {
        openIndexReader(later);
      } catch (error) {
        refusal = error;
      }
      expect(indexNotCreatedYet(refusal)).to.equal(true);
      expect(fs.existsSync(later), "a reader never creates the index").to.equal(false);

      const told: string[] = [];
      const waiting = waitForIndex(later, { intervalMs: 20, log: (fields) => told.push(fields.reason) });
      await new Promise((resolve) => setTimeout(resolve, 100));
      openIndexerDatabase(later).close();
      const reader = await waiting;
      try {
        expect(reader.readonly).to.equal(true);
        expect(told).to.have.length(1);
        expect(told[0]).to.match(/does not exist/);
      } finally {
        reader.close();
      }
    });

    it("stops waiting when the daemon stops, and does not wait for a version it cannot read", async () => {
      const stop = new AbortController();
      const waiting = waitForIndex(path.join(dir, "never.sqlite"), { intervalMs: 20, signal: stop.signal });
      setTimeout(() => stop.abort(new Error("stopping on SIGTERM")), 50);
      let stopped: unknown;
      await waiting.catch((error) => {
        stopped = error;
      });
      expect((stopped as Error).message).to.equal("stopping on SIGTERM");

      setSchemaVersion(INDEXER_SCHEMA_VERSION + 1);
      let refused: unknown;
      await waitForIndex(file, { intervalMs: 20 }).catch((error) => {
        refused = error;
      });
      expect(refused).to.be.instanceOf(IndexUnreadableError);
      expect(indexNotCreatedYet(refused)).to.equal(false);
    });
  });
});
