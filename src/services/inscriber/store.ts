/**
 * The inscriber's own SQLite database: platform jobs and user-signed preparations. Job rows hold
 * everything needed to rebuild the job's plan after a restart (content, recipient, fee rate,
 * postage); the signed transactions themselves live in the hot wallet's database under the job id.
 */
import { Migration, Sqlite, openDatabase } from "../../db/sqlite";
import type { InscriptionForm } from "./plan";

export const INSCRIBER_SCHEMA = "inscriber";

export const INSCRIBER_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "platform jobs and user-signed preparations",
    sql: `
CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  project TEXT NOT NULL,
  idempotency_key TEXT,
  form TEXT NOT NULL,
  content_type TEXT NOT NULL,
  action TEXT,
  body BLOB NOT NULL,
  recipient TEXT NOT NULL,
  envelope_hash TEXT NOT NULL,
  fee_rate TEXT NOT NULL,
  postage TEXT NOT NULL,
  status TEXT NOT NULL,
  funding_round INTEGER NOT NULL DEFAULT 0,
  commit_txid TEXT,
  reveal_txids TEXT,
  inscription_id TEXT,
  fee_koinu TEXT,
  confirmed_height INTEGER,
  error_code TEXT,
  error_message TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (project, idempotency_key)
);
CREATE INDEX jobs_active ON jobs (status, next_attempt_at) WHERE status IN ('queued', 'committed', 'revealed');
CREATE TABLE prepares (
  id TEXT PRIMARY KEY,
  address TEXT NOT NULL,
  pubkey TEXT NOT NULL,
  recipient TEXT NOT NULL,
  form TEXT NOT NULL,
  content_type TEXT NOT NULL,
  action TEXT,
  body BLOB NOT NULL,
  envelope_hash TEXT NOT NULL,
  fee_rate TEXT NOT NULL,
  postage TEXT NOT NULL,
  commit_psbt TEXT NOT NULL,
  commit_txid TEXT,
  commit_hex TEXT,
  reveal_hexes TEXT NOT NULL DEFAULT '[]',
  status TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
`,
  },
  {
    version: 2,
    description:
      "preparations record the client that made them, for the per-client cap and the pruning of expired ones",
    sql: `
ALTER TABLE prepares ADD COLUMN client TEXT NOT NULL DEFAULT '';
CREATE INDEX prepares_client ON prepares (client, expires_at);
CREATE INDEX prepares_expiry ON prepares (expires_at);
`,
  },
];

export function openInscriberDatabase(file: string): Sqlite {
  return openDatabase(file, INSCRIBER_MIGRATIONS, INSCRIBER_SCHEMA);
}

export type JobStatus = "queued" | "committed" | "revealed" | "confirmed" | "failed";

export interface JobRow {
  id: string;
  project: string;
  idempotencyKey: string | null;
  form: InscriptionForm;
  contentType: string;
  action: string | null;
  body: Uint8Array;
  recipient: string;
  envelopeHash: string;
  feeRateKoinuPerKb: bigint;
  postageKoinu: bigint;
  status: JobStatus;
  fundingRound: number;
  commitTxid: string | null;
  revealTxids: string[];
  inscriptionId: string | null;
  feeKoinu: bigint | null;
  confirmedHeight: number | null;
  errorCode: string | null;
  errorMessage: string | null;
  attempts: number;
  nextAttemptAt: number;
  createdAt: number;
  updatedAt: number;
}

interface RawJob {
  id: string;
  project: string;
  idempotency_key: string | null;
  form: string;
  content_type: string;
  action: string | null;
  body: Buffer;
  recipient: string;
  envelope_hash: string;
  fee_rate: string;
  postage: string;
  status: string;
  funding_round: number;
  commit_txid: string | null;
  reveal_txids: string | null;
  inscription_id: string | null;
  fee_koinu: string | null;
  confirmed_height: number | null;
  error_code: string | null;
  error_message: string | null;
  attempts: number;
  next_attempt_at: number;
  created_at: number;
  updated_at: number;
}

