/**
 * The v1 inscription envelope (DESIGN.md 4.2):
 *
 *   OP_FALSE OP_IF "ord" OP_1 <content-type> [<ACTION>] OP_0 <payload chunk>... OP_ENDIF
 *
 * Pushes use minimal encodings (so a one-byte chunk 0x01..0x10 is OP_1..OP_16 and 0x81 is
 * OP_1NEGATE) and the payload is cut into chunks of at most 520 bytes. ACTION is a non-empty push;
 * the empty push OP_0 marks the start of the payload, which is how a reader tells the two apart.
 *
 * On Dogecoin the envelope lives in P2SH redeem scripts `<envelope> <pubkey> OP_CHECKSIG`, each at
 * most 520 bytes. A payload too large for one redeem script continues in the following inputs of
 * the same reveal, each holding `OP_FALSE OP_IF "ord" OP_0 <chunk>... OP_ENDIF <pubkey> OP_CHECKSIG`.
 *
 * `envelopeHash` is the SHA-256 of the canonical single script (the whole payload chunked at 520,
 * as if in one script); `contracts/envelope/EnvelopeHelper.sol` must produce the same bytes and
 * hash, which test/vectors/envelope.json proves for both.
 *
 * Encoders throw `EnvelopeEncodeError` on inputs they cannot encode (these come from our own
 * callers); the decoder `findV1Inscription` never throws on chain data.
 */
import { OP, ScriptChunk, bytesToHex, concatBytes, encodePush, isMinimalPush, parseScript, sha256 } from "../doge";
import type { Transaction } from "../doge";
import { DogeosError } from "../errors";

/** The protocol tag pushed after OP_FALSE OP_IF. */
export const ENVELOPE_PROTOCOL_ID = "ord";
/** Consensus limit on one pushed element (MAX_SCRIPT_ELEMENT_SIZE); also the payload chunk size. */
export const MAX_SCRIPT_ELEMENT_BYTES = 520;
/** Payload chunk size of the canonical single script. */
export const ENVELOPE_CHUNK_BYTES = 520;
/** A P2SH redeem script is pushed as one element, so it is at most 520 bytes. */
export const MAX_REDEEM_SCRIPT_BYTES = 520;

const PROTOCOL_ID_BYTES = Uint8Array.of(0x6f, 0x72, 0x64); // "ord"
const utf8Encoder = new TextEncoder();
const strictUtf8Decoder = new TextDecoder("utf-8", { fatal: true });
const lossyUtf8Decoder = new TextDecoder("utf-8");

/** What an envelope carries. `action` absent or null means no ACTION push (DRC-20 plain text). */
export interface EnvelopeContent {
  contentType: string;
  action?: string | null;
  body: Uint8Array;
}

export type EnvelopeEncodeErrorCode =
  | "EMPTY_CONTENT_TYPE"
  | "CONTENT_TYPE_TOO_LONG"
  | "EMPTY_ACTION"
  | "ACTION_TOO_LONG"
  | "BAD_PUBKEY"
  | "HEADER_TOO_LARGE";

/** Raised by the encoders and the planner for inputs that have no valid encoding. */
export class EnvelopeEncodeError extends DogeosError<EnvelopeEncodeErrorCode> {
  constructor(code: EnvelopeEncodeErrorCode, message: string) {
    super("invalid", code, message);
  }
}

interface EnvelopeHeaderBytes {
  contentType: Uint8Array;
  action: Uint8Array | null;
}

function headerBytes(content: EnvelopeContent): EnvelopeHeaderBytes {
  const contentType = utf8Encoder.encode(content.contentType);
  if (contentType.length === 0) throw new EnvelopeEncodeError("EMPTY_CONTENT_TYPE", "content type must not be empty");
  if (contentType.length > MAX_SCRIPT_ELEMENT_BYTES) {
    throw new EnvelopeEncodeError(
      "CONTENT_TYPE_TOO_LONG",
      `content type of ${contentType.length} bytes exceeds ${MAX_SCRIPT_ELEMENT_BYTES}`,
    );
  }
  let action: Uint8Array | null = null;
  if (content.action !== undefined && content.action !== null) {
    action = utf8Encoder.encode(content.action);
    // An empty ACTION would be read back as the payload marker OP_0.
    if (action.length === 0)
      throw new EnvelopeEncodeError("EMPTY_ACTION", "ACTION must be a non-empty push (omit it instead)");
    if (action.length > MAX_SCRIPT_ELEMENT_BYTES) {
      throw new EnvelopeEncodeError(
        "ACTION_TOO_LONG",
        `ACTION of ${action.length} bytes exceeds ${MAX_SCRIPT_ELEMENT_BYTES}`,
      );
    }
  }
  return { contentType, action };
}

