import { expect } from "chai";
import fc from "fast-check";
import { bytesToHex, concatBytes, encodePush, hexToBytes, parseScript } from "../../src/doge";
import {
  DOGINALS_MAX_PARTIAL_BYTES,
  DoginalsAssembly,
  DoginalsEncodeError,
  doginalsNumber,
  doginalsRedeemScript,
  doginalsScriptSig,
  encodeDoginalsReveal,
  readDoginalsInput,
} from "../../src/inscription";
import type { DoginalsInputRead } from "../../src/inscription";
import { asmToScript } from "./asm";
import { COMPRESSED_PUBKEY, DUMMY_SIGNATURE, inscriptionBlock, loadVectors } from "./fixtures";

interface DoginalsInput {
  scriptSigAsm?: string;
  scriptSigHex?: string;
  revealChainAsm?: string[];
}

const vectors = loadVectors<DoginalsInput, Record<string, unknown>>("doginals");
const text = (s: string) => new TextEncoder().encode(s);

function scriptOf(input: DoginalsInput): Uint8Array {
  return input.scriptSigHex !== undefined ? hexToBytes(input.scriptSigHex) : asmToScript(input.scriptSigAsm!);
}

function plain(read: DoginalsInputRead): Record<string, unknown> {
  const pieces = (p: { countdown: number; data: Uint8Array }[]) =>
    p.map((x) => ({ countdown: x.countdown, dataHex: bytesToHex(x.data) }));
  if (read.kind === "start") {
    return {
      kind: read.kind,
      totalPieces: read.totalPieces,
      contentType: read.contentType,
      pieces: pieces(read.pieces),
      redeemScriptHex: read.redeemScript ? bytesToHex(read.redeemScript) : null,
    };
  }
  if (read.kind === "continuation")
    return {
      kind: read.kind,
      pieces: pieces(read.pieces),
      redeemScriptHex: read.redeemScript ? bytesToHex(read.redeemScript) : null,
    };
  return { ...read };
}

function assemble(scriptSigs: Uint8Array[]): DoginalsAssembly {
  const first = readDoginalsInput(scriptSigs[0]);
  if (first.kind !== "start") throw new Error(`first reveal reads as ${first.kind}`);
  return scriptSigs
    .slice(1)
    .reduce((assembly, s) => assembly.continueWith(readDoginalsInput(s)), DoginalsAssembly.start(first));
}

