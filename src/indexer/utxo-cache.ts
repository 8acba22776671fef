/**
 * The unspent outputs the indexer has written, held in memory so that an input spending an older
 * output is answered without reading the index: on a mainnet-shaped chain about a third of the
 * inputs spend outputs far older than any window of recent transactions, and each such read walks
 * three B-trees at random keys (`txs_by_txid_bucket`, `outputs`, `addresses`). Bitcoin Core keeps
 * a coins cache in front of its chainstate for the same reason (`-dbcache`).
 *
 * One slot is 40 bytes in typed arrays (no object per output): the first 20 bytes of the txid, the
 * vout, the transaction's id in the index, the address id (0 for none), and the value in koinu.
 * Open addressing with linear probing; a spent output's slot is freed by shifting the probe chain
 * back (no tombstones). The slot of a key is a hash of all 20 bytes with a seed drawn per process,
 * so txids ground to share bytes do not pile into one probe chain.
 *
 * What it does not hold is read from the index, as before: outputs written while it was full, by an
 * earlier process, or before a rollback (rollbacks and failed batches empty it), values above 2^53
 * koinu. Keys are 160-bit txid prefixes: two transactions sharing one would take about 2^80 hashes to
 * make; an outpoint whose key is already held is not cached and the held one is dropped, so both are
 * read from the index.
 */
import crypto from "node:crypto";

/** Bytes a slot takes: 8 32-bit words and one 64-bit float. */
export const UTXO_CACHE_SLOT_BYTES = 40;
const WORDS = 8;
// Word offsets within a slot.
const VOUT = 5; // vout + 1; 0 marks an empty slot
const TX_ID = 6;
const ADDRESS_ID = 7;
/** Entries stop being added past this share of the slots (linear probing stays short below it). */
const MAX_LOAD = 0.8;
/** The largest value a float64 holds exactly (2^53 - 1 koinu: about 90 million DOGE). */
const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

export interface CachedOutput {
  txId: number;
  value: bigint;
  addressId: number | null;
}

export class UtxoCache {
  private readonly words: Uint32Array;
  private readonly values: Float64Array;
  private readonly slots: number;
  private readonly maxEntries: number;
  private readonly seed: number;
  /** The key being looked for: the txid's first 20 bytes as five big-endian words. */
  private readonly key = new Uint32Array(5);
  /** The txid `key` was set from. */
  private keyTxid = "";
  private count = 0;
  /** The slot get() found last, kept for the delete() of the same outpoint that follows it. */
  private lastSlot = -1;

  /** A cache of `megabytes` MB (at least one slot). */
  constructor(megabytes: number) {
    this.slots = Math.max(1, Math.floor((megabytes * 1024 * 1024) / UTXO_CACHE_SLOT_BYTES));
    this.words = new Uint32Array(this.slots * WORDS);
    this.values = new Float64Array(this.slots);
    this.maxEntries = Math.floor(this.slots * MAX_LOAD);
    this.seed = crypto.randomBytes(4).readUInt32LE(0);
  }

  /** Outputs held now. */
  get size(): number {
    return this.count;
  }

  /** True when no more outputs are taken until some are spent. */
  get full(): boolean {
    return this.count >= this.maxEntries;
  }

  /**
   * Holds output `vout` of `txid` (display hex) unless the cache is full or cannot hold it exactly;
   * answers whether it did.
   */
  add(txid: string, vout: number, txId: number, addressId: number | null, value: bigint): boolean {
    if (this.count >= this.maxEntries) return false;
    if (value > MAX_EXACT || txId > 0xffffffff || (addressId ?? 0) > 0xffffffff || vout >= 0xffffffff) return false;
    this.setKey(txid);
    const held = this.find(vout);
    if (held !== -1) {
      // Two transactions share the key: neither is answered from memory.
      this.remove(held);
      return false;
    }
    let slot = this.home(this.key, 0, vout);
    while (this.words[slot * WORDS + VOUT] !== 0) slot = slot + 1 === this.slots ? 0 : slot + 1;
    const at = slot * WORDS;
    this.words.set(this.key, at);
    this.words[at + VOUT] = vout + 1;
    this.words[at + TX_ID] = txId;
    this.words[at + ADDRESS_ID] = addressId ?? 0;
    this.values[slot] = Number(value);
    this.count += 1;
    return true;
  }

