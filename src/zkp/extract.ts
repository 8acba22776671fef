/**
 * OP_CHECKZKP (0xB9, today OP_NOP10) capture: finds every use of the opcode in a transaction and
 * decodes the stack it would read, following the draft DIP-69 as described in ../shared/ZKP.md.
 * Pure and total: arbitrary scripts and transactions give records with a `parse_error`, never an
 * exception. Verification is not done here (`shadow_valid` stays null; see groth16.ts).
 */
import { ripemd160, sha1 } from "@noble/hashes/legacy.js";
import {
  OP,
  ScriptChunk,
  bytesToHex,
  concatBytes,
  decodeScriptNum,
  decodeSmallInt,
  encodeScriptNum,
  hash160,
  isCoinbaseInput,
  isPushOnly,
  parseScript,
  sha256,
  sha256d,
} from "../doge";
import type { DecodedTransaction } from "../doge";

export const OP_CHECKZKP = OP.OP_CHECKZKP;

export type ZkpRole = "output" | "input" | "redeem_script";
export type ZkpModeName = "groth16-bls12-381" | "plonk-halo2-kzg-bn256";

export const ZKP_MODE_NAMES: Readonly<Record<number, ZkpModeName>> = {
  0: "groth16-bls12-381",
  1: "plonk-halo2-kzg-bn256",
};

/** No activation mechanism is specified by the DIP, so every record carries this status. */
export const ZKP_SHADOW_STATUS = "shadow (not consensus-enforced)";

/** Mode 0 (Groth16 on BLS12-381): 8 proof coordinates, 2 public inputs, 6 key chunks, the mode. */
export const GROTH16_ITEM_COUNT = 17;
export const GROTH16_COORDINATE_SIZE = 48;
export const GROTH16_PUBLIC_INPUT_SIZE = 32;
export const GROTH16_VK_CHUNK_SIZE = 80;

/** Mode 1 (PLONK / Halo2-KZG on BN256) limits from the DIP text. */
export const PLONK_MAX_PROOF_BYTES = 4096;
export const PLONK_MAX_KEY_BYTES = 8192;
export const PLONK_MAX_PUBLIC_INPUTS = 64;
export const PLONK_CHUNK_SIZE = 80;
export const PLONK_LENGTH_SIZE = 4;
export const PLONK_PUBLIC_INPUT_SIZE = 32;

/** Names of the 17 mode-0 items, bottom to top (ZKP.md numbers them 1 to 17). */
const GROTH16_ITEM_NAMES = [
  "proof A.x",
  "proof A.y",
  "proof B.x.c0",
  "proof B.x.c1",
  "proof B.y.c0",
  "proof B.y.c1",
  "proof C.x",
  "proof C.y",
  "public input 0",
  "public input 1",
  "vk chunk 0",
  "vk chunk 1",
  "vk chunk 2",
  "vk chunk 3",
  "vk chunk 4",
  "vk chunk 5",
  "mode",
] as const;

/** One OP_CHECKZKP use, as the indexer stores it. */
export interface ZkpUse {
  txid: string;
  block_height: number | null;
  role: ZkpRole;
  /** Input whose scriptSig (or redeem script) holds the use; null for outputs. */
  input_index: number | null;
  /** Output whose scriptPubKey holds the use; null for inputs and redeem scripts. */
  output_index: number | null;
  /** Position of the opcode among the operations of its script (the redeem script for that role). */
  op_index: number;
  /** The top stack item read as a number; null when there is none or it is not a number. */
  mode: number | null;
  mode_name: ZkpModeName | null;
  proof_hex: string | null;
  vk_hex: string | null;
  /** SHA-256 of the key bytes (`vk_hex`), hex. */
  vk_sha256: string | null;
  public_inputs: string[];
  parse_error: string | null;
  /** Result of the off-consensus verifier; null at extraction and when it does not apply. */
  shadow_valid: boolean | null;
  consensus_enforced: false;
  status: typeof ZKP_SHADOW_STATUS;
}

/** What the operands of one use decode to (the record without its location). */
export interface DecodedZkpOperands {
  mode: number | null;
  mode_name: ZkpModeName | null;
  proof_hex: string | null;
  vk_hex: string | null;
  vk_sha256: string | null;
  public_inputs: string[];
  parse_error: string | null;
}

