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
 *
 * DogeLabs (`window.dogeLabs`) is a Dogecoin wallet with this interface: requestAccounts,
 * getAccounts, getBalance, sendBitcoin, signPsbt(hex), pushPsbt, switchNetwork/getNetwork and the
 * events; pages call its signMessage(text, type) too (for example the Doginal Dogs holder check
 * calls window.dogeLabs.signMessage("Sign to Prove Ownership", "text")). A build without a method
 * gets the adapter's "cannot" message for that step.
 */
import type { Psbt } from "bitcoinjs-lib";
import { toBitcoinjsNetwork } from "../../../src/doge";
import {
  WalletAccount,
  WalletAdapter,
  WalletBalance,
  WalletError,
  WalletId,
  koinuString,
  refused,
  unsupported,
} from "./adapter";
import { takeSignedPsbtHex } from "./psbt-forms";

export interface UnisatStyleApi {
  requestAccounts(): Promise<string[]>;
  getAccounts?(): Promise<string[]>;
  getPublicKey?(): Promise<string>;
  getNetwork?(): Promise<string>;
  getBalance?(): Promise<{ confirmed: number; unconfirmed: number; total: number }>;
  signPsbt?(psbtHex: string, options?: unknown): Promise<string>;
  signMessage?(text: string, type?: string): Promise<string>;
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
      return takeSignedPsbtHex(psbt, signedHex, indexes, name, network);
    },
    async signMessage(message: string): Promise<string> {
      if (typeof api.signMessage !== "function") throw unsupported(name, "sign a message", "signMessage method");
      try {
        return await api.signMessage(message, "ecdsa");
      } catch (error) {
        throw refused(name, "sign a message", error);
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
