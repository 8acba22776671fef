/**
 * The hot wallet: one P2PKH key over the index (see types.ts for the contract).
 *
 * Coin selection, signing and the bookkeeping that moves value happen synchronously inside one
 * SQLite IMMEDIATE transaction, so two callers (in this process or another one on the same file)
 * never get the same output, and a crash leaves either everything or nothing of a funding.
 *
 * Decisions:
 * - The change of a funded transaction (and every output of the wallet's own split transactions)
 *   is selectable at once, before it is broadcast: `broadcast` always sends a transaction's
 *   unbroadcast wallet parents first, and `abandon` refuses a transaction that something was built
 *   on, so a child never reaches the node without its parent. Chains are kept below
 *   `maxUnconfirmedDepth` (20, under Core's ancestor limit of 25).
 * - Selection: one coin if one suffices (the least deep, then the smallest such coin), else
 *   largest first. Fees are exact: signatures are ground to 71 bytes (build.ts), so the signed size
 *   is known before signing and the fee is `dogecoinFee` of it.
 * - Outputs paying the wallet of a transaction the owner built (`track`) are never made spendable
 *   by the wallet itself: they become spendable (or locked) only when the index reports them.
 * - Outputs the index reports with inscriptions or DRC-20 transfers are locked, never selected.
 *   They are spent only when named (`carrierInputs`, `sendCarrier`): first inputs, each whole on
 *   the output of its index; whatever takes them back (failure, conflict, abandon, a replacement
 *   not spending them) returns them locked, since an output's `carries` survives its spending.
 * - A transaction that falls out of the mempool is sent again; refused for its fee, a funded one is
 *   rebuilt on the same inputs at twice the fee rate (up to 100 times the wallet's rate) and its
 *   wallet-funded descendants are rebuilt on the replacement; refused as a conflict it fails with
 *   its descendants, and its inputs that the index still lists as unspent come back after a hold
 *   (so that a conflicting spend still in a mempool has time to confirm and leave the index).
 * - A replaced version that gets into a block or the mempool after all becomes current again.
 * - Events are emitted by the process that made the change, after its transaction committed.
 */
import {
  DogeNetwork,
  Transaction,
  TxOutput,
  bytesToHex,
  hexToBytes,
  parseTransaction,
  serializeTransaction,
  txidOf,
  OP,
  compileScript,
  MAX_MONEY,
} from "../doge";
import { Coin, planOutputs, minimumInputTotal, signWalletTransaction } from "./build";
import {
  CarrierNotAvailableError,
  InvalidOutputError,
  WalletConflictError,
  WalletDatabaseMismatchError,
  WalletTxStateError,
} from "./errors";
import { HARD_DUST_LIMIT, RECOMMENDED_FEE_RATE, isUnspendable } from "./fees";
import { unspendableReason } from "./spendable";
import { LIVE_STATES, OutputRow, TxRow, WalletStore, toWalletTx } from "./store";
import {
  BroadcastError,
  CarrierOutput,
  ChainTxStatus,
  ChainUtxo,
  FundOptions,
  FundedTx,
  InsufficientFundsError,
  Outpoint,
  WalletChain,
  WalletEvents,
  WalletKey,
  WalletTx,
} from "./types";
import type { Sqlite } from "../db/sqlite";

/** Owner of the wallet's own transactions (splits). Every output of theirs that pays the wallet is spendable. */
export const WALLET_OWNER = "wallet";
export const DEFAULT_MAX_UNCONFIRMED_DEPTH = 20;
export const DEFAULT_TRACKING_DEPTH = 6;
/** How long inputs given back after a conflict wait before they are selected again. */
export const CONFLICT_HOLD_MS = 10 * 60_000;
/** A replacement's fee rate never exceeds this multiple of the wallet's fee rate. */
export const MAX_FEE_RATE_FACTOR = 100n;
/** Most inputs of one funded transaction (about 88 kB, under the 100 kB standard size). */
export const MAX_INPUTS = 600;
/** Most outputs of one split transaction. */
export const MAX_SPLIT_OUTPUTS = 500;
/** Status queries in flight at once during a sync. */
const STATUS_CONCURRENCY = 16;

export interface HotWalletOptions {
  db: Sqlite;
  key: WalletKey;
  chain: WalletChain;
  network: DogeNetwork;
  /** Default fee rate in koinu per 1000 bytes (RECOMMENDED_FEE_RATE, 0.01 DOGE/kB). */
  feeRateKoinuPerKb?: bigint;
  /** Longest chain of unconfirmed wallet transactions (default 20; Core's ancestor limit is 25). */
  maxUnconfirmedDepth?: number;
  /** Confirmations after which a transaction is final and no longer followed (default 6). */
  trackingDepth?: number;
  events?: WalletEvents;
  log?: (event: string, fields: Record<string, unknown>) => void;
  /** Clock in milliseconds (default Date.now). */
  now?: () => number;
}

interface SelectedCoin extends Coin {
  depth: number;
  ancestors: number;
  createdBy: string | null;
}

type PendingEvent =
  | { kind: "confirmed"; txid: string }
  | { kind: "replaced"; previous: string; replacement: string }
  | { kind: "failed"; txid: string };

const outpoint = (txid: string, vout: number) => `${txid}:${vout}`;

function decodeHex(hex: string): Transaction {
  const parsed = parseTransaction(hexToBytes(hex));
  if (!parsed.ok) throw new Error(`stored transaction does not parse: ${parsed.error.message}`);
  const { version, inputs, outputs, locktime } = parsed.value;
  return { version, inputs, outputs, locktime };
}

function asBroadcastError(error: unknown): BroadcastError {
  if (error instanceof BroadcastError) return error;
  return new BroadcastError("unavailable", error instanceof Error ? error.message : String(error));
}

function isLive(row: TxRow | null): row is TxRow {
  return row !== null && LIVE_STATES.includes(row.state);
}

export class HotWallet {
  readonly address: string;
  readonly key: WalletKey;
  readonly network: DogeNetwork;
  private readonly store: WalletStore;
  private readonly chain: WalletChain;
  private readonly feeRate: bigint;
  private readonly maxDepth: number;
  private readonly trackingDepth: number;
  private readonly events: WalletEvents;
  private readonly log: (event: string, fields: Record<string, unknown>) => void;
  private readonly now: () => number;
  private readonly scriptHex: string;
  /** The bare pay-to-pubkey script of the wallet's key: only inscription carriers on it are taken (spendable.ts). */
  private readonly p2pkScriptHex: string;
  private pendingEvents: PendingEvent[] = [];
  private syncing: Promise<void> | null = null;

