/**
 * Inscriptions: one with where it sits now, its body, the ones an output carries.
 *
 * Schema version 9 keys an inscription by its genesis transaction's id (txs.id): its text id
 * `<txid>i0` is that transaction's txid with "i0" (this indexer gives a reveal at most one
 * inscription), read back by joining txs, and found from the text through txs_by_txid_bucket.
 */
import { TX_ID_OF_TXID } from "../schema";
import type { SqlDatabase } from "../../db/sql";
import { envelopeHash } from "../../inscription/envelope";
import { PlanRunner, ReadPlan, hexOf, prepareAll, rowsOf, txidKey } from "./rows";

/**
 * The txid of the genesis transaction of the inscription with text id `id`, as txs.txid stores it;
 * null for any other text (it names no indexed inscription, as it matched no text key before).
 */
export function inscriptionTxidKey(id: string): Buffer | null {
  return /^[0-9a-f]{64}i0$/.test(id) ? txidKey(id.slice(0, 64)) : null;
}

/** The text id of the inscription whose genesis transaction has `txid` (a txs.txid BLOB). */
export function inscriptionIdOf(txid: Uint8Array): string {
  return `${hexOf(txid)}i0`;
}

/** A stored hash (BLOB) as hex, or null. */
export function hashHexOrNull(value: Uint8Array | null | undefined): string | null {
  return value == null ? null : hexOf(value);
}

/** Orders rows by an inscription text id, bytewise (as version 8's text keys sorted). */
export function byInscriptionId<T>(id: (row: T) => string): (a: T, b: T) => number {
  return (a, b) => {
    const x = id(a);
    const y = id(b);
    return x < y ? -1 : x > y ? 1 : 0;
  };
}

/** The inscriptions a transaction revealed (its last reveal transaction), by number: for TxReads. */
export const REVEALED_IN_TX = `SELECT g.txid AS genesis_txid, i.number, i.form, i.content_type, i.action, i.envelope_hash
  FROM inscriptions i JOIN txs g ON g.id = i.id WHERE i.reveal_tx_id = ${TX_ID_OF_TXID} ORDER BY i.number`;

/** A REVEALED_IN_TX row as TxView shows it. */
export function revealedInscription(row: Record<string, unknown>): {
  id: string;
  number: number;
  form: string;
  contentType: string;
  action: string | null;
  envelopeHash: string | null;
} {
  return {
    id: inscriptionIdOf(row.genesis_txid as Uint8Array),
    number: Number(row.number),
    form: row.form as string,
    contentType: row.content_type as string,
    action: (row.action as string | null) ?? null,
    envelopeHash: hashHexOrNull(row.envelope_hash as Uint8Array | null),
  };
}

export interface InscriptionView {
  id: string;
  number: number;
  form: string;
  contentType: string;
  action: string | null;
  bodySize: number;
  envelopeHash: string | null;
  genesisTxid: string;
  revealTxid: string;
  revealTxCount: number;
  inscriberAddress: string | null;
  height: number;
  position: number;
  collectionKey: string | null;
  location: { txid: string; vout: number; offset: number } | null;
  ownerAddress: string | null;
  locationHeight: number | null;
}

const ON_OUTPUT = `SELECT g.txid AS genesis_txid, l.offset, i.content_type FROM inscription_locations l
  JOIN inscriptions i ON i.id = l.inscription_id JOIN txs g ON g.id = l.inscription_id
  WHERE l.tx_id = ${TX_ID_OF_TXID} AND l.vout = ?`;

/** The inscriptions sitting on output `vout` of `txid` now (a read plan, ./rows.ts), by offset then id. */
export function* inscriptionsOn(
  txid: string,
  vout: number,
): ReadPlan<{ id: string; offset: number; contentType: string }[]> {
  const key = txidKey(txid);
  if (key === null) return [];
  const rows = yield* rowsOf<{ genesis_txid: Uint8Array; offset: number; content_type: string }>(ON_OUTPUT, [
    key,
    vout,
  ]);
  const found = rows.map((i) => ({
    id: inscriptionIdOf(i.genesis_txid),
    offset: Number(i.offset),
    contentType: i.content_type,
  }));
  const byId = byInscriptionId<{ id: string }>((r) => r.id);
  return found.sort((a, b) => a.offset - b.offset || byId(a, b));
}

