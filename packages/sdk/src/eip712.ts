/**
 * The EIP-712 domain and Fact type DogeAttestation's attesters sign (IDogeAttestation, "Fact"): the
 * one copy of the type string and the domain. The repository's src/facts/eip712.ts imports them
 * from here (and adds the job services' Receipt type and the signing); test/kit/sdk.test.ts and
 * test/facts/ compare keccak256 of the type string with the contract's FACT_TYPEHASH.
 */
import { TypedDataEncoder, getAddress, keccak256, toUtf8Bytes } from "ethers";
import type { TypedDataDomain, TypedDataField } from "ethers";

/** EIP-712 domain name and version of DogeAttestation. */
export const EIP712_DOMAIN_NAME = "DogeAttestation";
export const EIP712_DOMAIN_VERSION = "1";

/** The Fact type string: keccak256 of it is DogeAttestation.FACT_TYPEHASH. */
export const FACT_TYPE_STRING =
  "Fact(bytes32 factType,bytes32 subject,bytes32 qualifier,uint256 value,bytes32 data,uint64 l1Height,uint64 attestedAt,uint64 attesterSetId)";
export const FACT_TYPEHASH = keccak256(toUtf8Bytes(FACT_TYPE_STRING));

/** ethers' field list of an EIP-712 type string "Name(type name,...)". */
export function typeStringFields(typeString: string): TypedDataField[] {
  const inner = typeString.slice(typeString.indexOf("(") + 1, -1);
  return inner.split(",").map((field) => {
    const [type, name] = field.split(" ");
    return { name, type };
  });
}

/** ethers' `types` for a Fact, read from FACT_TYPE_STRING. */
export const FACT_TYPES: Readonly<Record<"Fact", TypedDataField[]>> = Object.freeze({
  Fact: typeStringFields(FACT_TYPE_STRING),
});

/** A signed statement about the base chain (IDogeAttestation.Fact; what each field holds is said there). */
export interface Fact {
  factType: string;
  subject: string;
  qualifier: string;
  value: bigint;
  data: string;
  l1Height: bigint;
  attestedAt: bigint;
  attesterSetId: bigint;
}

/** The domain every fact (and job receipt) is signed under. */
export interface AttestationDomain {
  name: string;
  version: string;
  chainId: bigint;
  verifyingContract: string;
}

/** The domain of the DogeAttestation at `verifyingContract` on `chainId`. */
export function attestationDomain(chainId: bigint | number, verifyingContract: string): AttestationDomain {
  return {
    name: EIP712_DOMAIN_NAME,
    version: EIP712_DOMAIN_VERSION,
    chainId: BigInt(chainId),
    verifyingContract: getAddress(verifyingContract),
  };
}

/** The domain as ethers takes it: its four fields and nothing else the object may carry. */
export function typedDataDomain(domain: AttestationDomain): TypedDataDomain {
  return {
    name: domain.name,
    version: domain.version,
    chainId: domain.chainId,
    verifyingContract: domain.verifyingContract,
  };
}

/** The digest the attesters sign for `fact` under `domain`: keccak256("\x19\x01" || domainSeparator || hashStruct(fact)). */
export function factDigest(domain: AttestationDomain, fact: Fact): string {
  return TypedDataEncoder.hash(typedDataDomain(domain), FACT_TYPES, fact as unknown as Record<string, unknown>);
}
