/**
 * Script tokenizer, builder and classifier. The tokenizer never throws: a push that runs past the
 * end of the script is returned as a malformed chunk and the script is flagged.
 */
import { bytesToHex, concatBytes } from "./bytes";

/** Opcode names as in Bitcoin Core's src/script/script.cpp GetOpName (Dogecoin shares them). */
export const OP = {
  OP_0: 0x00,
  OP_FALSE: 0x00,
  OP_PUSHDATA1: 0x4c,
  OP_PUSHDATA2: 0x4d,
  OP_PUSHDATA4: 0x4e,
  OP_1NEGATE: 0x4f,
  OP_RESERVED: 0x50,
  OP_1: 0x51,
  OP_TRUE: 0x51,
  OP_2: 0x52,
  OP_3: 0x53,
  OP_4: 0x54,
  OP_5: 0x55,
  OP_6: 0x56,
  OP_7: 0x57,
  OP_8: 0x58,
  OP_9: 0x59,
  OP_10: 0x5a,
  OP_11: 0x5b,
  OP_12: 0x5c,
  OP_13: 0x5d,
  OP_14: 0x5e,
  OP_15: 0x5f,
  OP_16: 0x60,
  OP_NOP: 0x61,
  OP_VER: 0x62,
  OP_IF: 0x63,
  OP_NOTIF: 0x64,
  OP_VERIF: 0x65,
  OP_VERNOTIF: 0x66,
  OP_ELSE: 0x67,
  OP_ENDIF: 0x68,
  OP_VERIFY: 0x69,
  OP_RETURN: 0x6a,
  OP_TOALTSTACK: 0x6b,
  OP_FROMALTSTACK: 0x6c,
  OP_2DROP: 0x6d,
  OP_2DUP: 0x6e,
  OP_3DUP: 0x6f,
  OP_2OVER: 0x70,
  OP_2ROT: 0x71,
  OP_2SWAP: 0x72,
  OP_IFDUP: 0x73,
  OP_DEPTH: 0x74,
  OP_DROP: 0x75,
  OP_DUP: 0x76,
  OP_NIP: 0x77,
  OP_OVER: 0x78,
  OP_PICK: 0x79,
  OP_ROLL: 0x7a,
  OP_ROT: 0x7b,
  OP_SWAP: 0x7c,
  OP_TUCK: 0x7d,
  OP_CAT: 0x7e,
  OP_SUBSTR: 0x7f,
  OP_LEFT: 0x80,
  OP_RIGHT: 0x81,
  OP_SIZE: 0x82,
  OP_INVERT: 0x83,
  OP_AND: 0x84,
  OP_OR: 0x85,
  OP_XOR: 0x86,
  OP_EQUAL: 0x87,
  OP_EQUALVERIFY: 0x88,
  OP_RESERVED1: 0x89,
  OP_RESERVED2: 0x8a,
  OP_1ADD: 0x8b,
  OP_1SUB: 0x8c,
  OP_2MUL: 0x8d,
  OP_2DIV: 0x8e,
  OP_NEGATE: 0x8f,
  OP_ABS: 0x90,
  OP_NOT: 0x91,
  OP_0NOTEQUAL: 0x92,
  OP_ADD: 0x93,
  OP_SUB: 0x94,
  OP_MUL: 0x95,
  OP_DIV: 0x96,
  OP_MOD: 0x97,
  OP_LSHIFT: 0x98,
  OP_RSHIFT: 0x99,
  OP_BOOLAND: 0x9a,
  OP_BOOLOR: 0x9b,
  OP_NUMEQUAL: 0x9c,
  OP_NUMEQUALVERIFY: 0x9d,
  OP_NUMNOTEQUAL: 0x9e,
  OP_LESSTHAN: 0x9f,
  OP_GREATERTHAN: 0xa0,
  OP_LESSTHANOREQUAL: 0xa1,
  OP_GREATERTHANOREQUAL: 0xa2,
  OP_MIN: 0xa3,
  OP_MAX: 0xa4,
  OP_WITHIN: 0xa5,
  OP_RIPEMD160: 0xa6,
  OP_SHA1: 0xa7,
  OP_SHA256: 0xa8,
  OP_HASH160: 0xa9,
  OP_HASH256: 0xaa,
  OP_CODESEPARATOR: 0xab,
  OP_CHECKSIG: 0xac,
  OP_CHECKSIGVERIFY: 0xad,
  OP_CHECKMULTISIG: 0xae,
  OP_CHECKMULTISIGVERIFY: 0xaf,
  OP_NOP1: 0xb0,
  OP_CHECKLOCKTIMEVERIFY: 0xb1,
  OP_CHECKSEQUENCEVERIFY: 0xb2,
  OP_NOP4: 0xb3,
  OP_NOP5: 0xb4,
  OP_NOP6: 0xb5,
  OP_NOP7: 0xb6,
  OP_NOP8: 0xb7,
  OP_NOP9: 0xb8,
  OP_NOP10: 0xb9,
  /** OP_NOP10 under its proposed name (DIP-69). */
  OP_CHECKZKP: 0xb9,
  OP_INVALIDOPCODE: 0xff,
} as const;

