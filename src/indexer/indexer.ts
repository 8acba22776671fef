/**
 * The block follower: reads blocks from a ChainSource in height order and applies each in one
 * SQLite transaction (block row last). Before applying it checks the block's parent against the
 * stored tip; on a mismatch it walks back to the fork point, rolls every table back to it and
 * continues on the node's chain. A reorg deeper than `maxReorgDepth` stops the indexer.
 */
import {
  Block,
  DogeNetwork,
  OP,
  bytesToHex,
  concatBytes,
  decodeAddress,
  isCoinbase,
  outputScriptToAddress,
  parseBlock,
  parseHeader,
  parseScript,
  sha256,
} from "../doge";
import { extractCheckZkpUses, mayUseCheckZkp } from "../zkp";
import { InscriptionTracker, SpentInput } from "./inscriptions";
import { WalCheckpointer } from "./checkpointer";
import { indexPageSize } from "./database";
import { IndexProfile, SpentOutputPruner, claimIndexProfile } from "./profile";
import { CATCH_UP_DEFERRED_INDEXES } from "./schema";
import { ChainSource } from "./source";
import { IndexerStore } from "./store";
import { DogeosError } from "../errors";

export interface IndexerOptions {
  store: IndexerStore;
  source: ChainSource;
  network: DogeNetwork;
  /** First height to index (the seed's mainnet capture starts at 4,728,316). */
  startHeight?: number;
  /** Deepest reorg handled by rolling back; deeper ones stop the indexer. Default 100 blocks. */
  maxReorgDepth?: number;
  /**
   * What the index keeps (profile.ts): `full` (the default) or `attester`, which deletes spent
   * outputs deeper than maxReorgDepth that nothing an attester reads needs. Recorded in the index's
   * meta on its first use; an index built with another profile is refused.
   */
  profile?: IndexProfile;
  /** Most blocks per database transaction during catch-up (default 2000; near the tip it is one). */
  batchBlocks?: number;
  /** Most raw bytes held for one batch (default 128 MB). */
  batchBytes?: number;
  /** When further behind the node than this many blocks, read-side indexes are dropped until caught up (default 1000). */
  deferIndexesBehind?: number;
  log?: (event: string, fields?: Record<string, unknown>) => void;
  /**
   * Called after each committed batch while syncOnce() runs (the daemon's progress line and
   * gauges): the height written, the node's height this sync aims at, the batch's blocks and
   * transactions. Errors it throws are the caller's: they end the sync.
   */
  onProgress?: (progress: SyncProgress) => void;
  /** A batch is committed once its blocks took this long to read, even short of batchBlocks (default 2000 ms). */
  batchMs?: number;
  /**
   * SQLite file only: during a catch-up, WAL checkpoints run on a worker thread while the next batch
   * is applied (./checkpointer.ts). Default true; false keeps them in the indexer's commits.
   */
  backgroundCheckpoints?: boolean;
  /** Frames of WAL after which a catch-up waits for the background checkpoint (default: 256 MB of the index's pages). */
  maxWalFrames?: number;
}

export interface SyncProgress {
  indexedHeight: number;
  targetHeight: number;
  blocks: number;
  transactions: number;
  /** The batch's inputs (each coinbase's one included) and outputs: the work a transaction carries varies along a chain. */
  inputs: number;
  outputs: number;
}

export class ReorgTooDeepError extends DogeosError {
  constructor(
    readonly depth: number,
    readonly limit: number,
    readonly forkSearchedTo: number,
  ) {
    super(
      "conflict",
      "REORG_TOO_DEEP",
      `chain reorganisation deeper than ${limit} blocks (at least ${depth}); refusing to roll back automatically. Rebuild the index or raise maxReorgDepth.`,
      {
        details: { depth, limit, fork_searched_to: forkSearchedTo },
      },
    );
  }
}

export interface SyncResult {
  indexedHeight: number;
  blocksApplied: number;
  rolledBack: number;
}

