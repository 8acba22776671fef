/**
 * Launchpad bodies and the collection membership rule (DESIGN.md 4.3).
 *
 *   deploy: {"p":"service","op":"LAUNCHPAD_DEPLOY","slug":...,"name":...,"price":...,"max":...}
 *   mint:   {"p":"service","op":"LAUNCHPAD_MINT","slug":...,"id":...,"max":...}
 *
 * Every value is a JSON string and no other field is allowed. `price` (koinu), `max` and `id` are
 * canonical decimal integers (no sign, no leading zeros), so one token id has one spelling.
 * `slug` is the collection id: 1 to 64 of a-z, 0-9 and inner hyphens. `name` is 1 to 128
 * characters without control characters. Parsing never throws.
 */
import { contentTypeMatches } from "./registry";

export const LAUNCHPAD_PROTOCOL = "service";
export const LAUNCHPAD_DEPLOY_OP = "LAUNCHPAD_DEPLOY";
export const LAUNCHPAD_MINT_OP = "LAUNCHPAD_MINT";
export const LAUNCHPAD_CONTENT_TYPE = "application/json";
export const LAUNCHPAD_SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
export const LAUNCHPAD_NAME_MAX_CHARS = 128;
/** Largest `max`, `id` and `price`: 2^64 - 1. */
export const LAUNCHPAD_MAX_INTEGER = 2n ** 64n - 1n;

export interface LaunchpadDeploy {
  kind: "deploy";
  slug: string;
  name: string;
  /** Mint price in koinu (`price` on the wire). */
  priceKoinu: bigint;
  /** Collection size (`max` on the wire): token ids are 0 .. maxSupply-1. */
  maxSupply: bigint;
}

export interface LaunchpadMint {
  kind: "mint";
  slug: string;
  /** `id` on the wire. */
  tokenId: bigint;
  /** `max` on the wire; must equal the deploy's. */
  maxSupply: bigint;
}

export type LaunchpadBody = LaunchpadDeploy | LaunchpadMint;

export type LaunchpadParseReason =
  | "CONTENT_TYPE_NOT_ALLOWED"
  | "BODY_NOT_UTF8"
  | "INVALID_JSON"
  | "NOT_AN_OBJECT"
  | "WRONG_PROTOCOL"
  | "UNKNOWN_OP"
  | "ACTION_MISMATCH"
  | "MISSING_FIELD"
  | "UNEXPECTED_FIELD"
  | "FIELD_NOT_STRING"
  | "INVALID_SLUG"
  | "INVALID_NAME"
  | "INVALID_PRICE"
  | "INVALID_MAX"
  | "INVALID_ID";

export type LaunchpadParseResult =
  { ok: true; body: LaunchpadBody } | { ok: false; reason: LaunchpadParseReason; field?: string };

const DEPLOY_FIELDS = ["p", "op", "slug", "name", "price", "max"] as const;
const MINT_FIELDS = ["p", "op", "slug", "id", "max"] as const;
const strictUtf8Decoder = new TextDecoder("utf-8", { fatal: true });
const utf8Encoder = new TextEncoder();
const CANONICAL_DECIMAL = /^(?:0|[1-9][0-9]{0,19})$/;
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function parseCanonicalInteger(text: string): bigint | null {
  if (!CANONICAL_DECIMAL.test(text)) return null;
  const value = BigInt(text);
  return value <= LAUNCHPAD_MAX_INTEGER ? value : null;
}

function isValidName(name: string): boolean {
  const characters = [...name].length;
  return (
    characters >= 1 &&
    characters <= LAUNCHPAD_NAME_MAX_CHARS &&
    !CONTROL_CHARACTER.test(name) &&
    !LONE_SURROGATE.test(name)
  );
}

/**
 * Parses a launchpad body. `contentType` must be application/json; when `action` is given (the
 * envelope's ACTION push, or null for none) it must equal the body's `op`.
 */
