/**
 * The relayer's database: the L2 cursor (last scanned block and its hash) and one row per job
 * announced by DogeInscriber or DogeAnchor, with what was done for it on the base chain and how far
 * it got. One SQLite file per relayer (src/db/sqlite.ts: WAL, numbered migrations, schema refusal).
 *
 * A job moves seen -> submitted -> l1_done -> settled, or ends expired, refunded, dropped or
 * failed_permanently (docs/operations.md, "Relayer"). Rows are never deleted.
 */
import { openDatabase } from "../db/sqlite";
import type { Migration, Sqlite } from "../db/sqlite";

export const RELAYER_SCHEMA = "relayer";

export const RELAYER_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "L2 cursor and jobs",
    sql: `
CREATE TABLE l2_cursor (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  block_number INTEGER NOT NULL,
  block_hash TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE jobs (
  job_id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('inscription', 'anchor')),
  contract TEXT NOT NULL,
  requester TEXT NOT NULL,
  content_type TEXT,
  action TEXT,
  payload BLOB NOT NULL,
  doge_recipient TEXT,
  result_hash TEXT NOT NULL,
  fee_wei TEXT NOT NULL,
  deadline INTEGER NOT NULL,
  l2_block INTEGER NOT NULL,
  l2_tx TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('seen', 'submitted', 'l1_done', 'settled', 'expired', 'refunded', 'dropped', 'failed_permanently')),
  round INTEGER NOT NULL DEFAULT 1,
  work_ref TEXT,
  l1_txid TEXT,
  l1_height INTEGER,
  settle_tx TEXT,
  settled_by_us INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  last_error_code TEXT,
  last_error TEXT,
  late_reported INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX jobs_due ON jobs (next_attempt_at) WHERE status IN ('seen', 'submitted', 'l1_done');
CREATE INDEX jobs_by_status ON jobs (status, updated_at);
`,
  },
];

export function openRelayerDatabase(file: string): Sqlite {
  return openDatabase(file, RELAYER_MIGRATIONS, RELAYER_SCHEMA);
}

import type { JobKind } from "../l2/contracts";
export type { JobKind };

export type RelayerJobStatus =
  "seen" | "submitted" | "l1_done" | "settled" | "expired" | "refunded" | "dropped" | "failed_permanently";

export const LIVE_STATUSES: readonly RelayerJobStatus[] = ["seen", "submitted", "l1_done"];
export const ALL_STATUSES: readonly RelayerJobStatus[] = [
  "seen",
  "submitted",
  "l1_done",
  "settled",
  "expired",
  "refunded",
  "dropped",
  "failed_permanently",
];

/** A job as its request event announced it. */
export interface AnnouncedJob {
  kind: JobKind;
  /** 0x bytes32, lower case. */
  jobId: string;
  /** The service contract (checksummed). */
  contract: string;
  requester: string;
  /** Inscription jobs: the content type, ACTION ("" for none) and Dogecoin recipient, as sent to the contract. */
  contentType: string | null;
  action: string | null;
  dogeRecipient: string | null;
  payload: Uint8Array;
  /** 0x bytes32, lower case: envelopeHash or SHA-256 of the anchor payload. */
  resultHash: string;
  feeWei: bigint;
  /** Unix seconds (L2 time). */
  deadline: number;
  l2Block: number;
  l2Tx: string;
}

export interface RelayerJob extends AnnouncedJob {
  status: RelayerJobStatus;
  /** 1 for the first try at the base-chain work; a failed inscriber job or wallet transaction starts the next round. */
  round: number;
  /** The inscriber's job id, or the wallet label of the anchor transaction. */
  workRef: string | null;
  /** The base-chain transaction the receipt is asked for (display hex). */
  l1Txid: string | null;
  l1Height: number | null;
  settleTx: string | null;
  settledByUs: boolean | null;
  attempts: number;
  nextAttemptAt: number;
  lastErrorCode: string | null;
  lastError: string | null;
  lateReported: boolean;
  createdAt: number;
  updatedAt: number;
}

export type JobChanges = Partial<
  Pick<
    RelayerJob,
    | "status"
    | "round"
    | "workRef"
    | "l1Txid"
    | "l1Height"
    | "settleTx"
    | "settledByUs"
    | "attempts"
    | "nextAttemptAt"
    | "lastErrorCode"
    | "lastError"
    | "lateReported"
  >
>;

const COLUMNS: Record<keyof JobChanges, string> = {
  status: "status",
  round: "round",
  workRef: "work_ref",
  l1Txid: "l1_txid",
  l1Height: "l1_height",
  settleTx: "settle_tx",
  settledByUs: "settled_by_us",
  attempts: "attempts",
  nextAttemptAt: "next_attempt_at",
  lastErrorCode: "last_error_code",
  lastError: "last_error",
  lateReported: "late_reported",
};

type Row = Record<string, unknown>;