/** A use found in one script, before it is placed in a transaction. */
export interface ScriptZkpUse extends DecodedZkpOperands {
  op_index: number;
}

export interface ExtractOptions {
  /**
   * Whether input `inputIndex` spends a P2SH output, when the caller knows (the indexer does once
   * it has looked up the spent output). When it returns undefined, or no function is given, the
   * last push of a push-only scriptSig is read as a redeem script unless it is shaped like a public
   * key or a signature (so ordinary P2PKH / P2PK spends are not mistaken for redeem scripts).
   */
  spendsP2sh?: (inputIndex: number) => boolean | undefined;
}

/** The stack item a push leaves: its data, or for OP_1NEGATE and OP_1..OP_16 the number's bytes. */
function pushedItem(chunk: ScriptChunk): Uint8Array {
  if (chunk.data) return chunk.data;
  const value = decodeSmallInt(chunk.opcode);
  if (value === null || value === 0) return new Uint8Array(0);
  return value === -1 ? Uint8Array.of(0x81) : Uint8Array.of(value);
}

/** Reads the mode from the top stack item as a script number of up to 4 bytes. */
function readMode(top: Uint8Array): number | null {
  const value = decodeScriptNum(top, 4);
  return value === null ? null : value + 0; // + 0 turns the negative zero 0x80 into 0
}

function emptyDecoded(mode: number | null, parseError: string): DecodedZkpOperands {
  return {
    mode,
    mode_name: mode === null ? null : (ZKP_MODE_NAMES[mode] ?? null),
    proof_hex: null,
    vk_hex: null,
    vk_sha256: null,
    public_inputs: [],
    parse_error: parseError,
  };
}

function decodeGroth16(operands: readonly Uint8Array[]): DecodedZkpOperands {
  if (operands.length < GROTH16_ITEM_COUNT) {
    return emptyDecoded(0, `mode 0: expected ${GROTH16_ITEM_COUNT} stack items, found ${operands.length}`);
  }
  // The opcode reads the top 17 items; anything below them (e.g. a signature) is not its concern.
  const items = operands.slice(operands.length - GROTH16_ITEM_COUNT);
  for (let i = 0; i < GROTH16_ITEM_COUNT - 1; i++) {
    const expected = i < 8 ? GROTH16_COORDINATE_SIZE : i < 10 ? GROTH16_PUBLIC_INPUT_SIZE : GROTH16_VK_CHUNK_SIZE;
    if (items[i].length !== expected) {
      return emptyDecoded(
        0,
        `mode 0: item ${i + 1} (${GROTH16_ITEM_NAMES[i]}) is ${items[i].length} bytes, expected ${expected}`,
      );
    }
  }
  const vk = concatBytes(...items.slice(10, 16));
  return {
    mode: 0,
    mode_name: ZKP_MODE_NAMES[0],
    proof_hex: bytesToHex(concatBytes(...items.slice(0, 8))),
    vk_hex: bytesToHex(vk),
    vk_sha256: bytesToHex(sha256(vk)),
    public_inputs: items.slice(8, 10).map(bytesToHex),
    parse_error: null,
  };
}

type PlonkLayout = { ok: true; decoded: DecodedZkpOperands } | { ok: false; error: string };

function readLengthPrefixedChunks(
  items: readonly Uint8Array[],
  start: number,
  what: "proof" | "key",
  maxBytes: number,
): { ok: true; bytes: Uint8Array; next: number } | { ok: false; error: string } {
  const lengthItem = items[start];
  if (lengthItem === undefined) return { ok: false, error: `mode 1: stack ends before the ${what} length` };
  if (lengthItem.length !== PLONK_LENGTH_SIZE) {
    return {
      ok: false,
      error: `mode 1: ${what} length item is ${lengthItem.length} bytes, expected ${PLONK_LENGTH_SIZE}`,
    };
  }
  const length = (lengthItem[0] | (lengthItem[1] << 8) | (lengthItem[2] << 16)) + lengthItem[3] * 0x1000000;
  if (length === 0) return { ok: false, error: `mode 1: ${what} length is 0` };
  if (length > maxBytes) return { ok: false, error: `mode 1: ${what} length ${length} exceeds ${maxBytes}` };
  const chunkCount = Math.ceil(length / PLONK_CHUNK_SIZE);
  const chunks = items.slice(start + 1, start + 1 + chunkCount);
  if (chunks.length < chunkCount) {
    return {
      ok: false,
      error: `mode 1: ${what} length ${length} needs ${chunkCount} chunks, stack has ${chunks.length}`,
    };
  }
  for (let i = 0; i < chunkCount; i++) {
    const expected = i < chunkCount - 1 ? PLONK_CHUNK_SIZE : length - PLONK_CHUNK_SIZE * (chunkCount - 1);
    if (chunks[i].length !== expected) {
      return { ok: false, error: `mode 1: ${what} chunk ${i} is ${chunks[i].length} bytes, expected ${expected}` };
    }
  }
  return { ok: true, bytes: concatBytes(...chunks), next: start + 1 + chunkCount };
}

