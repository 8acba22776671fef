/**
 * The hot wallet's public contract: what the services that spend from it (the inscriber, later the
 * launchpad's refunds, the AMM's payouts, the relayer's anchors) may rely on. The implementation is
 * `HotWallet` in ./hot-wallet.ts.
 *
 * Model: one P2PKH key. Every transaction the wallet builds or is asked to track belongs to an
 * *owner* (a job id) under a *label* ("commit", "reveal-0", "payout"...). The signed transaction is
 * stored before it is broadcast, so after a restart the same owner asking for the same label gets
 * the same transaction back (never a second spend of fresh coins). Coin selection runs inside one
 * SQLite write transaction, so two owners never receive the same output, also across processes
 * and restarts.
 */
import type { Transaction, TxOutput } from "../doge";
import { DogeosError } from "../errors";

export interface WalletKey {
  privateKey: Uint8Array;
  /** Compressed public key. */
  publicKey: Uint8Array;
  /** P2PKH address on the wallet's network. */
  address: string;
  /** The address's output script. */
  script: Uint8Array;
}

/** A confirmed unspent output as the index reports it. */
export interface ChainUtxo {
  txid: string;
  vout: number;
  valueKoinu: bigint;
  height: number;
  scriptHex: string;
  /** Inscriptions on this output (an inscription-carrying output is never spent by the wallet). */
  inscriptionIds: string[];
  /** DRC-20 transfer inscriptions on this output (never spent by the wallet). */
  drc20: { tick: string; amount: string }[];
  /** A coinbase output (spendable only once mature; absent: not a coinbase). */
  coinbase?: boolean;
  /** Confirmations as the chain source counts them (1 = in its tip; absent: deep enough for any rule). */
  confirmations?: number;
}

export type ChainTxStatus =
  { state: "confirmed"; height: number; confirmations: number } | { state: "mempool" } | { state: "unknown" };

/** Why a broadcast failed, as far as the wallet needs to know. */
export type BroadcastFailureKind =
  /** An input is already spent by another transaction (mempool or chain). */
  | "conflict"
  /** An input is unknown (its parent is not in the mempool or the chain). */
  | "missing_inputs"
  /** The fee is below what the node asks for now. */
  | "insufficient_fee"
  /** Any other policy or consensus refusal. */
  | "rejected"
  /** The node could not be reached or answered with something else. */
  | "unavailable";

/**
 * A broadcast failed: `reason` says why, the code is BROADCAST_<REASON>; retryable only when the
 * node was not reached (`unavailable`).
 */
export class BroadcastError extends DogeosError {
  constructor(
    readonly reason: BroadcastFailureKind,
    message: string,
    readonly nodeCode?: number,
    cause?: unknown,
  ) {
    super(
      reason === "unavailable" ? "unavailable" : reason === "conflict" ? "conflict" : "unprocessable",
      `BROADCAST_${reason.toUpperCase()}`,
      message,
      {
        details: nodeCode === undefined ? { reason } : { reason, node_code: nodeCode },
        cause,
      },
    );
  }
}

/** What the wallet reads from the index and the node. */
export interface WalletChain {
  /** Confirmed unspent outputs paying `address`, from the index. */
  confirmedUtxos(address: string): Promise<ChainUtxo[]>;
  /** Where `txid` is: in a block (with confirmations), in the node's mempool, or unknown. */
  txStatus(txid: string): Promise<ChainTxStatus>;
  /** Hands a signed transaction to the node; returns its txid. "Already in the mempool or chain" is success. */
  broadcast(hex: string): Promise<string>;
}

export type WalletTxState =
  /** Signed and stored, not broadcast yet. */
  | "signed"
  /** Accepted by the node (in its mempool). */
  | "broadcast"
  /** In a block at least `confirmations` deep as the wallet last saw it. */
  | "confirmed"
  /** Replaced by another transaction of the same owner and label (see `replacedBy`). */
  | "replaced"
  /** Can never confirm (an input was spent elsewhere); its change is gone. */
  | "failed";

