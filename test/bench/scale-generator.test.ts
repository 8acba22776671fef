import { expect } from "chai";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NETWORKS, parseBlock } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { IndexQueries } from "../../src/indexer/queries";
import { IndexerStore } from "../../src/indexer/store";
import { INDEX_RECORD_BYTES, ScaleChainMeta, generateScaleChain } from "../../scripts/bench/scale-generator";
import { CachedChainSource } from "../../scripts/bench/scale-source";

/** bench:scale's chain at 2,000 transactions: its shape, and the real indexer taking every block. */
describe("bench:scale chain generator", () => {
  let dir: string;
  let meta: ScaleChainMeta;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "scale-generator-"));
    meta = generateScaleChain({ txs: 2000, seed: 7, dir: path.join(dir, "a") });
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("is deterministic for a seed and different for another", () => {
    const again = generateScaleChain({ txs: 2000, seed: 7, dir: path.join(dir, "b") });
    const other = generateScaleChain({ txs: 2000, seed: 8, dir: path.join(dir, "c") });
    const digest = (d: string) =>
      crypto
        .createHash("sha256")
        .update(fs.readFileSync(path.join(dir, d, "blocks.dat")))
        .digest("hex");
    expect(again.txs).to.equal(meta.txs);
    expect(other.txs).to.equal(meta.txs);
    expect(digest("b")).to.equal(digest("a"));
    expect(digest("c")).to.not.equal(digest("a"));
  });

  it("makes the chain of N transactions the start of a longer one for the same seed (its pools follow the chain, not --txs)", () => {
    // Past 5,000 transactions the address pool grows with the chain: version 1 sized it from --txs.
    const shorter = generateScaleChain({ txs: 6000, seed: 7, dir: path.join(dir, "d") });
    const longer = generateScaleChain({ txs: 9000, seed: 7, dir: path.join(dir, "e") });
    expect([shorter.txs, longer.txs]).to.deep.equal([6000, 9000]);
    // Every block but the shorter chain's last (cut to fit) is the same, byte for byte.
    const index = fs.readFileSync(path.join(dir, "d", "index.bin"));
    const lastStart = index.readDoubleLE(index.length - INDEX_RECORD_BYTES);
    expect(lastStart).to.be.greaterThan(0);
    const start = (d: string) => fs.readFileSync(path.join(dir, d, "blocks.dat")).subarray(0, lastStart);
    expect(Buffer.compare(start("e"), start("d"))).to.equal(0);
  });

  it("has the mainnet shape: ~5% inscriptions (mostly DRC-20), ~2% OP_RETURN, one address in over a tenth of all transactions", () => {
    expect(meta.txs).to.equal(2000);
    expect(meta.reveals / meta.txs).to.be.within(0.03, 0.07);
    const drc20 = meta.drc20.deploy + meta.drc20.mint + meta.drc20.transfer;
    expect(drc20 + meta.otherInscriptions).to.equal(meta.reveals);
    expect(drc20 / meta.reveals).to.be.within(0.7, 0.95);
    expect(meta.drc20.mint).to.be.greaterThan(0);
    expect(meta.drc20.transfer).to.be.greaterThan(0);
    expect(meta.opReturns / meta.txs).to.be.within(0.01, 0.035);
    expect(meta.busiest.txs / meta.txs).to.be.within(0.1, 0.4);
    expect(meta.blocks).to.be.within(2000 / 201, 2000 / 50 + 2);
  });

  it("writes blocks that parse, link up and carry a coinbase, and the indexer accepts every one with every transaction", async () => {
    const source = new CachedChainSource(path.join(dir, "a"));
    try {
      let prev = "0".repeat(64);
      let inputs = 0;
      let outputs = 0;
      for (let h = 0; h < source.blockCount; h++) {
        const parsed = parseBlock(await source.getRawBlock(source.hashes[h]));
        if (!parsed.ok) throw parsed.error;
        for (const tx of parsed.value.txs) {
          inputs += tx.inputs.length;
          outputs += tx.outputs.length;
        }
        expect(parsed.value.hash).to.equal(source.hashes[h]);
        expect(parsed.value.header.prevHash).to.equal(prev);
        expect(parsed.value.txs[0].inputs[0].vout).to.equal(0xffffffff);
        expect(parsed.value.txs.length).to.equal(source.txCounts[h]);
        prev = parsed.value.hash;
      }

      const db = openIndexerDatabase(":memory:");
      let indexedTxs = 0;
      let indexedInputs = 0;
      let indexedOutputs = 0;
      const indexer = new Indexer({
        store: new IndexerStore(db),
        source,
        network: NETWORKS.mainnet,
        onProgress: (p) => {
          indexedTxs += p.transactions;
          indexedInputs += p.inputs;
          indexedOutputs += p.outputs;
        },
      });
      const result = await indexer.syncOnce();
      expect(result.indexedHeight).to.equal(meta.blocks - 1);
      expect(indexedTxs).to.equal(meta.txs);
      // The progress reports count what the blocks hold (bench:scale prints them per step).
      expect(indexedInputs).to.equal(inputs);
      expect(indexedOutputs).to.equal(outputs);
      expect(inputs).to.be.greaterThan(meta.txs);

      const queries = new IndexQueries(db);
      expect(queries.balance(meta.busiest.address).txCount).to.equal(meta.busiest.txs);
      // Every reveal is an inscription the indexer recognises (none rejected), DRC-20 ones included.
      for (const reveal of meta.sampleReveals) {
        const inscription = queries.inscription(`${reveal.txid}i0`);
        expect(inscription, `${reveal.kind} ${reveal.txid}`).to.not.equal(null);
        expect(inscription!.form).to.equal("doginals");
      }
      expect(meta.sampleReveals.length).to.equal(Math.min(200, meta.reveals));
      db.close();
    } finally {
      source.close();
    }
  });
});
