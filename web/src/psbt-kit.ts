/**
 * The pages' PSBT code (/wallet-psbt.js): bitcoinjs-lib's Psbt and what signs, checks, builds and
 * finalises PSBTs with it. It is about half the wallet provider's script, and only a page that pays
 * or signs a PSBT needs it, so the provider (web/src/wallet-provider.ts) loads it the first time it
 * needs it (./psbt-load.ts) instead of carrying it at first render. Bundled by
 * src/services/pages/wallet-provider.ts (walletPsbtBundle) as an IIFE defining `DogeWalletsPsbt`,
 * which takes the modules the provider already has (the adapters' errors, the DRC-20 transfer, the
 * curve, Buffer) from the provider's `DogeWallets.shared` rather than a second copy of them.
 */
export { Psbt } from "bitcoinjs-lib";
export { checkSignatures, ownInputIndexes, takeSignedPsbtHex, takeSignedTransaction } from "./wallets/psbt-forms";
export { sendDrc20WithPsbts } from "./wallets/psbt-drc20";
export { buildPayment, finalizePayment } from "./payment";
