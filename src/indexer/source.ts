/** Where the indexer reads blocks from: a node over RPC, or raw blocks in memory (benchmarks, tests). */
import { RPC_INVALID_PARAMETER } from "../doge/policy";

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
  constructor(
    private readonly hashes: string[],
    raws: Uint8Array[],
    private readonly firstHeight = 0,
  ) {
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

/** The subset of the dogecoind client the indexer uses (src/chain/dogecoin-rpc.ts implements it). */
export interface BlockRpc {
  getBlockCount(): Promise<number>;
  getBlockHash(height: number): Promise<string>;
  getBlockHex(hash: string): Promise<string>;
}

/** Reads blocks from dogecoind or the devnet over JSON-RPC (`getblock <hash> false` for raw blocks). */
export class RpcChainSource implements ChainSource {
  constructor(private readonly rpc: BlockRpc) {}

  async getTipHeight(): Promise<number> {
    return this.rpc.getBlockCount();
  }

  async getBlockHash(height: number): Promise<string | null> {
    try {
      return await this.rpc.getBlockHash(height);
    } catch (error) {
      // dogecoind answers -8 "Block height out of range" above its tip.
      if ((error as { code?: number }).code === RPC_INVALID_PARAMETER) return null;
      throw error;
    }
  }

  async getRawBlock(hash: string): Promise<Uint8Array> {
    return Uint8Array.from(Buffer.from(await this.rpc.getBlockHex(hash), "hex"));
  }
}
