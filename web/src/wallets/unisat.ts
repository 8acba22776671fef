/**
 * Wallets with UniSat's page interface (UniSat Wallet API, docs.unisat.io "UniSat Wallet" developer
 * docs; the shapes as typed in @btc-vision/transaction src/transaction/browser/types/Unisat.ts):
 *
 *   requestAccounts() -> [address]        getAccounts() -> [address]      getPublicKey() -> hex
 *   getNetwork() -> "livenet" | "testnet" (| "regtest")                   switchNetwork(network)
 *   getBalance() -> {confirmed, unconfirmed, total}   (koinu, numbers)
 *   signPsbt(psbtHex, {autoFinalized?, toSignInputs?}) -> psbtHex  (finalised unless autoFinalized: false)
 *   signMessage(text, "ecdsa" | "bip322-simple") -> base64
 *   on("accountsChanged" | "networkChanged", handler)
 *   inscribeTransfer(ticker, amount) -> {inscriptionId, inscriptionNumber, ticker, amount}
 *       (unisat-wallet/extension src/content-script/pageProvider/index.ts; the approval page
 *       src/ui/pages/Approval/components/InscribeTransfer.tsx inscribes a TRANSFER of `amount` onto
 *       the wallet's own address and resolves with the inscription; "User rejected the request.")
 *   sendInscription(toAddress, inscriptionId, {feeRate}?) -> txid
 *
 * DogeLabs (`window.dogeLabs`) is a Dogecoin wallet with this interface: requestAccounts,
 * getAccounts, getBalance, sendBitcoin, signPsbt(hex), pushPsbt, switchNetwork/getNetwork and the
 * events; pages call its signMessage(text, type) too (for example the Doginal Dogs holder check
 * calls window.dogeLabs.signMessage("Sign to Prove Ownership", "text")) and its
 * sendInscription(to, inscriptionId, {feeRate}). No published page or source shows DogeLabs
 * inscribing a DRC-20 transfer for a page (UniSat's inscribeTransfer), so a token deposit with
 * DogeLabs (or a UniSat build without inscribeTransfer or sendInscription) goes through PSBTs it
 * signs with signPsbt (./psbt-drc20.ts: the page inscribes with an ephemeral reveal key). A build
 * without a method gets the adapter's "cannot" message for that step.
 */
import type { Psbt } from "bitcoinjs-lib";
import { toBitcoinjsNetwork } from "../../../src/doge";
import {
  Drc20Send,
  WalletAccount,
  WalletAdapter,
  WalletBalance,
  WalletError,
  WalletId,
  koinuString,
  refused,
  txidAnswer,
  unsupported,
} from "./adapter";
import { loadPsbtKit } from "../psbt-load";

export interface UnisatStyleApi {
  requestAccounts(): Promise<string[]>;
  getAccounts?(): Promise<string[]>;
  getPublicKey?(): Promise<string>;
  getNetwork?(): Promise<string>;
  getBalance?(): Promise<{ confirmed: number; unconfirmed: number; total: number }>;
  signPsbt?(psbtHex: string, options?: unknown): Promise<string>;
  signMessage?(text: string, type?: string): Promise<string>;
  inscribeTransfer?(ticker: string, amount: string): Promise<{ inscriptionId?: string } | undefined>;
  sendInscription?(toAddress: string, inscriptionId: string, options?: { feeRate: number }): Promise<unknown>;
}

