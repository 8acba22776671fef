/**
 * Facts computed at an explicit base-chain height H from the attester's own index: the state
 * after block H, where H is at least MIN_CONFIRMATIONS deep in the index (H <= indexed tip - 5).
 * `computeFact` is a pure function of (database, H, subject): three attesters over three
 * independently built indexes of one chain sign identical bytes. The semantics of each type,
 * including unknown subjects, are listed in docs/architecture.md ("Attesters").
 */
import { Refusal, badRequest, conflict, notFound, unprocessable } from "../errors";
import {
  ZERO_KEY,
  collectionCountFact,
  dogeBalanceFact,
  drc20BalanceFact,
  drc20TransferValidFact,
  inscriptionActionFact,
  inscriptionOwnerFact,
  inscriptionValidFact,
  l1TipFact,
  txIncludedFact,
} from "../facts";
import type { Fact, FactStamp, FactTypeName } from "../facts";
import { checkActionContentType, drc20TickKey } from "../inscription";
import type { IndexHistory, IndexedTip } from "../indexer/read/as-of-height";
import type { FactParamsJson } from "./wire";

/** Confirmations a height needs before anything at or below it is signed: a floor no configuration lowers. */
export const MIN_CONFIRMATIONS = 6;

/** The subject parameters each fact type takes (and requires); any other parameter is refused. */
export const FACT_PARAMS: Readonly<Record<FactTypeName, readonly (keyof FactParamsJson)[]>> = Object.freeze({
  DOGE_BALANCE: ["address"],
  DRC20_BALANCE: ["address", "tick"],
  DRC20_TRANSFER_VALID: ["txid"],
  COLLECTION_COUNT: ["address", "slug"],
  INSCRIPTION_OWNER: ["inscription_id"],
  INSCRIPTION_VALID: ["inscription_id"],
  INSCRIPTION_ACTION: ["inscription_id"],
  TX_INCLUDED: ["txid"],
  L1_TIP: [],
});

/**
 * Confirmations a fact of `type` needs: every fact that counts outputs or events needs at least 6;
 * the L1 tip is the exception, since it counts nothing and says only how far the chain has grown.
 * Signing the tip at the index's own tip is what lets the contracts' "6 deep" checks
 * (`l1Tip() >= l1Height + 5`) mean 6 confirmations and not 11.
 */
export function confirmationsFor(type: FactTypeName, minConfirmations: number): number {
  return type === "L1_TIP" ? 1 : Math.max(MIN_CONFIRMATIONS, minConfirmations);
}

/** The greatest height signable with `minConfirmations` over an index at `indexedHeight`. */
export function signableHeight(indexedHeight: number, minConfirmations: number): number {
  return indexedHeight - (Math.max(MIN_CONFIRMATIONS, minConfirmations) - 1);
}

/**
 * The subject parameters of a fact request, whose values their schemas validated and put in
 * canonical form (schemas.ts factParams: txids and inscription ids in lower case, addresses of the
 * attester's network): exactly the parameters `type` takes, or 400 UNKNOWN_FIELDS (one it does not
 * take) or MISSING_PARAMS.
 */
export function checkFactParams(type: FactTypeName, params: FactParamsJson | undefined): FactParamsJson {
  const wanted = FACT_PARAMS[type];
  const given = params ?? {};
  const unknown = Object.keys(given).filter(
    (key) => given[key as keyof FactParamsJson] !== undefined && !(wanted as readonly string[]).includes(key),
  );
  if (unknown.length > 0)
    throw badRequest("UNKNOWN_FIELDS", `params has unknown fields for ${type}: ${unknown.join(", ")}`, {
      field: "params",
      unknown,
    });
  const missing = wanted.filter((name) => given[name] === undefined);
  if (missing.length > 0)
    throw badRequest("MISSING_PARAMS", `${type} needs params ${missing.join(", ")}`, { field: "params", missing });
  const out: FactParamsJson = {};
  for (const name of wanted) out[name] = given[name];
  return out;
}

/**
 * Checks that `l1Height` can be attested from this index: the index covers the chain from genesis,
 * has reached the height, and the height is `minConfirmations` (never fewer than 6) deep in it.
 * Returns the indexed tip. Run it in the same snapshot as the reads it guards.
 */
export function checkAttestableHeight(
  history: IndexHistory,
  l1Height: number,
  minConfirmations: number,
  type: FactTypeName | null = null,
): IndexedTip {
  const startHeight = history.startHeight();
  if (startHeight !== 0) {
    throw new Refusal(
      "unavailable",
      "INDEX_INCOMPLETE",
      "this index does not start at genesis, so it cannot attest balances or ownership",
      { start_height: startHeight },
    );
  }
  const tip = history.tip();
  const indexedHeight = tip ? tip.height : -1;
  if (!tip || l1Height > indexedHeight) {
    throw conflict("INDEX_BEHIND", "the attester's index has not reached the requested height", {
      indexed_height: indexedHeight,
      requested_height: l1Height,
    });
  }
  const confirmations =
    type === null ? Math.max(MIN_CONFIRMATIONS, minConfirmations) : confirmationsFor(type, minConfirmations);
  const signable = indexedHeight - (confirmations - 1);
  if (l1Height > signable) {
    throw unprocessable(
      "NOT_DEEP_ENOUGH",
      `height ${l1Height} is not ${confirmations} blocks deep in the attester's index`,
      {
        l1_height: l1Height,
        signable_height: signable,
        min_confirmations: confirmations,
      },
    );
  }
  return tip;
}

