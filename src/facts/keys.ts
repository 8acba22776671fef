/**
 * Fact type keys and subject keys (DESIGN.md 4.6), the TypeScript twin of
 * contracts/libraries/FactKeys.sol. The key rules are @dogeos/sdk's (packages/sdk/src/keys.ts), one
 * copy for the stack and for the dapps that read its facts, re-exported here; the stack's
 * `inscriptionKey` and `txKey` first refuse an id or txid that is not in its canonical form (a
 * FactKeyError), and this module adds the storage and request keys. Every key is keccak256 of the
 * UTF-8 bytes of a canonical string, as a 0x-prefixed lower-case 32-byte hex string. Pure: no I/O.
 */
import { AbiCoder, keccak256 } from "ethers";
import { canonicalInscriptionIdOrNull } from "../inscription/ids";
import { DogeosError } from "../errors";
import {
  FACT_TYPE_KEYS,
  FACT_TYPE_NAMES,
  inscriptionKey as inscriptionKeyOf,
  keyOf,
  txKey as txKeyOf,
  type FactTypeName,
} from "../../packages/sdk/src/keys";

export {
  FACT_TYPE_KEYS,
  FACT_TYPE_NAMES,
  ZERO_KEY,
  addressKey,
  asciiLower,
  factTypeKey,
  keyOf,
  slugKey,
  tickKey,
} from "../../packages/sdk/src/keys";
export type { FactTypeName } from "../../packages/sdk/src/keys";

/** A caller passed a string that is not in the canonical form a key needs. */
export class FactKeyError extends DogeosError<"BAD_INSCRIPTION_ID" | "BAD_TXID" | "BAD_BYTES32" | "UNKNOWN_FACT_TYPE"> {
  constructor(code: FactKeyError["code"], message: string) {
    super("invalid", code, message);
  }
}

const NAME_BY_KEY = new Map<string, FactTypeName>(FACT_TYPE_NAMES.map((name) => [FACT_TYPE_KEYS[name], name]));

/** The name of a fact type key, or null for a key that names no known type. */
export function factTypeName(key: string): FactTypeName | null {
  return NAME_BY_KEY.get(key.toLowerCase()) ?? null;
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

/** inscriptionKey(id) = keccak256(utf8(canonical id)); FactKeyError(BAD_INSCRIPTION_ID) for a non-canonical id. */
export function inscriptionKey(inscriptionId: string): string {
  return inscriptionKeyOf(canonicalInscriptionId(inscriptionId));
}

/** txKey(txid) = keccak256(utf8(lower-case hex txid)); FactKeyError(BAD_TXID) for anything but 64 hex digits. */
export function txKey(txid: string): string {
  return txKeyOf(canonicalTxid(txid));
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
