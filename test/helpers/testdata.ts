/** Loaders for the real mainnet test data (test/fixtures/dogecoin, copied from ../shared/testdata/dogecoin). */
import fs from "node:fs";
import path from "node:path";

/**
 * A copy of ../shared/testdata/dogecoin kept in the repository (CI clones only the project);
 * test/fixtures/dogecoin/README.md records its origin and the SHA-256 of every file.
 */
export const TESTDATA_DIR = path.resolve(__dirname, "..", "fixtures", "dogecoin");

export interface MainnetBlockEntry {
  blockNumber: number;
  blockHash: string;
  block: {
    hash: string;
    height: number;
    version: number;
    merkleroot: string;
    tx: string[];
    time: number;
    nonce: number;
    bits: string;
    size: number;
    previousblockhash?: string;
    auxpow?: {
      tx: {
        hex: string;
        txid: string;
        vout: { value: number; scriptPubKey: { asm: string; hex: string; type: string; addresses?: string[] } }[];
      };
      index: number;
      chainindex: number;
      merklebranch: string[];
      chainmerklebranch: string[];
      parentblock: string;
    };
  };
  rawBlock: string;
  header: Record<string, unknown>;
  rawHeader: string;
}

let cache: MainnetBlockEntry[] | null = null;

export function mainnetBlocks(): MainnetBlockEntry[] {
  if (!cache)
    cache = JSON.parse(fs.readFileSync(path.join(TESTDATA_DIR, "mainnet-blocks.json"), "utf8")) as MainnetBlockEntry[];
  return cache;
}

export function rawBlockHex(height: number): string {
  return fs.readFileSync(path.join(TESTDATA_DIR, "raw", `block-${height}.hex`), "utf8").trim();
}
