/**
 * The EIP-712 domain and Fact type DogeAttestation's attesters sign (IDogeAttestation, "Fact"). The
 * type string is the same text as FACT_TYPE_STRING in the repository's src/facts/eip712.ts;
 * test/kit/sdk.test.ts compares keccak256 of it with the contract's FACT_TYPEHASH.
 */
import { TypedDataEncoder, getAddress, keccak256, toUtf8Bytes } from "ethers";
import type { TypedDataField } from "ethers";

export const EIP712_DOMAIN_NAME = "DogeAttestation";
export const EIP712_DOMAIN_VERSION = "1";

export const FACT_TYPE_STRING =
  "Fact(bytes32 factType,bytes32 subject,bytes32 qualifier,uint256 value,bytes32 data,uint64 l1Height,uint64 attestedAt,uint64 attesterSetId)";
export const FACT_TYPEHASH = keccak256(toUtf8Bytes(FACT_TYPE_STRING));

/** ethers' `types` for a Fact, read from FACT_TYPE_STRING. */
export const FACT_TYPES: Readonly<Record<"Fact", TypedDataField[]>> = Object.freeze({
  Fact: FACT_TYPE_STRING.slice(5, -1)
    .split(",")
    .map((field) => {
      const [type, name] = field.split(" ");
      return { name, type };
    }),
});

/** A signed statement about the base chain (IDogeAttestation.Fact). */
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

/** The digest the attesters sign for `fact` under `domain`. */
export function factDigest(domain: AttestationDomain, fact: Fact): string {
  return TypedDataEncoder.hash(domain, FACT_TYPES as Record<string, TypedDataField[]>, { ...fact });
}
