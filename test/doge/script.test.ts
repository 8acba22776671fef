import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import fc from "fast-check";
import {
  NETWORKS,
  NetworkName,
  OP,
  ScriptChunk,
  ScriptElement,
  bytesToHex,
  classifyOutputScript,
  compileScript,
  decodeScriptNum,
  encodeAddress,
  encodePush,
  encodeScriptNum,
  hash160,
  hexToBytes,
  isMinimalPush,
  isPushOnly,
  outputScriptToAddress,
  parseScript,
  scriptToAsm,
} from "../../src/doge";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const bitcore = require("bitcore-lib-doge");

interface ScriptVector {
  description: string;
  source: string;
  input: { hex?: string; decodeSighash?: boolean; network?: NetworkName; scriptNumber?: number };
  expected: {
    asm?: string;
    type?: string;
    required?: number;
    address?: string | null;
    keyAddresses?: string[];
    minimal?: boolean;
    hex?: string;
  };
}

interface MalformedScriptVector {
  description: string;
  source: string;
  input: { hex: string };
  error: "MALFORMED_PUSH";
  offset: number;
  asm: string;
  type: string;
}

const vectors = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "vectors", "script.json"), "utf8")) as {
  valid: ScriptVector[];
  invalid: MalformedScriptVector[];
};

/** The element list that rebuilds a parsed script: data for pushes, the opcode otherwise. */
function elementsOf(chunks: readonly ScriptChunk[]): ScriptElement[] {
  return chunks.map((chunk) => chunk.data ?? chunk.opcode);
}

/** Push with a chosen encoding, minimal or not (test-side reference encoder). */
function pushWith(encoding: "direct" | "pushdata1" | "pushdata2" | "pushdata4", data: Uint8Array): Uint8Array {
  const n = data.length;
  const header =
    encoding === "direct"
      ? [n]
      : encoding === "pushdata1"
        ? [OP.OP_PUSHDATA1, n]
        : encoding === "pushdata2"
          ? [OP.OP_PUSHDATA2, n & 0xff, n >> 8]
          : [OP.OP_PUSHDATA4, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24];
  return Uint8Array.from([...header, ...data]);
}

/** The length a push chunk declares, read straight from the script bytes (null when its length prefix is cut). */
function declaredLength(script: Uint8Array, start: number): number | null {
  const opcode = script[start];
  if (opcode < OP.OP_PUSHDATA1) return opcode;
  const width = opcode === OP.OP_PUSHDATA1 ? 1 : opcode === OP.OP_PUSHDATA2 ? 2 : 4;
  if (start + 1 + width > script.length) return null;
  let length = 0;
  for (let i = width - 1; i >= 0; i--) length = length * 256 + script[start + 1 + i];
  return length;
}

const pushData = fc.oneof(
  fc.uint8Array({ maxLength: 80 }),
  fc.uint8Array({ minLength: 1, maxLength: 1 }),
  fc.uint8Array({ minLength: 74, maxLength: 77 }),
  fc.uint8Array({ minLength: 254, maxLength: 257 }),
);
const nonPushOpcode = fc.integer({ min: OP.OP_1NEGATE, max: 0xff });
const scriptElements = fc.array(fc.oneof(nonPushOpcode, pushData), { maxLength: 12 });