const OPCODE_NAMES: string[] = (() => {
  const names: string[] = [];
  for (const [name, code] of Object.entries(OP)) {
    // The first name listed for a code is the canonical one (OP_0 before OP_FALSE, ...).
    if (names[code] === undefined && name !== "OP_CHECKZKP") names[code] = name;
  }
  names[0xb1] = "OP_CHECKLOCKTIMEVERIFY";
  names[0xb2] = "OP_CHECKSEQUENCEVERIFY";
  return names;
})();

/** Core's GetOpName: "OP_UNKNOWN" for codes with no name. */
export function opcodeName(opcode: number): string {
  if (opcode === 0) return "0";
  if (opcode === OP.OP_1NEGATE) return "-1";
  if (opcode >= OP.OP_1 && opcode <= OP.OP_16) return String(opcode - OP.OP_1 + 1);
  return OPCODE_NAMES[opcode] ?? "OP_UNKNOWN";
}

export type PushEncoding = "direct" | "pushdata1" | "pushdata2" | "pushdata4";

export interface ScriptChunk {
  opcode: number;
  /** Present for data pushes (opcodes 0x00-0x4e), including the empty push OP_0. */
  data?: Uint8Array;
  encoding?: PushEncoding;
  /** Byte offsets of the chunk within the script. */
  start: number;
  end: number;
  /** Set on the last chunk when its declared push length runs past the end of the script. */
  malformed?: boolean;
}

export interface ParsedScript {
  chunks: ScriptChunk[];
  /** True when a push runs past the end of the script (the chunk is truncated and flagged). */
  malformed: boolean;
  /** Offset of the malformed push, when any. */
  errorOffset?: number;
}

/** Tokenizes a script. Never throws. */
export function parseScript(script: Uint8Array): ParsedScript {
  const chunks: ScriptChunk[] = [];
  let i = 0;
  const n = script.length;
  while (i < n) {
    const start = i;
    const opcode = script[i++];
    if (opcode > OP.OP_PUSHDATA4) {
      chunks.push({ opcode, start, end: i });
      continue;
    }
    let length: number;
    let encoding: PushEncoding;
    if (opcode < OP.OP_PUSHDATA1) {
      length = opcode;
      encoding = "direct";
    } else {
      const width = opcode === OP.OP_PUSHDATA1 ? 1 : opcode === OP.OP_PUSHDATA2 ? 2 : 4;
      encoding = opcode === OP.OP_PUSHDATA1 ? "pushdata1" : opcode === OP.OP_PUSHDATA2 ? "pushdata2" : "pushdata4";
      if (i + width > n) {
        chunks.push({ opcode, data: script.subarray(i, n), encoding, start, end: n, malformed: true });
        return { chunks, malformed: true, errorOffset: start };
      }
      length = script[i];
      if (width >= 2) length |= script[i + 1] << 8;
      if (width === 4) length = (length | (script[i + 2] << 16)) + script[i + 3] * 0x1000000;
      i += width;
    }
    if (i + length > n) {
      chunks.push({ opcode, data: script.subarray(i, n), encoding, start, end: n, malformed: true });
      return { chunks, malformed: true, errorOffset: start };
    }
    chunks.push({ opcode, data: script.subarray(i, i + length), encoding, start, end: i + length });
    i += length;
  }
  return { chunks, malformed: false };
}

