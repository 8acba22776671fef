import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import fc from "fast-check";
import hre, { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { bytesToHex, hexToBytes } from "../../src/doge";
import { ENVELOPE_CHUNK_BYTES, MAX_SCRIPT_ELEMENT_BYTES, encodeEnvelope, envelopeHash } from "../../src/inscription";

/** True under `npx hardhat coverage`, whose instrumented contracts spend more gas. */
const underCoverage = () =>
  (hre as unknown as { __SOLIDITY_COVERAGE_RUNNING?: boolean }).__SOLIDITY_COVERAGE_RUNNING === true;

interface EnvelopeInput {
  contentType: string;
  action: string | null;
  bodyHex: string;
}
interface EnvelopeExpected {
  scriptHex: string;
  scriptLength: number;
  envelopeHash: string;
}
interface EnvelopeVectors {
  valid: { description: string; input: EnvelopeInput; expected: EnvelopeExpected }[];
  invalid: { description: string; input: EnvelopeInput; error: string }[];
}

const vectors = JSON.parse(
  fs.readFileSync(path.join(__dirname, "..", "vectors", "envelope.json"), "utf8"),
) as EnvelopeVectors;

const utf8Length = (text: string) => Buffer.byteLength(text, "utf8");
const hex0x = (bytes: Uint8Array) => `0x${bytesToHex(bytes)}`;

/**
 * Gas ceilings of EnvelopeLib.hash itself (measured inside the call: no 21,000 base, no calldata,
 * which dominate an external call: about 27,900 and 84,700 gas for these two payloads).
 */
const GAS_CEILING_LIB_HASH_78_BYTES = 3_000;
const GAS_CEILING_LIB_HASH_1500_BYTES = 5_500;

async function deployEnvelopeFixture() {
  const helper = await ethers.deployContract("EnvelopeHelper");
  const harness = await ethers.deployContract("EnvelopeLibHarness");
  return { helper, harness };
}

describe("contracts/EnvelopeHelper", () => {
  describe("encodeEnvelope and envelopeHash on test/vectors/envelope.json", () => {
    for (const vector of vectors.valid) {
      it(`produces the vector's bytes and hash for ${vector.description}`, async () => {
        const { helper, harness } = await loadFixture(deployEnvelopeFixture);
        const { contentType, bodyHex } = vector.input;
        const action = vector.input.action ?? "";
        const payload = `0x${bodyHex}`;
        expect(await helper.encodeEnvelope(contentType, action, payload)).to.equal(`0x${vector.expected.scriptHex}`);
        expect(await helper.envelopeHash(contentType, action, payload)).to.equal(`0x${vector.expected.envelopeHash}`);
        const length = await harness.encodedLength(
          ethers.toUtf8Bytes(contentType),
          ethers.toUtf8Bytes(action),
          payload,
        );
        expect(length).to.equal(BigInt(vector.expected.scriptLength));
      });
    }

    for (const vector of vectors.invalid) {
      const title =
        vector.error === "EMPTY_ACTION"
          ? `writes no ACTION push for ${vector.description}, where the codec throws EMPTY_ACTION`
          : `reverts on ${vector.description} where the codec throws ${vector.error}`;
      it(title, async () => {
        const { helper } = await loadFixture(deployEnvelopeFixture);
        const { contentType, bodyHex } = vector.input;
        const action = vector.input.action ?? "";
        const payload = `0x${bodyHex}`;
        for (const method of ["encodeEnvelope", "envelopeHash"] as const) {
          const call = helper.getFunction(method);
          switch (vector.error) {
            case "EMPTY_CONTENT_TYPE":
            case "CONTENT_TYPE_TOO_LONG":
              await expect(call(contentType, action, payload))
                .to.be.revertedWithCustomError(helper, "EnvelopeContentTypeLengthInvalid")
                .withArgs(BigInt(utf8Length(contentType)), 1n, BigInt(MAX_SCRIPT_ELEMENT_BYTES));
              break;
            case "ACTION_TOO_LONG":
              await expect(call(contentType, action, payload))
                .to.be.revertedWithCustomError(helper, "EnvelopeActionTooLong")
                .withArgs(BigInt(utf8Length(action)), BigInt(MAX_SCRIPT_ELEMENT_BYTES));
              break;
            case "EMPTY_ACTION": {
              // Solidity has no null string: "" means "no ACTION", so the helper cannot write the
              // empty ACTION push the codec refuses; it writes the envelope without ACTION instead.
              const withoutAction = { contentType, action: null, body: hexToBytes(bodyHex) };
              const expected =
                method === "encodeEnvelope" ? hex0x(encodeEnvelope(withoutAction)) : `0x${envelopeHash(withoutAction)}`;
              expect(await call(contentType, action, payload)).to.equal(expected);
              break;
            }
            default:
              expect.fail(`no Solidity counterpart for codec error ${vector.error}`);
          }
        }
      });
    }

    it("covers every error code the vector file names", () => {
      const codes = new Set(vectors.invalid.map((vector) => vector.error));
      expect([...codes].sort()).to.deep.equal([
        "ACTION_TOO_LONG",
        "CONTENT_TYPE_TOO_LONG",
        "EMPTY_ACTION",
        "EMPTY_CONTENT_TYPE",
      ]);
    });
  });

  describe("encodeEnvelope", () => {
    it("accepts a content type and an ACTION of exactly 520 bytes (OP_PUSHDATA2)", async () => {
      const { helper } = await loadFixture(deployEnvelopeFixture);
      const contentType = "t".repeat(MAX_SCRIPT_ELEMENT_BYTES);
      const action = "A".repeat(MAX_SCRIPT_ELEMENT_BYTES);
      const body = Uint8Array.of(1, 2, 3);
      expect(await helper.encodeEnvelope(contentType, action, body)).to.equal(
        hex0x(encodeEnvelope({ contentType, action, body })),
      );
    });

    it("leaves the free memory pointer past the envelope, so later allocations do not overwrite it", async () => {
      const { harness } = await loadFixture(deployEnvelopeFixture);
      const contentType = ethers.toUtf8Bytes("image/png");
      const body = new Uint8Array(ENVELOPE_CHUNK_BYTES + 37).fill(0x61);
      const expected = hex0x(encodeEnvelope({ contentType: "image/png", action: "LIST", body }));
      const [script, scriptAfterAllocation] = await harness.encodeThenAllocate(
        contentType,
        ethers.toUtf8Bytes("LIST"),
        body,
      );
      expect(script).to.equal(expected);
      expect(scriptAfterAllocation).to.equal(expected);
    });

    it("produces the same bytes as the TypeScript encodeEnvelope for random content types, ACTIONs and payloads", async () => {
      const { helper } = await loadFixture(deployEnvelopeFixture);
      const text = (maxLength: number) =>
        fc.oneof(
          fc.string({ unit: "binary", minLength: 1, maxLength }),
          // one-byte values that take the OP_1..OP_16 / OP_1NEGATE-adjacent paths
          fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)),
          fc.integer({ min: 60, max: 300 }).map((length) => "x".repeat(length)),
        );
      const payload = fc.oneof(
        fc.uint8Array({ maxLength: 3000 }),
        // a last chunk of one byte, which may become OP_1..OP_16 or OP_1NEGATE
        fc
          .tuple(fc.integer({ min: 0, max: 5 }), fc.constantFrom(0, 1, 7, 16, 17, 0x80, 0x81, 0xff))
          .map(([fullChunks, last]) =>
            Uint8Array.from([...new Uint8Array(fullChunks * ENVELOPE_CHUNK_BYTES).fill(0x5a), last]),
          ),
      );
      await fc.assert(
        fc.asyncProperty(text(80), fc.option(text(80), { nil: null }), payload, async (contentType, action, body) => {
          const expected = encodeEnvelope({ contentType, action, body });
          expect(await helper.encodeEnvelope(contentType, action ?? "", body)).to.equal(hex0x(expected));
          expect(await helper.envelopeHash(contentType, action ?? "", body)).to.equal(
            `0x${envelopeHash({ contentType, action, body })}`,
          );
        }),
        { numRuns: 50 },
      );
    });
  });

  describe("gas", () => {
    it("keeps EnvelopeLib.hash of a 78-byte launchpad mint and of a 1500-byte payload under their ceilings", async function (this: Mocha.Context) {
      if (underCoverage()) this.skip(); // instrumented bytecode costs more gas
      const { harness } = await loadFixture(deployEnvelopeFixture);
      const mint = vectors.valid.find((vector) => vector.input.action === "LAUNCHPAD_MINT")!;
      const utf8 = ethers.toUtf8Bytes;
      const [, small] = await harness.hashGas(
        utf8(mint.input.contentType),
        utf8("LAUNCHPAD_MINT"),
        `0x${mint.input.bodyHex}`,
      );
      const [, large] = await harness.hashGas(
        utf8("application/pdf"),
        utf8("TOKENIZE"),
        new Uint8Array(1500).fill(0x61),
      );
      expect(small).to.be.lessThan(BigInt(GAS_CEILING_LIB_HASH_78_BYTES));
      expect(large).to.be.lessThan(BigInt(GAS_CEILING_LIB_HASH_1500_BYTES));
    });
  });
});
