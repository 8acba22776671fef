/**
 * Fact keys as DogeAttestation computes them (IDogeAttestation: `addressKey`, `tickKey`, `slugKey`,
 * `inscriptionKey`, `txKey`; fact type keys are keccak256 of the type's name), the TypeScript twin
 * of contracts/libraries/FactKeys.sol. Every key is keccak256 of the UTF-8 bytes of a string, as a
 * 0x-prefixed lower-case 32-byte hex string. The one copy of the rules: the repository's
 * src/facts/keys.ts imports them from here (and refuses an inscription id or txid that is not in
 * its canonical form before hashing it); test/kit/sdk.test.ts holds them to the contract's answers.
 */
import { keccak256, toUtf8Bytes } from "ethers";

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

/** 32 zero bytes: the subject or qualifier of facts that have none. */
export const ZERO_KEY = `0x${"00".repeat(32)}`;

/** keccak256 of the UTF-8 bytes of `text`. */
export function keyOf(text: string): string {
  return keccak256(toUtf8Bytes(text));
}

/**
 * ASCII A-Z lowered, every other character unchanged: the case folding FactKeys.sol can do on
 * chain (its `_asciiLower`). (The indexer folds ticks with `toLowerCase()`; the two agree on every
 * ASCII tick.)
 */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => String.fromCharCode(letter.charCodeAt(0) | 0x20));
}

/** keccak256(name) of a fact type, e.g. factTypeKey("COLLECTION_COUNT"). */
export function factTypeKey(name: FactTypeName): string {
  return keyOf(name);
}

/** Every fact type's key, by name. */
export const FACT_TYPE_KEYS: Readonly<Record<FactTypeName, string>> = Object.freeze(
  Object.fromEntries(FACT_TYPE_NAMES.map((name) => [name, factTypeKey(name)])) as Record<FactTypeName, string>,
);

/** keccak256 of a Dogecoin address, as given (addresses are case-sensitive). */
export function addressKey(dogeAddress: string): string {
  return keyOf(dogeAddress);
}

/** keccak256 of a DRC-20 tick with ASCII letters lowered. */
export function tickKey(tick: string): string {
  return keyOf(asciiLower(tick));
}

/** keccak256 of a launchpad collection slug, as given (slugs are lower case by rule). */
export function slugKey(slug: string): string {
  return keyOf(slug);
}

/** keccak256 of `<txid>i<n>` with ASCII letters lowered. */
export function inscriptionKey(inscriptionId: string): string {
  return keyOf(asciiLower(inscriptionId));
}

/** keccak256 of a txid's 64 hex digits, lowered. */
export function txKey(txid: string): string {
  return keyOf(asciiLower(txid));
}

/** What a fact is about, by fact type: the inputs its keys are made from (and the attest API's query). */
export type FactQuery =
  | { type: "DOGE_BALANCE"; address: string }
  | { type: "DRC20_BALANCE"; address: string; tick: string }
  | { type: "COLLECTION_COUNT"; address: string; collection: string }
  | { type: "INSCRIPTION_OWNER" | "INSCRIPTION_VALID" | "INSCRIPTION_ACTION"; id: string }
  | { type: "DRC20_TRANSFER_VALID" | "TX_INCLUDED"; txid: string }
  | { type: "L1_TIP" };

export interface FactKeys {
  factType: string;
  subject: string;
  qualifier: string;
}

/** The (factType, subject, qualifier) a fact of `query` is stored under. */
export function factKeys(query: FactQuery): FactKeys {
  const factType = FACT_TYPE_KEYS[query.type];
  switch (query.type) {
    case "DOGE_BALANCE":
      return { factType, subject: addressKey(query.address), qualifier: ZERO_KEY };
    case "DRC20_BALANCE":
      return { factType, subject: addressKey(query.address), qualifier: tickKey(query.tick) };
    case "COLLECTION_COUNT":
      return { factType, subject: addressKey(query.address), qualifier: slugKey(query.collection) };
    case "INSCRIPTION_OWNER":
    case "INSCRIPTION_VALID":
    case "INSCRIPTION_ACTION":
      return { factType, subject: inscriptionKey(query.id), qualifier: ZERO_KEY };
    case "DRC20_TRANSFER_VALID":
    case "TX_INCLUDED":
      return { factType, subject: txKey(query.txid), qualifier: ZERO_KEY };
    case "L1_TIP":
      return { factType, subject: ZERO_KEY, qualifier: ZERO_KEY };
  }
}

/** The attest API's path (under /api/attest) and query parameters for `query`. */
export function attestApiQuery(query: FactQuery): { path: string; params: Record<string, string> } {
  switch (query.type) {
    case "DOGE_BALANCE":
      return { path: "doge-balance", params: { address: query.address } };
    case "DRC20_BALANCE":
      return { path: "drc20-balance", params: { address: query.address, tick: query.tick } };
    case "COLLECTION_COUNT":
      return { path: "collection-count", params: { address: query.address, collection: query.collection } };
    case "INSCRIPTION_OWNER":
      return { path: "inscription-owner", params: { id: query.id } };
    case "INSCRIPTION_VALID":
      return { path: "inscription-valid", params: { id: query.id } };
    case "INSCRIPTION_ACTION":
      return { path: "inscription-action", params: { id: query.id } };
    case "DRC20_TRANSFER_VALID":
      return { path: "drc20-transfer-valid", params: { txid: query.txid } };
    case "TX_INCLUDED":
      return { path: "tx-included", params: { txid: query.txid } };
    case "L1_TIP":
      return { path: "l1-tip", params: {} };
  }
}
