/** OP_CHECKZKP uses (shadow mode): the latest, of a transaction, of a verifying key, and the counts. */
import { TX_ID_OF_TXID } from "../schema";
import type { SqlDatabase } from "../../db/sql";
import { ZKP_SHADOW_STATUS, ZkpUse } from "../../zkp";
import { KEY_MAX, hexOf, keyInt, prepareAll, txidKey } from "./rows";

/**
 * Where a page of a verifying key's uses ended: the transaction (height, position in the block) and
 * the use within it (role, input index, output index, op index; an absent index is -1).
 */
export interface ZkpPageKey {
  height: number;
  position: number;
  use: string;
}

// Uses of one transaction in a fixed order on both backends: an absent input or output index sorts
// as -1 (SQLite sorts NULL first and PostgreSQL last, so NULL is never compared).
const IN = "COALESCE(z.input_index, -1)";
const OUT = "COALESCE(z.output_index, -1)";
const WITHIN_TX = `z.role, ${IN}, ${OUT}, z.op_index`;

/**
 * A use's columns with its transaction's txid (schema version 9 keeps the transaction's id), in
 * the table's column order (the records' key order).
 */
export const ZKP_USE_COLUMNS = `t.txid, z.height, z.position, z.role, z.input_index, z.output_index, z.op_index, z.mode,
  z.mode_name, z.proof_hex, z.vk_hex, z.vk_sha256, z.public_inputs, z.parse_error, z.shadow_valid, z.shadow_encoding,
  z.shadow_error, z.verified_at`;
export const ZKP_USES = "FROM zkp_uses z JOIN txs t ON t.id = z.tx_id";

/** A SHA-256 (64 lower-case hex digits) as stored; null for anything else, which matches no row. */
const shaKey = (sha: string): Buffer | null => (/^[0-9a-f]{64}$/.test(sha) ? Buffer.from(sha, "hex") : null);

export class ZkpReads {
  private readonly s;

  constructor(db: SqlDatabase) {
    this.s = prepareAll(db, {
      ofTx: `SELECT ${ZKP_USE_COLUMNS} ${ZKP_USES} WHERE z.tx_id = ${TX_ID_OF_TXID} ORDER BY ${WITHIN_TX}`,
      // Scans zkp_uses: OP_CHECKZKP is a shadow-mode proposal with few uses. A counter kept by the
      // indexer would replace it (docs/architecture.md "Who reads the index").
      summary: `SELECT COUNT(*) AS n, SUM(CASE WHEN verified_at IS NULL AND mode = 0 AND parse_error IS NULL THEN 1 ELSE 0 END) AS pending,
        SUM(CASE WHEN shadow_valid = 1 THEN 1 ELSE 0 END) AS valid, SUM(CASE WHEN shadow_valid = 0 THEN 1 ELSE 0 END) AS invalid FROM zkp_uses`,
      recent: `SELECT ${ZKP_USE_COLUMNS} ${ZKP_USES} ORDER BY z.height DESC, z.position DESC, ${WITHIN_TX} LIMIT ?`,
      byVk: `SELECT ${ZKP_USE_COLUMNS} ${ZKP_USES} WHERE z.vk_sha256 = ? AND z.height <= ? AND (z.height < ? OR (z.height = ? AND (z.position < ? OR (z.position = ? AND (z.role > ? OR (z.role = ? AND
        (${IN} > ? OR (${IN} = ? AND (${OUT} > ? OR (${OUT} = ? AND z.op_index > ?)))))))))) ORDER BY z.height DESC, z.position DESC, ${WITHIN_TX} LIMIT ?`,
      vkUsed: "SELECT 1 FROM zkp_uses WHERE vk_sha256 = ? LIMIT 1",
    });
  }

  summary(): { events: number; pending: number; valid: number; invalid: number } {
    const row = this.s.summary.get() as {
      n: number;
      pending: number | null;
      valid: number | null;
      invalid: number | null;
    };
    return {
      events: Number(row.n),
      pending: Number(row.pending ?? 0),
      valid: Number(row.valid ?? 0),
      invalid: Number(row.invalid ?? 0),
    };
  }

  recent(limit: number): Record<string, unknown>[] {
    return (this.s.recent.all(limit) as Record<string, unknown>[]).map(zkpRow);
  }