  constructor(options: HotWalletOptions) {
    this.key = options.key;
    this.address = options.key.address;
    this.network = options.network;
    this.chain = options.chain;
    this.feeRate = options.feeRateKoinuPerKb ?? RECOMMENDED_FEE_RATE;
    this.maxDepth = options.maxUnconfirmedDepth ?? DEFAULT_MAX_UNCONFIRMED_DEPTH;
    this.trackingDepth = options.trackingDepth ?? DEFAULT_TRACKING_DEPTH;
    this.events = options.events ?? {};
    this.log = options.log ?? (() => undefined);
    this.now = options.now ?? Date.now;
    this.scriptHex = bytesToHex(options.key.script);
    this.p2pkScriptHex = bytesToHex(compileScript([options.key.publicKey, OP.OP_CHECKSIG]));
    if (this.feeRate <= 0n) throw new RangeError(`feeRateKoinuPerKb must be positive, got ${this.feeRate}`);
    if (!Number.isInteger(this.maxDepth) || this.maxDepth < 1 || this.maxDepth > 25)
      throw new RangeError(`maxUnconfirmedDepth must be 1 to 25, got ${this.maxDepth}`);
    if (!Number.isInteger(this.trackingDepth) || this.trackingDepth < 1)
      throw new RangeError(`trackingDepth must be a positive integer, got ${this.trackingDepth}`);
    this.store = new WalletStore(options.db);
    const identity = `${this.network.name}:${this.address}`;
    this.store.transaction(() => {
      const found = this.store.getMeta("wallet");
      if (found === null) this.store.setMeta("wallet", identity);
      else if (found !== identity) throw new WalletDatabaseMismatchError(identity, found);
    });
  }

  // ==================================================================== reading

  tx(txid: string): WalletTx | null {
    const row = this.store.tx(txid);
    return row ? toWalletTx(row) : null;
  }

  /** The current transaction of (owner, label): the latest of its replacements. */
  txOf(owner: string, label: string): WalletTx | null {
    const row = this.store.current(owner, label);
    return row ? toWalletTx(row) : null;
  }

  /** Every transaction of `owner`, replaced versions included, oldest first. */
  txsOf(owner: string): WalletTx[] {
    return this.store.txsOf(owner).map(toWalletTx);
  }

  /**
   * Confirmed: spendable outputs the index reported; unconfirmed: spendable change not confirmed
   * yet; locked: outputs carrying inscriptions or DRC-20; spendableUtxos: outputs `fund` may select now.
   */
  balance(): { confirmedKoinu: bigint; unconfirmedKoinu: bigint; lockedKoinu: bigint; spendableUtxos: number } {
    let confirmedKoinu = 0n;
    let unconfirmedKoinu = 0n;
    let lockedKoinu = 0n;
    let spendableUtxos = 0;
    const now = this.now();
    for (const row of this.store.unspentOutputs()) {
      if (row.state === "locked") {
        lockedKoinu += row.valueKoinu;
        continue;
      }
      if (row.height !== null) confirmedKoinu += row.valueKoinu;
      else unconfirmedKoinu += row.valueKoinu;
      if (row.depth < this.maxDepth && (row.heldUntil === null || row.heldUntil <= now)) spendableUtxos += 1;
    }
    return { confirmedKoinu, unconfirmedKoinu, lockedKoinu, spendableUtxos };
  }

  /**
   * The wallet's unspent locked outputs as of its last sync, with what the index reported on them:
   * the outpoints `carrierInputs` and `sendCarrier` accept. A carrier the inscriber just revealed to
   * the wallet's address shows up here once the reveal is confirmed, indexed and the wallet synced.
   */
  carriers(): CarrierOutput[] {
    const now = this.now();
    return this.store
      .unspentOutputs()
      .filter((row) => row.state === "locked")
      .map((row) => {
        const carries = row.carries
          ? (JSON.parse(row.carries) as { inscriptionIds: string[]; drc20: { tick: string; amount: string }[] })
          : null;
        return {
          txid: row.txid,
          vout: row.vout,
          valueKoinu: row.valueKoinu,
          height: row.height,
          inscriptionIds: carries?.inscriptionIds ?? [],
          drc20: carries?.drc20 ?? [],
          heldUntil: row.heldUntil !== null && row.heldUntil > now ? row.heldUntil : null,
        };
      });
  }

  // ==================================================================== funding

  fund(owner: string, label: string, outputs: TxOutput[], options: FundOptions = {}): FundedTx {
    checkOutputs(outputs);
    return this.fundOnce(owner, label, options, () => outputs);
  }

  /**
   * Sends the locked output `carrier` whole to `recipientScript`: input 0 is the carrier, output 0
   * pays the recipient exactly its value (so whatever it carries moves with it), plain coins of the
   * wallet pay the fee and take the change (last). `fund` with `carrierInputs: [carrier]` and that
   * output 0; the same errors (FundOptions.carrierInputs) and the same idempotency by owner and label.
   */
  sendCarrier(
    owner: string,
    label: string,
    carrier: Outpoint,
    recipientScript: Uint8Array,
    options: Omit<FundOptions, "carrierInputs"> = {},
  ): FundedTx {
    if (!(recipientScript instanceof Uint8Array) || recipientScript.length === 0)
      throw new TypeError("recipientScript must be a non-empty script");
    if (isUnspendable(recipientScript))
      throw new TypeError("recipientScript is unspendable: the carrier would be burnt");
    return this.fundOnce(owner, label, { ...options, carrierInputs: [carrier] }, ([coin]) => [
      { value: coin.valueKoinu, script: recipientScript },
    ]);
  }

  /**
   * The stored transaction of (owner, label), else a new funding in one write transaction: the
   * named carriers are checked and taken there, `outputsFor` gets them (sendCarrier's output 0
   * needs the carrier's value) and the wallet's coins pay the rest.
   */
  private fundOnce(
    owner: string,
    label: string,
    options: FundOptions,
    outputsFor: (carriers: readonly SelectedCoin[]) => readonly TxOutput[],
  ): FundedTx {
    checkName("owner", owner);
    checkName("label", label);
    const feeRate = options.feeRateKoinuPerKb ?? this.feeRate;
    const extraBytes = options.extraBytes ?? 0;
    if (feeRate <= 0n) throw new RangeError(`feeRateKoinuPerKb must be positive, got ${feeRate}`);
    if (!Number.isSafeInteger(extraBytes) || extraBytes < 0)
      throw new RangeError(`extraBytes must be a non-negative integer, got ${extraBytes}`);
    const carrierInputs = checkCarrierInputs(options.carrierInputs ?? []);
    // The wallet's own transactions make every output paying it spendable at once (ownVouts): a
    // carrier moved to the wallet by one would come back as a plain coin.
    if (carrierInputs.length > 0 && owner === WALLET_OWNER)
      throw new TypeError(`owner "${WALLET_OWNER}" is the wallet's own and cannot spend carriers`);
    const row = this.write(() => {
      const existing = this.store.current(owner, label);
      if (existing) return existing;
      const carriers = carrierInputs.map((input) => this.lockedCarrier(input));
      const outputs = outputsFor(carriers);
      checkOutputs(outputs);
      checkCarrierOutputs(carriers, outputs);
      return this.fundNew(owner, label, outputs, feeRate, extraBytes, false, carriers);
    });
    return fundedView(row);
  }

  /** Inside a write transaction: `input` as a coin, when it is an unspent locked output of the wallet free to spend now. */
  private lockedCarrier(input: Outpoint): SelectedCoin {
    const id = outpoint(input.txid, input.vout);
    const row = this.store.output(input.txid, input.vout);
    if (!row) throw new CarrierNotAvailableError("CARRIER_NOT_FOUND", id);
    if (row.carries === null) throw new CarrierNotAvailableError("CARRIER_NOT_LOCKED", id);
    if (row.state === "spent") throw new CarrierNotAvailableError("CARRIER_SPENT", id, row.spentBy);
    if (row.state !== "locked") throw new CarrierNotAvailableError("CARRIER_NOT_LOCKED", id);
    if (row.heldUntil !== null && row.heldUntil > this.now())
      throw new CarrierNotAvailableError("CARRIER_HELD", id, null, row.heldUntil);
    return {
      txid: row.txid,
      vout: row.vout,
      valueKoinu: row.valueKoinu,
      depth: row.depth,
      ancestors: row.ancestors,
      createdBy: row.createdBy,
    };
  }

