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
 *   getTransferableDRC20({ticker})              -> {inscriptions: [{txid, vout, ticker, contentType,
 *                                                  content, output, amount}], ticker, address}
 *   requestAvailableDRC20Transaction({ticker, amount})
 *                                               -> {txId, ticker, amount}: the wallet inscribes a
 *                                                  transfer of `amount` onto its own address and
 *                                                  answers the reveal's txid (the inscription is at
 *                                                  `${txId}:0:0`: background.js onSendInscribeTransfer
 *                                                  broadcasts [commit, reveal] and caches that location)
 *   requestInscriptionTransaction({recipientAddress, location: "txid:vout:offset"}) -> {txId}
 *
 * requestPsbt's rawTx is the PSBT in hex (scripts/helpers/wallet.js decodeRawPsbt: Psbt.fromHex);
 * with signOnly it answers the finalised transaction (psbt-forms.ts takes it back).
 */
import type { Psbt } from "bitcoinjs-lib";
import {
  Drc20Send,
  WalletAccount,
  WalletAdapter,
  WalletBalance,
  WalletError,
  koinuString,
  refused,
  txidAnswer,
  unsupported,
} from "./adapter";
import { loadPsbtKit } from "../psbt-load";

export interface MyDogeApi {
  isMyDoge?: boolean;
  connect(): Promise<{ approved: boolean; address: string; publicKey?: string; balance?: string | number }>;
  getBalance?(): Promise<{ address: string; balance: string | number }>;
  requestPsbt?(data: { rawTx: string; indexes: number[]; signOnly: boolean }): Promise<{
    signedRawTx?: string;
    txId?: string;
  }>;
  requestSignedMessage?(data: { message: string }): Promise<{ signedMessage: string } | string>;
  getTransferableDRC20?(data: { ticker: string }): Promise<{
    inscriptions?: { txid?: string; vout?: number; ticker?: string; output?: string; amount?: number | string }[];
  }>;
  requestAvailableDRC20Transaction?(data: { ticker: string; amount: string }): Promise<{
    txId?: string;
    ticker?: string;
    amount?: number | string;
  }>;
  requestInscriptionTransaction?(data: { recipientAddress: string; location: string }): Promise<{ txId?: string }>;
  disconnect?(): Promise<unknown>;
}

/** `txid:vout` of an output, from a transferable inscription's `output` ("txid:vout") or its txid and vout. */
function outputOf(item: { txid?: string; vout?: number; output?: string }): string | null {
  if (typeof item.output === "string" && /^[0-9a-fA-F]{64}:\d+$/.test(item.output)) return item.output;
  if (typeof item.txid === "string" && /^[0-9a-fA-F]{64}$/.test(item.txid) && Number.isInteger(item.vout))
    return `${item.txid}:${item.vout}`;
  return null;
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
      return (await loadPsbtKit()).takeSignedTransaction(psbt, answer?.signedRawTx, indexes, NAME);
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
    async sendDrc20({ tick, amount, to }: Drc20Send): Promise<{ txid: string }> {
      if (typeof api.requestInscriptionTransaction !== "function")
        throw unsupported(NAME, "send tokens", "requestInscriptionTransaction method to send an inscription");
      let location: string | null = null;
      try {
        // A transfer of exactly this amount inscribed before (a send that was declined, say) is sent as it is.
        if (typeof api.getTransferableDRC20 === "function") {
          const held = await api.getTransferableDRC20({ ticker: tick });
          const match = (held?.inscriptions ?? []).find(
            (i) =>
              (i.ticker === undefined || String(i.ticker).toLowerCase() === tick.toLowerCase()) &&
              String(i.amount) === amount &&
              outputOf(i) !== null,
          );
          if (match) location = `${outputOf(match)}:0`;
        }
        if (location === null) {
          if (typeof api.requestAvailableDRC20Transaction !== "function")
            throw unsupported(NAME, "send tokens", "requestAvailableDRC20Transaction method to inscribe a transfer");
          const inscribed = await api.requestAvailableDRC20Transaction({ ticker: tick, amount });
          location = `${txidAnswer(NAME, "send tokens", inscribed?.txId)}:0:0`;
        }
        const sent = await api.requestInscriptionTransaction({ recipientAddress: to, location });
        return { txid: txidAnswer(NAME, "send tokens", sent?.txId) };
      } catch (error) {
        throw refused(NAME, "send tokens", error);
      }
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
