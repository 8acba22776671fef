/** Launchpad collections the indexer admitted (DESIGN.md 4.3): whether one is deployed, its tokens an address holds. */
import type { SqlDatabase } from "../../db/sql";
import { inscriptionIdOf } from "./inscriptions";
import { hexOf, prepareAll } from "./rows";

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
      held: `SELECT m.token_id, g.txid AS genesis_txid, lt.txid, l.vout, l.offset FROM collection_members m
        JOIN inscription_locations l ON l.inscription_id = m.inscription_id JOIN txs g ON g.id = m.inscription_id
        JOIN txs lt ON lt.id = l.tx_id WHERE m.slug = ? AND l.owner_id = (SELECT id FROM addresses WHERE address = ?)`,
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
      genesis_txid: Uint8Array;
      txid: Uint8Array;
      vout: number;
      offset: number;
    }[];
    // Token ids are decimal strings of any length: compared as numbers here, not CAST in SQL.
    rows.sort((a, b) => compareDecimal(a.token_id, b.token_id));
    return rows.map((r) => ({
      tokenId: r.token_id,
      inscriptionId: inscriptionIdOf(r.genesis_txid),
      location: { txid: hexOf(r.txid), vout: Number(r.vout), offset: Number(r.offset) },
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