  /**
   * Makes sure at least `count` spendable outputs of at least `valueKoinu` exist: when fewer do,
   * funds and broadcasts one split transaction (owner "wallet", label "split-<n>") paying the
   * missing ones to the wallet. Returns it, or null when nothing was needed.
   */
  async ensureUtxos(count: number, valueKoinu: bigint): Promise<FundedTx | null> {
    if (!Number.isSafeInteger(count) || count < 1)
      throw new RangeError(`count must be a positive integer, got ${count}`);
    if (valueKoinu < HARD_DUST_LIMIT)
      throw new InvalidOutputError(0, valueKoinu, `split outputs must be at least ${HARD_DUST_LIMIT} koinu`);
    const row = this.write(() => {
      const now = this.now();
      const have = this.store.selectable(this.maxDepth, now).filter((coin) => coin.valueKoinu >= valueKoinu).length;
      if (have >= count) return null;
      const missing = Math.min(count - have, MAX_SPLIT_OUTPUTS);
      const counter = Number(this.store.getMeta("split_counter") ?? "0") + 1;
      this.store.setMeta("split_counter", String(counter));
      const outputs = Array.from({ length: missing }, () => ({ value: valueKoinu, script: this.key.script }));
      // The wallet's own transaction: sync sends it if this broadcast does not get through.
      return this.fundNew(WALLET_OWNER, `split-${counter}`, outputs, this.feeRate, 0, true);
    });
    if (!row) return null;
    this.log("wallet_split_funded", { txid: row.txid, label: row.label, valueKoinu: valueKoinu.toString() });
    await this.broadcast(row.txid);
    return fundedView(row);
  }

  /** Inside a write transaction: selects, signs and stores a new funded transaction; `carriers` are its first inputs. */
  private fundNew(
    owner: string,
    label: string,
    outputs: readonly TxOutput[],
    feeRate: bigint,
    extraBytes: number,
    rebroadcast = false,
    carriers: readonly SelectedCoin[] = [],
  ): TxRow {
    const coins = [...carriers, ...this.selectCoins(outputs, feeRate, extraBytes, carriers)];
    const total = coins.reduce((sum, coin) => sum + coin.valueKoinu, 0n);
    const plan = planOutputs(coins.length, total, outputs, this.key.script, feeRate, extraBytes);
    if (!plan) throw new Error("selected coins cannot pay the outputs (selection bug)");
    const row = this.storeFunded(
      owner,
      label,
      coins,
      plan.outputs,
      plan.feeKoinu,
      plan.changeVout,
      feeRate,
      extraBytes,
      null,
      rebroadcast,
    );
    this.log("wallet_funded", {
      owner,
      label,
      txid: row.txid,
      inputs: coins.length,
      feeKoinu: plan.feeKoinu.toString(),
      ...(carriers.length > 0 ? { carriers: carriers.map((coin) => outpoint(coin.txid, coin.vout)) } : {}),
    });
    return row;
  }

  /**
   * Coins for `outputs` besides the `fixed` inputs (carriers, which come first): none when those
   * pay everything; else the least deep, then smallest, single coin that pays the rest; else
   * largest first. Every coin is at depth below maxUnconfirmedDepth and the new transaction's
   * unconfirmed ancestors (an upper bound) stay within it.
   */
  private selectCoins(
    outputs: readonly TxOutput[],
    feeRate: bigint,
    extraBytes: number,
    fixed: readonly SelectedCoin[] = [],
  ): SelectedCoin[] {
    const fixedTotal = fixed.reduce((sum, coin) => sum + coin.valueKoinu, 0n);
    /** What `count` more coins must bring. */
    const shortfall = (count: number) =>
      minimumInputTotal(fixed.length + count, outputs, feeRate, extraBytes) - fixedTotal;
    if (fixed.length > 0 && shortfall(0) <= 0n) return [];
    const parentAncestors = new Map<string, number>();
    for (const coin of fixed) if (coin.depth > 0 && coin.createdBy) parentAncestors.set(coin.createdBy, coin.ancestors);
    /** The new transaction's unconfirmed ancestors with `coin` added (an upper bound). */
    const ancestorsWith = (coin: SelectedCoin) => {
      const known = [...parentAncestors.values()].reduce((sum, n) => sum + n, 0);
      return (
        1 + known + (coin.depth > 0 && coin.createdBy && !parentAncestors.has(coin.createdBy) ? coin.ancestors : 0)
      );
    };
    const candidates: SelectedCoin[] = this.store
      .selectable(this.maxDepth, this.now())
      .filter((row) => 1 + row.ancestors <= this.maxDepth)
      .map((row) => ({
        txid: row.txid,
        vout: row.vout,
        valueKoinu: row.valueKoinu,
        depth: row.depth,
        ancestors: row.ancestors,
        createdBy: row.createdBy,
      }));
    const available = candidates.reduce((sum, coin) => sum + coin.valueKoinu, 0n);
    const single = shortfall(1);
    let best: SelectedCoin | null = null;
    for (const coin of candidates) {
      if (coin.valueKoinu < single || ancestorsWith(coin) > this.maxDepth) continue;
      if (!best || coin.depth < best.depth || (coin.depth === best.depth && coin.valueKoinu < best.valueKoinu))
        best = coin;
    }
    if (best) return [best];
    const sorted = [...candidates].sort((a, b) =>
      a.valueKoinu === b.valueKoinu ? a.depth - b.depth : a.valueKoinu > b.valueKoinu ? -1 : 1,
    );
    const chosen: SelectedCoin[] = [];
    let total = 0n;
    for (const coin of sorted) {
      if (fixed.length + chosen.length >= MAX_INPUTS) break;
      if (coin.depth > 0 && coin.createdBy && !parentAncestors.has(coin.createdBy)) {
        if (ancestorsWith(coin) > this.maxDepth) continue;
        parentAncestors.set(coin.createdBy, coin.ancestors);
      }
      chosen.push(coin);
      total += coin.valueKoinu;
      if (total >= shortfall(chosen.length)) return chosen;
    }
    throw new InsufficientFundsError(shortfall(Math.max(1, chosen.length)), available);
  }

  /** Inside a write transaction: signs and stores a funded transaction, spends its coins, adds its own outputs. */
  private storeFunded(
    owner: string,
    label: string,
    coins: readonly SelectedCoin[],
    outputs: readonly TxOutput[],
    feeKoinu: bigint,
    changeVout: number | null,
    feeRate: bigint,
    extraBytes: number,
    replaces: string | null,
    rebroadcast: boolean,
  ): TxRow {
    // A carrier on the key's bare P2PK output is signed in that form (the only kind of input not P2PKH).
    const signed = coins.map((coin) => ({
      ...coin,
      p2pk: this.store.output(coin.txid, coin.vout)?.scriptHex === this.p2pkScriptHex,
    }));
    const tx = signWalletTransaction(signed, outputs, this.key);
    const txid = txidOf(tx);
    if (this.store.tx(txid)) throw new Error(`transaction ${txid} is stored already`);
    const row = this.store.insertTx({
      txid,
      owner,
      label,
      kind: "funded",
      hex: bytesToHex(serializeTransaction(tx)),
      feeKoinu,
      feeRateKoinuPerKb: feeRate,
      extraBytes,
      changeVout,
      replaces,
      rebroadcast,
      createdAt: this.now(),
    });
    coins.forEach((coin, vin) => {
      this.store.insertInput(txid, vin, coin.txid, coin.vout, coin.valueKoinu);
      this.store.spendOutput(coin.txid, coin.vout, txid);
    });
    this.insertOwnOutputs(row, coins);
    return row;
  }