/** Splits a payload into chunks of at most `size` bytes (no chunk for an empty payload). */
export function chunkPayload(body: Uint8Array, size = ENVELOPE_CHUNK_BYTES): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let offset = 0; offset < body.length; offset += size)
    chunks.push(body.subarray(offset, Math.min(offset + size, body.length)));
  return chunks;
}

function startHeaderScript(header: EnvelopeHeaderBytes): Uint8Array {
  const parts = [
    Uint8Array.of(OP.OP_FALSE, OP.OP_IF),
    encodePush(PROTOCOL_ID_BYTES),
    Uint8Array.of(OP.OP_1),
    encodePush(header.contentType),
  ];
  if (header.action) parts.push(encodePush(header.action));
  parts.push(Uint8Array.of(OP.OP_0));
  return concatBytes(...parts);
}

const CONTINUATION_HEADER = concatBytes(
  Uint8Array.of(OP.OP_FALSE, OP.OP_IF),
  encodePush(PROTOCOL_ID_BYTES),
  Uint8Array.of(OP.OP_0),
);

/** The canonical single script, without validating the header (the decoder hashes what it found). */
function canonicalScript(header: EnvelopeHeaderBytes, body: Uint8Array): Uint8Array {
  return concatBytes(startHeaderScript(header), ...chunkPayload(body).map(encodePush), Uint8Array.of(OP.OP_ENDIF));
}

/** The canonical single envelope script: the whole payload in 520-byte chunks. */
export function encodeEnvelope(content: EnvelopeContent): Uint8Array {
  return canonicalScript(headerBytes(content), content.body);
}

/** SHA-256 (hex) of the canonical single envelope script. */
export function envelopeHash(content: EnvelopeContent): string {
  return bytesToHex(sha256(encodeEnvelope(content)));
}

function checkPubkey(pubkey: Uint8Array): void {
  const ok =
    (pubkey.length === 33 && (pubkey[0] === 0x02 || pubkey[0] === 0x03)) ||
    (pubkey.length === 65 && pubkey[0] === 0x04);
  if (!ok)
    throw new EnvelopeEncodeError(
      "BAD_PUBKEY",
      `expected a 33-byte compressed or 65-byte uncompressed public key, got ${pubkey.length} bytes`,
    );
}

/** Bytes a minimal push of `length` bytes of (arbitrary) data may take, at most. */
function pushSize(length: number): number {
  if (length <= 75) return length + 1;
  if (length <= 0xff) return length + 2;
  return length + 3;
}

/** Largest payload chunk whose push fits in `room` bytes. */
function chunkCapacity(room: number): number {
  let length = Math.max(0, Math.min(room - 1, MAX_SCRIPT_ELEMENT_BYTES));
  while (length > 0 && pushSize(length) > room) length--;
  return length;
}

/**
 * Plans the P2SH redeem scripts of a reveal: the first holds the full header, the following ones
 * continuation envelopes; each is filled up to 520 bytes with one payload chunk. Spend input i of
 * the reveal with `<sig> <redeemScripts[i]>`; the payload is the concatenation in input order.
 */
export function planRevealScripts(plan: EnvelopeContent & { pubkey: Uint8Array }): Uint8Array[] {
  checkPubkey(plan.pubkey);
  const header = headerBytes(plan);
  const tail = concatBytes(Uint8Array.of(OP.OP_ENDIF), encodePush(plan.pubkey), Uint8Array.of(OP.OP_CHECKSIG));
  const firstHeader = startHeaderScript(header);
  const firstRoom = MAX_REDEEM_SCRIPT_BYTES - firstHeader.length - tail.length;
  if (firstRoom < 0) {
    throw new EnvelopeEncodeError(
      "HEADER_TOO_LARGE",
      `content type and ACTION leave no room in a ${MAX_REDEEM_SCRIPT_BYTES}-byte redeem script`,
    );
  }
  const continuationCapacity = chunkCapacity(MAX_REDEEM_SCRIPT_BYTES - CONTINUATION_HEADER.length - tail.length);
  const scripts: Uint8Array[] = [];
  const body = plan.body;
  let offset = Math.min(chunkCapacity(firstRoom), body.length);
  scripts.push(concatBytes(firstHeader, ...(offset > 0 ? [encodePush(body.subarray(0, offset))] : []), tail));
  while (offset < body.length) {
    const end = Math.min(offset + continuationCapacity, body.length);
    scripts.push(concatBytes(CONTINUATION_HEADER, encodePush(body.subarray(offset, end)), tail));
    offset = end;
  }
  return scripts;
}