export class Indexer {
  readonly store: IndexerStore;
  private readonly source: ChainSource;
  private readonly network: DogeNetwork;
  readonly startHeight: number;
  private readonly maxReorgDepth: number;
  private readonly batchBlocks: number;
  private readonly batchBytes: number;
  private readonly deferIndexesBehind: number;
  private readonly log: (event: string, fields?: Record<string, unknown>) => void;
  private readonly onProgress: (progress: SyncProgress) => void;
  private readonly batchMs: number;
  private readonly backgroundCheckpoints: boolean;
  /** null: MAX_WAL_BYTES in the index's pages. */
  private readonly maxWalFrames: number | null;
  private nodeHeight: number | null = null;
  private stopRequested = false;
  /** The attester profile's pruning of spent outputs (null for a full index). */
  private readonly pruner: SpentOutputPruner | null;
  /**
   * Attester profile, while outputs_by_spent_tx is deferred: the spends of the batches not yet
   * final (tx id, vout, spender id, vin), pruned by key at each batch's end (SpentOutputPruner.pruneSpends).
   */
  private readonly spends: number[] = [];
  private logSpends = false;
  /** Whether the store's UTXO cache was filled for the catch-up under way (reset when it ends). */
  private utxosWarmed = false;

  /** Asks a running syncOnce() to return after the batch it is writing (clean shutdown). */
  stop(): void {
    this.stopRequested = true;
  }

  constructor(options: IndexerOptions) {
    this.store = options.store;
    this.source = options.source;
    this.network = options.network;
    this.maxReorgDepth = options.maxReorgDepth ?? 100;
    // Larger batches dirty fewer pages per transaction (a random-key B-tree leaf is written once per
    // batch, however many rows it takes): 2000 blocks against 500 cut commit time per transaction
    // by two thirds and the whole rate by a fifth at 2-2.6M transactions (bench:scale chain, seed 20),
    // for about 250 MB more peak RSS.
    this.batchBlocks = Math.max(1, options.batchBlocks ?? 2000);
    this.batchBytes = Math.max(1, options.batchBytes ?? 128 * 1024 * 1024);
    this.deferIndexesBehind = options.deferIndexesBehind ?? 1000;
    this.log = options.log ?? (() => undefined);
    this.onProgress = options.onProgress ?? (() => undefined);
    this.batchMs = Math.max(1, options.batchMs ?? 2_000);
    this.backgroundCheckpoints = options.backgroundCheckpoints ?? true;
    this.maxWalFrames = options.maxWalFrames === undefined ? null : Math.max(1, options.maxWalFrames);
    // Before start_height is written: an index that has one but no profile predates profiles (full).
    const profile = options.profile ?? "full";
    claimIndexProfile(this.store.db, profile);
    const storedStart = this.store.getMeta("start_height");
    const requested = options.startHeight ?? 0;
    if (storedStart !== null && Number(storedStart) !== requested) {
      throw new Error(
        `this index was started at height ${storedStart}, not ${requested}; use a new database to change the start height`,
      );
    }
    if (storedStart === null) {
      this.store.transaction(() => {
        this.store.setMeta("start_height", String(requested));
        this.store.setMeta("network", this.network.name);
      });
    } else if (this.store.getMeta("network") !== this.network.name) {
      throw new Error(`this index is for ${this.store.getMeta("network")}, not ${this.network.name}`);
    }
    this.startHeight = requested;
    this.pruner = profile === "attester" ? new SpentOutputPruner(this.store.db, this.maxReorgDepth) : null;
    this.inscriptions = new InscriptionTracker(this.store.trackerDatabase(), this.store);
  }

  /** Height of the last fully written block, or startHeight - 1 when nothing is indexed. */
  indexedHeight(): number {
    const tip = this.store.tip();
    return tip ? tip.height : this.startHeight - 1;
  }

