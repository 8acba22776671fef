import { expect } from "chai";
import fc from "fast-check";
import { OP, bytesToHex, compileScript, concatBytes, parseTransaction, sha256 } from "../../src/doge";
import type { DecodedTransaction } from "../../src/doge";
import {
  OP_CHECKZKP,
  ZKP_SHADOW_STATUS,
  ZkpUse,
  decodeCheckZkpOperands,
  extractCheckZkpUses,
  findCheckZkpInScript,
  mayUseCheckZkp,
  redeemScriptOf,
} from "../../src/zkp";
import vectors from "../vectors/zkp-extract.json";
import { TxSpec, asmToScript, buildTransaction, spendsP2shOf } from "./helpers";

interface ExtractVector {
  description: string;
  input: { tx: TxSpec };
  expected: Partial<ZkpUse>[];
}

const LOCATION_AND_PAYLOAD = [
  "role",
  "input_index",
  "output_index",
  "op_index",
  "mode",
  "mode_name",
  "proof_hex",
  "vk_hex",
  "vk_sha256",
  "public_inputs",
  "parse_error",
] as const;

function pick(use: ZkpUse): Partial<ZkpUse> {
  return Object.fromEntries(LOCATION_AND_PAYLOAD.map((field) => [field, use[field]])) as Partial<ZkpUse>;
}

function bytes(length: number, fill: number): Uint8Array {
  return new Uint8Array(length).fill(fill);
}

/** Mode-0 items with dummy contents: 8 coordinates, 2 inputs, 6 key chunks. */
function mode0Items(): Uint8Array[] {
  return [
    ...Array.from({ length: 8 }, (_, i) => bytes(48, 0x10 + i)),
    bytes(32, 0xa0),
    bytes(32, 0xa1),
    ...Array.from({ length: 6 }, (_, i) => bytes(80, 0xc0 + i)),
  ];
}

function txWith(scriptSigs: Uint8Array[], outputScripts: Uint8Array[]): DecodedTransaction {
  const txBytes = concatBytes(
    Uint8Array.of(1, 0, 0, 0, scriptSigs.length),
    ...scriptSigs.map((scriptSig, i) =>
      concatBytes(
        bytes(32, i + 1),
        Uint8Array.of(0, 0, 0, 0),
        varint(scriptSig.length),
        scriptSig,
        Uint8Array.of(0xff, 0xff, 0xff, 0xff),
      ),
    ),
    Uint8Array.of(outputScripts.length),
    ...outputScripts.map((script) => concatBytes(Uint8Array.of(1, 0, 0, 0, 0, 0, 0, 0), varint(script.length), script)),
    Uint8Array.of(0, 0, 0, 0),
  );
  const parsed = parseTransaction(txBytes);
  if (!parsed.ok) throw parsed.error;
  return parsed.value;
}

function varint(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >> 8);
  return Uint8Array.of(0xfe, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24);
}