/** The scriptSig that spends one planned redeem script: `<signature> <redeemScript>`. */
export function revealScriptSig(signature: Uint8Array, redeemScript: Uint8Array): Uint8Array {
  return concatBytes(encodePush(signature), encodePush(redeemScript));
}

// ---------------------------------------------------------------------------------------------
// Decoding

/** One inscription found in a reveal transaction. */
export interface V1Inscription {
  contentType: string;
  /** The ACTION push, or null when the envelope has none. */
  action: string | null;
  body: Uint8Array;
  /** SHA-256 hex of the canonical single script rebuilt from what was found. */
  envelopeHash: string;
  /** Number of inputs the envelope spans (1 + continuations). */
  inputCount: number;
  /** Index of the input holding the header envelope. */
  firstInput: number;
}

export interface V1InscriptionSearch {
  inscription: V1Inscription | null;
  /** Stable codes, `CODE@<input index>`, for everything odd that was seen (accepted or not). */
  issues: string[];
}

/** What one redeem script holds, as `readEnvelopeScript` sees it. */
export type EnvelopeScriptRead =
  | { kind: "none" }
  | { kind: "invalid"; reason: string }
  | {
      kind: "start";
      contentType: Uint8Array;
      action: Uint8Array | null;
      chunks: Uint8Array[];
      /** Codes for accepted oddities (non-minimal pushes, oversized pushes). */
      flags: string[];
    }
  | { kind: "continuation"; chunks: Uint8Array[]; flags: string[] };

/** The data a chunk pushes, counting OP_1NEGATE and OP_1..OP_16 as one-byte pushes; null for other opcodes. */
function pushedData(chunk: ScriptChunk): Uint8Array | null {
  if (chunk.data) return chunk.data;
  if (chunk.opcode === OP.OP_1NEGATE) return Uint8Array.of(0x81);
  if (chunk.opcode >= OP.OP_1 && chunk.opcode <= OP.OP_16) return Uint8Array.of(chunk.opcode - OP.OP_1 + 1);
  return null;
}

function isProtocolId(data: Uint8Array | null): boolean {
  return data !== null && data.length === 3 && data[0] === 0x6f && data[1] === 0x72 && data[2] === 0x64;
}

/**
 * Reads the first envelope (`OP_FALSE OP_IF "ord" ...`) of a script. Never throws. An envelope that
 * is structurally broken (no payload marker, a non-push inside, no OP_ENDIF) is `invalid`.
 */
export function readEnvelopeScript(script: Uint8Array): EnvelopeScriptRead {
  const parsed = parseScript(script);
  const chunks = parsed.chunks;
  let start = -1;
  for (let i = 0; i + 2 < chunks.length; i++) {
    if (
      chunks[i].opcode === OP.OP_FALSE &&
      chunks[i + 1].opcode === OP.OP_IF &&
      isProtocolId(pushedData(chunks[i + 2])) &&
      !chunks[i + 2].malformed
    ) {
      start = i;
      break;
    }
  }
  if (start < 0) return { kind: "none" };
  const flags = new Set<string>();
  const noteChunk = (chunk: ScriptChunk): void => {
    if (!isMinimalPush(chunk)) flags.add("NON_MINIMAL_PUSH");
    if (chunk.data && chunk.data.length > MAX_SCRIPT_ELEMENT_BYTES) flags.add("OVERSIZED_PUSH");
  };
  noteChunk(chunks[start + 2]);
  let i = start + 3;
  const tagChunk = chunks[i];
  if (!tagChunk || tagChunk.malformed)
    return { kind: "invalid", reason: parsed.malformed ? "MALFORMED_PUSH" : "TRUNCATED_ENVELOPE" };
  const tag = pushedData(tagChunk);
  let contentType: Uint8Array | null = null;
  let action: Uint8Array | null = null;
  if (tag !== null && tag.length === 1 && tag[0] === 1) {
    noteChunk(tagChunk);
    i++;
    const typeChunk = chunks[i];
    const typeData = typeChunk && !typeChunk.malformed ? pushedData(typeChunk) : null;
    if (typeData === null)
      return { kind: "invalid", reason: parsed.malformed ? "MALFORMED_PUSH" : "MISSING_CONTENT_TYPE" };
    noteChunk(typeChunk);
    contentType = typeData;
    i++;
    const next = chunks[i];
    const nextData = next && !next.malformed ? pushedData(next) : null;
    if (nextData !== null && nextData.length > 0) {
      noteChunk(next);
      action = nextData;
      i++;
    }
    const marker = chunks[i];
    const markerData = marker && !marker.malformed ? pushedData(marker) : null;
    if (markerData === null || markerData.length !== 0) {
      return { kind: "invalid", reason: parsed.malformed ? "MALFORMED_PUSH" : "MISSING_PAYLOAD_MARKER" };
    }
    noteChunk(marker);
    i++;
  } else if (tag !== null && tag.length === 0) {
    noteChunk(tagChunk);
    i++;
  } else {
    return { kind: "invalid", reason: "UNKNOWN_ENVELOPE_TAG" };
  }
  const payload: Uint8Array[] = [];
  for (; i < chunks.length; i++) {
    const chunk = chunks[i];
    if (chunk.malformed) return { kind: "invalid", reason: "MALFORMED_PUSH" };
    if (chunk.opcode === OP.OP_ENDIF) {
      const found = [...flags];
      return contentType !== null
        ? { kind: "start", contentType, action, chunks: payload, flags: found }
        : { kind: "continuation", chunks: payload, flags: found };
    }
    const data = pushedData(chunk);
    if (data === null) return { kind: "invalid", reason: "NON_PUSH_IN_PAYLOAD" };
    noteChunk(chunk);
    payload.push(data);
  }
  return { kind: "invalid", reason: parsed.malformed ? "MALFORMED_PUSH" : "MISSING_ENDIF" };
}

