/**
 * Attack on the index's undo journal: the indexer prunes journal entries deeper than its reorg
 * limit below the tip of each batch, and checks a reorg's depth against the tip it has now. A node
 * whose chain gets shorter step by step (invalidateblock, or a heavier but shorter branch; each
 * step within the limit) walks the tip down below the heights whose entries are already gone, and
 * the next rollback would undo the inscription and DRC-20 tables from an incomplete journal. The
 * index must then either equal a fresh index of the node's chain or refuse (REORG_TOO_DEEP); it
 * must never be silently different.
 *
 * The chain is the devnet equivalence chain (payments, DRC-20, Doginals and v1 inscriptions,
 * OP_RETURN outputs, OP_CHECKZKP uses), its blocks served by a source whose tip the test lowers.
 */
import { expect } from "chai";
import { NETWORKS } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer, ReorgTooDeepError } from "../../src/indexer/indexer";
import { IndexerStore } from "../../src/indexer/store";
import { dumpDatabase } from "../helpers/db-dump";
import { EquivalenceChain, SteppedChainSource, devnetChain } from "../indexer/equivalence/chain";

const LIMIT = 2;

function indexerOn(chain: EquivalenceChain, source: SteppedChainSource) {
  const db = openIndexerDatabase(":memory:");
  const indexer = new Indexer({
    store: new IndexerStore(db),
    source,
    network: NETWORKS[chain.network],
    startHeight: chain.startHeight,
    maxReorgDepth: LIMIT,
    // One block a batch, as a follower at the tip writes them (the journal is pruned per batch).
    batchBlocks: 1,
  });
  return { db, indexer };
}

const big = (_: string, v: unknown) => (typeof v === "bigint" ? v.toString() : v);

describe("adversarial: a node's chain shortened step by step walks the index below its undo journal", function () {
  this.timeout(300_000);
  let chain: EquivalenceChain;

  before(async () => {
    chain = await devnetChain();
  });

  it("never leaves the index different from a fresh index of the node's chain: it matches or refuses", async () => {
    const blocks = chain.steps[chain.steps.length - 1].blocks;
    expect(blocks.length).to.be.greaterThan(12);
    const silent: string[] = [];
    let refusals = 0;
    // From several tips, lower the node's chain by LIMIT blocks at a time, three times.
    for (let top = 8; top <= blocks.length; top += 2) {
      const source = new SteppedChainSource(chain);
      const { db, indexer } = indexerOn(chain, source);
      source.active = blocks.slice(0, top);
      await indexer.syncOnce();
      for (let step = 1; step <= 3; step++) {
        const length = top - step * LIMIT;
        source.active = blocks.slice(0, length);
        let refused = false;
        try {
          await indexer.syncOnce();
        } catch (error) {
          expect(error, `tip ${top}, step ${step}`).to.be.instanceOf(ReorgTooDeepError);
          refused = true;
        }
        if (refused) {
          refusals += 1;
          break;
        }
        const fresh = indexerOn(chain, source);
        await fresh.indexer.syncOnce();
        const got = dumpDatabase(db, ["meta", "journal"]);
        const want = dumpDatabase(fresh.db, ["meta", "journal"]);
        const differ = Object.keys(want).filter(
          (table) => JSON.stringify(got[table], big) !== JSON.stringify(want[table], big),
        );
        if (differ.length > 0) silent.push(`from ${top} blocks down to ${length}: ${differ.join(", ")}`);
        fresh.db.close();
      }
      db.close();
    }
    expect(silent, "rollbacks that left the index unlike a fresh one").to.deep.equal([]);
    // The walk goes below what the journal keeps: a correct indexer refuses it somewhere.
    expect(refusals).to.be.greaterThan(0);
  });
});
