/**
 * The PSBT forms the wallets speak, mapped once to the pages' form: a base64 PSBT, unfinalised, with
 * one SIGHASH_ALL partial signature per input the wallet owns. What comes back is only accepted when
 * it is the same unsigned transaction and every signature verifies over it with a key of the
 * address's script (bitcoinjs checks the key against the previous output).
 *
 *   MyDoge   requestPsbt({rawTx: <PSBT hex>, indexes, signOnly: true}) -> {signedRawTx}: the whole
 *            transaction, finalised and extracted (mydogemask scripts/helpers/wallet.js signRawPsbt:
 *            signInput per index, finalizeInput for every input, extractTransaction().toHex()).
 *   UniSat / DogeLabs   signPsbt(<PSBT hex>, {autoFinalized}) -> <PSBT hex>, finalised by default
 *            (UniSat Wallet API, "signPsbt": autoFinalized defaults to true).
 */
import { Psbt, Transaction, script as bscript } from "bitcoinjs-lib";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { SIGHASH_ALL, bytesToHex, equalBytes, toBitcoinjsNetwork } from "../../../src/doge";
import { WalletError } from "./adapter";

type BitcoinjsNetwork = ReturnType<typeof toBitcoinjsNetwork>;

/** The inputs of `psbt` that spend an output paying `ownScript` (their previous transaction is in the PSBT). */
export function ownInputIndexes(psbt: Psbt, ownScript: Uint8Array): number[] {
  const indexes: number[] = [];
  psbt.data.inputs.forEach((input, i) => {
    if (!input.nonWitnessUtxo) return;
    const previous = Transaction.fromBuffer(input.nonWitnessUtxo as never);
    const spent = previous.outs[psbt.txInputs[i].index];
    if (spent && equalBytes(spent.script, ownScript)) indexes.push(i);
  });
  return indexes;
}

const unsignedHex = (psbt: Psbt) =>
  bytesToHex((psbt.data.globalMap.unsignedTx as unknown as { toBuffer(): Uint8Array }).toBuffer());

/** Fails unless every one of `indexes` carries one valid SIGHASH_ALL signature by the owner of its previous output. */
export function checkSignatures(psbt: Psbt, indexes: number[], wallet: string): Psbt {
  for (const i of indexes) {
    const sigs = psbt.data.inputs[i].partialSig ?? [];
    if (sigs.length === 0)
      throw new WalletError(
        "WALLET_BAD_ANSWER",
        `${wallet} answered without a signature of input ${i}`,
        wallet,
        "sign the payment",
      );
    for (const sig of sigs) {
      if (bscript.signature.decode(sig.signature).hashType !== SIGHASH_ALL)
        throw new WalletError(
          "WALLET_BAD_ANSWER",
          `${wallet} signed input ${i} with another sighash than SIGHASH_ALL`,
          wallet,
          "sign the payment",
        );
    }
    let valid = false;
    try {
      valid = psbt.validateSignaturesOfInput(i, (pubkey, hash, signature) =>
        secp256k1.verify(signature, hash, pubkey, { prehash: false, lowS: false }),
      );
    } catch (error) {
      throw new WalletError(
        "WALLET_BAD_ANSWER",
        `${wallet}'s signature of input ${i} is not by the key of the coin it spends: ${(error as Error).message}`,
        wallet,
        "sign the payment",
      );
    }
    if (!valid)
      throw new WalletError(
        "WALLET_BAD_ANSWER",
        `${wallet}'s signature of input ${i} does not verify`,
        wallet,
        "sign the payment",
      );
  }
  return psbt;
}

/** A P2PKH scriptSig (<signature> <public key>) as a partial signature, or null when it is not one. */
function partialSigOfScriptSig(scriptSig: Uint8Array): { pubkey: Uint8Array; signature: Uint8Array } | null {
  const chunks = bscript.decompile(scriptSig as never);
  if (!chunks || chunks.length !== 2) return null;
  const [signature, pubkey] = chunks;
  if (!(signature instanceof Uint8Array) || !(pubkey instanceof Uint8Array)) return null;
  return { pubkey: new Uint8Array(pubkey), signature: new Uint8Array(signature) };
}

/** The same PSBT in the pages' form with the signatures of `indexes` taken from `sigs`. */
function withSignatures(
  psbt: Psbt,
  indexes: number[],
  sigOf: (i: number) => { pubkey: Uint8Array; signature: Uint8Array } | null,
  wallet: string,
): Psbt {
  const out = psbt.clone();
  for (const i of indexes) {
    const sig = sigOf(i);
    if (!sig)
      throw new WalletError(
        "WALLET_BAD_ANSWER",
        `${wallet} answered input ${i} without a P2PKH signature`,
        wallet,
        "sign the payment",
      );
    out.updateInput(i, { partialSig: [sig] } as never);
  }
  return checkSignatures(out, indexes, wallet);
}

/**
 * MyDoge's form: the signed, finalised raw transaction. Accepted when its inputs (outpoints,
 * sequences), outputs, version and lock time are the PSBT's; the signatures of `indexes` are read
 * back from their scriptSigs.
 */
export function takeSignedTransaction(psbt: Psbt, rawHex: unknown, indexes: number[], wallet: string): Psbt {
  if (typeof rawHex !== "string" || !/^[0-9a-fA-F]+$/.test(rawHex))
    throw new WalletError(
      "WALLET_BAD_ANSWER",
      `${wallet} answered no signed transaction (hex)`,
      wallet,
      "sign the payment",
    );
  let tx: Transaction;
  try {
    tx = Transaction.fromHex(rawHex);
  } catch (error) {
    throw new WalletError(
      "WALLET_BAD_ANSWER",
      `${wallet}'s signed transaction does not decode: ${(error as Error).message}`,
      wallet,
      "sign the payment",
    );
  }
  const bare = tx.clone();
  for (const input of bare.ins) input.script = new Uint8Array(0) as never;
  if (bytesToHex(bare.toBuffer()) !== unsignedHex(psbt))
    throw new WalletError(
      "WALLET_BAD_ANSWER",
      `${wallet} signed another transaction than the payment it was shown`,
      wallet,
      "sign the payment",
    );
  return withSignatures(psbt, indexes, (i) => partialSigOfScriptSig(tx.ins[i].script), wallet);
}

/** UniSat's and DogeLabs' form: a PSBT in hex, finalised (finalScriptSig) or not (partialSig). */
export function takeSignedPsbtHex(
  psbt: Psbt,
  signedHex: unknown,
  indexes: number[],
  wallet: string,
  network: BitcoinjsNetwork,
): Psbt {
  let signed: Psbt;
  try {
    if (typeof signedHex !== "string") throw new Error("not a string");
    signed = Psbt.fromHex(signedHex, { network });
  } catch (error) {
    throw new WalletError(
      "WALLET_BAD_ANSWER",
      `${wallet} answered no PSBT: ${(error as Error).message}`,
      wallet,
      "sign the payment",
    );
  }
  if (unsignedHex(signed) !== unsignedHex(psbt))
    throw new WalletError(
      "WALLET_BAD_ANSWER",
      `${wallet} signed another transaction than the payment it was shown`,
      wallet,
      "sign the payment",
    );
  return withSignatures(
    psbt,
    indexes,
    (i) => {
      const input = signed.data.inputs[i];
      if (input.partialSig && input.partialSig.length === 1)
        return {
          pubkey: new Uint8Array(input.partialSig[0].pubkey),
          signature: new Uint8Array(input.partialSig[0].signature),
        };
      return input.finalScriptSig ? partialSigOfScriptSig(input.finalScriptSig) : null;
    },
    wallet,
  );
}
