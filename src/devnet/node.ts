/**
 * The devnet node: a Dogecoin regtest-compatible chain with a validating mempool, a miner, and
 * reorganisation through invalidateblock/reconsiderblock. State lives in SQLite (store.ts); the
 * block index and the mempool are mirrored in memory.
 */
import {
  Block,
  DecodedTransaction,
  NETWORKS,
  Transaction,
  addressToOutputScript,
  bitsToTarget,
  blockWork,
  bytesToHexReversed,
  compileScript,
  encodeScriptNum,
  isCoinbase,
  merkleRoot,
  parseBlock,
  parseTransaction,
  privateKeyToPublicKey,
  publicKeyToAddress,
  scryptPowHash,
  serializeBlock,
  serializeTransaction,
  signInput,
  p2pkhScriptSig,
  transactionSize,
  DogeNetwork,
  hexToBytes,
  bytesToHex,
  MAX_MONEY,
} from "../doge";
import {
  HARD_DUST_LIMIT,
  MIN_RELAY_FEE_RATE,
  REJECT,
  SOFT_DUST_LIMIT,
  isUnspendable,
  minRelayFee,
  RPC_DESERIALIZATION_ERROR,
  RPC_INVALID_ADDRESS_OR_KEY,
  RPC_INVALID_PARAMETER,
  RPC_MISC_ERROR,
  RPC_VERIFY_ALREADY_IN_CHAIN,
  RPC_VERIFY_ERROR,
} from "../doge/policy";
import { TxRejected, checkInputsStandard, checkStandard, checkTransaction } from "../doge/standardness";
import { PreparedTransaction, SpentOutput, checkScriptsForMempool } from "../doge/script-check";
import { coinbaseSpendableAt } from "../doge/maturity";
import { REGTEST, POLICY, blockFlags, blockSubsidy, genesisBlock, isTxFinal } from "./params";
import { DevnetStore, StoredCoin, UndoCoin } from "./store";
import { RpcFailure } from "./errors";
import { randomBytes } from "node:crypto";
import { DogeosError } from "../errors";

/** Dogecoin Core 1.14 src/validation.h DEFAULT_MAX_TIP_AGE (-maxtipage): 24 hours. */
const MAX_TIP_AGE_SECONDS = 24 * 60 * 60;

export interface BlockIndexEntry {
  hash: string;
  seq: number;
  height: number;
  prevHash: string;
  chainwork: bigint;
  time: number;
  bits: number;
  invalid: boolean;
  size: number;
}

export interface MempoolEntry {
  tx: DecodedTransaction;
  raw: Uint8Array;
  fee: bigint;
  size: number;
  time: number;
  height: number;
  /** Txids of in-mempool parents. */
  depends: string[];
}

export interface DevnetOptions {
  dataDir: string | ":memory:";
  /** Relax the upgradable-NOP policy, as dogecoind's -promiscuousmempoolflags does. */
  promiscuousMempool?: boolean;
  /** Accept non-standard transactions (dogecoind's -acceptnonstdtxn). Off by default, like mainnet. */
  acceptNonStandard?: boolean;
  clock?: () => number;
  log?: (event: string, fields?: Record<string, unknown>) => void;
}

export interface Coin extends StoredCoin {
  /** Height 0x7fffffff marks an output of a mempool transaction. */
  inMempool: boolean;
}

const MEMPOOL_HEIGHT = 0x7fffffff;
const MAX_ANCESTORS = 25;

const outpointKey = (txid: string, vout: number) => `${txid}:${vout}`;

export class DevnetNode {
  readonly network: DogeNetwork = NETWORKS.regtest;
  readonly store: DevnetStore;
  promiscuousMempool: boolean;
  acceptNonStandard: boolean;
  /** -minrelaytxfee in koinu per 1000 bytes (devnet_setminrelayfee changes it; not persisted). */
  minRelayFeePerKb: bigint = MIN_RELAY_FEE_RATE;
  /** dogecoind's -maxtxfee: sendrawtransaction without allowhighfees refuses a larger fee (256: absurdly-high-fee). */
  maxTxFee: bigint = POLICY.maxTxFee;
  private readonly clock: () => number;
  private leftInitialBlockDownload = false;
  private readonly log: (event: string, fields?: Record<string, unknown>) => void;

  private readonly index = new Map<string, BlockIndexEntry>();
  private readonly children = new Map<string, string[]>();
  private chain: string[] = [];
  private nextSeq = 0;

  private readonly mempool = new Map<string, MempoolEntry>();
  private readonly mempoolSpends = new Map<string, string>();
  /** Txids whose scripts passed the standard flags (a superset of every block's flags). */
  private readonly scriptCache = new Set<string>();
  private faucetKey: Uint8Array;