function toJob(r: RawJob): JobRow {
  return {
    id: r.id,
    project: r.project,
    idempotencyKey: r.idempotency_key,
    form: r.form as InscriptionForm,
    contentType: r.content_type,
    action: r.action,
    body: new Uint8Array(r.body),
    recipient: r.recipient,
    envelopeHash: r.envelope_hash,
    feeRateKoinuPerKb: BigInt(r.fee_rate),
    postageKoinu: BigInt(r.postage),
    status: r.status as JobStatus,
    fundingRound: r.funding_round,
    commitTxid: r.commit_txid,
    revealTxids: r.reveal_txids ? (JSON.parse(r.reveal_txids) as string[]) : [],
    inscriptionId: r.inscription_id,
    feeKoinu: r.fee_koinu === null ? null : BigInt(r.fee_koinu),
    confirmedHeight: r.confirmed_height,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** What a new job is made of: everything its plan is rebuilt from. */
export type NewJob = Pick<
  JobRow,
  | "id"
  | "project"
  | "idempotencyKey"
  | "form"
  | "contentType"
  | "action"
  | "body"
  | "recipient"
  | "envelopeHash"
  | "feeRateKoinuPerKb"
  | "postageKoinu"
>;

/**
 * What `JobStore.insert` did: made the job, found the same request under its idempotency key, or
 * found another request under that key (the job it names is the first one's).
 */
export type JobInsertOutcome = { kind: "created" | "existing" | "key_reused"; job: JobRow };

/** Whether a stored job is the request `job` describes (fee rate and postage are the operator's, not the request's). */
function sameContent(stored: JobRow, job: NewJob): boolean {
  return (
    stored.form === job.form &&
    stored.contentType === job.contentType &&
    stored.action === job.action &&
    stored.recipient === job.recipient &&
    Buffer.from(stored.body).equals(Buffer.from(job.body))
  );
}

export type JobUpdate = Partial<
  Pick<
    JobRow,
    | "status"
    | "fundingRound"
    | "commitTxid"
    | "revealTxids"
    | "inscriptionId"
    | "feeKoinu"
    | "confirmedHeight"
    | "errorCode"
    | "errorMessage"
    | "attempts"
    | "nextAttemptAt"
  >
>;

const COLUMN: Record<keyof JobUpdate, string> = {
  status: "status",
  fundingRound: "funding_round",
  commitTxid: "commit_txid",
  revealTxids: "reveal_txids",
  inscriptionId: "inscription_id",
  feeKoinu: "fee_koinu",
  confirmedHeight: "confirmed_height",
  errorCode: "error_code",
  errorMessage: "error_message",
  attempts: "attempts",
  nextAttemptAt: "next_attempt_at",
};

export class JobStore {
  constructor(
    readonly db: Sqlite,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Inserts a job, or finds the one the project already sent under the same idempotency key: a
   * client that retries a request gets the same job (`existing`), never a second inscription. A key
   * sent again with other content (form, content type, ACTION, body or recipient) is `key_reused`:
   * answering the first job would tell the second caller its inscription exists when it does not.
   */
  insert(job: NewJob): JobInsertOutcome {
    return this.db
      .transaction((): JobInsertOutcome => {
        if (job.idempotencyKey !== null) {
          const existing = this.db
            .prepare("SELECT * FROM jobs WHERE project = ? AND idempotency_key = ?")
            .get(job.project, job.idempotencyKey) as RawJob | undefined;
          if (existing) {
            const found = toJob(existing);
            return { kind: sameContent(found, job) ? "existing" : "key_reused", job: found };
          }
        }
        const at = this.now();
        this.db
          .prepare(
            `INSERT INTO jobs (id, project, idempotency_key, form, content_type, action, body, recipient, envelope_hash, fee_rate, postage,
        status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?)`,
          )
          .run(
            job.id,
            job.project,
            job.idempotencyKey,
            job.form,
            job.contentType,
            job.action,
            Buffer.from(job.body),
            job.recipient,
            job.envelopeHash,
            job.feeRateKoinuPerKb.toString(),
            job.postageKoinu.toString(),
            at,
            at,
          );
        return { kind: "created", job: this.get(job.id)! };
      })
      .immediate();
  }

  get(id: string): JobRow | null {
    const row = this.db.prepare("SELECT * FROM jobs WHERE id = ?").get(id) as RawJob | undefined;
    return row ? toJob(row) : null;
  }

  update(id: string, changes: JobUpdate): JobRow {
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [key, value] of Object.entries(changes) as [keyof JobUpdate, unknown][]) {
      sets.push(`${COLUMN[key]} = ?`);
      if (key === "revealTxids") values.push(JSON.stringify(value));
      else if (typeof value === "bigint") values.push(value.toString());
      else values.push(value);
    }
    sets.push("updated_at = ?");
    values.push(this.now(), id);
    this.db.prepare(`UPDATE jobs SET ${sets.join(", ")} WHERE id = ?`).run(...values);
    return this.get(id)!;
  }

  /** Jobs a worker should run now: queued or part-broadcast, due, oldest first. */
  due(limit: number, exclude: ReadonlySet<string>): JobRow[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM jobs WHERE status IN ('queued', 'committed') AND next_attempt_at <= ?
      ORDER BY created_at, id LIMIT ?`,
      )
      .all(this.now(), limit + exclude.size) as RawJob[];
    return rows
      .map(toJob)
      .filter((job) => !exclude.has(job.id))
      .slice(0, limit);
  }

  /** Jobs whose reveal is broadcast and not yet confirmed. */
  awaitingConfirmation(): JobRow[] {
    return (this.db.prepare("SELECT * FROM jobs WHERE status = 'revealed' ORDER BY created_at").all() as RawJob[]).map(
      toJob,
    );
  }

  counts(): Record<JobStatus, number> {
    const counts: Record<JobStatus, number> = { queued: 0, committed: 0, revealed: 0, confirmed: 0, failed: 0 };
    for (const row of this.db.prepare("SELECT status, COUNT(*) AS n FROM jobs GROUP BY status").all() as {
      status: JobStatus;
      n: number;
    }[])
      counts[row.status] = row.n;
    return counts;
  }
}
