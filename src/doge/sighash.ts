/**
 * Legacy (pre-segwit) signature hashing, the only kind Dogecoin has, and transaction input signing.
 * Follows Dogecoin Core's SignatureHash for SIGVERSION_BASE (src/script/interpreter.cpp): the
 * transaction is serialized with every scriptSig emptied except the signed input's, which carries
 * the script code; NONE and SINGLE blank the other outputs; ANYONECANPAY keeps only the signed input;
 * then the 4-byte hash type is appended and the whole is double-SHA-256 hashed.
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { ByteWriter, concatBytes, hexToBytes } from "./bytes";
import { sha256d } from "./hash";
import { OP, compileScript, parseScript } from "./script";
import { Transaction, TxOutput, writeTransaction } from "./tx";

export const SIGHASH_ALL = 0x01;
export const SIGHASH_NONE = 0x02;
export const SIGHASH_SINGLE = 0x03;
export const SIGHASH_ANYONECANPAY = 0x80;

/** The "one" hash Core returns for SIGHASH_SINGLE without a matching output (a known quirk). */
const SINGLE_BUG_HASH = hexToBytes("0100000000000000000000000000000000000000000000000000000000000000");

function withoutCodeSeparators(script: Uint8Array): Uint8Array {
  const parsed = parseScript(script);
  if (parsed.malformed || !parsed.chunks.some((c) => c.opcode === OP.OP_CODESEPARATOR)) return script;
  const parts: Uint8Array[] = [];
  for (const chunk of parsed.chunks) {
    if (chunk.opcode !== OP.OP_CODESEPARATOR) parts.push(script.subarray(chunk.start, chunk.end));
  }
  return concatBytes(...parts);
}

export function legacySighash(
  tx: Transaction,
  inputIndex: number,
  scriptCode: Uint8Array,
  hashType: number,
): Uint8Array {
  if (inputIndex < 0 || inputIndex >= tx.inputs.length) throw new RangeError(`input ${inputIndex} out of range`);
  const base = hashType & 0x1f;
  if (base === SIGHASH_SINGLE && inputIndex >= tx.outputs.length) return SINGLE_BUG_HASH;
  const code = withoutCodeSeparators(scriptCode);
  const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0;
  const inputs = (anyoneCanPay ? [tx.inputs[inputIndex]] : tx.inputs).map((input, i) => {
    const signing = anyoneCanPay || i === inputIndex;
    const zeroSequence = !signing && (base === SIGHASH_NONE || base === SIGHASH_SINGLE);
    return { ...input, scriptSig: signing ? code : new Uint8Array(0), sequence: zeroSequence ? 0 : input.sequence };
  });
  let outputs: TxOutput[] = tx.outputs;
  if (base === SIGHASH_NONE) outputs = [];
  else if (base === SIGHASH_SINGLE) {
    outputs = tx.outputs
      .slice(0, inputIndex + 1)
      .map((output, i) => (i === inputIndex ? output : { value: 0xffffffffffffffffn, script: new Uint8Array(0) }));
  }
  const writer = new ByteWriter(256);
  writeTransaction(writer, { version: tx.version, inputs, outputs, locktime: tx.locktime });
  writer.u32(hashType >>> 0);
  return sha256d(writer.finish());
}

/** DER signature (low-s) with the hash type byte appended, ready for a scriptSig. */
export function signInput(
  tx: Transaction,
  inputIndex: number,
  scriptCode: Uint8Array,
  privateKey: Uint8Array,
  hashType = SIGHASH_ALL,
): Uint8Array {
  const digest = legacySighash(tx, inputIndex, scriptCode, hashType);
  const der = secp256k1.sign(digest, privateKey, { prehash: false, format: "der", lowS: true });
  return concatBytes(der, Uint8Array.of(hashType));
}

/** scriptSig of a P2PKH spend: <signature> <public key>. */
export function p2pkhScriptSig(signature: Uint8Array, publicKey: Uint8Array): Uint8Array {
  return compileScript([signature, publicKey]);
}