describe("doge/script", () => {
  describe("scriptToAsm, classifyOutputScript and outputScriptToAddress", () => {
    for (const vector of vectors.valid.filter((v) => v.input.hex !== undefined)) {
      it(`matches the vector "${vector.description}"`, () => {
        const script = hexToBytes(vector.input.hex!);
        const parsed = parseScript(script);
        expect(parsed.malformed).to.equal(false);
        const { expected } = vector;
        if (expected.asm !== undefined)
          expect(scriptToAsm(script, vector.input.decodeSighash ?? false)).to.equal(expected.asm);
        const classified = classifyOutputScript(script);
        if (expected.type !== undefined) expect(classified.type).to.equal(expected.type);
        if (expected.required !== undefined) expect(classified.required).to.equal(expected.required);
        if (expected.address !== undefined && vector.input.network) {
          expect(outputScriptToAddress(script, NETWORKS[vector.input.network])).to.equal(expected.address);
        }
        if (expected.keyAddresses) {
          const network = NETWORKS[vector.input.network ?? "mainnet"];
          expect(classified.pubkeys!.map((key) => encodeAddress(hash160(key), "pubkeyhash", network))).to.deep.equal(
            expected.keyAddresses,
          );
        }
        if (expected.minimal !== undefined) {
          expect(parsed.chunks.every(isMinimalPush)).to.equal(expected.minimal);
          if (expected.minimal) expect(bytesToHex(compileScript(elementsOf(parsed.chunks)))).to.equal(vector.input.hex);
        }
      });
    }
  });

  describe("parseScript", () => {
    for (const vector of vectors.invalid) {
      it(`flags the malformed push in "${vector.description}" at byte ${vector.offset} instead of throwing`, () => {
        const script = hexToBytes(vector.input.hex);
        const parsed = parseScript(script);
        expect(parsed.malformed).to.equal(true);
        expect(parsed.errorOffset).to.equal(vector.offset);
        expect(parsed.chunks[parsed.chunks.length - 1].malformed).to.equal(true);
        expect(isPushOnly(parsed)).to.equal(false);
        expect(scriptToAsm(script)).to.equal(vector.asm);
        expect(classifyOutputScript(script).type).to.equal(vector.type);
      });
    }

    it("never throws on arbitrary bytes, and its chunks tile the script up to the first push that runs past the end", () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 400 }), (script) => {
          const parsed = parseScript(script);
          const problems: string[] = [];
          let offset = 0;
          parsed.chunks.forEach((chunk, i) => {
            if (chunk.start !== offset || chunk.opcode !== script[chunk.start])
              problems.push(`chunk ${i} does not start at ${offset}`);
            if (chunk.opcode > OP.OP_PUSHDATA4) {
              if (chunk.end !== chunk.start + 1) problems.push(`opcode chunk ${i} is not one byte`);
            } else if (chunk.malformed) {
              const declared = declaredLength(script, chunk.start);
              if (i !== parsed.chunks.length - 1) problems.push(`malformed chunk ${i} is not the last`);
              if (!(declared === null || declared > chunk.data!.length))
                problems.push(`chunk ${i} fits but is flagged`);
              if (chunk.end !== script.length) problems.push(`malformed chunk ${i} does not reach the end`);
            } else if (chunk.data!.length !== declaredLength(script, chunk.start)) {
              problems.push(`push ${i} has ${chunk.data!.length} bytes, not the declared length`);
            }
            offset = chunk.end;
          });
          if (offset !== script.length) problems.push(`chunks end at ${offset} of ${script.length}`);
          if (parsed.malformed !== parsed.chunks.some((chunk) => chunk.malformed === true))
            problems.push("malformed flag disagrees");
          if (parsed.malformed && parsed.errorOffset !== parsed.chunks[parsed.chunks.length - 1].start)
            problems.push("errorOffset");
          expect(problems).to.deep.equal([]);
        }),
        { numRuns: 1000 },
      );
    });

    it("flags every script cut inside a push as malformed at that push", () => {
      fc.assert(
        fc.property(scriptElements, fc.nat(), (elements, pick) => {
          const script = compileScript(elements);
          const chunks = parseScript(script).chunks.filter((chunk) => chunk.data && chunk.data.length > 0);
          fc.pre(chunks.length > 0);
          const chunk = chunks[pick % chunks.length];
          const cut = chunk.start + 1 + (pick % (chunk.end - chunk.start - 1));
          const parsed = parseScript(script.subarray(0, cut));
          expect(parsed.malformed).to.equal(true);
          expect(parsed.errorOffset).to.equal(chunk.start);
          expect(scriptToAsm(script.subarray(0, cut)).endsWith("[error]")).to.equal(true);
        }),
        { numRuns: 300 },
      );
    });
  });

  describe("compileScript", () => {
    it("round-trips through parseScript for any opcodes and pushes, with every push minimal", () => {
      fc.assert(
        fc.property(scriptElements, (elements) => {
          const script = compileScript(elements);
          const parsed = parseScript(script);
          expect(parsed.malformed).to.equal(false);
          expect(parsed.chunks.every(isMinimalPush)).to.equal(true);
          expect(bytesToHex(compileScript(elementsOf(parsed.chunks)))).to.equal(bytesToHex(script));
          // Each element comes back: data as data, except the pushes that have an opcode of their own.
          expect(parsed.chunks.length).to.equal(elements.length);
          parsed.chunks.forEach((chunk, i) => {
            const element = elements[i];
            if (typeof element === "number") {
              expect(chunk.opcode).to.equal(element);
            } else if (element.length === 1 && element[0] >= 1 && element[0] <= 16) {
              expect(chunk.opcode).to.equal(OP.OP_1 + element[0] - 1);
            } else if (element.length === 1 && element[0] === 0x81) {
              expect(chunk.opcode).to.equal(OP.OP_1NEGATE);
            } else {
              expect(bytesToHex(chunk.data!)).to.equal(bytesToHex(element));
            }
          });
        }),
        { numRuns: 300 },
      );
    });

    it("produces the same bytes as bitcore-lib-doge's Script.add for the same pushes", () => {
      fc.assert(
        fc.property(
          fc.array(
            pushData.filter((d) => d.length > 1),
            { maxLength: 6 },
          ),
          (pushes) => {
            const theirs = new bitcore.Script();
            for (const data of pushes) theirs.add(Buffer.from(data));
            expect(bytesToHex(compileScript(pushes))).to.equal(theirs.toBuffer().toString("hex"));
          },
        ),
        { numRuns: 200 },
      );
    });
  });

  describe("isMinimalPush", () => {
    it("accepts the encoding encodePush chooses for any data", () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 300 }), (data) => {
          const [chunk] = parseScript(encodePush(data)).chunks;
          expect(isMinimalPush(chunk)).to.equal(true);
        }),
        { numRuns: 500 },
      );
    });

    it("rejects a wider length prefix than the data needs", () => {
      fc.assert(
        fc.property(fc.uint8Array({ minLength: 2, maxLength: 300 }), (data) => {
          const wider: ("pushdata1" | "pushdata2" | "pushdata4")[] =
            data.length <= 75
              ? ["pushdata1", "pushdata2", "pushdata4"]
              : data.length <= 255
                ? ["pushdata2", "pushdata4"]
                : ["pushdata4"];
          for (const encoding of wider) {
            const [chunk] = parseScript(pushWith(encoding, data)).chunks;
            expect(chunk.encoding).to.equal(encoding);
            expect(isMinimalPush(chunk), encoding).to.equal(false);
          }
        }),
        { numRuns: 300 },
      );
    });

    it("rejects a direct push of a value that has its own opcode (1..16, 0x81)", () => {
      for (const value of [...Array.from({ length: 16 }, (_, i) => i + 1), 0x81]) {
        const [chunk] = parseScript(Uint8Array.of(1, value)).chunks;
        expect(isMinimalPush(chunk), `0x${value.toString(16)}`).to.equal(false);
      }
      const [zero] = parseScript(Uint8Array.of(1, 0)).chunks;
      expect(isMinimalPush(zero)).to.equal(true);
    });
  });

  describe("script numbers", () => {
    for (const vector of vectors.valid.filter((v) => v.input.scriptNumber !== undefined)) {
      it(`encodes ${vector.input.scriptNumber} as "${vector.expected.hex}" and decodes it back: ${vector.description}`, () => {
        const n = vector.input.scriptNumber!;
        expect(bytesToHex(encodeScriptNum(n))).to.equal(vector.expected.hex);
        expect(decodeScriptNum(hexToBytes(vector.expected.hex!), 5)).to.equal(n);
      });
    }

    it("round-trips every 5-byte script number and encodes it as bitcore-lib-doge does", () => {
      const limit = 2 ** 39 - 1;
      fc.assert(
        fc.property(fc.integer({ min: -limit, max: limit }), (n) => {
          const encoded = encodeScriptNum(n);
          expect(encoded.length).to.be.at.most(5);
          expect(decodeScriptNum(encoded, 5)).to.equal(n);
          expect(bytesToHex(encoded)).to.equal(new bitcore.crypto.BN(n).toScriptNumBuffer().toString("hex"));
          // Minimal: the top byte carries value bits, or only the sign that the byte below could not hold.
          if (encoded.length > 0 && (encoded[encoded.length - 1] & 0x7f) === 0) {
            expect(encoded.length).to.be.greaterThan(1);
            expect(encoded[encoded.length - 2] & 0x80).to.equal(0x80);
          }
        }),
        { numRuns: 1000 },
      );
    });

    it("refuses numbers longer than the size limit", () => {
      expect(decodeScriptNum(hexToBytes("0000008000"))).to.equal(null);
      expect(decodeScriptNum(hexToBytes("0000008000"), 5)).to.equal(2 ** 31);
    });
  });

  describe("scriptToAsm and classifyOutputScript on arbitrary bytes", () => {
    it("never throw, and print [error] exactly when the script is malformed", () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 300 }), fc.boolean(), (script, decodeSighash) => {
          const asm = scriptToAsm(script, decodeSighash);
          expect(asm.endsWith("[error]")).to.equal(parseScript(script).malformed);
          const classified = classifyOutputScript(script);
          if (parseScript(script).malformed) expect(classified.type).to.equal("nonstandard");
          expect(outputScriptToAddress(script, NETWORKS.mainnet) === null).to.equal(
            !["pubkeyhash", "scripthash", "pubkey"].includes(classified.type),
          );
        }),
        { numRuns: 1000 },
      );
    });
  });
});
