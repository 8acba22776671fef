/**
 * Builders of the Fact struct for each fact type, with the field layout of the table in
 * IDogeAttestation.sol (and docs/contracts.md). Attesters, the attest HTTP surface and the tests
 * build facts only through these, so every party puts the same bytes in the same fields. Pure.
 */
import type { Fact } from "./eip712";
import {
  FACT_TYPE_KEYS,
  ZERO_KEY,
  actionKey,
  addressKey,
  hashToBytes32,
  inscriptionKey,
  slugKey,
  tickKey,
  txKey,
} from "./keys";

/** When and for which set a fact is attested: the same for every fact an attester signs in one round. */
export interface FactStamp {
  /** Base-chain height the fact was computed at (outputs counted only when 6 deep). */
  l1Height: bigint | number;
  /** Unix seconds of the attestation; later than the stored fact's for a replacement. */
  attestedAt: bigint | number;
  /** The contract's current attesterSetId. */
  attesterSetId: bigint | number;
}

function fact(
  name: keyof typeof FACT_TYPE_KEYS,
  subject: string,
  qualifier: string,
  value: bigint,
  data: string,
  stamp: FactStamp,
): Fact {
  return {
    factType: FACT_TYPE_KEYS[name],
    subject,
    qualifier,
    value,
    data,
    l1Height: BigInt(stamp.l1Height),
    attestedAt: BigInt(stamp.attestedAt),
    attesterSetId: BigInt(stamp.attesterSetId),
  };
}

/** DOGE_BALANCE: the confirmed balance of an address in koinu. */
export function dogeBalanceFact(dogeAddress: string, koinu: bigint, stamp: FactStamp): Fact {
  return fact("DOGE_BALANCE", addressKey(dogeAddress), ZERO_KEY, koinu, ZERO_KEY, stamp);
}

/** DRC20_BALANCE: available + transferable balance of an address for a tick. */
export function drc20BalanceFact(dogeAddress: string, tick: string, amount: bigint, stamp: FactStamp): Fact {
  return fact("DRC20_BALANCE", addressKey(dogeAddress), tickKey(tick), amount, ZERO_KEY, stamp);
}

/** COLLECTION_COUNT: member tokens of a launchpad collection held by an address. */
export function collectionCountFact(dogeAddress: string, slug: string, count: bigint, stamp: FactStamp): Fact {
  return fact("COLLECTION_COUNT", addressKey(dogeAddress), slugKey(slug), count, ZERO_KEY, stamp);
}

/** INSCRIPTION_OWNER: the address holding an inscription (its addressKey in `data`). */
export function inscriptionOwnerFact(inscriptionId: string, ownerAddress: string, stamp: FactStamp): Fact {
  return fact("INSCRIPTION_OWNER", inscriptionKey(inscriptionId), ZERO_KEY, 0n, addressKey(ownerAddress), stamp);
}

/** INSCRIPTION_VALID: validity (value 1/0) and the envelopeHash (hex, with or without 0x) in `data`. */
export function inscriptionValidFact(
  inscriptionId: string,
  valid: boolean,
  envelopeHash: string,
  stamp: FactStamp,
): Fact {
  return fact(
    "INSCRIPTION_VALID",
    inscriptionKey(inscriptionId),
    ZERO_KEY,
    valid ? 1n : 0n,
    hashToBytes32(envelopeHash),
    stamp,
  );
}

/** INSCRIPTION_ACTION: the registered ACTION an inscription carries (value 1, actionKey), or none (0, 0). */
export function inscriptionActionFact(inscriptionId: string, action: string | null, stamp: FactStamp): Fact {
  return action === null
    ? fact("INSCRIPTION_ACTION", inscriptionKey(inscriptionId), ZERO_KEY, 0n, ZERO_KEY, stamp)
    : fact("INSCRIPTION_ACTION", inscriptionKey(inscriptionId), ZERO_KEY, 1n, actionKey(action), stamp);
}

/**
 * DRC20_TRANSFER_VALID: the transfer inscription revealed in `revealTxid`; value = the amount made
 * transferable (0 when the inscription is not a valid transfer), data = its tickKey.
 */
export function drc20TransferValidFact(revealTxid: string, tick: string, validAmount: bigint, stamp: FactStamp): Fact {
  return fact("DRC20_TRANSFER_VALID", txKey(revealTxid), ZERO_KEY, validAmount, tickKey(tick), stamp);
}

/** TX_INCLUDED: the height and block hash (display hex) including a transaction, or null if not included. */
export function txIncludedFact(
  txid: string,
  inclusion: { height: bigint | number; blockHash: string } | null,
  stamp: FactStamp,
): Fact {
  return inclusion === null
    ? fact("TX_INCLUDED", txKey(txid), ZERO_KEY, 0n, ZERO_KEY, stamp)
    : fact("TX_INCLUDED", txKey(txid), ZERO_KEY, BigInt(inclusion.height), hashToBytes32(inclusion.blockHash), stamp);
}

/** L1_TIP: the tip height (also its l1Height) and block hash (display hex). */
export function l1TipFact(height: bigint | number, blockHash: string, stamp: Omit<FactStamp, "l1Height">): Fact {
  return fact("L1_TIP", ZERO_KEY, ZERO_KEY, BigInt(height), hashToBytes32(blockHash), { ...stamp, l1Height: height });
}
