import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import fc from "fast-check";
import { bls12_381 } from "@noble/curves/bls12-381.js";
import { OP, bytesToHex, compileScript, hexToBytes } from "../../src/doge";
import {
  Groth16ShadowResult,
  OP_CHECKZKP,
  ShadowVerification,
  ShadowVerifierQueue,
  VerifyingKeyCache,
  ZkpUse,
  decodeGroth16VerifyingKey,
  decodeQedG1,
  decodeQedG2,
  extractCheckZkpUses,
  findCheckZkpInScript,
  verifyGroth16Shadow,
} from "../../src/zkp";
import vectors from "../vectors/zkp-groth16.json";
import { TESTDATA_DIR } from "../helpers/testdata";
import { asmToScript, buildTransaction } from "./helpers";

interface QedVector {
  proof: { piA_g1: string; piB_g2_part0: string; piB_g2_part1: string; piC_g1: string };
  public_inputs_le32: string[];
  vk_chunks_80: string[];
  derived_affine_coordinates_big_endian_hex: {
    A: { x: string; y: string };
    B: { x_c0: string; x_c1: string; y_c0: string; y_c1: string };
    C: { x: string; y: string };
  };
  derived_zcash_ietf_compressed_big_endian_hex: { A: string; B: string; C: string };
}

const qed = JSON.parse(
  fs.readFileSync(path.join(TESTDATA_DIR, "op-checkzkp", "qed-groth16-bls12-381-vector.json"), "utf8"),
) as QedVector;

const reversedHex = (hex: string) => bytesToHex(hexToBytes(hex).reverse());

/** The QED proof as the 8 little-endian affine coordinates of the 17-item mode-0 layout. */
function qedProofItems(): string[] {
  const { A, B, C } = qed.derived_affine_coordinates_big_endian_hex;
  return [A.x, A.y, B.x_c0, B.x_c1, B.y_c0, B.y_c1, C.x, C.y].map(reversedHex);
}

/** A mode-0 output script from hex items (16 of them), OP_0 and OP_CHECKZKP. */
function mode0Script(items: string[]): Uint8Array {
  return compileScript([...items.map(hexToBytes), OP.OP_0, OP_CHECKZKP]);
}

function useFromScript(script: Uint8Array): ZkpUse {
  const tx = buildTransaction({
    inputs: [{ script_sig_asm: "00" }],
    outputs: [{ script_asm: "0x" + bytesToHex(script) }],
  });
  const uses = extractCheckZkpUses(tx, 1);
  expect(uses).to.have.length(1);
  return uses[0];
}

/** The QED key with gamma and delta swapped (QED order: alpha, K0..K2, beta, delta, gamma). */
function qedKeyWithGammaDeltaSwapped(): string[] {
  const vk = qed.vk_chunks_80.join("");
  const swapped = vk.slice(0, 2 * 288) + vk.slice(2 * 384, 2 * 480) + vk.slice(2 * 288, 2 * 384);
  return Array.from({ length: 6 }, (_, i) => swapped.slice(160 * i, 160 * (i + 1)));
}

interface Groth16Vector {
  description: string;
  public_inputs_decimal?: string[];
  input: { script_asm: string };
  expected?: { shadow_valid: boolean; encoding: string };
  error?: { stage: "extract" | "verify"; parse_error?: string; error?: string };
}

