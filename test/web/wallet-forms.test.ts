/**
 * The provider's PSBT forms (web/src/wallets/psbt-forms.ts) in Node: what each wallet hands back is
 * taken only when it is the payment it was shown, signed SIGHASH_ALL by the key of the coins it
 * spends — MyDoge's finalised raw transaction, UniSat's and DogeLabs' PSBT hex finalised or not —
 * and always comes out in the pages' form (unfinalised, one partial signature per own input).
 *
 * And the provider's DRC-20 step (window.wallet.sendDrc20) mapped onto each wallet's own calls, in
 * the order and with the arguments the wallets' page interfaces take (the wallets record what they
 * were asked; the browser suite test/web/amm-drc20-browser.test.ts does it for real on the devnet):
 * MyDoge's requestAvailableDRC20Transaction then requestInscriptionTransaction at the reveal's
 * output (or an already-inscribed transfer of the amount), UniSat's inscribeTransfer then
 * sendInscription, and the "cannot" message of a wallet without such a step.
 */
import { expect } from "chai";
import { Psbt } from "bitcoinjs-lib";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { NETWORKS, hexToBytes, publicKeyToAddress, signMessage, toBitcoinjsNetwork, txidOf } from "../../src/doge";
import { WalletError } from "../../web/src/wallets/adapter";
import { createProvider } from "../../web/src/wallet-provider";
import { chainIdOf } from "../../web/src/wallets/walletconnect";
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

