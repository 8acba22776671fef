import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "../../src/db/sqlite";
import { openIndexerDatabase } from "../../src/indexer/database";
import { IndexHistory } from "../../src/indexer/read/as-of-height";
import { INDEXER_MIGRATIONS, INDEXER_SCHEMA } from "../../src/indexer/schema";

/** IndexHistory over hand-written rows: the cases a devnet story rarely produces. */
describe("index history (reads as of a height)", () => {
  const ID = (n: number) => `${n.toString(16).padStart(64, "0")}i0`;
  // Schema version 9's rows refer to ids: transaction n has the txid of ID(n) (its inscription's
  // genesis), address i the name at ADDRESSES[i - 1].
  const ADDRESSES = ["A", "B", "C"];
  const address = (name: string | null) => (name === null ? null : ADDRESSES.indexOf(name) + 1);
  const withIds = (db: ReturnType<typeof openIndexerDatabase>, txIds: number[]) => {
    const tx = db.prepare(
      "INSERT INTO txs (id, txid, height, position, size, fee, coinbase, input_count, output_count) VALUES (?, ?, 1, ?, 1, 0, 0, 1, 1)",
    );
    for (const n of txIds) tx.run(n, Buffer.from(ID(n).slice(0, 64), "hex"), n);
    const row = db.prepare("INSERT INTO addresses (id, address, script, script_hash) VALUES (?, ?, x'00', x'00')");
    const stats = db.prepare(
      "INSERT INTO address_stats (id, confirmed, tx_count, funded_txo_count, funded_txo_sum, spent_txo_count, spent_txo_sum) VALUES (?, 0, 0, 0, 0, 0, 0)",
    );
    ADDRESSES.forEach((name, i) => {
      row.run(i + 1, name);
      stats.run(i + 1);
    });
  };

  it("migrates a version-5 index to version 6 without a rebuild, adding the DRC-20 by-address index", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "indexer-history-"));
    try {
      const file = path.join(dir, "index.sqlite");
      openDatabase(
        file,
        INDEXER_MIGRATIONS.filter((m) => m.version <= 5),
        INDEXER_SCHEMA,
      ).close();
      // Up to version 7 (version 8 rebuilds every index older than itself: schema.test.ts).
      const db = openDatabase(
        file,
        INDEXER_MIGRATIONS.filter((m) => m.version <= 7),
        INDEXER_SCHEMA,
      );
      expect(
        db.prepare("SELECT name FROM sqlite_master WHERE name = 'drc20_operations_by_address'").get(),
      ).to.deep.equal({ name: "drc20_operations_by_address" });
      db.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe("drc20BalanceAt", () => {
    const db = openIndexerDatabase(":memory:");
    const history = new IndexHistory(db);
    const insert =
      db.prepare(`INSERT INTO drc20_operations (height, position, seq, inscription_id, event, op, tick_key, tick, amount, address_id, valid, reason, note)
      VALUES (?, ?, 0, ?, ?, ?, 'wow!', 'WOW!', ?, ?, ?, ?, ?)`);
    const op = {
      run: (
        height: number,
        position: number,
        id: string,
        event: string,
        kind: string,
        amount: string,
        who: string | null,
        ...rest: unknown[]
      ) =>
        insert.run(height, position, Number.parseInt(id.slice(0, 64), 16), event, kind, amount, address(who), ...rest),
    };
    before(() => {
      withIds(db, [1, 2, 3, 4, 5, 6]);
      db.prepare(
        "INSERT INTO drc20_ticks (tick_key, tick, max_supply, mint_limit, minted, deployer_id, inscription_id, height) VALUES ('wow!', 'WOW!', '100', '70', '100', 1, 1, 1)",
      ).run();
      op.run(2, 1, ID(2), "inscribe", "mint", "70", "A", 1, null, null);
      op.run(3, 1, ID(3), "inscribe", "mint", "70", "B", 1, null, "MINT_CAPPED_TO_REMAINDER"); // credits 30
      op.run(4, 1, ID(4), "inscribe", "mint", "5", "B", 0, "TICK_FULLY_MINTED", null);
      op.run(5, 1, ID(5), "inscribe", "transfer", "20", "A", 1, null, null);
      op.run(5, 2, ID(6), "inscribe", "transfer", "10", "A", 1, null, null);
      op.run(6, 1, ID(5), "send", "transfer", "20", "B", 1, null, null);
      op.run(6, 2, ID(6), "send", "transfer", "10", null, 1, null, "RETURNED_TO_SENDER");
      op.run(7, 1, ID(5), "send", "transfer", "20", "C", 0, "TRANSFER_ALREADY_SENT", null);
    });

    it("credits a capped mint with max supply less the uncapped mints", () => {
      expect([2, 3].map((h) => history.drc20BalanceAt("B", "wow!", h))).to.deep.equal([0n, 30n]);
    });

    it("moves a first send to the receiver, keeps a send spent to fees with the sender and ignores later sends", () => {
      expect([4, 5, 6, 7].map((h) => history.drc20BalanceAt("A", "wow!", h))).to.deep.equal([70n, 70n, 50n, 50n]);
      expect([5, 6, 7].map((h) => history.drc20BalanceAt("B", "wow!", h))).to.deep.equal([30n, 50n, 50n]);
      expect(history.drc20BalanceAt("C", "wow!", 7)).to.equal(0n);
    });

    it("tells a transfer inscription sent from one that is not, height by height", () => {
      expect(history.drc20TransferAt(ID(5), 4)).to.equal(null);
      expect(history.drc20TransferAt(ID(5), 5)).to.deep.equal({
        tick: "WOW!",
        amount: 20n,
        inscribedValid: true,
        sent: false,
      });
      expect(history.drc20TransferAt(ID(5), 6)).to.deep.equal({
        tick: "WOW!",
        amount: 20n,
        inscribedValid: true,
        sent: true,
      });
    });
  });

  describe("inscriptionPlaceAt and collectionCountAt", () => {
    const db = openIndexerDatabase(":memory:");
    const history = new IndexHistory(db);
    const insert = db.prepare(
      "INSERT INTO inscription_moves (inscription_id, height, position, tx_id, kind, to_tx_id, to_vout, to_offset, owner_id) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)",
    );
    // Inscriptions 1 and 2; the moving transactions are 11 to 15.
    const move = {
      run: (
        id: string,
        height: number,
        position: number,
        tx: number,
        kind: string,
        to: number | null,
        vout: number | null,
        who: string | null,
      ) => insert.run(Number.parseInt(id.slice(0, 64), 16), height, position, tx, kind, to, vout, address(who)),
    };
    before(() => {
      withIds(db, [1, 2, 11, 12, 13, 14, 15]);
      move.run(ID(1), 10, 3, 11, "genesis", 11, 0, "A");
      move.run(ID(1), 11, 7, 13, "move", 13, 0, "C"); // inserted first, but later in the block
      move.run(ID(1), 11, 2, 12, "move", 12, 0, "B");
      move.run(ID(1), 12, 4, 14, "lost", null, null, null);
      move.run(ID(2), 10, 4, 15, "genesis", 15, 0, "A");
      db.prepare(
        "INSERT INTO collection_members (slug, token_id, inscription_id, height) VALUES ('pups', '0', 1, 10), ('pups', '1', 2, 10)",
      ).run();
    });

    it("takes the last move of the block at the height, by position", () => {
      expect(history.inscriptionPlaceAt(ID(1), 9)).to.equal(null);
      expect(history.inscriptionPlaceAt(ID(1), 10)!.ownerAddress).to.equal("A");
      expect(history.inscriptionPlaceAt(ID(1), 11)!.ownerAddress).to.equal("C");
      expect(history.inscriptionPlaceAt(ID(1), 12)).to.deep.equal({
        kind: "lost",
        ownerAddress: null,
        txid: null,
        vout: null,
        height: 12,
      });
    });

    it("counts the members held at the height", () => {
      expect([9, 10, 11, 12].map((h) => history.collectionCountAt("A", "pups", h))).to.deep.equal([0, 2, 1, 1]);
      expect(history.collectionCountAt("C", "pups", 11)).to.equal(1);
      expect(history.collectionCountAt("C", "pups", 12)).to.equal(0);
    });
  });
});
