/**
 * Two inscriptions on the same offset of one output (issue 27): the writer moves an outpoint's
 * inscriptions in one order (inscriptionsOnOutpoint, which also orders their DRC-20 send events)
 * and the readers list them in another (inscriptionsOn: by offset, then text id `<txid>i0`
 * bytewise, as version 8's text keys sorted). Schema version 9 keys inscriptions by their genesis
 * transaction's txs.id, which follows chain order, not txid order: this suite holds the two orders
 * equal where they could part, a tie whose earlier genesis transaction has the larger txid.
 *
 * A tie is reachable on chain when an input adds no koinu before an inscribed one (a known
 * zero-value output, or an input from before the index's first block, which flows as zero
 * koinu): a reveal's new inscription and the next input's then share the output's first koinu
 * (src/indexer/flow.ts). The rows are written directly so both backends see the same tie.
 */
import { expect } from "chai";
import type { SqlDatabase } from "../../src/db/sql";
import { GENESIS_TXID, INSCRIPTIONS_ON_OUTPOINT, inscriptionsOnOutpoint } from "../../src/indexer/inscriptions";
import { inscriptionIdOf, inscriptionsOn } from "../../src/indexer/read/inscriptions";
import { PlanRunner } from "../../src/indexer/read/rows";
import { forEachIndexBackend } from "../helpers/index-backends";

/** A txid (hex) made of one repeated byte, so the order of the txids is plain to read. */
const txidOf = (byte: number): string => byte.toString(16).padStart(2, "0").repeat(32);

/**
 * Genesis transactions in chain order (txs.id 1, 2, 3, 4), the txid of each chosen so txs.id
 * order and txid order disagree, and where each inscription sits on output 0 of the carrier.
 */
const GENESES = [
  { id: 1, txid: txidOf(0xf0), offset: 0 },
  { id: 2, txid: txidOf(0x10), offset: 0 },
  { id: 3, txid: txidOf(0x01), offset: 7 },
  { id: 4, txid: txidOf(0x80), offset: 0 },
];
const CARRIER = { id: 5, txid: txidOf(0x55) };

function writeTie(db: SqlDatabase): void {
  db.transaction(() => {
    const tx = db.prepare(
      "INSERT INTO txs (id, txid, height, position, size, fee, coinbase, input_count, output_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    const inscription = db.prepare(`INSERT INTO inscriptions (id, number, form, content_type, action, body, body_size,
      envelope_hash, collection_key, reveal_tx_id, reveal_tx_count, inscriber_id, height, position)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const location = db.prepare(
      "INSERT INTO inscription_locations (inscription_id, tx_id, vout, offset, owner_id, height) VALUES (?, ?, ?, ?, ?, ?)",
    );
    for (const g of GENESES) {
      tx.run(g.id, Buffer.from(g.txid, "hex"), g.id, 1, 200, 1000, 0, 1, 1);
      const body = Buffer.from(`body ${g.id}`);
      inscription.run(g.id, g.id - 1, "v1", "text/plain", null, body, body.length, null, null, g.id, 1, null, g.id, 1);
    }
    tx.run(CARRIER.id, Buffer.from(CARRIER.txid, "hex"), 5, 1, 300, 1000, 0, GENESES.length, 1);
    for (const g of GENESES) location.run(g.id, CARRIER.id, 0, g.offset, null, 5);
  })();
}

forEachIndexBackend("inscriptions on the same offset of one output", ({ openIndex }) => {
  let db: SqlDatabase;
  before(async function () {
    this.timeout(120_000);
    db = await openIndex();
    writeTie(db);
  });

  it("the writer moves them in the order the readers list them (offset, then text id)", () => {
    const byId = new Map(GENESES.map((g) => [g.id, inscriptionIdOf(Buffer.from(g.txid, "hex"))]));
    const writer = { onOutpoint: db.prepare(INSCRIPTIONS_ON_OUTPOINT), genesisTxid: db.prepare(GENESIS_TXID) };
    const written = inscriptionsOnOutpoint(writer, CARRIER.id, 0).map((row) => byId.get(Number(row.id)));
    const read = new PlanRunner(db).run(inscriptionsOn(CARRIER.txid, 0)).map((row) => row.id);
    // Version 8's order, from the text ids themselves: offset 0 by txid (0x10, 0x80, 0xf0), then offset 7.
    expect(read).to.deep.equal([txidOf(0x10), txidOf(0x80), txidOf(0xf0), txidOf(0x01)].map((t) => `${t}i0`));
    expect(written).to.deep.equal(read);
  });
});
