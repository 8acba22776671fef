/**
 * The AMM daemon's /health document: the index (behind its node or not), frozen payouts, the
 * reserves (an asset short in the last two passes, with its figures) and stuck payouts. Not ok
 * (503) when any of them needs an operator.
 */
import type { IndexQueries } from "../../indexer/queries";
import { HealthDocument, indexHealth } from "../ops/server";
import type { DepositReader } from "./deposits";
import type { CustodyReserves } from "./reserves";

export function ammHealth(options: {
  queries: Pick<IndexQueries, "status">;
  deposits: Pick<DepositReader, "confirmations" | "custodyAddress">;
  settlement: { frozenCount(): number };
  reserves: Pick<CustodyReserves, "health">;
}): HealthDocument {
  const index = indexHealth(options.queries);
  const frozen = options.settlement.frozenCount();
  const custody = options.reserves.health();
  return {
    ok: index.ok && frozen === 0 && custody.ok,
    name: "amm",
    custody_address: options.deposits.custodyAddress,
    indexedHeight: index.indexedHeight,
    nodeHeight: index.nodeHeight,
    depositConfirmations: options.deposits.confirmations,
    frozenPayouts: frozen,
    reservesShortfalls: custody.shortfalls,
    stuckPayouts: custody.stuckPayouts,
  };
}
