/**
 * The inscription id syntax, once (src/inscription/ids.ts): ord's `<txid>i<u32>`, canonical
 * spelling only, and the same rule behind the fact keys and the HTTP API's 400.
 */
import { expect } from "chai";
import {
  INSCRIPTION_ID_PATTERN,
  MAX_INSCRIPTION_INDEX,
  canonicalInscriptionIdOrNull,
  formatInscriptionId,
  parseInscriptionId,
} from "../../src/inscription/ids";
import { FactKeyError, canonicalInscriptionId } from "../../src/facts";
import { InscriptionId } from "../../src/services/http/validation";
import { parseAs } from "../../src/services/http/openapi";

const TXID = "AB".repeat(32);
const LOWER = "ab".repeat(32);

const GOOD: [string, string][] = [
  [`${LOWER}i0`, `${LOWER}i0`],
  [`${TXID}i7`, `${LOWER}i7`],
  [`${LOWER}i1234567`, `${LOWER}i1234567`], // more than six digits: the HTTP API used to refuse this
  [`${LOWER}i${MAX_INSCRIPTION_INDEX}`, `${LOWER}i4294967295`],
];
const BAD = [
  `${LOWER}i${MAX_INSCRIPTION_INDEX + 1}`, // past u32
  `${LOWER}i99999999999`, // eleven digits
  `${LOWER}i01`, // leading zero: not canonical
  `${LOWER}i`,
  `${LOWER}`,
  `${LOWER}i-1`,
  `${LOWER}i1.5`,
  `${LOWER}I0`,
  `0x${LOWER}i0`,
  `${LOWER.slice(2)}i0`,
  `${"zz".repeat(32)}i0`,
  ` ${LOWER}i0`,
];

describe("inscription ids (src/inscription/ids.ts)", () => {
  it("reads ord's <txid>i<u32> in canonical form", () => {
    for (const [text, canonical] of GOOD) {
      expect(canonicalInscriptionIdOrNull(text), text).to.equal(canonical);
      expect(INSCRIPTION_ID_PATTERN.test(text), text).to.equal(true);
    }
    expect(parseInscriptionId(`${TXID}i42`)).to.deep.equal({ txid: LOWER, index: 42 });
    expect(formatInscriptionId(TXID)).to.equal(`${LOWER}i0`);
  });

  it("refuses everything else", () => {
    for (const text of BAD) expect(parseInscriptionId(text), text).to.equal(null);
  });

  it("is the rule of the fact keys", () => {
    for (const [text, canonical] of GOOD) expect(canonicalInscriptionId(text)).to.equal(canonical);
    for (const text of BAD)
      expect(() => canonicalInscriptionId(text), text)
        .to.throw(FactKeyError)
        .with.property("code", "BAD_INSCRIPTION_ID");
  });

  it("is the rule of the HTTP API, which refuses the rest with INVALID_INSCRIPTION_ID (a 400)", () => {
    for (const [text, canonical] of GOOD) expect(parseAs(InscriptionId, text, "id")).to.equal(canonical);
    for (const text of BAD) {
      let refusal: unknown = null;
      try {
        parseAs(InscriptionId, text, "id");
      } catch (error) {
        refusal = error;
      }
      expect(refusal, text).to.include({ code: "INVALID_INSCRIPTION_ID" });
    }
  });
});
