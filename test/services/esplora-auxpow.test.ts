/**
 * The Esplora block routes and proofs on real Dogecoin mainnet blocks (test/fixtures/dogecoin),
 * AuxPoW (merge-mined) ones among them: 371,335-371,337 (the last blocks before AuxPoW and the
 * first AuxPoW block), 380,000 (AuxPoW with empty merkle branches) and 5,322,720 (a coinbase-only
 * AuxPoW block). The index is built from the raw blocks; the node is a stand-in that answers
 * `getblock <hash> false` with the raw block and `getblockheader <hash> true` with Dogecoin Core's
 * own answer recorded beside it, so every expected value below is Core's, not ours.
 */
import { expect } from "chai";
import type { Server } from "node:http";
import { NETWORKS, hexToBytes } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { IndexQueries } from "../../src/indexer/queries";
import { MemoryChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { createExplorerApp } from "../../src/services/explorer/app";
import { FEE_TARGETS } from "../../src/services/explorer/esplora-mempool";
import { headerId, readMerkleBlock, rootFromBranch } from "../helpers/esplora-merkle";
import { MainnetBlockEntry, mainnetBlocks } from "../helpers/testdata";
import { listenLocal } from "../helpers/listen";

/** Dogecoin Core's answer to a block it does not know (RPC_INVALID_ADDRESS_OR_KEY). */
class BlockNotFound extends Error {
  readonly code = -5;
  constructor() {
    super("Block not found");
  }
}

describe("explorer Esplora API on real mainnet blocks, AuxPoW ones included", function () {
  this.timeout(60_000);
  const servers: Server[] = [];
  const entry = (height: number): MainnetBlockEntry => mainnetBlocks().find((b) => b.blockNumber === height)!;

  /** An index of the consecutive blocks `heights` and an explorer over it; its Esplora root. */
  const serve = async (heights: number[]): Promise<string> => {
    const entries = heights.map(entry);
    const db = openIndexerDatabase(":memory:");
    const indexer = new Indexer({
      store: new IndexerStore(db),
      source: new MemoryChainSource(
        entries.map((e) => e.blockHash),
        entries.map((e) => hexToBytes(e.rawBlock)),
        heights[0],
      ),
      network: NETWORKS.mainnet,
      startHeight: heights[0],
    });
    await indexer.syncOnce();
    const byHash = new Map(mainnetBlocks().map((e) => [e.blockHash, e]));
    const node = {
      sendRawTransaction: async (): Promise<string> => {
        throw new Error("no broadcasts here");
      },
      getBlockHex: async (hash: string) => {
        const found = byHash.get(hash);
        if (!found) throw new BlockNotFound();
        return found.rawBlock;
      },
      getBlockHeader: async (hash: string) => {
        const found = byHash.get(hash);
        if (!found) throw new BlockNotFound();
        return found.header as { height: number; mediantime: number; difficulty: number };
      },
    };
    const app = createExplorerApp({ queries: new IndexQueries(db), network: NETWORKS.mainnet, node, statusCacheMs: 0 });
    const { server } = await listenLocal(app);
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as { port: number }).port}/esplora/api`;
  };
  const json = async (url: string) => {
    const response = await fetch(url);
    expect(response.status, url).to.equal(200);
    return (await response.json()) as any;
  };
  const text = async (url: string) => {
    const response = await fetch(url);
    expect(response.status, url).to.equal(200);
    return response.text();
  };

  let early: string;
  let emptyBranches: string;
  let coinbaseOnly: string;

  before(async () => {
    early = await serve([371335, 371336, 371337]);
    emptyBranches = await serve([380000]);
    coinbaseOnly = await serve([5322720]);
  });

  after(() => {
    for (const server of servers) server.close();
  });

  const cases = () => [
    { root: early, height: 371335 },
    { root: early, height: 371336 },
    { root: early, height: 371337 },
    { root: emptyBranches, height: 380000 },
    { root: coinbaseOnly, height: 5322720 },
  ];

  it("describes each block as Dogecoin Core does: header fields, size, weight, median time", async () => {
    for (const { root, height } of cases()) {
      const { blockHash, block, header } = entry(height);
      const core = header as any;
      expect(await json(`${root}/block/${blockHash}`), `block ${height}`).to.deep.equal({
        id: blockHash,
        height,
        version: core.version,
        timestamp: core.time,
        tx_count: block.tx.length,
        size: block.size,
        weight: (block as any).weight,
        merkle_root: core.merkleroot,
        previousblockhash: core.previousblockhash,
        mediantime: core.mediantime,
        nonce: core.nonce,
        bits: parseInt(core.bits, 16),
        difficulty: core.difficulty,
      });
    }
  });

  it("answers the 80-byte header, where Dogecoin Core's getblockheader false adds an AuxPoW block's AuxPoW", async () => {
    for (const { root, height } of cases()) {
      const { blockHash, rawHeader, block } = entry(height);
      const header = await text(`${root}/block/${blockHash}/header`);
      expect(header).to.have.length(160);
      expect(headerId(header)).to.equal(blockHash);
      expect(rawHeader.startsWith(header), `block ${height}`).to.equal(true);
      // Core's serialized header is longer exactly for the merge-mined blocks.
      expect(rawHeader.length > 160, `block ${height}`).to.equal(block.auxpow !== undefined);
    }
    expect(entry(371337).block.auxpow, "371,337 is the first AuxPoW block").to.not.equal(undefined);
    expect(entry(371336).block.auxpow).to.equal(undefined);
  });

  it("serves the raw block with its AuxPoW, and its txids in block order", async () => {
    for (const { root, height } of cases()) {
      const { blockHash, rawBlock, block } = entry(height);
      const raw = await fetch(`${root}/block/${blockHash}/raw`);
      expect(raw.headers.get("content-type")).to.equal("application/octet-stream");
      expect(Buffer.from(await raw.arrayBuffer()).toString("hex"), `block ${height}`).to.equal(rawBlock);
      expect(await json(`${root}/block/${blockHash}/txids`)).to.deep.equal(block.tx);
      expect(await text(`${root}/block/${blockHash}/txid/${block.tx.length - 1}`)).to.equal(block.tx.at(-1));
    }
  });

  it("proves every transaction in Electrum's form and as a merkleblock with the 80-byte header", async () => {
    for (const { root, height } of cases()) {
      const { block, header, rawHeader } = entry(height);
      const merkleroot = (header as any).merkleroot;
      for (const [pos, txid] of block.tx.entries()) {
        const proof = await json(`${root}/tx/${txid}/merkle-proof`);
        expect([proof.block_height, proof.pos]).to.deep.equal([height, pos]);
        expect(rootFromBranch(txid, proof.merkle, pos), `${height} ${pos}`).to.equal(merkleroot);
        expect(readMerkleBlock(await text(`${root}/tx/${txid}/merkleblock-proof`))).to.deep.equal({
          header: rawHeader.slice(0, 160),
          transactions: block.tx.length,
          root: merkleroot,
          matched: [txid],
        });
      }
    }
    const coinbase = entry(5322720).block.tx[0];
    expect(await json(`${coinbaseOnly}/tx/${coinbase}/merkle-proof`)).to.deep.equal({
      block_height: 5322720,
      merkle: [],
      pos: 0,
    });
  });

  it("walks the indexed chain: /blocks from a height, heights to hashes, best-chain status and the next block", async () => {
    const hashes = [371335, 371336, 371337].map((h) => entry(h).blockHash);
    expect((await json(`${early}/blocks/371337`)).map((b: any) => b.id)).to.deep.equal([...hashes].reverse());
    expect((await json(`${early}/blocks`)).map((b: any) => b.id)).to.deep.equal([...hashes].reverse());
    expect(await text(`${early}/block-height/371336`)).to.equal(hashes[1]);
    expect(await text(`${early}/blocks/tip/hash`)).to.equal(hashes[2]);
    expect(await json(`${early}/block/${hashes[1]}/status`)).to.deep.equal({
      in_best_chain: true,
      height: 371336,
      next_best: hashes[2],
    });
    expect(await json(`${early}/block/${hashes[2]}/status`)).to.deep.equal({ in_best_chain: true, height: 371337 });
    // A block the node knows that this index does not hold is served by hash, outside its chain.
    expect(await json(`${early}/block/${entry(380000).blockHash}/status`)).to.deep.equal({ in_best_chain: false });
    expect((await json(`${early}/block/${entry(380000).blockHash}`)).height).to.equal(380000);
  });

  it("pages a 30-transaction block's transactions, with the index's values", async () => {
    const { blockHash, block } = entry(371336);
    const first = await json(`${early}/block/${blockHash}/txs`);
    const second = await json(`${early}/block/${blockHash}/txs/25`);
    expect([...first, ...second].map((t: any) => t.txid)).to.deep.equal(block.tx);
    expect(first[0].vin[0].is_coinbase).to.equal(true);
    expect(first[0].status).to.deep.equal({
      confirmed: true,
      block_height: 371336,
      block_hash: blockHash,
      block_time: (entry(371336).header as any).time,
    });
  });

  it("answers fee estimates at the floor when the node gives none, and 503 for a mempool it cannot read", async () => {
    const fees = await json(`${early}/fee-estimates`);
    expect(fees).to.deep.equal(Object.fromEntries(FEE_TARGETS.map((t) => [String(t), 1000])));
    const mempool = await fetch(`${early}/mempool`);
    expect([mempool.status, mempool.headers.get("content-type")?.split(";")[0]]).to.deep.equal([503, "text/plain"]);
  });
});
