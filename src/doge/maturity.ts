/**
 * Coinbase maturity: Dogecoin's one rule, used by the devnet's mempool and block validation, the
 * wallet's coin selection (src/wallet/spendable.ts) and the explorer's `mature` flag.
 *
 * Dogecoin Core 1.14 keeps a consensus era per height (src/chainparams.cpp, `consensus`,
 * `digishieldConsensus`, `auxpowConsensus`; `Params().GetConsensus(height)` picks the era with the
 * highest `nHeightEffective` not above the height), and each era has its `nCoinbaseMaturity`:
 * - mainnet and testnet: 30 before Digishield, 240 from Digishield's first block, 145,000
 *   (`digishieldConsensus.nHeightEffective = 145000; digishieldConsensus.nCoinbaseMaturity = 240`);
 * - regtest: 60 in every era (`consensus.nCoinbaseMaturity = 60`, copied into the later eras).
 * The era is the coinbase's own height's: a spend is refused with
 * `bad-txns-premature-spend-of-coinbase` while `spendHeight - coinbaseHeight <
 * GetConsensus(coinbaseHeight).nCoinbaseMaturity` (src/txmempool.cpp, src/validation.cpp
 * CheckTxInputs), where a mempool spend's height is the tip's plus one. So a coinbase is spendable
 * in the mempool once its confirmations (1 = in the tip) reach its maturity.
 */

/** Dogecoin mainnet's and testnet's first Digishield block (src/chainparams.cpp). */
export const DIGISHIELD_HEIGHT = 145_000;

/** Coinbase maturity of the eras (src/chainparams.cpp nCoinbaseMaturity). */
export const COINBASE_MATURITY = Object.freeze({
  /** Mainnet and testnet before block 145,000. */
  preDigishield: 30,
  /** Mainnet and testnet from block 145,000. */
  digishield: 240,
  /** Regtest, at every height. */
  regtest: 60,
});

/**
 * Blocks a coinbase of `coinbaseHeight` must be buried before it may be spent on `network`.
 * Without a height: the maturity of the current era (240 on mainnet and testnet), which is what
 * every coinbase mined since 2014 needs and never less than an older one needs.
 */
export function coinbaseMaturity(network: { name: string }, coinbaseHeight?: number): number {
  if (network.name === "regtest") return COINBASE_MATURITY.regtest;
  if (coinbaseHeight !== undefined && coinbaseHeight < DIGISHIELD_HEIGHT) return COINBASE_MATURITY.preDigishield;
  return COINBASE_MATURITY.digishield;
}

/**
 * Whether a coinbase output of `coinbaseHeight` may be spent in a block of `spendHeight` (for the
 * mempool: the tip's height plus one).
 */
export function coinbaseSpendableAt(network: { name: string }, coinbaseHeight: number, spendHeight: number): boolean {
  return spendHeight - coinbaseHeight >= coinbaseMaturity(network, coinbaseHeight);
}

/**
 * Whether a coinbase output with `confirmations` (1 = in the tip) may be spent by a transaction sent
 * now; `coinbaseHeight` picks the era (absent: the current era's maturity).
 */
export function coinbaseMatureWith(network: { name: string }, confirmations: number, coinbaseHeight?: number): boolean {
  return confirmations >= coinbaseMaturity(network, coinbaseHeight);
}
