/**
 * The explorer's view of the node's mempool: what is broadcast but not yet in a block, kept in
 * memory beside the index. The index stays the only source of confirmed data; this view only adds
 * what the index cannot know yet (pending transactions, unconfirmed outputs, outputs that a pending
 * transaction spends).
 *
 * `refresh()` asks the node for its mempool (`getrawmempool`), drops what left it (mined, evicted,
 * replaced through a reorg), decodes what arrived (`getrawtransaction <txid> 0`; the same calls on
 * the devnet and on Dogecoin Core 1.14, which finds mempool transactions without -txindex) and
 * resolves each input's previous output from another pending transaction or from the index.
 * `runOnce()` is the daemon's pass (runEvery, every second; the loop owns the only catch).
 *
 * Bounded: at most `maxTransactions` pending transactions are kept (default
 * DEFAULT_MAX_MEMPOOL_TRANSACTIONS); past that, new arrivals are left out (counted in `leftOut`)
 * until room is made, so a flood of the node's mempool cannot grow the explorer's memory.
 */
import { DogecoinRpcError, RPC_INVALID_ADDRESS_OR_KEY } from "../../chain/errors";
import {
  DecodedTransaction,
  DogeNetwork,
  bytesToHex,
  isCoinbase,
  outputScriptToAddress,
  parseTransactionHex,
} from "../../doge";
import { Refusal } from "../../errors";

/** Pending transactions kept at most (about 2 KB of memory each for ordinary payments). */
export const DEFAULT_MAX_MEMPOOL_TRANSACTIONS = 20_000;
/** How often the explorer daemon refreshes the view. */
export const DEFAULT_MEMPOOL_REFRESH_MS = 1_000;
/** A view the node has not refreshed for this long is emptied rather than shown stale. */
export const DEFAULT_MEMPOOL_STALE_MS = 30_000;

/** The two node calls the view makes. DogecoinRpcClient fits. */
export interface MempoolNode {
  getRawMempool(): Promise<string[]>;
  getRawTransactionHex(txid: string): Promise<string>;
}

/** The two index reads the view makes. IndexQueries fits. */
export interface MempoolIndex {
  /** An output still unspent in the index. */
  unspentOutput(txid: string, vout: number): { value: bigint; script: Uint8Array } | null;
  /** Whether the index already holds the transaction (mined and indexed). */
  hasTx(txid: string): boolean;
}

export interface MempoolInput {
  vin: number;
  prevTxid: string;
  prevVout: number;
  /** Null until the previous output is found (in the index or another pending transaction). */
  valueKoinu: bigint | null;
  address: string | null;
}

export interface MempoolOutput {
  vout: number;
  valueKoinu: bigint;
  scriptHex: string;
  address: string | null;
}

export interface MempoolTx {
  txid: string;
  size: number;
  /** When this view first saw it (ms since the epoch). */
  seenAt: number;
  inputs: MempoolInput[];
  outputs: MempoolOutput[];
  /** Null while an input's previous output is unknown. */
  feeKoinu: bigint | null;
}

/** A pending history item of an address, as the index's history items (queries.history). */
export interface PendingHistoryItem {
  txid: string;
  direction: "in" | "out" | "self";
  counterparty: string | null;
  amountKoinu: bigint;
}

/** An output of a pending transaction paying the address. */
export interface PendingOutput {
  txid: string;
  vout: number;
  valueKoinu: bigint;
  scriptHex: string;
  /** The pending transaction spending it, if any. */
  spentBy: { txid: string; vin: number } | null;
}

export interface RefreshResult {
  added: number;
  removed: number;
  size: number;
  /** Transactions in the node's mempool this view does not keep (past maxTransactions). */
  leftOut: number;
}

/** What the explorer's routes read from the view. */
export type MempoolReader = Pick<
  MempoolView,
  "tx" | "rawTx" | "spentBy" | "unconfirmedKoinu" | "history" | "outputs" | "addressStats"
>;

interface Entry extends MempoolTx {
  /** The transaction as the node gave it (the Esplora subset writes scriptSigs, sequences, version). */
  raw: DecodedTransaction;
  seq: number;
  /** Addresses it pays or spends from (resolved inputs only). */
  addresses: Set<string>;
  unresolved: number;
}

const FETCH_CONCURRENCY = 8;
const NO_ENTRIES: Entry[] = [];

export class MempoolView {
  private readonly txs = new Map<string, Entry>();
  private readonly spends = new Map<string, { txid: string; vin: number }>();
  private readonly byAddress = new Map<string, Set<string>>();
  private readonly node: MempoolNode;
  private readonly index: MempoolIndex;
  private readonly network: DogeNetwork;
  private readonly maxTransactions: number;
  private readonly clock: () => number;
  private readonly staleMs: number;
  private seq = 0;
  private lastRefreshAt = 0;
  /** Transactions of the node's mempool left out at the last refresh (past maxTransactions). */
  leftOut = 0;

