/**
 * Dogecoin transaction codec. Dogecoin has no segregated witness, so a transaction is the classic
 * serialization: version, inputs, outputs, lock time. The txid is the double SHA-256 of those bytes.
 */
import {
  ByteReader,
  ByteWriter,
  DecodeError,
  ParseResult,
  bytesToHexReversed,
  hexReversedToBytes,
  hexToBytes,
  isHex,
  varintSize,
} from "./bytes";
import { sha256d } from "./hash";

export interface TxInput {
  /** Txid of the spent output, in display (big-endian) hex. All zeros for a coinbase input. */
  prevTxid: string;
  /** Index of the spent output; 0xffffffff for a coinbase input. */
  vout: number;
  scriptSig: Uint8Array;
  sequence: number;
}

export interface TxOutput {
  /** Amount in koinu. */
  value: bigint;
  script: Uint8Array;
}

export interface Transaction {
  version: number;
  inputs: TxInput[];
  outputs: TxOutput[];
  locktime: number;
}

/** A transaction with its identity: txid and serialized size. */
export interface DecodedTransaction extends Transaction {
  txid: string;
  size: number;
}

export const NULL_TXID = "0".repeat(64);
export const MAX_MONEY = 10_000_000_000n * 100_000_000n; // Dogecoin Core amount.h MAX_MONEY

export function isCoinbaseInput(input: TxInput): boolean {
  return input.vout === 0xffffffff && input.prevTxid === NULL_TXID;
}

export function isCoinbase(tx: Transaction): boolean {
  return tx.inputs.length === 1 && isCoinbaseInput(tx.inputs[0]);
}

/** Reads one transaction at the reader's offset; throws DecodeError with the offset on failure. */
export function readTransaction(reader: ByteReader): DecodedTransaction {
  const start = reader.offset;
  const version = reader.i32("tx version");
  const inputCount = reader.varint("input count");
  if (inputCount === 0) {
    // A zero input count is how segwit's marker would start; Dogecoin has none.
    throw new DecodeError("NO_INPUTS", "transaction has no inputs", reader.offset - 1);
  }
  // Each input needs at least 41 bytes; a count that cannot fit is corrupt.
  if (inputCount > reader.remaining / 41) {
    throw new DecodeError(
      "BAD_INPUT_COUNT",
      `input count ${inputCount} exceeds the data`,
      reader.offset - varintSize(inputCount),
    );
  }
  const inputs: TxInput[] = new Array(inputCount);
  for (let i = 0; i < inputCount; i++) {
    const prevTxid = reader.hash32("previous txid");
    const vout = reader.u32("previous output index");
    const scriptSig = reader.varBytes("scriptSig");
    const sequence = reader.u32("sequence");
    inputs[i] = { prevTxid, vout, scriptSig, sequence };
  }
  const outputCount = reader.varint("output count");
  if (outputCount > reader.remaining / 9) {
    throw new DecodeError(
      "BAD_OUTPUT_COUNT",
      `output count ${outputCount} exceeds the data`,
      reader.offset - varintSize(outputCount),
    );
  }
  const outputs: TxOutput[] = new Array(outputCount);
  for (let i = 0; i < outputCount; i++) {
    const value = reader.i64("output value");
    const script = reader.varBytes("output script");
    outputs[i] = { value, script };
  }
  const locktime = reader.u32("lock time");
  const raw = reader.bytes.subarray(start, reader.offset);
  return { version, inputs, outputs, locktime, txid: bytesToHexReversed(sha256d(raw)), size: raw.length };
}

/** Parses a whole transaction; never throws. Trailing bytes are an error. */
export function parseTransaction(bytes: Uint8Array): ParseResult<DecodedTransaction> {
  try {
    const reader = new ByteReader(bytes);
    const tx = readTransaction(reader);
    if (reader.remaining !== 0) {
      return {
        ok: false,
        error: new DecodeError("TRAILING_BYTES", `${reader.remaining} bytes after the transaction`, reader.offset),
      };
    }
    return { ok: true, value: tx };
  } catch (error) {
    if (error instanceof DecodeError) return { ok: false, error };
    return { ok: false, error: new DecodeError("INTERNAL", String(error), 0) };
  }
}

/** Parses transaction hex; never throws. */
export function parseTransactionHex(hex: string): ParseResult<DecodedTransaction> {
  if (!isHex(hex)) return { ok: false, error: new DecodeError("BAD_HEX", "not an even-length hex string", 0) };
  return parseTransaction(hexToBytes(hex));
}

export function writeTransaction(writer: ByteWriter, tx: Transaction): void {
  writer.i32(tx.version);
  writer.varint(tx.inputs.length);
  for (const input of tx.inputs) {
    writer.bytes(hexReversedToBytes(input.prevTxid));
    writer.u32(input.vout);
    writer.varBytes(input.scriptSig);
    writer.u32(input.sequence);
  }
  writer.varint(tx.outputs.length);
  for (const output of tx.outputs) {
    writer.i64(output.value);
    writer.varBytes(output.script);
  }
  writer.u32(tx.locktime);
}

export function serializeTransaction(tx: Transaction): Uint8Array {
  const writer = new ByteWriter(transactionSize(tx));
  writeTransaction(writer, tx);
  return writer.finish();
}

export function transactionSize(tx: Transaction): number {
  let size = 4 + varintSize(tx.inputs.length) + varintSize(tx.outputs.length) + 4;
  for (const input of tx.inputs) size += 40 + varintSize(input.scriptSig.length) + input.scriptSig.length;
  for (const output of tx.outputs) size += 8 + varintSize(output.script.length) + output.script.length;
  return size;
}

export function txidOf(tx: Transaction): string {
  return bytesToHexReversed(sha256d(serializeTransaction(tx)));
}
