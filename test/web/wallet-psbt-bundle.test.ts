/**
 * The pages' PSBT code as its own script (/wallet-psbt.js, web/src/psbt-kit.ts): the provider
 * (/wallet-provider.js) carries no bitcoinjs-lib, and the PSBT script, run after it as a page runs it,
 * takes the provider's modules (the error classes, the curve) instead of copies of its own.
 */
import vm from "node:vm";
import { expect } from "chai";
import { Psbt } from "bitcoinjs-lib";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { NETWORKS, hexToBytes, toBitcoinjsNetwork, txidOf } from "../../src/doge";
import {
  MAX_PAGE_SCRIPT_BYTES,
  walletProviderBundle,
  walletPsbtBundle,
} from "../../src/services/pages/wallet-provider";
import { newKey, spendP2pkh } from "../helpers/keys";

/** bitcoinjs-lib's PSBT decoder's refusal of a bad magic number (bip174). */
const PSBT_CODE = /Format Error: Invalid Magic Number/;

describe("pages' PSBT script", function () {
  this.timeout(60_000);

  it("is not in the provider script, and both together stay within a page's script budget", async () => {
    const provider = await walletProviderBundle();
    const kit = await walletPsbtBundle();
    expect(provider).to.not.match(PSBT_CODE);
    expect(kit).to.match(PSBT_CODE);
    expect(Buffer.byteLength(provider) + Buffer.byteLength(kit)).to.be.at.most(MAX_PAGE_SCRIPT_BYTES);
  });

  it("runs after the provider as a page runs them, with the provider's modules and classes", async () => {
    const context = vm.createContext({ TextEncoder, TextDecoder, atob, btoa, crypto: globalThis.crypto, console });
    vm.runInContext(await walletProviderBundle(), context);
    vm.runInContext(await walletPsbtBundle(), context);
    const { DogeWallets, DogeWalletsPsbt } = context as Record<string, any>;
    expect(Object.keys(DogeWalletsPsbt)).to.include.members([
      "Psbt",
      "ownInputIndexes",
      "checkSignatures",
      "takeSignedPsbtHex",
      "takeSignedTransaction",
      "sendDrc20WithPsbts",
      "buildPayment",
      "finalizePayment",
    ]);
    // A PSBT made in Node decodes in the page's script.
    const psbt = new Psbt({ network: toBitcoinjsNetwork(NETWORKS.regtest) });
    psbt.addInput({ hash: new Uint8Array(32).fill(7), index: 0 });
    psbt.addOutput({ script: new Uint8Array([0x51]), value: 1000n });
    const decoded = DogeWalletsPsbt.Psbt.fromBase64(psbt.toBase64());
    expect(decoded.txOutputs[0].value).to.equal(1000n);
    // The PSBT script's errors are the provider's classes (one WalletError for the page to catch).
    let thrown: unknown;
    try {
      DogeWalletsPsbt.checkSignatures(decoded, [0], "Test wallet");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.be.instanceOf(DogeWallets.WalletError);
    expect((thrown as { code: string }).code).to.equal("WALLET_BAD_ANSWER");
    // A signature made in Node is checked in the page's script with the provider's curve and finalised there.
    const payer = newKey();
    const funding = spendP2pkh(
      payer,
      [{ txid: "22".repeat(32), vout: 0, value: 10_000_000n }],
      [{ script: payer.script, value: 9_000_000n }],
    );
    const payment = new Psbt({ network: toBitcoinjsNetwork(NETWORKS.regtest) });
    payment.setMaximumFeeRate(100_000_000);
    payment.addInput({ hash: txidOf(funding.tx), index: 0, nonWitnessUtxo: hexToBytes(funding.hex) });
    payment.addOutput({ script: payer.script, value: 8_000_000n });
    payment.signInput(0, {
      publicKey: payer.publicKey,
      sign: (hash: Uint8Array) => secp256k1.sign(hash, payer.privateKey, { prehash: false, lowS: true }),
    });
    const inPage = DogeWalletsPsbt.Psbt.fromBase64(payment.toBase64());
    expect(DogeWalletsPsbt.ownInputIndexes(inPage, payer.script)).to.deep.equal([0]);
    expect(DogeWalletsPsbt.checkSignatures(inPage, [0], "Test wallet")).to.equal(inPage);
    const hex = DogeWalletsPsbt.finalizePayment(payment.toBase64(), NETWORKS.regtest);
    expect(hex).to.equal((payment.finalizeAllInputs(), payment.extractTransaction().toHex()));
  });
});