/** The redeem script of a P2SH-style scriptSig: its last push, when the scriptSig is push-only. */
export function p2shRedeemScript(scriptSig: Uint8Array): Uint8Array | null {
  const parsed = parseScript(scriptSig);
  if (parsed.malformed || parsed.chunks.length === 0) return null;
  for (const chunk of parsed.chunks) if (chunk.opcode > OP.OP_16) return null;
  return parsed.chunks[parsed.chunks.length - 1].data ?? null;
}

function decodeText(bytes: Uint8Array): { text: string; valid: boolean } {
  try {
    return { text: strictUtf8Decoder.decode(bytes), valid: true };
  } catch {
    return { text: lossyUtf8Decoder.decode(bytes), valid: false };
  }
}

/**
 * Finds the v1 inscription of a reveal: the first input whose redeem script (last push of a
 * push-only scriptSig) holds a header envelope, followed by the inputs right after it that hold
 * continuation envelopes. Never throws; everything odd is listed in `issues`.
 */
export function findV1Inscription(tx: Pick<Transaction, "inputs">): V1InscriptionSearch {
  const issues: string[] = [];
  let inscription: V1Inscription | null = null;
  let collecting = false;
  let parts: Uint8Array[] = [];
  let header: { contentType: Uint8Array; action: Uint8Array | null; firstInput: number } | null = null;
  let inputCount = 0;

  const finish = (): void => {
    if (!header) return;
    const body = concatBytes(...parts);
    const contentType = decodeText(header.contentType);
    const action = header.action ? decodeText(header.action) : null;
    if (!contentType.valid) issues.push(`CONTENT_TYPE_NOT_UTF8@${header.firstInput}`);
    if (action && !action.valid) issues.push(`ACTION_NOT_UTF8@${header.firstInput}`);
    if (header.contentType.length === 0) issues.push(`EMPTY_CONTENT_TYPE@${header.firstInput}`);
    inscription = {
      contentType: contentType.text,
      action: action ? action.text : null,
      body,
      envelopeHash: bytesToHex(
        sha256(canonicalScript({ contentType: header.contentType, action: header.action }, body)),
      ),
      inputCount,
      firstInput: header.firstInput,
    };
    header = null;
  };

  tx.inputs.forEach((input, index) => {
    const redeemScript = p2shRedeemScript(input.scriptSig);
    const read: EnvelopeScriptRead = redeemScript ? readEnvelopeScript(redeemScript) : { kind: "none" };
    if (read.kind === "invalid") issues.push(`${read.reason}@${index}`);
    if ((read.kind === "start" || read.kind === "continuation") && redeemScript!.length > MAX_REDEEM_SCRIPT_BYTES) {
      issues.push(`OVERSIZED_REDEEM_SCRIPT@${index}`);
    }
    if (read.kind === "start" || read.kind === "continuation")
      for (const flag of read.flags) issues.push(`${flag}@${index}`);

    if (collecting && read.kind === "continuation") {
      parts.push(...read.chunks);
      inputCount++;
      return;
    }
    if (collecting) {
      collecting = false;
      finish();
    }
    if (read.kind === "start") {
      if (inscription !== null || header !== null) {
        issues.push(`EXTRA_ENVELOPE@${index}`);
        return;
      }
      header = { contentType: read.contentType, action: read.action, firstInput: index };
      parts = [...read.chunks];
      inputCount = 1;
      collecting = true;
    } else if (read.kind === "continuation") {
      issues.push(`STRAY_CONTINUATION@${index}`);
    }
  });
  if (collecting) finish();
  return { inscription, issues };
}
