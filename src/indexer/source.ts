/** Where the indexer reads blocks from: a node over RPC, or raw blocks in memory (benchmarks, tests). */

export interface ChainSource {
  /** Height of the node's best block. */
  getTipHeight(): Promise<number>;
  /** Hash of the node's active-chain block at `height`, or null above the tip. */
  getBlockHash(height: number): Promise<string | null>;
  /** Serialized block. */
  getRawBlock(hash: string): Promise<Uint8Array>;
}

/** A fixed list of serialized blocks, heights from `firstHeight`. */
export class MemoryChainSource implements ChainSource {
  private readonly byHash = new Map<string, Uint8Array>();
  constructor(private readonly hashes: string[], raws: Uint8Array[], private readonly firstHeight = 0) {
    hashes.forEach((hash, i) => this.byHash.set(hash, raws[i]));
  }

  async getTipHeight(): Promise<number> {
    return this.firstHeight + this.hashes.length - 1;
  }

  async getBlockHash(height: number): Promise<string | null> {
    return this.hashes[height - this.firstHeight] ?? null;
  }

  async getRawBlock(hash: string): Promise<Uint8Array> {
    const raw = this.byHash.get(hash);
    if (!raw) throw new Error(`block ${hash} not in this source`);
    return raw;
  }
}