  /** Vouts of a transaction that the wallet may spend before the index reports them. */
  private ownVouts(row: TxRow, tx: Transaction): number[] {
    if (row.kind !== "funded") return [];
    if (row.owner === WALLET_OWNER) {
      return tx.outputs.flatMap((output, vout) => (bytesToHex(output.script) === this.scriptHex ? [vout] : []));
    }
    return row.changeVout === null ? [] : [row.changeVout];
  }

  /** Inside a write transaction: the spendable outputs of a funded transaction, at its place in the unconfirmed chain. */
  private insertOwnOutputs(
    row: TxRow,
    coins: readonly { depth: number; ancestors: number; createdBy: string | null }[],
  ): void {
    const tx = decodeHex(row.hex);
    let depth = 0;
    const parents = new Map<string, number>();
    for (const coin of coins) {
      depth = Math.max(depth, coin.depth);
      if (coin.depth > 0) parents.set(coin.createdBy ?? `?${parents.size}`, coin.ancestors);
    }
    const ancestors = 1 + [...parents.values()].reduce((sum, n) => sum + n, 0);
    for (const vout of this.ownVouts(row, tx)) {
      if (this.store.output(row.txid, vout)) continue;
      this.store.insertOutput({
        txid: row.txid,
        vout,
        valueKoinu: tx.outputs[vout].value,
        scriptHex: bytesToHex(tx.outputs[vout].script),
        height: null,
        depth: depth + 1,
        ancestors,
        state: "available",
        spentBy: null,
        carries: null,
        createdBy: row.txid,
      });
    }
  }

  /** The outputs a funded transaction was asked for (its change left out). */
  private callerOutputs(row: TxRow): TxOutput[] {
    return decodeHex(row.hex).outputs.filter((_, vout) => vout !== row.changeVout);
  }

  /** The coins of a stored funded transaction, with their chain position where the wallet still knows it. */
  private coinsOf(row: TxRow): SelectedCoin[] {
    return this.store.inputs(row.txid).map((input) => {
      const output = this.store.output(input.prevTxid, input.prevVout);
      if (input.valueKoinu === null) throw new Error(`input ${input.vin} of ${row.txid} has no known value`);
      return {
        txid: input.prevTxid,
        vout: input.prevVout,
        valueKoinu: input.valueKoinu,
        depth: output?.depth ?? 0,
        ancestors: output?.ancestors ?? 0,
        createdBy: output?.createdBy ?? null,
      };
    });
  }

  // ==================================================================== tracking the owner's transactions

  track(owner: string, label: string, hex: string): WalletTx {
    checkName("owner", owner);
    checkName("label", label);
    const parsed = parseTransaction(hexToBytes(/^([0-9a-fA-F]{2})+$/.test(hex) ? hex : ""));
    if (!parsed.ok) throw new TypeError(`track: not a serialized transaction (${parsed.error.message})`);
    const tx = parsed.value;
    const row = this.write(() => {
      const existing = this.store.current(owner, label);
      if (existing && (existing.txid === tx.txid || existing.state !== "failed")) return existing;
      const stored = this.store.tx(tx.txid);
      if (stored)
        throw new WalletTxStateError(
          tx.txid,
          stored.state,
          `transaction ${tx.txid} is stored already for ${stored.owner}/${stored.label}`,
        );
      let known = true;
      let inputTotal = 0n;
      const values: (bigint | null)[] = [];
      for (const input of tx.inputs) {
        const value = this.knownOutputValue(input.prevTxid, input.vout);
        values.push(value);
        if (value === null) known = false;
        else inputTotal += value;
        const spender = this.store.liveSpender(input.prevTxid, input.vout);
        if (spender && spender !== tx.txid)
          throw new WalletConflictError(tx.txid, outpoint(input.prevTxid, input.vout), spender);
      }
      const outputTotal = tx.outputs.reduce((sum, output) => sum + output.value, 0n);
      const inserted = this.store.insertTx({
        txid: tx.txid,
        owner,
        label,
        kind: "tracked",
        hex: bytesToHex(hexToBytes(hex)),
        feeKoinu: known ? inputTotal - outputTotal : 0n,
        feeRateKoinuPerKb: null,
        extraBytes: 0,
        changeVout: null,
        replaces: existing ? existing.txid : null,
        rebroadcast: false,
        createdAt: this.now(),
      });
      tx.inputs.forEach((input, vin) => {
        this.store.insertInput(tx.txid, vin, input.prevTxid, input.vout, values[vin]);
        if (this.store.output(input.prevTxid, input.vout)) this.store.spendOutput(input.prevTxid, input.vout, tx.txid);
      });
      if (existing) this.store.updateTx(existing.txid, { state: "replaced", replaced_by: tx.txid });
      this.log("wallet_tracked", { owner, label, txid: tx.txid });
      return inserted;
    });
    return toWalletTx(row);
  }

  /** The value of an output of a stored transaction or a wallet output, if the wallet knows it. */
  private knownOutputValue(txid: string, vout: number): bigint | null {
    const output = this.store.output(txid, vout);
    if (output) return output.valueKoinu;
    const stored = this.store.tx(txid);
    if (!stored) return null;
    const outputs = decodeHex(stored.hex).outputs;
    return vout < outputs.length ? outputs[vout].value : null;
  }

  /**
   * Forgets a transaction that was never broadcast: its inputs become spendable again, its change
   * disappears. Refused when it was (or may have been) sent, or something was built on it. A
   * failed transaction is left as it is (what it spent was given back when it failed).
   */
  abandon(owner: string, label: string): void {
    this.write(() => {
      const row = this.store.current(owner, label);
      if (!row) throw new WalletTxStateError(null, null, `no transaction ${owner}/${label}`);
      if (row.state === "failed") return;
      if (row.state !== "signed")
        throw new WalletTxStateError(
          row.txid,
          row.state,
          `${owner}/${label} (${row.txid}) was broadcast; it can no longer be abandoned`,
        );
      const versions = this.store.versions(owner, label);
      const sent = versions.find(
        (version) => version.broadcastAt !== null || version.rebroadcast || version.errorKind === "unavailable",
      );
      if (sent)
        throw new WalletTxStateError(
          row.txid,
          row.state,
          `${owner}/${label} may have reached the node (${sent.txid}); it can no longer be abandoned`,
        );
      const child = this.store.liveChildren(row.txid)[0];
      if (child)
        throw new WalletTxStateError(
          row.txid,
          row.state,
          `${child.owner}/${child.label} (${child.txid}) spends an output of ${owner}/${label}; abandon that first`,
        );
      for (const output of this.store.outputsCreatedBy(row.txid)) this.store.deleteOutput(output.txid, output.vout);
      for (const input of this.store.outputsSpentBy(row.txid)) this.release(input, null, false);
      this.store.deleteTx(
        owner,
        label,
        versions.map((version) => version.txid),
      );
      this.log("wallet_abandoned", { owner, label, txid: row.txid });
    });
  }

