/**
 * MyDoge (the wallet of DogeOS): `window.doge`, set on the page's load event and announced by a
 * `doge#initialized` event. Its page interface, from mydoge-com/mydogemask scripts/inject-script.js
 * (class MyDogeWallet): every method returns a promise (and takes optional onSuccess/onError
 * callbacks), and rejects with an Error carrying the wallet's message when the user declines.
 *
 *   connect()                                   -> {approved, address, publicKey, balance}
 *   getBalance()                                -> {address, balance}     (koinu, a string)
 *   requestPsbt({rawTx, indexes, signOnly})     -> {signedRawTx} with signOnly, else {txId}
 *   requestSignedMessage({message})             -> {signedMessage}        (base64)
 *   getConnectionStatus()                       -> {connected, address, selectedWalletAddress}
 *   disconnect()
 *
 * requestPsbt's rawTx is the PSBT in hex (scripts/helpers/wallet.js decodeRawPsbt: Psbt.fromHex);
 * with signOnly it answers the finalised transaction (psbt-forms.ts takes it back).
 */
import type { Psbt } from "bitcoinjs-lib";
import { WalletAccount, WalletAdapter, WalletBalance, WalletError, koinuString, refused, unsupported } from "./adapter";
import { takeSignedTransaction } from "./psbt-forms";

export interface MyDogeApi {
  isMyDoge?: boolean;
  connect(): Promise<{ approved: boolean; address: string; publicKey?: string; balance?: string | number }>;
  getBalance?(): Promise<{ address: string; balance: string | number }>;
  requestPsbt?(data: { rawTx: string; indexes: number[]; signOnly: boolean }): Promise<{
    signedRawTx?: string;
    txId?: string;
  }>;
  requestSignedMessage?(data: { message: string }): Promise<{ signedMessage: string } | string>;
  disconnect?(): Promise<unknown>;
}

const NAME = "MyDoge";

export function myDogeAdapter(api: MyDogeApi): WalletAdapter {
  return {
    id: "mydoge",
    name: NAME,
    async connect(): Promise<WalletAccount> {
      let answer;
      try {
        answer = await api.connect();
      } catch (error) {
        throw refused(NAME, "connect", error);
      }
      if (!answer || answer.approved !== true || typeof answer.address !== "string")
        throw new WalletError(
          "WALLET_REFUSED",
          `${NAME} did not connect: the request was not approved`,
          NAME,
          "connect",
        );
      const publicKey =
        typeof answer.publicKey === "string" && /^(02|03)[0-9a-fA-F]{64}$/.test(answer.publicKey)
          ? answer.publicKey.toLowerCase()
          : null;
      return { address: answer.address, publicKey, networkHint: null };
    },
    async signPsbt(psbt: Psbt, indexes: number[]): Promise<Psbt> {
      if (typeof api.requestPsbt !== "function") throw unsupported(NAME, "sign the payment", "requestPsbt method");
      let answer;
      try {
        answer = await api.requestPsbt({ rawTx: psbt.toHex(), indexes, signOnly: true });
      } catch (error) {
        throw refused(NAME, "sign the payment", error);
      }
      if (answer && typeof answer.signedRawTx !== "string" && typeof answer.txId === "string")
        throw new WalletError(
          "WALLET_BAD_ANSWER",
          `${NAME} broadcast the payment itself (${answer.txId}) instead of handing it back signed; the page follows that transaction no further`,
          NAME,
          "sign the payment",
        );
      return takeSignedTransaction(psbt, answer?.signedRawTx, indexes, NAME);
    },
    async signMessage(message: string): Promise<string> {
      if (typeof api.requestSignedMessage !== "function")
        throw unsupported(NAME, "sign a message", "requestSignedMessage method");
      let answer;
      try {
        answer = await api.requestSignedMessage({ message });
      } catch (error) {
        throw refused(NAME, "sign a message", error);
      }
      const signature = typeof answer === "string" ? answer : answer?.signedMessage;
      if (typeof signature !== "string")
        throw new WalletError("WALLET_BAD_ANSWER", `${NAME} answered no signature`, NAME, "sign a message");
      return signature;
    },
    async balance(): Promise<WalletBalance> {
      if (typeof api.getBalance !== "function") throw unsupported(NAME, "read the balance", "getBalance method");
      let answer;
      try {
        answer = await api.getBalance();
      } catch (error) {
        throw refused(NAME, "read the balance", error);
      }
      return { confirmedKoinu: koinuString(answer?.balance), unconfirmedKoinu: "0" };
    },
    async disconnect(): Promise<void> {
      try {
        await api.disconnect?.();
      } catch (error) {
        throw refused(NAME, "disconnect", error);
      }
    },
  };
}
