/**
 * The one validation module every HTTP surface uses: addresses per configured network, txids,
 * inscription ids, ticks, hashes, limits and cursors. Each parser returns the typed value or
 * throws a 400 AppError naming the field.
 */
import { DogeNetwork, decodeAddress } from "../../doge";
import { badRequest } from "./errors";

const TXID = /^[0-9a-fA-F]{64}$/;
const HASH = /^[0-9a-fA-F]{64}$/;
const INSCRIPTION_ID = /^([0-9a-fA-F]{64})i(0|[1-9][0-9]{0,5})$/;

export function txid(value: unknown, field = "txid"): string {
  if (typeof value !== "string" || !TXID.test(value)) throw badRequest("INVALID_TXID", `${field} must be 64 hexadecimal characters`, { field });
  return value.toLowerCase();
}

export function sha256Hex(value: unknown, field = "sha256"): string {
  if (typeof value !== "string" || !HASH.test(value)) throw badRequest("INVALID_HASH", `${field} must be 64 hexadecimal characters`, { field });
  return value.toLowerCase();
}

export function inscriptionId(value: unknown, field = "inscription_id"): string {
  const match = typeof value === "string" ? INSCRIPTION_ID.exec(value) : null;
  if (!match) throw badRequest("INVALID_INSCRIPTION_ID", `${field} must look like <txid>i<n>`, { field });
  return `${match[1].toLowerCase()}i${match[2]}`;
}

export function address(value: unknown, network: DogeNetwork, field = "address"): string {
  if (typeof value !== "string") throw badRequest("INVALID_ADDRESS", `${field} must be a string`, { field });
  try {
    decodeAddress(value, network);
  } catch (error) {
    throw badRequest("INVALID_ADDRESS", `${field} is not a ${network.name} address: ${(error as Error).message}`, { field });
  }
  return value;
}

/** DRC-20 ticks are exactly 4 bytes of UTF-8 (DESIGN.md 4.4); compared in lower case. */
export function tick(value: unknown, field = "tick"): string {
  if (typeof value !== "string" || Buffer.byteLength(value, "utf8") !== 4) throw badRequest("INVALID_TICK", `${field} must be exactly 4 bytes of UTF-8`, { field });
  return value;
}

export function hexBytes(value: unknown, field: string, maxBytes: number): Uint8Array {
  if (typeof value !== "string" || !/^(?:[0-9a-fA-F]{2})*$/.test(value) || value.length === 0) throw badRequest("INVALID_HEX", `${field} must be non-empty hexadecimal`, { field });
  if (value.length / 2 > maxBytes) throw badRequest("TOO_LARGE", `${field} is larger than ${maxBytes} bytes`, { field, maxBytes });
  return Uint8Array.from(Buffer.from(value, "hex"));
}

export function limit(value: unknown, options: { min?: number; max: number; fallback: number }, field = "limit"): number {
  if (value === undefined) return options.fallback;
  const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : NaN;
  const min = options.min ?? 1;
  if (!Number.isInteger(n) || n < min || n > options.max) throw badRequest("INVALID_LIMIT", `${field} must be an integer from ${min} to ${options.max}`, { field, min, max: options.max });
  return n;
}

/** Opaque pagination cursors: base64url JSON of the last row's sort key. */
export function encodeCursor(key: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

export function cursor<T extends Record<string, string | number>>(value: unknown, shape: { [K in keyof T]: "string" | "number" }, field = "cursor"): T | null {
  if (value === undefined) return null;
  if (typeof value !== "string") throw badRequest("INVALID_CURSOR", `${field} must be a string`, { field });
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, "base64url").toString("utf8"));
  } catch {
    throw badRequest("INVALID_CURSOR", `${field} is not a cursor this API issued`, { field });
  }
  if (typeof parsed !== "object" || parsed === null) throw badRequest("INVALID_CURSOR", `${field} is not a cursor this API issued`, { field });
  for (const [key, type] of Object.entries(shape)) {
    if (typeof (parsed as Record<string, unknown>)[key] !== type) throw badRequest("INVALID_CURSOR", `${field} is not a cursor this API issued`, { field });
  }
  return parsed as T;
}

/** Rejects unknown fields in write bodies (DESIGN.md section 6). */
export function exactObject(value: unknown, allowed: readonly string[], field = "body"): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw badRequest("INVALID_BODY", `${field} must be a JSON object`, { field });
  const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) throw badRequest("UNKNOWN_FIELDS", `${field} has unknown fields: ${unknown.join(", ")}`, { field, unknown });
  return value as Record<string, unknown>;
}