  // ==================================================================== broadcasting

  /**
   * Sends a signed transaction, its unbroadcast wallet parents first. Already known to the node is
   * success. A conflict marks it (and its descendants) failed, emits onFailed and throws the
   * BroadcastError; any other refusal is thrown with the attempt counted. A transaction already
   * broadcast, confirmed or failed is returned as it is; a replaced one is followed to the current version.
   */
  async broadcast(txid: string): Promise<WalletTx> {
    let row = this.store.tx(txid);
    if (!row) throw new WalletTxStateError(txid, null, `unknown transaction ${txid}`);
    if (row.state === "replaced") row = this.store.current(row.owner, row.label) ?? row;
    if (row.state === "signed") await this.broadcastSigned(row);
    return toWalletTx(this.store.tx(row.txid)!);
  }

  private async broadcastSigned(row: TxRow): Promise<void> {
    for (const parent of this.store.parents(row.txid)) {
      if (parent.state === "signed") await this.broadcastSigned(parent);
    }
    const fresh = this.store.tx(row.txid);
    if (!fresh) throw new WalletTxStateError(row.txid, null, `transaction ${row.txid} was abandoned`);
    if (fresh.state === "failed")
      throw new BroadcastError("conflict", `transaction ${fresh.txid} can never confirm: ${fresh.error}`);
    if (fresh.state !== "signed") return;
    try {
      await this.sendWithParentsRetry(fresh);
    } catch (error) {
      const failure = asBroadcastError(error);
      this.write(() => this.recordFailure(fresh.txid, failure));
      if (await this.resolveFailure(fresh, failure)) return;
      throw this.store.tx(fresh.txid)?.state === "failed" && failure.reason === "missing_inputs"
        ? new BroadcastError(
            "conflict",
            `${failure.message} (an input was spent by another transaction)`,
            failure.nodeCode,
          )
        : failure;
    }
    this.write(() => this.markSent(fresh.txid));
    this.log("wallet_broadcast", { owner: fresh.owner, label: fresh.label, txid: fresh.txid });
  }

  /** Sends `row`; on missing inputs, sends its broadcast wallet parents again (the node may have dropped them) and retries once. */
  private async sendWithParentsRetry(row: TxRow): Promise<void> {
    try {
      await this.chain.broadcast(row.hex);
    } catch (error) {
      const failure = asBroadcastError(error);
      if (failure.reason !== "missing_inputs") throw failure;
      const parents = this.store
        .parents(row.txid)
        .filter((parent) => parent.state === "broadcast" || parent.state === "confirmed");
      if (parents.length === 0) throw failure;
      for (const parent of parents) await this.chain.broadcast(parent.hex).catch(() => undefined);
      await this.chain.broadcast(row.hex);
    }
  }

  /**
   * After a refused first broadcast: true when the transaction is in the node after all; a
   * conflict (or missing inputs that the index shows spent) fails it, or brings back an earlier
   * version of it that got in.
   */
  private async resolveFailure(row: TxRow, failure: BroadcastError): Promise<boolean> {
    if (failure.reason !== "conflict" && failure.reason !== "missing_inputs") return false;
    const status = await this.chain.txStatus(row.txid);
    if (status.state === "confirmed") {
      this.write(() => this.markConfirmed(row, status));
      return true;
    }
    if (status.state === "mempool") {
      this.write(() => this.markSent(row.txid));
      return true;
    }
    const unspent = await this.refreshOutputs();
    const spent = this.inputSpentElsewhere(row, unspent);
    if (failure.reason === "conflict" || spent)
      await this.conflicted(row, spent ? `input ${spent} was spent by another transaction` : failure.message, unspent);
    return false;
  }

  /** Pulls the index's outputs of the wallet, reconciles, returns them as a set of outpoints. */
  private async refreshOutputs(): Promise<Set<string>> {
    const snapshot = await this.chain.confirmedUtxos(this.address);
    const unspent = new Set(snapshot.map((utxo) => outpoint(utxo.txid, utxo.vout)));
    this.write(() => {
      this.reconcile(snapshot);
      this.forgetMissing(unspent);
    });
    return unspent;
  }

  /** An input of `row` that the index reported and no longer lists as unspent. */
  private inputSpentElsewhere(row: TxRow, unspent: Set<string>): string | null {
    for (const input of this.store.inputs(row.txid)) {
      const output = this.store.output(input.prevTxid, input.prevVout);
      const id = outpoint(input.prevTxid, input.prevVout);
      if (output && output.height !== null && output.spentBy === row.txid && !unspent.has(id)) return id;
    }
    return null;
  }

  /** `row` can never confirm as it is: an earlier version of its label got in, or it fails with its descendants. */
  private async conflicted(row: TxRow, reason: string, unspent: Set<string>): Promise<void> {
    for (let previous = row.replaces; previous !== null;) {
      const version = this.store.tx(previous);
      if (!version) break;
      const status = await this.chain.txStatus(version.txid);
      if (status.state !== "unknown") {
        this.write(() => this.revive(version, status, unspent));
        return;
      }
      previous = version.replaces;
    }
    this.write(() => this.failTree(row, reason, unspent, true));
    this.log("wallet_tx_failed", { owner: row.owner, label: row.label, txid: row.txid, reason });
  }

  // ==================================================================== sync

  /**
   * Pulls the wallet's confirmed outputs from the index, then follows every broadcast transaction:
   * confirmations, back to the mempool after a reorg, or dropped (sent again, replaced for its
   * fee, or failed on a conflict). Concurrent calls share one run.
   */
  sync(): Promise<void> {
    if (!this.syncing) {
      this.syncing = this.runSync().finally(() => {
        this.syncing = null;
      });
    }
    return this.syncing;
  }

  private async runSync(): Promise<void> {
    // The outputs first, the statuses after: an input missing from this snapshot while its
    // spender is unknown afterwards was spent by another transaction.
    const snapshot = await this.chain.confirmedUtxos(this.address);
    const unspent = new Set(snapshot.map((utxo) => outpoint(utxo.txid, utxo.vout)));
    this.write(() => this.reconcile(snapshot));
    const followed = this.store.followed();
    const watched = this.store.watchedReplaced();
    const statuses = await this.statusesOf([...watched, ...followed].map((row) => row.txid));
    for (const row of watched) {
      const status = statuses.get(row.txid)!;
      if (status.state !== "unknown") this.write(() => this.revive(row, status, unspent));
    }
    const dropped = new Set<string>();
    this.write(() => {
      for (const row of followed) {
        const fresh = this.store.tx(row.txid);
        if (!fresh || !isFollowed(fresh)) continue;
        const status = statuses.get(row.txid)!;
        if (status.state === "confirmed") this.markConfirmed(fresh, status);
        else if (status.state === "mempool") this.markInMempool(fresh);
        else dropped.add(fresh.txid);
      }
      // After the statuses: change of a transaction that a reorg took back to the mempool stays.
      this.forgetMissing(unspent);
    });
    await this.rebroadcastDropped(dropped, unspent);
  }

  private async statusesOf(txids: string[]): Promise<Map<string, ChainTxStatus>> {
    const out = new Map<string, ChainTxStatus>();
    let next = 0;
    const worker = async () => {
      while (next < txids.length) {
        const txid = txids[next++];
        out.set(txid, await this.chain.txStatus(txid));
      }
    };
    await Promise.all(Array.from({ length: Math.min(STATUS_CONCURRENCY, txids.length) }, worker));
    return out;
  }

