/**
 * The launchpad's /wallet-provider.js with the development wallet (DESIGN.md 7): the pages' wallet
 * provider (src/services/pages/wallet-provider.ts) offering, beside the wallets the browser brings,
 * our development wallet over one devnet key. The launchpad serves it when it is started with a
 * development key (the embedded default and the browser tests); otherwise it serves the provider
 * without it.
 */
import { DogeNetwork } from "../../doge";
import { walletProviderScript } from "../pages/wallet-provider";

/** The provider script offering the development wallet over `wif` (refused unless it is a key of `network`, and on mainnet). */
export function devWalletScript(wif: string, network: DogeNetwork, explorerUrl?: string | null): Promise<string> {
  return walletProviderScript({ network, devWalletWif: wif, explorerUrl });
}
