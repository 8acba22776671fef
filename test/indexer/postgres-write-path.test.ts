/**
 * The PostgreSQL write path (store.ts, BulkRows): a batch's transactions, outputs and history rows
 * are buffered and go out with one binary COPY each when the batch ends, or earlier when a
 * statement that could see them runs. Looking up an address, a transaction id or an old output
 * never needs the buffered rows (every buffered address and transaction stays in memory), so a batch
 * that pays many new addresses still writes its rows once, and the index it leaves is the one
 * SQLite leaves.
 */
import { expect } from "chai";
import { NETWORKS } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { MemoryChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { PostgresDatabase } from "../../src/db/postgres";
import type { SqlDatabase } from "../../src/db/sql";
import { generateChain } from "../../scripts/bench/chain-generator";
import { createTestDatabase } from "../helpers/postgres";

describe("indexer write path on PostgreSQL: a batch's rows go out once", function () {
  this.timeout(300_000);
  const chain = generateChain({ blocks: 160, transactions: 1200, seed: 7 });

  const indexInto = async (db: SqlDatabase) => {
    const indexer = new Indexer({
      store: new IndexerStore(db),
      source: new MemoryChainSource(chain.hashes, chain.raws),
      network: NETWORKS.regtest,
    });
    await indexer.syncOnce();
  };
  const counts = (db: SqlDatabase) =>
    Object.fromEntries(
      ["txs", "outputs", "addresses", "address_history"].map((table) => [
        table,
        Number((db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number | bigint }).n),
      ]),
    );
  const balances = (db: SqlDatabase) =>
    db
      .prepare(
        "SELECT a.address, s.confirmed, s.tx_count FROM addresses a JOIN address_stats s ON s.id = a.id ORDER BY a.id",
      )
      .safeIntegers(true)
      .all();

  it("pays 200 addresses in one batch with one COPY per table, and leaves SQLite's rows", async () => {
    const database = await createTestDatabase();
    const pg = openIndexerDatabase(database.url) as PostgresDatabase;
    const lite = openIndexerDatabase(":memory:");
    try {
      const copies: string[] = [];
      const copyRows = pg.copyRows.bind(pg);
      pg.copyRows = (table, columns, rows) => {
        copies.push(table);
        return copyRows(table, columns, rows);
      };
      await indexInto(pg);
      await indexInto(lite);
      // The generator's wallets: every one of them is a new address somewhere in the batch.
      expect(counts(lite).addresses).to.be.greaterThan(150);
      expect(copies.sort()).to.deep.equal(["address_history", "outputs", "txs"]);
      expect(counts(pg)).to.deep.equal(counts(lite));
      expect(balances(pg)).to.deep.equal(balances(lite));
    } finally {
      pg.close();
      lite.close();
      await database.drop();
    }
  });
});