  /** Inside a write transaction: the index's view of the wallet's confirmed outputs. */
  private reconcile(snapshot: readonly ChainUtxo[]): void {
    for (const utxo of snapshot) {
      // The one spendability rule (spendable.ts): another script (a bare pay-to-pubkey output is
      // listed under the same address) is never the wallet's; an immature coinbase waits for a
      // later sync; an inscription carrier is kept, locked.
      const reason = unspendableReason(
        {
          scriptHex: utxo.scriptHex,
          inscriptionCount: utxo.inscriptionIds.length + utxo.drc20.length,
          coinbase: utxo.coinbase ?? false,
          confirmations: utxo.confirmations ?? Number.MAX_SAFE_INTEGER,
          height: utxo.height,
        },
        this.scriptHex,
        this.network,
      );
      // A carrier on a bare pay-to-pubkey output of the wallet's own key is taken too, locked: the
      // index credits it to the wallet's address (a stranger's DRC-20 transfer there moves its
      // balance), so the wallet must be able to move it (sendCarrier signs it in the P2PK form). Its
      // koinu are never spendable DOGE.
      const ownP2pkCarrier =
        reason === "NOT_OWN_SCRIPT" &&
        utxo.scriptHex.toLowerCase() === this.p2pkScriptHex &&
        utxo.inscriptionIds.length + utxo.drc20.length > 0;
      if ((reason === "NOT_OWN_SCRIPT" && !ownP2pkCarrier) || reason === "IMMATURE_COINBASE") continue;
      const carrier = reason === "CARRIES_INSCRIPTION" || ownP2pkCarrier;
      const carries = carrier ? JSON.stringify({ inscriptionIds: utxo.inscriptionIds, drc20: utxo.drc20 }) : null;
      const row = this.store.output(utxo.txid, utxo.vout);
      if (row) {
        this.store.confirmOutput(
          utxo.txid,
          utxo.vout,
          utxo.height,
          carries,
          row.state === "spent" ? "spent" : carrier ? "locked" : "available",
        );
        continue;
      }
      const spender = this.store.liveSpender(utxo.txid, utxo.vout);
      this.store.insertOutput({
        txid: utxo.txid,
        vout: utxo.vout,
        valueKoinu: utxo.valueKoinu,
        scriptHex: utxo.scriptHex.toLowerCase(),
        height: utxo.height,
        depth: 0,
        ancestors: 0,
        state: spender ? "spent" : carrier ? "locked" : "available",
        spentBy: spender,
        carries,
        createdBy: null,
      });
      if (carrier)
        this.log("wallet_output_locked", {
          txid: utxo.txid,
          vout: utxo.vout,
          inscriptions: utxo.inscriptionIds,
          drc20: utxo.drc20,
        });
    }
  }

  /** Inside a write transaction: unspent wallet outputs the index reported before and no longer lists. */
  private forgetMissing(unspent: Set<string>): void {
    for (const row of this.store.unspentOutputs()) {
      if (row.height === null || unspent.has(outpoint(row.txid, row.vout))) continue;
      // Gone from the index: spent by someone else, or its block was reorganised away. Change
      // of a wallet transaction that is back in the mempool stays (unconfirmed); anything else
      // goes, and comes back when the index lists it again.
      const creator = row.createdBy ? this.store.tx(row.createdBy) : null;
      if (creator && (creator.state === "signed" || creator.state === "broadcast"))
        this.store.unconfirmOutput(row.txid, row.vout);
      else this.store.deleteOutput(row.txid, row.vout);
    }
  }

  /** Dropped transactions (and replacements the wallet sends itself) in creation order: parents before children. */
  private async rebroadcastDropped(dropped: Set<string>, unspent: Set<string>): Promise<void> {
    const attempted = new Set<string>();
    for (;;) {
      const next = this.store
        .followed()
        .find(
          (row) => !attempted.has(row.txid) && (dropped.has(row.txid) || (row.state === "signed" && row.rebroadcast)),
        );
      if (!next) return;
      attempted.add(next.txid);
      await this.rebroadcast(next, unspent);
    }
  }

  private async rebroadcast(row: TxRow, unspent: Set<string>): Promise<void> {
    const spent = this.inputSpentElsewhere(row, unspent);
    if (spent) {
      await this.conflicted(row, `input ${spent} was spent by another transaction`, unspent);
      return;
    }
    for (const parent of this.store.parents(row.txid)) {
      if (parent.state !== "signed") continue;
      try {
        await this.broadcastSigned(parent);
      } catch (error) {
        if (asBroadcastError(error).reason === "unavailable") throw error;
        this.log("wallet_rebroadcast_parent_refused", {
          txid: row.txid,
          parent: parent.txid,
          err: (error as Error).message,
        });
        return;
      }
    }
    const fresh = this.store.tx(row.txid);
    if (!fresh || !isFollowed(fresh)) return;
    try {
      await this.chain.broadcast(fresh.hex);
    } catch (error) {
      const failure = asBroadcastError(error);
      this.write(() => this.recordFailure(fresh.txid, failure));
      this.log("wallet_rebroadcast_refused", {
        owner: fresh.owner,
        label: fresh.label,
        txid: fresh.txid,
        kind: failure.reason,
        err: failure.message,
      });
      if (failure.reason === "unavailable") throw failure;
      if (failure.reason === "conflict") await this.conflicted(fresh, failure.message, unspent);
      else if (failure.reason === "insufficient_fee" && fresh.kind === "funded")
        this.write(() => this.replaceForFee(fresh, unspent));
      return;
    }
    this.write(() => this.markSent(fresh.txid));
    this.log("wallet_rebroadcast", { owner: fresh.owner, label: fresh.label, txid: fresh.txid });
  }

  /**
   * Inside a write transaction: rebuilds a funded transaction on the same inputs at twice its fee
   * rate (more if that does not raise the fee), up to MAX_FEE_RATE_FACTOR times the wallet's rate.
   * Fails it when its inputs cannot pay more.
   */
  private replaceForFee(row: TxRow, unspent: Set<string>): void {
    const current = this.store.tx(row.txid);
    if (!current || current.kind !== "funded" || !isFollowed(current)) return;
    const coins = this.coinsOf(current);
    const total = coins.reduce((sum, coin) => sum + coin.valueKoinu, 0n);
    const outputs = this.callerOutputs(current);
    const ceiling = this.feeRate * MAX_FEE_RATE_FACTOR;
    let rate = (current.feeRateKoinuPerKb ?? this.feeRate) * 2n;
    for (; rate <= ceiling; rate *= 2n) {
      const plan = planOutputs(coins.length, total, outputs, this.key.script, rate, current.extraBytes);
      if (!plan) {
        this.failTree(
          current,
          `dropped from the mempool and its inputs cannot pay a fee rate of ${rate} koinu/kB`,
          unspent,
          false,
        );
        return;
      }
      if (plan.feeKoinu <= current.feeKoinu) continue;
      const replacement = this.storeFunded(
        current.owner,
        current.label,
        coins,
        plan.outputs,
        plan.feeKoinu,
        plan.changeVout,
        rate,
        current.extraBytes,
        current.txid,
        true,
      );
      this.supersede(current, replacement, unspent, false);
      this.log("wallet_replaced", {
        owner: current.owner,
        label: current.label,
        txid: current.txid,
        replacement: replacement.txid,
        feeRateKoinuPerKb: rate.toString(),
      });
      return;
    }
    this.store.updateTx(current.txid, {
      error: `refused for its fee; the fee rate cap of ${ceiling} koinu/kB is reached`,
      error_kind: "insufficient_fee",
    });
  }

