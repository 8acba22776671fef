/**
 * The indexer's UTXO cache (src/indexer/utxo-cache.ts): an open-addressing table in typed arrays.
 * Random sequences of adds, reads and spends on a small cache (many collisions, probe chains that
 * wrap around the end, a cache that fills) must answer as a plain Map of what was added and not
 * spent, except that a full cache takes nothing more; and outpoints it cannot hold exactly are
 * refused rather than answered wrongly.
 */
import { expect } from "chai";
import fc from "fast-check";
import { UtxoCache, UTXO_CACHE_SLOT_BYTES } from "../../src/indexer/utxo-cache";

const hex = (n: number, seed: number) => (n * 2654435761 + seed).toString(16).padStart(8, "0").slice(-8);
/** A txid of 64 hex characters that differs from txid(m) for m != n in its first 20 bytes. */
const txid = (n: number) => hex(n, 1) + hex(n, 7) + hex(n, 3) + hex(n, 11) + hex(n, 5) + "ab".repeat(12);

describe("UTXO cache", () => {
  it("answers as a map of unspent outputs through random adds, reads and spends (probe chains wrap, the cache fills)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            op: fc.constantFrom("add", "add", "get", "spend"),
            tx: fc.integer({ min: 0, max: 60 }),
            vout: fc.integer({ min: 0, max: 4 }),
            value: fc.bigInt({ min: 0n, max: 10n ** 15n }),
          }),
          { maxLength: 400 },
        ),
        (ops) => {
          // 64 slots, 51 entries at most.
          const cache = new UtxoCache((64 * UTXO_CACHE_SLOT_BYTES) / (1024 * 1024));
          const model = new Map<string, { txId: number; value: bigint; addressId: number | null }>();
          for (const { op, tx, vout, value } of ops) {
            const key = `${tx}:${vout}`;
            const expected = model.get(key) ?? null;
            if (op === "add") {
              if (expected) continue; // an unspent outpoint is not created twice
              const entry = { txId: tx + 1, value, addressId: tx % 3 === 0 ? null : tx * 10 };
              const wasFull = cache.full;
              const added = cache.add(txid(tx), vout, entry.txId, entry.addressId, entry.value);
              expect(added).to.equal(!wasFull);
              if (added) model.set(key, entry);
            } else if (op === "get") {
              expect(cache.get(txid(tx), vout)).to.deep.equal(expected);
            } else {
              // A spend reads the output, then deletes it (the delete after a get uses its slot).
              expect(cache.get(txid(tx), vout)).to.deep.equal(expected);
              cache.delete(txid(tx), vout);
              model.delete(key);
              expect(cache.get(txid(tx), vout)).to.equal(null);
            }
            expect(cache.size).to.equal(model.size);
          }
          for (const [key, entry] of model) {
            const [tx, vout] = key.split(":").map(Number);
            expect(cache.get(txid(tx), vout)).to.deep.equal(entry);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("takes no more outputs once full, and takes them again once some are spent", () => {
    const cache = new UtxoCache((10 * UTXO_CACHE_SLOT_BYTES) / (1024 * 1024)); // 10 slots, 8 entries
    for (let i = 0; i < 8; i++) expect(cache.add(txid(i), 0, i + 1, null, 5n)).to.equal(true);
    expect(cache.full).to.equal(true);
    expect(cache.add(txid(8), 0, 9, null, 5n)).to.equal(false);
    expect(cache.get(txid(8), 0)).to.equal(null);
    cache.delete(txid(3), 0);
    expect(cache.add(txid(8), 0, 9, null, 5n)).to.equal(true);
    expect(cache.get(txid(8), 0)).to.deep.equal({ txId: 9, value: 5n, addressId: null });
    cache.clear();
    expect(cache.size).to.equal(0);
    expect(cache.get(txid(8), 0)).to.equal(null);
  });

  it("refuses what it cannot hold exactly: two txids sharing their first 20 bytes, values above 2^53 koinu", () => {
    const cache = new UtxoCache(1);
    const a = "11".repeat(20) + "aa".repeat(12);
    const b = "11".repeat(20) + "bb".repeat(12);
    expect(cache.add(a, 0, 1, 7, 100n)).to.equal(true);
    // b shares a's key: neither is answered from memory any more (both are read from the index).
    expect(cache.add(b, 0, 2, 8, 200n)).to.equal(false);
    expect(cache.get(a, 0)).to.equal(null);
    expect(cache.get(b, 0)).to.equal(null);
    // Another vout of the same transaction is another key.
    expect(cache.add(a, 1, 1, 7, 100n)).to.equal(true);
    expect(cache.add(txid(1), 0, 3, null, 2n ** 53n)).to.equal(false);
    expect(cache.add(txid(1), 0, 3, null, 2n ** 53n - 1n)).to.equal(true);
    expect(cache.get(txid(1), 0)?.value).to.equal(2n ** 53n - 1n);
  });

  it("reads upper- and lower-case hex txids as the same key", () => {
    const cache = new UtxoCache(1);
    const id = txid(42);
    expect(cache.add(id, 2, 5, 6, 7n)).to.equal(true);
    expect(cache.get(id.toUpperCase(), 2)).to.deep.equal({ txId: 5, value: 7n, addressId: 6 });
  });
});
