/**
 * The provider's PSBT forms (web/src/wallets/psbt-forms.ts) in Node: what each wallet hands back is
 * taken only when it is the payment it was shown, signed SIGHASH_ALL by the key of the coins it
 * spends — MyDoge's finalised raw transaction, UniSat's and DogeLabs' PSBT hex finalised or not —
 * and always comes out in the pages' form (unfinalised, one partial signature per own input).
 */
import { expect } from "chai";
import { Psbt } from "bitcoinjs-lib";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { NETWORKS, hexToBytes, toBitcoinjsNetwork, txidOf } from "../../src/doge";
import { WalletError } from "../../web/src/wallets/adapter";
import { ownInputIndexes, takeSignedPsbtHex, takeSignedTransaction } from "../../web/src/wallets/psbt-forms";
import { TestKey, newKey, spendP2pkh } from "../helpers/keys";

const network = toBitcoinjsNetwork(NETWORKS.regtest);

function errorOf(run: () => unknown): WalletError {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(WalletError);
    return error as WalletError;
  }
  throw new Error("expected a WalletError");
}

describe("wallet provider PSBT forms", () => {
  const payer = newKey();
  const stranger = newKey();

  /** A payment spending one coin of each owner, paying `stranger`. */
  function payment(owners: TestKey[], value = 1_000_000n): Psbt {
    const psbt = new Psbt({ network });
    psbt.setMaximumFeeRate(100_000_000);
    for (const [i, owner] of owners.entries()) {
      const funding = spendP2pkh(
        owner,
        [{ txid: "22".repeat(32), vout: i, value: 10_000_000n }],
        [{ script: owner.script, value: 9_000_000n }],
      );
      psbt.addInput({ hash: txidOf(funding.tx), index: 0, nonWitnessUtxo: hexToBytes(funding.hex) });
    }
    psbt.addOutput({ script: stranger.script, value });
    return psbt;
  }

  const signerOf = (key: TestKey) => ({
    publicKey: key.publicKey,
    sign: (hash: Uint8Array) => secp256k1.sign(hash, key.privateKey, { prehash: false, lowS: true }),
  });

  it("finds the inputs that spend the wallet's own coins", () => {
    expect(ownInputIndexes(payment([payer, stranger, payer]), payer.script)).to.deep.equal([0, 2]);
  });

  it("takes MyDoge's finalised transaction back as partial signatures over the same payment", () => {
    const shown = payment([payer]);
    const signed = shown.clone();
    signed.signInput(0, signerOf(payer));
    signed.finalizeAllInputs();
    const taken = takeSignedTransaction(shown, signed.extractTransaction().toHex(), [0], "MyDoge");
    expect(taken.data.inputs[0].partialSig).to.have.length(1);
    expect(taken.data.inputs[0].finalScriptSig).to.equal(undefined);
    expect(taken.clone().finalizeAllInputs().extractTransaction().toHex()).to.equal(
      signed.extractTransaction().toHex(),
    );
  });

  it("refuses a raw transaction that is not the payment shown (another amount)", () => {
    const other = payment([payer], 2_000_000n);
    other.signInput(0, signerOf(payer));
    other.finalizeAllInputs();
    const error = errorOf(() =>
      takeSignedTransaction(payment([payer]), other.extractTransaction().toHex(), [0], "MyDoge"),
    );
    expect([error.code, error.message]).to.deep.equal([
      "WALLET_BAD_ANSWER",
      "MyDoge signed another transaction than the payment it was shown",
    ]);
  });

  it("takes UniSat's PSBT hex finalised or not, and refuses a signature by another key", () => {
    const shown = payment([payer]);
    const partial = shown.clone();
    partial.signInput(0, signerOf(payer));
    const finalised = partial.clone().finalizeAllInputs();
    for (const form of [partial, finalised]) {
      const taken = takeSignedPsbtHex(shown, form.toHex(), [0], "UniSat", network);
      expect(taken.data.inputs[0].partialSig?.[0].pubkey).to.deep.equal(payer.publicKey);
    }
    // A signature by a key that does not own the coin: bitcoinjs refuses to verify it against the script.
    const forged = shown.clone();
    forged.data.inputs[0].partialSig = [
      { pubkey: stranger.publicKey, signature: partial.data.inputs[0].partialSig![0].signature },
    ];
    const error = errorOf(() => takeSignedPsbtHex(shown, forged.toHex(), [0], "DogeLabs", network));
    expect(error.code).to.equal("WALLET_BAD_ANSWER");
    expect(error.message).to.contain("DogeLabs's signature of input 0 is not by the key of the coin it spends");
    expect(errorOf(() => takeSignedPsbtHex(shown, "zz", [0], "UniSat", network)).message).to.contain(
      "UniSat answered no PSBT",
    );
  });
});