/** True when the push uses the smallest encoding for its data (Core's CheckMinimalPush). */
export function isMinimalPush(chunk: ScriptChunk): boolean {
  const data = chunk.data;
  if (!data) return true;
  const op = chunk.opcode;
  if (data.length === 0) return op === OP.OP_0;
  if (data.length === 1 && data[0] >= 1 && data[0] <= 16) return false; // should be OP_1..OP_16
  if (data.length === 1 && data[0] === 0x81) return false; // should be OP_1NEGATE
  if (data.length <= 75) return op === data.length;
  if (data.length <= 255) return op === OP.OP_PUSHDATA1;
  if (data.length <= 65535) return op === OP.OP_PUSHDATA2;
  return true;
}

/** True when every chunk is a push (opcodes up to OP_16), as a scriptSig must be. */
export function isPushOnly(parsed: ParsedScript): boolean {
  if (parsed.malformed) return false;
  return parsed.chunks.every((c) => c.opcode <= OP.OP_16);
}

/** Decodes a small-int opcode (OP_0, OP_1NEGATE, OP_1..OP_16); null for anything else. */
export function decodeSmallInt(opcode: number): number | null {
  if (opcode === OP.OP_0) return 0;
  if (opcode === OP.OP_1NEGATE) return -1;
  if (opcode >= OP.OP_1 && opcode <= OP.OP_16) return opcode - OP.OP_1 + 1;
  return null;
}

/** Decodes a minimally or non-minimally encoded script number of up to `maxSize` bytes. */
export function decodeScriptNum(data: Uint8Array, maxSize = 4): number | null {
  if (data.length > maxSize) return null;
  if (data.length === 0) return 0;
  let result = 0;
  for (let i = 0; i < data.length; i++) result += data[i] * 2 ** (8 * i);
  const last = data[data.length - 1];
  if (last & 0x80) return -(result - 0x80 * 2 ** (8 * (data.length - 1)));
  return result;
}

export function encodeScriptNum(value: number): Uint8Array {
  if (value === 0) return new Uint8Array(0);
  const negative = value < 0;
  let abs = Math.abs(value);
  const out: number[] = [];
  while (abs > 0) {
    out.push(abs & 0xff);
    abs = Math.floor(abs / 256);
  }
  if (out[out.length - 1] & 0x80) out.push(negative ? 0x80 : 0);
  else if (negative) out[out.length - 1] |= 0x80;
  return Uint8Array.from(out);
}

/** One element of a script to build: an opcode number or data to push. */
export type ScriptElement = number | Uint8Array;

/** Encodes a data push with the minimal encoding (small ints become OP_N). */
export function encodePush(data: Uint8Array): Uint8Array {
  const n = data.length;
  if (n === 0) return Uint8Array.of(OP.OP_0);
  if (n === 1 && data[0] >= 1 && data[0] <= 16) return Uint8Array.of(OP.OP_1 + data[0] - 1);
  if (n === 1 && data[0] === 0x81) return Uint8Array.of(OP.OP_1NEGATE);
  if (n <= 75) return concatBytes(Uint8Array.of(n), data);
  if (n <= 0xff) return concatBytes(Uint8Array.of(OP.OP_PUSHDATA1, n), data);
  if (n <= 0xffff) return concatBytes(Uint8Array.of(OP.OP_PUSHDATA2, n & 0xff, n >> 8), data);
  return concatBytes(Uint8Array.of(OP.OP_PUSHDATA4, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24), data);
}

