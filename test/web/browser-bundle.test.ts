/**
 * src/doge as the pages run it: bundled with the pages' build options (BROWSER_BUILD) and run in a
 * context that has no Node Buffer and no node:crypto, it must decode real mainnet blocks to the
 * same block hashes and txids as Node does (the txids the pages show and sign over).
 */
import path from "node:path";
import vm from "node:vm";
import { expect } from "chai";
import { build } from "esbuild";
import { BROWSER_BUILD } from "../../src/services/pages/wallet-provider";
import { mainnetBlocks } from "../helpers/testdata";

const ROOT = path.resolve(__dirname, "..", "..");

interface BrowserDoge {
  blockTxids(hex: string): { hash: string; txids: string[] };
  hex(bytes: number[], start: number, end: number): string;
}

async function browserDoge(): Promise<BrowserDoge> {
  const entry = `
    import { hexToBytes, parseBlock, txidOf } from ${JSON.stringify(path.join(ROOT, "src", "doge"))};
    globalThis.blockTxids = (hex) => {
      const parsed = parseBlock(hexToBytes(hex));
      if (!parsed.ok) throw new Error(parsed.error.message);
      return { hash: parsed.value.hash, txids: parsed.value.txs.map(txidOf) };
    };
    globalThis.hex = (bytes, start, end) => Buffer.from(bytes).toString("hex", start, end);
  `;
  const result = await build({
    stdin: { contents: entry, resolveDir: ROOT, loader: "ts" },
    bundle: true,
    format: "iife",
    write: false,
    logLevel: "silent",
    ...BROWSER_BUILD,
  });
  // A browser's globals, and nothing of Node's.
  const context = vm.createContext({ TextEncoder, TextDecoder, atob, btoa, crypto: globalThis.crypto });
  vm.runInContext(result.outputFiles[0].text, context);
  expect(vm.runInContext("typeof process", context)).to.equal("undefined");
  return context as unknown as BrowserDoge;
}

describe("src/doge bundled for the pages", function () {
  this.timeout(60_000);
  let doge: BrowserDoge;
  before(async () => {
    doge = await browserDoge();
  });

  it("decodes every real mainnet block to Node's block hash and txids", () => {
    const blocks = mainnetBlocks();
    expect(blocks.length).to.be.greaterThan(0);
    for (const entry of blocks) {
      const got = doge.blockTxids(entry.rawBlock);
      expect(got.hash, `block ${entry.blockNumber}`).to.equal(entry.blockHash);
      expect(got.txids, `block ${entry.blockNumber}`).to.deep.equal(entry.block.tx);
    }
  });

  it("honours Buffer#toString's start and end, as Node's Buffer does", () => {
    const bytes = [0xde, 0xad, 0xbe, 0xef, 0x01];
    expect(doge.hex(bytes, 1, 3)).to.equal(Buffer.from(bytes).toString("hex", 1, 3));
    expect(doge.hex(bytes, 0, 5)).to.equal("deadbeef01");
  });
});
