/**
 * Addresses by prefix, for Esplora's `/address-prefix/:prefix` (electrs's address search): the
 * addresses the index has seen paid (schema version 8's `addresses`, one row per address) that
 * begin with a prefix, in byte order, at most `limit`. A range over the unique `addresses_by_address`
 * index: `address >= prefix AND address < prefix + "~"` holds exactly the addresses beginning with
 * the prefix, because every Base58 character sorts below "~" (0x7e) in byte order (SQLite's BINARY
 * collation, and the "C" collation of the PostgreSQL twin's text columns).
 */
import type { SqlDatabase } from "../../db/sql";
import { prepareAll } from "./rows";

/** Base58's alphabet (no 0, O, I, l): a prefix with any other character matches no address. */
const BASE58_PREFIX = /^[1-9A-HJ-NP-Za-km-z]+$/;
/** Sorts after every Base58 character in byte order. */
const PAST_BASE58 = "~";

export class AddressPrefixReads {
  private readonly s;

  constructor(db: SqlDatabase) {
    this.s = prepareAll(db, {
      withPrefix: "SELECT address FROM addresses WHERE address >= ? AND address < ? ORDER BY address LIMIT ?",
    });
  }

  /** Up to `limit` addresses beginning with `prefix`, in byte order; none for a prefix that is not Base58. */
  withPrefix(prefix: string, limit: number): string[] {
    if (!BASE58_PREFIX.test(prefix)) return [];
    const rows = this.s.withPrefix.all(prefix, prefix + PAST_BASE58, limit) as { address: string }[];
    return rows.map((r) => r.address);
  }
}
