/**
 * Job receipts (DogeInscriber / DogeAnchor): what the attester checks on its own index before it
 * signs `Receipt(jobId, jobContract, l1Txid, resultHash, l1Height, attestedAt, attesterSetId)`.
 * The job's parameters (result hash, recipient) come from the L2 contract (l2.ts), never from
 * the caller; the base-chain side comes from the index only.
 */
import { Refusal, unprocessable } from "../errors";
import { hashToBytes32 } from "../facts";
import type { Receipt } from "../facts";
import type { IndexHistory } from "../indexer/read/as-of-height";
import { MIN_CONFIRMATIONS, checkAttestableHeight } from "./facts";

import type { JobKind, JobStatus } from "../l2/contracts";

export type { JobKind };

/** A job as its contract stores and announced it. */
export interface JobOnL2 {
  kind: JobKind;
  jobId: string;
  jobContract: string;
  /** 0x hex bytes32: the inscription's envelopeHash, or SHA-256 of the anchor payload. */
  resultHash: string;
  /** The Dogecoin address an inscription job's reveal pays (inscription jobs only). */
  dogeRecipient: string | null;
  /** IJobService.JobStatus (JOB_STATUS of src/l2/contracts.ts). */
  status: JobStatus;
  sequence: bigint;
}

/**
 * Checks `l1Txid` against `job` on the index and returns the receipt to sign (the transaction's
 * inclusion height as l1Height). Throws Refusal: TX_NOT_FOUND, NOT_DEEP_ENOUGH, INDEX_INCOMPLETE,
 * RESULT_MISMATCH (with a `reason`: NO_INSCRIPTION, ENVELOPE_HASH, WRONG_RECIPIENT, NO_MATCHING_OP_RETURN).
 */
export function checkJobReceipt(
  history: IndexHistory,
  job: JobOnL2,
  l1Txid: string,
  stamp: { attestedAt: bigint; attesterSetId: bigint },
  minConfirmations = MIN_CONFIRMATIONS,
): Receipt {
  return history.snapshot(() => {
    const tip = history.tip();
    const indexedHeight = tip ? tip.height : -1;
    const inclusion = history.txInclusionAt(l1Txid, indexedHeight);
    if (!inclusion) {
      throw unprocessable("TX_NOT_FOUND", `transaction ${l1Txid} is not in a block of the attester's index`, {
        l1_txid: l1Txid,
        indexed_height: indexedHeight,
      });
    }
    checkAttestableHeight(history, inclusion.height, minConfirmations);
    const resultHash = job.resultHash.toLowerCase();
    if (job.kind === "inscription") {
      const inscription = history.inscriptionRevealedIn(l1Txid);
      if (!inscription)
        throw mismatch("NO_INSCRIPTION", `transaction ${l1Txid} reveals no inscription`, { l1_txid: l1Txid });
      const found = inscription.envelopeHash === null ? null : hashToBytes32(inscription.envelopeHash);
      if (found !== resultHash) {
        throw mismatch("ENVELOPE_HASH", "the revealed inscription's envelopeHash is not the job's", {
          expected: resultHash,
          found,
          inscription_id: inscription.id,
        });
      }
      if (job.dogeRecipient === null || inscription.genesisOwner !== job.dogeRecipient) {
        throw mismatch("WRONG_RECIPIENT", "the inscription was not revealed to the job's Dogecoin recipient", {
          expected: job.dogeRecipient,
          found: inscription.genesisOwner,
          inscription_id: inscription.id,
        });
      }
    } else {
      const shas = history.opReturnShasOf(l1Txid).map((sha) => hashToBytes32(sha));
      if (!shas.includes(resultHash)) {
        throw mismatch(
          "NO_MATCHING_OP_RETURN",
          "no OP_RETURN payload of the transaction hashes to the job's result hash",
          { expected: resultHash, found: shas },
        );
      }
    }
    return {
      jobId: job.jobId.toLowerCase(),
      jobContract: job.jobContract,
      l1Txid: hashToBytes32(l1Txid),
      resultHash,
      l1Height: BigInt(inclusion.height),
      attestedAt: stamp.attestedAt,
      attesterSetId: stamp.attesterSetId,
    };
  });
}

function mismatch(reason: string, message: string, details: Record<string, unknown>): Refusal {
  return unprocessable("RESULT_MISMATCH", message, { reason, ...details });
}