/** Builds a script from opcodes and data pushes (pushes minimally encoded). */
export function compileScript(elements: readonly ScriptElement[]): Uint8Array {
  return concatBytes(...elements.map((e) => (typeof e === "number" ? Uint8Array.of(e) : encodePush(e))));
}

/** Core's MAX_SCRIPT_SIZE: a longer script is unspendable. */
const MAX_SCRIPT_SIZE = 10_000;

const SIGHASH_NAMES: Record<number, string> = {
  0x01: "ALL",
  0x02: "NONE",
  0x03: "SINGLE",
  0x81: "ALL|ANYONECANPAY",
  0x82: "NONE|ANYONECANPAY",
  0x83: "SINGLE|ANYONECANPAY",
};

function looksLikeDerSignature(sig: Uint8Array): boolean {
  // Core's IsValidSignatureEncoding (BIP66 strict DER plus a hash type byte).
  if (sig.length < 9 || sig.length > 73) return false;
  if (sig[0] !== 0x30 || sig[1] !== sig.length - 3) return false;
  const lenR = sig[3];
  if (5 + lenR >= sig.length) return false;
  const lenS = sig[5 + lenR];
  if (lenR + lenS + 7 !== sig.length) return false;
  if (sig[2] !== 0x02 || lenR === 0 || sig[4] & 0x80) return false;
  if (lenR > 1 && sig[4] === 0 && !(sig[5] & 0x80)) return false;
  if (sig[lenR + 4] !== 0x02 || lenS === 0 || sig[lenR + 6] & 0x80) return false;
  if (lenS > 1 && sig[lenR + 6] === 0 && !(sig[lenR + 7] & 0x80)) return false;
  return true;
}

/**
 * Script as ASM text in the format of Core's ScriptToAsmStr: pushes of up to 4 bytes as decimal
 * numbers, longer pushes as hex, and with `decodeSighash` (used for scriptSigs) signatures shown
 * with their hash type, e.g. `3044...01` -> `3044...[ALL]`.
 */
export function scriptToAsm(script: Uint8Array, decodeSighash = false): string {
  const parsed = parseScript(script);
  // Core skips the decode in unspendable scripts (IsUnspendable: OP_RETURN first, or larger than
  // MAX_SCRIPT_SIZE) so that OP_RETURN data shaped like a signature is printed as plain hex.
  const unspendable = (script.length > 0 && script[0] === OP.OP_RETURN) || script.length > MAX_SCRIPT_SIZE;
  const attemptSighashDecode = decodeSighash && !unspendable;
  const parts: string[] = [];
  for (const chunk of parsed.chunks) {
    if (chunk.malformed) {
      parts.push("[error]");
      break;
    }
    if (chunk.opcode > OP.OP_PUSHDATA4 || !chunk.data) {
      parts.push(opcodeName(chunk.opcode));
      continue;
    }
    const data = chunk.data;
    if (data.length <= 4) {
      parts.push(String(decodeScriptNum(data) ?? 0));
    } else if (attemptSighashDecode && looksLikeDerSignature(data) && SIGHASH_NAMES[data[data.length - 1]]) {
      parts.push(bytesToHex(data.subarray(0, data.length - 1)) + `[${SIGHASH_NAMES[data[data.length - 1]]}]`);
    } else {
      parts.push(bytesToHex(data));
    }
  }
  return parts.join(" ");
}

export type OutputScriptType = "pubkeyhash" | "scripthash" | "pubkey" | "multisig" | "nulldata" | "nonstandard";

