/** Test helpers for src/zkp: ASM text to script bytes, transactions built from ASM. */
import {
  NULL_TXID,
  OP,
  compileScript,
  concatBytes,
  hexToBytes,
  parseTransaction,
  serializeTransaction,
} from "../../src/doge";
import type { DecodedTransaction, Transaction } from "../../src/doge";

const OPCODES: Record<string, number> = OP;

/**
 * ASM as the zkp vectors write it: OP_ names are opcodes, `0x<hex>` is copied in as raw bytes,
 * any other token is hex data pushed with the minimal encoding.
 */
export function asmToScript(asm: string): Uint8Array {
  const parts = asm
    .trim()
    .split(/\s+/)
    .filter((token) => token.length > 0)
    .map((token) => {
      if (token.startsWith("OP_")) {
        const opcode = OPCODES[token];
        if (opcode === undefined) throw new Error(`unknown opcode ${token}`);
        return Uint8Array.of(opcode);
      }
      if (token.startsWith("0x")) return hexToBytes(token.slice(2));
      return compileScript([hexToBytes(token)]);
    });
  return concatBytes(...parts);
}

export interface TxSpec {
  coinbase?: boolean;
  inputs: { script_sig_asm: string; spends_p2sh?: boolean }[];
  outputs: { script_asm: string }[];
}

/** A transaction from a vector's spec, serialized and parsed back so it has its real txid. */
export function buildTransaction(spec: TxSpec): DecodedTransaction {
  const tx: Transaction = {
    version: 1,
    inputs: spec.inputs.map((input, index) => ({
      prevTxid: spec.coinbase ? NULL_TXID : (index + 1).toString(16).padStart(64, "0"),
      vout: spec.coinbase ? 0xffffffff : 0,
      scriptSig: asmToScript(input.script_sig_asm),
      sequence: 0xffffffff,
    })),
    outputs: spec.outputs.map((output) => ({ value: 1n, script: asmToScript(output.script_asm) })),
    locktime: 0,
  };
  const parsed = parseTransaction(serializeTransaction(tx));
  if (!parsed.ok) throw parsed.error;
  return parsed.value;
}

/** The spendsP2sh option a spec describes (undefined for inputs that do not say). */
export function spendsP2shOf(spec: TxSpec): (inputIndex: number) => boolean | undefined {
  return (inputIndex) => spec.inputs[inputIndex]?.spends_p2sh;
}
