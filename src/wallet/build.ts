/**
 * Building and signing the wallet's transactions: P2PKH inputs of one compressed key, the
 * caller's outputs, change last. Signatures are ground to the common 71-byte form (DER of 70
 * bytes plus the hash type: 32-byte r and s), as Bitcoin Core grinds for a low R, so the size of
 * a signed transaction is known before it is signed and the fee is exact for that size.
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import {
  OP,
  SIGHASH_ALL,
  Transaction,
  compileScript,
  TxOutput,
  concatBytes,
  legacySighash,
  p2pkhScriptSig,
  signInput,
  transactionSize,
} from "../doge";
import { SOFT_DUST_LIMIT, dogecoinFee } from "./fees";
import type { WalletKey } from "./types";

/** Length of every signature the wallet makes: DER (70 bytes) and the hash type byte. */
export const SIGNATURE_BYTES = 71;
/** scriptSig of a wallet input: push(71-byte signature) push(33-byte key). */
export const P2PKH_SCRIPTSIG_BYTES = 1 + SIGNATURE_BYTES + 1 + 33;
/** Input sequence the wallet uses (final; Dogecoin transactions here never opt into replacement). */
export const WALLET_SEQUENCE = 0xffffffff;

export interface Coin {
  txid: string;
  vout: number;
  valueKoinu: bigint;
  /**
   * The coin is a bare pay-to-pubkey output of the key (an inscription carrier the index credits to
   * the wallet's address): its scriptSig is the signature alone, P2PK_SCRIPTSIG_BYTES long. Sizes
   * and fees are planned for P2PKH inputs, so such a transaction pays slightly more than its size.
   */
  p2pk?: boolean;
}

/** scriptSig of a bare pay-to-pubkey input: push(71-byte signature). */
export const P2PK_SCRIPTSIG_BYTES = 1 + SIGNATURE_BYTES;

/** A placeholder scriptSig of the signed length, for sizing. */
const PLACEHOLDER_SCRIPTSIG = new Uint8Array(P2PKH_SCRIPTSIG_BYTES);

/** The serialized size of a transaction spending `inputCount` wallet inputs to `outputs`, once signed. */
export function signedSize(inputCount: number, outputs: readonly TxOutput[]): number {
  return transactionSize({
    version: 1,
    inputs: Array.from({ length: inputCount }, () => ({
      prevTxid: "00".repeat(32),
      vout: 0,
      scriptSig: PLACEHOLDER_SCRIPTSIG,
      sequence: WALLET_SEQUENCE,
    })),
    outputs: [...outputs],
    locktime: 0,
  });
}

export interface Plan {
  /** Outputs of the transaction: the caller's, then the change when there is one. */
  outputs: TxOutput[];
  feeKoinu: bigint;
  changeVout: number | null;
}

/**
 * The fee and change of spending `inputTotal` (from `inputCount` wallet inputs) to `outputs`:
 * with a change output to `changeScript` when what is left after the fee of the larger
 * transaction is at least SOFT_DUST_LIMIT, else without change and the rest to the fee. Null when
 * the inputs cannot pay the outputs and the fee.
 */
export function planOutputs(
  inputCount: number,
  inputTotal: bigint,
  outputs: readonly TxOutput[],
  changeScript: Uint8Array,
  feeRateKoinuPerKb: bigint,
  extraBytes: number,
): Plan | null {
  const outputTotal = outputs.reduce((sum, output) => sum + output.value, 0n);
  const probe: TxOutput = { value: SOFT_DUST_LIMIT, script: changeScript };
  const withChange = [...outputs, probe];
  const feeWithChange = dogecoinFee(signedSize(inputCount, withChange) + extraBytes, withChange, feeRateKoinuPerKb);
  const change = inputTotal - outputTotal - feeWithChange;
  if (change >= SOFT_DUST_LIMIT) {
    return {
      outputs: [...outputs, { value: change, script: changeScript }],
      feeKoinu: feeWithChange,
      changeVout: outputs.length,
    };
  }
  const feeWithout = dogecoinFee(signedSize(inputCount, outputs) + extraBytes, outputs, feeRateKoinuPerKb);
  if (inputTotal - outputTotal < feeWithout) return null;
  return { outputs: [...outputs], feeKoinu: inputTotal - outputTotal, changeVout: null };
}

/** The least `inputTotal` for which planOutputs succeeds with `inputCount` inputs (without change). */
export function minimumInputTotal(
  inputCount: number,
  outputs: readonly TxOutput[],
  feeRateKoinuPerKb: bigint,
  extraBytes: number,
): bigint {
  const outputTotal = outputs.reduce((sum, output) => sum + output.value, 0n);
  return outputTotal + dogecoinFee(signedSize(inputCount, outputs) + extraBytes, outputs, feeRateKoinuPerKb);
}

/**
 * A 71-byte signature of input `index` spending `scriptCode`: deterministic (RFC 6979) first, then
 * with a counter as extra entropy.
 */
function groundSignature(tx: Transaction, index: number, key: WalletKey, scriptCode: Uint8Array): Uint8Array {
  const first = signInput(tx, index, scriptCode, key.privateKey, SIGHASH_ALL);
  if (first.length === SIGNATURE_BYTES) return first;
  const digest = legacySighash(tx, index, scriptCode, SIGHASH_ALL);
  for (let counter = 1; counter < 1_000; counter++) {
    const entropy = new Uint8Array(32);
    new DataView(entropy.buffer).setUint32(0, counter, true);
    const der = secp256k1.sign(digest, key.privateKey, {
      prehash: false,
      format: "der",
      lowS: true,
      extraEntropy: entropy,
    });
    if (der.length === SIGNATURE_BYTES - 1) return concatBytes(der, Uint8Array.of(SIGHASH_ALL));
  }
  throw new Error("could not produce a 71-byte signature in 1000 tries");
}

/** Builds and signs a transaction spending `coins` (all paying `key`'s script) to `outputs`. */
export function signWalletTransaction(
  coins: readonly Coin[],
  outputs: readonly TxOutput[],
  key: WalletKey,
): Transaction {
  const tx: Transaction = {
    version: 1,
    inputs: coins.map((coin) => ({
      prevTxid: coin.txid,
      vout: coin.vout,
      scriptSig: new Uint8Array(0),
      sequence: WALLET_SEQUENCE,
    })),
    outputs: outputs.map((output) => ({ value: output.value, script: output.script })),
    locktime: 0,
  };
  const p2pkScript = compileScript([key.publicKey, OP.OP_CHECKSIG]);
  const signatures = tx.inputs.map((_, i) => groundSignature(tx, i, key, coins[i].p2pk ? p2pkScript : key.script));
  signatures.forEach((signature, i) => {
    tx.inputs[i].scriptSig = coins[i].p2pk ? compileScript([signature]) : p2pkhScriptSig(signature, key.publicKey);
  });
  const p2pkInputs = coins.filter((coin) => coin.p2pk).length;
  const expected = signedSize(coins.length, outputs) - p2pkInputs * (P2PKH_SCRIPTSIG_BYTES - P2PK_SCRIPTSIG_BYTES);
  const actual = transactionSize(tx);
  if (actual !== expected) throw new Error(`signed transaction is ${actual} bytes, expected ${expected}`);
  return tx;
}
