/**
 * OP_CHECKZKP (0xB9, today OP_NOP10) capture: finds every use of the opcode in a transaction and
 * decodes the stack it would read, following the draft DIP-69 as described in ../shared/ZKP.md.
 * Pure and total: arbitrary scripts and transactions give records with a `parse_error`, never an
 * exception. Verification is not done here (`shadow_valid` stays null; see groth16.ts).
 */
import { OP, ScriptChunk, bytesToHex, concatBytes, decodeScriptNum, decodeSmallInt, isCoinbaseInput, isPushOnly, parseScript, sha256 } from "../doge";
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
  "proof A.x", "proof A.y",
  "proof B.x.c0", "proof B.x.c1", "proof B.y.c0", "proof B.y.c1",
  "proof C.x", "proof C.y",
  "public input 0", "public input 1",
  "vk chunk 0", "vk chunk 1", "vk chunk 2", "vk chunk 3", "vk chunk 4", "vk chunk 5",
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

/** A stack item the opcode would read: the push that put it there. */
export type ZkpOperand = Pick<ScriptChunk, "opcode" | "data">;

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

/** True for the opcodes that neither read nor change the stack, so operands can sit before them. */
function isStackNeutral(opcode: number): boolean {
  return opcode === OP.OP_NOP || (opcode >= OP.OP_NOP1 && opcode <= OP.OP_NOP10);
}

function isPushChunk(chunk: ScriptChunk): boolean {
  return !chunk.malformed && chunk.opcode <= OP.OP_16 && chunk.opcode !== OP.OP_RESERVED;
}

/** Value an OP_N push stands for, as the bytes a stack item would hold. */
function operandBytes(operand: ZkpOperand): Uint8Array {
  if (operand.data) return operand.data;
  const value = decodeSmallInt(operand.opcode);
  if (value === null || value === 0) return new Uint8Array(0);
  return value === -1 ? Uint8Array.of(0x81) : Uint8Array.of(value);
}

/** Reads the mode from the top stack item: a small-int opcode or a script number of up to 4 bytes. */
function readMode(top: ZkpOperand): number | null {
  const value = top.data === undefined ? decodeSmallInt(top.opcode) : decodeScriptNum(top.data, 4);
  return value === null ? null : value + 0; // + 0 turns the negative zero 0x80 into 0
}

function emptyDecoded(mode: number | null, parseError: string): DecodedZkpOperands {
  return {
    mode,
    mode_name: mode === null ? null : ZKP_MODE_NAMES[mode] ?? null,
    proof_hex: null,
    vk_hex: null,
    vk_sha256: null,
    public_inputs: [],
    parse_error: parseError,
  };
}