  /**
   * Inside a write transaction: `neu` takes the place of `old` for their owner and label. Inputs
   * of `old` that `neu` does not spend are given back, outputs of `old` disappear, and the live
   * transactions built on `old` are rebuilt on `neu` (funded ones) or fail (the owner's, who is
   * told by onReplaced and rebuilds them).
   */
  private supersede(old: TxRow, neu: TxRow, unspent: Set<string> | null, hold: boolean): void {
    this.store.updateTx(old.txid, { state: "replaced", replaced_by: neu.txid, rebroadcast: 0 });
    this.store.setLabel(old.owner, old.label, neu.txid);
    this.pendingEvents.push({ kind: "replaced", previous: old.txid, replacement: neu.txid });
    const neuInputs = this.store.inputs(neu.txid);
    const neuSpends = new Set(neuInputs.map((input) => outpoint(input.prevTxid, input.prevVout)));
    for (const input of this.store.outputsSpentBy(old.txid)) {
      if (neuSpends.has(outpoint(input.txid, input.vout))) this.store.spendOutput(input.txid, input.vout, neu.txid);
      else this.release(input, unspent, hold);
    }
    for (const input of neuInputs) {
      const output = this.store.output(input.prevTxid, input.prevVout);
      if (output && output.state !== "spent") this.store.spendOutput(input.prevTxid, input.prevVout, neu.txid);
    }
    const children = this.store.liveChildren(old.txid);
    for (const output of this.store.outputsCreatedBy(old.txid)) this.store.deleteOutput(output.txid, output.vout);
    if (neu.kind === "funded") this.insertOwnOutputs(neu, this.coinsOf(neu));
    for (const child of children) this.rebuildOn(child, old, neu, unspent, hold);
  }

  /** Inside a write transaction: `child` spent outputs of `oldParent`; rebuild it on `newParent` or fail it. */
  private rebuildOn(
    child: TxRow,
    oldParent: TxRow,
    newParent: TxRow,
    unspent: Set<string> | null,
    hold: boolean,
  ): void {
    const fresh = this.store.tx(child.txid);
    if (!isLive(fresh)) return;
    const fail = (reason: string) => this.failTree(fresh, reason, unspent, hold);
    if (fresh.kind !== "funded") {
      fail(`it spends an output of ${oldParent.txid}, which was replaced by ${newParent.txid}`);
      return;
    }
    const coins: SelectedCoin[] = [];
    for (const input of this.store.inputs(fresh.txid)) {
      if (input.prevTxid === oldParent.txid) {
        const mapped = this.store.output(newParent.txid, input.prevVout);
        if (!mapped || (mapped.state === "spent" && mapped.spentBy !== fresh.txid)) {
          fail(`output ${input.prevVout} of ${oldParent.txid} has no counterpart in its replacement ${newParent.txid}`);
          return;
        }
        coins.push({
          txid: newParent.txid,
          vout: input.prevVout,
          valueKoinu: mapped.valueKoinu,
          depth: mapped.depth,
          ancestors: mapped.ancestors,
          createdBy: mapped.createdBy,
        });
      } else {
        const output = this.store.output(input.prevTxid, input.prevVout);
        coins.push({
          txid: input.prevTxid,
          vout: input.prevVout,
          valueKoinu: input.valueKoinu!,
          depth: output?.depth ?? 0,
          ancestors: output?.ancestors ?? 0,
          createdBy: output?.createdBy ?? null,
        });
      }
    }
    // A parent rebuilt for its fee takes its children to the same rate: the node wants it of them too.
    const childRate = fresh.feeRateKoinuPerKb ?? this.feeRate;
    const parentRate = newParent.feeRateKoinuPerKb ?? 0n;
    const rate = parentRate > childRate ? parentRate : childRate;
    const total = coins.reduce((sum, coin) => sum + coin.valueKoinu, 0n);
    const plan = planOutputs(coins.length, total, this.callerOutputs(fresh), this.key.script, rate, fresh.extraBytes);
    if (!plan) {
      fail(`its inputs no longer pay its outputs after ${oldParent.txid} was replaced by ${newParent.txid}`);
      return;
    }
    const rebroadcast = fresh.state !== "signed" || fresh.rebroadcast;
    const replacement = this.storeFunded(
      fresh.owner,
      fresh.label,
      coins,
      plan.outputs,
      plan.feeKoinu,
      plan.changeVout,
      rate,
      fresh.extraBytes,
      fresh.txid,
      rebroadcast,
    );
    this.supersede(fresh, replacement, unspent, hold);
  }

  /** Inside a write transaction: a replaced version got into the mempool or a block after all; it becomes current again. */
  private revive(row: TxRow, status: ChainTxStatus, unspent: Set<string>): void {
    const version = this.store.tx(row.txid);
    if (!version || version.state !== "replaced") return;
    const current = this.store.current(version.owner, version.label);
    if (!current || current.txid === version.txid || current.state === "confirmed" || !isLive(current)) return;
    const confirmed = status.state === "confirmed";
    this.store.updateTx(version.txid, {
      state: confirmed ? "confirmed" : "broadcast",
      replaced_by: null,
      rebroadcast: 0,
      error: null,
      error_kind: null,
      height: confirmed ? status.height : null,
      confirmations: confirmed ? status.confirmations : 0,
      final: confirmed && status.confirmations >= this.trackingDepth,
    });
    this.supersede(current, this.store.tx(version.txid)!, unspent, false);
    if (confirmed) this.pendingEvents.push({ kind: "confirmed", txid: version.txid });
    this.log("wallet_revived", { owner: version.owner, label: version.label, txid: version.txid, over: current.txid });
  }

  /** Inside a write transaction: `row` can never confirm; nor can anything built on it. */
  private failTree(row: TxRow, reason: string, unspent: Set<string> | null, hold: boolean): void {
    const fresh = this.store.tx(row.txid);
    if (!isLive(fresh)) return;
    this.store.updateTx(fresh.txid, { state: "failed", error: reason, rebroadcast: 0, final: 0 });
    this.pendingEvents.push({ kind: "failed", txid: fresh.txid });
    const children = this.store.liveChildren(fresh.txid);
    for (const output of this.store.outputsCreatedBy(fresh.txid)) this.store.deleteOutput(output.txid, output.vout);
    for (const input of this.store.outputsSpentBy(fresh.txid)) this.release(input, unspent, hold);
    for (const child of children)
      this.failTree(child, `it spends an output of ${fresh.txid}, which can never confirm`, unspent, hold);
  }

  /**
   * Inside a write transaction: a spent wallet output whose spender is gone. Unconfirmed change
   * comes back while its creator is live; an output the index reported comes back when the index
   * still lists it (or, without a snapshot, until the next sync says otherwise); else it is gone.
   */
  private release(output: OutputRow, unspent: Set<string> | null, hold: boolean): void {
    if (output.height === null) {
      if (!output.createdBy || !isLive(this.store.tx(output.createdBy))) {
        this.store.deleteOutput(output.txid, output.vout);
        return;
      }
    } else if (unspent && !unspent.has(outpoint(output.txid, output.vout))) {
      this.store.deleteOutput(output.txid, output.vout);
      return;
    }
    this.store.releaseOutput(
      output.txid,
      output.vout,
      output.carries ? "locked" : "available",
      hold ? this.now() + CONFLICT_HOLD_MS : null,
    );
  }

