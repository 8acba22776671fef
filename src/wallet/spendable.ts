/**
 * What a wallet of ours can spend with its own key: the one rule the hot wallet selects coins by
 * and the custodies count deposits by (docs/security.md, "The custody counts only what it can
 * spend"). An output is spendable DOGE only when:
 * - it pays exactly the wallet's own P2PKH script (a bare pay-to-pubkey output to the same key, a
 *   multisig or any other script is listed under the same address by the index but needs another
 *   scriptSig, and the wallet never signs one);
 * - it carries no inscription (an inscription's koinu are the inscription's: spending it as fee or
 *   change would burn or give away someone's inscription, so the wallet locks it);
 * - it is not a coinbase output younger than its coinbase maturity (src/doge/maturity.ts: 60 blocks
 *   on regtest, 240 on mainnet and testnet past block 145,000; Dogecoin Core refuses
 *   `bad-txns-premature-spend-of-coinbase`).
 * A DRC-20 transfer inscription is an inscription, so its output is locked too.
 */
import { coinbaseMatureWith } from "../doge/maturity";

/** Why an output the index attributes to a wallet's address is not spendable DOGE for it. */
export type UnspendableReason =
  /** Pays a script other than the wallet's own P2PKH (bare P2PK, multisig, ...). */
  | "NOT_OWN_SCRIPT"
  /** Carries one or more inscriptions (DRC-20 transfers included). */
  | "CARRIES_INSCRIPTION"
  /** A coinbase output with fewer confirmations than the coinbase maturity. */
  | "IMMATURE_COINBASE";

/** What the rule needs to know of an output. */
export interface OutputFacts {
  scriptHex: string;
  /** Inscriptions on the output as the index reckons them (DRC-20 transfers included). */
  inscriptionCount: number;
  coinbase: boolean;
  /** Blocks from the index's tip down to the output's block, both counted (1 = in the tip). */
  confirmations: number;
  /** The output's block height, which picks a coinbase's maturity era (absent: the current era's). */
  height?: number;
}

/**
 * Whether `output` is DOGE the wallet with script `ownScriptHex` can spend on `network`: null when
 * it is, else the first reason it is not (script, then inscription, then maturity).
 */
export function unspendableReason(
  output: OutputFacts,
  ownScriptHex: string,
  network: { name: string },
): UnspendableReason | null {
  if (output.scriptHex.toLowerCase() !== ownScriptHex.toLowerCase()) return "NOT_OWN_SCRIPT";
  if (output.inscriptionCount > 0) return "CARRIES_INSCRIPTION";
  if (output.coinbase && !coinbaseMatureWith(network, output.confirmations, output.height)) return "IMMATURE_COINBASE";
  return null;
}
