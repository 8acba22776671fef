/** OP_RETURN outputs: the latest (optionally of one magic prefix), of a transaction, by payload hash. */
import { TX_ID_OF_TXID } from "../schema";
import type { SqlDatabase } from "../../db/sql";
import { hexToBytes, sha256 } from "../../doge";
import { KEY_MAX, hexOf, keyInt, prepareAll, txidKey } from "./rows";

export interface OpReturnView {
  txid: string;
  vout: number;
  height: number;
  position: number;
  payloadHex: string;
  magic: string;
  sha256: string;
  size: number;
}

interface OpReturnRow {
  txid: Uint8Array;
  vout: number;
  height: number;
  position: number;
  payload: Buffer;
  magic: string;
  sha256: Uint8Array;
  size: number;
}

// Schema version 9: the transaction is an id (its txid read from txs), the payload's hash a BLOB.
const COLUMNS = "t.txid, o.vout, o.height, o.position, o.payload, o.magic, o.sha256, o.size";
const FROM = "FROM op_returns o JOIN txs t ON t.id = o.tx_id";
// Newest first after the key (height, position, vout) of the previous page's last row; `height <= ?`
// bounds the index range, so a deep page starts at its cursor.
const BEFORE =
  "o.height <= ? AND (o.height < ? OR (o.height = ? AND (o.position < ? OR (o.position = ? AND o.vout < ?))))";
const NEWEST_FIRST = "ORDER BY o.height DESC, o.position DESC, o.vout DESC LIMIT ?";

/** A SHA-256 (64 lower-case hex digits) as stored; null for anything else, which matches no row. */
const shaKey = (sha: string): Buffer | null => (/^[0-9a-f]{64}$/.test(sha) ? Buffer.from(sha, "hex") : null);

export function opReturnView(r: OpReturnRow): OpReturnView {
  return {
    txid: hexOf(r.txid),
    vout: Number(r.vout),
    height: Number(r.height),
    position: Number(r.position),
    payloadHex: hexOf(r.payload),
    magic: r.magic,
    sha256: hexOf(r.sha256),
    size: Number(r.size),
  };
}

export class OpReturnReads {
  private readonly s;

  constructor(db: SqlDatabase) {
    this.s = prepareAll(db, {
      recent: `SELECT ${COLUMNS} ${FROM} WHERE ${BEFORE} ${NEWEST_FIRST}`,
      recentOfMagic: `SELECT ${COLUMNS} ${FROM} WHERE o.magic = ? AND ${BEFORE} ${NEWEST_FIRST}`,
      ofTx: `SELECT ${COLUMNS} ${FROM} WHERE o.tx_id = ${TX_ID_OF_TXID} ORDER BY o.vout`,
      bySha: `SELECT ${COLUMNS} ${FROM} WHERE o.sha256 = ? ORDER BY o.height, o.position, o.vout LIMIT 50`,
      anchorBySha: `SELECT t.txid, o.height ${FROM} WHERE o.sha256 = ? ORDER BY o.height, o.position, o.vout LIMIT 1`,
    });
  }

  /**
   * A page of the latest OP_RETURN outputs (of the magic prefix `magic`, hex, when given), newest
   * first, after the key `before`. No total: counting them would read every row (the caller pages
   * until a short page).
   */
  recent(
    magic: string | null,
    before: { height: number; position: number; vout: number } | null,
    pageSize: number,
  ): { items: OpReturnView[] } {
    const height = keyInt(before?.height ?? KEY_MAX);
    const position = keyInt(before?.position ?? 0);
    const key = [height, height, height, position, position, keyInt(before?.vout ?? 0), pageSize];
    const rows = (
      magic === null ? this.s.recent.all(...key) : this.s.recentOfMagic.all(magic, ...key)
    ) as OpReturnRow[];
    return { items: rows.map(opReturnView) };
  }

  ofTx(txid: string): OpReturnView[] {
    return (this.s.ofTx.all(txidKey(txid)) as OpReturnRow[]).map(opReturnView);
  }

  bySha(sha: string): OpReturnView[] {
    return (this.s.bySha.all(shaKey(sha)) as OpReturnRow[]).map(opReturnView);
  }

  /** First OP_RETURN whose payload is exactly `payloadHex`. */
  firstAnchor(payloadHex: string): { txid: string; blockHeight: number } | null {
    const sha = Buffer.from(sha256(hexToBytes(payloadHex)));
    const row = this.s.anchorBySha.get(sha) as { txid: Uint8Array; height: number } | undefined;
    return row ? { txid: hexOf(row.txid), blockHeight: Number(row.height) } : null;
  }
}
