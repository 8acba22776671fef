import { expect } from "chai";
import fc from "fast-check";
import { OP, bytesToHex, compileScript, concatBytes, encodePush, hexToBytes, sha256 } from "../../src/doge";
import type { TxInput } from "../../src/doge";
import {
  ENVELOPE_CHUNK_BYTES,
  EnvelopeEncodeError,
  MAX_REDEEM_SCRIPT_BYTES,
  encodeEnvelope,
  envelopeHash,
  findV1Inscription,
  planRevealScripts,
  readEnvelopeScript,
  revealScriptSig,
} from "../../src/inscription";
import type { EnvelopeContent } from "../../src/inscription";
import { asmToScript } from "./asm";
import { COMPRESSED_PUBKEY, DUMMY_SIGNATURE, loadVectors } from "./fixtures";

interface EnvelopeInput {
  contentType: string;
  action: string | null;
  bodyHex: string;
  pubkey: string;
}
interface EnvelopeExpected {
  scriptHex: string;
  scriptLength: number;
  envelopeHash: string;
  asm: string;
  redeemScriptsHex: string[];
}

const vectors = loadVectors<EnvelopeInput, EnvelopeExpected>("envelope");
const ORD = new TextEncoder().encode("ord");
const text = (s: string) => new TextEncoder().encode(s);

function input(scriptSig: Uint8Array, index = 0): TxInput {
  return { prevTxid: index.toString(16).padStart(64, "0"), vout: 0, scriptSig, sequence: 0xffffffff };
}

/** A reveal whose inputs spend the planned redeem scripts, after `before` other inputs. */
function revealOf(redeemScripts: Uint8Array[], before: Uint8Array[] = []) {
  return {
    inputs: [...before, ...redeemScripts.map((r) => revealScriptSig(DUMMY_SIGNATURE, r))].map((s, i) => input(s, i)),
  };
}

/** A reveal with one input per given redeem script. */
function revealWith(...redeemScripts: Uint8Array[]) {
  return revealOf(redeemScripts);
}

const tail = concatBytes(Uint8Array.of(OP.OP_ENDIF), encodePush(COMPRESSED_PUBKEY), Uint8Array.of(OP.OP_CHECKSIG));

