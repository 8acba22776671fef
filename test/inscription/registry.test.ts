import { expect } from "chai";
import { ACTION_REGISTRY, checkActionContentType, contentTypeMatches, lookupAction } from "../../src/inscription";

describe("inscription/registry", () => {
  describe("ACTION_REGISTRY", () => {
    it("holds the rows of DESIGN.md 4.2 in order, frozen", () => {
      expect(ACTION_REGISTRY.map((e) => e.name)).to.deep.equal([
        "TRANSFER",
        "SWAP",
        "ADD_LP",
        "REMOVE_LP",
        "CLAIM",
        "LIST",
        "BUY",
        "CANCEL",
        "AUCTION_*",
        "TOKENIZE",
        "LAUNCHPAD_DEPLOY",
        "LAUNCHPAD_MINT",
        "BRIDGE_L1_*",
        "BRIDGE_L2_INTENT",
        "ZKP",
      ]);
      expect(Object.isFrozen(ACTION_REGISTRY)).to.equal(true);
      expect(Object.isFrozen(ACTION_REGISTRY[0])).to.equal(true);
      expect(lookupAction("ZKP")).to.deep.include({ contentTypes: ["application/octet-stream"], group: "zkp" });
    });
  });

  describe("lookupAction", () => {
    it("finds exact names and members of the BRIDGE_L1_* and AUCTION_* families", () => {
      expect(lookupAction("LAUNCHPAD_MINT")!.group).to.equal("launchpad");
      expect(lookupAction("BRIDGE_L1_DEPOSIT")!.name).to.equal("BRIDGE_L1_*");
      expect(lookupAction("AUCTION_BID")!.name).to.equal("AUCTION_*");
    });

    it("returns null for unknown, lower-case, empty and bare family names", () => {
      for (const name of [
        "MINT",
        "launchpad_mint",
        "",
        "BRIDGE_L1_",
        "BRIDGE_L1_*",
        "AUCTION_",
        "LIST ",
        "A".repeat(65),
      ]) {
        expect(lookupAction(name), name).to.equal(null);
      }
    });
  });

  describe("checkActionContentType", () => {
    it("accepts the registered content types, with utf8 and utf-8 as one charset", () => {
      expect(checkActionContentType("TRANSFER", "text/plain;charset=utf8").ok).to.equal(true);
      expect(checkActionContentType("TRANSFER", "text/plain; charset=UTF-8").ok).to.equal(true);
      expect(checkActionContentType("LIST", "image/png").ok).to.equal(true);
      expect(checkActionContentType("BUY", "video/mp4").ok).to.equal(true);
      expect(checkActionContentType("LAUNCHPAD_DEPLOY", "application/json").ok).to.equal(true);
      expect(checkActionContentType("LAUNCHPAD_DEPLOY", "application/json;charset=utf-8").ok).to.equal(true);
    });

    it("reports CONTENT_TYPE_NOT_ALLOWED with what is allowed", () => {
      expect(checkActionContentType("LAUNCHPAD_MINT", "text/plain;charset=utf8")).to.deep.equal({
        ok: false,
        reason: "CONTENT_TYPE_NOT_ALLOWED",
        action: "LAUNCHPAD_MINT",
        contentType: "text/plain;charset=utf8",
        allowed: ["application/json"],
      });
      expect(checkActionContentType("TRANSFER", "text/plain")).to.include({
        ok: false,
        reason: "CONTENT_TYPE_NOT_ALLOWED",
      });
      expect(checkActionContentType("TRANSFER", "text/plain;charset=latin1")).to.include({
        ok: false,
        reason: "CONTENT_TYPE_NOT_ALLOWED",
      });
      expect(checkActionContentType("LIST", "application/pdf")).to.include({
        ok: false,
        reason: "CONTENT_TYPE_NOT_ALLOWED",
      });
    });

    it("reports UNKNOWN_ACTION for names outside the registry", () => {
      expect(checkActionContentType("DANCE", "text/plain")).to.deep.equal({
        ok: false,
        reason: "UNKNOWN_ACTION",
        action: "DANCE",
      });
    });
  });

  describe("contentTypeMatches", () => {
    it("compares media types case-insensitively and refuses malformed ones", () => {
      expect(contentTypeMatches("image/*", "IMAGE/PNG")).to.equal(true);
      expect(contentTypeMatches("image/*", "image")).to.equal(false);
      expect(contentTypeMatches("application/json", "application/json; junk")).to.equal(false);
      expect(contentTypeMatches("application/json", "application/jsonx")).to.equal(false);
    });
  });
});