describe("inscription/doginals", () => {
  describe("readDoginalsInput and DoginalsAssembly on test/vectors/doginals.json", () => {
    for (const vector of vectors.valid) {
      if (vector.input.revealChainAsm) {
        it(`assembles ${vector.description}`, () => {
          const assembly = assemble(vector.input.revealChainAsm!.map(asmToScript));
          const result = assembly.result();
          expect({
            ...result,
            body: undefined,
            bodyHex: bytesToHex(result.body),
            transactionCount: assembly.transactionCount,
          }).to.deep.equal({ ...(vector.expected.assembly as object), body: undefined });
        });
      } else {
        it(`reads ${vector.description}`, () => {
          expect(plain(readDoginalsInput(scriptOf(vector.input)))).to.deep.equal(vector.expected);
        });
      }
    }
    for (const vector of vectors.invalid) {
      it(`refuses ${vector.description} with ${vector.error}`, () => {
        expect(readDoginalsInput(scriptOf(vector.input))).to.deep.equal({ kind: "invalid", reason: vector.error });
      });
    }
  });

  describe("encodeDoginalsReveal", () => {
    for (const [prefix, what] of [
      ["410f77cf", "a one-piece DRC-20 transfer"],
      ["d32b44a3", "a two-piece text of 414 bytes"],
    ] as const) {
      it(`rebuilds the real reveal scriptSig of ${what} (block 5000000, ${prefix}...) byte for byte`, () => {
        const tx = inscriptionBlock(5000000).txs.find((t) => t.txid.startsWith(prefix))!;
        const read = readDoginalsInput(tx.inputs[0].scriptSig);
        if (read.kind !== "start") throw new Error("not a reveal");
        const pushes = parseScript(tx.inputs[0].scriptSig).chunks;
        const signature = pushes[pushes.length - 2].data!;
        const pubkey = read.redeemScript!.subarray(1, 34);
        const body = concatBytes(...read.pieces.map((p) => p.data));
        const parts = encodeDoginalsReveal({ contentType: read.contentType, body, pubkey });
        expect(parts.length).to.equal(1);
        expect(bytesToHex(doginalsScriptSig(parts[0], signature))).to.equal(bytesToHex(tx.inputs[0].scriptSig));
      });
    }

    it("deals whole pairs to each part while its pushes stay within 1500 bytes", () => {
      const parts = encodeDoginalsReveal({
        contentType: "image/png",
        body: new Uint8Array(5000).fill(1),
        pubkey: COMPRESSED_PUBKEY,
      });
      // 21 pieces of 240 (the last 200), about 245 bytes a pair: 6 pairs per part (the first also
      // holds "ord", the piece count and the content type), 3 left for the last.
      expect(parts.map((p) => p.pushCount)).to.deep.equal([15, 12, 12, 6]);
      for (const part of parts) {
        expect(part.pushes.length).to.be.at.most(DOGINALS_MAX_PARTIAL_BYTES);
        expect(bytesToHex(part.redeemScript)).to.equal(
          bytesToHex(doginalsRedeemScript(COMPRESSED_PUBKEY, part.pushCount)),
        );
        expect(doginalsScriptSig(part, DUMMY_SIGNATURE).length).to.be.at.most(1650);
      }
    });

    it("refuses an empty body with EMPTY_BODY (a piece count of 0 is no inscription)", () => {
      expect(() =>
        encodeDoginalsReveal({ contentType: "text/plain", body: new Uint8Array(0), pubkey: COMPRESSED_PUBKEY }),
      )
        .to.throw(DoginalsEncodeError)
        .with.property("code", "EMPTY_BODY");
      expect(() => encodeDoginalsReveal({ contentType: "text/plain", body: text("x"), pubkey: new Uint8Array(20) }))
        .to.throw(DoginalsEncodeError)
        .with.property("code", "BAD_PUBKEY");
    });
  });

  describe("DoginalsAssembly", () => {
    it("survives a JSON round trip of its pending state", () => {
      const parts = encodeDoginalsReveal({
        contentType: "text/plain",
        body: new Uint8Array(3000).fill(3),
        pubkey: COMPRESSED_PUBKEY,
      });
      const scriptSigs = parts.map((p) => doginalsScriptSig(p, DUMMY_SIGNATURE));
      const first = readDoginalsInput(scriptSigs[0]);
      if (first.kind !== "start") throw new Error("no start");
      let assembly = DoginalsAssembly.start(first);
      for (const scriptSig of scriptSigs.slice(1)) {
        assembly = DoginalsAssembly.fromJSON(JSON.parse(JSON.stringify(assembly.toJSON()))).continueWith(
          readDoginalsInput(scriptSig),
        );
      }
      expect(assembly.complete).to.equal(true);
      expect(assembly.transactionCount).to.equal(parts.length);
      expect(bytesToHex(assembly.body)).to.equal("03".repeat(3000));
    });

    it("refuses more input once complete or failed", () => {
      const done = assemble([asmToScript("6f7264 OP_1 612f62 OP_0 aa")]);
      expect(done.complete).to.equal(true);
      expect(done.nextCountdown).to.equal(null);
      const after = done.continueWith(readDoginalsInput(asmToScript("OP_0 bb")));
      expect(after.result()).to.deep.include({ complete: false, error: "ALREADY_COMPLETE" });
      expect(after.continueWith(readDoginalsInput(asmToScript("OP_0 bb"))).error).to.equal("ALREADY_FAILED");
    });
  });

  describe("doginalsNumber", () => {
    it("reads unsigned little-endian numbers of up to 8 bytes", () => {
      expect(doginalsNumber(new Uint8Array(0))).to.equal(0);
      expect(doginalsNumber(hexToBytes("80"))).to.equal(128);
      expect(doginalsNumber(hexToBytes("0001"))).to.equal(256);
      expect(doginalsNumber(hexToBytes("ffffffffffff1f00"))).to.equal(Number.MAX_SAFE_INTEGER);
      expect(doginalsNumber(hexToBytes("0000000000002000"))).to.equal(null);
      expect(doginalsNumber(new Uint8Array(9))).to.equal(null);
    });
  });

  describe("pieces minimal pushes would turn into opcodes", () => {
    it("moves a byte from the piece before into a last piece of one byte 1-16 or 0x81, keeping the body", () => {
      for (const lastByte of [0x01, 0x10, 0x81]) {
        const body = Uint8Array.from([...new Uint8Array(240).fill(0x41), lastByte]);
        const parts = encodeDoginalsReveal({ contentType: "text/plain", body, pubkey: COMPRESSED_PUBKEY });
        const result = assemble(parts.map((p) => doginalsScriptSig(p, DUMMY_SIGNATURE))).result();
        expect(result.complete).to.equal(true);
        expect(bytesToHex(result.body)).to.equal(bytesToHex(body));
      }
    });

    it("refuses a one-byte body or content type that has no relayable data push", () => {
      expect(() =>
        encodeDoginalsReveal({ contentType: "text/plain", body: Uint8Array.of(0x81), pubkey: COMPRESSED_PUBKEY }),
      ).to.throw(DoginalsEncodeError, /no data push/);
      expect(() =>
        encodeDoginalsReveal({ contentType: "\u0005", body: Uint8Array.of(0x41), pubkey: COMPRESSED_PUBKEY }),
      ).to.throw(DoginalsEncodeError, /content type/);
      expect(
        encodeDoginalsReveal({ contentType: "text/plain", body: Uint8Array.of(0x00), pubkey: COMPRESSED_PUBKEY }),
      ).to.have.length(1);
    });
  });

  describe("properties", () => {
    it("round-trips any body through the reveal chain it encodes", () => {
      fc.assert(
        fc.property(
          fc.string({ unit: "binary", minLength: 1, maxLength: 40 }),
          fc.uint8Array({ minLength: 1, maxLength: 6000 }),
          (contentType, body) => {
            const opcodeByte = (bytes: Uint8Array) =>
              bytes.length === 1 && ((bytes[0] >= 1 && bytes[0] <= 16) || bytes[0] === 0x81);
            if (opcodeByte(new TextEncoder().encode(contentType)) || opcodeByte(body)) {
              expect(() => encodeDoginalsReveal({ contentType, body, pubkey: COMPRESSED_PUBKEY })).to.throw(
                DoginalsEncodeError,
              );
              return;
            }
            const parts = encodeDoginalsReveal({ contentType, body, pubkey: COMPRESSED_PUBKEY });
            const scriptSigs = parts.map((p) => doginalsScriptSig(p, DUMMY_SIGNATURE));
            const kinds = scriptSigs.map((s) => readDoginalsInput(s).kind);
            expect(kinds).to.deep.equal(["start", ...kinds.slice(1).map(() => "continuation")]);
            const result = assemble(scriptSigs).result();
            expect(result).to.deep.include({ complete: true, contentType, missingPieces: 0, error: null });
            expect(bytesToHex(result.body)).to.equal(bytesToHex(body));
          },
        ),
        { numRuns: 150 },
      );
    });

    it("never throws on arbitrary scriptSigs, nor on push sequences opening with 'ord'", () => {
      const pushesArb = fc
        .array(fc.oneof(fc.uint8Array({ maxLength: 3 }), fc.uint8Array({ maxLength: 300 })), { maxLength: 12 })
        .map((items) => concatBytes(encodePush(text("ord")), ...items.map(encodePush)));
      fc.assert(
        fc.property(
          fc.oneof(fc.uint8Array({ maxLength: 400 }), pushesArb),
          fc.uint8Array({ maxLength: 300 }),
          (scriptSig, next) => {
            const read = readDoginalsInput(scriptSig);
            if (read.kind === "start") DoginalsAssembly.start(read).continueWith(readDoginalsInput(next)).result();
          },
        ),
        { numRuns: 1000 },
      );
    });
  });
});