export interface ClassifiedOutput {
  type: OutputScriptType;
  /** 20-byte hash for pubkeyhash / scripthash. */
  hash?: Uint8Array;
  /** Public keys for pubkey / multisig. */
  pubkeys?: Uint8Array[];
  /** Required signatures for multisig (1 for pubkey / pubkeyhash / scripthash). */
  required?: number;
  /** Pushed data of an OP_RETURN output. */
  data?: Uint8Array[];
}

function isPubkey(data: Uint8Array | undefined): data is Uint8Array {
  if (!data) return false;
  if (data.length === 33) return data[0] === 0x02 || data[0] === 0x03;
  // 0x06 / 0x07 are the hybrid uncompressed encodings, 65 bytes like 0x04 (Core's CPubKey::GetLen).
  if (data.length === 65) return data[0] === 0x04 || data[0] === 0x06 || data[0] === 0x07;
  return false;
}

/** Output script templates as Core's Solver (src/script/standard.cpp) recognises them. */
export function classifyOutputScript(script: Uint8Array): ClassifiedOutput {
  const n = script.length;
  if (
    n === 25 &&
    script[0] === OP.OP_DUP &&
    script[1] === OP.OP_HASH160 &&
    script[2] === 20 &&
    script[23] === OP.OP_EQUALVERIFY &&
    script[24] === OP.OP_CHECKSIG
  ) {
    return { type: "pubkeyhash", hash: script.subarray(3, 23), required: 1 };
  }
  if (n === 23 && script[0] === OP.OP_HASH160 && script[1] === 20 && script[22] === OP.OP_EQUAL) {
    return { type: "scripthash", hash: script.subarray(2, 22), required: 1 };
  }
  const parsed = parseScript(script);
  if (parsed.malformed) return { type: "nonstandard" };
  const chunks = parsed.chunks;
  if (n >= 1 && script[0] === OP.OP_RETURN) {
    if (chunks.slice(1).every((c) => c.opcode <= OP.OP_16)) {
      return { type: "nulldata", data: chunks.slice(1).map((c) => c.data ?? Uint8Array.of()) };
    }
    return { type: "nonstandard" };
  }
  if (chunks.length === 2 && isPubkey(chunks[0].data) && chunks[1].opcode === OP.OP_CHECKSIG) {
    return { type: "pubkey", pubkeys: [chunks[0].data], required: 1 };
  }
  if (chunks.length >= 4 && chunks[chunks.length - 1].opcode === OP.OP_CHECKMULTISIG) {
    const m = decodeSmallInt(chunks[0].opcode);
    const keyCount = decodeSmallInt(chunks[chunks.length - 2].opcode);
    const keys = chunks.slice(1, -2);
    if (
      m !== null &&
      keyCount !== null &&
      m >= 1 &&
      keyCount >= m &&
      keys.length === keyCount &&
      keys.every((c) => isPubkey(c.data))
    ) {
      return { type: "multisig", pubkeys: keys.map((c) => c.data as Uint8Array), required: m };
    }
  }
  return { type: "nonstandard" };
}

export function p2pkhScript(pubKeyHash: Uint8Array): Uint8Array {
  if (pubKeyHash.length !== 20) throw new RangeError("P2PKH hash must be 20 bytes");
  return concatBytes(
    Uint8Array.of(OP.OP_DUP, OP.OP_HASH160, 20),
    pubKeyHash,
    Uint8Array.of(OP.OP_EQUALVERIFY, OP.OP_CHECKSIG),
  );
}

export function p2shScript(scriptHash: Uint8Array): Uint8Array {
  if (scriptHash.length !== 20) throw new RangeError("P2SH hash must be 20 bytes");
  return concatBytes(Uint8Array.of(OP.OP_HASH160, 20), scriptHash, Uint8Array.of(OP.OP_EQUAL));
}

export function nullDataScript(...pushes: Uint8Array[]): Uint8Array {
  return compileScript([OP.OP_RETURN, ...pushes]);
}