export function unisatStyleAdapter(
  id: Extract<WalletId, "unisat" | "dogelabs">,
  name: string,
  api: UnisatStyleApi,
  network: ReturnType<typeof toBitcoinjsNetwork>,
): WalletAdapter {
  return {
    id,
    name,
    async connect(): Promise<WalletAccount> {
      let accounts: string[];
      try {
        accounts = await api.requestAccounts();
      } catch (error) {
        throw refused(name, "connect", error);
      }
      if (!Array.isArray(accounts) || typeof accounts[0] !== "string")
        throw new WalletError("WALLET_REFUSED", `${name} did not connect: it answered no account`, name, "connect");
      let publicKey: string | null = null;
      let networkHint: string | null = null;
      try {
        if (typeof api.getPublicKey === "function") publicKey = await api.getPublicKey();
        if (typeof api.getNetwork === "function") networkHint = await api.getNetwork();
      } catch (error) {
        throw refused(name, "connect", error);
      }
      if (typeof publicKey !== "string" || !/^(02|03)[0-9a-fA-F]{64}$/.test(publicKey)) publicKey = null;
      return { address: accounts[0], publicKey: publicKey?.toLowerCase() ?? null, networkHint };
    },
    async signPsbt(psbt: Psbt, indexes: number[], address: string): Promise<Psbt> {
      if (typeof api.signPsbt !== "function") throw unsupported(name, "sign the payment", "signPsbt method");
      let signedHex: string;
      try {
        // UniSat signs what toSignInputs names and leaves the PSBT unfinalised when asked; DogeLabs
        // takes the hex alone and finalises (both forms are read back by takeSignedPsbtHex).
        signedHex =
          id === "unisat"
            ? await api.signPsbt(psbt.toHex(), {
                autoFinalized: false,
                toSignInputs: indexes.map((index) => ({ index, address })),
              })
            : await api.signPsbt(psbt.toHex());
      } catch (error) {
        throw refused(name, "sign the payment", error);
      }
      return (await loadPsbtKit()).takeSignedPsbtHex(psbt, signedHex, indexes, name, network);
    },
    async signMessage(message: string): Promise<string> {
      if (typeof api.signMessage !== "function") throw unsupported(name, "sign a message", "signMessage method");
      try {
        return await api.signMessage(message, "ecdsa");
      } catch (error) {
        throw refused(name, "sign a message", error);
      }
    },
    signPsbtUnsupported() {
      return typeof api.signPsbt === "function" ? null : unsupported(name, "sign the payment", "signPsbt method");
    },
    sendDrc20Unsupported() {
      if (typeof api.inscribeTransfer !== "function")
        return unsupported(name, "send tokens", "inscribeTransfer method, so it cannot inscribe the DRC-20 transfer");
      if (typeof api.sendInscription !== "function")
        return unsupported(name, "send tokens", "sendInscription method to send the transfer inscription");
      return null;
    },
    async sendDrc20({ tick, amount, to }: Drc20Send): Promise<{ txid: string }> {
      const { inscribeTransfer, sendInscription } = api;
      if (typeof inscribeTransfer !== "function" || typeof sendInscription !== "function")
        throw this.sendDrc20Unsupported!()!;
      try {
        const inscribed = await inscribeTransfer.call(api, tick, amount);
        const inscriptionId = inscribed?.inscriptionId;
        if (typeof inscriptionId !== "string" || !/^[0-9a-fA-F]{64}i\d+$/.test(inscriptionId))
          throw new WalletError(
            "WALLET_BAD_ANSWER",
            `${name} answered no inscription id for the transfer it inscribed: ${JSON.stringify(inscribed)}`,
            name,
            "send tokens",
          );
        const sent = await sendInscription.call(api, to, inscriptionId);
        // UniSat answers the txid itself; some builds wrap it as {txid}.
        const txid = sent && typeof sent === "object" && "txid" in sent ? (sent as { txid: unknown }).txid : sent;
        return { txid: txidAnswer(name, "send tokens", txid) };
      } catch (error) {
        throw refused(name, "send tokens", error);
      }
    },
    async balance(): Promise<WalletBalance> {
      if (typeof api.getBalance !== "function") throw unsupported(name, "read the balance", "getBalance method");
      let answer;
      try {
        answer = await api.getBalance();
      } catch (error) {
        throw refused(name, "read the balance", error);
      }
      return { confirmedKoinu: koinuString(answer?.confirmed), unconfirmedKoinu: String(answer?.unconfirmed ?? 0) };
    },
  };
}
