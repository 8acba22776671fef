/**
 * ASM text for the inscription vectors, in the bitcoinjs style: opcodes by name (OP_0 for the empty
 * push, OP_1..OP_16, OP_1NEGATE), every other push as hex, pushes compiled minimally.
 */
import { OP, bytesToHex, compileScript, hexToBytes, isHex, parseScript } from "../../src/doge";
import type { ScriptElement } from "../../src/doge";

const NAME_TO_OPCODE = new Map<string, number>(Object.entries(OP));
const OPCODE_TO_NAME = new Map<number, string>();
for (const [name, code] of Object.entries(OP)) if (!OPCODE_TO_NAME.has(code)) OPCODE_TO_NAME.set(code, name);

export function asmToScript(asm: string): Uint8Array {
  const elements: ScriptElement[] = [];
  for (const token of asm.trim().split(/\s+/).filter(Boolean)) {
    const opcode = NAME_TO_OPCODE.get(token);
    if (opcode !== undefined) elements.push(opcode);
    else if (isHex(token) && token.length > 0) elements.push(hexToBytes(token));
    else throw new Error(`bad ASM token ${token}`);
  }
  return compileScript(elements);
}

export function scriptToAsmText(script: Uint8Array): string {
  const parts: string[] = [];
  for (const chunk of parseScript(script).chunks) {
    if (chunk.malformed) throw new Error("malformed script has no ASM form");
    if (chunk.data && chunk.data.length > 0) parts.push(bytesToHex(chunk.data));
    else parts.push(OPCODE_TO_NAME.get(chunk.opcode) ?? `0x${chunk.opcode.toString(16)}`);
  }
  return parts.join(" ");
}