/** Mode 1 read bottom to top from `start`; `items` excludes the mode item. */
function decodePlonkFrom(items: readonly Uint8Array[], start: number): PlonkLayout {
  const proof = readLengthPrefixedChunks(items, start, "proof", PLONK_MAX_PROOF_BYTES);
  if (!proof.ok) return proof;
  const key = readLengthPrefixedChunks(items, proof.next, "key", PLONK_MAX_KEY_BYTES);
  if (!key.ok) return key;
  const inputCount = items.length - key.next;
  if (inputCount > PLONK_MAX_PUBLIC_INPUTS) {
    return { ok: false, error: `mode 1: ${inputCount} public inputs, at most ${PLONK_MAX_PUBLIC_INPUTS}` };
  }
  const inputs = items.slice(key.next);
  const badInput = inputs.findIndex((input) => input.length !== PLONK_PUBLIC_INPUT_SIZE);
  if (badInput >= 0) {
    return {
      ok: false,
      error: `mode 1: public input ${badInput} is ${inputs[badInput].length} bytes, expected ${PLONK_PUBLIC_INPUT_SIZE}`,
    };
  }
  return {
    ok: true,
    decoded: {
      mode: 1,
      mode_name: ZKP_MODE_NAMES[1],
      proof_hex: bytesToHex(proof.bytes),
      vk_hex: bytesToHex(key.bytes),
      vk_sha256: bytesToHex(sha256(key.bytes)),
      public_inputs: inputs.map(bytesToHex),
      parse_error: null,
    },
  };
}

/** Most items a mode-1 layout can have below the mode: two lengths, full chunks, 64 inputs. */
const PLONK_MAX_ITEMS =
  2 +
  Math.ceil(PLONK_MAX_PROOF_BYTES / PLONK_CHUNK_SIZE) +
  Math.ceil(PLONK_MAX_KEY_BYTES / PLONK_CHUNK_SIZE) +
  PLONK_MAX_PUBLIC_INPUTS;

function decodePlonk(operands: readonly Uint8Array[]): DecodedZkpOperands {
  const below = operands.length - 1;
  // The layout is read from its bottom (the proof length). Items under it that belong to something
  // else are skipped by trying each start; only the top PLONK_MAX_ITEMS can hold a layout.
  const items = operands.slice(Math.max(0, below - PLONK_MAX_ITEMS), below);
  const fromBottom: PlonkLayout =
    below <= PLONK_MAX_ITEMS
      ? decodePlonkFrom(items, 0)
      : { ok: false, error: `mode 1: ${below} stack items under the mode, more than any layout (${PLONK_MAX_ITEMS})` };
  if (fromBottom.ok) return fromBottom.decoded;
  for (let start = below <= PLONK_MAX_ITEMS ? 1 : 0; start < items.length; start++) {
    if (items[start].length !== PLONK_LENGTH_SIZE) continue;
    const attempt = decodePlonkFrom(items, start);
    if (attempt.ok) return attempt.decoded;
  }
  // The error reported is the one for the whole stack read from its bottom.
  return emptyDecoded(1, fromBottom.error);
}

/**
 * Decodes the stack an OP_CHECKZKP would read (items bottom to top, the mode on top). Reads only
 * the top of the stack, so the cost does not grow with its depth. Never throws.
 */
export function decodeCheckZkpOperands(operands: readonly Uint8Array[]): DecodedZkpOperands {
  if (operands.length === 0)
    return emptyDecoded(null, "no operands: OP_CHECKZKP (OP_NOP10) without a mode push before it");
  const top = operands[operands.length - 1];
  const mode = readMode(top);
  if (mode === null) {
    return emptyDecoded(null, `top stack item is not a mode number (${top.length}-byte item)`);
  }
  if (mode === 0) return decodeGroth16(operands);
  if (mode === 1) return decodePlonk(operands);
  return emptyDecoded(mode, `unknown mode ${mode}`);
}

