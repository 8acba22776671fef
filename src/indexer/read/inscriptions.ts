/** Inscriptions: one with where it sits now, its body, the ones an output carries. */
import type { SqlDatabase } from "../../db/sql";
import { envelopeHash } from "../../inscription/envelope";
import { PlanRunner, ReadPlan, prepareAll, rowsOf } from "./rows";

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

const ON_OUTPUT = `SELECT l.inscription_id, l.offset, i.content_type FROM inscription_locations l JOIN inscriptions i ON i.id = l.inscription_id
  WHERE l.txid = ? AND l.vout = ? ORDER BY l.offset, l.inscription_id`;

/** The inscriptions sitting on output `vout` of `txid` now (a read plan, ./rows.ts). */
export function* inscriptionsOn(
  txid: string,
  vout: number,
): ReadPlan<{ id: string; offset: number; contentType: string }[]> {
  const rows = yield* rowsOf<{ inscription_id: string; offset: number; content_type: string }>(ON_OUTPUT, [txid, vout]);
  return rows.map((i) => ({ id: i.inscription_id, offset: Number(i.offset), contentType: i.content_type }));
}

export class InscriptionReads {
  private readonly s;

  private readonly plans: PlanRunner;

  constructor(db: SqlDatabase) {
    this.plans = new PlanRunner(db);
    this.s = {
      ...this.plans.prepare({ on: ON_OUTPUT }),
      ...prepareAll(db, {
        inscription: `SELECT i.id, i.number, i.form, i.content_type, i.action, i.body_size, i.envelope_hash, i.genesis_txid, i.reveal_txid,
        i.reveal_tx_count, i.inscriber_address, i.height, i.position, i.collection_key, l.txid AS location_txid, l.vout AS location_vout,
        l.offset AS location_offset, l.owner_address, l.height AS location_height
        FROM inscriptions i LEFT JOIN inscription_locations l ON l.inscription_id = i.id WHERE i.id = ?`,
        body: "SELECT content_type, body FROM inscriptions WHERE id = ?",
      }),
    };
  }

  /** An inscription with where it sits now (owner null when it was spent to fees and not re-found). */
  inscription(id: string): InscriptionView | null {
    const r = this.s.inscription.get(id) as Record<string, unknown> | undefined;
    if (!r) return null;
    let hash = (r.envelope_hash as string | null) ?? null;
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
      id: r.id as string,
      number: Number(r.number),
      form: r.form as string,
      contentType: r.content_type as string,
      action: (r.action as string | null) ?? null,
      bodySize: Number(r.body_size),
      envelopeHash: hash,
      genesisTxid: r.genesis_txid as string,
      revealTxid: r.reveal_txid as string,
      revealTxCount: Number(r.reveal_tx_count),
      inscriberAddress: (r.inscriber_address as string | null) ?? null,
      height: Number(r.height),
      position: Number(r.position),
      collectionKey: (r.collection_key as string | null) ?? null,
      location:
        r.location_txid == null
          ? null
          : { txid: r.location_txid as string, vout: Number(r.location_vout), offset: Number(r.location_offset) },
      ownerAddress: (r.owner_address as string | null) ?? null,
      locationHeight: r.location_height == null ? null : Number(r.location_height),
    };
  }

  /** An inscription's content type and body bytes. */
  body(id: string): { contentType: string; body: Uint8Array } | null {
    const r = this.s.body.get(id) as { content_type: string; body: Buffer } | undefined;
    return r ? { contentType: r.content_type, body: new Uint8Array(r.body) } : null;
  }

  /** The inscriptions the output (txid, vout) carries, by offset. */
  on(txid: string, vout: number): { id: string; offset: number; contentType: string }[] {
    return this.plans.run(inscriptionsOn(txid, vout));
  }
}