  constructor(options: DevnetOptions) {
    this.store = new DevnetStore(options.dataDir);
    this.promiscuousMempool = options.promiscuousMempool ?? false;
    this.acceptNonStandard = options.acceptNonStandard ?? false;
    this.clock = options.clock ?? (() => Math.floor(Date.now() / 1000));
    this.log = options.log ?? (() => undefined);
    this.faucetKey = this.loadFaucetKey();
    this.load();
  }

  close(): void {
    this.store.close();
  }

  // ---------------------------------------------------------------- startup

  private loadFaucetKey(): Uint8Array {
    const stored = this.store.getMeta("faucet_key");
    if (stored) return hexToBytes(stored);
    const key = new Uint8Array(randomBytes(32));
    this.store.setMeta("faucet_key", bytesToHex(key));
    return key;
  }

  private load(): void {
    const rows = this.store.allBlocks();
    if (rows.length === 0) {
      const genesis = genesisBlock();
      const raw = serializeBlock(genesis);
      this.store.transaction(() => {
        const entry = this.addToIndex(genesis, raw.length);
        this.store.insertBlock(entry, raw);
        this.applyBlock(genesis, entry, { checkScripts: false });
      });
      return;
    }
    for (const row of rows) {
      this.index.set(row.hash, { ...row });
      this.linkChild(row.prevHash, row.hash);
      this.nextSeq = Math.max(this.nextSeq, row.seq + 1);
    }
    this.chain = this.store.activeChain();
    // A crash between the steps of a reorganisation leaves a consistent but possibly non-best tip.
    this.activateBestChain();
    const stored = this.store.mempoolAll();
    this.store.transaction(() => this.store.mempoolClear());
    for (const item of stored) {
      try {
        this.acceptToMempool(item.raw, { time: item.time, allowHighFees: true });
      } catch (error) {
        this.log("mempool_entry_dropped_on_load", { txid: item.txid, reason: (error as Error).message });
      }
    }
  }

  private linkChild(parent: string, child: string): void {
    const list = this.children.get(parent);
    if (list) list.push(child);
    else this.children.set(parent, [child]);
  }

  private addToIndex(block: Block, size: number): BlockIndexEntry {
    const parent = this.index.get(block.header.prevHash);
    const height = parent ? parent.height + 1 : 0;
    const entry: BlockIndexEntry = {
      hash: block.hash,
      seq: this.nextSeq++,
      height,
      prevHash: block.header.prevHash,
      chainwork: (parent ? parent.chainwork : 0n) + blockWork(block.header.bits),
      time: block.header.time,
      bits: block.header.bits,
      invalid: false,
      size,
    };
    this.index.set(entry.hash, entry);
    this.linkChild(entry.prevHash, entry.hash);
    return entry;
  }

  // ---------------------------------------------------------------- chain queries

  get height(): number {
    return this.chain.length - 1;
  }

  get tipHash(): string {
    return this.chain[this.chain.length - 1];
  }

  tip(): BlockIndexEntry {
    return this.index.get(this.tipHash)!;
  }

  blockEntry(hash: string): BlockIndexEntry | undefined {
    return this.index.get(hash);
  }

  hashAtHeight(height: number): string | undefined {
    return this.chain[height];
  }

  isInActiveChain(hash: string): boolean {
    const entry = this.index.get(hash);
    return entry !== undefined && this.chain[entry.height] === hash;
  }

  headerCount(): number {
    let best = 0;
    for (const entry of this.index.values()) if (!entry.invalid && entry.height > best) best = entry.height;
    return Math.max(best, this.height);
  }

  /** Tips of branches off the active chain (for getchaintips). */
  sideTips(): { hash: string; height: number; branchlen: number; invalid: boolean }[] {
    const tips: { hash: string; height: number; branchlen: number; invalid: boolean }[] = [];
    for (const entry of this.index.values()) {
      if (this.isInActiveChain(entry.hash) || (this.children.get(entry.hash)?.length ?? 0) > 0) continue;
      let cursor: BlockIndexEntry | undefined = entry;
      let branchlen = 0;
      while (cursor && !this.isInActiveChain(cursor.hash)) {
        branchlen += 1;
        cursor = this.index.get(cursor.prevHash);
      }
      tips.push({ hash: entry.hash, height: entry.height, branchlen, invalid: entry.invalid });
    }
    return tips;
  }

  readBlock(hash: string): Block | null {
    const raw = this.store.blockRaw(hash);
    if (!raw) return null;
    const parsed = parseBlock(raw);
    if (!parsed.ok) throw new Error(`stored block ${hash} does not parse: ${parsed.error.message}`);
    return parsed.value;
  }

  readBlockRaw(hash: string): Uint8Array | null {
    return this.store.blockRaw(hash);
  }