/** `fact` with `data` replaced: the builders take an address or tick, the few "none" answers carry zero. */
function withData(fact: Fact, data: string): Fact {
  return { ...fact, data };
}

/**
 * The fact of `type` about `params` (canonical: schemas.ts factParams, checkFactParams) at `stamp.l1Height`, read in
 * one snapshot of the index after checking the height (checkAttestableHeight). Throws Refusal:
 * INDEX_BEHIND, NOT_DEEP_ENOUGH, INDEX_INCOMPLETE, INSCRIPTION_NOT_FOUND.
 */
export function computeFact(
  history: IndexHistory,
  type: FactTypeName,
  params: FactParamsJson,
  stamp: FactStamp,
  minConfirmations = MIN_CONFIRMATIONS,
): Fact {
  const height = Number(stamp.l1Height);
  if (!Number.isSafeInteger(height) || height < 0)
    throw badRequest("INVALID_HEIGHT", "l1_height must be a non-negative integer", { field: "l1_height" });
  return history.snapshot(() => {
    checkAttestableHeight(history, height, minConfirmations, type);
    const need = <K extends keyof FactParamsJson>(name: K): string => {
      const value = params[name];
      if (value === undefined)
        throw badRequest("MISSING_PARAMS", `${type} needs params.${name}`, { field: "params", missing: [name] });
      return value;
    };
    switch (type) {
      case "DOGE_BALANCE": {
        const address = need("address");
        return dogeBalanceFact(address, history.dogeBalanceAt(address, height), stamp);
      }
      case "DRC20_BALANCE": {
        const address = need("address");
        const tick = need("tick");
        return drc20BalanceFact(address, tick, history.drc20BalanceAt(address, drc20TickKey(tick), height), stamp);
      }
      case "COLLECTION_COUNT": {
        const address = need("address");
        const slug = need("slug");
        return collectionCountFact(address, slug, BigInt(history.collectionCountAt(address, slug, height)), stamp);
      }
      case "INSCRIPTION_OWNER": {
        const id = need("inscription_id");
        const place = history.inscriptionAt(id, height) ? history.inscriptionPlaceAt(id, height) : null;
        if (!place) throw inscriptionNotFound(id, height);
        // Burned (an output without address, e.g. OP_RETURN) or lost to unclaimed fees: nobody owns
        // it, which a zero owner key says (it equals no addressKey), replacing an older owner fact.
        return place.ownerAddress === null
          ? withData(inscriptionOwnerFact(id, "", stamp), ZERO_KEY)
          : inscriptionOwnerFact(id, place.ownerAddress, stamp);
      }
      case "INSCRIPTION_VALID": {
        const id = need("inscription_id");
        const inscription = history.inscriptionAt(id, height);
        if (!inscription) return inscriptionValidFact(id, false, ZERO_KEY, stamp);
        return inscriptionValidFact(id, true, inscription.envelopeHash ?? ZERO_KEY, stamp);
      }
      case "INSCRIPTION_ACTION": {
        const id = need("inscription_id");
        const inscription = history.inscriptionAt(id, height);
        if (!inscription) throw inscriptionNotFound(id, height);
        const registered =
          inscription.action !== null && checkActionContentType(inscription.action, inscription.contentType).ok;
        return inscriptionActionFact(id, registered ? inscription.action : null, stamp);
      }
      case "DRC20_TRANSFER_VALID": {
        const txid = need("txid");
        // DRC-20 bodies are read from single-transaction Doginals reveals: the id is `<reveal txid>i0`.
        const transfer = history.drc20TransferAt(`${txid}i0`, height);
        if (!transfer) return withData(drc20TransferValidFact(txid, "", 0n, stamp), ZERO_KEY);
        const amount = transfer.inscribedValid && !transfer.sent ? transfer.amount : 0n;
        return drc20TransferValidFact(txid, transfer.tick, amount, stamp);
      }
      case "TX_INCLUDED": {
        const txid = need("txid");
        return txIncludedFact(txid, history.txInclusionAt(txid, height), stamp);
      }
      case "L1_TIP": {
        const hash = history.blockHashAt(height);
        if (hash === null)
          throw conflict("INDEX_BEHIND", "the attester's index has no block at the requested height", {
            indexed_height: history.tip()?.height ?? -1,
            requested_height: height,
          });
        return l1TipFact(height, hash, stamp);
      }
    }
  });
}

function inscriptionNotFound(id: string, height: number): Refusal {
  return notFound("INSCRIPTION_NOT_FOUND", `no inscription ${id} was revealed at or below height ${height}`, {
    inscription_id: id,
    l1_height: height,
  });
}
