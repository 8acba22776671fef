/**
 * WAL checkpoints off the indexer's thread during a catch-up on SQLite.
 *
 * A commit appends the batch's pages to the write-ahead log; a checkpoint copies them into the
 * database file (and syncs both). On the indexer's own connection the checkpoint runs inside the
 * commit that crosses `wal_autocheckpoint`, so the catch-up waits for it: at 10M transactions that
 * was about half of the commit's time. Here a worker thread with its own connection
 * (./checkpoint-worker.cjs) runs a PASSIVE checkpoint after each commit while the indexer reads and
 * applies the next batch, on the machine's other core.
 *
 * The log is written from its start again only by a commit whose transaction began after a
 * checkpoint had copied every frame (https://www.sqlite.org/wal.html, "Avoiding Excessively Large
 * WAL Files"). A catch-up begins its next batch right after a commit, so the log would only grow:
 * once the worker reports more than `maxLogFrames` frames, beforeBatch() waits for the checkpoint
 * under way, and the batch that follows starts the log over. The indexer's own
 * `wal_autocheckpoint` stays set, higher, as a bound should the worker fall behind or fail.
 */
import path from "node:path";
import { Worker } from "node:worker_threads";

/** What one checkpoint did, as SQLite's wal_checkpoint answers (frames), and how long it took. */
interface CheckpointReport {
  log: number;
  checkpointed: number;
  busy: number;
  ms: number;
}

interface Answer extends Partial<CheckpointReport> {
  id: number;
  error?: string;
  ready?: boolean;
}

export class WalCheckpointer {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, (answer: Answer) => void>();
  private running: Promise<void> | null = null;
  /** A commit came while a checkpoint ran: another follows it. */
  private again = false;
  /** Commits since the checkpoint under way was asked for (frames it will not copy). */
  private backlog = 0;
  /** Frames in the log by the last report (0 once a wait has seen all of them copied). */
  private logFrames = 0;
  private failure: string | null = null;
  private exited = false;
  private closing = false;
  /** Settles once the worker's connection is open (or it failed): tests start writing after it. */
  readonly ready: Promise<void>;
  private markReady: () => void = () => undefined;
  /** Totals for the indexer's log line. */
  readonly totals = { checkpoints: 0, checkpointMs: 0, waits: 0, waitedMs: 0 };

  constructor(
    file: string,
    private readonly maxLogFrames: number,
    private readonly onFailure: (message: string) => void,
  ) {
    this.ready = new Promise<void>((resolve) => (this.markReady = resolve));
    this.worker = new Worker(path.join(__dirname, "checkpoint-worker.cjs"), { workerData: { file } });
    this.worker.unref();
    this.worker.on("message", (answer: Answer) => {
      if (answer.id === 0) {
        if (answer.error !== undefined) this.fail(answer.error);
        return this.markReady();
      }
      const resolve = this.waiting.get(answer.id);
      this.waiting.delete(answer.id);
      resolve?.(answer);
    });
    this.worker.on("error", (error) => this.fail(error.message));
    this.worker.on("exit", () => {
      this.exited = true;
      if (!this.closing) this.fail("the checkpoint worker exited");
    });
  }

  /** True once the worker failed: the indexer's own checkpoints carry on alone. */
  get failed(): boolean {
    return this.failure !== null;
  }

  /** Call after each commit: the worker copies the log into the database file in the background. */
  afterCommit(): void {
    if (this.failure !== null) return;
    if (this.running !== null) {
      this.again = true;
      this.backlog += 1;
      return;
    }
    this.running = this.checkpoint();
  }

  /**
   * Call before a batch's transaction: when the log has grown past maxLogFrames, or the worker is
   * two commits behind (the last report is that old), waits until the checkpoints under way have
   * copied every committed frame, so that this batch's commit writes the log from its start.
   */
  async beforeBatch(): Promise<void> {
    if (this.failure !== null || (this.logFrames <= this.maxLogFrames && this.backlog < 2)) return;
    const started = Date.now();
    while (this.running !== null) await this.running;
    this.totals.waits += 1;
    this.totals.waitedMs += Date.now() - started;
    this.logFrames = 0;
  }

  /** Waits for the checkpoints under way, then ends the worker and its connection. */
  async close(): Promise<void> {
    while (this.running !== null) await this.running;
    this.closing = true;
    if (!this.exited) {
      // Held until the worker has gone: otherwise a process with nothing else to do ends right here.
      this.worker.ref();
      await new Promise<void>((resolve) => {
        this.worker.once("exit", () => resolve());
        this.worker.postMessage({ op: "close" });
      });
    }
  }

  private async checkpoint(): Promise<void> {
    // An answer awaited keeps the process alive (the worker alone does not).
    this.worker.ref();
    do {
      this.again = false;
      this.backlog = 0;
      const id = this.nextId++;
      const answer = await new Promise<Answer>((resolve) => {
        this.waiting.set(id, resolve);
        this.worker.postMessage({ op: "checkpoint", id });
      });
      if (answer.error !== undefined) {
        this.fail(answer.error);
        break;
      }
      this.totals.checkpoints += 1;
      this.totals.checkpointMs += answer.ms ?? 0;
      this.logFrames = answer.log ?? 0;
    } while (this.again && this.failure === null);
    this.worker.unref();
    this.running = null;
  }

  private fail(message: string): void {
    if (this.failure !== null) return;
    this.failure = message;
    this.markReady();
    for (const resolve of this.waiting.values()) resolve({ id: 0, error: message });
    this.waiting.clear();
    this.onFailure(message);
  }
}
