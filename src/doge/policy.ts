/**
 * Dogecoin Core's relay policy and RPC codes, once: the dust and fee rule the wallet pays by and the
 * devnet (and the explorer's package check) enforces, `isUnspendable`, the sizes of IsStandardTx,
 * dogecoind's JSON-RPC error codes and its mempool reject codes. Values are Dogecoin Core 1.14.6's
 * defaults (dogecoin/dogecoin, 1.14 branch), each with the place it is defined.
 *
 * The fee rule (src/dogecoin-fees.cpp, src/amount.cpp):
 * - `CFeeRate::GetFee(nBytes)` is proportional, `nSatoshisPerK * nBytes / 1000` (integer division),
 *   at least 1 koinu for a non-empty transaction. The rounding of the size up to the next whole kB
 *   of 1.14.0-1.14.3 is gone since 1.14.4 (doc/release-notes 1.14.4: "Transaction sizes are no
 *   longer rounded up to the nearest kilobyte before calculating fees").
 * - `GetDogecoinDustFee(vout, dustLimit)` adds `dustLimit` for every output with `IsDust(dustLimit)`,
 *   i.e. a spendable output (not `IsUnspendable`) below the limit. `GetDogecoinMinRelayFee` is the
 *   relay rate's fee plus that surcharge with `nDustLimit` (SOFT_DUST_LIMIT).
 * - The wallet's `CWallet::GetRequiredFee` (src/wallet/wallet.cpp) is the same with the wallet's
 *   -mintxfee (RECOMMENDED_FEE_RATE), never below the relay fee.
 * - Outputs below the hard dust limit (-harddustlimit) are not standard at all (IsStandardTx "dust").
 */
import { OP } from "./script";
import type { TxOutput } from "./tx";

// ------------------------------------------------------------------ fees and dust

/** -minrelaytxfee: 0.001 DOGE per 1000 bytes (src/validation.h DEFAULT_MIN_RELAY_TX_FEE). */
export const MIN_RELAY_FEE_RATE = 100_000n;
/** -mintxfee: the wallet's rate, 0.01 DOGE per 1000 bytes (src/wallet/wallet.h DEFAULT_TRANSACTION_MINFEE). */
export const RECOMMENDED_FEE_RATE = 1_000_000n;
/** -incrementalrelayfee: 0.0001 DOGE per 1000 bytes (src/policy/policy.h DEFAULT_INCREMENTAL_RELAY_FEE). */
export const INCREMENTAL_RELAY_FEE_RATE = 10_000n;
/**
 * -dustlimit: 0.01 DOGE (src/policy/policy.h DEFAULT_DUST_LIMIT, nDustLimit). Each spendable output
 * below it adds this much to the fee; a wallet sends change below it to the fee instead.
 */
export const SOFT_DUST_LIMIT = 1_000_000n;
/** -harddustlimit: 0.001 DOGE (src/policy/policy.h DEFAULT_HARD_DUST_LIMIT). Outputs below it are refused. */
export const HARD_DUST_LIMIT = 100_000n;

/** MAX_SCRIPT_SIZE (src/script/script.h): a longer script cannot be spent. */
export const MAX_SCRIPT_SIZE = 10_000;

/** `CScript::IsUnspendable` (src/script/script.h): OP_RETURN first, or longer than MAX_SCRIPT_SIZE. Never dust. */
export function isUnspendable(script: Uint8Array): boolean {
  return (script.length > 0 && script[0] === OP.OP_RETURN) || script.length > MAX_SCRIPT_SIZE;
}

/** `GetDogecoinDustFee(vout, SOFT_DUST_LIMIT)`: SOFT_DUST_LIMIT for each spendable output below it. */
export function dustSurcharge(outputs: readonly Pick<TxOutput, "value" | "script">[]): bigint {
  let fee = 0n;
  for (const output of outputs) {
    if (output.value < SOFT_DUST_LIMIT && !isUnspendable(output.script)) fee += SOFT_DUST_LIMIT;
  }
  return fee;
}

/**
 * `GetDogecoinMinRelayFee` at `ratePerKb` koinu per 1000 bytes: `rate * size / 1000` (at least 1
 * koinu for a non-empty transaction) plus the dust surcharge of `outputs`. At the default rate it is
 * the least fee a node relays; the wallet calls it with its own (higher) rate.
 */
export function minRelayFee(
  sizeBytes: number,
  outputs: readonly Pick<TxOutput, "value" | "script">[],
  ratePerKb: bigint = MIN_RELAY_FEE_RATE,
): bigint {
  let fee = (ratePerKb * BigInt(sizeBytes)) / 1000n;
  if (fee === 0n && sizeBytes > 0) fee = 1n;
  return fee + dustSurcharge(outputs);
}

// ------------------------------------------------------------------ IsStandardTx and CheckTransaction sizes

/** MAX_BLOCK_SERIALIZED_SIZE (src/consensus/consensus.h): 1 MB, no segwit. A transaction is at most this. */
export const MAX_BLOCK_SIZE = 1_000_000;
/** MAX_STANDARD_TX_SIZE (src/policy/policy.h, Dogecoin keeps 100 kB). */
export const MAX_STANDARD_TX_SIZE = 100_000;
/** IsStandardTx's scriptSig limit (src/policy/policy.cpp: 1650 bytes). */
export const MAX_STANDARD_SCRIPTSIG_SIZE = 1650;
/** -datacarriersize: 80 bytes of data, 83 bytes of script (src/script/standard.h MAX_OP_RETURN_RELAY). */
export const MAX_DATA_CARRIER_SCRIPT = 83;
/** MAX_P2SH_SIGOPS (src/policy/policy.h): AreInputsStandard's limit on a redeem script. */
export const MAX_P2SH_SIGOPS = 15;

// ------------------------------------------------------------------ dogecoind's JSON-RPC error codes (src/rpc/protocol.h)

export const RPC_MISC_ERROR = -1;
export const RPC_TYPE_ERROR = -3;
export const RPC_INVALID_ADDRESS_OR_KEY = -5;
export const RPC_OUT_OF_MEMORY = -7;
export const RPC_INVALID_PARAMETER = -8;
export const RPC_CLIENT_NOT_CONNECTED = -9;
export const RPC_CLIENT_IN_INITIAL_DOWNLOAD = -10;
export const RPC_DATABASE_ERROR = -20;
export const RPC_DESERIALIZATION_ERROR = -22;
export const RPC_VERIFY_ERROR = -25;
export const RPC_VERIFY_REJECTED = -26;
export const RPC_VERIFY_ALREADY_IN_CHAIN = -27;
export const RPC_IN_WARMUP = -28;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;
export const RPC_INTERNAL_ERROR = -32603;
export const RPC_PARSE_ERROR = -32700;

/** The mempool's reject codes (src/consensus/validation.h, src/validation.h), as in "<code>: <reason>" of -26. */
export const REJECT = Object.freeze({
  MALFORMED: 0x01,
  INVALID: 0x10,
  OBSOLETE: 0x11,
  DUPLICATE: 0x12,
  NONSTANDARD: 0x40,
  DUST: 0x41,
  INSUFFICIENTFEE: 0x42,
  HIGHFEE: 0x100,
  ALREADY_KNOWN: 0x101,
  CONFLICT: 0x102,
});

// ------------------------------------------------------------------ coinbase maturity
// The rule, per network and era, is src/doge/maturity.ts.
