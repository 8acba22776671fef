/**
 * How deep a payment must be before a service moves value against it (DESIGN.md section 8): the
 * AMM's deposits, the launchpad's mint payments. A per-network default, configurable by each
 * daemon, never below 1. Six blocks on mainnet and testnet is the usual exchange depth for Dogecoin
 * (one-minute blocks); regtest defaults to 1 so that the devnet demo moves at once.
 */
import type { DogeNetwork } from "../doge";

export const DEFAULT_PAYMENT_CONFIRMATIONS: Readonly<Record<string, number>> = { mainnet: 6, testnet: 6, regtest: 1 };

/** The default depth of `network` (6 for any network not listed). */
export function defaultPaymentConfirmations(network: Pick<DogeNetwork, "name">): number {
  return DEFAULT_PAYMENT_CONFIRMATIONS[network.name] ?? 6;
}
