/**
 * PSBTs a user's wallet signs (DESIGN.md 7: our services build, the wallet only signs, the
 * explorer broadcasts), shared by the inscriber's user-signed path and the launchpad's payments:
 * funding from the user's own confirmed outputs, and taking a signed PSBT back only when it is the
 * one we built with one low-s SIGHASH_ALL signature per input, which we then finalise ourselves.
 */
import { Psbt } from "bitcoinjs-lib";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import {
  DogeNetwork,
  SIGHASH_ALL,
  Transaction,
  TxOutput,
  decodeAddress,
  equalBytes,
  hash160,
  hexToBytes,
  legacySighash,
  toBitcoinjsNetwork,
  transactionSize,
} from "../doge";
import type { DogecoinRpcClient } from "../chain/dogecoin-rpc";
import type { IndexQueries } from "../indexer/queries";
import { SOFT_DUST_LIMIT, dogecoinFee } from "../wallet";
import { Refusal, badRequest } from "../errors";

/** What building user PSBTs asks the node. */
export interface RawTransactionSource {
  /** A confirmed transaction's raw bytes (getrawtransaction; needs -txindex on dogecoind). */
  rawTransaction(txid: string): Promise<string>;
  /**
   * Whether an output is still unspent counting the node's mempool (gettxout with mempool): the
   * index only knows blocks, and coins of a transaction already broadcast must not be offered again.
   */
  unspentWithMempool(txid: string, vout: number): Promise<boolean>;
}

/** A RawTransactionSource over dogecoind's JSON-RPC (getrawtransaction, gettxout with mempool). */
export function nodeRawTransactions(
  rpc: Pick<DogecoinRpcClient, "getRawTransactionHex" | "getTxOut">,
): RawTransactionSource {
  return {
    rawTransaction: (txid) => rpc.getRawTransactionHex(txid),
    unspentWithMempool: async (txid, vout) => (await rpc.getTxOut(txid, vout, true)) !== null,
  };
}

export type BitcoinjsNetwork = ReturnType<typeof toBitcoinjsNetwork>;

/** Input of a P2PKH spend: outpoint, scriptSig of 1 + 73 + 1 + 33 bytes, sequence. */
export const P2PKH_INPUT_BYTES = 32 + 4 + 1 + 108 + 4;
/** Bytes of a P2PKH output: value, script length, 25-byte script. */
export const P2PKH_OUTPUT_BYTES = 8 + 1 + 25;
/** A user PSBT spends at most this many of the user's outputs. */
export const MAX_USER_INPUTS = 50;
/** Base64 PSBTs longer than this are refused before decoding. */
const MAX_PSBT_BASE64_CHARS = 1_000_000;

/** An empty version-1 PSBT for `network` that accepts Dogecoin's fee rates. */
export function newDogePsbt(network: BitcoinjsNetwork): Psbt {
  const psbt = new Psbt({ network });
  psbt.setVersion(1);
  // Dogecoin fees are far above bitcoinjs' default ceiling in koinu per byte.
  psbt.setMaximumFeeRate(100_000_000);
  return psbt;
}

/** The unsigned transaction a PSBT carries, serialised. */
export function unsignedBytes(psbt: Psbt): Uint8Array {
  return (psbt.data.globalMap.unsignedTx as unknown as { toBuffer(): Uint8Array }).toBuffer();
}

/** A compressed secp256k1 public key in hex (field `public_key`), or 400 INVALID_PUBLIC_KEY. */
export function parsePublicKey(value: unknown): Uint8Array {
  if (typeof value !== "string" || !/^(02|03)[0-9a-fA-F]{64}$/.test(value)) {
    throw badRequest(
      "INVALID_PUBLIC_KEY",
      "public_key must be a compressed secp256k1 public key (66 hexadecimal characters)",
      { field: "public_key" },
    );
  }
  const bytes = hexToBytes(value);
  try {
    secp256k1.Point.fromBytes(bytes);
  } catch {
    throw badRequest("INVALID_PUBLIC_KEY", "public_key is not a point on secp256k1", { field: "public_key" });
  }
  return bytes;
}

/** 400 KEY_ADDRESS_MISMATCH unless `address` is the P2PKH address of `pubkey`. */
export function checkKeyOfAddress(address: string, pubkey: Uint8Array, network: DogeNetwork, message: string): void {
  const decoded = decodeAddress(address, network);
  if (decoded.type !== "pubkeyhash" || !equalBytes(decoded.hash, hash160(pubkey))) {
    throw badRequest("KEY_ADDRESS_MISMATCH", message, { field: "public_key", address });
  }
}

/** A base64 PSBT from a request body (field `psbt`), or 400 INVALID_PSBT. */
export function parsePsbt(value: unknown, network: BitcoinjsNetwork): Psbt {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_PSBT_BASE64_CHARS)
    throw badRequest("INVALID_PSBT", "psbt must be a base64 string", { field: "psbt" });
  try {
    return Psbt.fromBase64(value, { network });
  } catch (error) {
    throw badRequest("INVALID_PSBT", `psbt does not decode: ${(error as Error).message}`, { field: "psbt" });
  }
}