function decodeGroth16(operands: readonly ZkpOperand[]): DecodedZkpOperands {
  if (operands.length < GROTH16_ITEM_COUNT) {
    return emptyDecoded(0, `mode 0: expected ${GROTH16_ITEM_COUNT} stack items, found ${operands.length}`);
  }
  // The opcode reads the top 17 items; anything below them (e.g. a signature) is not its concern.
  const items = operands.slice(operands.length - GROTH16_ITEM_COUNT).map(operandBytes);
  for (let i = 0; i < GROTH16_ITEM_COUNT - 1; i++) {
    const expected = i < 8 ? GROTH16_COORDINATE_SIZE : i < 10 ? GROTH16_PUBLIC_INPUT_SIZE : GROTH16_VK_CHUNK_SIZE;
    if (items[i].length !== expected) {
      return emptyDecoded(0, `mode 0: item ${i + 1} (${GROTH16_ITEM_NAMES[i]}) is ${items[i].length} bytes, expected ${expected}`);
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
  items: readonly Uint8Array[], start: number, what: "proof" | "key", maxBytes: number,
): { ok: true; bytes: Uint8Array; next: number } | { ok: false; error: string } {
  const lengthItem = items[start];
  if (lengthItem === undefined) return { ok: false, error: `mode 1: stack ends before the ${what} length` };
  if (lengthItem.length !== PLONK_LENGTH_SIZE) {
    return { ok: false, error: `mode 1: ${what} length item is ${lengthItem.length} bytes, expected ${PLONK_LENGTH_SIZE}` };
  }
  const length = (lengthItem[0] | (lengthItem[1] << 8) | (lengthItem[2] << 16)) + lengthItem[3] * 0x1000000;
  if (length === 0) return { ok: false, error: `mode 1: ${what} length is 0` };
  if (length > maxBytes) return { ok: false, error: `mode 1: ${what} length ${length} exceeds ${maxBytes}` };
  const chunkCount = Math.ceil(length / PLONK_CHUNK_SIZE);
  const chunks = items.slice(start + 1, start + 1 + chunkCount);
  if (chunks.length < chunkCount) {
    return { ok: false, error: `mode 1: ${what} length ${length} needs ${chunkCount} chunks, stack has ${chunks.length}` };
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
    return { ok: false, error: `mode 1: public input ${badInput} is ${inputs[badInput].length} bytes, expected ${PLONK_PUBLIC_INPUT_SIZE}` };
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
const PLONK_MAX_ITEMS = 2 + Math.ceil(PLONK_MAX_PROOF_BYTES / PLONK_CHUNK_SIZE) +
  Math.ceil(PLONK_MAX_KEY_BYTES / PLONK_CHUNK_SIZE) + PLONK_MAX_PUBLIC_INPUTS;

function decodePlonk(operands: readonly ZkpOperand[]): DecodedZkpOperands {
  const below = operands.length - 1;
  // The layout is read from its bottom (the proof length). Items under it that belong to something
  // else are skipped by trying each start; only the top PLONK_MAX_ITEMS can hold a layout.
  const items = operands.slice(Math.max(0, below - PLONK_MAX_ITEMS), below).map(operandBytes);
  const fromBottom: PlonkLayout = below <= PLONK_MAX_ITEMS
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
 * Decodes the stack an OP_CHECKZKP would read (bottom to top, the mode on top). Never throws.
 */
export function decodeCheckZkpOperands(operands: readonly ZkpOperand[]): DecodedZkpOperands {
  if (operands.length === 0) return emptyDecoded(null, "no operands: OP_CHECKZKP (OP_NOP10) without a mode push before it");
  const top = operands[operands.length - 1];
  const mode = readMode(top);
  if (mode === null) {
    return emptyDecoded(null, `top stack item is not a mode number (${operandBytes(top).length}-byte push)`);
  }
  if (mode === 0) return decodeGroth16(operands);
  if (mode === 1) return decodePlonk(operands);
  return emptyDecoded(mode, `unknown mode ${mode}`);
}

/**
 * Finds every OP_CHECKZKP among the operations of `script`. Its operands are the pushes right
 * before it (stack-neutral NOPs, including other OP_CHECKZKPs, are stepped over); when those pushes
 * reach back to the start of the script, `stackBelow` (the items the script starts with, e.g. a
 * scriptSig's pushes under a redeem script) lies beneath them. A non-push operation in between
 * changes the stack in ways not modelled here, so the operands stop at it. Linear in the script
 * size however many uses it holds.
 */
export function findCheckZkpInScript(script: Uint8Array, stackBelow: readonly ZkpOperand[] = []): ScriptZkpUse[] {
  const { chunks } = parseScript(script);
  const uses: ScriptZkpUse[] = [];
  // The pushes since the last operation that changed the stack otherwise; decoding only reads its
  // top, so it is shared by every use in the run instead of copied.
  let stack: ZkpOperand[] = [...stackBelow];
  for (let opIndex = 0; opIndex < chunks.length; opIndex++) {
    const chunk = chunks[opIndex];
    if (chunk.malformed) break;
    if (chunk.opcode === OP_CHECKZKP) {
      uses.push({ op_index: opIndex, ...decodeCheckZkpOperands(stack) });
    } else if (isStackNeutral(chunk.opcode)) {
      continue;
    } else if (isPushChunk(chunk)) {
      stack.push(chunk);
    } else {
      stack = [];
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
 * it, or null when the scriptSig cannot be one (or is known not to be).
 */
export function redeemScriptOf(scriptSig: Uint8Array, spendsP2sh?: boolean): { redeemScript: Uint8Array; stackBelow: ZkpOperand[] } | null {
  if (spendsP2sh === false) return null;
  const parsed = parseScript(scriptSig);
  if (parsed.chunks.length === 0 || !isPushOnly(parsed)) return null;
  const last = parsed.chunks[parsed.chunks.length - 1];
  if (!last.data || last.data.length === 0) return null;
  if (spendsP2sh === undefined) {
    if (looksLikePubkey(last.data) || looksLikeSignature(last.data)) return null;
    if (parseScript(last.data).malformed) return null;
  }
  return { redeemScript: last.data, stackBelow: parsed.chunks.slice(0, -1) };
}

/**
 * Every OP_CHECKZKP use in a transaction, in transaction order: each input's scriptSig (role
 * "input") and P2SH redeem script ("redeem_script"), then the outputs ("output"). Coinbase
 * scriptSigs are never executed and are skipped. Never throws.
 */
export function extractCheckZkpUses(tx: DecodedTransaction, blockHeight: number | null, options: ExtractOptions = {}): ZkpUse[] {
  const uses: ZkpUse[] = [];
  const record = (found: ScriptZkpUse, role: ZkpRole, inputIndex: number | null, outputIndex: number | null): ZkpUse => ({
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
    const redeem = redeemScriptOf(input.scriptSig, options.spendsP2sh?.(inputIndex));
    if (!redeem || !redeem.redeemScript.includes(OP_CHECKZKP)) return;
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