function jobOf(row: Row): RelayerJob {
  return {
    jobId: row.job_id as string,
    kind: row.kind as JobKind,
    contract: row.contract as string,
    requester: row.requester as string,
    contentType: (row.content_type as string | null) ?? null,
    action: (row.action as string | null) ?? null,
    dogeRecipient: (row.doge_recipient as string | null) ?? null,
    payload: new Uint8Array(row.payload as Buffer),
    resultHash: row.result_hash as string,
    feeWei: BigInt(row.fee_wei as string),
    deadline: Number(row.deadline),
    l2Block: Number(row.l2_block),
    l2Tx: row.l2_tx as string,
    status: row.status as RelayerJobStatus,
    round: Number(row.round),
    workRef: (row.work_ref as string | null) ?? null,
    l1Txid: (row.l1_txid as string | null) ?? null,
    l1Height: row.l1_height === null ? null : Number(row.l1_height),
    settleTx: (row.settle_tx as string | null) ?? null,
    settledByUs: row.settled_by_us === null ? null : Number(row.settled_by_us) === 1,
    attempts: Number(row.attempts),
    nextAttemptAt: Number(row.next_attempt_at),
    lastErrorCode: (row.last_error_code as string | null) ?? null,
    lastError: (row.last_error as string | null) ?? null,
    lateReported: Number(row.late_reported) === 1,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export interface L2Cursor {
  blockNumber: number;
  blockHash: string;
}

export class RelayerStore {
  private readonly s;

  constructor(
    readonly db: Sqlite,
    private readonly now: () => number = Date.now,
  ) {
    this.s = {
      cursor: db.prepare("SELECT block_number, block_hash FROM l2_cursor WHERE id = 1"),
      clearCursor: db.prepare("DELETE FROM l2_cursor WHERE id = 1"),
      setCursor: db.prepare(`INSERT INTO l2_cursor (id, block_number, block_hash, updated_at) VALUES (1, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET block_number = excluded.block_number, block_hash = excluded.block_hash, updated_at = excluded.updated_at`),
      insert:
        db.prepare(`INSERT OR IGNORE INTO jobs (job_id, kind, contract, requester, content_type, action, payload, doge_recipient, result_hash,
        fee_wei, deadline, l2_block, l2_tx, status, next_attempt_at, created_at, updated_at)
        VALUES (@jobId, @kind, @contract, @requester, @contentType, @action, @payload, @dogeRecipient, @resultHash,
        @feeWei, @deadline, @l2Block, @l2Tx, 'seen', @now, @now, @now)`),
      get: db.prepare("SELECT * FROM jobs WHERE job_id = ?"),
      due: db.prepare(`SELECT * FROM jobs WHERE status IN ('seen', 'submitted', 'l1_done') AND next_attempt_at <= ?
        ORDER BY next_attempt_at, created_at LIMIT ?`),
      counts: db.prepare("SELECT status, COUNT(*) AS n FROM jobs GROUP BY status"),
      byStatus: db.prepare("SELECT * FROM jobs WHERE status = ? ORDER BY updated_at DESC LIMIT ?"),
      troubled:
        db.prepare(`SELECT * FROM jobs WHERE status IN ('seen', 'submitted', 'l1_done') AND last_error_code IS NOT NULL
        ORDER BY updated_at DESC LIMIT ?`),
      live: db.prepare(
        "SELECT * FROM jobs WHERE status IN ('seen', 'submitted', 'l1_done') ORDER BY created_at LIMIT ?",
      ),
    };
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  cursor(): L2Cursor | null {
    const row = this.s.cursor.get() as { block_number: number; block_hash: string } | undefined;
    return row ? { blockNumber: Number(row.block_number), blockHash: row.block_hash } : null;
  }

  setCursor(cursor: L2Cursor): void {
    this.s.setCursor.run(cursor.blockNumber, cursor.blockHash, this.now());
  }

  /** Forgets the cursor: the next scan starts at the configured first block. */
  clearCursor(): void {
    this.s.clearCursor.run();
  }

  /** Records a job unless one with its id exists (a re-scan sees the same events again). True when new. */
  insert(job: AnnouncedJob): boolean {
    const result = this.s.insert.run({
      ...job,
      payload: Buffer.from(job.payload),
      feeWei: job.feeWei.toString(),
      now: this.now(),
    });
    return result.changes === 1;
  }

  get(jobId: string): RelayerJob | null {
    const row = this.s.get.get(jobId.toLowerCase()) as Row | undefined;
    return row ? jobOf(row) : null;
  }

  /** Live jobs whose next attempt is due at `now` (ms), oldest first. */
  due(now: number, limit: number): RelayerJob[] {
    return (this.s.due.all(now, limit) as Row[]).map(jobOf);
  }

  update(jobId: string, changes: JobChanges): RelayerJob {
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [key, value] of Object.entries(changes) as [keyof JobChanges, unknown][]) {
      if (value === undefined) continue;
      sets.push(`${COLUMNS[key]} = ?`);
      values.push(typeof value === "boolean" ? (value ? 1 : 0) : value);
    }
    sets.push("updated_at = ?");
    values.push(this.now());
    const result = this.db
      .prepare(`UPDATE jobs SET ${sets.join(", ")} WHERE job_id = ?`)
      .run(...values, jobId.toLowerCase());
    if (result.changes !== 1) throw new Error(`no relayer job ${jobId}`);
    return this.get(jobId)!;
  }

  counts(): Record<RelayerJobStatus, number> {
    const out = Object.fromEntries(ALL_STATUSES.map((status) => [status, 0])) as Record<RelayerJobStatus, number>;
    for (const row of this.s.counts.all() as { status: RelayerJobStatus; n: number }[]) out[row.status] = Number(row.n);
    return out;
  }

  byStatus(status: RelayerJobStatus, limit: number): RelayerJob[] {
    return (this.s.byStatus.all(status, limit) as Row[]).map(jobOf);
  }

  /** Live jobs whose last attempt failed or had to wait, most recently touched first. */
  troubled(limit: number): RelayerJob[] {
    return (this.s.troubled.all(limit) as Row[]).map(jobOf);
  }

  live(limit: number): RelayerJob[] {
    return (this.s.live.all(limit) as Row[]).map(jobOf);
  }
}
