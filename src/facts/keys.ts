/**
 * Fact type keys and subject keys (DESIGN.md 4.6), the TypeScript twin of
 * contracts/libraries/FactKeys.sol. Every key is keccak256 of the UTF-8 bytes of a canonical
 * string, as a 0x-prefixed lower-case 32-byte hex string. Pure: no I/O.
 */
import { AbiCoder, keccak256, toUtf8Bytes } from "ethers";
import { canonicalInscriptionIdOrNull } from "../inscription/ids";
import { DogeosError } from "../errors";

/** The fact types, by name. The key of each is keccak256(utf8(name)). */
export const FACT_TYPE_NAMES = [
  "DOGE_BALANCE",
  "DRC20_BALANCE",
  "DRC20_TRANSFER_VALID",
  "COLLECTION_COUNT",
  "INSCRIPTION_OWNER",
  "INSCRIPTION_VALID",
  "INSCRIPTION_ACTION",
  "TX_INCLUDED",
  "L1_TIP",
] as const;

export type FactTypeName = (typeof FACT_TYPE_NAMES)[number];

/** 32 zero bytes: the qualifier (or subject) of facts that have none. */
export const ZERO_KEY = `0x${"00".repeat(32)}`;

/** A caller passed a string that is not in the canonical form a key needs. */
export class FactKeyError extends DogeosError<"BAD_INSCRIPTION_ID" | "BAD_TXID" | "BAD_BYTES32" | "UNKNOWN_FACT_TYPE"> {
  constructor(code: FactKeyError["code"], message: string) {
    super("invalid", code, message);
  }
}

/** keccak256 of the UTF-8 bytes of `text`. */
export function keyOf(text: string): string {
  return keccak256(toUtf8Bytes(text));
}

/** The key of a fact type: keccak256(utf8(name)). */
export function factTypeKey(name: FactTypeName): string {
  return keyOf(name);
}

/** Every fact type's key, by name. */
export const FACT_TYPE_KEYS: Readonly<Record<FactTypeName, string>> = Object.freeze(
  Object.fromEntries(FACT_TYPE_NAMES.map((name) => [name, factTypeKey(name)])) as Record<FactTypeName, string>,
);

const NAME_BY_KEY = new Map<string, FactTypeName>(FACT_TYPE_NAMES.map((name) => [FACT_TYPE_KEYS[name], name]));

/** The name of a fact type key, or null for a key that names no known type. */
export function factTypeName(key: string): FactTypeName | null {
  return NAME_BY_KEY.get(key.toLowerCase()) ?? null;
}

/**
 * ASCII A-Z lowered, every other character unchanged: the case folding FactKeys.sol can do on
 * chain. (The indexer folds ticks with `toLowerCase()`; the two agree on every ASCII tick.)
 */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => String.fromCharCode(letter.charCodeAt(0) | 0x20));
}

/** addressKey(a) = keccak256(utf8(a)); Dogecoin addresses are case-sensitive, so taken as given. */
export function addressKey(dogeAddress: string): string {
  return keyOf(dogeAddress);
}

/** tickKey(t) = keccak256(utf8(t with ASCII letters lowered)). */
export function tickKey(tick: string): string {
  return keyOf(asciiLower(tick));
}

/** slugKey(s) = keccak256(utf8(s)); launchpad slugs are lower case by rule, so taken as given. */
export function slugKey(slug: string): string {
  return keyOf(slug);
}

/** actionKey(a) = keccak256(utf8(a)) of a registered ACTION name, e.g. "LAUNCHPAD_MINT". */
export function actionKey(action: string): string {
  return keyOf(action);
}

const TXID_RE = /^[0-9a-fA-F]{64}$/;

/** The canonical txid: 64 lower-case hex digits. Throws FactKeyError(BAD_TXID) otherwise. */
export function canonicalTxid(txid: string): string {
  if (!TXID_RE.test(txid)) throw new FactKeyError("BAD_TXID", `not a txid (64 hex digits): ${JSON.stringify(txid)}`);
  return txid.toLowerCase();
}

/**
 * The canonical inscription id `<txid>i<n>`: lower-case hex, n a u32 without leading zeros (the rule
 * of src/inscription/ids.ts). Throws FactKeyError(BAD_INSCRIPTION_ID) otherwise.
 */
export function canonicalInscriptionId(inscriptionId: string): string {
  const canonical = canonicalInscriptionIdOrNull(inscriptionId);
  if (canonical === null) {
    throw new FactKeyError(
      "BAD_INSCRIPTION_ID",
      `not an inscription id (<txid>i<n>): ${JSON.stringify(inscriptionId)}`,
    );
  }
  return canonical;
}

/** inscriptionKey(id) = keccak256(utf8(canonical id)). */
export function inscriptionKey(inscriptionId: string): string {
  return keyOf(canonicalInscriptionId(inscriptionId));
}

/** txKey(txid) = keccak256(utf8(lower-case hex txid)). */
export function txKey(txid: string): string {
  return keyOf(canonicalTxid(txid));
}

/**
 * A display-order hash (txid, block hash) or SHA-256 digest as bytes32: "0x" + its 64 hex digits
 * in lower case. Receipts carry txids this way (`l1Txid`), TX_INCLUDED and L1_TIP facts block hashes.
 */
export function hashToBytes32(hash: string): string {
  const digits = hash.startsWith("0x") || hash.startsWith("0X") ? hash.slice(2) : hash;
  if (!TXID_RE.test(digits)) throw new FactKeyError("BAD_BYTES32", `not a 32-byte hex value: ${JSON.stringify(hash)}`);
  return `0x${digits.toLowerCase()}`;
}

const abi = AbiCoder.defaultAbiCoder();

/** Where a fact is stored: keccak256(abi.encode(factType, subject, qualifier)) (FactKeys.factKey). */
export function factStorageKey(factType: string, subject: string, qualifier: string): string {
  return keccak256(abi.encode(["bytes32", "bytes32", "bytes32"], [factType, subject, qualifier]));
}

/**
 * A request's id: keccak256(abi.encode(factType, subject, qualifier, uint64 sequence))
 * (FactKeys.requestId), sequence counting requests from 1.
 */
export function requestIdOf(factType: string, subject: string, qualifier: string, sequence: bigint | number): string {
  return keccak256(abi.encode(["bytes32", "bytes32", "bytes32", "uint64"], [factType, subject, qualifier, sequence]));
}
