/**
 * Runs the OP_CHECKZKP shadow verifier off the indexing hot path: after blocks are written, the
 * indexer's unverified mode-0 uses are queued and verified in small batches between which the
 * event loop runs; verdicts are written back to `zkp_uses`. Unverified rows survive restarts (they
 * are simply queued again), and rows deleted by a rollback make their late verdicts a no-op.
 */
import { TX_ID_OF_TXID } from "./schema";
import type { SqlDatabase } from "../db/sql";
import { ZKP_USES, ZKP_USE_COLUMNS, zkpUseOfRow } from "./read/zkp";
import { ShadowVerifierQueue, ShadowVerification, VerifyingKeyCache, ZkpUse } from "../zkp";

interface PendingRow {
  txid: Buffer;
  height: number;
  role: ZkpUse["role"];
  input_index: number | null;
  output_index: number | null;
  op_index: number;
  mode: number | null;
  mode_name: ZkpUse["mode_name"];
  proof_hex: string | null;
  vk_hex: string | null;
  vk_sha256: Buffer | null;
  public_inputs: string;
  parse_error: string | null;
}

const keyOf = (use: Pick<ZkpUse, "txid" | "role" | "input_index" | "output_index" | "op_index">) =>
  `${use.txid}|${use.role}|${use.input_index}|${use.output_index}|${use.op_index}`;

export class ZkpShadowService {
  private readonly queue: ShadowVerifierQueue;
  private readonly queued = new Set<string>();
  private readonly selectPending;
  private readonly update;
  verified = 0;

  constructor(
    private readonly db: SqlDatabase,
    options: { cache?: VerifyingKeyCache; clock?: () => number } = {},
  ) {
    const clock = options.clock ?? (() => Math.floor(Date.now() / 1000));
    this.selectPending = db.prepare(`SELECT ${ZKP_USE_COLUMNS} ${ZKP_USES}
      WHERE z.mode = 0 AND z.parse_error IS NULL AND z.verified_at IS NULL ORDER BY z.height, z.position LIMIT 1000`);
    this.update =
      db.prepare(`UPDATE zkp_uses SET shadow_valid = ?, shadow_encoding = ?, shadow_error = ?, verified_at = ?
      WHERE tx_id = ${TX_ID_OF_TXID} AND role = ? AND input_index IS ? AND output_index IS ? AND op_index = ?`);
    this.queue = new ShadowVerifierQueue({
      cache: options.cache,
      persist: (results: ShadowVerification[]) => {
        const now = clock();
        this.db.transaction(() => {
          for (const { use, result } of results) {
            const valid = result.shadow_valid === null ? null : result.shadow_valid ? 1 : 0;
            this.update.run(
              valid,
              result.encoding,
              result.error ?? null,
              now,
              // By txid, not by a remembered id: ids above a rollback's fork are given again.
              Buffer.from(use.txid, "hex"),
              use.role,
              use.input_index,
              use.output_index,
              use.op_index,
            );
          }
        })();
        for (const { use } of results) this.queued.delete(keyOf(use));
        this.verified += results.length;
      },
    });
  }

  /** Queues every stored use that still waits for a verdict; returns how many were added. */
  enqueuePending(): number {
    const fresh: ZkpUse[] = [];
    for (const row of this.selectPending.all() as PendingRow[]) {
      // Pending: no verdict yet, whatever the row's column says.
      const use: ZkpUse = { ...zkpUseOfRow(row as unknown as Record<string, unknown>), shadow_valid: null };
      const key = keyOf(use);
      if (this.queued.has(key)) continue;
      this.queued.add(key);
      fresh.push(use);
    }
    return this.queue.enqueue(fresh);
  }

  get pending(): number {
    return this.queue.pending;
  }

  /** Verifies everything queued; resolves with the number of verdicts written. */
  drain(): Promise<number> {
    return this.queue.drain();
  }
}
