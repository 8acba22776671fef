/**
 * The development wallet provider (web/src/dev-wallet.ts) in Node: what connect answers and signs,
 * which inputs signPSBT signs, and its refusals. The browser test drives the same code bundled.
 */
import { expect } from "chai";
import { Psbt } from "bitcoinjs-lib";
import { NETWORKS, encodeWif, hexToBytes, toBitcoinjsNetwork, txidOf, verifyMessage } from "../../src/doge";
import { devWalletScript } from "../../src/services/launchpad";
import {
  MAX_PAGE_SCRIPT_BYTES,
  walletProviderBundle,
  walletProviderScript,
} from "../../src/services/pages/wallet-provider";
import { createDevWallet } from "../../web/src/dev-wallet";
import { newKey, spendP2pkh } from "../helpers/keys";

const network = toBitcoinjsNetwork(NETWORKS.regtest);

/** The message `promise` is rejected with (fails when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected a rejection");
}

describe("development wallet provider", () => {
  const key = newKey();
  const other = newKey();
  const wallet = createDevWallet({ wif: encodeWif(key.privateKey, NETWORKS.regtest), network: "regtest" });

  /** A PSBT spending one output of `owner` (nonWitnessUtxo: a real transaction paying it). */
  function psbtSpending(owners: (typeof key)[]): string {
    const psbt = new Psbt({ network });
    for (const [i, owner] of owners.entries()) {
      const funding = spendP2pkh(
        owner,
        [{ txid: "11".repeat(32), vout: i, value: 10_000_000n }],
        [{ script: owner.script, value: 9_000_000n }],
      );
      psbt.addInput({ hash: txidOf(funding.tx), index: 0, nonWitnessUtxo: hexToBytes(funding.hex) });
    }
    psbt.addOutput({ script: other.script, value: 1_000_000n });
    return psbt.toBase64();
  }

  it("connects with its address and key, and signs a message as Dogecoin's signmessage does", async () => {
    expect(await wallet.connect()).to.deep.equal({
      address: key.address,
      publicKey: Buffer.from(key.publicKey).toString("hex"),
      network: "regtest",
    });
    const answer = await wallet.connect({ message: "launchpad sign-in 42" });
    expect(verifyMessage(key.address, answer.signature!, "launchpad sign-in 42", NETWORKS.regtest)).to.equal(true);
    expect(await rejection(wallet.connect({ message: "" }))).to.contain("message must be a non-empty string");
  });

  it("signs exactly the inputs that spend its own outputs, unfinalised", async () => {
    const signed = Psbt.fromBase64(await wallet.signPSBT(psbtSpending([key, other, key])), { network });
    expect(signed.data.inputs.map((input) => input.partialSig?.length ?? 0)).to.deep.equal([1, 0, 1]);
    expect(
      signed.validateSignaturesOfInput(
        0,
        (pubkey, hash, signature) =>
          Buffer.from(pubkey).equals(Buffer.from(key.publicKey)) && signature.length === 64 && hash.length === 32,
      ),
    ).to.equal(true);
    expect(signed.data.inputs[0].finalScriptSig).to.equal(undefined);
  });

  it("refuses what is not a PSBT, and a PSBT with nothing of its own", async () => {
    expect(await rejection(wallet.signPSBT(42))).to.contain("signPSBT takes a base64 PSBT");
    expect(await rejection(wallet.signPSBT("bm90IGEgcHNidA=="))).to.contain("not a PSBT");
    expect(await rejection(wallet.signPSBT(psbtSpending([other])))).to.contain(
      `no input of this PSBT spends ${key.address}`,
    );
  });

  it("is offered by the pages' wallet provider bundle, under the pages' script budget, and never on mainnet", async () => {
    const bundle = await walletProviderBundle();
    expect(bundle).to.contain("DogeWallets");
    expect(bundle).to.not.match(/require\("node:/);
    expect(Buffer.byteLength(bundle)).to.be.below(MAX_PAGE_SCRIPT_BYTES);
    const wif = encodeWif(key.privateKey, NETWORKS.regtest);
    const script = await devWalletScript(wif, NETWORKS.regtest, "http://127.0.0.1:3001");
    expect(
      script.endsWith(
        `DogeWallets.install(${JSON.stringify({ network: "regtest", explorerUrl: "http://127.0.0.1:3001", devWallet: { wif } })});\n`,
      ),
    ).to.equal(true);
    expect(await rejection(devWalletScript(encodeWif(key.privateKey, NETWORKS.mainnet), NETWORKS.mainnet))).to.contain(
      "devnet and testnet only",
    );
    expect(await rejection(devWalletScript(wif, NETWORKS.testnet))).to.match(/testnet|version|network/i);
    // Without a development key the provider offers only the browser's own wallets.
    expect(await walletProviderScript({ network: NETWORKS.mainnet })).to.match(
      /DogeWallets\.install\(\{"network":"mainnet","explorerUrl":null,"devWallet":null\}\);\n$/,
    );
  });
});
