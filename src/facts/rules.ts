/**
 * The TypeScript twins of DogeAttestation's rules (STYLE.md 6): the quorum rule, when a fact
 * replaces the stored one, who gets a creator share, the fee split and the confirmation count.
 * Services use them to predict what the contract will do; the tests hold the contract to them. Pure.
 */

/** Signatures needed from distinct attesters of the current set. A constant on chain too. */
export const MIN_SIGNATURES = 2;
/** Attesters in every set. */
export const ATTESTER_COUNT = 3;
/** The plug creator's share of a fulfilled request's fee, in percent. */
export const CREATOR_SHARE_PERCENT = 20n;
/** A request's fee at deployment, for every fact type: 0.05 DOGE in wei. */
export const DEFAULT_REQUEST_FEE_WEI = 50_000_000_000_000_000n;
/** How long a request stays open at deployment. */
export const DEFAULT_REQUEST_DEADLINE_WINDOW_SECONDS = 3_600n;
/** How long a scheduled admin call stays executable after it became ready. */
export const EXECUTION_WINDOW_SECONDS = 14n * 24n * 3_600n;
/** How far a fact's attestedAt may lie ahead of the L2 block's time. */
export const MAX_ATTESTED_AT_SKEW_SECONDS = 900n;

/** What the contract says about a list of recovered signers (in the order given). */
export type QuorumVerdict =
  | { accepted: true }
  | { accepted: false; error: "AttestationSignersNotAscending"; index: number; signer: string; previous: string }
  | { accepted: false; error: "AttestationSignerNotAttester"; index: number; signer: string }
  | { accepted: false; error: "AttestationQuorumNotMet"; valid: number; required: number };

const ZERO_ADDRESS = `0x${"00".repeat(20)}`;

/**
 * The quorum rule over signers recovered from valid signatures, in submission order: each must
 * be above the previous one (as a number), each must be a current attester, and there must be at
 * least MIN_SIGNATURES. The first failure is reported, as the contract reverts with it.
 */
export function quorumVerdict(signers: readonly string[], currentAttesters: readonly string[]): QuorumVerdict {
  const members = new Set(currentAttesters.map((a) => a.toLowerCase()));
  let previous = ZERO_ADDRESS;
  for (let index = 0; index < signers.length; index += 1) {
    const signer = signers[index];
    if (BigInt(signer) <= BigInt(previous)) {
      return { accepted: false, error: "AttestationSignersNotAscending", index, signer, previous };
    }
    if (!members.has(signer.toLowerCase()))
      return { accepted: false, error: "AttestationSignerNotAttester", index, signer };
    previous = signer;
  }
  if (signers.length < MIN_SIGNATURES) {
    return { accepted: false, error: "AttestationQuorumNotMet", valid: signers.length, required: MIN_SIGNATURES };
  }
  return { accepted: true };
}

/** The heights of a stored (or incoming) fact; a fact never stored is { 0, 0 }. */
export interface FactAge {
  l1Height: bigint;
  attestedAt: bigint;
}

/**
 * Whether `incoming` replaces `stored`: at a greater or equal base-chain height and attested
 * later. A fact never stored counts as { 0, 0 }, so an attestedAt of 0 is never stored.
 */
export function replacesStoredFact(stored: FactAge | null, incoming: FactAge): boolean {
  const current = stored ?? { l1Height: 0n, attestedAt: 0n };
  return incoming.l1Height >= current.l1Height && incoming.attestedAt > current.attestedAt;
}

/**
 * The creator `fulfill` credits for a request through a plug: the marketplace's `creatorOf(plugId)`,
 * unless that is the requester itself (listing is permissionless, so a requester naming its own plug
 * would take back a share of its own fee): then none, the zero address, and the treasury gets it all.
 */
export function creditedCreator(creatorOfPlug: string, requester: string): string {
  return creatorOfPlug.toLowerCase() === requester.toLowerCase() ? ZERO_ADDRESS : creatorOfPlug;
}

/**
 * How a fulfilled request's fee is credited: 20% (rounded down) to the plug's creator, if any (see
 * `creditedCreator`: never the requester), the rest to the treasury.
 */
export function splitRequestFee(
  feeWei: bigint,
  hasCreator: boolean,
): { creatorShareWei: bigint; operatorShareWei: bigint } {
  const creatorShareWei = hasCreator ? (feeWei * CREATOR_SHARE_PERCENT) / 100n : 0n;
  return { creatorShareWei, operatorShareWei: feeWei - creatorShareWei };
}

/**
 * Confirmations of a transaction included at `inclusionHeight` (0: not included) when the
 * greatest attested height is `tip`: tip - inclusionHeight + 1, or 0.
 */
export function confirmations(inclusionHeight: bigint, tip: bigint): bigint {
  if (inclusionHeight === 0n || inclusionHeight > tip) return 0n;
  return tip - inclusionHeight + 1n;
}

/** txConfirmed(txid, minConfirmations) given the attested inclusion height and l1Tip(). */
export function isTxConfirmed(inclusionHeight: bigint, tip: bigint, minConfirmations: bigint): boolean {
  if (inclusionHeight === 0n || inclusionHeight > tip) return false;
  return confirmations(inclusionHeight, tip) >= minConfirmations;
}

/**
 * Depth a job's base-chain transaction needs before `settle` takes it: JobServiceBase.CONFIRMATIONS
 * (contracts/services/JobServiceBase.sol; test/contracts/jobs-fixture.ts holds the contract to it).
 */
export const SETTLE_CONFIRMATIONS = 6n;

/** The least attested tip at which a transaction mined at `l1Height` settles: l1Height + 5. */
export function settleTipNeeded(l1Height: bigint): bigint {
  return l1Height + SETTLE_CONFIRMATIONS - 1n;
}

/** Whether `settle` takes a transaction mined at `l1Height` under the attested tip `tip` (the contract's JobNotConfirmed check). */
export function settleable(l1Height: bigint, tip: bigint): boolean {
  return isTxConfirmed(l1Height, tip, SETTLE_CONFIRMATIONS);
}