export interface WalletTx {
  txid: string;
  owner: string;
  label: string;
  hex: string;
  state: WalletTxState;
  feeKoinu: bigint;
  /** Height of the including block once confirmed. */
  height: number | null;
  replacedBy: string | null;
  error: string | null;
  createdAt: number;
  broadcastAt: number | null;
  attempts: number;
  /** Confirmations as the wallet last saw them (0 until confirmed; it stops counting at its tracking depth). */
  confirmations?: number;
}

export interface Outpoint {
  txid: string;
  vout: number;
}

export interface FundOptions {
  /** Fee rate in koinu per 1000 bytes (default: the wallet's, 0.01 DOGE/kB). */
  feeRateKoinuPerKb?: bigint;
  /** Extra bytes the caller will add to the transaction after funding (none by default). */
  extraBytes?: number;
  /**
   * Locked outputs of the wallet to spend on purpose: outputs the index reports carrying
   * inscriptions or DRC-20 transfer inscriptions, which `fund` otherwise never selects (the AMM's
   * DRC-20 payouts send a transfer inscription the inscriber put on the wallet's address).
   *
   * Carrier i is input i, in the order given; the wallet's plain coins follow for the fee and the
   * change (last output). Output i must pay exactly carrier i's value, so every koinu of carrier i,
   * and with them every inscription on it at any offset, lands on output i (ordinal theory: koinu
   * go first in first out), never in the change or the fee; outputs after the carriers' are free.
   * `sendCarrier` builds that output 0 for one carrier.
   *
   * Each must be an unspent `locked` output of the wallet, else CarrierNotAvailableError:
   * CARRIER_NOT_FOUND (unknown to the wallet: not an output of its key, or not reported by the
   * index at its last sync), CARRIER_NOT_LOCKED (a plain output), CARRIER_SPENT (a live wallet
   * transaction spends it; two fundings of one carrier under different labels: the second gets
   * this), CARRIER_HELD (given back after a conflict, held for CONFLICT_HOLD_MS). The check and
   * the spend happen in the funding's write transaction. A failed, conflicted or abandoned carrier
   * send gives its carriers back `locked`; a rebuild for the fee keeps the same inputs in the same
   * order. The same owner and label return the stored transaction, whatever is asked the second time.
   */
  carrierInputs?: readonly Outpoint[];
}

/** A locked output of the wallet: what the index reported on it at the last sync. */
export interface CarrierOutput {
  txid: string;
  vout: number;
  valueKoinu: bigint;
  /** Block height the index reported it in. */
  height: number | null;
  inscriptionIds: string[];
  drc20: { tick: string; amount: string }[];
  /** Not spendable before this time (ms) after a conflict gave it back; null when spendable. */
  heldUntil: number | null;
}

export interface FundedTx {
  txid: string;
  hex: string;
  tx: Transaction;
  feeKoinu: bigint;
  /** Index of the change output, or null when the change was below the soft dust limit (went to fee). */
  changeVout: number | null;
}

/** INSUFFICIENT_FUNDS: retryable, as funds may arrive. */
export class InsufficientFundsError extends DogeosError {
  constructor(
    readonly neededKoinu: bigint,
    readonly availableKoinu: bigint,
  ) {
    super(
      "unavailable",
      "INSUFFICIENT_FUNDS",
      `the hot wallet has ${availableKoinu} koinu spendable, ${neededKoinu} needed`,
      {
        details: { needed_koinu: neededKoinu.toString(), available_koinu: availableKoinu.toString() },
      },
    );
  }
}

/** Events the wallet reports to owners while tracking their transactions. */
export interface WalletEvents {
  /** `txid` of `owner`/`label` reached `confirmations` (reported on each sync while it grows, up to the tracking depth). */
  onConfirmed?(tx: WalletTx): void;
  /**
   * A wallet-funded transaction was rebuilt with a higher fee on the same inputs (it had fallen out
   * of the mempool and the node refused it again at its old fee). Transactions the owner built on
   * its outputs must be rebuilt on `replacement`.
   */
  onReplaced?(previous: WalletTx, replacement: WalletTx): void;
  /** A transaction can never confirm. */
  onFailed?(tx: WalletTx): void;
}

/** Re-exported for the callers' convenience. */
export type { Transaction, TxOutput };
