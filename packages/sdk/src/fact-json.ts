/**
 * A Fact as JSON, as the attest API answers it and the attesters' signing API carries it: bytes32
 * fields 0x and 64 hex digits, integers decimal strings (uint256 and uint64 do not fit JSON
 * numbers). The one reader of that shape: ./verify.ts reads the attest API's answers with it, the
 * repository's src/attester/wire.ts the attesters' wire, each refusing a bad field with its own error.
 */
import type { Fact } from "./eip712";

/** A Fact as JSON (every number a decimal string). */
export interface FactJson {
  factType: string;
  subject: string;
  qualifier: string;
  value: string;
  data: string;
  l1Height: string;
  attestedAt: string;
  attesterSetId: string;
}

/** The fields of a Fact in the struct's order. */
export const FACT_JSON_FIELDS = [
  "factType",
  "subject",
  "qualifier",
  "value",
  "data",
  "l1Height",
  "attestedAt",
  "attesterSetId",
] as const satisfies readonly (keyof FactJson)[];

/** What is wrong with a field: not 0x and 64 hex digits, not a decimal string, or above a uint`bits`'s `max`. */
export type JsonFieldProblem = { kind: "bytes32" } | { kind: "decimal" | "range"; bits: number; max: bigint };

/** The error to throw for `field` and its problem. */
export type JsonFieldRefusal = (field: string, problem: JsonFieldProblem) => Error;

const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const DECIMAL = /^(0|[1-9][0-9]*)$/;

/** `record[field]` as a bytes32 in lower case; refused unless it is a string of 0x and 64 hex digits. */
export function bytes32Field(record: Record<string, unknown>, field: string, refuse: JsonFieldRefusal): string {
  const value = record[field];
  if (typeof value !== "string" || !BYTES32.test(value)) throw refuse(field, { kind: "bytes32" });
  return value.toLowerCase();
}

/** `record[field]` as a uint of `bits` bits; refused unless it is a decimal string (no leading zeros) that fits. */
export function uintField(
  record: Record<string, unknown>,
  field: string,
  bits: number,
  refuse: JsonFieldRefusal,
): bigint {
  const value = record[field];
  const max = (1n << BigInt(bits)) - 1n;
  if (typeof value !== "string" || !DECIMAL.test(value)) throw refuse(field, { kind: "decimal", bits, max });
  const parsed = BigInt(value);
  if (parsed > max) throw refuse(field, { kind: "range", bits, max });
  return parsed;
}

/** The Fact whose fields `record` holds, read in the struct's order (the first bad field is refused). */
export function factFromRecord(record: Record<string, unknown>, refuse: JsonFieldRefusal): Fact {
  return {
    factType: bytes32Field(record, "factType", refuse),
    subject: bytes32Field(record, "subject", refuse),
    qualifier: bytes32Field(record, "qualifier", refuse),
    value: uintField(record, "value", 256, refuse),
    data: bytes32Field(record, "data", refuse),
    l1Height: uintField(record, "l1Height", 64, refuse),
    attestedAt: uintField(record, "attestedAt", 64, refuse),
    attesterSetId: uintField(record, "attesterSetId", 64, refuse),
  };
}
