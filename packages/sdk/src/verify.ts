/**
 * Offline verification of a fact answered over HTTP by the attest API (GET /api/attest/<fact>):
 * the digest is computed here from the trusted domain (the contract's chain id and address, read
 * once with readAttesterSet), never from the answer's own `typedData`; each signature is recovered
 * and held to the rules DogeAttestation applies (IDogeAttestation, "Signatures"): at least two,
 * valid and low-s, from attesters of the current set, strictly ascending, signed for the current
 * set id. A fact that passes is one `submitFact(fact, signatures)` would accept on that contract.
 */
import { Signature, getAddress, recoverAddress } from "ethers";
import { FactVerificationError } from "./errors";
import { factDigest, type Fact } from "./eip712";
import { factFromRecord, type FactJson } from "./fact-json";
import type { AttesterSet } from "./attestation";

export type { FactJson } from "./fact-json";

/** DogeAttestation's floor of distinct attester signatures (MIN_SIGNATURES, a constant). */
export const MIN_SIGNATURES = 2;

/** The part of an attest API answer the verifier reads. */
export interface AttestedFactAnswer {
  fact: FactJson;
  signatures: string[];
  signers?: string[];
  typedData?: {
    domain: { name: string; version: string; chainId: number | string; verifyingContract: string };
    message?: FactJson;
  };
}

export interface VerifiedFact {
  fact: Fact;
  /** As given (ascending by signer): what submitFact and fulfill take. */
  signatures: string[];
  /** The recovered signers, ascending. */
  signers: string[];
  digest: string;
}

/** The answer's fact as the contract's struct; MALFORMED_ANSWER when a field is not what the type says. */
export function factFromJson(json: FactJson): Fact {
  return factFromRecord((json ?? {}) as unknown as Record<string, unknown>, (field, problem) =>
    problem.kind === "bytes32"
      ? new FactVerificationError("MALFORMED_ANSWER", `fact.${field} is not a 32-byte hex string`, { field })
      : new FactVerificationError("MALFORMED_ANSWER", `fact.${field} is not a uint${problem.bits} in decimal`, {
          field,
        }),
  );
}

/**
 * Verifies `answer` against `trusted` (readAttesterSet of the contract you will rely on) without
 * any network call. Throws FactVerificationError with the first rule broken: MALFORMED_ANSWER,
 * WRONG_DOMAIN (the answer says it was signed for another chain or contract), WRONG_ATTESTER_SET,
 * QUORUM_NOT_MET, INVALID_SIGNATURE, SIGNER_NOT_ATTESTER, SIGNERS_NOT_ASCENDING, SIGNERS_MISMATCH
 * (the answer's `signers` are not who signed).
 */
export function verifyAttestedFact(answer: AttestedFactAnswer, trusted: AttesterSet): VerifiedFact {
  const fact = factFromJson(answer?.fact);
  const domain = trusted.domain;
  const claimed = answer.typedData?.domain;
  if (claimed) {
    const same =
      claimed.name === domain.name &&
      claimed.version === domain.version &&
      String(claimed.chainId) === domain.chainId.toString() &&
      typeof claimed.verifyingContract === "string" &&
      claimed.verifyingContract.toLowerCase() === domain.verifyingContract.toLowerCase();
    if (!same)
      throw new FactVerificationError(
        "WRONG_DOMAIN",
        `the answer was signed for chain ${claimed.chainId} contract ${claimed.verifyingContract}, not chain ${domain.chainId} contract ${domain.verifyingContract}`,
        { claimed, expected: { ...domain, chainId: domain.chainId.toString() } },
      );
  }
  if (answer.typedData?.message) {
    const message = factFromJson(answer.typedData.message);
    if ((Object.keys(fact) as (keyof Fact)[]).some((key) => fact[key] !== message[key]))
      throw new FactVerificationError("MALFORMED_ANSWER", "the answer's typedData.message is not its fact", {});
  }
  if (fact.attesterSetId !== trusted.attesterSetId)
    throw new FactVerificationError(
      "WRONG_ATTESTER_SET",
      `the fact is signed for attester set ${fact.attesterSetId}, the contract's current set is ${trusted.attesterSetId}`,
      { attesterSetId: fact.attesterSetId, currentAttesterSetId: trusted.attesterSetId },
    );
  const signatures = answer.signatures;
  if (!Array.isArray(signatures) || signatures.length < MIN_SIGNATURES)
    throw new FactVerificationError("QUORUM_NOT_MET", `a fact needs at least ${MIN_SIGNATURES} signatures`, {
      given: Array.isArray(signatures) ? signatures.length : 0,
      required: MIN_SIGNATURES,
    });
  const digest = factDigest(domain, fact);
  const members = new Set(trusted.attesters.map((a) => a.toLowerCase()));
  const signers: string[] = [];
  signatures.forEach((signature, index) => {
    let signer: string;
    try {
      if (typeof signature !== "string" || !/^0x[0-9a-fA-F]{130}$/.test(signature))
        throw new Error("not 65 bytes of hex");
      // Signature.from refuses a high s and a v other than 27/28, as OpenZeppelin's ECDSA does.
      signer = getAddress(recoverAddress(digest, Signature.from(signature)));
    } catch (error) {
      throw new FactVerificationError(
        "INVALID_SIGNATURE",
        `signature ${index} does not recover: ${(error as Error).message}`,
        {
          index,
        },
      );
    }
    if (!members.has(signer.toLowerCase()))
      throw new FactVerificationError(
        "SIGNER_NOT_ATTESTER",
        `signature ${index} recovers to ${signer}, not an attester of set ${trusted.attesterSetId}`,
        { index, signer, attesters: trusted.attesters },
      );
    const previous = signers[signers.length - 1];
    if (previous !== undefined && BigInt(signer) <= BigInt(previous))
      throw new FactVerificationError(
        "SIGNERS_NOT_ASCENDING",
        `signature ${index} recovers to ${signer}, not above the previous signer ${previous}`,
        { index, signer, previous },
      );
    signers.push(signer);
  });
  if (answer.signers !== undefined) {
    const claimedSigners = answer.signers.map((s) => String(s).toLowerCase());
    if (claimedSigners.join(",") !== signers.map((s) => s.toLowerCase()).join(","))
      throw new FactVerificationError("SIGNERS_MISMATCH", "the answer's signers are not the addresses that signed", {
        claimed: answer.signers,
        recovered: signers,
      });
  }
  return { fact, signatures: [...signatures], signers, digest };
}