export class InscriptionReads {
  private readonly s;

  private readonly plans: PlanRunner;

  constructor(db: SqlDatabase) {
    this.plans = new PlanRunner(db);
    this.s = {
      ...this.plans.prepare({ on: ON_OUTPUT }),
      ...prepareAll(db, {
        inscription: `SELECT i.number, i.form, i.content_type, i.action, i.body_size, i.envelope_hash, g.txid AS genesis_txid,
        r.txid AS reveal_txid, i.reveal_tx_count, a.address AS inscriber_address, i.height, i.position, i.collection_key,
        lt.txid AS location_txid, l.vout AS location_vout, l.offset AS location_offset, o.address AS owner_address,
        l.height AS location_height
        FROM txs g JOIN inscriptions i ON i.id = g.id JOIN txs r ON r.id = i.reveal_tx_id
        LEFT JOIN addresses a ON a.id = i.inscriber_id LEFT JOIN inscription_locations l ON l.inscription_id = i.id
        LEFT JOIN txs lt ON lt.id = l.tx_id LEFT JOIN addresses o ON o.id = l.owner_id WHERE g.id = ${TX_ID_OF_TXID}`,
        body: `SELECT i.content_type, i.body FROM inscriptions i WHERE i.id = ${TX_ID_OF_TXID}`,
      }),
    };
  }

  /** An inscription with where it sits now (owner null when it was spent to fees and not re-found). */
  inscription(id: string): InscriptionView | null {
    const key = inscriptionTxidKey(id);
    if (key === null) return null;
    const r = this.s.inscription.get(key) as Record<string, unknown> | undefined;
    if (!r) return null;
    let hash = hashHexOrNull(r.envelope_hash as Uint8Array | null);
    if (hash === null) {
      // Doginals-form rows carry no envelope; envelopeHash is a commitment to (content type,
      // ACTION, body) whatever the form, so it is computed here from the stored body.
      const body = this.body(id);
      try {
        hash = body
          ? envelopeHash({
              contentType: body.contentType,
              action: (r.action as string | null) ?? null,
              body: body.body,
            })
          : null;
      } catch {
        hash = null; // content with no envelope encoding (e.g. an empty content type)
      }
    }
    return {
      id: inscriptionIdOf(r.genesis_txid as Uint8Array),
      number: Number(r.number),
      form: r.form as string,
      contentType: r.content_type as string,
      action: (r.action as string | null) ?? null,
      bodySize: Number(r.body_size),
      envelopeHash: hash,
      genesisTxid: hexOf(r.genesis_txid as Uint8Array),
      revealTxid: hexOf(r.reveal_txid as Uint8Array),
      revealTxCount: Number(r.reveal_tx_count),
      inscriberAddress: (r.inscriber_address as string | null) ?? null,
      height: Number(r.height),
      position: Number(r.position),
      collectionKey: (r.collection_key as string | null) ?? null,
      location:
        r.location_txid == null
          ? null
          : {
              txid: hexOf(r.location_txid as Uint8Array),
              vout: Number(r.location_vout),
              offset: Number(r.location_offset),
            },
      ownerAddress: (r.owner_address as string | null) ?? null,
      locationHeight: r.location_height == null ? null : Number(r.location_height),
    };
  }

  /** An inscription's content type and body bytes. */
  body(id: string): { contentType: string; body: Uint8Array } | null {
    const key = inscriptionTxidKey(id);
    if (key === null) return null;
    const r = this.s.body.get(key) as { content_type: string; body: Buffer } | undefined;
    return r ? { contentType: r.content_type, body: new Uint8Array(r.body) } : null;
  }

  /** The inscriptions the output (txid, vout) carries, by offset. */
  on(txid: string, vout: number): { id: string; offset: number; contentType: string }[] {
    return this.plans.run(inscriptionsOn(txid, vout));
  }
}
