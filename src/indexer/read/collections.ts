/** Launchpad collections the indexer admitted (DESIGN.md 4.3): whether one is deployed, its tokens an address holds. */
import type { SqlDatabase } from "../../db/sql";
import { prepareAll } from "./rows";

export interface CollectionTokenView {
  tokenId: string;
  inscriptionId: string;
  /** Where the inscription sits now. */
  location: { txid: string; vout: number; offset: number };
}

export class CollectionReads {
  private readonly s;

  constructor(db: SqlDatabase) {
    this.s = prepareAll(db, {
      exists: "SELECT 1 FROM collections WHERE slug = ?",
      held: `SELECT m.token_id, m.inscription_id, l.txid, l.vout, l.offset FROM collection_members m
        JOIN inscription_locations l ON l.inscription_id = m.inscription_id WHERE m.slug = ? AND l.owner_address = ?`,
    });
  }

  /** Whether the index holds a deploy of `slug`. */
  hasCollection(slug: string): boolean {
    return this.s.exists.get(slug) !== undefined;
  }

  /** The member tokens of `slug` that `address` holds now, by token id (numerically). */
  tokensHeld(slug: string, address: string): CollectionTokenView[] {
    const rows = this.s.held.all(slug, address) as {
      token_id: string;
      inscription_id: string;
      txid: string;
      vout: number;
      offset: number;
    }[];
    // Token ids are decimal strings of any length: compared as numbers here, not CAST in SQL.
    rows.sort((a, b) => compareDecimal(a.token_id, b.token_id));
    return rows.map((r) => ({
      tokenId: r.token_id,
      inscriptionId: r.inscription_id,
      location: { txid: r.txid, vout: Number(r.vout), offset: Number(r.offset) },
    }));
  }
}

function compareDecimal(a: string, b: string): number {
  const numeric = /^[0-9]+$/;
  if (numeric.test(a) && numeric.test(b)) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}
