/**
 * Blocks for the Esplora surface (esplora.ts): the node's serialized blocks and header facts, kept
 * in small caches, and the two merkle proofs Esplora serves.
 *
 * Which chain: heights are the index's (the block the index holds at a height, its tip), so block
 * routes agree with the transactions' statuses; a block's contents (header fields, size,
 * transactions, raw bytes) are the node's, read by hash (`getblock <hash> false`), and its height,
 * median time past and difficulty come from `getblockheader <hash> true`. A block is immutable
 * by hash, so both caches keep what they read.
 *
 * Dogecoin: an AuxPoW (merge-mined) block carries its AuxPoW between the 80-byte header and the
 * transactions. The header answered here is the 80 bytes (what a Bitcoin client hashes to the
 * block id); the raw block is the node's serialization, AuxPoW included; the merkleblock proof is
 * Bitcoin's layout with the 80-byte header (Dogecoin Core's own `gettxoutproof` writes the AuxPoW
 * after the header, as its CBlockHeader serializes it: primitives/block.h).
 */
import {
  Block,
  ByteWriter,
  DecodedTransaction,
  bytesToHexReversed,
  concatBytes,
  hexReversedToBytes,
  hexToBytes,
  parseBlock,
  serializeHeader,
  sha256d,
} from "../../doge";
import { LRUCache } from "lru-cache";
import { RPC_INVALID_ADDRESS_OR_KEY } from "../../doge/policy";
import { Refusal, notFound } from "../../errors";

/** The node calls the block routes make. DogecoinRpcClient fits. */
export interface EsploraBlockNode {
  /** `getblock <hash> false`: the serialized block, AuxPoW included. */
  getBlockHex?(hash: string): Promise<string>;
  /** `getblockheader <hash> true`: the block's height, median time past and difficulty. */
  getBlockHeader?(hash: string, verbose?: true): Promise<{ height: number; mediantime: number; difficulty: number }>;
}

/** A block as the node serialized it, parsed once. */
export interface RawBlock {
  hash: string;
  bytes: Uint8Array;
  block: Block;
  txids: string[];
  byTxid: Map<string, DecodedTransaction>;
}

/** What only the node's block index says of a block. */
export interface BlockMeta {
  height: number;
  mediantime: number;
  difficulty: number;
}

/** Esplora's "Block not found" (404). */
export const blockNotFound = (hash: string): Refusal =>
  notFound("BLOCK_NOT_FOUND", "Block not found", { block_hash: hash });

/**
 * `read()`'s promise, kept in `cache` under `key` so that every caller (concurrent ones too) shares
 * one read; a read that fails is forgotten.
 */
export function keptPromise<T>(cache: LRUCache<string, Promise<T>>, key: string, read: () => Promise<T>): Promise<T> {
  const kept = cache.get(key);
  if (kept) return kept;
  const promise = read();
  cache.set(key, promise);
  promise.catch(() => {
    if (cache.peek(key) === promise) cache.delete(key);
  });
  return promise;
}

/** The node's blocks by hash: serialized and parsed (raw), and their header facts (meta). */
export class EsploraBlockReader {
  private readonly raws: LRUCache<string, Promise<RawBlock>>;
  private readonly metas: LRUCache<string, Promise<BlockMeta>>;

  constructor(
    private readonly node: EsploraBlockNode,
    rawCacheSize: number,
    metaCacheSize = 1024,
  ) {
    this.raws = new LRUCache({ max: rawCacheSize });
    this.metas = new LRUCache({ max: metaCacheSize });
  }

  raw(hash: string): Promise<RawBlock> {
    return keptPromise(this.raws, hash, () => this.fetchRaw(hash));
  }

  meta(hash: string): Promise<BlockMeta> {
    return keptPromise(this.metas, hash, () => this.fetchMeta(hash));
  }

  /** A transaction of a block the index names; 502 when the node's block does not hold it. */
  async transaction(blockHash: string, txid: string): Promise<DecodedTransaction> {
    const tx = (await this.raw(blockHash)).byTxid.get(txid);
    if (!tx)
      throw new Refusal(
        "upstream",
        "NODE_BLOCK_MISMATCH",
        `block ${blockHash} from the node does not hold transaction ${txid}`,
        { block_hash: blockHash, txid },
      );
    return tx;
  }

  private async fetchRaw(hash: string): Promise<RawBlock> {
    const getBlockHex = this.node.getBlockHex?.bind(this.node);
    if (!getBlockHex)
      throw new Refusal(
        "unavailable",
        "RAW_TX_UNAVAILABLE",
        "this explorer's node client cannot read blocks, so blocks and raw transactions are not served",
      );
    const hex = await askNode(hash, () => getBlockHex(hash));
    const bytes = hexToBytes(hex);
    const parsed = parseBlock(bytes);
    if (!parsed.ok || parsed.value.hash !== hash)
      throw new Refusal(
        "upstream",
        "NODE_BLOCK_MISMATCH",
        parsed.ok
          ? `the node answered block ${parsed.value.hash} for ${hash}`
          : `block ${hash} from the node does not parse: ${parsed.error.message}`,
        { block_hash: hash },
      );
    const block = parsed.value;
    return {
      hash,
      bytes,
      block,
      txids: block.txs.map((tx) => tx.txid),
      byTxid: new Map(block.txs.map((tx) => [tx.txid, tx])),
    };
  }

