/** The AMM service (issue 9): ledger over SQLite, deposits read from the index, HTTP API, settlement. */
export { AMM_MIGRATIONS, AMM_SCHEMA, openAmmDatabase } from "./schema";
export { DepositReader } from "./deposits";
export type {
  Deposit,
  DepositOrder,
  DepositOutcome,
  DepositReaderOptions,
  DogeDeposit,
  Drc20Deposit,
} from "./deposits";
export { authorizationMessage, orderMessage } from "./orders";
export type { Authorization, OrderDomain } from "./orders";
export {
  AmmLedger,
  DEFAULT_PAYOUT_COSTS,
  DEFAULT_QUOTE_SECONDS,
  EXPIRED_SWAP_KEEP_SECONDS,
  NO_PAYOUT_COSTS,
  DEFAULT_SLIPPAGE_BPS,
  DEFAULT_SWAP_SECONDS,
  DEPOSIT_GRACE_SECONDS,
  MAX_AUTHORIZATION_SECONDS,
  MIN_DOGE_KOINU,
  addLiquidityFields,
  executeSwapFields,
  parseAmount,
  priceString,
} from "./ledger";
export type {
  AmmLedgerOptions,
  PayoutAsset,
  PayoutCosts,
  PayoutRecord,
  PoolRecord,
  QuoteRecord,
  SwapRecord,
  SwapStatus,
} from "./ledger";
export { DEFAULT_AMM_RATE_LIMIT, createAmmApp, createQuoteFastPath } from "./app";
export type { AmmAppOptions } from "./app";
export {
  DEFAULT_CONFIRMATIONS,
  DEFAULT_INSCRIBER_PROJECT,
  DRC20_TRANSFER_CONTENT_TYPE,
  OPEN_PAYOUT_STATUSES,
  PAYOUT_OWNER,
  SettlementWorker,
} from "./settlement";
export type { Payout, PayoutStatus, SettlementWorkerOptions } from "./settlement";
export {
  BondingApiKeys,
  BondingStore,
  DEFAULT_MAX_RESERVATION_SHARE_BPS,
  DEFAULT_MAX_RESERVATIONS_PER_ADDRESS,
  DEFAULT_RESERVATION_SECONDS,
  confirmFields,
  graduatedProvider,
  reserveFields,
} from "./bonding-store";
export type {
  BondingQuote,
  BondingSide,
  BondingStoreOptions,
  CurveRecord,
  CurveStatus,
  LaunchRequest,
  ReservationRecord,
  ReservationStatus,
} from "./bonding-store";
export { createBondingRouter, mountBonding } from "./bonding-app";
export type { BondingRouterOptions } from "./bonding-app";