/** The one partial signature of input `index` (a finalised input is refused: we finalise ourselves). */
export function onlySignature(psbt: Psbt, index: number): { signature: Uint8Array; pubkey: Uint8Array } {
  const input = psbt.data.inputs[index];
  const partial = input?.partialSig ?? [];
  if (partial.length !== 1) {
    throw badRequest(
      "MISSING_SIGNATURE",
      `input ${index} must carry exactly one partial signature (got ${partial.length}${input?.finalScriptSig ? ", and it is already finalised" : ""})`,
      { input: index },
    );
  }
  return { signature: partial[0].signature, pubkey: partial[0].pubkey };
}

/** 400 INVALID_SIGNATURE unless `signature` is a low-s DER SIGHASH_ALL signature over input `index` by `pubkey`. */
export function checkSignature(
  tx: Transaction,
  index: number,
  scriptCode: Uint8Array,
  pubkey: Uint8Array,
  signature: Uint8Array,
): void {
  if (signature.length < 9 || signature[signature.length - 1] !== SIGHASH_ALL) {
    throw badRequest("INVALID_SIGNATURE", `input ${index}: signatures must use SIGHASH_ALL`, { input: index });
  }
  const digest = legacySighash(tx, index, scriptCode, SIGHASH_ALL);
  let ok = false;
  try {
    ok = secp256k1.verify(signature.subarray(0, signature.length - 1), digest, pubkey, {
      prehash: false,
      format: "der",
      lowS: true,
    });
  } catch {
    ok = false;
  }
  if (!ok)
    throw badRequest(
      "INVALID_SIGNATURE",
      `input ${index}: the signature does not verify (it must be a low-s DER signature over this transaction)`,
      { input: index },
    );
}

export interface UserCoin {
  txid: string;
  vout: number;
  value: bigint;
}

/**
 * The user's confirmed outputs that carry no inscription or DRC-20 transfer (largest first, at
 * most MAX_USER_INPUTS, skipping any the node's mempool already spends) that pay `fixed` and the fee
 * at `feeRateKoinuPerKb`; change below the soft dust limit goes to the fee. 422 INSUFFICIENT_FUNDS
 * (`details: {address, needed_koinu, available_koinu}`) naming `purpose` when they cannot.
 */
export async function selectUserCoins(args: {
  queries: IndexQueries;
  node: RawTransactionSource;
  address: string;
  fixed: readonly TxOutput[];
  feeRateKoinuPerKb: bigint;
  purpose: string;
}): Promise<{ coins: UserCoin[]; fee: bigint; change: bigint }> {
  const { queries, node, address, feeRateKoinuPerKb: rate } = args;
  const fixed = [...args.fixed];
  const candidates: UserCoin[] = [];
  let after: { height: number; txid: string; vout: number } | null = null;
  for (;;) {
    const page = queries.utxos(address, after, 500);
    for (const item of page.items) {
      if (item.inscriptions.length === 0 && item.drc20.length === 0)
        candidates.push({ txid: item.txid, vout: item.vout, value: item.valueKoinu });
    }
    if (page.items.length < 500) break;
    const last = page.items[page.items.length - 1];
    after = { height: last.height, txid: last.txid, vout: last.vout };
  }
  candidates.sort((a, b) => (a.value === b.value ? 0 : a.value > b.value ? -1 : 1));
  const fixedTotal = fixed.reduce((sum, output) => sum + output.value, 0n);
  const baseSize = transactionSize({ version: 1, inputs: [], outputs: fixed, locktime: 0 });
  const coins: UserCoin[] = [];
  let total = 0n;
  for (const coin of candidates) {
    if (coins.length === MAX_USER_INPUTS) break;
    if (!(await node.unspentWithMempool(coin.txid, coin.vout))) continue;
    coins.push(coin);
    total += coin.value;
    const feeWithChange = dogecoinFee(
      baseSize + coins.length * P2PKH_INPUT_BYTES + P2PKH_OUTPUT_BYTES + 2,
      fixed,
      rate,
    );
    const change = total - fixedTotal - feeWithChange;
    if (change >= SOFT_DUST_LIMIT) return { coins, fee: feeWithChange, change };
    const feeWithout = dogecoinFee(baseSize + coins.length * P2PKH_INPUT_BYTES + 2, fixed, rate);
    // Change below the soft dust limit would cost more fee than it is worth: it goes to the fee.
    if (total - fixedTotal >= feeWithout) return { coins, fee: total - fixedTotal, change: 0n };
  }
  const needed = fixedTotal + dogecoinFee(baseSize + P2PKH_INPUT_BYTES + 2, fixed, rate);
  const available = candidates.reduce((sum, c) => sum + c.value, 0n);
  throw new Refusal(
    "unprocessable",
    "INSUFFICIENT_FUNDS",
    `${address} has ${available} koinu in confirmed outputs that carry no inscription; ${args.purpose} needs at least ${needed}`,
    {
      address,
      needed_koinu: needed.toString(),
      available_koinu: available.toString(),
    },
  );
}