describe("zkp/extract", () => {
  describe("vectors (test/vectors/zkp-extract.json)", () => {
    for (const [group, cases] of [
      ["valid", vectors.valid],
      ["invalid", vectors.invalid],
    ] as const) {
      for (const vector of cases as ExtractVector[]) {
        it(`${group}: ${vector.description}`, () => {
          const tx = buildTransaction(vector.input.tx);
          const uses = extractCheckZkpUses(tx, 5_000_123, { spendsP2sh: spendsP2shOf(vector.input.tx) });
          expect(uses.map(pick)).to.deep.equal(vector.expected);
          for (const use of uses) {
            expect(use.txid).to.equal(tx.txid);
            expect(use.block_height).to.equal(5_000_123);
            expect(use.shadow_valid).to.equal(null);
            expect(use.consensus_enforced).to.equal(false);
            expect(use.status).to.equal("shadow (not consensus-enforced)");
          }
        });
      }
    }

    it("has parse_error null exactly in the valid group", () => {
      for (const vector of vectors.valid as ExtractVector[])
        for (const use of vector.expected) expect(use.parse_error).to.equal(null);
      for (const vector of vectors.invalid as ExtractVector[]) {
        for (const use of vector.expected) expect(use.parse_error).to.be.a("string");
      }
    });
  });

  describe("extractCheckZkpUses in each role", () => {
    it("records an output use with its output_index and no input_index", () => {
      const script = compileScript([...mode0Items(), OP.OP_0, OP_CHECKZKP]);
      const [use, ...rest] = extractCheckZkpUses(
        txWith([Uint8Array.of(0x51)], [Uint8Array.of(OP.OP_RETURN), script]),
        7,
      );
      expect(rest).to.have.length(0);
      expect(use).to.include({
        role: "output",
        output_index: 1,
        input_index: null,
        op_index: 17,
        mode: 0,
        parse_error: null,
      });
      expect(use.proof_hex).to.equal(bytesToHex(concatBytes(...mode0Items().slice(0, 8))));
      expect(use.vk_hex).to.have.length(960);
      expect(use.vk_sha256).to.equal(bytesToHex(sha256(concatBytes(...mode0Items().slice(10)))));
      expect(use.public_inputs).to.deep.equal([bytesToHex(bytes(32, 0xa0)), bytesToHex(bytes(32, 0xa1))]);
    });

    it("records a scriptSig use as role input with its input_index", () => {
      const scriptSig = compileScript([...mode0Items(), OP.OP_0, OP_CHECKZKP]);
      const [use] = extractCheckZkpUses(txWith([Uint8Array.of(0x51), scriptSig], [Uint8Array.of(0x51)]), null);
      expect(use).to.include({
        role: "input",
        input_index: 1,
        output_index: null,
        op_index: 17,
        mode: 0,
        parse_error: null,
      });
      expect(use.block_height).to.equal(null);
    });

    it("reads a redeem script's operands as the scriptSig pushes followed by its own pushes", () => {
      const items = mode0Items();
      const redeem = compileScript([...items.slice(12), OP.OP_0, OP_CHECKZKP, OP.OP_DROP, OP.OP_TRUE]);
      const scriptSig = compileScript([...items.slice(0, 12), redeem]);
      const [use] = extractCheckZkpUses(txWith([scriptSig], [Uint8Array.of(0x51)]), 1);
      expect(use).to.include({
        role: "redeem_script",
        input_index: 0,
        output_index: null,
        op_index: 5,
        mode: 0,
        parse_error: null,
      });
      expect(use.vk_hex).to.equal(bytesToHex(concatBytes(...items.slice(10))));
    });

    it("does not read the last push as a redeem script when the spent output is known not to be P2SH", () => {
      const redeem = compileScript([...mode0Items(), OP.OP_0, OP_CHECKZKP]);
      const tx = txWith([compileScript([redeem])], [Uint8Array.of(0x51)]);
      expect(extractCheckZkpUses(tx, 1)).to.have.length(1);
      expect(extractCheckZkpUses(tx, 1, { spendsP2sh: () => false })).to.have.length(0);
    });

    it("records a stray use with mode null and a parse_error", () => {
      const [use] = extractCheckZkpUses(txWith([Uint8Array.of(0x51)], [Uint8Array.of(OP_CHECKZKP)]), 1);
      expect(use).to.include({
        role: "output",
        mode: null,
        mode_name: null,
        proof_hex: null,
        vk_hex: null,
        vk_sha256: null,
      });
      expect(use.parse_error).to.match(/^no operands/);
    });
  });

  describe("findCheckZkpInScript stack model", () => {
    const items = mode0Items();
    const expectedProof = bytesToHex(concatBytes(...items.slice(0, 8)));

    it("follows a redeem script that checks a hashed key chunk before the opcode (QED's P2SH pattern)", () => {
      // scriptSig: proof, vk chunk 0; redeem script: inputs, ROT DUP SHA256 <hash> EQUALVERIFY, chunks 1-5, mode.
      const redeem = compileScript([
        items[8],
        items[9],
        OP.OP_ROT,
        OP.OP_DUP,
        OP.OP_SHA256,
        sha256(items[10]),
        OP.OP_EQUALVERIFY,
        ...items.slice(11),
        OP.OP_0,
        OP_CHECKZKP,
      ]);
      const [use] = findCheckZkpInScript(redeem, [...items.slice(0, 8), items[10]]);
      expect(use.parse_error).to.equal(null);
      expect(use.proof_hex).to.equal(expectedProof);
      expect(use.vk_hex).to.equal(bytesToHex(concatBytes(...items.slice(10))));
      expect(use.public_inputs).to.deep.equal([bytesToHex(items[8]), bytesToHex(items[9])]);
    });

    it("models DROP, TOALTSTACK / FROMALTSTACK and hashes", () => {
      const script = compileScript([
        ...items.slice(0, 15),
        Uint8Array.of(0xee),
        OP.OP_DROP,
        items[15],
        OP.OP_TOALTSTACK,
        OP.OP_FROMALTSTACK,
        OP.OP_0,
        OP_CHECKZKP,
      ]);
      expect(findCheckZkpInScript(script)[0].parse_error).to.equal(null);
      const hashed = findCheckZkpInScript(compileScript([Uint8Array.of(1, 2), OP.OP_HASH160, OP_CHECKZKP]))[0];
      expect(hashed.parse_error).to.equal("top stack item is not a mode number (20-byte item)");
    });

    it("starts again from an empty stack after an operation it does not model", () => {
      const script = compileScript([...items, OP.OP_0, OP.OP_CHECKSIG, OP.OP_0, OP_CHECKZKP]);
      expect(findCheckZkpInScript(script)[0].parse_error).to.equal("mode 0: expected 17 stack items, found 1");
    });

    it("starts again when an operation reaches below the known items", () => {
      const script = compileScript([OP.OP_2DROP, Uint8Array.of(0xaa, 0xbb, 0xcc, 0xdd, 0xee), OP_CHECKZKP]);
      expect(findCheckZkpInScript(script)[0].parse_error).to.equal("top stack item is not a mode number (5-byte item)");
    });
  });

  describe("decodeCheckZkpOperands", () => {
    it("reads the mode from the top item as a script number", () => {
      expect(decodeCheckZkpOperands([new Uint8Array(0)]).mode).to.equal(0);
      expect(decodeCheckZkpOperands([Uint8Array.of(1)]).mode).to.equal(1);
      expect(decodeCheckZkpOperands([Uint8Array.of(16)]).mode).to.equal(16);
      expect(Object.is(decodeCheckZkpOperands([Uint8Array.of(0x80)]).mode, 0)).to.equal(true); // negative zero
      expect(decodeCheckZkpOperands([Uint8Array.of(1, 2, 3, 4)]).mode).to.equal(0x04030201);
      expect(decodeCheckZkpOperands([Uint8Array.of(1, 2, 3, 4, 5)]).mode).to.equal(null);
    });

    it("reads OP_1NEGATE and OP_1..OP_16 pushes as their numbers", () => {
      expect(findCheckZkpInScript(Uint8Array.of(OP.OP_1NEGATE, OP_CHECKZKP))[0].mode).to.equal(-1);
      expect(findCheckZkpInScript(Uint8Array.of(OP.OP_16, OP_CHECKZKP))[0].mode).to.equal(16);
    });

    it("takes the top 17 items in mode 0, ignoring items below them", () => {
      const decoded = decodeCheckZkpOperands([bytes(71, 0x30), ...mode0Items(), new Uint8Array(0)]);
      expect(decoded.parse_error).to.equal(null);
      expect(decoded.proof_hex).to.equal(bytesToHex(concatBytes(...mode0Items().slice(0, 8))));
    });

    it("decodes any mode-0 stack of the right sizes, whatever the bytes", () => {
      fc.assert(
        fc.property(
          fc.array(fc.uint8Array({ minLength: 48, maxLength: 48 }), { minLength: 8, maxLength: 8 }),
          fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { minLength: 2, maxLength: 2 }),
          fc.array(fc.uint8Array({ minLength: 80, maxLength: 80 }), { minLength: 6, maxLength: 6 }),
          (proof, inputs, key) => {
            const script = compileScript([...proof, ...inputs, ...key, OP.OP_0, OP_CHECKZKP]);
            const [use] = findCheckZkpInScript(script);
            expect(use.parse_error).to.equal(null);
            expect(use.proof_hex).to.equal(bytesToHex(concatBytes(...proof)));
            expect(use.vk_hex).to.equal(bytesToHex(concatBytes(...key)));
            expect(use.public_inputs).to.deep.equal(inputs.map(bytesToHex));
          },
        ),
        { numRuns: 100 },
      );
    });

    it("decodes any mode-1 layout within the limits and stores the chunks raw", () => {
      const chunked = (data: Uint8Array): Uint8Array[] => {
        const chunks: Uint8Array[] = [];
        for (let i = 0; i < data.length; i += 80) chunks.push(data.subarray(i, i + 80));
        return chunks;
      };
      const le32 = (n: number) => Uint8Array.of(n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24);
      fc.assert(
        fc.property(
          fc.uint8Array({ minLength: 1, maxLength: 4096 }),
          fc.uint8Array({ minLength: 1, maxLength: 8192 }),
          fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { maxLength: 64 }),
          (proof, key, inputs) => {
            const decoded = decodeCheckZkpOperands([
              le32(proof.length),
              ...chunked(proof),
              le32(key.length),
              ...chunked(key),
              ...inputs,
              Uint8Array.of(1),
            ]);
            expect(decoded.parse_error).to.equal(null);
            expect(decoded.mode_name).to.equal("plonk-halo2-kzg-bn256");
            expect(decoded.proof_hex).to.equal(bytesToHex(proof));
            expect(decoded.vk_hex).to.equal(bytesToHex(key));
            expect(decoded.public_inputs).to.deep.equal(inputs.map(bytesToHex));
          },
        ),
        { numRuns: 50 },
      );
    });
  });

  describe("never throws", () => {
    // Bytes weighted towards the opcodes that matter here, so the properties reach the decoders.
    const interestingByte = fc.oneof(
      { weight: 3, arbitrary: fc.integer({ min: 0, max: 255 }) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(OP_CHECKZKP, OP.OP_0, OP.OP_1, OP.OP_2, OP.OP_1NEGATE, OP.OP_NOP, OP.OP_DROP),
      },
      { weight: 1, arbitrary: fc.constantFrom(0x04, 0x20, 0x30, 0x4c, 0x4d, 0x4e) },
    );
    const scriptBytes = fc.array(interestingByte, { maxLength: 600 }).map((a) => Uint8Array.from(a));
    const pushList = fc.array(
      fc.oneof(
        fc.constantFrom(48, 32, 80, 4, 20, 0).chain((n) => fc.uint8Array({ minLength: n, maxLength: n })),
        fc.uint8Array({ maxLength: 100 }),
      ),
      { maxLength: 25 },
    );

    it("findCheckZkpInScript never throws on arbitrary bytes", () => {
      fc.assert(
        fc.property(scriptBytes, fc.array(fc.uint8Array({ maxLength: 90 }), { maxLength: 20 }), (script, below) => {
          const uses = findCheckZkpInScript(script, below);
          for (const use of uses) expect(use.parse_error === null).to.equal(use.proof_hex !== null);
        }),
        { numRuns: 2000 },
      );
    });

    it("never throws on scripts built from plausible pushes and a mode", () => {
      fc.assert(
        fc.property(pushList, fc.constantFrom(OP.OP_0, OP.OP_1, OP.OP_3), (pushes, mode) => {
          const script = compileScript([...pushes, mode, OP_CHECKZKP]);
          expect(findCheckZkpInScript(script)).to.have.length(1);
        }),
        { numRuns: 1000 },
      );
    });

    it("extractCheckZkpUses never throws on transactions with arbitrary scripts", () => {
      fc.assert(
        fc.property(
          fc.array(scriptBytes, { minLength: 1, maxLength: 4 }),
          fc.array(scriptBytes, { minLength: 1, maxLength: 4 }),
          fc.option(fc.boolean(), { nil: undefined }),
          (scriptSigs, outputs, spendsP2sh) => {
            const tx = txWith(scriptSigs, outputs);
            for (const use of extractCheckZkpUses(tx, 1, { spendsP2sh: () => spendsP2sh })) {
              expect(use.status).to.equal(ZKP_SHADOW_STATUS);
              expect(use.consensus_enforced).to.equal(false);
              expect(use.shadow_valid).to.equal(null);
            }
          },
        ),
        { numRuns: 1000 },
      );
    });

    it("mayUseCheckZkp (the indexer's pre-filter) is false only for transactions with no use, whatever spendsP2sh says", () => {
      // Scripts built from pushes around stray OP_CHECKZKP bytes, and a redeem script as the last push.
      const part = fc.oneof(
        interestingByte.map((b) => Uint8Array.of(b)),
        pushList.map((pushes) => compileScript(pushes)),
      );
      const script = fc.array(part, { maxLength: 8 }).map((parts) => concatBytes(...parts));
      const withRedeem = fc.tuple(script, script).map(([below, redeem]) => concatBytes(below, compileScript([redeem])));
      let filtered = 0;
      let used = 0;
      fc.assert(
        fc.property(
          fc.array(fc.oneof(scriptBytes, script, withRedeem), { minLength: 1, maxLength: 3 }),
          fc.array(fc.oneof(scriptBytes, script), { minLength: 1, maxLength: 3 }),
          fc.option(fc.boolean(), { nil: undefined }),
          (scriptSigs, outputs, spendsP2sh) => {
            const tx = txWith(scriptSigs, outputs);
            const uses = extractCheckZkpUses(tx, 1, { spendsP2sh: () => spendsP2sh });
            if (!mayUseCheckZkp(tx)) {
              expect(uses).to.deep.equal([]);
              if ([...scriptSigs, ...outputs].some((s) => s.includes(OP_CHECKZKP))) filtered += 1;
            }
            if (uses.length > 0) used += 1;
          },
        ),
        { numRuns: 2000 },
      );
      // The property reached both sides: byte-only candidates filtered out, and real uses kept.
      expect(filtered).to.be.greaterThan(50);
      expect(used).to.be.greaterThan(50);
    });

    it("extractCheckZkpUses never throws on whatever arbitrary bytes parse as a transaction", () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 400 }), (data) => {
          // Prefix a valid header so a good share of inputs get past the input count.
          for (const candidate of [data, concatBytes(Uint8Array.of(1, 0, 0, 0, 1), bytes(36, 0), data)]) {
            const parsed = parseTransaction(candidate);
            if (parsed.ok) extractCheckZkpUses(parsed.value, 0);
          }
        }),
        { numRuns: 2000 },
      );
    });

    it("redeemScriptOf never throws and returns null for scriptSigs that are not push-only", () => {
      fc.assert(
        fc.property(scriptBytes, fc.option(fc.boolean(), { nil: undefined }), (scriptSig, spendsP2sh) => {
          const redeem = redeemScriptOf(scriptSig, spendsP2sh);
          if (redeem && spendsP2sh === false) expect.fail("a known non-P2SH spend has no redeem script");
        }),
        { numRuns: 1000 },
      );
    });

    it("redeemScriptOf asks a function form only when the scriptSig could hold the redeem script wanted", () => {
      fc.assert(
        fc.property(scriptBytes, fc.option(fc.boolean(), { nil: undefined }), (scriptSig, spendsP2sh) => {
          let asked = 0;
          const ask = () => {
            asked += 1;
            return spendsP2sh;
          };
          expect(redeemScriptOf(scriptSig, ask)).to.deep.equal(redeemScriptOf(scriptSig, spendsP2sh));
          asked = 0;
          const holding = redeemScriptOf(scriptSig, ask, OP_CHECKZKP);
          const plain = redeemScriptOf(scriptSig, spendsP2sh);
          expect(holding).to.deep.equal(plain && plain.redeemScript.includes(OP_CHECKZKP) ? plain : null);
          const last = redeemScriptOf(scriptSig, true);
          if (!last || !last.redeemScript.includes(OP_CHECKZKP)) expect(asked).to.equal(0);
        }),
        { numRuns: 1000 },
      );
      // A P2PKH spend whose signature holds the byte: its public key does not, so nothing is asked.
      const signature = new Uint8Array(71).fill(0x30);
      signature[10] = OP_CHECKZKP;
      const pubkey = new Uint8Array(33).fill(0x02);
      const scriptSig = Uint8Array.of(71, ...signature, 33, ...pubkey);
      let asked = false;
      const answer = () => {
        asked = true;
        return true;
      };
      expect(redeemScriptOf(scriptSig, answer, OP_CHECKZKP)).to.equal(null);
      expect(asked).to.equal(false);
    });

    it("stays linear on a large script full of uses", () => {
      // 200,000 uses, each of which would otherwise re-read every push before it.
      const script = new Uint8Array(400_000);
      for (let i = 0; i < script.length; i += 2) script[i + 1] = OP_CHECKZKP;
      const started = Date.now();
      const uses = findCheckZkpInScript(script);
      expect(uses).to.have.length(200_000);
      expect(uses[15].parse_error).to.equal("mode 0: expected 17 stack items, found 16");
      expect(uses[16].parse_error).to.equal("mode 0: item 1 (proof A.x) is 0 bytes, expected 48");
      expect(Date.now() - started).to.be.below(5_000);
    });

    it("stays fast when a script hashes and compares items over and over", () => {
      // A 521-byte push fails the script (and is not modelled), so hashes only ever read small items.
      const big = compileScript([new Uint8Array(521)]);
      const small = compileScript([new Uint8Array(520)]);
      const rounds = new Uint8Array(300_000);
      for (let i = 0; i < rounds.length; i += 3) rounds.set([OP.OP_DUP, OP.OP_SHA256, OP.OP_DROP], i);
      const started = Date.now();
      for (const head of [big, small]) {
        const [use] = findCheckZkpInScript(concatBytes(head, rounds, Uint8Array.of(OP_CHECKZKP)));
        expect(use.parse_error).to.equal(
          head === big
            ? "no operands: OP_CHECKZKP (OP_NOP10) without a mode push before it"
            : "top stack item is not a mode number (520-byte item)",
        );
      }
      expect(Date.now() - started).to.be.below(10_000);
    });

    it("reads 0xb9 from ASM as OP_CHECKZKP (helper check)", () => {
      expect(asmToScript("OP_0 OP_CHECKZKP")).to.deep.equal(Uint8Array.of(0, 0xb9));
    });
  });
});