/** Consensus limit on stack plus alt stack items (MAX_STACK_SIZE); a deeper model is abandoned. */
const MAX_STACK_ITEMS = 1000;
/**
 * Consensus limit on a pushed item (MAX_SCRIPT_ELEMENT_SIZE). A larger push fails the script, so
 * the model drops its stack there; this also bounds what the hash and EQUAL steps read.
 */
const MAX_ITEM_BYTES = 520;

/**
 * Stack effects of the operations modelled while looking for OP_CHECKZKP operands: data-only
 * shuffles, hashes and equality checks, assuming every VERIFY succeeds (a script where one fails
 * is invalid anyway). Each entry names how many items it needs on top of the known stack.
 */
const STACK_OPERATIONS: Partial<
  Record<number, { needs: number; apply: (stack: Uint8Array[], alt: Uint8Array[]) => void }>
> = (() => {
  const top = (stack: Uint8Array[], depth: number) => stack[stack.length - depth];
  const hashOp = (hash: (data: Uint8Array) => Uint8Array) => ({
    needs: 1,
    apply: (stack: Uint8Array[]) => {
      stack.push(hash(stack.pop()!));
    },
  });
  const equalBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i]);
  return {
    [OP.OP_DUP]: {
      needs: 1,
      apply: (stack) => {
        stack.push(top(stack, 1));
      },
    },
    [OP.OP_2DUP]: {
      needs: 2,
      apply: (stack) => {
        stack.push(top(stack, 2), top(stack, 2));
      },
    },
    [OP.OP_3DUP]: {
      needs: 3,
      apply: (stack) => {
        stack.push(top(stack, 3), top(stack, 3), top(stack, 3));
      },
    },
    [OP.OP_OVER]: {
      needs: 2,
      apply: (stack) => {
        stack.push(top(stack, 2));
      },
    },
    [OP.OP_2OVER]: {
      needs: 4,
      apply: (stack) => {
        stack.push(top(stack, 4), top(stack, 4));
      },
    },
    [OP.OP_SWAP]: {
      needs: 2,
      apply: (stack) => {
        stack.push(...stack.splice(-2, 1));
      },
    },
    [OP.OP_2SWAP]: {
      needs: 4,
      apply: (stack) => {
        stack.push(...stack.splice(-4, 2));
      },
    },
    [OP.OP_ROT]: {
      needs: 3,
      apply: (stack) => {
        stack.push(...stack.splice(-3, 1));
      },
    },
    [OP.OP_2ROT]: {
      needs: 6,
      apply: (stack) => {
        stack.push(...stack.splice(-6, 2));
      },
    },
    [OP.OP_NIP]: {
      needs: 2,
      apply: (stack) => {
        stack.splice(-2, 1);
      },
    },
    [OP.OP_TUCK]: {
      needs: 2,
      apply: (stack) => {
        stack.splice(-2, 0, top(stack, 1));
      },
    },
    [OP.OP_DROP]: {
      needs: 1,
      apply: (stack) => {
        stack.pop();
      },
    },
    [OP.OP_2DROP]: {
      needs: 2,
      apply: (stack) => {
        stack.length -= 2;
      },
    },
    [OP.OP_VERIFY]: {
      needs: 1,
      apply: (stack) => {
        stack.pop();
      },
    },
    [OP.OP_EQUALVERIFY]: {
      needs: 2,
      apply: (stack) => {
        stack.length -= 2;
      },
    },
    [OP.OP_EQUAL]: {
      needs: 2,
      apply: (stack) => {
        stack.push(equalBytes(stack.pop()!, stack.pop()!) ? Uint8Array.of(1) : new Uint8Array(0));
      },
    },
    [OP.OP_SIZE]: {
      needs: 1,
      apply: (stack) => {
        stack.push(encodeScriptNum(top(stack, 1).length));
      },
    },
    [OP.OP_TOALTSTACK]: {
      needs: 1,
      apply: (stack, alt) => {
        alt.push(stack.pop()!);
      },
    },
    [OP.OP_SHA256]: hashOp(sha256),
    [OP.OP_HASH256]: hashOp(sha256d),
    [OP.OP_HASH160]: hashOp(hash160),
    [OP.OP_RIPEMD160]: hashOp(ripemd160),
    [OP.OP_SHA1]: hashOp(sha1),
  };
})();