  status(): {
    indexedHeight: number;
    indexedHash: string | null;
    nodeHeight: number | null;
    startHeight: number;
    progress: number;
  } {
    const tip = this.store.tip();
    const indexedHeight = tip ? tip.height : this.startHeight - 1;
    const total = this.nodeHeight === null ? null : this.nodeHeight - this.startHeight + 1;
    const done = indexedHeight - this.startHeight + 1;
    return {
      indexedHeight,
      indexedHash: tip ? tip.hash : null,
      nodeHeight: this.nodeHeight,
      startHeight: this.startHeight,
      progress: total === null || total <= 0 ? (total === 0 ? 1 : 0) : Math.min(1, done / total),
    };
  }

  /** Indexes up to the node's tip (handling reorgs on the way); returns what it did. */
  async syncOnce(): Promise<SyncResult> {
    let blocksApplied = 0;
    let rolledBack = 0;
    const nodeHeight = await this.source.getTipHeight();
    this.nodeHeight = nodeHeight;
    // Status for readers of the database (the explorer's /status): the node's height when last seen.
    this.store.transaction(() => {
      this.store.setMeta("node_height", String(nodeHeight));
      this.store.setMeta("node_seen_at", String(Math.floor(Date.now() / 1000)));
    });
    rolledBack += await this.reconcileTip(nodeHeight);
    const catchingUp = nodeHeight - this.indexedHeight() > this.deferIndexesBehind;
    if (catchingUp) {
      this.deferReadIndexes();
      // The UTXO cache is empty when a catch-up starts (a restart, or the end of the last catch-up
      // freed it): it is filled from the index's unspent outputs once, instead of every old spend
      // reading the index until it refills.
      if (!this.utxosWarmed) {
        this.utxosWarmed = true;
        const started = Date.now();
        const outputs = this.store.warmUtxoCache();
        if (outputs > 0) this.log("utxo_cache_warmed", { outputs, ms: Date.now() - started });
      }
    }
    let next = this.indexedHeight() + 1;
    const checkpointer = catchingUp ? this.startCheckpointer() : null;
    try {
      while (next <= nodeHeight && !this.stopRequested) {
        const batch: BatchBlock[] = [];
        let batchBytes = 0;
        const readStarted = Date.now();
        while (
          batch.length < this.batchBlocks &&
          batchBytes < this.batchBytes &&
          next + batch.length <= nodeHeight &&
          !this.stopRequested &&
          (batch.length === 0 || Date.now() - readStarted < this.batchMs)
        ) {
          const height = next + batch.length;
          const hash = await this.source.getBlockHash(height);
          if (hash === null) break;
          const raw = await this.source.getRawBlock(hash);
          // Only the header now: the transactions are parsed as the block is applied, so a batch
          // holds its raw bytes, not 2000 blocks of parsed objects that would outlive V8's young
          // generation (docs/operations.md "Sizing").
          const header = parseHeader(raw);
          if (!header.ok || header.value.hash !== hash) {
            const parsed = parseBlock(raw);
            if (!parsed.ok)
              throw new Error(`block ${hash} at height ${height} does not parse: ${parsed.error.message}`);
            throw new Error(`node returned block ${parsed.value.hash} for hash ${hash}`);
          }
          batch.push({ raw, hash, prevHash: header.value.prevHash, height, block: null });
          batchBytes += raw.length;
        }
        if (batch.length === 0) break;
        const expectedParent = batch[0].height === this.startHeight ? null : (this.store.tip()?.hash ?? null);
        if (expectedParent !== null && batch[0].prevHash !== expectedParent) {
          rolledBack += await this.rollbackToFork();
          next = this.indexedHeight() + 1;
          continue;
        }
        // Blocks inside a batch must link up too (the node may have reorganised while we read).
        const broken = batch.findIndex((item, i) => i > 0 && item.prevHash !== batch[i - 1].hash);
        const usable = broken === -1 ? batch : batch.slice(0, broken);
        let transactions = 0;
        let inputs = 0;
        let outputs = 0;
        const deferred = this.store.getMeta("read_indexes_deferred") === "1";
        // On SQLite only: a statement per spend is a round trip on PostgreSQL, whose catch-up is pruned at its end.
        this.logSpends = this.pruner !== null && deferred && this.store.db.dialect === "sqlite";
        // A full index logs the spends of written outputs meanwhile (schema.ts SPEND_LOG); an
        // attester index deletes spent outputs by key as it goes instead (the pruner above).
        this.store.logSpends(deferred && this.pruner === null);
        // Undo entries below the deepest possible rollback are no longer needed once the batch ends:
        // those of its own blocks below that height are not written at all.
        const lastHeight = usable[usable.length - 1].height;
        const journalFloor = lastHeight - this.maxReorgDepth - 1;
        if (checkpointer) await checkpointer.worker.beforeBatch();
        try {
          this.store.transaction(() => {
            this.inscriptions.journalFrom(journalFloor);
            // PostgreSQL reads the batch's spent outputs in one query first, so it parses every block now.
            if (this.store.prefetches) {
              for (const item of usable) item.block = parsedBlock(item);
              this.store.prefetchOutputs(this.spentBefore(usable));
            }
            for (const item of usable) {
              const block = item.block ?? parsedBlock(item);
              item.block = null;
              this.applyBlock(block, item.height);
              transactions += block.txs.length;
              for (const tx of block.txs) {
                inputs += tx.inputs.length;
                outputs += tx.outputs.length;
              }
            }
            this.store.flushWrites();
            this.inscriptions.pruneJournal(journalFloor);
            // Kept across restarts: a rollback to below journalFloor - 1 would need entries now gone.
            if (journalFloor > this.journalPrunedBelow()) this.store.setMeta(JOURNAL_FLOOR_KEY, String(journalFloor));
            // So are spent outputs, on an attester index.
            if (this.logSpends) this.pruner!.pruneSpends(this.spends, lastHeight);
            else if (this.pruner && !deferred) this.pruner.afterBatch(lastHeight);
          });
        } catch (error) {
          this.store.discardPending();
          this.spends.length = 0;
          // Address ids of the failed batch are given out again: p2shCache is keyed by them.
          this.p2shCache.clear();
          // The batch's transaction rolled back: counters held in memory must follow.
          this.inscriptions.reloadCounters();
          throw error;
        }
        checkpointer?.worker.afterCommit();
        blocksApplied += usable.length;
        next += usable.length;
        this.log("indexed", { height: next - 1, blocks: usable.length });
        this.onProgress({
          indexedHeight: next - 1,
          targetHeight: nodeHeight,
          blocks: usable.length,
          transactions,
          inputs,
          outputs,
        });
      }
    } finally {
      if (checkpointer) await this.stopCheckpointer(checkpointer);
    }
    if (this.indexedHeight() >= nodeHeight) this.restoreReadIndexes();
    return { indexedHeight: this.indexedHeight(), blocksApplied, rolledBack };
  }