  private async fetchMeta(hash: string): Promise<BlockMeta> {
    const getBlockHeader = this.node.getBlockHeader?.bind(this.node);
    if (!getBlockHeader)
      throw new Refusal(
        "unavailable",
        "BLOCKS_UNAVAILABLE",
        "this explorer's node client cannot read block headers, so blocks are not served",
      );
    const header = await askNode(hash, () => getBlockHeader(hash, true));
    return { height: header.height, mediantime: header.mediantime, difficulty: header.difficulty };
  }
}

/** A node read of block `hash`: -5 (RPC_INVALID_ADDRESS_OR_KEY, "Block not found") is 404, anything else 502. */
async function askNode<T>(hash: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if ((error as { code?: unknown }).code === RPC_INVALID_ADDRESS_OR_KEY) throw blockNotFound(hash);
    throw new Refusal("upstream", "NODE_UNAVAILABLE", "the base-chain node did not answer the block read", {
      node_message: error instanceof Error ? error.message : String(error),
    });
  }
}

/** Esplora's block object (electrs's BlockValue). Dogecoin has no witness: weight is 4 x size. */
export function blockJson(raw: RawBlock, meta: BlockMeta) {
  const header = raw.block.header;
  return {
    id: raw.hash,
    height: meta.height,
    // Esplora writes the version as an unsigned 32-bit number.
    version: header.version >>> 0,
    timestamp: header.time,
    tx_count: raw.txids.length,
    size: raw.block.size,
    weight: 4 * raw.block.size,
    merkle_root: header.merkleRoot,
    previousblockhash: /^0{64}$/.test(header.prevHash) ? null : header.prevHash,
    mediantime: meta.mediantime,
    nonce: header.nonce,
    bits: header.bits,
    difficulty: meta.difficulty,
  };
}

/** The 80-byte header (no AuxPoW), as a Bitcoin client hashes it to the block id. */
export function headerBytes(raw: RawBlock): Uint8Array {
  return serializeHeader(raw.block.header);
}

/**
 * The Electrum-style merkle branch of the transaction at `pos` (blockchain.transaction.get_merkle):
 * the sibling at each level from the leaves up, in display (reversed) hex; an odd last node is
 * paired with itself, as in the block's merkle root.
 */
export function merkleBranch(txids: readonly string[], pos: number): string[] {
  let level = txids.map((txid) => hexReversedToBytes(txid));
  let index = pos;
  const branch: string[] = [];
  while (level.length > 1) {
    const sibling = index ^ 1;
    branch.push(bytesToHexReversed(level[sibling < level.length ? sibling : index]));
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2)
      next.push(sha256d(concatBytes(level[i], level[i + 1 < level.length ? i + 1 : i])));
    level = next;
    index >>= 1;
  }
  return branch;
}

/**
 * bitcoind's merkleblock (CMerkleBlock: header, then the partial merkle tree matching the one
 * transaction at `pos`), with the 80-byte header. The tree is CPartialMerkleTree's depth-first
 * walk (Bitcoin Core src/merkleblock.cpp): a flag bit per node visited, 1 when a matched leaf is
 * under it; a hash for every node not descended into and for every leaf reached.
 */
export function merkleBlock(header80: Uint8Array, txids: readonly string[], pos: number): Uint8Array {
  const leaves = txids.map((txid) => hexReversedToBytes(txid));
  const count = leaves.length;
  const width = (height: number) => (count + (1 << height) - 1) >> height;
  let treeHeight = 0;
  while (width(treeHeight) > 1) treeHeight++;
  const hashAt = (height: number, index: number): Uint8Array => {
    if (height === 0) return leaves[index];
    const left = hashAt(height - 1, index * 2);
    const right = index * 2 + 1 < width(height - 1) ? hashAt(height - 1, index * 2 + 1) : left;
    return sha256d(concatBytes(left, right));
  };
  const bits: boolean[] = [];
  const hashes: Uint8Array[] = [];
  const walk = (height: number, index: number) => {
    const matchUnder = pos >> height === index;
    bits.push(matchUnder);
    if (height === 0 || !matchUnder) {
      hashes.push(hashAt(height, index));
      return;
    }
    walk(height - 1, index * 2);
    if (index * 2 + 1 < width(height - 1)) walk(height - 1, index * 2 + 1);
  };
  walk(treeHeight, 0);
  const flags = new Uint8Array(Math.ceil(bits.length / 8));
  bits.forEach((bit, i) => {
    if (bit) flags[i >> 3] |= 1 << (i & 7);
  });
  const writer = new ByteWriter(80 + 4 + 9 + 32 * hashes.length + 9 + flags.length);
  writer.bytes(header80);
  writer.u32(count);
  writer.varint(hashes.length);
  for (const hash of hashes) writer.bytes(hash);
  writer.varint(flags.length);
  writer.bytes(flags);
  return writer.finish();
}
