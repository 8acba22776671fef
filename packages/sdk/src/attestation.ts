/**
 * Reading DogeAttestation with ethers v6: a stored fact with its `l1Height` and `attestedAt`, its
 * age against a freshness policy, and the current attester set that HTTP-answered facts are
 * verified against (./verify.ts).
 */
import { Contract, getAddress } from "ethers";
import type { ContractRunner } from "ethers";
import { abis } from "@dogeos/contracts";
import { DogeosSdkError } from "./errors";
import { attestationDomain, type AttestationDomain } from "./eip712";
import { factKeys, type FactKeys, type FactQuery } from "./keys";

/** DogeAttestation at `address`, with its ABI from @dogeos/contracts, for reads (a provider) or writes (a signer). */
export function attestationContract(address: string, runner: ContractRunner): Contract {
  return new Contract(address, abis.DogeAttestation as never, runner);
}

/** A fact as DogeAttestation stores it (`factOf`); `exists` false and zeros when never attested. */
export interface StoredFact extends FactKeys {
  exists: boolean;
  value: bigint;
  data: string;
  l1Height: bigint;
  attestedAt: bigint;
}

/** The stored fact of `query` (factOf of its keys). */
export async function readFact(attestation: Contract, query: FactQuery | FactKeys): Promise<StoredFact> {
  const keys = "type" in query ? factKeys(query) : query;
  const record = await attestation.getFunction("factOf")(keys.factType, keys.subject, keys.qualifier);
  return {
    ...keys,
    exists: Boolean(record.exists),
    value: BigInt(record.value),
    data: String(record.data),
    l1Height: BigInt(record.l1Height),
    attestedAt: BigInt(record.attestedAt),
  };
}

/**
 * How fresh a fact must be. `maxBlocks`: how many base-chain blocks its `l1Height` may lie below
 * the reference tip (by default the contract's `l1Tip()`, the highest height of any accepted fact);
 * `maxSeconds`: how long ago it may have been attested, against the reference time (by default the
 * L2's latest block time). Either may be left out.
 */
export interface FreshnessPolicy {
  maxBlocks?: number | bigint;
  maxSeconds?: number | bigint;
}

/** What a fact's age is measured against. */
export interface AgeReference {
  /** The base-chain height taken as now. */
  l1Tip: bigint;
  /** Unix seconds taken as now. */
  now: bigint;
}

export interface FactAge {
  /** Base-chain blocks between the fact's `l1Height` and the reference tip (0 when not below it). */
  blocks: bigint;
  /** Seconds between `attestedAt` and the reference time (0 when not before it). */
  seconds: bigint;
}

export type FreshnessVerdict =
  | { ok: true; age: FactAge }
  | { ok: false; reason: "FACT_MISSING"; age: null }
  | { ok: false; reason: "FACT_STALE"; age: FactAge; limit: "maxBlocks" | "maxSeconds" };

/** The age of a stored fact against `reference`. */
export function factAge(fact: Pick<StoredFact, "l1Height" | "attestedAt">, reference: AgeReference): FactAge {
  return {
    blocks: reference.l1Tip > fact.l1Height ? reference.l1Tip - fact.l1Height : 0n,
    seconds: reference.now > fact.attestedAt ? reference.now - fact.attestedAt : 0n,
  };
}

/** Whether `fact` exists and meets `policy` as of `reference` (no I/O). */
export function checkFreshness(
  fact: Pick<StoredFact, "exists" | "l1Height" | "attestedAt">,
  policy: FreshnessPolicy,
  reference: AgeReference,
): FreshnessVerdict {
  if (!fact.exists) return { ok: false, reason: "FACT_MISSING", age: null };
  const age = factAge(fact, reference);
  if (policy.maxBlocks !== undefined && age.blocks > BigInt(policy.maxBlocks))
    return { ok: false, reason: "FACT_STALE", age, limit: "maxBlocks" };
  if (policy.maxSeconds !== undefined && age.seconds > BigInt(policy.maxSeconds))
    return { ok: false, reason: "FACT_STALE", age, limit: "maxSeconds" };
  return { ok: true, age };
}

/** The contract's `l1Tip()` and the L2's latest block time: the default age reference. */
export async function ageReference(attestation: Contract): Promise<AgeReference> {
  const provider = attestation.runner?.provider;
  if (!provider) throw new TypeError("the attestation contract has no provider to read the latest block from");
  const [l1Tip, block] = await Promise.all([attestation.getFunction("l1Tip")(), provider.getBlock("latest")]);
  return { l1Tip: BigInt(l1Tip), now: BigInt(block!.timestamp) };
}

/**
 * The stored fact of `query` when it meets `policy`; throws DogeosSdkError FACT_MISSING (never
 * attested) or FACT_STALE (with its age and the limit it broke), the same two refusals the
 * example consumer contracts make (contracts/examples/). Ask for a fresh one with requestFreshFact.
 */
export async function readFreshFact(
  attestation: Contract,
  query: FactQuery,
  policy: FreshnessPolicy,
  reference?: AgeReference,
): Promise<StoredFact & { age: FactAge }> {
  const [fact, at] = await Promise.all([readFact(attestation, query), reference ?? ageReference(attestation)]);
  const verdict = checkFreshness(fact, policy, at);
  if (verdict.ok) return { ...fact, age: verdict.age };
  if (verdict.reason === "FACT_MISSING")
    throw new DogeosSdkError("FACT_MISSING", `no ${query.type} fact is stored for this query`, { query });
  throw new DogeosSdkError(
    "FACT_STALE",
    `the stored ${query.type} fact is ${verdict.age.blocks} blocks and ${verdict.age.seconds} s old, beyond ${verdict.limit} ${String(policy[verdict.limit])}`,
    { query, l1Height: fact.l1Height, attestedAt: fact.attestedAt, age: verdict.age, limit: verdict.limit },
  );
}

/** The signers an HTTP-answered fact must come from: the contract's domain and current attester set. */
export interface AttesterSet {
  domain: AttestationDomain;
  attesters: string[];
  attesterSetId: bigint;
}

/** Reads the EIP-712 domain (eip712Domain, EIP-5267) and the current attester set once; verifying facts against it needs no network. */
export async function readAttesterSet(attestation: Contract): Promise<AttesterSet> {
  const [domain, set] = await Promise.all([
    attestation.getFunction("eip712Domain")(),
    attestation.getFunction("attesters")(),
  ]);
  const [, name, version, chainId, verifyingContract] = domain as unknown as [string, string, string, bigint, string];
  const expected = attestationDomain(chainId, verifyingContract);
  if (name !== expected.name || version !== expected.version)
    throw new DogeosSdkError(
      "WRONG_DOMAIN",
      `the contract's EIP-712 domain is ${name} ${version}, not DogeAttestation 1`,
      {
        name,
        version,
      },
    );
  const [attesters, attesterSetId] = set as unknown as [string[], bigint];
  return {
    domain: expected,
    attesters: [...attesters].map((a) => getAddress(a)),
    attesterSetId: BigInt(attesterSetId),
  };
}