  /** The outputs a batch spends that it did not create itself and that are not in memory. */
  private spentBefore(batch: readonly BatchBlock[]): { txid: string; vout: number }[] {
    const created = new Set<string>();
    for (const { block } of batch) for (const tx of block!.txs) created.add(tx.txid);
    const wanted: { txid: string; vout: number }[] = [];
    for (const { block } of batch) {
      for (const tx of block!.txs) {
        if (isCoinbase(tx)) continue;
        for (const input of tx.inputs) {
          if (created.has(input.prevTxid) || this.store.hasRecentOutput(input.prevTxid, input.vout)) continue;
          wanted.push({ txid: input.prevTxid, vout: input.vout });
        }
      }
    }
    return wanted;
  }

  /**
   * The background checkpointer of a catch-up (SQLite file only): the indexer's own automatic
   * checkpoint is raised to twice the worker's limit meanwhile, a bound should the worker fall
   * behind, and set back to its own size should the worker fail.
   */
  private startCheckpointer(): { worker: WalCheckpointer; autocheckpoint: number } | null {
    const db = this.store.db;
    if (!this.backgroundCheckpoints || db.dialect !== "sqlite" || db.location === ":memory:") return null;
    const autocheckpoint = Number(
      db.prepare<{ wal_autocheckpoint: number }>("PRAGMA wal_autocheckpoint").get()?.wal_autocheckpoint ?? 0,
    );
    const maxWalFrames = this.maxWalFrames ?? Math.max(1, Math.floor(MAX_WAL_BYTES / indexPageSize(db)));
    const worker = new WalCheckpointer(db.location, maxWalFrames, (error) => {
      db.exec(`PRAGMA wal_autocheckpoint = ${autocheckpoint}`);
      this.log("wal_checkpointer_failed", { error });
    });
    db.exec(`PRAGMA wal_autocheckpoint = ${maxWalFrames * 2}`);
    return { worker, autocheckpoint };
  }

