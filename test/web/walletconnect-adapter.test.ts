/**
 * The pages' wallet provider over WalletConnect's Dogecoin RPC (web/src/wallets/walletconnect.ts),
 * in Node against the stand-in of a WalletConnect session (test/web/standins/walletconnect.ts) that
 * answers reown's request shapes with a real key: connect through the session's bip122 account and
 * getAccountAddresses, a message signature recovered to the connected address, a payment PSBT signed
 * through signPsbt's signInputs and taken back in the pages' form, a refusal, a wallet on another
 * network, and an account switched in the wallet (bip122_addressesChanged).
 */
import { expect } from "chai";
import { Psbt } from "bitcoinjs-lib";
import { NETWORKS, encodeWif, hexToBytes, toBitcoinjsNetwork, txidOf, verifyMessage } from "../../src/doge";
import { createProvider } from "../../web/src/wallet-provider";
import { WalletError } from "../../web/src/wallets/adapter";
import { chainIdOf } from "../../web/src/wallets/walletconnect";
import { TestKey, newKey, spendP2pkh } from "../helpers/keys";
import { walletConnectStandin } from "./standins/walletconnect";

const network = toBitcoinjsNetwork(NETWORKS.regtest);

async function walletError(run: () => Promise<unknown>): Promise<WalletError> {
  try {
    await run();
  } catch (error) {
    expect(error, String(error)).to.be.instanceOf(WalletError);
    return error as WalletError;
  }
  throw new Error("expected a WalletError");
}

describe("wallet provider: WalletConnect's Dogecoin RPC", () => {
  const person = newKey();
  const stranger = newKey();
  const config = (key: TestKey, net: "regtest" | "mainnet" = "regtest", more = {}) => ({
    wif: encodeWif(key.privateKey, NETWORKS[net]),
    network: net,
    explorerUrl: "http://127.0.0.1:9",
    ...more,
  });
  const providerOver = (standin: ReturnType<typeof walletConnectStandin>) =>
    createProvider({ network: "regtest" }, { walletConnectDoge: standin.provider });

  /** A payment spending one coin of `owner` and one of `stranger`, as the pages build it (previous transactions inside). */
  function payment(owner: TestKey): Psbt {
    const psbt = new Psbt({ network });
    for (const [vout, key] of [owner, stranger].entries()) {
      const funding = spendP2pkh(
        key,
        [{ txid: "33".repeat(32), vout, value: 10_000_000n }],
        [{ script: key.script, value: 9_000_000n }],
      );
      psbt.addInput({ hash: txidOf(funding.tx), index: 0, nonWitnessUtxo: hexToBytes(funding.hex) });
    }
    psbt.addOutput({ script: stranger.script, value: 1_000_000n });
    return psbt;
  }

  it("names the chains as CAIP-2 bip122 ids from the genesis hashes", () => {
    expect(chainIdOf("mainnet")).to.equal("bip122:1a91e3dace36e2be3bf030a65679fe82");
    expect(chainIdOf("regtest")).to.equal("bip122:3d2160a3b5dc4a9d62e7e66a295f7031");
  });

  it("connects through the session's account, signs a message and a payment in the pages' form", async () => {
    const standin = walletConnectStandin(config(person));
    const provider = providerOver(standin);
    expect(provider.available()).to.deep.equal([{ id: "walletconnect", name: "WalletConnect" }]);
    const connected = await provider.connect({ message: "sign in to the swap page" });
    expect(connected).to.include({ address: person.address, wallet: "WalletConnect", network: "regtest" });
    expect(connected.publicKey).to.equal(Buffer.from(person.publicKey).toString("hex"));
    expect(verifyMessage(person.address, connected.signature!, "sign in to the swap page", NETWORKS.regtest)).to.equal(
      true,
    );

    const shown = payment(person);
    const signed = Psbt.fromBase64(await provider.signPSBT(shown.toBase64()), { network });
    // Only the person's own input is signed, unfinalised, over the same transaction.
    expect(signed.data.inputs[0].partialSig?.[0].pubkey).to.deep.equal(person.publicKey);
    expect(signed.data.inputs[0].finalScriptSig).to.equal(undefined);
    expect(signed.data.inputs[1].partialSig).to.equal(undefined);
    expect(signed.txInputs.map((i) => i.index)).to.deep.equal(shown.txInputs.map((i) => i.index));
    signed.finalizeInput(0);
  });

  it("says the wallet refused, naming WalletConnect and the step", async () => {
    const standin = walletConnectStandin(config(person, "regtest", { decline: ["signPsbt"] }));
    const provider = providerOver(standin);
    await provider.connect();
    const error = await walletError(() => provider.signPSBT(payment(person).toBase64()));
    expect([error.code, error.message]).to.deep.equal([
      "WALLET_REFUSED",
      "WalletConnect did not sign the payment: User rejected.",
    ]);
  });

  it("says a wallet without signMessage cannot sign in, not a stack trace", async () => {
    const provider = providerOver(walletConnectStandin(config(person, "regtest", { omit: ["signMessage"] })));
    await provider.connect();
    const error = await walletError(() => provider.signMessage("hello"));
    expect([error.code, error.message]).to.deep.equal([
      "WALLET_UNSUPPORTED",
      "WalletConnect cannot sign a message here: it has no signMessage method in its session. Choose another wallet for this step.",
    ]);
  });

  it("detects a mainnet wallet on a regtest page", async () => {
    const provider = providerOver(walletConnectStandin(config(person, "mainnet")));
    const error = await walletError(() => provider.connect());
    expect(error.code).to.equal("NETWORK_MISMATCH");
    expect(error.message).to.match(/^WalletConnect is on mainnet \(its address D\w+\) but this page is on regtest/);
  });

  it("stops signing for an account the wallet switched away from (bip122_addressesChanged)", async () => {
    const standin = walletConnectStandin(config(person));
    const provider = providerOver(standin);
    await provider.connect();
    standin.addressesChanged([{ address: stranger.address }]);
    const error = await walletError(() => provider.signPSBT(payment(person).toBase64()));
    expect(error.code).to.equal("ACCOUNT_CHANGED");
    expect(error.message).to.contain(`WalletConnect switched away from ${person.address}`);
  });
});