function isStackNeutral(opcode: number): boolean {
  return opcode === OP.OP_NOP || (opcode >= OP.OP_NOP1 && opcode <= OP.OP_NOP10);
}

/**
 * Finds every OP_CHECKZKP among the operations of `script` and decodes the stack it would see.
 * The stack is modelled from `stackBelow` (what the script starts on, e.g. a scriptSig's pushes
 * under a redeem script): pushes, NOPs, the shuffles, hashes and equality checks above. Any other
 * operation (branches, arithmetic, signature checks), one that reaches below the known items, or
 * a push over 520 bytes makes the stack unknown, and the model starts again from an empty stack
 * after it. Never throws; linear in the script size however many uses it holds.
 */
export function findCheckZkpInScript(script: Uint8Array, stackBelow: readonly Uint8Array[] = []): ScriptZkpUse[] {
  const { chunks } = parseScript(script);
  const uses: ScriptZkpUse[] = [];
  let stack: Uint8Array[] = stackBelow.some((item) => item.length > MAX_ITEM_BYTES) ? [] : [...stackBelow];
  let alt: Uint8Array[] = [];
  for (let opIndex = 0; opIndex < chunks.length; opIndex++) {
    const chunk = chunks[opIndex];
    if (chunk.malformed) break;
    const opcode = chunk.opcode;
    if (opcode === OP_CHECKZKP) {
      uses.push({ op_index: opIndex, ...decodeCheckZkpOperands(stack) });
      continue;
    }
    if (isStackNeutral(opcode)) continue;
    if (opcode <= OP.OP_16 && opcode !== OP.OP_RESERVED) {
      const item = pushedItem(chunk);
      if (item.length <= MAX_ITEM_BYTES) {
        stack.push(item);
      } else {
        stack = [];
        alt = [];
      }
    } else if (opcode === OP.OP_FROMALTSTACK && alt.length > 0) {
      stack.push(alt.pop()!);
    } else {
      const operation = STACK_OPERATIONS[opcode];
      if (operation && stack.length >= operation.needs) {
        operation.apply(stack, alt);
      } else {
        stack = [];
        alt = [];
      }
    }
    if (stack.length + alt.length > MAX_STACK_ITEMS) {
      stack = [];
      alt = [];
    }
  }
  return uses;
}

function looksLikePubkey(data: Uint8Array): boolean {
  return (data.length === 33 && (data[0] === 0x02 || data[0] === 0x03)) || (data.length === 65 && data[0] === 0x04);
}

function looksLikeSignature(data: Uint8Array): boolean {
  // DER sequence with a hash type byte: 0x30, length of the rest minus the hash type.
  return data.length >= 9 && data.length <= 73 && data[0] === 0x30 && data[1] === data.length - 3;
}

/**
 * The redeem script of a P2SH spend (the last push of a push-only scriptSig) with the pushes under
 * it, or null when the scriptSig cannot be one (or is known not to be). `spendsP2sh` may be a
 * function, asked only when the scriptSig could hold a redeem script; with `holding`, only a redeem
 * script that contains that byte is returned.
 */
export function redeemScriptOf(
  scriptSig: Uint8Array,
  spendsP2sh?: boolean | (() => boolean | undefined),
  holding?: number,
): { redeemScript: Uint8Array; stackBelow: Uint8Array[] } | null {
  if (spendsP2sh === false) return null;
  const parsed = parseScript(scriptSig);
  if (parsed.chunks.length === 0 || !isPushOnly(parsed)) return null;
  const last = parsed.chunks[parsed.chunks.length - 1];
  if (!last.data || last.data.length === 0) return null;
  if (holding !== undefined && !last.data.includes(holding)) return null;
  // Asked only now: the caller's answer may cost a lookup, and most scriptSigs stop above.
  const p2sh = typeof spendsP2sh === "function" ? spendsP2sh() : spendsP2sh;
  if (p2sh === false) return null;
  if (p2sh === undefined) {
    if (looksLikePubkey(last.data) || looksLikeSignature(last.data)) return null;
    if (parseScript(last.data).malformed) return null;
  }
  return { redeemScript: last.data, stackBelow: parsed.chunks.slice(0, -1).map(pushedItem) };
}