  private async stopCheckpointer(checkpointer: { worker: WalCheckpointer; autocheckpoint: number }): Promise<void> {
    await checkpointer.worker.close();
    this.store.db.exec(`PRAGMA wal_autocheckpoint = ${checkpointer.autocheckpoint}`);
    this.log("wal_checkpoints", { ...checkpointer.worker.totals, failed: checkpointer.worker.failed });
  }

  /** Drops the read-side indexes for a long catch-up (recorded in meta, so a restart finishes the job). */
  private deferReadIndexes(): void {
    if (this.store.getMeta("read_indexes_deferred") === "1") return;
    this.store.transaction(() => {
      for (const index of CATCH_UP_DEFERRED_INDEXES) this.store.db.exec(`DROP INDEX IF EXISTS ${index.name}`);
      this.store.setMeta("read_indexes_deferred", "1");
    });
    this.log("read_indexes_deferred", { indexes: CATCH_UP_DEFERRED_INDEXES.map((i) => i.name) });
  }

  /** Builds the deferred indexes again once the index has caught up with the node. */
  private restoreReadIndexes(): void {
    if (this.store.getMeta("read_indexes_deferred") !== "1") return;
    // The catch-up is over: its UTXO cache's memory goes to the builds (a later one fills it again).
    this.store.releaseUtxoCache();
    this.utxosWarmed = false;
    const started = Date.now();
    this.log("read_indexes_restoring", { indexes: CATCH_UP_DEFERRED_INDEXES.length });
    // SQLite sorts an index build in temp storage: in memory (the index's temp_store setting) that
    // took the process past 4 GB on a 10M-transaction index (bench:scale); on disk, 570 MB. Its
    // sorter also holds up to the page cache's size in memory per sorted run, beside the page cache
    // itself: with 256 MB, rebuilding address_history_by_address of a 10M index took the process
    // from 312 to 569 MB, with 64 MB from 113 to 178 MB, in the same 46 s. So the builds run with
    // a page cache of BUILD_CACHE_MB (after the attester pruner's pass, which keeps the indexer's)
    // and the indexer's own is set back afterwards.
    const sqlite = this.store.db.dialect === "sqlite";
    const cacheSize = sqlite
      ? this.store.db.prepare<{ cache_size: number }>("PRAGMA cache_size").get()?.cache_size
      : undefined;
    if (sqlite) this.store.db.exec("PRAGMA temp_store = FILE");
    try {
      this.store.transaction(() => {
        // First the attester profile's spent outputs, one pass in key order: fewer rows to index.
        if (this.pruner) {
          const pruneStarted = Date.now();
          const deleted = this.pruner.fullPass(this.indexedHeight());
          this.spends.length = 0;
          this.log("spent_outputs_pruned", { deleted, ms: Date.now() - pruneStarted });
        }
        if (sqlite) this.store.db.exec(`PRAGMA cache_size = -${BUILD_CACHE_MB * 1024}`);
        // Then the spends the catch-up logged, marked on their outputs in key order (the partial
        // indexes built next select on them), and its balance changes, added up per address.
        this.store.logSpends(false);
        const mergeStarted = Date.now();
        const merged = this.store.mergeLogs();
        if (merged.spends > 0 || merged.addresses > 0)
          this.log("catch_up_logs_merged", { ...merged, ms: Date.now() - mergeStarted });
        CATCH_UP_DEFERRED_INDEXES.forEach((index, i) => {
          const indexStarted = Date.now();
          this.store.db.exec(index.sql);
          this.log("read_index_restored", {
            index: index.name,
            done: i + 1,
            of: CATCH_UP_DEFERRED_INDEXES.length,
            ms: Date.now() - indexStarted,
          });
        });
        this.store.setMeta("read_indexes_deferred", "0");
      });
    } finally {
      if (sqlite) {
        this.store.db.exec("PRAGMA temp_store = MEMORY");
        if (cacheSize !== undefined) this.store.db.exec(`PRAGMA cache_size = ${cacheSize}`);
      }
    }
    // PostgreSQL plans from table statistics: after a bulk catch-up they describe empty tables
    // until autovacuum comes round, so they are gathered now (SQLite plans from its indexes alone).
    if (this.store.db.dialect === "postgres") this.store.db.exec("ANALYZE");
    this.log("read_indexes_restored", { ms: Date.now() - started });
  }

