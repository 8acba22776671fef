/**
 * What every wallet adapter of the pages' provider (web/src/wallet-provider.ts) answers, and the one
 * error the provider throws. An adapter maps one injected wallet's own page interface (MyDoge's
 * window.doge, DogeLabs' window.dogeLabs, UniSat's window.unisat, our development wallet) to these
 * few steps, with the PSBT form the pages use: base64, unfinalised, one partial signature per input
 * the wallet owns (web/src/wallets/psbt-forms.ts converts each wallet's form once).
 */
import type { Psbt } from "bitcoinjs-lib";

export type WalletId = "mydoge" | "dogelabs" | "unisat" | "walletconnect" | "dev";

/** The steps a page may ask of a wallet, named as the messages name them. */
export type WalletStep =
  "connect" | "sign the payment" | "sign a message" | "read the balance" | "send tokens" | "disconnect";

/** A DRC-20 deposit the page asks for: `amount` whole units of `tick` to `to`. */
export interface Drc20Send {
  tick: string;
  /** Whole DRC-20 units, a decimal string without sign or fraction. */
  amount: string;
  to: string;
}

export interface WalletAccount {
  address: string;
  /** The compressed public key, hex, when the wallet tells it (else recovered from a message signature). */
  publicKey: string | null;
  /** What the wallet says of its network, in its own words (e.g. "livenet"), or null. */
  networkHint: string | null;
}

export interface WalletBalance {
  confirmedKoinu: string;
  unconfirmedKoinu: string;
}

export interface WalletAdapter {
  readonly id: WalletId;
  /** The wallet's name as people know it. */
  readonly name: string;
  connect(): Promise<WalletAccount>;
  /** Signs `indexes` of `psbt` (the wallet's own inputs); answers the PSBT with their partial signatures. */
  signPsbt?(psbt: Psbt, indexes: number[], address: string): Promise<Psbt>;
  /** A Dogecoin message signature (base64, compact, as `signmessage`) by the connected address. */
  signMessage?(message: string, address: string): Promise<string>;
  balance?(address: string): Promise<WalletBalance>;
  /**
   * Sends `amount` of `tick` from the connected address to `to` through the wallet's own DRC-20
   * transfer step (a transfer inscription onto the wallet's address, then that inscription sent);
   * answers the txid of the send, which is the DRC-20 deposit.
   */
  sendDrc20?(send: Drc20Send, address: string): Promise<{ txid: string }>;
  /** The error sendDrc20 would throw because the wallet lacks a method for it, or null; asks the wallet nothing. */
  sendDrc20Unsupported?(): WalletError | null;
  /**
   * The error signPsbt would throw because the wallet lacks a method for it, or null; asks the wallet
   * nothing. A wallet without its own DRC-20 step sends tokens through PSBTs it signs
   * (./psbt-drc20.ts) when this is null.
   */
  signPsbtUnsupported?(): WalletError | null;
  disconnect?(): Promise<void>;
}

/**
 * Codes: NO_WALLET (none in this browser), WALLET_NOT_CHOSEN (several, none chosen), WALLET_UNSUPPORTED
 * (the wallet has no method for the step), WALLET_REFUSED (the wallet or its user said no),
 * WALLET_BAD_ANSWER (an answer the provider cannot use: another transaction, a bad signature),
 * NETWORK_MISMATCH (the wallet's address or network is not the page's), NOT_CONNECTED, WALLET_ABANDONED
 * (the person stopped waiting for a wallet that had not answered: wallet.stopWaiting()).
 */
export class WalletError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly wallet: string | null = null,
    readonly step: WalletStep | null = null,
  ) {
    super(message);
    this.name = "WalletError";
  }
}

/** The wallet's own rejection as a WalletError naming the wallet and the step. */
export function refused(name: string, step: WalletStep, error: unknown): WalletError {
  if (error instanceof WalletError) return error;
  const said =
    error && typeof error === "object" && "message" in error ? String((error as Error).message) : String(error);
  return new WalletError("WALLET_REFUSED", `${name} did not ${step}: ${said || "no reason given"}`, name, step);
}

/** The message for a step the wallet cannot do at all. */
export function unsupported(name: string, step: WalletStep, what: string): WalletError {
  return new WalletError(
    "WALLET_UNSUPPORTED",
    `${name} cannot ${step} here: it has no ${what}. Choose another wallet for this step.`,
    name,
    step,
  );
}

/** Koinu as a decimal string from a wallet's number or string (MyDoge answers strings, UniSat numbers). */
export function koinuString(value: unknown): string {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return String(value);
  if (typeof value === "string" && /^\d+$/.test(value)) return BigInt(value).toString();
  if (typeof value === "bigint" && value >= 0n) return value.toString();
  throw new WalletError("WALLET_BAD_ANSWER", `a balance of ${JSON.stringify(value)} is not an amount of koinu`);
}

/** A txid a wallet answered for `step` (64 hex digits), lower-cased, or WALLET_BAD_ANSWER. */
export function txidAnswer(name: string, step: WalletStep, value: unknown): string {
  if (typeof value !== "string" || !/^[0-9a-fA-F]{64}$/.test(value))
    throw new WalletError(
      "WALLET_BAD_ANSWER",
      `${name} answered ${JSON.stringify(value)} where a transaction id was expected`,
      name,
      step,
    );
  return value.toLowerCase();
}
