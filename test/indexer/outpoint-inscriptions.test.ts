/**
 * The inscription writer's memo of what it placed on each outpoint (OutpointInscriptions in
 * src/indexer/inscriptions.ts) answers a spend exactly as the index would, or not at all: random
 * placements (several inscriptions on one output, ties in offset, offsets past 2^21 and past
 * 2^53) are written both to inscription_locations and to the memo, and every
 * outpoint's answer is compared with inscriptionsOnOutpoint's.
 */
import { expect } from "chai";
import { openIndexerDatabase } from "../../src/indexer/database";
import {
  GENESIS_TXID,
  INSCRIPTIONS_ON_OUTPOINT,
  OutpointInscriptions,
  inscriptionsOnOutpoint,
} from "../../src/indexer/inscriptions";

/** A small deterministic generator (xorshift32), so a failure replays. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

describe("the inscription writer's memo of outpoints", () => {
  it("answers every spend as inscription_locations does, or leaves it to the index", () => {
    const db = openIndexerDatabase(":memory:");
    const next = random(27);
    const memo = new OutpointInscriptions();
    const insertTx = db.prepare(
      "INSERT INTO txs (id, txid, height, position, size, fee, coinbase, input_count, output_count) VALUES (?, ?, 1, ?, 200, 0, 0, 1, 1)",
    );
    const insertLocation = db.prepare(
      "INSERT INTO inscription_locations (inscription_id, tx_id, vout, offset, owner_id, height) VALUES (?, ?, ?, ?, NULL, 1)",
    );
    const OFFSETS = [0n, 0n, 1n, 546n, 100_000n, 2n ** 21n - 1n, 2n ** 21n, 10n ** 12n, 2n ** 53n + 5n];
    const outpoints: { txId: number; vout: number }[] = [];
    let id = 1;
    db.transaction(() => {
      // Genesis transactions first (their random txids order ties), then the carriers.
      for (; id <= 600; id++)
        insertTx.run(id, Buffer.from(Array.from({ length: 32 }, () => Math.floor(next() * 256))), id);
      let inscription = 1;
      for (let carrier = 0; carrier < 200; carrier++) {
        const txId = id++;
        insertTx.run(txId, Buffer.alloc(32, carrier + 1), txId);
        const placements: { vout: number; id: number; offset: bigint }[] = [];
        for (let vout = 0; vout < 2 && inscription <= 600; vout++) {
          outpoints.push({ txId, vout });
          const count = 1 + Math.floor(next() * next() * 5);
          for (let k = 0; k < count && inscription <= 600; k++, inscription++) {
            const offset = OFFSETS[Math.floor(next() * OFFSETS.length)];
            insertLocation.run(inscription, txId, vout, offset);
            placements.push({ vout, id: inscription, offset });
          }
        }
        // In the writer's order, not the outputs': interleaved.
        memo.placed(txId, placements.reverse());
      }
    })();
    const q = { onOutpoint: db.prepare(INSCRIPTIONS_ON_OUTPOINT), genesisTxid: db.prepare(GENESIS_TXID) };
    let answered = 0;
    let several = 0;
    let left = 0;
    for (const { txId, vout } of outpoints) {
      const fromIndex = inscriptionsOnOutpoint(q, txId, vout);
      const fromMemo = memo.spend(txId, vout);
      if (fromMemo === null) {
        left++;
        // Only an outpoint with a tie or an offset past 2^53 is left to the index here.
        const offsets = fromIndex.map((item) => item.offset);
        expect(
          new Set(offsets).size < offsets.length || offsets.some((o) => o > BigInt(Number.MAX_SAFE_INTEGER)),
          `${txId}:${vout}`,
        ).to.equal(true);
        continue;
      }
      answered++;
      if (fromMemo.length > 1) several++;
      expect(fromMemo, `${txId}:${vout}`).to.deep.equal(fromIndex);
      // Spent: forgotten.
      expect(memo.spend(txId, vout)).to.equal(null);
    }
    expect(answered).to.be.greaterThan(100);
    expect(several).to.be.greaterThan(20);
    expect(left).to.be.greaterThan(10);
    db.close();
  });

  it("holds nothing after clear(), and answers nothing for an outpoint it never saw", () => {
    const memo = new OutpointInscriptions();
    memo.placed(7, [{ vout: 1, id: 3, offset: 0n }]);
    expect(memo.spend(7, 0)).to.equal(null);
    memo.clear();
    expect(memo.spend(7, 1)).to.equal(null);
    memo.placed(7, [{ vout: 1, id: 3, offset: 5n }]);
    expect(memo.spend(7, 1)).to.deep.equal([{ id: "3", offset: 5n }]);
  });

  it("takes no more outpoints once full, and takes them again after spends", () => {
    const memo = new OutpointInscriptions(2);
    memo.placed(10, [
      { vout: 0, id: 1, offset: 0n },
      { vout: 1, id: 2, offset: 0n },
      { vout: 2, id: 3, offset: 0n },
    ]);
    expect(memo.spend(10, 2)).to.equal(null);
    expect(memo.spend(10, 0)).to.deep.equal([{ id: "1", offset: 0n }]);
    memo.placed(11, [{ vout: 0, id: 4, offset: 7n }]);
    expect(memo.spend(11, 0)).to.deep.equal([{ id: "4", offset: 7n }]);
    expect(memo.spend(10, 1)).to.deep.equal([{ id: "2", offset: 0n }]);
  });
});