  /** The height below which the undo journal has been pruned (-Infinity before the first prune is recorded). */
  private journalPrunedBelow(): number {
    const recorded = this.store.getMeta(JOURNAL_FLOOR_KEY);
    return recorded === null ? -Infinity : Number(recorded);
  }

  /** If the node no longer has our tip in its active chain, roll back to the fork point. */
  private async reconcileTip(nodeHeight: number): Promise<number> {
    const tip = this.store.tip();
    if (!tip) return 0;
    const nodeHash = tip.height <= nodeHeight ? await this.source.getBlockHash(tip.height) : null;
    if (nodeHash === tip.hash) return 0;
    return this.rollbackToFork();
  }

  /** Finds the highest stored block the node still has, and rolls back to it. Returns blocks removed. */
  private async rollbackToFork(): Promise<number> {
    const tip = this.store.tip();
    if (!tip) return 0;
    let height = tip.height;
    // An attester index has deleted the spends at and below this height (as of its highest tip).
    const pruned = this.pruner?.prunedToHeight() ?? null;
    // The undo journal was pruned below this height, as of the highest tip the index had: after
    // earlier rollbacks lowered the tip, a rollback within the limit of the tip it has now can still
    // reach below it, and would undo the inscription tables from an incomplete journal.
    const journalFloor = this.journalPrunedBelow();
    for (;;) {
      const depth = tip.height - height;
      if (depth > this.maxReorgDepth) throw new ReorgTooDeepError(depth, this.maxReorgDepth, height);
      if (height < journalFloor - 1)
        throw new ReorgTooDeepError(journalFloor + this.maxReorgDepth + 1 - height, this.maxReorgDepth, height);
      if (pruned !== null && height < pruned)
        throw new ReorgTooDeepError(pruned + this.maxReorgDepth - height, this.maxReorgDepth, height);
      if (height < this.startHeight) break;
      const stored = this.store.blockAt(height);
      const nodeHash = await this.source.getBlockHash(height);
      if (stored && nodeHash === stored.hash) break;
      height -= 1;
    }
    const removed = tip.height - height;
    this.log("reorg", { from: tip.height, forkHeight: height, depth: removed });
    this.store.transaction(() => {
      this.store.rollbackAbove(height);
      this.inscriptions.rollbackAbove(height);
    });
    // Spends above the fork are undone (a leftover would not match its row; dropped all the same).
    this.spends.length = 0;
    // Address ids above the fork are given out again: p2shCache is keyed by them.
    this.p2shCache.clear();
    return removed;
  }

  private readonly addressCache = new Map<string, string | null>();
  private readonly inscriptions: InscriptionTracker;
  /** One transaction's koinu in and out per address id, in first-seen order (reused: cleared per transaction). */
  private readonly received = new Map<number, bigint>();
  private readonly sent = new Map<number, bigint>();