  constructor(options: {
    node: MempoolNode;
    index: MempoolIndex;
    network: DogeNetwork;
    maxTransactions?: number;
    clock?: () => number;
    staleMs?: number;
  }) {
    this.staleMs = options.staleMs ?? DEFAULT_MEMPOOL_STALE_MS;
    this.node = options.node;
    this.index = options.index;
    this.network = options.network;
    this.maxTransactions = options.maxTransactions ?? DEFAULT_MAX_MEMPOOL_TRANSACTIONS;
    this.clock = options.clock ?? Date.now;
  }

  get size(): number {
    return this.txs.size;
  }

  /** One pass: drop what left the node's mempool, add what arrived, resolve what can be. */
  async refresh(): Promise<RefreshResult> {
    const listed = await this.node.getRawMempool();
    const present = new Set(listed);
    let removed = 0;
    for (const txid of [...this.txs.keys()]) {
      if (!present.has(txid)) {
        this.remove(txid);
        removed++;
      }
    }
    const arrived = listed.filter((txid) => !this.txs.has(txid));
    const wanted = arrived.slice(0, Math.max(0, this.maxTransactions - this.txs.size));
    const fetched: (string | null)[] = [];
    for (let i = 0; i < wanted.length; i += FETCH_CONCURRENCY) {
      fetched.push(...(await Promise.all(wanted.slice(i, i + FETCH_CONCURRENCY).map((txid) => this.fetchHex(txid)))));
    }
    let added = 0;
    const now = this.clock();
    // Every arrival first, then resolution: a parent that arrived in the same pass is found.
    fetched.forEach((hex) => {
      if (hex === null) return;
      const parsed = parseTransactionHex(hex);
      if (!parsed.ok || isCoinbase(parsed.value)) return;
      this.add(parsed.value, now);
      added++;
    });
    for (const entry of this.txs.values()) if (entry.unresolved > 0) this.resolve(entry);
    this.leftOut = arrived.length - wanted.length;
    this.lastRefreshAt = now;
    return { added, removed, size: this.txs.size, leftOut: this.leftOut };
  }

  /**
   * One pass of the daemon's loop (runEvery, every DEFAULT_MEMPOOL_REFRESH_MS with back-off): a
   * refresh; when it fails and the view has not been refreshed for `staleMs`, the view is emptied
   * first, so that a lost node never leaves pending transactions shown for ever. Throws the
   * refresh's error (the loop logs it).
   */
  async runOnce(): Promise<void> {
    try {
      await this.refresh();
    } catch (error) {
      if (this.clock() - this.lastRefreshAt > this.staleMs) this.clear();
      throw error;
    }
  }

  /** A pending transaction as decoded from the node's hex, unless the index already holds it. */
  rawTx(txid: string): DecodedTransaction | undefined {
    return this.tx(txid) ? this.txs.get(txid)!.raw : undefined;
  }

  /** A pending transaction, unless the index already holds it. */
  tx(txid: string): MempoolTx | undefined {
    const entry = this.txs.get(txid);
    return entry && !this.index.hasTx(txid) ? entry : undefined;
  }

  /** The pending transaction spending an output, if any. */
  spentBy(txid: string, vout: number): { txid: string; vin: number } | null {
    return this.spends.size === 0 ? null : (this.spends.get(`${txid}:${vout}`) ?? null);
  }

  /** Net effect of the pending transactions on the address: received minus spent (may be negative). */
  unconfirmedKoinu(address: string): bigint {
    let net = 0n;
    for (const entry of this.pendingOf(address)) {
      for (const output of entry.outputs) if (output.address === address) net += output.valueKoinu;
      for (const input of entry.inputs)
        if (input.address === address && input.valueKoinu !== null) net -= input.valueKoinu;
    }
    return net;
  }

  /**
   * What the address's pending transactions fund and spend (Esplora's mempool_stats): outputs paying
   * it, and inputs spending its outputs whose value is known, counted and summed, and the number of
   * its pending transactions.
   */
  addressStats(address: string): {
    fundedCount: number;
    fundedKoinu: bigint;
    spentCount: number;
    spentKoinu: bigint;
    txCount: number;
  } {
    const stats = { fundedCount: 0, fundedKoinu: 0n, spentCount: 0, spentKoinu: 0n, txCount: 0 };
    for (const entry of this.pendingOf(address)) {
      stats.txCount += 1;
      for (const output of entry.outputs) {
        if (output.address !== address) continue;
        stats.fundedCount += 1;
        stats.fundedKoinu += output.valueKoinu;
      }
      for (const input of entry.inputs) {
        if (input.address !== address || input.valueKoinu === null) continue;
        stats.spentCount += 1;
        stats.spentKoinu += input.valueKoinu;
      }
    }
    return stats;
  }

  /** The address's pending transactions as history items, newest first. */
  history(address: string): PendingHistoryItem[] {
    return this.pendingOf(address).map((entry) => {
      let received = 0n;
      let sent = 0n;
      for (const output of entry.outputs) if (output.address === address) received += output.valueKoinu;
      for (const input of entry.inputs)
        if (input.address === address && input.valueKoinu !== null) sent += input.valueKoinu;
      // The indexer's rules (indexer.ts): the other side as a wallet shows it.
      let counterparty: string | null = null;
      if (sent === 0n)
        counterparty = entry.inputs.find((i) => i.address !== null && i.address !== address)?.address ?? null;
      else counterparty = entry.outputs.find((o) => o.address !== null && o.address !== address)?.address ?? null;
      const net = received - sent;
      const direction = sent === 0n ? "in" : received === 0n ? "out" : net >= 0n ? "self" : "out";
      return { txid: entry.txid, direction, counterparty, amountKoinu: net < 0n ? -net : net };
    });
  }