describe("zkp/groth16", () => {
  describe("QED's vector (test/fixtures/dogecoin/op-checkzkp, from ../shared/testdata)", () => {
    const qedItems = [...qedProofItems(), ...qed.public_inputs_le32, ...qed.vk_chunks_80];

    it("decodes QED's MCL-compressed proof points to the vector's big-endian affine coordinates", () => {
      const { A, B, C } = qed.derived_affine_coordinates_big_endian_hex;
      const a = decodeQedG1(hexToBytes(qed.proof.piA_g1)).toAffine();
      const b = decodeQedG2(hexToBytes(qed.proof.piB_g2_part0 + qed.proof.piB_g2_part1)).toAffine();
      const c = decodeQedG1(hexToBytes(qed.proof.piC_g1)).toAffine();
      expect([a.x, a.y]).to.deep.equal([BigInt("0x" + A.x), BigInt("0x" + A.y)]);
      expect([b.x.c0, b.x.c1, b.y.c0, b.y.c1]).to.deep.equal(
        [B.x_c0, B.x_c1, B.y_c0, B.y_c1].map((h) => BigInt("0x" + h)),
      );
      expect([c.x, c.y]).to.deep.equal([BigInt("0x" + C.x), BigInt("0x" + C.y)]);
      // ... and to the same points as the standard compressed encodings the vector derives.
      const derived = qed.derived_zcash_ietf_compressed_big_endian_hex;
      expect(bls12_381.G1.Point.fromHex(derived.A).toAffine()).to.deep.equal(a);
      expect(bls12_381.G2.Point.fromHex(derived.B).toAffine()).to.deep.equal(b);
      expect(bls12_381.G1.Point.fromHex(derived.C).toAffine()).to.deep.equal(c);
    });

    it("verifies true under affine-le-qed (public inputs 7 and 12578496)", () => {
      const use = useFromScript(mode0Script(qedItems));
      expect(use.parse_error).to.equal(null);
      expect(verifyGroth16Shadow(use)).to.deep.equal({ shadow_valid: true, encoding: "affine-le-qed" });
    });

    it("verifies false when public input 0 is changed to 8", () => {
      const changed = [...qedItems];
      changed[8] = "08" + "00".repeat(31);
      expect(verifyGroth16Shadow(useFromScript(mode0Script(changed)))).to.deep.equal({
        shadow_valid: false,
        encoding: "affine-le-qed",
      });
    });

    it("verifies false when the public inputs are swapped", () => {
      const swapped = [...qedItems];
      [swapped[8], swapped[9]] = [qedItems[9], qedItems[8]];
      expect(verifyGroth16Shadow(useFromScript(mode0Script(swapped)))).to.deep.equal({
        shadow_valid: false,
        encoding: "affine-le-qed",
      });
    });

    it("verifies false when gamma and delta are swapped in the key", () => {
      const items = [...qedProofItems(), ...qed.public_inputs_le32, ...qedKeyWithGammaDeltaSwapped()];
      expect(verifyGroth16Shadow(useFromScript(mode0Script(items)))).to.deep.equal({
        shadow_valid: false,
        encoding: "affine-le-qed",
      });
    });

    it("does not decode the QED key as a standard compressed key (affine-be is tried first and fails)", () => {
      expect(() => decodeGroth16VerifyingKey(hexToBytes(qed.vk_chunks_80.join("")), "affine-be")).to.throw(/vk alpha/);
    });
  });

  describe("snarkjs vectors (test/vectors/zkp-groth16.json)", () => {
    const cache = new VerifyingKeyCache();
    for (const vector of vectors.valid as Groth16Vector[]) {
      it(vector.description, () => {
        const use = useFromScript(asmToScript(vector.input.script_asm));
        expect(use.parse_error).to.equal(null);
        if (vector.public_inputs_decimal) {
          expect(use.public_inputs.map((hex) => BigInt("0x" + hex).toString())).to.deep.equal(
            vector.public_inputs_decimal,
          );
        }
        expect(verifyGroth16Shadow(use, cache)).to.deep.equal(vector.expected);
      });
    }

    for (const vector of vectors.invalid as Groth16Vector[]) {
      it(`gives ${vector.error!.stage === "extract" ? "a parse_error" : "shadow_valid null"}: ${vector.description}`, () => {
        const use = useFromScript(asmToScript(vector.input.script_asm));
        if (vector.error!.stage === "extract") {
          expect(use.parse_error).to.equal(vector.error!.parse_error);
          return;
        }
        expect(use.parse_error).to.equal(null);
        const result = verifyGroth16Shadow(use, cache);
        expect(result.shadow_valid).to.equal(null);
        expect(result.encoding).to.equal(null);
        expect(result.error).to.include(vector.error!.error);
        expect(result.error).to.include("affine-le-qed: ");
      });
    }

    it("reused the parsed key: one decode per interpretation for all the proofs above", () => {
      expect(cache.size).to.be.at.least(1);
      expect(
        cache.has(useFromScript(asmToScript((vectors.valid as Groth16Vector[])[0].input.script_asm)).vk_sha256!),
      ).to.equal(true);
      expect(cache.hits).to.be.at.least((vectors.valid as Groth16Vector[]).length - 2);
    });

    it("records the vk hex the vectors were made with", () => {
      const use = useFromScript(asmToScript((vectors.valid as Groth16Vector[])[0].input.script_asm));
      expect(use.vk_hex).to.equal(vectors.vk_hex);
      expect(vectors.provenance.tools.snarkjs).to.equal("0.7.6");
    });
  });

  describe("verifyGroth16Shadow", () => {
    it("returns null with a reason for missing or non-hex fields", () => {
      expect(verifyGroth16Shadow({ proof_hex: null, vk_hex: null, public_inputs: [] })).to.deep.include({
        shadow_valid: null,
        encoding: null,
      });
      expect(verifyGroth16Shadow({ proof_hex: "zz", vk_hex: "00", public_inputs: [] }).error).to.match(/proof_hex/);
    });

    it("never throws on arbitrary proof, key and inputs of the right sizes", () => {
      const cache = new VerifyingKeyCache(4);
      fc.assert(
        fc.property(
          fc.uint8Array({ minLength: 384, maxLength: 384 }),
          fc.uint8Array({ minLength: 480, maxLength: 480 }),
          fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { minLength: 2, maxLength: 2 }),
          (proof, vk, inputs) => {
            const result = verifyGroth16Shadow(
              { proof_hex: bytesToHex(proof), vk_hex: bytesToHex(vk), public_inputs: inputs.map(bytesToHex) },
              cache,
            );
            expect(result.shadow_valid).to.equal(null);
            expect(result.error).to.be.a("string");
          },
        ),
        { numRuns: 100 },
      );
    });

    it("never throws on arbitrary hex of any size", () => {
      fc.assert(
        fc.property(
          fc.uint8Array({ maxLength: 500 }),
          fc.uint8Array({ maxLength: 500 }),
          fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 3 }),
          (proof, vk, inputs) => {
            verifyGroth16Shadow({
              proof_hex: bytesToHex(proof),
              vk_hex: bytesToHex(vk),
              public_inputs: inputs.map(bytesToHex),
            });
          },
        ),
        { numRuns: 200 },
      );
    });

    it("verifies a real proof with a cached key well under a second", () => {
      const use = useFromScript(asmToScript((vectors.valid as Groth16Vector[])[1].input.script_asm));
      const cache = new VerifyingKeyCache();
      verifyGroth16Shadow(use, cache);
      const started = performance.now();
      expect(verifyGroth16Shadow(use, cache).shadow_valid).to.equal(true);
      expect(performance.now() - started).to.be.below(1_000);
    });
  });

  describe("VerifyingKeyCache", () => {
    const vk = hexToBytes(qed.vk_chunks_80.join(""));

    it("decodes a key once per interpretation and then hits", () => {
      const cache = new VerifyingKeyCache();
      const first = cache.resolve(vk, "affine-le-qed");
      expect(cache.resolve(vk, "affine-le-qed")).to.equal(first);
      expect({ hits: cache.hits, misses: cache.misses, size: cache.size }).to.deep.equal({
        hits: 1,
        misses: 1,
        size: 1,
      });
    });

    it("caches a key that fails to decode and throws the same error again", () => {
      const cache = new VerifyingKeyCache();
      let firstError: unknown;
      try {
        cache.resolve(vk, "affine-be");
      } catch (e) {
        firstError = e;
      }
      expect(firstError).to.be.instanceOf(Error);
      expect(() => cache.resolve(vk, "affine-be"))
        .to.throw()
        .that.equals(firstError);
      expect({ hits: cache.hits, misses: cache.misses }).to.deep.equal({ hits: 1, misses: 1 });
    });

    it("evicts the least recently used key beyond its capacity", () => {
      const cache = new VerifyingKeyCache(2);
      const keys = ["aa", "bb", "cc"].map((hash) => ({ hash, bytes: hexToBytes(hash) }));
      const touch = (k: { hash: string; bytes: Uint8Array }) => {
        try {
          cache.resolve(k.bytes, "affine-be", k.hash);
        } catch {
          /* bad key, cached */
        }
      };
      touch(keys[0]);
      touch(keys[1]);
      touch(keys[0]); // aa is now the most recently used
      touch(keys[2]);
      expect([cache.has("aa"), cache.has("bb"), cache.has("cc")]).to.deep.equal([true, false, true]);
      expect(cache.size).to.equal(2);
    });

    it("refuses a capacity below 1", () => {
      expect(() => new VerifyingKeyCache(0)).to.throw(RangeError);
    });
  });

  describe("ShadowVerifierQueue", () => {
    const qedUse = () =>
      useFromScript(mode0Script([...qedProofItems(), ...qed.public_inputs_le32, ...qed.vk_chunks_80]));
    const stub = (): Groth16ShadowResult => ({ shadow_valid: true, encoding: "affine-be" });

    it("queues only mode-0 uses that parsed", () => {
      const queue = new ShadowVerifierQueue({ persist: () => undefined, verify: stub });
      const uses = [
        qedUse(),
        ...findCheckZkpInScript(asmToScript("OP_CHECKZKP")).map((found) => ({ ...qedUse(), ...found })),
        { ...qedUse(), mode: 1, mode_name: "plonk-halo2-kzg-bn256" as const },
      ];
      expect(queue.enqueue(uses)).to.equal(1);
      expect(queue.pending).to.equal(1);
    });

    it("persists results in batches and reports how many it persisted", async () => {
      const batches: number[] = [];
      const queue = new ShadowVerifierQueue({
        persist: (results) => {
          batches.push(results.length);
        },
        verify: stub,
        batchSize: 2,
      });
      queue.enqueue(Array.from({ length: 5 }, qedUse));
      expect(await queue.drain()).to.equal(5);
      expect(batches).to.deep.equal([2, 2, 1]);
      expect(queue.pending).to.equal(0);
      expect(queue.draining).to.equal(false);
    });

    it("yields to the event loop between items", async () => {
      const order: string[] = [];
      const queue = new ShadowVerifierQueue({
        persist: () => undefined,
        verify: () => {
          order.push("verify");
          return stub();
        },
        batchSize: 10,
      });
      queue.enqueue([qedUse(), qedUse(), qedUse()]);
      const drained = queue.drain();
      setImmediate(() => order.push("other work"));
      await drained;
      expect(order.indexOf("other work")).to.be.within(0, 2);
    });

    it("joins a drain already running instead of starting another", async () => {
      let persistCalls = 0;
      const queue = new ShadowVerifierQueue({
        persist: () => {
          persistCalls++;
        },
        verify: stub,
      });
      queue.enqueue([qedUse(), qedUse()]);
      const [a, b] = await Promise.all([queue.drain(), queue.drain()]);
      expect([a, b, persistCalls]).to.deep.equal([2, 2, 1]);
    });

    it("re-queues a batch whose persist throws, and rethrows", async () => {
      let fail = true;
      const persisted: ShadowVerification[] = [];
      const queue = new ShadowVerifierQueue({
        persist: async (results) => {
          if (fail) throw new Error("disk full");
          persisted.push(...results);
        },
        verify: stub,
      });
      queue.enqueue([qedUse()]);
      let caught: unknown;
      await queue.drain().catch((e: unknown) => {
        caught = e;
      });
      expect((caught as Error).message).to.equal("disk full");
      expect(queue.pending).to.equal(1);
      fail = false;
      expect(await queue.drain()).to.equal(1);
      expect(persisted).to.have.length(1);
    });

    it("verifies real proofs end to end and hands the results to persist", async () => {
      const results: ShadowVerification[] = [];
      const queue = new ShadowVerifierQueue({
        persist: (batch) => {
          results.push(...batch);
        },
      });
      const snarkjsUse = useFromScript(asmToScript((vectors.valid as Groth16Vector[])[0].input.script_asm));
      const wrongInput = useFromScript(asmToScript((vectors.valid as Groth16Vector[])[2].input.script_asm));
      queue.enqueue([qedUse(), snarkjsUse, wrongInput]);
      expect(await queue.drain()).to.equal(3);
      expect(results.map((r) => r.result)).to.deep.equal([
        { shadow_valid: true, encoding: "affine-le-qed" },
        { shadow_valid: true, encoding: "affine-be" },
        { shadow_valid: false, encoding: "affine-be" },
      ]);
      expect(results[1].use.txid).to.equal(snarkjsUse.txid);
      expect(queue.cache.hits).to.be.at.least(1); // the snarkjs key was reused for the third proof
    });

    it("refuses a batch size below 1", () => {
      expect(() => new ShadowVerifierQueue({ persist: () => undefined, batchSize: 0 })).to.throw(RangeError);
    });
  });
});
