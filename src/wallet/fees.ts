/**
 * Fees at Dogecoin Core 1.14.6 policy.
 *
 * What 1.14.6 does (read in dogecoin/dogecoin, 1.14 branch):
 * - `CWallet::GetRequiredFee(tx, nBytes)` (src/wallet/wallet.cpp) is
 *   `max(minTxFee.GetFee(nBytes) + GetDogecoinDustFee(tx.vout, discardThreshold), minRelayTxFeeRate.GetFee(nBytes))`;
 *   `minTxFee` defaults to 0.01 DOGE/kB (DEFAULT_TRANSACTION_MINFEE) and `discardThreshold` to
 *   0.01 DOGE (DEFAULT_DISCARD_THRESHOLD).
 * - `CFeeRate::GetFee(nBytes)` (src/amount.cpp) is proportional: `nSatoshisPerK * nBytes / 1000`
 *   (integer division), at least 1 koinu for a non-empty transaction. The rounding of the size up
 *   to the next whole kB that 1.14.0-1.14.3 did is gone since 1.14.4 ("Transaction sizes are no
 *   longer rounded up to the nearest kilobyte before calculating fees", doc/release-notes 1.14.4/5).
 * - `GetDogecoinDustFee(vout, dustLimit)` (src/dogecoin-fees.cpp) adds `dustLimit` for every
 *   output with `IsDust(dustLimit)`, i.e. a spendable output (not OP_RETURN) below the limit; the
 *   relay side (`GetDogecoinMinRelayFee`) adds the same surcharge with `nDustLimit` (0.01 DOGE) on top
 *   of the relay fee of 0.001 DOGE/kB.
 * - Outputs below the hard dust limit (0.001 DOGE, `-harddustlimit`) are not standard at all.
 *
 * The devnet's `DevnetNode.minRelayFee` (src/devnet/node.ts) is the relay side of the same rule.
 */
import { OP, TxOutput } from "../doge";

/** Recommended wallet fee rate: 0.01 DOGE per 1000 bytes (Core's -mintxfee default). */
export const RECOMMENDED_FEE_RATE = 1_000_000n;
/** Relay minimum: 0.001 DOGE per 1000 bytes (-minrelaytxfee). `dogecoinFee` never goes below it. */
export const MIN_RELAY_FEE_RATE = 100_000n;
/** Each spendable output below this (0.01 DOGE) adds this much to the fee; change below it goes to the fee. */
export const SOFT_DUST_LIMIT = 1_000_000n;
/** Outputs below this (0.001 DOGE) are refused by the network. */
export const HARD_DUST_LIMIT = 100_000n;

/** Core's CScript::IsUnspendable: OP_RETURN first, or longer than the script size limit. */
export function isUnspendableScript(script: Uint8Array): boolean {
  return (script.length > 0 && script[0] === OP.OP_RETURN) || script.length > 10_000;
}

/**
 * The fee of a transaction of `sizeBytes` bytes with `outputs`, in koinu: `rate * size / 1000`
 * (at least 1 koinu), with the rate never below the relay minimum, plus SOFT_DUST_LIMIT for each
 * spendable output below SOFT_DUST_LIMIT. OP_RETURN outputs never count as dust.
 */
export function dogecoinFee(sizeBytes: number, outputs: readonly TxOutput[], feeRateKoinuPerKb: bigint = RECOMMENDED_FEE_RATE): bigint {
  if (!Number.isSafeInteger(sizeBytes) || sizeBytes < 0) throw new RangeError(`dogecoinFee: size must be a non-negative integer, got ${sizeBytes}`);
  if (feeRateKoinuPerKb < 0n) throw new RangeError(`dogecoinFee: fee rate must not be negative, got ${feeRateKoinuPerKb}`);
  const rate = feeRateKoinuPerKb > MIN_RELAY_FEE_RATE ? feeRateKoinuPerKb : MIN_RELAY_FEE_RATE;
  let fee = (rate * BigInt(sizeBytes)) / 1000n;
  if (fee === 0n && sizeBytes > 0) fee = 1n;
  for (const output of outputs) {
    if (output.value < SOFT_DUST_LIMIT && !isUnspendableScript(output.script)) fee += SOFT_DUST_LIMIT;
  }
  return fee;
}