  ofTx(txid: string): Record<string, unknown>[] {
    return (this.s.ofTx.all(txidKey(txid)) as Record<string, unknown>[]).map(zkpRow);
  }

  /** Whether any use names the verifying key `sha`. */
  vkUsed(sha: string): boolean {
    return this.s.vkUsed.get(shaKey(sha)) !== undefined;
  }

  /**
   * Uses of the verifying key `sha`, newest first, a page of `pageSize` after the key `before` (the
   * `next` of the previous page); `next` is null on the last page.
   */
  byVk(
    sha: string,
    before: ZkpPageKey | null,
    pageSize: number,
  ): { items: Record<string, unknown>[]; next: ZkpPageKey | null } {
    const h = keyInt(before?.height ?? KEY_MAX);
    const p = keyInt(before?.position ?? 0);
    // The first page takes every use of the newest transaction: "" sorts before every role.
    const [role, input, output, op] = before ? parseUseKey(before.use) : ["", -1, -1, -1];
    const rows = this.s.byVk.all(
      shaKey(sha),
      h,
      h,
      h,
      p,
      p,
      role,
      role,
      input,
      input,
      output,
      output,
      op,
      pageSize,
    ) as Record<string, unknown>[];
    const last = rows[rows.length - 1];
    return {
      items: rows.map(zkpRow),
      next:
        rows.length === pageSize && last
          ? { height: Number(last.height), position: Number(last.position), use: useKey(last) }
          : null,
    };
  }
}

function useKey(row: Record<string, unknown>): string {
  const index = (value: unknown) => (value === null || value === undefined ? -1 : Number(value));
  return [row.role, index(row.input_index), index(row.output_index), Number(row.op_index)].join(":");
}

/** Whether `key` is a use key a page's `next` carries (role:input:output:op). */
export function isZkpUseKey(key: string): boolean {
  return /^[a-z_]+:-?[0-9]{1,10}:-?[0-9]{1,10}:[0-9]{1,10}$/.test(key);
}

/** The use key of a cursor; a malformed one is a RangeError (the HTTP layer refuses it first with isZkpUseKey). */
export function parseUseKey(key: string): [string, number, number, number] {
  if (!isZkpUseKey(key)) throw new RangeError(`not a use key: ${key}`);
  const parts = key.split(":");
  const numbers = parts.slice(1).map(Number);
  return [parts[0], keyInt(numbers[0]), keyInt(numbers[1]), keyInt(numbers[2])];
}

/**
 * A zkp_uses row as the ZKP.md record (the extractor's ZkpUse): the one reading of the table's
 * columns, for the routes (zkpRow) and for the shadow verifier's queue.
 */
export function zkpUseOfRow(row: Record<string, unknown>): ZkpUse {
  return {
    txid: hexText(row.txid),
    block_height: Number(row.height),
    role: row.role as ZkpUse["role"],
    input_index: row.input_index === null ? null : Number(row.input_index),
    output_index: row.output_index === null ? null : Number(row.output_index),
    op_index: Number(row.op_index),
    mode: row.mode === null ? null : Number(row.mode),
    mode_name: row.mode_name as ZkpUse["mode_name"],
    proof_hex: row.proof_hex as string | null,
    vk_hex: row.vk_hex as string | null,
    vk_sha256: row.vk_sha256 == null ? null : hexText(row.vk_sha256),
    public_inputs: JSON.parse(String(row.public_inputs ?? "[]")) as string[],
    parse_error: row.parse_error as string | null,
    shadow_valid: row.shadow_valid === null || row.shadow_valid === undefined ? null : Number(row.shadow_valid) === 1,
    consensus_enforced: false,
    status: ZKP_SHADOW_STATUS,
  };
}

/** A stored hash (BLOB) as hex; text passes through. */
function hexText(value: unknown): string {
  return typeof value === "string" ? value : hexOf(value as Uint8Array);
}

/** A zkp_uses row in the seed's record shape (ZKP.md), with its shadow verdict's encoding. */
export function zkpRow(row: Record<string, unknown>): Record<string, unknown> {
  const use = zkpUseOfRow(row);
  // Key order as the records have always been written: the encoding beside the verdict.
  const { consensus_enforced, status, ...rest } = use;
  return { ...rest, shadow_encoding: row.shadow_encoding, consensus_enforced, status };
}
