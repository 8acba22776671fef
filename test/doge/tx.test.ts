import { expect } from "chai";
import fc from "fast-check";
import {
  bytesToHex,
  hexToBytes,
  parseBlock,
  parseTransaction,
  parseTransactionHex,
  serializeTransaction,
  txidOf,
  isCoinbase,
  Transaction,
} from "../../src/doge";
import { rawBlockHex } from "../helpers/testdata";

const txArbitrary: fc.Arbitrary<Transaction> = fc.record({
  version: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  inputs: fc.array(
    fc.record({
      prevTxid: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => bytesToHex(b)),
      vout: fc.nat({ max: 0xffffffff }),
      scriptSig: fc.uint8Array({ maxLength: 300 }),
      sequence: fc.nat({ max: 0xffffffff }),
    }),
    { minLength: 1, maxLength: 5 },
  ),
  outputs: fc.array(
    fc.record({
      value: fc.bigInt({ min: 0n, max: (1n << 63n) - 1n }),
      script: fc.uint8Array({ maxLength: 300 }),
    }),
    { maxLength: 5 },
  ),
  locktime: fc.nat({ max: 0xffffffff }),
});

describe("doge/tx", () => {
  it("round-trips every transaction of mainnet block 5,000,000 (2,749 txs)", () => {
    const block = parseBlock(hexToBytes(rawBlockHex(5000000)));
    if (!block.ok) throw block.error;
    expect(block.value.txs.length).to.equal(2749);
    for (const tx of block.value.txs) {
      const bytes = serializeTransaction(tx);
      expect(bytes.length).to.equal(tx.size);
      const again = parseTransaction(bytes);
      if (!again.ok) throw again.error;
      expect(again.value.txid).to.equal(tx.txid);
      expect(txidOf(tx)).to.equal(tx.txid);
    }
    expect(isCoinbase(block.value.txs[0])).to.equal(true);
    expect(isCoinbase(block.value.txs[1])).to.equal(false);
  });

  it("round-trips any transaction (property)", () => {
    fc.assert(
      fc.property(txArbitrary, (tx) => {
        const bytes = serializeTransaction(tx);
        const parsed = parseTransaction(bytes);
        if (!parsed.ok) throw parsed.error;
        expect(bytesToHex(serializeTransaction(parsed.value))).to.equal(bytesToHex(bytes));
        expect(parsed.value.outputs.map((o) => o.value)).to.deep.equal(tx.outputs.map((o) => o.value));
      }),
      { numRuns: 500 },
    );
  });

  it("refuses a transaction without inputs, as dogecoind's decoder does", () => {
    const parsed = parseTransactionHex("01000000" + "00" + "00" + "00000000");
    expect(parsed.ok).to.equal(false);
  });

  it("rejects bad hex, truncation and trailing bytes with a code", () => {
    const bad = parseTransactionHex("zz");
    expect(bad.ok).to.equal(false);
    const genesis = parseBlock(hexToBytes(rawBlockHex(0)));
    if (!genesis.ok) throw genesis.error;
    const raw = serializeTransaction(genesis.value.txs[0]);
    expect(parseTransaction(raw.subarray(0, raw.length - 1)).ok).to.equal(false);
    const trailing = parseTransaction(Uint8Array.from([...raw, 1]));
    expect(trailing.ok).to.equal(false);
  });
});
