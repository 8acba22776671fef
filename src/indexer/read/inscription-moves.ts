/**
 * An inscription's moves (its owner history): genesis, each transfer to a new output, spent to
 * fees or lost, oldest first, in pages keyed by (height, position in the block, kind). Read by the
 * table's primary key (inscription_id, height, position, kind): a page is one range of it.
 */
import { TX_ID_OF_TXID } from "../schema";
import type { SqlDatabase } from "../../db/sql";
import { inscriptionTxidKey } from "./inscriptions";
import { hexOf, keyInt, prepareAll } from "./rows";

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
      // Version 9: the moving and receiving transactions and the owner are ids (read back through txs and addresses).
      moves: `SELECT m.height, m.position, t.txid, m.kind, d.txid AS to_txid, m.to_vout, m.to_offset, a.address AS owner_address
        FROM inscription_moves m JOIN txs t ON t.id = m.tx_id LEFT JOIN txs d ON d.id = m.to_tx_id LEFT JOIN addresses a ON a.id = m.owner_id
        WHERE m.inscription_id = ${TX_ID_OF_TXID} AND m.height >= ?
        AND (m.height > ? OR (m.height = ? AND (m.position > ? OR (m.position = ? AND m.kind > ?))))
        ORDER BY m.height, m.position, m.kind LIMIT ?`,
    });
  }

  /** At most `limit` moves of inscription `id` after `after` (from the first when null), oldest first. */
  moves(id: string, after: InscriptionMoveKey | null, limit: number): InscriptionMoveView[] {
    const h = after ? keyInt(after.height) : -1;
    const p = after ? keyInt(after.position) : -1;
    const k = after ? after.kind : "";
    const key = inscriptionTxidKey(id);
    if (key === null) return [];
    return (
      this.s.moves.all(key, h, h, h, p, p, k, Math.max(0, Math.trunc(limit))) as {
        height: number | bigint;
        position: number | bigint;
        txid: Uint8Array;
        kind: string;
        to_txid: Uint8Array | null;
        to_vout: number | bigint | null;
        to_offset: number | bigint | null;
        owner_address: string | null;
      }[]
    ).map((r) => ({
      height: Number(r.height),
      position: Number(r.position),
      txid: hexOf(r.txid),
      kind: r.kind,
      toTxid: r.to_txid == null ? null : hexOf(r.to_txid),
      toVout: r.to_vout === null ? null : Number(r.to_vout),
      toOffset: r.to_offset === null ? null : Number(r.to_offset),
      ownerAddress: r.owner_address ?? null,
    }));
  }
}
