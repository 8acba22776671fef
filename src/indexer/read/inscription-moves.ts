/**
 * An inscription's moves (its owner history): genesis, each transfer to a new output, spent to
 * fees or lost, oldest first, in pages keyed by (height, position in the block, kind). Read by the
 * table's primary key (inscription_id, height, position, kind): a page is one range of it.
 */
import type { SqlDatabase } from "../../db/sql";
import { keyInt, prepareAll } from "./rows";

export interface InscriptionMoveView {
  height: number;
  position: number;
  txid: string;
  /** genesis, move, fee (spent to fees and found in the coinbase) or lost */
  kind: string;
  toTxid: string | null;
  toVout: number | null;
  toOffset: number | null;
  ownerAddress: string | null;
}

/** Where a page of moves starts: after this (height, position, kind). */
export interface InscriptionMoveKey {
  height: number;
  position: number;
  kind: string;
}

export class InscriptionMoveReads {
  private readonly s;

  constructor(db: SqlDatabase) {
    this.s = prepareAll(db, {
      moves: `SELECT height, position, txid, kind, to_txid, to_vout, to_offset, owner_address FROM inscription_moves
        WHERE inscription_id = ? AND height >= ? AND (height > ? OR (height = ? AND (position > ? OR (position = ? AND kind > ?))))
        ORDER BY height, position, kind LIMIT ?`,
    });
  }

  /** At most `limit` moves of inscription `id` after `after` (from the first when null), oldest first. */
  moves(id: string, after: InscriptionMoveKey | null, limit: number): InscriptionMoveView[] {
    const h = after ? keyInt(after.height) : -1;
    const p = after ? keyInt(after.position) : -1;
    const k = after ? after.kind : "";
    return (
      this.s.moves.all(id, h, h, h, p, p, k, Math.max(0, Math.trunc(limit))) as {
        height: number | bigint;
        position: number | bigint;
        txid: string;
        kind: string;
        to_txid: string | null;
        to_vout: number | bigint | null;
        to_offset: number | bigint | null;
        owner_address: string | null;
      }[]
    ).map((r) => ({
      height: Number(r.height),
      position: Number(r.position),
      txid: r.txid,
      kind: r.kind,
      toTxid: r.to_txid ?? null,
      toVout: r.to_vout === null ? null : Number(r.to_vout),
      toOffset: r.to_offset === null ? null : Number(r.to_offset),
      ownerAddress: r.owner_address ?? null,
    }));
  }
}