describe("wallet provider DRC-20 step (sendDrc20)", () => {
  const person = newKey();
  const custody = newKey();
  const reveal = "ab".repeat(32);
  const send = "cd".repeat(32);

  /** A provider over one injected wallet (`global` of the page), connected. */
  async function connected(global: string, api: object) {
    const provider = createProvider({ network: "regtest" }, { [global]: api });
    await provider.connect();
    return provider;
  }

  async function rejection(run: () => Promise<unknown>): Promise<WalletError> {
    try {
      await run();
    } catch (error) {
      expect(error).to.be.instanceOf(WalletError);
      return error as WalletError;
    }
    throw new Error("expected a WalletError");
  }

  function myDoge(overrides: Record<string, unknown> = {}) {
    const calls: [string, unknown][] = [];
    const api = {
      connect: async () => ({ approved: true, address: person.address, balance: "0" }),
      getTransferableDRC20: async (data: unknown) => {
        calls.push(["getTransferableDRC20", data]);
        return { inscriptions: [] };
      },
      requestAvailableDRC20Transaction: async (data: unknown) => {
        calls.push(["requestAvailableDRC20Transaction", data]);
        return { txId: reveal, ticker: "WEBT", amount: "5000" };
      },
      requestInscriptionTransaction: async (data: unknown) => {
        calls.push(["requestInscriptionTransaction", data]);
        return { txId: send };
      },
      ...overrides,
    };
    return { api, calls };
  }

  it("maps MyDoge: inscribe a transfer to itself, then send the inscription at the reveal's output 0", async () => {
    const { api, calls } = myDoge();
    const provider = await connected("doge", api);
    expect(await provider.sendDrc20({ tick: "WEBT", amount: "5000", to: custody.address })).to.deep.equal({
      txid: send,
    });
    expect(calls).to.deep.equal([
      ["getTransferableDRC20", { ticker: "WEBT" }],
      ["requestAvailableDRC20Transaction", { ticker: "WEBT", amount: "5000" }],
      ["requestInscriptionTransaction", { recipientAddress: custody.address, location: `${reveal}:0:0` }],
    ]);
  });

  it("sends MyDoge's already-inscribed transfer of exactly the amount instead of inscribing another", async () => {
    const { api, calls } = myDoge({
      getTransferableDRC20: async () => ({
        inscriptions: [
          { txid: "11".repeat(32), vout: 0, ticker: "WEBT", output: `${"11".repeat(32)}:0`, amount: 4999 },
          { txid: "22".repeat(32), vout: 1, ticker: "webt", output: `${"22".repeat(32)}:1`, amount: 5000 },
        ],
      }),
    });
    const provider = await connected("doge", api);
    await provider.sendDrc20({ tick: "WEBT", amount: "5000", to: custody.address });
    expect(calls).to.deep.equal([
      ["requestInscriptionTransaction", { recipientAddress: custody.address, location: `${"22".repeat(32)}:1:0` }],
    ]);
  });

  it("names MyDoge and the step when the person refuses, and refuses an answer that is no txid", async () => {
    const refusing = myDoge({
      requestAvailableDRC20Transaction: async () => {
        throw new Error("User refused transaction");
      },
    });
    const refused = await rejection(async () =>
      (await connected("doge", refusing.api)).sendDrc20({ tick: "WEBT", amount: "5000", to: custody.address }),
    );
    expect([refused.code, refused.message, refused.step]).to.deep.equal([
      "WALLET_REFUSED",
      "MyDoge did not send tokens: User refused transaction",
      "send tokens",
    ]);
    const garbled = myDoge({ requestInscriptionTransaction: async () => ({ txId: "sent!" }) });
    const bad = await rejection(async () =>
      (await connected("doge", garbled.api)).sendDrc20({ tick: "WEBT", amount: "5000", to: custody.address }),
    );
    expect([bad.code, bad.message]).to.deep.equal([
      "WALLET_BAD_ANSWER",
      'MyDoge answered "sent!" where a transaction id was expected',
    ]);
  });

  it("maps UniSat: inscribeTransfer(ticker, amount), then sendInscription(to, inscriptionId)", async () => {
    const calls: unknown[][] = [];
    const unisat = {
      requestAccounts: async () => [person.address],
      inscribeTransfer: async (...args: unknown[]) => {
        calls.push(["inscribeTransfer", ...args]);
        return { inscriptionId: `${reveal}i0`, inscriptionNumber: 7, ticker: "WEBT", amount: "5000" };
      },
      sendInscription: async (...args: unknown[]) => {
        calls.push(["sendInscription", ...args]);
        return send;
      },
    };
    const provider = await connected("unisat", unisat);
    expect(await provider.sendDrc20({ tick: "WEBT", amount: "5000", to: custody.address })).to.deep.equal({
      txid: send,
    });
    expect(calls).to.deep.equal([
      ["inscribeTransfer", "WEBT", "5000"],
      ["sendInscription", custody.address, `${reveal}i0`],
    ]);
  });

  it("says which step a wallet cannot do: DogeLabs without inscribeTransfer or signPsbt, WalletConnect without signPsbt in its session", async () => {
    const dogeLabs = {
      requestAccounts: async () => [person.address],
      sendInscription: async () => send,
    };
    const error = await rejection(async () =>
      (await connected("dogeLabs", dogeLabs)).sendDrc20({ tick: "WEBT", amount: "5000", to: custody.address }),
    );
    expect([error.code, error.wallet, error.step, error.message]).to.deep.equal([
      "WALLET_UNSUPPORTED",
      "DogeLabs",
      "send tokens",
      "DogeLabs cannot send tokens here: it has no DRC-20 transfer step of its own (no inscribeTransfer method, so it cannot inscribe the DRC-20 transfer) and cannot sign the PSBTs the page would inscribe it with (no signPsbt method). Choose another wallet for this step.",
    ]);
    const chain = chainIdOf("regtest");
    const walletConnect = {
      session: {
        namespaces: { bip122: { accounts: [`${chain}:${person.address}`], methods: ["getAccountAddresses"] } },
      },
      request: async () => [{ address: person.address }],
    };
    const wcError = await rejection(async () =>
      (await connected("walletConnectDoge", walletConnect)).sendDrc20({
        tick: "WEBT",
        amount: "5000",
        to: custody.address,
      }),
    );
    expect([wcError.code, wcError.wallet]).to.deep.equal(["WALLET_UNSUPPORTED", "WalletConnect"]);
    expect(wcError.message).to.contain("(no signPsbt method in its session)");
    // With signPsbt but no explorer on the page, the PSBT route cannot inscribe either.
    const signing = {
      ...walletConnect,
      session: {
        namespaces: {
          bip122: { ...walletConnect.session.namespaces.bip122, methods: ["getAccountAddresses", "signPsbt"] },
        },
      },
    };
    const noExplorer = await rejection(async () =>
      (await connected("walletConnectDoge", signing)).sendDrc20({ tick: "WEBT", amount: "5000", to: custody.address }),
    );
    expect([noExplorer.code, noExplorer.message]).to.deep.equal([
      "WALLET_UNSUPPORTED",
      "WalletConnect cannot send tokens here: it has no DRC-20 step of its own, and this page names no explorer to inscribe the transfer through. Choose another wallet for this step.",
    ]);
  });

  it("refuses a request the page got wrong before asking the wallet", async () => {
    const { api, calls } = myDoge();
    const provider = await connected("doge", api);
    for (const [request, what] of [
      [{ tick: "WEBT", amount: "0", to: custody.address }, "amount must be a whole number"],
      [{ tick: "WEBT", amount: "1.5", to: custody.address }, "amount must be a whole number"],
      [{ tick: "", amount: "5", to: custody.address }, "tick must be a DRC-20 tick"],
      [
        { tick: "WEBT", amount: "5", to: publicKeyToAddress(custody.publicKey, NETWORKS.mainnet) },
        "to must be an address on regtest",
      ],
    ] as const) {
      const error = await rejection(() => provider.sendDrc20(request));
      expect(error.code).to.equal("INVALID_REQUEST");
      expect(error.message).to.contain(what);
    }
    expect(calls).to.deep.equal([]);
  });
});