/**
 * True when `script`, read op by op as parseScript reads it (up to a push that runs past its end),
 * has `opcode` as an operation rather than inside pushed data. Allocates nothing. With `lastPush`,
 * also when the data of the script's last push, read as a script, has it (a P2SH redeem script).
 */
function hasOpcode(script: Uint8Array, opcode: number, lastPush = false): boolean {
  let at = 0;
  let pushStart = -1;
  let pushEnd = -1;
  while (at < script.length) {
    const op = script[at++];
    let length = -1;
    if (op >= 1 && op <= 75) length = op;
    else if (op === OP.OP_PUSHDATA1) {
      if (at + 1 > script.length) break;
      length = script[at];
      at += 1;
    } else if (op === OP.OP_PUSHDATA2) {
      if (at + 2 > script.length) break;
      length = script[at] | (script[at + 1] << 8);
      at += 2;
    } else if (op === OP.OP_PUSHDATA4) {
      if (at + 4 > script.length) break;
      length = (script[at] | (script[at + 1] << 8) | (script[at + 2] << 16)) + script[at + 3] * 2 ** 24;
      at += 4;
    }
    if (length === -1) {
      if (op === opcode) return true;
      continue;
    }
    if (at + length > script.length) break;
    pushStart = at;
    pushEnd = at + length;
    at = pushEnd;
  }
  return lastPush && pushStart !== -1 && hasOpcode(script.subarray(pushStart, pushEnd), opcode);
}

/**
 * False when extractCheckZkpUses() finds nothing in `tx` for certain: no scriptSig, redeem script
 * (a scriptSig's last push) or output script has OP_CHECKZKP as an operation. The byte alone is in
 * about 40% of signatures, whose parsing this cheaper scan spares.
 */
export function mayUseCheckZkp(tx: DecodedTransaction): boolean {
  for (const input of tx.inputs)
    if (input.scriptSig.includes(OP_CHECKZKP) && hasOpcode(input.scriptSig, OP_CHECKZKP, true)) return true;
  for (const output of tx.outputs)
    if (output.script.includes(OP_CHECKZKP) && hasOpcode(output.script, OP_CHECKZKP)) return true;
  return false;
}

/**
 * Every OP_CHECKZKP use in a transaction, in transaction order: each input's scriptSig (role
 * "input") and P2SH redeem script ("redeem_script"), then the outputs ("output"). Coinbase
 * scriptSigs are never executed and are skipped. Never throws.
 */
export function extractCheckZkpUses(
  tx: DecodedTransaction,
  blockHeight: number | null,
  options: ExtractOptions = {},
): ZkpUse[] {
  const uses: ZkpUse[] = [];
  const record = (
    found: ScriptZkpUse,
    role: ZkpRole,
    inputIndex: number | null,
    outputIndex: number | null,
  ): ZkpUse => ({
    txid: tx.txid,
    block_height: blockHeight,
    role,
    input_index: inputIndex,
    output_index: outputIndex,
    op_index: found.op_index,
    mode: found.mode,
    mode_name: found.mode_name,
    proof_hex: found.proof_hex,
    vk_hex: found.vk_hex,
    vk_sha256: found.vk_sha256,
    public_inputs: found.public_inputs,
    parse_error: found.parse_error,
    shadow_valid: null,
    consensus_enforced: false,
    status: ZKP_SHADOW_STATUS,
  });
  tx.inputs.forEach((input, inputIndex) => {
    if (isCoinbaseInput(input) || !input.scriptSig.includes(OP_CHECKZKP)) return;
    for (const found of findCheckZkpInScript(input.scriptSig)) uses.push(record(found, "input", inputIndex, null));
    const spendsP2sh = options.spendsP2sh;
    const redeem = redeemScriptOf(input.scriptSig, spendsP2sh && (() => spendsP2sh(inputIndex)), OP_CHECKZKP);
    if (!redeem) return;
    for (const found of findCheckZkpInScript(redeem.redeemScript, redeem.stackBelow)) {
      uses.push(record(found, "redeem_script", inputIndex, null));
    }
  });
  tx.outputs.forEach((output, outputIndex) => {
    if (!output.script.includes(OP_CHECKZKP)) return;
    for (const found of findCheckZkpInScript(output.script)) uses.push(record(found, "output", null, outputIndex));
  });
  return uses;
}
