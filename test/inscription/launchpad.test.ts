import { expect } from "chai";
import fc from "fast-check";
import {
  LAUNCHPAD_CONTENT_TYPE,
  encodeLaunchpadDeploy,
  encodeLaunchpadMint,
  encodeEnvelope,
  findV1Inscription,
  judgeMint,
  parseLaunchpadBody,
  planRevealScripts,
  revealScriptSig,
} from "../../src/inscription";
import type { IndexedLaunchpadDeploy, LaunchpadMint } from "../../src/inscription";
import { COMPRESSED_PUBKEY, DUMMY_SIGNATURE, loadVectors } from "./fixtures";

interface LaunchpadInput {
  contentType: string;
  action?: string | null;
  body: string;
}

const vectors = loadVectors<LaunchpadInput, Record<string, string>>("launchpad");
const encode = (s: string) => new TextEncoder().encode(s);
const decode = (b: Uint8Array) => new TextDecoder().decode(b);
const show = (value: object) =>
  Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === "bigint" ? v.toString() : v]));

const deploy: IndexedLaunchpadDeploy = {
  kind: "deploy",
  slug: "doge-punks",
  name: "Doge Punks",
  priceKoinu: 100_000_000n,
  maxSupply: 100n,
  inscriberAddress: "DInscriber",
};
const mint = (tokenId: bigint, maxSupply = 100n, slug = "doge-punks"): LaunchpadMint => ({
  kind: "mint",
  slug,
  tokenId,
  maxSupply,
});

describe("inscription/launchpad", () => {
  describe("parseLaunchpadBody on test/vectors/launchpad.json", () => {
    for (const vector of vectors.valid) {
      it(`parses ${vector.description}`, () => {
        const parsed = parseLaunchpadBody(encode(vector.input.body), vector.input.contentType, vector.input.action);
        if (!parsed.ok) throw new Error(`refused with ${parsed.reason}`);
        expect(show(parsed.body)).to.deep.equal(vector.expected);
      });
    }
    for (const vector of vectors.invalid) {
      it(`refuses ${vector.description} with ${vector.error}`, () => {
        expect(parseLaunchpadBody(encode(vector.input.body), vector.input.contentType, vector.input.action)).to.include(
          { ok: false, reason: vector.error },
        );
      });
    }
  });

  describe("encodeLaunchpadDeploy and encodeLaunchpadMint", () => {
    it("write the canonical bodies of DESIGN.md 4.3, keys in its order", () => {
      expect(decode(encodeLaunchpadDeploy(deploy))).to.equal(
        '{"p":"service","op":"LAUNCHPAD_DEPLOY","slug":"doge-punks","name":"Doge Punks","price":"100000000","max":"100"}',
      );
      expect(decode(encodeLaunchpadMint(mint(7n)))).to.equal(
        '{"p":"service","op":"LAUNCHPAD_MINT","slug":"doge-punks","id":"7","max":"100"}',
      );
    });

    it("refuse values the parser would refuse", () => {
      expect(() => encodeLaunchpadMint(mint(1n, 0n))).to.throw(RangeError, /INVALID_MAX/);
      expect(() => encodeLaunchpadMint(mint(-1n))).to.throw(RangeError, /INVALID_ID/);
      expect(() => encodeLaunchpadDeploy({ ...deploy, slug: "Bad Slug" })).to.throw(RangeError, /INVALID_SLUG/);
    });

    it("round-trip through a v1 envelope with the matching ACTION", () => {
      const body = encodeLaunchpadMint(mint(42n));
      const scripts = planRevealScripts({
        contentType: LAUNCHPAD_CONTENT_TYPE,
        action: "LAUNCHPAD_MINT",
        body,
        pubkey: COMPRESSED_PUBKEY,
      });
      const found = findV1Inscription({
        inputs: scripts.map((s) => ({
          prevTxid: "00".repeat(32),
          vout: 0,
          scriptSig: revealScriptSig(DUMMY_SIGNATURE, s),
          sequence: 0,
        })),
      });
      const inscription = found.inscription!;
      expect(parseLaunchpadBody(inscription.body, inscription.contentType, inscription.action)).to.deep.equal({
        ok: true,
        body: mint(42n),
      });
      expect(
        encodeEnvelope({ contentType: LAUNCHPAD_CONTENT_TYPE, action: "LAUNCHPAD_MINT", body }).length,
      ).to.be.below(520);
    });

    it("round-trip any valid mint and deploy", () => {
      const slug = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,20}[a-z0-9])?$/);
      const max = fc.bigInt(1n, 2n ** 64n - 1n);
      fc.assert(
        fc.property(
          slug,
          max,
          fc.bigInt(0n, 2n ** 64n - 1n),
          fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }),
          (s, m, n, name) => {
            expect(
              parseLaunchpadBody(encodeLaunchpadMint({ slug: s, tokenId: n, maxSupply: m }), LAUNCHPAD_CONTENT_TYPE),
            ).to.deep.equal({ ok: true, body: { kind: "mint", slug: s, tokenId: n, maxSupply: m } });
            const cleanName = name.replace(/[\u0000-\u001f\u007f-\u009f]/g, "x");
            const parsed = parseLaunchpadBody(
              encodeLaunchpadDeploy({ slug: s, name: cleanName, priceKoinu: n, maxSupply: m }),
              LAUNCHPAD_CONTENT_TYPE,
            );
            expect(parsed).to.deep.equal({
              ok: true,
              body: { kind: "deploy", slug: s, name: cleanName, priceKoinu: n, maxSupply: m },
            });
          },
        ),
        { numRuns: 200 },
      );
    });
  });

  describe("judgeMint", () => {
    const facts = { alreadyMinted: false, inscriberAddress: "DInscriber" };

    it("counts the first mint of an id in range by the deploy's inscriber as a member", () => {
      expect(judgeMint(mint(0n), deploy, facts)).to.deep.equal({ member: true });
      expect(judgeMint(mint(99n), deploy, facts)).to.deep.equal({ member: true });
    });

    const refusals: [string, LaunchpadMint, IndexedLaunchpadDeploy | null, typeof facts, string][] = [
      ["no deploy was indexed for the slug", mint(0n), null, facts, "NO_DEPLOY"],
      ["the deploy is for another slug", mint(0n, 100n, "other"), deploy, facts, "SLUG_MISMATCH"],
      ["max differs from the deploy's", mint(0n, 101n), deploy, facts, "MAX_MISMATCH"],
      ["id equals max", mint(100n), deploy, facts, "ID_OUT_OF_RANGE"],
      [
        "another address inscribed it",
        mint(5n),
        deploy,
        { ...facts, inscriberAddress: "DSomeoneElse" },
        "WRONG_INSCRIBER",
      ],
      ["a valid mint of the id came first", mint(5n), deploy, { ...facts, alreadyMinted: true }, "ALREADY_MINTED"],
    ];
    for (const [what, m, d, f, reason] of refusals) {
      it(`refuses with ${reason} when ${what}`, () => {
        expect(judgeMint(m, d, f)).to.deep.equal({ member: false, reason });
      });
    }
  });

  describe("properties", () => {
    it("never throws on arbitrary bytes or JSON", () => {
      fc.assert(
        fc.property(
          fc.oneof(fc.uint8Array({ maxLength: 200 }), fc.json().map(encode)),
          fc.string(),
          fc.option(fc.string()),
          (body, contentType, action) => {
            parseLaunchpadBody(body, contentType, action);
            parseLaunchpadBody(body, LAUNCHPAD_CONTENT_TYPE);
          },
        ),
        { numRuns: 500 },
      );
    });
  });
});
