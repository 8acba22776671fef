/** The hot wallet: UTXO selection over the index, fees, signing, broadcast and tracking (types.ts is the contract). */
export * from "./types";
export * from "./errors";
export * from "./fees";
export {
  loadWalletKey,
  generateWalletKeyFile,
  walletKeyFromWif,
  walletKeyFromPrivateKey,
  DEFAULT_WALLET_KEY_ENV,
} from "./keys";
export type { LoadWalletKeyOptions } from "./keys";
export { openWalletDatabase, WALLET_MIGRATIONS, WALLET_SCHEMA } from "./schema";
export { indexNodeChain, classifyBroadcastError } from "./chain";
export { SIGNATURE_BYTES, signedSize } from "./build";
export {
  HotWallet,
  WALLET_OWNER,
  DEFAULT_MAX_UNCONFIRMED_DEPTH,
  DEFAULT_TRACKING_DEPTH,
  CONFLICT_HOLD_MS,
  MAX_FEE_RATE_FACTOR,
  MAX_INPUTS,
  MAX_SPLIT_OUTPUTS,
} from "./hot-wallet";
export type { HotWalletOptions } from "./hot-wallet";
export { unspendableReason } from "./spendable";
export type { OutputFacts, UnspendableReason } from "./spendable";