  // ==================================================================== state changes

  private recordFailure(txid: string, failure: BroadcastError): void {
    const row = this.store.tx(txid);
    if (!row) return;
    this.store.updateTx(txid, { attempts: row.attempts + 1, error: failure.message, error_kind: failure.reason });
  }

  /** The node has it in its mempool. */
  private markSent(txid: string): void {
    const row = this.store.tx(txid);
    if (!isLive(row)) return;
    this.store.updateTx(txid, {
      state: "broadcast",
      broadcast_at: row.broadcastAt ?? this.now(),
      attempts: row.attempts + 1,
      error: null,
      error_kind: null,
      rebroadcast: 0,
      height: null,
      confirmations: 0,
      final: 0,
    });
  }

  private markInMempool(row: TxRow): void {
    if (row.state === "signed") {
      this.store.updateTx(row.txid, {
        state: "broadcast",
        broadcast_at: row.broadcastAt ?? this.now(),
        rebroadcast: 0,
      });
    } else if (row.state === "confirmed") {
      this.store.updateTx(row.txid, { state: "broadcast", height: null, confirmations: 0 });
      this.log("wallet_tx_unconfirmed", { owner: row.owner, label: row.label, txid: row.txid });
    }
  }

  private markConfirmed(row: TxRow, status: { height: number; confirmations: number }): void {
    const fresh = this.store.tx(row.txid);
    if (!isLive(fresh) || fresh.final) return;
    const final = status.confirmations >= this.trackingDepth;
    this.store.updateTx(fresh.txid, {
      state: "confirmed",
      height: status.height,
      confirmations: status.confirmations,
      final,
      rebroadcast: 0,
      broadcast_at: fresh.broadcastAt ?? this.now(),
      error: null,
      error_kind: null,
    });
    const grew =
      status.confirmations > fresh.confirmations || fresh.state !== "confirmed" || fresh.height !== status.height;
    if (grew && fresh.confirmations < this.trackingDepth)
      this.pendingEvents.push({ kind: "confirmed", txid: fresh.txid });
    // Final: what it spent is spent for good.
    if (final) this.store.deleteOutputsSpentBy(fresh.txid);
  }

  /** Runs `fn` in one IMMEDIATE transaction, then reports the events it queued. */
  private write<T>(fn: () => T): T {
    const before = this.pendingEvents.length;
    let result: T;
    try {
      result = this.store.transaction(fn);
    } catch (error) {
      this.pendingEvents.length = before;
      throw error;
    }
    this.flushEvents();
    return result;
  }

  private flushEvents(): void {
    const events = this.pendingEvents;
    this.pendingEvents = [];
    for (const event of events) {
      try {
        if (event.kind === "confirmed") {
          const row = this.store.tx(event.txid);
          if (row) this.events.onConfirmed?.(toWalletTx(row));
        } else if (event.kind === "failed") {
          const row = this.store.tx(event.txid);
          if (row) this.events.onFailed?.(toWalletTx(row));
        } else {
          const previous = this.store.tx(event.previous);
          const replacement = this.store.tx(event.replacement);
          if (previous && replacement) this.events.onReplaced?.(toWalletTx(previous), toWalletTx(replacement));
        }
      } catch (error) {
        this.log("wallet_event_handler_failed", {
          event: event.kind,
          err: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }
}

function isFollowed(row: TxRow): boolean {
  return (
    !row.final &&
    (row.state === "broadcast" || row.state === "confirmed" || (row.state === "signed" && row.rebroadcast))
  );
}

function fundedView(row: TxRow): FundedTx {
  return { txid: row.txid, hex: row.hex, tx: decodeHex(row.hex), feeKoinu: row.feeKoinu, changeVout: row.changeVout };
}

function checkName(what: string, value: string): void {
  if (typeof value !== "string" || value.length === 0 || value.length > 200)
    throw new TypeError(`${what} must be a non-empty string of at most 200 characters`);
}

/** Outputs below the hard dust limit are refused (OP_RETURN with value 0 is fine), as are values out of range. */
function checkOutputs(outputs: readonly TxOutput[]): void {
  if (!Array.isArray(outputs) || outputs.length === 0) throw new TypeError("fund needs at least one output");
  let total = 0n;
  outputs.forEach((output, index) => {
    if (typeof output.value !== "bigint") throw new TypeError(`output ${index}: value must be a bigint (koinu)`);
    if (!(output.script instanceof Uint8Array)) throw new TypeError(`output ${index}: script must be bytes`);
    if (output.value < 0n || output.value > MAX_MONEY)
      throw new InvalidOutputError(index, output.value, `output ${index}: ${output.value} koinu is out of range`);
    total += output.value;
    if (isUnspendable(output.script) && output.value === 0n) return;
    if (output.value < HARD_DUST_LIMIT) {
      throw new InvalidOutputError(
        index,
        output.value,
        `output ${index}: ${output.value} koinu is below the hard dust limit of ${HARD_DUST_LIMIT} koinu`,
      );
    }
  });
  if (total > MAX_MONEY)
    throw new InvalidOutputError(-1, total, `outputs total ${total} koinu, more than all the money there is`);
}

/** Well-formed, distinct outpoints, at most MAX_INPUTS of them. */
function checkCarrierInputs(inputs: readonly Outpoint[]): Outpoint[] {
  if (!Array.isArray(inputs)) throw new TypeError("carrierInputs must be an array of { txid, vout }");
  if (inputs.length > MAX_INPUTS) throw new RangeError(`at most ${MAX_INPUTS} carrier inputs, got ${inputs.length}`);
  const seen = new Set<string>();
  return inputs.map((input, index) => {
    if (
      typeof input?.txid !== "string" ||
      !/^[0-9a-f]{64}$/i.test(input.txid) ||
      !Number.isSafeInteger(input.vout) ||
      input.vout < 0
    ) {
      throw new TypeError(`carrier input ${index}: expected { txid: 64 hex digits, vout: a non-negative integer }`);
    }
    const normalized = { txid: input.txid.toLowerCase(), vout: input.vout };
    const id = outpoint(normalized.txid, normalized.vout);
    if (seen.has(id)) throw new TypeError(`carrier input ${index}: ${id} is named twice`);
    seen.add(id);
    return normalized;
  });
}

/** Output i pays exactly carrier i's value, so the carrier's koinu (and all it carries) land on it whole. */
function checkCarrierOutputs(carriers: readonly Coin[], outputs: readonly TxOutput[]): void {
  if (outputs.length < carriers.length)
    throw new TypeError(`${carriers.length} carrier inputs need at least as many outputs, got ${outputs.length}`);
  carriers.forEach((carrier, index) => {
    const output = outputs[index];
    if (output.value !== carrier.valueKoinu) {
      throw new InvalidOutputError(
        index,
        output.value,
        `output ${index} must pay exactly the ${carrier.valueKoinu} koinu of carrier ${outpoint(carrier.txid, carrier.vout)}, got ${output.value}`,
      );
    }
    if (isUnspendable(output.script))
      throw new InvalidOutputError(
        index,
        output.value,
        `output ${index} takes carrier ${outpoint(carrier.txid, carrier.vout)} and must not be unspendable`,
      );
  });
}