  /** Median of the last 11 block times ending at `hash` (Core's GetMedianTimePast). */
  medianTimePast(hash: string): number {
    const times: number[] = [];
    let cursor = this.index.get(hash);
    while (cursor && times.length < REGTEST.medianTimeSpan) {
      times.push(cursor.time);
      cursor = this.index.get(cursor.prevHash);
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)];
  }

  /**
   * Core's IsInitialBlockDownload (src/validation.cpp, Dogecoin Core 1.14): true while the tip is
   * older than -maxtipage (DEFAULT_MAX_TIP_AGE, 24 hours, src/validation.h); once false it stays
   * false for the life of the process (Core latches it). Regtest's minimum chain work is 0.
   */
  isInitialBlockDownload(): boolean {
    if (this.leftInitialBlockDownload) return false;
    if (this.tip().time < this.clock() - MAX_TIP_AGE_SECONDS) return true;
    this.leftInitialBlockDownload = true;
    return false;
  }

  /** A confirmed transaction (through the transaction index) or a mempool one. */
  findTransaction(txid: string): { tx: DecodedTransaction; blockHash: string | null } | null {
    const pooled = this.mempool.get(txid);
    if (pooled) return { tx: pooled.tx, blockHash: null };
    const located = this.store.findTx(txid);
    if (!located) return null;
    const block = this.readBlock(located.blockHash);
    if (!block) return null;
    return { tx: block.txs[located.position], blockHash: located.blockHash };
  }

  /** An unspent output, from the UTXO set or (with `includeMempool`) a mempool transaction. */
  getCoin(txid: string, vout: number, includeMempool: boolean): Coin | null {
    if (includeMempool && this.mempoolSpends.has(outpointKey(txid, vout))) return null;
    const stored = this.store.getCoin(txid, vout);
    if (stored) return { ...stored, inMempool: false };
    if (!includeMempool) return null;
    const entry = this.mempool.get(txid);
    if (!entry || vout >= entry.tx.outputs.length) return null;
    const output = entry.tx.outputs[vout];
    return {
      txid,
      vout,
      value: output.value,
      script: output.script,
      height: MEMPOOL_HEIGHT,
      coinbase: false,
      inMempool: true,
    };
  }

  utxoStats(): { count: number; total: bigint } {
    return this.store.utxoStats();
  }

  // ---------------------------------------------------------------- mempool

  mempoolEntries(): MempoolEntry[] {
    return [...this.mempool.values()];
  }

  mempoolEntry(txid: string): MempoolEntry | undefined {
    return this.mempool.get(txid);
  }

  mempoolBytes(): number {
    let bytes = 0;
    for (const entry of this.mempool.values()) bytes += entry.size;
    return bytes;
  }

  /**
   * dogecoind's sendrawtransaction: returns the txid when accepted or already in the mempool;
   * -27 when the transaction is in the chain with unspent outputs; -25 for missing inputs; -26 with
   * "<reject code>: <reason>" for everything the mempool refuses.
   */
  sendRawTransaction(raw: Uint8Array, allowHighFees = false): string {
    const parsed = parseTransaction(raw);
    if (!parsed.ok) throw new RpcFailure(RPC_DESERIALIZATION_ERROR, "TX decode failed");
    const tx = parsed.value;
    if (this.mempool.has(tx.txid)) return tx.txid;
    for (let vout = 0; vout < tx.outputs.length; vout++) {
      if (this.store.getCoin(tx.txid, vout))
        throw new RpcFailure(RPC_VERIFY_ALREADY_IN_CHAIN, "transaction already in block chain");
    }
    this.acceptToMempool(raw, { allowHighFees, parsed: tx });
    return tx.txid;
  }

  /** Core 0.14's AcceptToMemoryPool, in its order of checks. Throws RpcFailure on refusal. */
  acceptToMempool(
    raw: Uint8Array,
    options: { allowHighFees?: boolean; time?: number; parsed?: DecodedTransaction } = {},
  ): MempoolEntry {
    let tx = options.parsed;
    if (!tx) {
      const parsed = parseTransaction(raw);
      if (!parsed.ok) throw new RpcFailure(RPC_DESERIALIZATION_ERROR, "TX decode failed");
      tx = parsed.value;
    }
    checkTransaction(tx);
    if (isCoinbase(tx)) throw new TxRejected(REJECT.INVALID, "coinbase");
    const nextHeight = this.height + 1;
    if (!this.acceptNonStandard) checkStandard(tx);
    if (!isTxFinal(tx, nextHeight, this.medianTimePast(this.tipHash)))
      throw new TxRejected(REJECT.NONSTANDARD, "non-final");
    if (this.mempool.has(tx.txid)) throw new TxRejected(REJECT.ALREADY_KNOWN, "txn-already-in-mempool");
    for (const input of tx.inputs) {
      if (this.mempoolSpends.has(outpointKey(input.prevTxid, input.vout)))
        throw new TxRejected(REJECT.CONFLICT, "txn-mempool-conflict");
    }
    for (let vout = 0; vout < tx.outputs.length; vout++) {
      if (this.store.getCoin(tx.txid, vout)) throw new TxRejected(REJECT.ALREADY_KNOWN, "txn-already-known");
    }

    const spent: SpentOutput[] = [];
    const depends = new Set<string>();
    let inputTotal = 0n;
    for (const input of tx.inputs) {
      const coin = this.getCoin(input.prevTxid, input.vout, true);
      if (!coin) {
        if (this.store.hasAnyCoinOf(input.prevTxid) || this.mempool.has(input.prevTxid)) {
          throw new TxRejected(REJECT.DUPLICATE, "bad-txns-inputs-spent");
        }
        throw new RpcFailure(RPC_VERIFY_ERROR, "Missing inputs");
      }
      if (coin.inMempool) depends.add(coin.txid);
      if (coin.coinbase && !coinbaseSpendableAt(this.network, coin.height, nextHeight)) {
        throw new TxRejected(REJECT.INVALID, "bad-txns-premature-spend-of-coinbase");
      }
      inputTotal += coin.value;
      if (coin.value < 0n || coin.value > MAX_MONEY || inputTotal > MAX_MONEY)
        throw new TxRejected(REJECT.INVALID, "bad-txns-inputvalues-outofrange");
      spent.push({ script: coin.script, value: coin.value });
    }
    if (!this.acceptNonStandard) checkInputsStandard(tx, spent);
    const outputTotal = tx.outputs.reduce((sum, output) => sum + output.value, 0n);
    if (inputTotal < outputTotal) throw new TxRejected(REJECT.INVALID, "bad-txns-in-belowout");
    const fee = inputTotal - outputTotal;
    const size = raw.length;
    if (fee < minRelayFee(size, tx.outputs, this.minRelayFeePerKb))
      throw new TxRejected(REJECT.INSUFFICIENTFEE, "min relay fee not met");
    if (!options.allowHighFees && fee > this.maxTxFee) throw new TxRejected(REJECT.HIGHFEE, "absurdly-high-fee");
    if (this.ancestorCount(depends) + 1 > MAX_ANCESTORS)
      throw new TxRejected(REJECT.NONSTANDARD, "too-long-mempool-chain");

    if (!this.scriptCache.has(tx.txid)) {
      const verdict = checkScriptsForMempool(new PreparedTransaction(raw), spent, this.promiscuousMempool);
      if (!verdict.ok) throw new TxRejected(verdict.rejectCode, verdict.reason);
      this.scriptCache.add(tx.txid);
    }

    const entry: MempoolEntry = {
      tx,
      raw,
      fee,
      size,
      time: options.time ?? this.clock(),
      height: this.height,
      depends: [...depends],
    };
    this.mempool.set(tx.txid, entry);
    for (const input of tx.inputs) this.mempoolSpends.set(outpointKey(input.prevTxid, input.vout), tx.txid);
    this.store.mempoolPut(tx.txid, raw, entry.time);
    this.log("tx_accepted", { txid: tx.txid, fee: fee.toString(), size });
    return entry;
  }

  private ancestorCount(parents: Iterable<string>): number {
    const seen = new Set<string>();
    const stack = [...parents];
    while (stack.length > 0) {
      const txid = stack.pop()!;
      if (seen.has(txid)) continue;
      seen.add(txid);
      const entry = this.mempool.get(txid);
      if (entry) stack.push(...entry.depends);
    }
    return seen.size;
  }

  /** Descendants of a mempool transaction (children first found, then theirs). */
  mempoolDescendants(txid: string): string[] {
    const out: string[] = [];
    const stack = [txid];
    const seen = new Set<string>();
    while (stack.length > 0) {
      const current = stack.pop()!;
      for (const entry of this.mempool.values()) {
        if (!seen.has(entry.tx.txid) && entry.depends.includes(current)) {
          seen.add(entry.tx.txid);
          out.push(entry.tx.txid);
          stack.push(entry.tx.txid);
        }
      }
    }
    return out;
  }

  private removeFromMempool(txid: string): void {
    const entry = this.mempool.get(txid);
    if (!entry) return;
    this.mempool.delete(txid);
    for (const input of entry.tx.inputs) {
      const key = outpointKey(input.prevTxid, input.vout);
      if (this.mempoolSpends.get(key) === txid) this.mempoolSpends.delete(key);
    }
    this.store.mempoolDelete(txid);
  }

  /** Removes a transaction and everything in the mempool that depends on it. */
  private removeWithDescendants(txid: string): void {
    for (const child of this.mempoolDescendants(txid)) this.removeFromMempool(child);
    this.removeFromMempool(txid);
  }

  /**
   * Devnet only: drops a mempool transaction and its mempool descendants, as dogecoind does when
   * its mempool is over -maxmempool (TrimToSize evicts a package with its descendants) or when
   * the transaction is older than -mempoolexpiry. Returns the removed txids, the transaction first.
   */
  evictFromMempool(txid: string): string[] {
    if (!this.mempool.has(txid)) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, "Transaction not in mempool");
    const removed = [txid, ...this.mempoolDescendants(txid)];
    this.store.transaction(() => this.removeWithDescendants(txid));
    this.log("mempool_evicted", { txid, removed: removed.length });
    return removed;
  }

  // ---------------------------------------------------------------- mining

  /** Mines `count` blocks paying the coinbase to `address`; returns their hashes. */
  generateToAddress(count: number, address: string): string[] {
    const script = addressToOutputScript(address, this.network);
    const hashes: string[] = [];
    for (let i = 0; i < count; i++) hashes.push(this.mineBlock(script));
    return hashes;
  }

  private selectTransactions(): { txs: DecodedTransaction[]; fees: bigint } {
    const chosen: DecodedTransaction[] = [];
    const included = new Set<string>();
    let size = REGTEST.coinbaseReserve;
    let fees = 0n;
    const nextHeight = this.height + 1;
    for (const entry of this.mempool.values()) {
      if (size + entry.size > REGTEST.maxBlockSize) continue;
      if (!entry.depends.every((parent) => included.has(parent))) continue;
      if (!isTxFinal(entry.tx, nextHeight, this.medianTimePast(this.tipHash))) continue;
      chosen.push(entry.tx);
      included.add(entry.tx.txid);
      size += entry.size;
      fees += entry.fee;
    }
    return { txs: chosen, fees };
  }

  private mineBlock(payoutScript: Uint8Array): string {
    const parent = this.tip();
    const height = parent.height + 1;
    const { txs, fees } = this.selectTransactions();
    const coinbase: Transaction = {
      version: 1,
      inputs: [
        {
          prevTxid: "0".repeat(64),
          vout: 0xffffffff,
          // BIP34-style height push, then an extra nonce. Core's miner restarts its extra nonce at
          // each call, so re-mining on a parent after invalidateblock could rebuild a block that is
          // already known (and invalid); the node's block sequence number keeps every block unique.
          scriptSig: compileScript([encodeScriptNum(height), encodeScriptNum(this.nextSeq)]),
          sequence: 0xffffffff,
        },
      ],
      outputs: [{ value: blockSubsidy(height) + fees, script: payoutScript }],
      locktime: 0,
    };
    const coinbaseParsed = parseTransaction(serializeTransaction(coinbase));
    if (!coinbaseParsed.ok) throw coinbaseParsed.error;
    const allTxs = [coinbaseParsed.value, ...txs];
    const header = {
      version: REGTEST.blockVersion,
      prevHash: parent.hash,
      merkleRoot: merkleRoot(allTxs.map((tx) => tx.txid)),
      time: Math.max(this.medianTimePast(parent.hash) + 1, this.clock()),
      bits: REGTEST.powLimitBits,
      nonce: 0,
    };
    const target = bitsToTarget(header.bits);
    for (;;) {
      const headerBytes = serializeBlock({ header, txs: [] }).subarray(0, 80);
      const pow = BigInt("0x" + bytesToHexReversed(scryptPowHash(headerBytes)));
      if (pow <= target) break;
      header.nonce += 1;
      if (header.nonce > 0xffffffff) throw new Error("nonce space exhausted");
    }
    const raw = serializeBlock({ header, txs: allTxs });
    const parsed = parseBlock(raw);
    if (!parsed.ok) throw parsed.error;
    const block = parsed.value;
    this.store.transaction(() => {
      const entry = this.addToIndex(block, raw.length);
      this.store.insertBlock(entry, raw);
      this.applyBlock(block, entry, { checkScripts: true });
    });
    this.log("block_mined", { hash: block.hash, height, txs: allTxs.length });
    return block.hash;
  }

  /**
   * dogecoind's submitblock (BIP22 answers): null when the block was accepted, "duplicate",
   * "duplicate-invalid", "inconclusive" (valid but not on the best chain) or a reject reason.
   */
  submitBlock(raw: Uint8Array): string | null {
    const parsed = parseBlock(raw);
    if (!parsed.ok) throw new RpcFailure(RPC_DESERIALIZATION_ERROR, "Block decode failed");
    const block = parsed.value;
    const known = this.index.get(block.hash);
    if (known) return known.invalid ? "duplicate-invalid" : "duplicate";
    if (!this.index.has(block.header.prevHash)) return "prev-blk-not-found";
    if (block.header.bits !== REGTEST.powLimitBits) return "bad-diffbits";
    const pow = BigInt(
      "0x" + bytesToHexReversed(scryptPowHash(serializeBlock({ header: block.header, txs: [] }).subarray(0, 80))),
    );
    if (pow > bitsToTarget(block.header.bits)) return "high-hash";
    if (block.txs.length === 0 || !isCoinbase(block.txs[0])) return "bad-cb-missing";
    if (merkleRoot(block.txs.map((tx) => tx.txid)) !== block.header.merkleRoot) return "bad-txnmrklroot";
    if (raw.length > REGTEST.maxBlockSize) return "bad-blk-length";
    const parent = this.index.get(block.header.prevHash)!;
    if (block.header.time <= this.medianTimePast(parent.hash)) return "time-too-old";
    let entry!: BlockIndexEntry;
    this.store.transaction(() => {
      entry = this.addToIndex(block, raw.length);
      this.store.insertBlock(entry, raw);
    });
    if (parent.hash === this.tipHash) {
      try {
        this.store.transaction(() => this.applyBlock(block, entry, { checkScripts: true }));
      } catch (error) {
        if (!(error instanceof BlockInvalid)) throw error;
        this.markInvalid(entry.hash);
        return error.message;
      }
      return null;
    }
    this.activateBestChain();
    if (this.isInActiveChain(entry.hash)) return null;
    return entry.invalid ? "rejected" : "inconclusive";
  }

  // ---------------------------------------------------------------- connect / disconnect

  /**
   * Connects `block` on top of the active tip inside the caller's SQLite transaction: validates
   * every input against the UTXO set, writes undo data, the transaction index, the chain row, and
   * drops the block's transactions and their conflicts from the mempool. Throws on invalid blocks.
   */
  private applyBlock(block: Block, entry: BlockIndexEntry, options: { checkScripts: boolean }): void {
    if (entry.height > 0 && entry.prevHash !== this.tipHash)
      throw new Error(`block ${entry.hash} does not extend the tip`);
    const undo: UndoCoin[] = [];
    const flags = blockFlags(entry.height);
    let fees = 0n;
    const mtp = entry.height > 0 ? this.medianTimePast(entry.prevHash) : 0;
    for (let position = 0; position < block.txs.length; position++) {
      const tx = block.txs[position];
      if (position > 0) {
        if (isCoinbase(tx)) throw new BlockInvalid("bad-cb-multiple");
        checkTransaction(tx);
        if (!isTxFinal(tx, entry.height, mtp)) throw new BlockInvalid("bad-txns-nonfinal");
        const spent: SpentOutput[] = [];
        let inputTotal = 0n;
        for (const input of tx.inputs) {
          const coin = this.store.getCoin(input.prevTxid, input.vout);
          if (!coin) throw new BlockInvalid("bad-txns-inputs-missingorspent");
          if (coin.coinbase && !coinbaseSpendableAt(this.network, coin.height, entry.height))
            throw new BlockInvalid("bad-txns-premature-spend-of-coinbase");
          inputTotal += coin.value;
          spent.push({ script: coin.script, value: coin.value });
          undo.push({
            txid: coin.txid,
            vout: coin.vout,
            value: coin.value.toString(),
            script: bytesToHex(coin.script),
            height: coin.height,
            coinbase: coin.coinbase,
          });
          this.store.spendCoin(input.prevTxid, input.vout);
        }
        const outputTotal = tx.outputs.reduce((sum, output) => sum + output.value, 0n);
        if (inputTotal < outputTotal) throw new BlockInvalid("bad-txns-in-belowout");
        fees += inputTotal - outputTotal;
        if (options.checkScripts && !this.scriptCache.has(tx.txid)) {
          const result = new PreparedTransaction(serializeTransaction(tx)).verify(spent, flags);
          if (!result.ok) throw new BlockInvalid(`mandatory-script-verify-flag-failed (${result.error})`);
        }
      } else if (entry.height > 0 && !isCoinbase(tx)) {
        throw new BlockInvalid("bad-cb-missing");
      }
      tx.outputs.forEach((output, vout) => {
        // The genesis coinbase is not spendable (it is never added to Core's coin database).
        if (isUnspendable(output.script) || entry.height === 0) return;
        this.store.addCoin({
          txid: tx.txid,
          vout,
          value: output.value,
          script: output.script,
          height: entry.height,
          coinbase: position === 0,
        });
      });
      this.store.indexTx(tx.txid, block.hash, position);
    }
    if (entry.height > 0) {
      const coinbaseValue = block.txs[0].outputs.reduce((sum, output) => sum + output.value, 0n);
      if (coinbaseValue > blockSubsidy(entry.height) + fees) throw new BlockInvalid("bad-cb-amount");
    }
    this.store.putUndo(block.hash, undo);
    this.store.pushChain(entry.height, block.hash);
    this.store.setMeta("tip", block.hash);
    this.chain.push(block.hash);
    for (const tx of block.txs) {
      if (this.mempool.has(tx.txid)) this.removeFromMempool(tx.txid);
      for (const input of tx.inputs) {
        const conflict = this.mempoolSpends.get(outpointKey(input.prevTxid, input.vout));
        if (conflict) this.removeWithDescendants(conflict);
      }
    }
  }

  /** Disconnects the tip in one SQLite transaction; returns its non-coinbase transactions. */
  private disconnectTip(): DecodedTransaction[] {
    const entry = this.tip();
    if (entry.height === 0) throw new Error("cannot disconnect the genesis block");
    const block = this.readBlock(entry.hash)!;
    this.store.transaction(() => {
      for (let position = block.txs.length - 1; position >= 0; position--) {
        const tx = block.txs[position];
        tx.outputs.forEach((_, vout) => this.store.spendCoin(tx.txid, vout));
        this.store.unindexTx(tx.txid, block.hash);
      }
      // Outputs created and spent inside this block are in its undo data too; they must not come
      // back (Core's DisconnectBlock restores per transaction, newest first, to the same effect).
      const createdHere = new Set(block.txs.map((tx) => tx.txid));
      for (const coin of this.store.takeUndo(block.hash)) {
        if (createdHere.has(coin.txid)) continue;
        this.store.addCoin({
          txid: coin.txid,
          vout: coin.vout,
          value: BigInt(coin.value),
          script: hexToBytes(coin.script),
          height: coin.height,
          coinbase: coin.coinbase,
        });
      }
      this.store.popChain(entry.height);
      this.store.setMeta("tip", entry.prevHash);
    });
    this.chain.pop();
    return block.txs.slice(1);
  }

  private isCandidate(entry: BlockIndexEntry): boolean {
    let cursor: BlockIndexEntry | undefined = entry;
    while (cursor) {
      if (cursor.invalid) return false;
      if (this.isInActiveChain(cursor.hash)) return true;
      cursor = this.index.get(cursor.prevHash);
    }
    return false;
  }

  /** Moves the active chain to the valid block with the most work (ties: first seen), Core-style. */
  activateBestChain(): void {
    for (;;) {
      let best = this.tip();
      for (const entry of this.index.values()) {
        if (entry.invalid) continue;
        const better = entry.chainwork > best.chainwork || (entry.chainwork === best.chainwork && entry.seq < best.seq);
        if (better && this.isCandidate(entry)) best = entry;
      }
      if (best.hash === this.tipHash) return;
      if (this.reorganizeTo(best)) return;
    }
  }

  /** Returns true when the chain now ends at `target`; false when a block on the way was invalid. */
  private reorganizeTo(target: BlockIndexEntry): boolean {
    const branch: BlockIndexEntry[] = [];
    let cursor: BlockIndexEntry | undefined = target;
    while (cursor && !this.isInActiveChain(cursor.hash)) {
      branch.unshift(cursor);
      cursor = this.index.get(cursor.prevHash);
    }
    if (!cursor) throw new Error(`block ${target.hash} does not connect to the active chain`);
    const disconnected: DecodedTransaction[][] = [];
    while (this.tipHash !== cursor.hash) disconnected.unshift(this.disconnectTip());
    this.log("reorganize", {
      fork: cursor.hash,
      forkHeight: cursor.height,
      newTip: target.hash,
      disconnected: disconnected.length,
    });
    let ok = true;
    for (const entry of branch) {
      const block = this.readBlock(entry.hash)!;
      try {
        this.store.transaction(() => this.applyBlock(block, entry, { checkScripts: true }));
      } catch (error) {
        if (!(error instanceof BlockInvalid)) throw error;
        this.chain.length = entry.height; // applyBlock may have pushed before failing; the DB rolled back
        this.markInvalid(entry.hash);
        this.log("block_invalid", { hash: entry.hash, reason: error.message });
        ok = false;
        break;
      }
    }
    this.resubmitToMempool(disconnected.flat());
    return ok;
  }

  /** Core's "disconnectpool" handling: transactions of disconnected blocks come back first, then the rest is re-checked. */
  private resubmitToMempool(returning: DecodedTransaction[]): void {
    const previous = [...this.mempool.values()];
    this.mempool.clear();
    this.mempoolSpends.clear();
    this.store.transaction(() => this.store.mempoolClear());
    const candidates: { raw: Uint8Array; time?: number }[] = [
      ...returning.map((tx) => ({ raw: serializeTransaction(tx) })),
      ...previous.map((entry) => ({ raw: entry.raw, time: entry.time })),
    ];
    for (const candidate of candidates) {
      try {
        this.acceptToMempool(candidate.raw, { allowHighFees: true, time: candidate.time });
      } catch (error) {
        this.log("mempool_tx_dropped", { reason: (error as Error).message });
      }
    }
  }

  private markInvalid(hash: string): void {
    const stack = [hash];
    this.store.transaction(() => {
      while (stack.length > 0) {
        const current = stack.pop()!;
        const entry = this.index.get(current);
        if (!entry) continue;
        entry.invalid = true;
        this.store.setInvalid(current, true);
        stack.push(...(this.children.get(current) ?? []));
      }
    });
  }

  /** dogecoind's invalidateblock: marks the block and its descendants invalid and reorganises away. */
  invalidateBlock(hash: string): void {
    const entry = this.index.get(hash);
    if (!entry) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
    if (entry.height === 0) throw new RpcFailure(RPC_MISC_ERROR, "Cannot invalidate the genesis block");
    this.markInvalid(hash);
    const disconnected: DecodedTransaction[][] = [];
    while (this.chain.length > entry.height && this.chain[entry.height] === hash)
      disconnected.unshift(this.disconnectTip());
    if (disconnected.length > 0) this.resubmitToMempool(disconnected.flat());
    this.activateBestChain();
  }

  /** dogecoind's reconsiderblock: clears the invalid mark of the block, its ancestors and descendants. */
  reconsiderBlock(hash: string): void {
    const entry = this.index.get(hash);
    if (!entry) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
    this.store.transaction(() => {
      const stack = [hash];
      while (stack.length > 0) {
        const current = stack.pop()!;
        const node = this.index.get(current)!;
        node.invalid = false;
        this.store.setInvalid(current, false);
        stack.push(...(this.children.get(current) ?? []));
      }
      let cursor = this.index.get(entry.prevHash);
      while (cursor && cursor.invalid) {
        cursor.invalid = false;
        this.store.setInvalid(cursor.hash, false);
        cursor = this.index.get(cursor.prevHash);
      }
    });
    this.activateBestChain();
  }

  // ---------------------------------------------------------------- faucet (devnet extra)

  faucetAddress(): string {
    return publicKeyToAddress(privateKeyToPublicKey(this.faucetKey), this.network);
  }

  /**
   * Pays `amount` koinu from the node's own faucet key to `address`, mining blocks to the faucet
   * until it has mature coins when needed. Returns the txid; the payment is output 0.
   */
  faucet(address: string, amount: bigint): string {
    const recipient = addressToOutputScript(address, this.network);
    if (amount < HARD_DUST_LIMIT) throw new RpcFailure(RPC_INVALID_PARAMETER, "Amount is below the dust limit");
    if (amount > 10_000_000n * 100_000_000n)
      throw new RpcFailure(RPC_INVALID_PARAMETER, "Amount is above the faucet limit of 10,000,000 DOGE");
    const publicKey = privateKeyToPublicKey(this.faucetKey);
    const ownScript = addressToOutputScript(this.faucetAddress(), this.network);
    const fee = 1_000_000n; // 0.01 DOGE: above the relay minimum for a one- or two-input payment
    for (let attempt = 0; attempt < 400; attempt++) {
      const coins = this.spendableFaucetCoins(ownScript);
      const selected: Coin[] = [];
      let total = 0n;
      for (const coin of coins) {
        selected.push(coin);
        total += coin.value;
        if (total >= amount + fee) break;
      }
      if (total < amount + fee) {
        this.generateToAddress(1, this.faucetAddress());
        continue;
      }
      const change = total - amount - fee;
      const tx: Transaction = {
        version: 1,
        inputs: selected.map((coin) => ({
          prevTxid: coin.txid,
          vout: coin.vout,
          scriptSig: new Uint8Array(0),
          sequence: 0xffffffff,
        })),
        outputs: [{ value: amount, script: recipient }],
        locktime: 0,
      };
      if (change >= SOFT_DUST_LIMIT) tx.outputs.push({ value: change, script: ownScript });
      tx.inputs.forEach((input, i) => {
        input.scriptSig = p2pkhScriptSig(signInput(tx, i, ownScript, this.faucetKey), publicKey);
      });
      return this.sendRawTransaction(serializeTransaction(tx), true);
    }
    throw new RpcFailure(RPC_MISC_ERROR, "faucet could not gather enough mature coins");
  }

  private spendableFaucetCoins(ownScript: Uint8Array): Coin[] {
    const nextHeight = this.height + 1;
    const confirmed: Coin[] = this.store
      .coinsByScript(ownScript)
      .filter((coin) => !coin.coinbase || coinbaseSpendableAt(this.network, coin.height, nextHeight))
      .filter((coin) => !this.mempoolSpends.has(outpointKey(coin.txid, coin.vout)))
      .map((coin) => ({ ...coin, inMempool: false }));
    const pending: Coin[] = [];
    const ownHex = bytesToHex(ownScript);
    for (const entry of this.mempool.values()) {
      if (this.ancestorCount([entry.tx.txid]) >= MAX_ANCESTORS - 1) continue;
      entry.tx.outputs.forEach((output, vout) => {
        if (bytesToHex(output.script) === ownHex && !this.mempoolSpends.has(outpointKey(entry.tx.txid, vout))) {
          pending.push({
            txid: entry.tx.txid,
            vout,
            value: output.value,
            script: output.script,
            height: MEMPOOL_HEIGHT,
            coinbase: false,
            inMempool: true,
          });
        }
      });
    }
    return [...confirmed.sort((a, b) => (b.value > a.value ? 1 : b.value < a.value ? -1 : 0)), ...pending];
  }
}

export class BlockInvalid extends DogeosError {
  constructor(reason: string) {
    super("unprocessable", "BLOCK_INVALID", reason);
  }
}

export { transactionSize };
