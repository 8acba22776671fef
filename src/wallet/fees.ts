/**
 * The wallet's fee: Dogecoin Core 1.14.6's `CWallet::GetRequiredFee(tx, nBytes)` (src/wallet/wallet.cpp),
 * `max(minTxFee.GetFee(nBytes) + GetDogecoinDustFee(tx.vout, discardThreshold), minRelayTxFeeRate.GetFee(nBytes))`
 * with `minTxFee` the wallet's rate (RECOMMENDED_FEE_RATE, -mintxfee) and `discardThreshold` 0.01 DOGE
 * (SOFT_DUST_LIMIT). The proportional fee, the dust surcharge and the values are the relay rule of
 * src/doge/policy.ts, which the devnet enforces; the wallet only picks the rate.
 */
import { MIN_RELAY_FEE_RATE, RECOMMENDED_FEE_RATE, TxOutput, minRelayFee } from "../doge";

export { HARD_DUST_LIMIT, MIN_RELAY_FEE_RATE, RECOMMENDED_FEE_RATE, SOFT_DUST_LIMIT, isUnspendable } from "../doge";

/**
 * The fee of a transaction of `sizeBytes` bytes with `outputs`, in koinu: `rate * size / 1000`
 * (at least 1 koinu), with the rate never below the relay minimum, plus SOFT_DUST_LIMIT for each
 * spendable output below SOFT_DUST_LIMIT. OP_RETURN outputs never count as dust.
 */
export function dogecoinFee(
  sizeBytes: number,
  outputs: readonly TxOutput[],
  feeRateKoinuPerKb: bigint = RECOMMENDED_FEE_RATE,
): bigint {
  if (!Number.isSafeInteger(sizeBytes) || sizeBytes < 0)
    throw new RangeError(`dogecoinFee: size must be a non-negative integer, got ${sizeBytes}`);
  if (feeRateKoinuPerKb < 0n)
    throw new RangeError(`dogecoinFee: fee rate must not be negative, got ${feeRateKoinuPerKb}`);
  return minRelayFee(
    sizeBytes,
    outputs,
    feeRateKoinuPerKb > MIN_RELAY_FEE_RATE ? feeRateKoinuPerKb : MIN_RELAY_FEE_RATE,
  );
}
