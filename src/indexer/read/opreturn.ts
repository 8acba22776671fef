/** OP_RETURN outputs: the latest (optionally of one magic prefix), of a transaction, by payload hash. */
import type { SqlDatabase } from "../../db/sql";
import { bytesToHex, hexToBytes, sha256 } from "../../doge";
import { KEY_MAX, hexOf, keyInt, prepareAll } from "./rows";

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
  txid: string;
  vout: number;
  height: number;
  position: number;
  payload: Buffer;
  magic: string;
  sha256: string;
  size: number;
}

const COLUMNS = "txid, vout, height, position, payload, magic, sha256, size";
// Newest first after the key (height, position, vout) of the previous page's last row; `height <= ?`
// bounds the index range, so a deep page starts at its cursor.
const BEFORE = "height <= ? AND (height < ? OR (height = ? AND (position < ? OR (position = ? AND vout < ?))))";
const NEWEST_FIRST = "ORDER BY height DESC, position DESC, vout DESC LIMIT ?";

export function opReturnView(r: OpReturnRow): OpReturnView {
  return {
    txid: r.txid,
    vout: Number(r.vout),
    height: Number(r.height),
    position: Number(r.position),
    payloadHex: hexOf(r.payload),
    magic: r.magic,
    sha256: r.sha256,
    size: Number(r.size),
  };
}

export class OpReturnReads {
  private readonly s;

  constructor(db: SqlDatabase) {
    this.s = prepareAll(db, {
      recent: `SELECT ${COLUMNS} FROM op_returns WHERE ${BEFORE} ${NEWEST_FIRST}`,
      recentOfMagic: `SELECT ${COLUMNS} FROM op_returns WHERE magic = ? AND ${BEFORE} ${NEWEST_FIRST}`,
      ofTx: `SELECT ${COLUMNS} FROM op_returns WHERE txid = ? ORDER BY vout`,
      bySha: `SELECT ${COLUMNS} FROM op_returns WHERE sha256 = ? ORDER BY height, position, vout LIMIT 50`,
      anchorBySha: "SELECT txid, height FROM op_returns WHERE sha256 = ? ORDER BY height, position, vout LIMIT 1",
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
    return (this.s.ofTx.all(txid) as OpReturnRow[]).map(opReturnView);
  }

  bySha(sha: string): OpReturnView[] {
    return (this.s.bySha.all(sha) as OpReturnRow[]).map(opReturnView);
  }

  /** First OP_RETURN whose payload is exactly `payloadHex`. */
  firstAnchor(payloadHex: string): { txid: string; blockHeight: number } | null {
    const sha = bytesToHex(sha256(hexToBytes(payloadHex)));
    const row = this.s.anchorBySha.get(sha) as { txid: string; height: number } | undefined;
    return row ? { txid: row.txid, blockHeight: Number(row.height) } : null;
  }
}
