/**
 * The relayer's L2 scan: request events from a stored block cursor, so that a restart resumes where
 * the last scan ended. Each batch of blocks is recorded in one SQLite transaction together with the
 * cursor (the last block scanned and its hash). Before scanning on, the stored block's hash is
 * compared with the chain's: when it changed (an L2 reorg), the last `reorgDepth` blocks are scanned
 * again. Jobs are keyed by their id, so a block seen twice never makes a second job; a job whose
 * request left the chain is found out by the worker, which reads `jobOf` before acting.
 */
import type { JobLogSource } from "./l2";
import type { RelayerStore } from "./store";

export interface JobScannerOptions {
  source: JobLogSource;
  store: RelayerStore;
  /** First block scanned when the database has no cursor yet (the services' deployment block). */
  fromBlock?: number;
  /** Blocks the scan stays behind the head (0: up to the head). */
  confirmations?: number;
  /** Blocks scanned again when the cursor's block was replaced (default 12). */
  reorgDepth?: number;
  /** Most blocks per getLogs call (default 2000). */
  maxBlockRange?: number;
  log?: (event: string, fields: Record<string, unknown>) => void;
}

export interface ScanResult {
  /** First and last block scanned (null when there was nothing new). */
  fromBlock: number | null;
  toBlock: number | null;
  head: number;
  /** Jobs recorded for the first time. */
  newJobs: number;
  /** Whether the cursor's block had been replaced. */
  reorg: boolean;
}

export class JobScanner {
  private readonly fromBlock: number;
  private readonly confirmations: number;
  private readonly reorgDepth: number;
  private readonly maxBlockRange: number;
  private readonly log: NonNullable<JobScannerOptions["log"]>;

  constructor(private readonly options: JobScannerOptions) {
    this.fromBlock = options.fromBlock ?? 0;
    this.confirmations = options.confirmations ?? 0;
    this.reorgDepth = options.reorgDepth ?? 12;
    this.maxBlockRange = options.maxBlockRange ?? 2000;
    this.log = options.log ?? (() => undefined);
    for (const [name, value, min] of [
      ["fromBlock", this.fromBlock, 0],
      ["confirmations", this.confirmations, 0],
      ["reorgDepth", this.reorgDepth, 1],
      ["maxBlockRange", this.maxBlockRange, 1],
    ] as const) {
      if (!Number.isSafeInteger(value) || value < min)
        throw new RangeError(`${name} must be an integer of at least ${min}, got ${value}`);
    }
  }

  /** Scans from the cursor to the head (less the confirmations), recording new jobs. */
  async scan(): Promise<ScanResult> {
    const { source, store } = this.options;
    const head = await source.head();
    const target = head - this.confirmations;
    const cursor = store.cursor();
    let from = cursor ? cursor.blockNumber + 1 : this.fromBlock;
    let reorg = false;
    if (cursor) {
      const hash = cursor.blockNumber <= head ? await source.blockHash(cursor.blockNumber) : null;
      if (hash !== cursor.blockHash) {
        reorg = true;
        // Back to `reorgDepth` blocks before the replaced one (never past the head), recorded at once.
        const back = Math.min(Math.max(this.fromBlock, cursor.blockNumber - this.reorgDepth + 1) - 1, head);
        const backHash = back >= this.fromBlock ? await source.blockHash(back) : null;
        if (backHash === null) store.clearCursor();
        else store.setCursor({ blockNumber: back, blockHash: backHash });
        from = backHash === null ? this.fromBlock : back + 1;
        this.log("relayer_l2_reorg", {
          cursor_block: cursor.blockNumber,
          stored_hash: cursor.blockHash,
          chain_hash: hash,
          rescan_from: from,
        });
      }
    }
    const scanFrom = from;
    let newJobs = 0;
    let scannedTo: number | null = null;
    while (from <= target) {
      const to = Math.min(target, from + this.maxBlockRange - 1);
      const before = await source.blockHash(to);
      const jobs = await source.jobEvents(from, to);
      const after = await source.blockHash(to);
      // The chain moved under the read: try again on the next scan, from the same cursor.
      if (before === null || before !== after) {
        this.log("relayer_l2_moved_during_scan", { from, to });
        break;
      }
      const added = store.transaction(() => {
        const fresh = jobs.filter((job) => store.insert(job));
        store.setCursor({ blockNumber: to, blockHash: before });
        return fresh;
      });
      for (const job of added) {
        this.log("relayer_job_seen", {
          job_id: job.jobId,
          kind: job.kind,
          contract: job.contract,
          l2_block: job.l2Block,
          deadline: job.deadline,
        });
      }
      newJobs += added.length;
      scannedTo = to;
      from = to + 1;
    }
    return { fromBlock: scannedTo === null ? null : scanFrom, toBlock: scannedTo, head, newJobs, reorg };
  }
}
