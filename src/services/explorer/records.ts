/**
 * The records the spec names, in its field names and types, written once for every surface that
 * answers them (the explorer and the attest API), and the one JSON writer that keeps koinu exact.
 */
import { stringify } from "lossless-json";

/** An OP_RETURN as the index holds it. */
export interface OpReturnView {
  txid: string;
  vout: number;
  height: number;
  payloadHex: string;
  magic: string;
  sha256: string;
  size: number;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** The payload as text when it is valid UTF-8, else null. */
function payloadUtf8(payloadHex: string): string | null {
  try {
    return strictUtf8.decode(Buffer.from(payloadHex, "hex"));
  } catch {
    return null;
  }
}

/**
 * The spec's OP_RETURN record: `{txid, vout, payload_hex, payload_utf8 (null unless valid UTF-8),
 * payload_sha256, magic (first 1-4 bytes, hex), bytes (payload length), block (height),
 * confirmations}` at the indexed height `tip`.
 */
export function opReturnRecord(o: OpReturnView, tip: number) {
  return {
    txid: o.txid,
    vout: o.vout,
    payload_hex: o.payloadHex,
    payload_utf8: payloadUtf8(o.payloadHex),
    payload_sha256: o.sha256,
    magic: o.magic,
    bytes: o.size,
    block: o.height,
    confirmations: tip - o.height + 1,
  };
}

/** The spec's OP_CHECKZKP record (IndexQueries' zkp row) with its `confirmations` at the indexed height `tip`. */
export function zkpRecord(row: Record<string, unknown>, tip: number): Record<string, unknown> {
  return { ...row, confirmations: tip - Number(row.block_height) + 1 };
}

/**
 * JSON text with every bigint written as a JSON integer of all its digits (koinu fields: one type,
 * whatever the size), everything else as JSON.stringify writes it.
 */
export function exactJson(body: unknown): string {
  return stringify(body) ?? "null";
}