describe("inscription/envelope", () => {
  describe("encodeEnvelope and envelopeHash on test/vectors/envelope.json", () => {
    for (const vector of vectors.valid) {
      it(`encodes ${vector.description}`, () => {
        const content = {
          contentType: vector.input.contentType,
          action: vector.input.action,
          body: hexToBytes(vector.input.bodyHex),
        };
        const script = encodeEnvelope(content);
        expect(bytesToHex(script)).to.equal(vector.expected.scriptHex);
        expect(script.length).to.equal(vector.expected.scriptLength);
        expect(bytesToHex(asmToScript(vector.expected.asm))).to.equal(vector.expected.scriptHex);
        expect(envelopeHash(content)).to.equal(vector.expected.envelopeHash);
        expect(bytesToHex(sha256(script))).to.equal(vector.expected.envelopeHash);
        const planned = planRevealScripts({ ...content, pubkey: hexToBytes(vector.input.pubkey) });
        expect(planned.map(bytesToHex)).to.deep.equal(vector.expected.redeemScriptsHex);
        const found = findV1Inscription(revealWith(...planned));
        expect(found.issues).to.deep.equal([]);
        expect(found.inscription).to.deep.include({
          contentType: content.contentType,
          action: content.action,
          envelopeHash: vector.expected.envelopeHash,
          inputCount: planned.length,
          firstInput: 0,
        });
        expect(bytesToHex(found.inscription!.body)).to.equal(vector.input.bodyHex);
      });
    }
    for (const vector of vectors.invalid) {
      it(`refuses ${vector.description} with ${vector.error}`, () => {
        const content = {
          contentType: vector.input.contentType,
          action: vector.input.action,
          body: hexToBytes(vector.input.bodyHex),
        };
        expect(() => encodeEnvelope(content))
          .to.throw(EnvelopeEncodeError)
          .with.property("code", vector.error);
        expect(() => envelopeHash(content))
          .to.throw(EnvelopeEncodeError)
          .with.property("code", vector.error);
      });
    }
  });

  describe("encodeEnvelope", () => {
    it("writes OP_FALSE OP_IF 'ord' OP_1 <type> <ACTION> OP_0 <chunks> OP_ENDIF, chunking at 520 bytes", () => {
      const body = new Uint8Array(1500).fill(0x61);
      const script = encodeEnvelope({ contentType: "application/pdf", action: "TOKENIZE", body });
      const expected = compileScript([
        OP.OP_FALSE,
        OP.OP_IF,
        ORD,
        OP.OP_1,
        text("application/pdf"),
        text("TOKENIZE"),
        OP.OP_0,
        body.subarray(0, 520),
        body.subarray(520, 1040),
        body.subarray(1040),
        OP.OP_ENDIF,
      ]);
      expect(bytesToHex(script)).to.equal(bytesToHex(expected));
      // Two full chunks pushed with OP_PUSHDATA2 0x0208, then 460 = 0x01cc bytes.
      expect(bytesToHex(script)).to.include("4d0802" + "61".repeat(520) + "4d0802" + "61".repeat(520) + "4dcc01");
    });

    it("omits the ACTION push when action is null or absent, so OP_0 follows the content type", () => {
      const withNull = encodeEnvelope({ contentType: "text/plain;charset=utf8", action: null, body: text("x") });
      const absent = encodeEnvelope({ contentType: "text/plain;charset=utf8", body: text("x") });
      expect(bytesToHex(withNull)).to.equal(bytesToHex(absent));
      expect(bytesToHex(absent)).to.equal(
        "0063036f72645117" + bytesToHex(text("text/plain;charset=utf8")) + "0001" + "78" + "68",
      );
    });

    it("keeps exactly one chunk for a 520-byte body and starts a second at 521", () => {
      expect(ENVELOPE_CHUNK_BYTES).to.equal(520);
      const at520 = readEnvelopeScript(encodeEnvelope({ contentType: "a/b", body: new Uint8Array(520) }));
      const at521 = readEnvelopeScript(encodeEnvelope({ contentType: "a/b", body: new Uint8Array(521) }));
      expect(at520.kind === "start" && at520.chunks.map((c) => c.length)).to.deep.equal([520]);
      expect(at521.kind === "start" && at521.chunks.map((c) => c.length)).to.deep.equal([520, 1]);
    });
  });

  describe("planRevealScripts", () => {
    it("fills a LAUNCHPAD_MINT header script to 520 bytes with 441 payload bytes, continuations with 474", () => {
      const body = new Uint8Array(1200).fill(7);
      const scripts = planRevealScripts({
        contentType: "application/json",
        action: "LAUNCHPAD_MINT",
        body,
        pubkey: COMPRESSED_PUBKEY,
      });
      expect(scripts.map((s) => s.length)).to.deep.equal([520, 520, 331]);
      const reads = scripts.map(readEnvelopeScript);
      expect(reads.map((r) => r.kind)).to.deep.equal(["start", "continuation", "continuation"]);
      expect(
        reads.map((r) => (r.kind === "start" || r.kind === "continuation" ? r.chunks[0].length : 0)),
      ).to.deep.equal([441, 474, 285]);
      for (const script of scripts)
        expect(bytesToHex(script.subarray(script.length - tail.length))).to.equal(bytesToHex(tail));
    });

    it("plans scripts in the size range dogecoind accepted (178 to 519 bytes per DESIGN.md 4.2)", () => {
      // 440 payload bytes in the header script gives the 519-byte script of the regtest check.
      const scripts = planRevealScripts({
        contentType: "application/json",
        action: "LAUNCHPAD_MINT",
        body: new Uint8Array(440),
        pubkey: COMPRESSED_PUBKEY,
      });
      expect(scripts.map((s) => s.length)).to.deep.equal([519]);
    });

    it("uses one script with an empty payload for an empty body", () => {
      const scripts = planRevealScripts({
        contentType: "text/plain;charset=utf8",
        body: new Uint8Array(0),
        pubkey: COMPRESSED_PUBKEY,
      });
      expect(scripts.length).to.equal(1);
      expect(readEnvelopeScript(scripts[0])).to.deep.include({ kind: "start", chunks: [] });
    });

    it("accepts a 65-byte uncompressed key and refuses anything else with BAD_PUBKEY", () => {
      const uncompressed = concatBytes(Uint8Array.of(4), new Uint8Array(64).fill(1));
      const scripts = planRevealScripts({ contentType: "a/b", body: new Uint8Array(2000), pubkey: uncompressed });
      for (const script of scripts) expect(script.length).to.be.at.most(MAX_REDEEM_SCRIPT_BYTES);
      expect(() => planRevealScripts({ contentType: "a/b", body: new Uint8Array(1), pubkey: new Uint8Array(32) }))
        .to.throw(EnvelopeEncodeError)
        .with.property("code", "BAD_PUBKEY");
    });

    it("refuses with HEADER_TOO_LARGE when the content type and ACTION leave no room", () => {
      expect(() =>
        planRevealScripts({
          contentType: "x".repeat(300),
          action: "A".repeat(200),
          body: new Uint8Array(1),
          pubkey: COMPRESSED_PUBKEY,
        }),
      )
        .to.throw(EnvelopeEncodeError)
        .with.property("code", "HEADER_TOO_LARGE");
    });
  });

  describe("readEnvelopeScript", () => {
    const header = (rest: string) => asmToScript(`OP_0 OP_IF 6f7264 ${rest}`);

    it("reads a non-empty push after the content type as ACTION and OP_0 as the payload marker", () => {
      const read = readEnvelopeScript(header(`OP_1 612f62 4c495354 OP_0 aabb OP_ENDIF`));
      expect(read).to.deep.include({ kind: "start", contentType: text("a/b"), action: text("LIST") });
    });

    it("reads OP_1..OP_16 and OP_1NEGATE in the payload as one-byte chunks", () => {
      const read = readEnvelopeScript(header(`OP_1 612f62 OP_0 OP_5 OP_1NEGATE 00 OP_ENDIF`));
      expect(read.kind === "start" && read.chunks.map(bytesToHex)).to.deep.equal(["05", "81", "00"]);
    });

    const broken: [string, string, string][] = [
      ["a header without the payload marker", `OP_1 612f62 OP_ENDIF`, "MISSING_PAYLOAD_MARKER"],
      [
        "two pushes between content type and marker",
        `OP_1 612f62 4c495354 4255 OP_0 OP_ENDIF`,
        "MISSING_PAYLOAD_MARKER",
      ],
      ["an opcode inside the payload", `OP_1 612f62 OP_0 aa OP_DUP OP_ENDIF`, "NON_PUSH_IN_PAYLOAD"],
      ["no OP_ENDIF", `OP_1 612f62 OP_0 aa`, "MISSING_ENDIF"],
      ["a tag other than OP_1 or OP_0", `OP_2 612f62 OP_0 aa OP_ENDIF`, "UNKNOWN_ENVELOPE_TAG"],
      ["a header cut after the tag", `OP_1`, "MISSING_CONTENT_TYPE"],
    ];
    for (const [what, asm, reason] of broken) {
      it(`reports ${reason} for ${what}`, () => {
        expect(readEnvelopeScript(header(asm))).to.deep.equal({ kind: "invalid", reason });
      });
    }

    it("reports MALFORMED_PUSH when a push runs past the end", () => {
      expect(readEnvelopeScript(hexToBytes("0063036f726451036112"))).to.deep.equal({
        kind: "invalid",
        reason: "MALFORMED_PUSH",
      });
    });

    it("flags a non-minimal push but still reads the envelope", () => {
      // The content type pushed with OP_PUSHDATA1 although 3 bytes fit a direct push.
      const read = readEnvelopeScript(hexToBytes("0063036f7264514c03612f620001aa68"));
      expect(read).to.deep.include({ kind: "start", flags: ["NON_MINIMAL_PUSH"] });
    });

    it("finds an envelope that does not open the script", () => {
      const script = concatBytes(
        encodePush(COMPRESSED_PUBKEY),
        Uint8Array.of(OP.OP_CHECKSIGVERIFY),
        encodeEnvelope({ contentType: "a/b", body: text("hi") }),
      );
      expect(readEnvelopeScript(script).kind).to.equal("start");
    });

    it("returns none for scripts without OP_FALSE OP_IF 'ord'", () => {
      expect(
        readEnvelopeScript(asmToScript("OP_DUP OP_HASH160 " + "11".repeat(20) + " OP_EQUALVERIFY OP_CHECKSIG")),
      ).to.deep.equal({ kind: "none" });
      expect(readEnvelopeScript(asmToScript("OP_0 OP_IF 4f5244 OP_1 612f62 OP_0 OP_ENDIF"))).to.deep.equal({
        kind: "none",
      });
    });
  });

  describe("findV1Inscription", () => {
    const content: EnvelopeContent = {
      contentType: "application/json",
      action: "LAUNCHPAD_MINT",
      body: new Uint8Array(1000).fill(0x42),
    };
    const planned = planRevealScripts({ ...content, pubkey: COMPRESSED_PUBKEY });
    const p2pkhSpend = concatBytes(encodePush(DUMMY_SIGNATURE), encodePush(COMPRESSED_PUBKEY));

    it("concatenates the continuations in input order behind a funding input", () => {
      const found = findV1Inscription(revealOf(planned, [p2pkhSpend]));
      expect(found.issues).to.deep.equal([]);
      expect(found.inscription).to.deep.include({
        firstInput: 1,
        inputCount: planned.length,
        envelopeHash: envelopeHash(content),
      });
      expect(bytesToHex(found.inscription!.body)).to.equal(bytesToHex(content.body));
    });

    it("stops at the first input that is not a continuation and reports later ones as STRAY_CONTINUATION", () => {
      const found = findV1Inscription(revealWith(planned[0], planned[1], COMPRESSED_PUBKEY, planned[2]));
      expect(found.inscription!.inputCount).to.equal(2);
      expect(found.issues).to.deep.equal(["STRAY_CONTINUATION@3"]);
    });

    it("keeps the first envelope and reports a second as EXTRA_ENVELOPE", () => {
      const other = planRevealScripts({ contentType: "a/b", body: text("second"), pubkey: COMPRESSED_PUBKEY });
      const found = findV1Inscription(revealWith(...planned, ...other));
      expect(found.inscription!.contentType).to.equal("application/json");
      expect(found.issues).to.deep.equal([`EXTRA_ENVELOPE@${planned.length}`]);
    });

    it("finds nothing for a lone continuation and says so", () => {
      const found = findV1Inscription(revealWith(planned[1]));
      expect(found).to.deep.equal({ inscription: null, issues: ["STRAY_CONTINUATION@0"] });
    });

    it("reports a broken envelope with its input and finds no inscription", () => {
      const broken = asmToScript(`OP_0 OP_IF 6f7264 OP_1 612f62 OP_ENDIF ${bytesToHex(COMPRESSED_PUBKEY)} OP_CHECKSIG`);
      expect(findV1Inscription(revealWith(broken))).to.deep.equal({
        inscription: null,
        issues: ["MISSING_PAYLOAD_MARKER@0"],
      });
    });

    it("ignores scriptSigs that are not push-only", () => {
      const redeem = planned[0];
      const scriptSig = concatBytes(Uint8Array.of(OP.OP_NOP), encodePush(DUMMY_SIGNATURE), encodePush(redeem));
      expect(findV1Inscription({ inputs: [input(scriptSig)] })).to.deep.equal({ inscription: null, issues: [] });
    });

    it("flags an over-long redeem script, which no node would accept", () => {
      const big = concatBytes(asmToScript("OP_0 OP_IF 6f7264 OP_1 612f62 OP_0"), encodePush(new Uint8Array(600)), tail);
      const found = findV1Inscription(revealWith(big));
      expect(found.inscription!.body.length).to.equal(600);
      expect(found.issues).to.deep.equal(["OVERSIZED_REDEEM_SCRIPT@0", "OVERSIZED_PUSH@0"]);
    });

    it("hashes what it found as the canonical single script, whatever the chunking on chain", () => {
      const rechunked = concatBytes(
        asmToScript("OP_0 OP_IF 6f7264 OP_1 " + bytesToHex(text("a/b")) + " OP_0"),
        encodePush(text("hello ")),
        encodePush(text("world")),
        tail,
      );
      const found = findV1Inscription(revealWith(rechunked));
      expect(found.inscription!.envelopeHash).to.equal(envelopeHash({ contentType: "a/b", body: text("hello world") }));
    });

    it("reports content types that are not UTF-8", () => {
      const script = concatBytes(asmToScript("OP_0 OP_IF 6f7264 OP_1 ff2f62 OP_0 aa"), tail);
      const found = findV1Inscription(revealWith(script));
      expect(found.inscription!.contentType).to.equal("\ufffd/b");
      expect(found.issues).to.deep.equal(["CONTENT_TYPE_NOT_UTF8@0"]);
    });
  });

  describe("properties", () => {
    const contentArb = fc.record({
      contentType: fc.string({ unit: "binary", minLength: 1, maxLength: 40 }),
      action: fc.option(fc.string({ unit: "binary", minLength: 1, maxLength: 20 }), { nil: null }),
      body: fc.uint8Array({ maxLength: 3000 }),
      compressed: fc.boolean(),
    });

    it("round-trips any content through planned redeem scripts of at most 520 bytes", () => {
      fc.assert(
        fc.property(contentArb, ({ compressed, ...content }) => {
          const pubkey = compressed ? COMPRESSED_PUBKEY : concatBytes(Uint8Array.of(4), new Uint8Array(64).fill(9));
          const scripts = planRevealScripts({ ...content, pubkey });
          for (const script of scripts) expect(script.length).to.be.at.most(MAX_REDEEM_SCRIPT_BYTES);
          const found = findV1Inscription(revealWith(...scripts));
          expect(found.issues).to.deep.equal([]);
          expect(found.inscription!.contentType).to.equal(content.contentType);
          expect(found.inscription!.action).to.equal(content.action);
          expect(bytesToHex(found.inscription!.body)).to.equal(bytesToHex(content.body));
          expect(found.inscription!.envelopeHash).to.equal(envelopeHash(content));
          expect(found.inscription!.inputCount).to.equal(scripts.length);
        }),
        { numRuns: 150 },
      );
    });

    it("reads back the canonical single script it writes", () => {
      fc.assert(
        fc.property(contentArb, ({ contentType, action, body }) => {
          const read = readEnvelopeScript(encodeEnvelope({ contentType, action, body }));
          if (read.kind !== "start") throw new Error(`read ${read.kind}`);
          expect(read.flags).to.deep.equal([]);
          expect(bytesToHex(concatBytes(...read.chunks))).to.equal(bytesToHex(body));
          expect(read.chunks.every((c) => c.length <= 520)).to.equal(true);
        }),
        { numRuns: 150 },
      );
    });

    it("never throws on arbitrary scripts and scriptSigs", () => {
      const prefix = hexToBytes("0063036f7264");
      const scriptArb = fc.oneof(
        fc.uint8Array({ maxLength: 600 }),
        fc.uint8Array({ maxLength: 200 }).map((b) => concatBytes(prefix, b)),
      );
      fc.assert(
        fc.property(fc.array(scriptArb, { maxLength: 5 }), fc.boolean(), (scripts, wrap) => {
          for (const script of scripts) readEnvelopeScript(script);
          const scriptSigs = scripts.map((s) => (wrap ? revealScriptSig(DUMMY_SIGNATURE, s) : s));
          const found = findV1Inscription({ inputs: scriptSigs.map((s, i) => input(s, i)) });
          expect(found.issues).to.be.an("array");
        }),
        { numRuns: 500 },
      );
    });
  });
});