  /** Outputs of pending transactions paying the address, ordered by txid and vout. */
  outputs(address: string): PendingOutput[] {
    const out: PendingOutput[] = [];
    for (const entry of this.pendingOf(address)) {
      for (const output of entry.outputs) {
        if (output.address !== address) continue;
        out.push({
          txid: entry.txid,
          vout: output.vout,
          valueKoinu: output.valueKoinu,
          scriptHex: output.scriptHex,
          spentBy: this.spentBy(entry.txid, output.vout),
        });
      }
    }
    return out.sort((a, b) => (a.txid < b.txid ? -1 : a.txid > b.txid ? 1 : a.vout - b.vout));
  }

  /** The address's pending transactions the index does not hold yet, newest first. */
  private pendingOf(address: string): Entry[] {
    const txids = this.byAddress.get(address);
    if (!txids) return NO_ENTRIES;
    const out: Entry[] = [];
    for (const txid of txids) {
      const entry = this.txs.get(txid);
      if (entry && !this.index.hasTx(txid)) out.push(entry);
    }
    return out.sort((a, b) => b.seq - a.seq);
  }

  private async fetchHex(txid: string): Promise<string | null> {
    try {
      return await this.node.getRawTransactionHex(txid);
    } catch (error) {
      // Left the mempool between the two calls: the next refresh will not list it.
      if (error instanceof DogecoinRpcError && error.code === RPC_INVALID_ADDRESS_OR_KEY) return null;
      throw error;
    }
  }

  private add(tx: DecodedTransaction, now: number): void {
    const outputs = tx.outputs.map((output, vout) => ({
      vout,
      valueKoinu: output.value,
      scriptHex: bytesToHex(output.script),
      address: outputScriptToAddress(output.script, this.network),
    }));
    const inputs = tx.inputs.map((input, vin) => ({
      vin,
      prevTxid: input.prevTxid,
      prevVout: input.vout,
      valueKoinu: null,
      address: null,
    }));
    const entry: Entry = {
      txid: tx.txid,
      size: tx.size,
      seenAt: now,
      inputs,
      outputs,
      feeKoinu: null,
      raw: tx,
      seq: ++this.seq,
      addresses: new Set(),
      unresolved: inputs.length,
    };
    this.txs.set(tx.txid, entry);
    for (const input of inputs)
      this.spends.set(`${input.prevTxid}:${input.prevVout}`, { txid: tx.txid, vin: input.vin });
    for (const output of outputs) if (output.address) this.link(output.address, entry);
  }

  private resolve(entry: Entry): void {
    for (const input of entry.inputs) {
      if (input.valueKoinu !== null) continue;
      const parent = this.txs.get(input.prevTxid);
      let found: { valueKoinu: bigint; address: string | null } | null = null;
      if (parent) {
        const output = parent.outputs[input.prevVout];
        if (output) found = { valueKoinu: output.valueKoinu, address: output.address };
      } else {
        let output: { value: bigint; script: Uint8Array } | null;
        try {
          output = this.index.unspentOutput(input.prevTxid, input.prevVout);
        } catch (error) {
          // The index cannot tell yet (a catch-up under way): left unresolved, tried again at the next refresh.
          if (error instanceof Refusal && error.code === "INDEX_BEHIND") continue;
          throw error;
        }
        if (output) found = { valueKoinu: output.value, address: outputScriptToAddress(output.script, this.network) };
      }
      if (!found) continue;
      input.valueKoinu = found.valueKoinu;
      input.address = found.address;
      entry.unresolved--;
      if (found.address) this.link(found.address, entry);
    }
    if (entry.unresolved === 0) {
      let fee = 0n;
      for (const input of entry.inputs) fee += input.valueKoinu!;
      for (const output of entry.outputs) fee -= output.valueKoinu;
      entry.feeKoinu = fee;
    }
  }

  private link(address: string, entry: Entry): void {
    entry.addresses.add(address);
    let txids = this.byAddress.get(address);
    if (!txids) this.byAddress.set(address, (txids = new Set()));
    txids.add(entry.txid);
  }

  private remove(txid: string): void {
    const entry = this.txs.get(txid);
    if (!entry) return;
    this.txs.delete(txid);
    for (const input of entry.inputs) {
      const key = `${input.prevTxid}:${input.prevVout}`;
      if (this.spends.get(key)?.txid === txid) this.spends.delete(key);
    }
    for (const address of entry.addresses) {
      const txids = this.byAddress.get(address);
      txids?.delete(txid);
      if (txids && txids.size === 0) this.byAddress.delete(address);
    }
  }

  private clear(): void {
    this.txs.clear();
    this.spends.clear();
    this.byAddress.clear();
  }
}