describe("wallet provider, a wallet that never answers (stopWaiting)", () => {
  const person = newKey();
  const custody = newKey();

  /**
   * A MyDoge whose requests are answered only when the test says so, as the extension's page script
   * leaves a request pending for good when its response carries neither `data` nor `error`
   * (mydoge-com/mydogemask scripts/inject-script.js).
   */
  function silentMyDoge() {
    const pending: { method: string; answer: (value: unknown) => void; fail: (error: Error) => void }[] = [];
    const hold = (method: string) =>
      new Promise((answer, fail) => pending.push({ method, answer, fail: fail as (error: Error) => void }));
    const api = {
      connect: () => hold("connect"),
      requestSignedMessage: () => hold("requestSignedMessage"),
      getTransferableDRC20: async () => ({ inscriptions: [] }),
      requestAvailableDRC20Transaction: () => hold("requestAvailableDRC20Transaction"),
      requestInscriptionTransaction: async () => ({ txId: "cd".repeat(32) }),
    };
    return { api, pending };
  }

  /** A provider over a silent MyDoge whose connect request has been answered. */
  async function connectedSilently() {
    const { api, pending } = silentMyDoge();
    const provider = createProvider({ network: "regtest" }, { doge: api });
    const connecting = provider.connect();
    await new Promise((resolve) => setImmediate(resolve));
    pending[0].answer({ approved: true, address: person.address });
    await connecting;
    return { provider, pending };
  }

  async function settled<T>(promise: Promise<T>): Promise<{ value?: T; error?: WalletError }> {
    try {
      return { value: await promise };
    } catch (error) {
      expect(error).to.be.instanceOf(WalletError);
      return { error: error as WalletError };
    }
  }

  it("rejects an unanswered connect with WALLET_ABANDONED and stays unconnected when the wallet answers later", async () => {
    const { api, pending } = silentMyDoge();
    const provider = createProvider({ network: "regtest" }, { doge: api });
    expect(provider.waiting).to.equal(null);
    const connecting = settled(provider.connect());
    await new Promise((resolve) => setImmediate(resolve));
    expect(provider.waiting).to.include({ wallet: "MyDoge", step: "connect" });
    expect(provider.stopWaiting()).to.equal(1);
    const { error } = await connecting;
    expect([error!.code, error!.wallet, error!.step]).to.deep.equal(["WALLET_ABANDONED", "MyDoge", "connect"]);
    expect(error!.message).to.equal(
      "stopped waiting for MyDoge to connect. If MyDoge still shows the request, decline it there, then try again.",
    );
    expect(provider.waiting).to.equal(null);
    expect(provider.stopWaiting()).to.equal(0);
    // The popup answers after all: dropped, the page stays unconnected.
    pending[0].answer({ approved: true, address: person.address });
    await new Promise((resolve) => setImmediate(resolve));
    expect(provider.address).to.equal(null);
    // The next try is a request of its own, answered as usual.
    const again = provider.connect();
    await new Promise((resolve) => setImmediate(resolve));
    expect(pending.map((p) => p.method)).to.deep.equal(["connect", "connect"]);
    pending[1].answer({ approved: true, address: person.address });
    expect((await again).address).to.equal(person.address);
    expect(provider.waiting).to.equal(null);
  });

  it("drops a late refusal too, and keeps the requests still answered apart from the abandoned one", async () => {
    const { provider, pending } = await connectedSilently();
    const first = settled(provider.signMessage("first"));
    await new Promise((resolve) => setImmediate(resolve));
    expect(provider.stopWaiting()).to.equal(1);
    expect((await first).error!.code).to.equal("WALLET_ABANDONED");
    // A refusal after the person stopped waiting is no one's error (no unhandled rejection either).
    pending[1].fail(new Error("User rejected request"));
    const second = provider.signMessage("second");
    await new Promise((resolve) => setImmediate(resolve));
    expect(provider.waiting).to.include({ wallet: "MyDoge", step: "sign a message" });
    pending[2].answer({ signedMessage: signMessage("second", person.privateKey) });
    expect(await second).to.equal(signMessage("second", person.privateKey));
  });

  it("says a DRC-20 send the wallet may still broadcast belongs to no order", async () => {
    const { provider, pending } = await connectedSilently();
    const sending = settled(provider.sendDrc20({ tick: "WEBT", amount: "5", to: custody.address }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(provider.waiting).to.include({ wallet: "MyDoge", step: "send tokens" });
    expect(pending.map((p) => p.method)).to.deep.equal(["connect", "requestAvailableDRC20Transaction"]);
    provider.stopWaiting();
    const { error } = await sending;
    expect([error!.code, error!.step]).to.deep.equal(["WALLET_ABANDONED", "send tokens"]);
    expect(error!.message).to.equal(
      "stopped waiting for MyDoge to send tokens. If MyDoge still sends them, that deposit belongs to no order: look for it in MyDoge's activity before you send again.",
    );
  });
});
