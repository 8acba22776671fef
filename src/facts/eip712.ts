/**
 * The EIP-712 domain and types of facts and receipts (DESIGN.md 4.6). The domain and the Fact type
 * string are @dogeos/sdk's (packages/sdk/src/eip712.ts), one copy for the stack and for the dapps
 * that verify its facts, re-exported here; the Receipt type string of the job services is here.
 * contracts/libraries/FactTypedData.sol carries the same type strings in comments and constants;
 * the tests compare keccak256 of the strings with the contract's FACT_TYPEHASH and
 * RECEIPT_TYPEHASH. Signing goes through ethers' signTypedData; nothing here does I/O.
 */
import { TypedDataEncoder, getAddress, keccak256, recoverAddress, toUtf8Bytes } from "ethers";
import type { TypedDataDomain, TypedDataField } from "ethers";
import { DogeosError } from "../errors";
import {
  FACT_TYPES,
  factDigest,
  typeStringFields,
  typedDataDomain,
  type AttestationDomain,
  type Fact,
} from "../../packages/sdk/src/eip712";

export {
  EIP712_DOMAIN_NAME,
  EIP712_DOMAIN_VERSION,
  FACT_TYPE_STRING,
  FACT_TYPEHASH,
  FACT_TYPES,
  attestationDomain,
  factDigest,
} from "../../packages/sdk/src/eip712";
export type { AttestationDomain, Fact } from "../../packages/sdk/src/eip712";

/** A job receipt for DogeInscriber / DogeAnchor (see IDogeAttestation.Receipt). */
export interface Receipt {
  jobId: string;
  jobContract: string;
  l1Txid: string;
  resultHash: string;
  l1Height: bigint;
  attestedAt: bigint;
  attesterSetId: bigint;
}

/** The Receipt type string: keccak256 of it is DogeAttestation.RECEIPT_TYPEHASH. */
export const RECEIPT_TYPE_STRING =
  "Receipt(bytes32 jobId,address jobContract,bytes32 l1Txid,bytes32 resultHash,uint64 l1Height,uint64 attestedAt,uint64 attesterSetId)";

export const RECEIPT_TYPEHASH = keccak256(toUtf8Bytes(RECEIPT_TYPE_STRING));

/** ethers' `types` argument for receipts, derived from RECEIPT_TYPE_STRING. */
export const RECEIPT_TYPES: Readonly<Record<"Receipt", TypedDataField[]>> = Object.freeze({
  Receipt: typeStringFields(RECEIPT_TYPE_STRING),
});

/** hashStruct(fact) (FactTypedData.hashFact). */
export function hashFactStruct(fact: Fact): string {
  return TypedDataEncoder.hashStruct("Fact", FACT_TYPES, fact as unknown as Record<string, unknown>);
}

/** hashStruct(receipt) (FactTypedData.hashReceipt). */
export function hashReceiptStruct(receipt: Receipt): string {
  return TypedDataEncoder.hashStruct("Receipt", RECEIPT_TYPES, receipt as unknown as Record<string, unknown>);
}

/** The digest attesters sign for `receipt`. */
export function receiptDigest(domain: AttestationDomain, receipt: Receipt): string {
  return TypedDataEncoder.hash(typedDataDomain(domain), RECEIPT_TYPES, receipt as unknown as Record<string, unknown>);
}

/** The domain separator (DogeAttestation's `_domainSeparatorV4()`). */
export function domainSeparator(domain: AttestationDomain): string {
  return TypedDataEncoder.hashDomain(typedDataDomain(domain));
}

/** Anything that signs EIP-712 typed data the way ethers' Wallet and Hardhat's signers do. */
export interface TypedDataSigner {
  signTypedData(
    domain: TypedDataDomain,
    types: Record<string, TypedDataField[]>,
    value: Record<string, unknown>,
  ): Promise<string>;
}

/** The address that signed `digest` (a 65-byte signature as hex). */
export function recoverSigner(digest: string, signature: string): string {
  return recoverAddress(digest, signature);
}

/**
 * `signatures` ordered by their recovered signer, ascending as numbers: the order the contract
 * demands (strictly increasing signers). Duplicates are kept (the contract refuses them).
 */
export function sortSignatures(digest: string, signatures: readonly string[]): string[] {
  return signatures
    .map((signature) => ({ signature, signer: BigInt(recoverSigner(digest, signature)) }))
    .sort((a, b) => (a.signer < b.signer ? -1 : a.signer > b.signer ? 1 : 0))
    .map((entry) => entry.signature);
}

/** Each signer signs `fact`; the signatures come back sorted by recovered address. */
export async function signFact(
  signers: readonly TypedDataSigner[],
  domain: AttestationDomain,
  fact: Fact,
): Promise<string[]> {
  const value = fact as unknown as Record<string, unknown>;
  const types = FACT_TYPES as Record<string, TypedDataField[]>;
  const signatures = await Promise.all(
    signers.map((signer) => signer.signTypedData(typedDataDomain(domain), types, value)),
  );
  return sortSignatures(factDigest(domain, fact), signatures);
}

/** Each signer signs `receipt`; the signatures come back sorted by recovered address. */
export async function signReceipt(
  signers: readonly TypedDataSigner[],
  domain: AttestationDomain,
  receipt: Receipt,
): Promise<string[]> {
  const value = receipt as unknown as Record<string, unknown>;
  const types = RECEIPT_TYPES as Record<string, TypedDataField[]>;
  const signatures = await Promise.all(
    signers.map((signer) => signer.signTypedData(typedDataDomain(domain), types, value)),
  );
  return sortSignatures(receiptDigest(domain, receipt), signatures);
}

/** The domain a contract reports did not match the expected one (daemons refuse to start). */
export class FactDomainMismatchError extends DogeosError<"EIP712_DOMAIN_MISMATCH"> {
  readonly mismatches: { field: keyof AttestationDomain; expected: string; actual: string }[];
  constructor(mismatches: FactDomainMismatchError["mismatches"]) {
    super(
      "conflict",
      "EIP712_DOMAIN_MISMATCH",
      `EIP-712 domain mismatch: ${mismatches.map((m) => `${m.field} is ${m.actual}, expected ${m.expected}`).join("; ")}`,
      {
        details: { mismatches },
      },
    );
    this.mismatches = mismatches;
  }
}

/**
 * The domain from an `eip712Domain()` result (EIP-5267: fields, name, version, chainId,
 * verifyingContract, salt, extensions), as ethers returns it.
 */
export function domainFromEip712Result(result: ArrayLike<unknown>): AttestationDomain {
  return {
    name: String(result[1]),
    version: String(result[2]),
    chainId: BigInt(result[3] as bigint),
    verifyingContract: getAddress(String(result[4])),
  };
}

/** Throws FactDomainMismatchError unless `actual` is the DogeAttestation domain `expected`. */
export function assertAttestationDomain(actual: AttestationDomain, expected: AttestationDomain): void {
  const mismatches: FactDomainMismatchError["mismatches"] = [];
  const compare = (field: keyof AttestationDomain, a: string, e: string) => {
    if (a !== e) mismatches.push({ field, expected: e, actual: a });
  };
  compare("name", actual.name, expected.name);
  compare("version", actual.version, expected.version);
  compare("chainId", actual.chainId.toString(), expected.chainId.toString());
  compare("verifyingContract", getAddress(actual.verifyingContract), getAddress(expected.verifyingContract));
  if (mismatches.length > 0) throw new FactDomainMismatchError(mismatches);
}