  /** Address of an output script, memoised: base58 encoding is a large share of indexing time. */
  private addressOf(script: Uint8Array): string | null {
    if (script.length > 64) return outputScriptToAddress(script, this.network);
    const key = Buffer.from(script.buffer, script.byteOffset, script.byteLength).toString("latin1");
    const cached = this.addressCache.get(key);
    if (cached !== undefined) return cached;
    const address = outputScriptToAddress(script, this.network);
    if (this.addressCache.size >= 200_000) this.addressCache.clear();
    this.addressCache.set(key, address);
    return address;
  }

  /**
   * Whether the address with id `addressId` is pay-to-script-hash, memoised like addressOf (a
   * signature holds the byte OP_CHECKZKP often enough to ask for most inputs): its text is read
   * from the index only on a miss.
   */
  private readonly p2shCache = new Map<number, boolean>();

  private isP2shAddress(addressId: number): boolean {
    const cached = this.p2shCache.get(addressId);
    if (cached !== undefined) return cached;
    let p2sh = false;
    try {
      p2sh = decodeAddress(this.store.addressTextOf(addressId), this.network).type === "scripthash";
    } catch {
      p2sh = false;
    }
    if (this.p2shCache.size >= 100_000) this.p2shCache.clear();
    this.p2shCache.set(addressId, p2sh);
    return p2sh;
  }

  /** Writes one block's rows; runs inside the caller's transaction. The block row goes last. */
  private applyBlock(block: Block, height: number): void {
    const store = this.store;
    const tracker = this.inscriptions;
    const received = this.received;
    const sent = this.sent;
    tracker.beginBlock();
    const first = store.nextIds();
    let coinbaseAddressIds: (number | null)[] = [];
    const txs = block.txs;
    for (let position = 0; position < txs.length; position++) {
      const tx = txs[position];
      const coinbase = isCoinbase(tx);
      const txId = store.assignTxId(tx.txid);
      received.clear();
      sent.clear();
      const inputs = tx.inputs;
      const outputs = tx.outputs;
      const spentInputs: SpentInput[] = new Array(coinbase ? 0 : inputs.length);
      const outputAddressIds: (number | null)[] = new Array(outputs.length);
      let inputTotal: bigint | null = coinbase ? null : 0n;
      if (!coinbase) {
        for (let vin = 0; vin < inputs.length; vin++) {
          const input = inputs[vin];
          const spent = store.outputOf(input.prevTxid, input.vout);
          spentInputs[vin] = {
            txid: input.prevTxid,
            txId: spent ? spent.txId : null,
            vout: input.vout,
            value: spent ? spent.value : 0n,
            addressId: spent ? spent.addressId : null,
          };
          if (!spent) {
            // Outputs created before the start height are unknown: the fee stays unknown too.
            inputTotal = null;
            continue;
          }
          if (inputTotal !== null) inputTotal += spent.value;
          store.spendOutput(input.prevTxid, spent, txId, vin);
          if (this.logSpends) this.spends.push(spent.txId, spent.vout, txId, vin);
          if (spent.addressId !== null) sent.set(spent.addressId, (sent.get(spent.addressId) ?? 0n) + spent.value);
        }
      }
      let outputTotal = 0n;
      for (let vout = 0; vout < outputs.length; vout++) {
        const output = outputs[vout];
        outputTotal += output.value;
        const script = output.script;
        if (script.length > 0 && script[0] === OP.OP_RETURN) {
          outputAddressIds[vout] = null;
          const payload = opReturnPayload(script);
          store.insertOpReturn(
            tx.txid,
            vout,
            height,
            position,
            payload,
            bytesToHex(payload.subarray(0, 4)),
            bytesToHex(sha256(payload)),
          );
          continue;
        }
        const address = this.addressOf(script);
        const stored = store.insertOutput(tx.txid, txId, vout, outputs.length, output.value, script, address);
        outputAddressIds[vout] = stored.addressId;
        if (stored.addressId !== null)
          received.set(stored.addressId, (received.get(stored.addressId) ?? 0n) + output.value);
      }
      if (mayUseCheckZkp(tx)) {
        const uses = extractCheckZkpUses(tx, height, {
          // P2SH outputs have P2SH addresses: no need to read the spent script back.
          spendsP2sh: (inputIndex) => {
            const input = spentInputs[inputIndex];
            if (!input || input.txId === null || input.addressId === null) return undefined;
            return this.isP2shAddress(input.addressId);
          },
        });
        for (const use of uses) store.insertZkpUse(use, position);
      }
      const fee = inputTotal === null ? null : (inputTotal as bigint) - outputTotal;
      if (coinbase) coinbaseAddressIds = outputAddressIds;
      else tracker.applyTransaction(tx, txId, position, height, spentInputs, outputAddressIds, fee);
      store.insertTx(txId, tx.txid, height, position, tx.size, fee, coinbase, inputs.length, outputs.length);
      // Addresses in the order they were first met: those paid, then those that only spent.
      for (const [addressId, got] of received) this.addHistory(addressId, txId, got, sent.get(addressId) ?? 0n);
      for (const [addressId, gave] of sent) if (!received.has(addressId)) this.addHistory(addressId, txId, 0n, gave);
    }
    if (txs.length > 0 && isCoinbase(txs[0])) tracker.endBlock(txs[0], height, coinbaseAddressIds);
    store.insertBlock(
      {
        height,
        hash: block.hash,
        prevHash: block.header.prevHash,
        time: block.header.time,
        txCount: txs.length,
        size: block.size,
      },
      first,
    );
  }

