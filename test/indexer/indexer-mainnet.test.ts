import { expect } from "chai";
import { NETWORKS, hexToBytes, parseBlock } from "../../src/doge";
import type { SqlDatabase } from "../../src/db/sql";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { MemoryChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { dumpDatabase } from "../helpers/db-dump";
import { createTestDatabase } from "../helpers/postgres";
import { rawBlockHex } from "../helpers/testdata";
import fs from "node:fs";
import path from "node:path";
import { TESTDATA_DIR } from "../helpers/testdata";

function indexSingleBlock(height: number, db: SqlDatabase = openIndexerDatabase(":memory:")) {
  const raw = hexToBytes(rawBlockHex(height));
  const parsed = parseBlock(raw);
  if (!parsed.ok) throw parsed.error;
  const store = new IndexerStore(db);
  const indexer = new Indexer({
    store,
    source: new MemoryChainSource([parsed.value.hash], [raw], height),
    network: NETWORKS.mainnet,
    startHeight: height,
  });
  return { store, indexer, block: parsed.value };
}

describe("indexer on real mainnet blocks", () => {
  it("indexes every OP_RETURN output of block 5,122,721 with payload, magic, hash and size", async () => {
    const { store, indexer } = indexSingleBlock(5122721);
    await indexer.syncOnce();
    const rows = store.db
      .prepare(
        "SELECT lower(hex(t.txid)) AS txid, o.vout, hex(o.payload) AS payload, o.magic, o.size FROM op_returns o JOIN txs t ON t.id = o.tx_id ORDER BY o.position, o.vout",
      )
      .all() as { txid: string; vout: number; payload: string; magic: string; size: number }[];
    const catalogue = JSON.parse(fs.readFileSync(path.join(TESTDATA_DIR, "inscriptions-derived.json"), "utf8"));
    const expected = (
      catalogue.op_return_outputs as { height: number; txid: string; vout: number; script_hex: string }[]
    ).filter((entry) => entry.height === 5122721);
    expect(rows.length).to.equal(20);
    expect(rows.map((r) => `${r.txid}:${r.vout}`).sort()).to.deep.equal(
      expected.map((e) => `${e.txid}:${e.vout}`).sort(),
    );
    // "D" (Dunes) outputs: OP_RETURN <"D"> <data>: the payload is the pushes' data concatenated.
    const first = rows.find((r) => r.txid === expected[0].txid)!;
    expect(first.payload.toLowerCase().startsWith("44")).to.equal(true);
    for (const row of rows) {
      expect(row.size).to.equal(row.payload.length / 2);
      expect(row.magic).to.equal(row.payload.slice(0, 8).toLowerCase());
    }
  });

  it("records every transaction, output and address of block 5,000,000 and marks in-block spends", async () => {
    const { store, indexer, block } = indexSingleBlock(5000000);
    const result = await indexer.syncOnce();
    expect(result.indexedHeight).to.equal(5000000);
    const txCount = (store.db.prepare("SELECT COUNT(*) AS n FROM txs").get() as { n: number }).n;
    expect(txCount).to.equal(block.txs.length);
    const outputs = block.txs.reduce((sum, tx) => sum + tx.outputs.filter((o) => o.script[0] !== 0x6a).length, 0);
    expect((store.db.prepare("SELECT COUNT(*) AS n FROM outputs").get() as { n: number }).n).to.equal(outputs);
    // Doginals commits are mostly spent by their reveal in the same block (447 of 486 per the catalogue).
    const spentInBlock = (
      store.db
        .prepare("SELECT COUNT(*) AS n FROM outputs o JOIN txs s ON s.id = o.spent_tx_id WHERE s.height = 5000000")
        .get() as { n: number }
    ).n;
    expect(spentInBlock).to.be.greaterThan(400);
    const coinbaseAddress = store.db
      .prepare(
        "SELECT a.address FROM outputs o JOIN txs t ON t.id = o.tx_id JOIN addresses a ON a.id = o.address_id WHERE t.txid = ? AND o.vout = 0",
      )
      .get(Buffer.from(block.txs[0].txid, "hex")) as { address: string };
    expect(coinbaseAddress.address).to.match(/^[DA9]/);
  });
});

describe("indexer inscriptions on real mainnet blocks", () => {
  // DRC-20 classification: what each block's bodies say, and why they are ignored without the
  // earlier history (the index starts at the block itself, so no tick is known yet).
  const drc20: Record<number, { op: string; valid: number; reason: string | null; n: number }[]> = {
    5000000: [
      { op: "deploy", valid: 1, reason: null, n: 1 },
      { op: "mint", valid: 0, reason: "TICK_NOT_DEPLOYED", n: 419 },
      { op: "transfer", valid: 0, reason: "TICK_NOT_DEPLOYED", n: 41 },
    ],
    5122721: [{ op: "transfer", valid: 0, reason: "TICK_NOT_DEPLOYED", n: 7 }],
  };
  for (const [height, expected] of [
    [5000000, 477],
    [5122721, 9],
  ] as const) {
    it(`finds the ${expected} Doginals reveals of block ${height.toLocaleString("en")} with their content types and bodies`, async () => {
      const { store, indexer } = indexSingleBlock(height);
      await indexer.syncOnce();
      const catalogue = JSON.parse(fs.readFileSync(path.join(TESTDATA_DIR, "inscriptions-derived.json"), "utf8")) as {
        inscriptions: { height: number; txid: string; content_type: string; body_len?: number; body_length?: number }[];
      };
      const wanted = catalogue.inscriptions.filter((i) => i.height === height);
      const rows = store.db
        .prepare(
          "SELECT lower(hex(g.txid)) AS genesis_txid, i.content_type, i.body_size, i.form FROM inscriptions i JOIN txs g ON g.id = i.id ORDER BY i.number",
        )
        .all() as { genesis_txid: string; content_type: string; body_size: number; form: string }[];
      expect(rows.length).to.equal(expected);
      expect(rows.map((r) => r.genesis_txid)).to.deep.equal(wanted.map((w) => w.txid));
      rows.forEach((row, i) => {
        expect(row.form).to.equal("doginals");
        expect(row.content_type).to.equal(wanted[i].content_type);
        if (wanted[i].body_len !== undefined) expect(row.body_size).to.equal(wanted[i].body_len);
      });
      // DRC-20 bodies are classified even where history before the block is missing.
      const ops = store.db
        .prepare(
          "SELECT op, valid, reason, COUNT(*) AS n FROM drc20_operations WHERE event = 'inscribe' GROUP BY op, valid, reason ORDER BY op",
        )
        .all();
      expect(ops).to.deep.equal(drc20[height]);
    });
  }
});

describe("indexer read-side indexes during catch-up", () => {
  it("drops them while far behind and builds them again once caught up, with the same rows", async () => {
    const raw = hexToBytes(rawBlockHex(5000000));
    const parsed = parseBlock(raw);
    if (!parsed.ok) throw parsed.error;
    const store = new IndexerStore(openIndexerDatabase(":memory:"));
    const seen: string[] = [];
    const indexer = new Indexer({
      store,
      source: new MemoryChainSource([parsed.value.hash], [raw], 5000000),
      network: NETWORKS.mainnet,
      startHeight: 5000000,
      deferIndexesBehind: 0,
      log: (event) => seen.push(event),
    });
    await indexer.syncOnce();
    expect(seen).to.include.members(["read_indexes_deferred", "read_indexes_restored"]);
    const names = (
      store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").all() as { name: string }[]
    ).map((r) => r.name);
    expect(names).to.include.members([
      "outputs_unspent_by_address",
      "outputs_by_spent_tx",
      "address_history_by_address",
      "addresses_by_script_hash",
    ]);
    expect(store.getMeta("read_indexes_deferred")).to.equal("0");
  });
});

describe("indexer on real mainnet blocks, PostgreSQL against SQLite", function () {
  this.timeout(120_000);
  // Blocks with thousands of transactions, Doginals reveals, DRC-20 bodies and OP_RETURN outputs.
  for (const height of [5000000, 5122721]) {
    it(`indexes block ${height.toLocaleString("en")} into the same rows on both backends`, async () => {
      const database = await createTestDatabase();
      try {
        const pg = indexSingleBlock(height, openIndexerDatabase(database.url));
        await pg.indexer.syncOnce();
        const lite = indexSingleBlock(height);
        await lite.indexer.syncOnce();
        const dump = dumpDatabase(pg.store.db, ["meta", "journal"]);
        expect(dump.txs.length).to.be.greaterThan(50);
        expect(dump).to.deep.equal(dumpDatabase(lite.store.db, ["meta", "journal"]));
        pg.store.db.close();
      } finally {
        await database.drop();
      }
    });
  }
});