  /** Output `vout` of `txid` when held, else null. */
  get(txid: string, vout: number): CachedOutput | null {
    this.setKey(txid);
    const slot = this.find(vout);
    this.lastSlot = slot;
    if (slot === -1) return null;
    const at = slot * WORDS;
    const addressId = this.words[at + ADDRESS_ID];
    return {
      txId: this.words[at + TX_ID],
      value: BigInt(this.values[slot]),
      addressId: addressId === 0 ? null : addressId,
    };
  }

  /** Forgets output `vout` of `txid` (spent); nothing when it is not held. */
  delete(txid: string, vout: number): void {
    // Right after get() of the same outpoint (the key still set): its slot is known.
    const last = this.lastSlot;
    if (last !== -1 && this.words[last * WORDS + VOUT] === vout + 1 && this.heldAt(last, txid))
      return this.remove(last);
    this.setKey(txid);
    const slot = this.find(vout);
    if (slot !== -1) this.remove(slot);
  }

  /** Forgets everything (after a rollback or a failed batch). */
  clear(): void {
    if (this.count === 0) return;
    this.words.fill(0);
    this.count = 0;
    this.lastSlot = -1;
  }

  private setKey(txid: string): void {
    this.keyTxid = txid;
    let c = 0;
    for (let i = 0; i < 5; i++) {
      let word = 0;
      for (let end = c + 8; c < end; c++) {
        const code = txid.charCodeAt(c);
        // 0-9 are 48-57, A-F 65-70, a-f 97-102.
        word = word * 16 + (code >= 97 ? code - 87 : code >= 65 ? code - 55 : code - 48);
      }
      this.key[i] = word;
    }
  }

  /** True when the key set last is the one stored at `slot` and was set from `txid`. */
  private heldAt(slot: number, txid: string): boolean {
    if (txid !== this.keyTxid) return false;
    const at = slot * WORDS;
    const key = this.key;
    const words = this.words;
    return (
      words[at] === key[0] &&
      words[at + 1] === key[1] &&
      words[at + 2] === key[2] &&
      words[at + 3] === key[3] &&
      words[at + 4] === key[4]
    );
  }

  /** The first slot the key at `at` in `key` (five words) with `vout` may sit in. */
  private home(key: Uint32Array, at: number, vout: number): number {
    let h = this.seed ^ Math.imul(vout + 1, 0x9e3779b1);
    for (let i = 0; i < 5; i++) {
      h = Math.imul(h ^ key[at + i], 0x85ebca6b);
      h ^= h >>> 13;
    }
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    return (h >>> 0) % this.slots;
  }

  private find(vout: number): number {
    const words = this.words;
    const key = this.key;
    let slot = this.home(key, 0, vout);
    for (;;) {
      const at = slot * WORDS;
      const stored = words[at + VOUT];
      if (stored === 0) return -1;
      if (
        stored === vout + 1 &&
        words[at] === key[0] &&
        words[at + 1] === key[1] &&
        words[at + 2] === key[2] &&
        words[at + 3] === key[3] &&
        words[at + 4] === key[4]
      )
        return slot;
      slot = slot + 1 === this.slots ? 0 : slot + 1;
    }
  }

  /**
   * Empties `slot` and moves later entries of its probe chain back into the gap (linear probing's
   * deletion without tombstones: an entry moves when the gap lies between its home slot and it).
   */
  private remove(slot: number): void {
    const words = this.words;
    let gap = slot;
    let next = slot;
    for (;;) {
      next = next + 1 === this.slots ? 0 : next + 1;
      const at = next * WORDS;
      if (words[at + VOUT] === 0) break;
      const home = this.home(words, at, words[at + VOUT] - 1);
      // Can the entry at `next` move to `gap`? Only if its home is not in (gap, next], cyclically.
      const movable = gap <= next ? home <= gap || home > next : home <= gap && home > next;
      if (!movable) continue;
      words.copyWithin(gap * WORDS, at, at + WORDS);
      this.values[gap] = this.values[next];
      gap = next;
    }
    words.fill(0, gap * WORDS, gap * WORDS + WORDS);
    this.count -= 1;
    this.lastSlot = -1;
  }
}
