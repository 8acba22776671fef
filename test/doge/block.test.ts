import { expect } from "chai";
import fc from "fast-check";
import {
  bytesToHex,
  hexToBytes,
  merkleRoot,
  parseBlock,
  parseHeader,
  parseTransaction,
  serializeBlock,
  serializeHeader,
  serializeTransaction,
  isAuxPowVersion,
  chainIdOf,
  bitsToTarget,
  blockWork,
  scryptPowHash,
  bytesToHexReversed,
} from "../../src/doge";
import { mainnetBlocks, rawBlockHex } from "../helpers/testdata";

describe("doge/block", () => {
  describe("parseBlock on 20 real mainnet blocks", () => {
    for (const entry of mainnetBlocks()) {
      it(`parses block ${entry.blockNumber}, matching dogecoind's hash, txids and merkle root`, () => {
        const parsed = parseBlock(hexToBytes(entry.rawBlock));
        if (!parsed.ok) throw parsed.error;
        const block = parsed.value;
        expect(block.hash).to.equal(entry.blockHash);
        expect(block.size).to.equal(entry.rawBlock.length / 2);
        expect(block.size).to.equal(entry.block.size);
        expect(block.header.version).to.equal(entry.block.version);
        expect(block.header.time).to.equal(entry.block.time);
        expect(block.header.nonce).to.equal(entry.block.nonce);
        expect(block.header.bits.toString(16).padStart(8, "0")).to.equal(entry.block.bits);
        expect(block.txs.map((tx) => tx.txid)).to.deep.equal(entry.block.tx);
        expect(merkleRoot(block.txs.map((tx) => tx.txid))).to.equal(entry.block.merkleroot);
        expect(block.header.merkleRoot).to.equal(entry.block.merkleroot);
        expect(bytesToHex(serializeHeader(block.header))).to.equal(entry.rawHeader.slice(0, 160));
      });

      it(`re-serializes block ${entry.blockNumber} byte for byte`, () => {
        const parsed = parseBlock(hexToBytes(entry.rawBlock));
        if (!parsed.ok) throw parsed.error;
        expect(bytesToHex(serializeBlock(parsed.value))).to.equal(entry.rawBlock);
      });
    }
  });

  describe("AuxPoW", () => {
    const auxBlocks = mainnetBlocks().filter((entry) => entry.block.auxpow);

    it("finds the nine merge-mined blocks by the version flag 0x100", () => {
      expect(auxBlocks.map((e) => e.blockNumber)).to.deep.equal([
        371337, 380000, 400000, 700000, 1000000, 3000000, 5000000, 5122721, 5322720,
      ]);
      for (const entry of mainnetBlocks())
        expect(isAuxPowVersion(entry.block.version)).to.equal(Boolean(entry.block.auxpow));
    });

    for (const entry of auxBlocks) {
      it(`reads the merge-mining proof of block ${entry.blockNumber} as dogecoind reports it`, () => {
        const parsed = parseBlock(hexToBytes(entry.rawBlock));
        if (!parsed.ok) throw parsed.error;
        const aux = parsed.value.auxpow!;
        const expected = entry.block.auxpow!;
        expect(aux.coinbaseTx.txid).to.equal(expected.tx.txid);
        expect(bytesToHex(serializeTransaction(aux.coinbaseTx))).to.equal(expected.tx.hex);
        expect(aux.coinbaseBranch.hashes).to.deep.equal(expected.merklebranch);
        expect(aux.coinbaseBranch.index).to.equal(expected.index);
        expect(aux.chainBranch.hashes).to.deep.equal(expected.chainmerklebranch);
        expect(aux.chainBranch.index).to.equal(expected.chainindex);
        expect(bytesToHex(serializeHeader(aux.parentHeader))).to.equal(expected.parentblock);
        expect(chainIdOf(parsed.value.header.version)).to.equal(0x62);
      });
    }

    it("proves the parent header's scrypt hash meets the target of block 371337", () => {
      const parsed = parseBlock(hexToBytes(rawBlockHex(371337)));
      if (!parsed.ok) throw parsed.error;
      const parentBytes = serializeHeader(parsed.value.auxpow!.parentHeader);
      const pow = BigInt("0x" + bytesToHexReversed(scryptPowHash(parentBytes)));
      expect(pow <= bitsToTarget(parsed.value.header.bits)).to.equal(true);
    });
  });

  describe("proof of work on a pre-AuxPoW block", () => {
    it("checks the scrypt hash of block 1 against its bits", () => {
      const entry = mainnetBlocks().find((e) => e.blockNumber === 1)!;
      const header = hexToBytes(entry.rawHeader);
      const pow = BigInt("0x" + bytesToHexReversed(scryptPowHash(header)));
      expect(pow <= bitsToTarget(0x1e0ffff0)).to.equal(true);
      expect(blockWork(0x1e0ffff0) > 0n).to.equal(true);
    });
  });

  describe("errors", () => {
    it("reports a truncated block with the offset instead of throwing", () => {
      const raw = hexToBytes(rawBlockHex(371337));
      const parsed = parseBlock(raw.subarray(0, raw.length - 10));
      expect(parsed.ok).to.equal(false);
      if (!parsed.ok) expect(parsed.error.offset).to.be.greaterThan(80);
    });

    it("reports trailing bytes", () => {
      const raw = hexToBytes(rawBlockHex(0));
      const parsed = parseBlock(Uint8Array.from([...raw, 0]));
      expect(parsed.ok).to.equal(false);
      if (!parsed.ok) expect(parsed.error.code).to.equal("TRAILING_BYTES");
    });

    it("rejects a header shorter than 80 bytes", () => {
      expect(parseHeader(new Uint8Array(79)).ok).to.equal(false);
    });

    it("never throws on arbitrary bytes", () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
          parseBlock(bytes);
          parseTransaction(bytes);
          parseHeader(bytes);
        }),
        { numRuns: 2000 },
      );
    });

    it("never throws on mutations of a real AuxPoW block", () => {
      const raw = hexToBytes(rawBlockHex(380000));
      fc.assert(
        fc.property(
          fc.nat(raw.length - 1),
          fc.integer({ min: 0, max: 255 }),
          fc.nat(raw.length),
          (position, value, cut) => {
            const mutated = Uint8Array.from(raw);
            mutated[position] = value;
            parseBlock(mutated.subarray(0, cut));
          },
        ),
        { numRuns: 1000 },
      );
    });
  });
});