  /**
   * One history row of the current transaction. The counterparty is the other side as a wallet
   * shows it: for money in, the first other spender; for money out, the first other recipient
   * (null for a coinbase or a transaction with no other party).
   */
  private addHistory(addressId: number, txId: number, got: bigint, gave: bigint): void {
    let counterparty: number | null = null;
    for (const other of (gave === 0n ? this.sent : this.received).keys())
      if (other !== addressId) {
        counterparty = other;
        break;
      }
    this.store.addHistory(addressId, txId, got, gave, counterparty);
  }
}

/** The page cache (MB) the deferred indexes are built with (restoreReadIndexes): what bounds the sorter's memory. */
const BUILD_CACHE_MB = 64;

/** WAL after which a catch-up waits for its background checkpoint (IndexerOptions.maxWalFrames): 256 MB. */
const MAX_WAL_BYTES = 256 * 1024 * 1024;

/** Meta key: the journal keeps no entry below this height (the highest floor any batch pruned to). */
const JOURNAL_FLOOR_KEY = "journal_pruned_below";

/** A block of a catch-up batch: read and its header checked; its transactions parsed when applied. */
interface BatchBlock {
  raw: Uint8Array;
  hash: string;
  prevHash: string;
  height: number;
  block: Block | null;
}

function parsedBlock(item: BatchBlock): Block {
  const parsed = parseBlock(item.raw);
  if (!parsed.ok)
    throw new Error(`block ${item.hash} at height ${item.height} does not parse: ${parsed.error.message}`);
  return parsed.value;
}

/**
 * The payload of an OP_RETURN output: the concatenated data of the pushes after OP_RETURN when the
 * rest of the script is push-only (the usual form), otherwise the raw bytes after the opcode.
 */
export function opReturnPayload(script: Uint8Array): Uint8Array {
  const rest = script.subarray(1);
  const parsed = parseScript(rest);
  if (parsed.malformed || parsed.chunks.some((chunk) => chunk.opcode > OP.OP_16 || chunk.opcode === OP.OP_RESERVED))
    return rest;
  const parts = parsed.chunks.map(
    (chunk) =>
      chunk.data ??
      (chunk.opcode === OP.OP_0
        ? new Uint8Array(0)
        : Uint8Array.of(chunk.opcode === OP.OP_1NEGATE ? 0x81 : chunk.opcode - OP.OP_1 + 1)),
  );
  return concatBytes(...parts);
}
