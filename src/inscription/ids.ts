/**
 * The inscription id, once: `<txid>i<index>`, the reveal transaction's id (64 hex digits) and the
 * inscription's index in it.
 *
 * The rule is ord's (ordinals/ord, src/inscriptions/inscription_id.rs, `InscriptionId::from_str`):
 * 64 hex digits, the separator `i`, and an index that is a u32 (0 to 4294967295). On top of ord we
 * take only the canonical spelling of the index, without leading zeros (`i01` is refused, not read as
 * `i1`): an id is hashed as text for the fact keys (src/facts/keys.ts), so one inscription must have
 * one spelling. Upper-case hex is accepted and read in lower case, which is how ids are printed.
 *
 * Before this module the facts allowed any index and the HTTP API at most six digits (an arbitrary
 * bound: a Doginals reveal can carry more inscriptions than a 1 MB block could, but not more than a
 * u32 counts); both now take ord's u32.
 */

/** The largest index: ord's index is a u32. */
export const MAX_INSCRIPTION_INDEX = 0xffff_ffff;

/**
 * The syntax as a regular expression (for OpenAPI's `pattern`): it bounds the index to ten digits;
 * `parseInscriptionId` also bounds its value to MAX_INSCRIPTION_INDEX.
 */
export const INSCRIPTION_ID_PATTERN = /^([0-9a-fA-F]{64})i(0|[1-9][0-9]{0,9})$/;

export interface InscriptionIdParts {
  /** The reveal transaction's id, lower-case hex. */
  txid: string;
  index: number;
}

/** The parts of an inscription id, or null for text that is not one (see the rule above). */
export function parseInscriptionId(text: string): InscriptionIdParts | null {
  const match = INSCRIPTION_ID_PATTERN.exec(text);
  if (!match) return null;
  const index = Number(match[2]);
  if (index > MAX_INSCRIPTION_INDEX) return null;
  return { txid: match[1].toLowerCase(), index };
}

/** `<txid>i<index>` in canonical form: lower-case hex, the index without leading zeros. */
export function formatInscriptionId(txid: string, index = 0): string {
  return `${txid.toLowerCase()}i${index}`;
}

/** The canonical form of an inscription id, or null for text that is not one. */
export function canonicalInscriptionIdOrNull(text: string): string | null {
  const parts = parseInscriptionId(text);
  return parts && formatInscriptionId(parts.txid, parts.index);
}