export function parseLaunchpadBody(
  body: Uint8Array,
  contentType: string,
  action?: string | null,
): LaunchpadParseResult {
  if (!contentTypeMatches(LAUNCHPAD_CONTENT_TYPE, contentType))
    return { ok: false, reason: "CONTENT_TYPE_NOT_ALLOWED" };
  let value: unknown;
  try {
    value = JSON.parse(strictUtf8Decoder.decode(body));
  } catch (error) {
    return { ok: false, reason: error instanceof SyntaxError ? "INVALID_JSON" : "BODY_NOT_UTF8" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { ok: false, reason: "NOT_AN_OBJECT" };
  const fields = value as Record<string, unknown>;
  if (fields.p !== LAUNCHPAD_PROTOCOL) return { ok: false, reason: "WRONG_PROTOCOL", field: "p" };
  const op = fields.op;
  if (op !== LAUNCHPAD_DEPLOY_OP && op !== LAUNCHPAD_MINT_OP) return { ok: false, reason: "UNKNOWN_OP", field: "op" };
  if (action !== undefined && action !== op) return { ok: false, reason: "ACTION_MISMATCH", field: "op" };

  const expected: readonly string[] = op === LAUNCHPAD_DEPLOY_OP ? DEPLOY_FIELDS : MINT_FIELDS;
  for (const name of Object.keys(fields))
    if (!expected.includes(name)) return { ok: false, reason: "UNEXPECTED_FIELD", field: name };
  for (const name of expected) {
    if (!(name in fields)) return { ok: false, reason: "MISSING_FIELD", field: name };
    if (typeof fields[name] !== "string") return { ok: false, reason: "FIELD_NOT_STRING", field: name };
  }
  const slug = fields.slug as string;
  if (!LAUNCHPAD_SLUG_PATTERN.test(slug)) return { ok: false, reason: "INVALID_SLUG", field: "slug" };
  const maxSupply = parseCanonicalInteger(fields.max as string);
  if (maxSupply === null || maxSupply === 0n) return { ok: false, reason: "INVALID_MAX", field: "max" };

  if (op === LAUNCHPAD_DEPLOY_OP) {
    const name = fields.name as string;
    if (!isValidName(name)) return { ok: false, reason: "INVALID_NAME", field: "name" };
    const priceKoinu = parseCanonicalInteger(fields.price as string);
    if (priceKoinu === null) return { ok: false, reason: "INVALID_PRICE", field: "price" };
    return { ok: true, body: { kind: "deploy", slug, name, priceKoinu, maxSupply } };
  }
  const tokenId = parseCanonicalInteger(fields.id as string);
  if (tokenId === null) return { ok: false, reason: "INVALID_ID", field: "id" };
  return { ok: true, body: { kind: "mint", slug, tokenId, maxSupply } };
}

/** The canonical deploy body (keys in the order of DESIGN.md 4.3). Throws on values it cannot carry. */
export function encodeLaunchpadDeploy(deploy: Omit<LaunchpadDeploy, "kind">): Uint8Array {
  const body = utf8Encoder.encode(
    JSON.stringify({
      p: LAUNCHPAD_PROTOCOL,
      op: LAUNCHPAD_DEPLOY_OP,
      slug: deploy.slug,
      name: deploy.name,
      price: deploy.priceKoinu.toString(),
      max: deploy.maxSupply.toString(),
    }),
  );
  const check = parseLaunchpadBody(body, LAUNCHPAD_CONTENT_TYPE);
  if (!check.ok) throw new RangeError(`cannot encode launchpad deploy: ${check.reason} (${check.field})`);
  return body;
}

/** The canonical mint body. Throws on values it cannot carry. */
export function encodeLaunchpadMint(mint: Omit<LaunchpadMint, "kind">): Uint8Array {
  const body = utf8Encoder.encode(
    JSON.stringify({
      p: LAUNCHPAD_PROTOCOL,
      op: LAUNCHPAD_MINT_OP,
      slug: mint.slug,
      id: mint.tokenId.toString(),
      max: mint.maxSupply.toString(),
    }),
  );
  const check = parseLaunchpadBody(body, LAUNCHPAD_CONTENT_TYPE);
  if (!check.ok) throw new RangeError(`cannot encode launchpad mint: ${check.reason} (${check.field})`);
  return body;
}

/** A deploy as the indexer holds it: the body plus who inscribed it (the funder of its commit). */
export interface IndexedLaunchpadDeploy extends LaunchpadDeploy {
  inscriberAddress: string;
}

export type LaunchpadMintReason =
  "NO_DEPLOY" | "SLUG_MISMATCH" | "MAX_MISMATCH" | "ID_OUT_OF_RANGE" | "WRONG_INSCRIBER" | "ALREADY_MINTED";

export interface LaunchpadMintJudgement {
  member: boolean;
  reason?: LaunchpadMintReason;
}

/**
 * Whether a mint is a member token of its collection: a deploy for the slug was indexed earlier,
 * `max` matches it, `0 <= id < max`, the mint was inscribed by the deploy's inscriber, and no
 * valid mint of (slug, id) came before (`alreadyMinted`).
 */
export function judgeMint(
  mint: LaunchpadMint,
  deploy: IndexedLaunchpadDeploy | null,
  facts: { alreadyMinted: boolean; inscriberAddress: string },
): LaunchpadMintJudgement {
  if (!deploy) return { member: false, reason: "NO_DEPLOY" };
  if (deploy.slug !== mint.slug) return { member: false, reason: "SLUG_MISMATCH" };
  if (deploy.maxSupply !== mint.maxSupply) return { member: false, reason: "MAX_MISMATCH" };
  if (mint.tokenId < 0n || mint.tokenId >= deploy.maxSupply) return { member: false, reason: "ID_OUT_OF_RANGE" };
  if (facts.inscriberAddress !== deploy.inscriberAddress) return { member: false, reason: "WRONG_INSCRIBER" };
  if (facts.alreadyMinted) return { member: false, reason: "ALREADY_MINTED" };
  return { member: true };
}
