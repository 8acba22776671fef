/**
 * The one validation module every HTTP surface uses: addresses per configured network, txids,
 * inscription ids, ticks, hashes, hexadecimal bytes and cursors, as zod schemas for the route
 * declarations (./openapi.ts; each refuses with its own 400 code naming the field), and the few
 * parsers handlers still call (ticks, cursors, the exact-object check of a body without fields).
 */
import { DogeNetwork, decodeAddress } from "../../doge";
import { INSCRIPTION_ID_PATTERN, canonicalInscriptionIdOrNull, parseInscriptionId } from "../../inscription/ids";
import { badRequest } from "./errors";
import { coded, z } from "./openapi";

const TXID = /^[0-9a-fA-F]{64}$/;
const HASH = /^[0-9a-fA-F]{64}$/;

/** DRC-20 ticks are exactly 4 bytes of UTF-8 (DESIGN.md 4.4); compared in lower case. */
export function tick(value: unknown, field = "tick"): string {
  if (typeof value !== "string" || Buffer.byteLength(value, "utf8") !== 4)
    throw badRequest("INVALID_TICK", `${field} must be exactly 4 bytes of UTF-8`, { field });
  return value;
}

/** Opaque pagination cursors: base64url JSON of the last row's sort key. */
export function encodeCursor(key: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

export function cursor<T extends Record<string, string | number>>(
  value: unknown,
  shape: { [K in keyof T]: "string" | "number" },
  field = "cursor",
): T | null {
  if (value === undefined) return null;
  if (typeof value !== "string") throw badRequest("INVALID_CURSOR", `${field} must be a string`, { field });
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, "base64url").toString("utf8"));
  } catch {
    throw badRequest("INVALID_CURSOR", `${field} is not a cursor this API issued`, { field });
  }
  if (typeof parsed !== "object" || parsed === null)
    throw badRequest("INVALID_CURSOR", `${field} is not a cursor this API issued`, { field });
  for (const [key, type] of Object.entries(shape)) {
    if (typeof (parsed as Record<string, unknown>)[key] !== type)
      throw badRequest("INVALID_CURSOR", `${field} is not a cursor this API issued`, { field });
  }
  return parsed as T;
}

/** Rejects unknown fields in write bodies (DESIGN.md section 6). */
export function exactObject(value: unknown, allowed: readonly string[], field = "body"): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw badRequest("INVALID_BODY", `${field} must be a JSON object`, { field });
  const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
  if (unknown.length > 0)
    throw badRequest("UNKNOWN_FIELDS", `${field} has unknown fields: ${unknown.join(", ")}`, { field, unknown });
  return value as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// The same rules as zod schemas for route declarations (./openapi.ts): each refuses with the code
// and message of its parser above, and documents its pattern in the OpenAPI document.

export const Txid = coded(
  z
    .string()
    .regex(TXID)
    .transform((value) => value.toLowerCase())
    .openapi({
      type: "string",
      pattern: TXID.source,
      description: "a transaction id, 64 hexadecimal characters",
      example: "9b0fc92260312ce44e74ef369f5c66bbb85848f2eddd5a7a1cde251e54ccfdd5",
    }),
  "INVALID_TXID",
  (field) => `${field} must be 64 hexadecimal characters`,
);

export const Sha256Hex = coded(
  z
    .string()
    .regex(HASH)
    .transform((value) => value.toLowerCase())
    .openapi({ type: "string", pattern: HASH.source, description: "a SHA-256 digest, 64 hexadecimal characters" }),
  "INVALID_HASH",
  (field) => `${field} must be 64 hexadecimal characters`,
);

export const InscriptionId = coded(
  z
    .string()
    .regex(INSCRIPTION_ID_PATTERN)
    .refine((value) => parseInscriptionId(value) !== null)
    .transform((value) => canonicalInscriptionIdOrNull(value)!)
    .openapi({
      type: "string",
      pattern: INSCRIPTION_ID_PATTERN.source,
      description: "an inscription id, <txid>i<index> (index a u32 without leading zeros)",
    }),
  "INVALID_INSCRIPTION_ID",
  (field) => `${field} must look like <txid>i<n>`,
);

export const Tick = coded(
  z
    .string()
    .refine((value) => Buffer.byteLength(value, "utf8") === 4)
    .openapi({ description: "a DRC-20 tick: exactly 4 bytes of UTF-8" }),
  "INVALID_TICK",
  (field) => `${field} must be exactly 4 bytes of UTF-8`,
);

/** An address of `network` (base58check; its version byte is the network's). */
export function Address(network: DogeNetwork) {
  const valid = (value: string) => {
    try {
      decodeAddress(value, network);
      return true;
    } catch {
      return false;
    }
  };
  return coded(
    z.string().refine(valid).openapi({
      description: "a Dogecoin address (base58check) of the daemon's network",
      example: "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L",
    }),
    "INVALID_ADDRESS",
    (field) => `${field} is not a ${network.name} address`,
  );
}

/** Non-empty hexadecimal of at most `maxBytes` bytes, as the bytes. */
export function HexBytes(maxBytes: number) {
  return coded(
    z
      .string()
      .regex(/^(?:[0-9a-fA-F]{2})+$/)
      .max(maxBytes * 2)
      .transform((value) => Uint8Array.from(Buffer.from(value, "hex")))
      .openapi({
        type: "string",
        pattern: "^(?:[0-9a-fA-F]{2})+$",
        maxLength: maxBytes * 2,
        description: `hexadecimal, at most ${maxBytes} bytes`,
      }),
    "INVALID_HEX",
    (field) => `${field} must be non-empty hexadecimal of at most ${maxBytes} bytes`,
    (field) => ({ field, maxBytes }),
  );
}

/** An opaque page cursor this API issued (base64url). */
export const Cursor = coded(
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .max(512)
    .openapi({ description: "an opaque cursor from a previous page's next_cursor" }),
  "INVALID_CURSOR",
  (field) => `${field} is not a cursor this API issued`,
);
