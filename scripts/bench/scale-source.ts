/**
 * A ChainSource over a chain cached by scale-generator.ts: block hashes from index.bin, raw blocks
 * read from blocks.dat at their offsets. `limitTip` caps the height it reports (the bench indexes
 * to the first million transactions, measures reads, then lets the indexer see the rest).
 */
import fs from "node:fs";
import path from "node:path";
import type { ChainSource } from "../../src/indexer/source";
import { INDEX_RECORD_BYTES } from "./scale-generator";

export class CachedChainSource implements ChainSource {
  private readonly fd: number;
  private readonly offsets: Float64Array;
  private readonly lengths: Uint32Array;
  /** Transactions per block. */
  readonly txCounts: Uint32Array;
  readonly hashes: string[];
  private readonly heightOf = new Map<string, number>();
  private tip: number;

  constructor(dir: string) {
    const index = fs.readFileSync(path.join(dir, "index.bin"));
    if (index.length % INDEX_RECORD_BYTES !== 0)
      throw new Error(
        `${dir}/index.bin is ${index.length} bytes, not a multiple of ${INDEX_RECORD_BYTES}: regenerate the chain`,
      );
    const blocks = index.length / INDEX_RECORD_BYTES;
    this.offsets = new Float64Array(blocks);
    this.lengths = new Uint32Array(blocks);
    this.txCounts = new Uint32Array(blocks);
    this.hashes = new Array(blocks);
    for (let h = 0; h < blocks; h++) {
      const at = h * INDEX_RECORD_BYTES;
      this.offsets[h] = index.readDoubleLE(at);
      this.lengths[h] = index.readUInt32LE(at + 8);
      this.txCounts[h] = index.readUInt32LE(at + 12);
      const hash = Buffer.from(index.subarray(at + 16, at + 48))
        .reverse()
        .toString("hex");
      this.hashes[h] = hash;
      this.heightOf.set(hash, h);
    }
    this.tip = blocks - 1;
    this.fd = fs.openSync(path.join(dir, "blocks.dat"), "r");
  }

  get blockCount(): number {
    return this.hashes.length;
  }

  /** Reports at most this height as the tip (null: the whole chain). */
  limitTip(height: number | null): void {
    this.tip = height === null ? this.hashes.length - 1 : Math.min(height, this.hashes.length - 1);
  }

  /** The first height at which the chain holds at least `txs` transactions (counting from genesis). */
  heightAtTxs(txs: number): number {
    let total = 0;
    for (let h = 0; h < this.txCounts.length; h++) {
      total += this.txCounts[h];
      if (total >= txs) return h;
    }
    return this.txCounts.length - 1;
  }

  async getTipHeight(): Promise<number> {
    return this.tip;
  }

  async getBlockHash(height: number): Promise<string | null> {
    return height >= 0 && height <= this.tip ? this.hashes[height] : null;
  }

  async getRawBlock(hash: string): Promise<Uint8Array> {
    const height = this.heightOf.get(hash);
    if (height === undefined) throw new Error(`block ${hash} is not in this chain`);
    const raw = Buffer.allocUnsafe(this.lengths[height]);
    const read = fs.readSync(this.fd, raw, 0, raw.length, this.offsets[height]);
    if (read !== raw.length) throw new Error(`short read of block ${height}: ${read} of ${raw.length} bytes`);
    return raw;
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}
