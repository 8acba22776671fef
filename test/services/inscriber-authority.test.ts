/**
 * The inscriber's authority rules (src/services/inscriber/authority.ts) and its
 * `--protected-addresses` option; the attacks over HTTP are in test/adversarial/launchpad-authority.test.ts.
 */
import { expect } from "chai";
import { NETWORKS } from "../../src/doge";
import { Refusal } from "../../src/errors";
import { InscriberAuthority, checkRecipient, checkReservedAction } from "../../src/services/inscriber/authority";
import { parseProtectedAddresses } from "../../src/services/inscriber/projects";
import { newKey } from "../helpers/keys";

const refusalOf = (run: () => void): Refusal | null => {
  try {
    run();
    return null;
  } catch (error) {
    if (error instanceof Refusal) return error;
    throw error;
  }
};

describe("inscriber authority", () => {
  const custody = newKey().address;
  const hotWallet = newKey().address;
  const authority: InscriberAuthority = {
    launchpadProject: "launchpad",
    protectedAddresses: new Map([[custody, "amm"]]),
    hotWalletAddress: hotWallet,
  };

  describe("checkReservedAction", () => {
    it("lets only the launchpad project inscribe the launchpad group's ACTIONs", () => {
      for (const action of ["LAUNCHPAD_DEPLOY", "LAUNCHPAD_MINT"]) {
        expect(refusalOf(() => checkReservedAction(authority, "launchpad", action))).to.equal(null);
        const refused = refusalOf(() => checkReservedAction(authority, "relayer", action))!;
        expect([refused.kind, refused.code]).to.deep.equal(["unprocessable", "ACTION_RESERVED"]);
        expect(refused.details).to.deep.equal({ action, project: "relayer", reserved_for: "launchpad" });
      }
    });

    it("leaves every other ACTION, and none, to every project", () => {
      for (const action of [null, "TRANSFER", "BRIDGE_L1_DEPOSIT", "ZKP"])
        expect(refusalOf(() => checkReservedAction(authority, "relayer", action))).to.equal(null);
    });
  });

  describe("checkRecipient", () => {
    it("lets a service address receive only its owner project's inscriptions", () => {
      expect(refusalOf(() => checkRecipient(authority, "amm", custody))).to.equal(null);
      for (const project of ["relayer", "launchpad", null]) {
        const refused = refusalOf(() => checkRecipient(authority, project, custody))!;
        expect([refused.kind, refused.code]).to.deep.equal(["unprocessable", "RECIPIENT_PROTECTED"]);
        expect(refused.details).to.deep.equal({ recipient: custody, project, owner: "amm" });
      }
    });

    it("protects the hot wallet from every project unless one is named its owner", () => {
      for (const project of ["amm", "launchpad", "relayer", null])
        expect(refusalOf(() => checkRecipient(authority, project, hotWallet))?.code).to.equal("RECIPIENT_PROTECTED");
      const owned = { ...authority, protectedAddresses: new Map([[hotWallet, "ops"]]) };
      expect(refusalOf(() => checkRecipient(owned, "ops", hotWallet))).to.equal(null);
      expect(refusalOf(() => checkRecipient(owned, "amm", hotWallet))?.code).to.equal("RECIPIENT_PROTECTED");
    });

    it("lets anyone inscribe to any other address", () => {
      expect(refusalOf(() => checkRecipient(authority, "relayer", newKey().address))).to.equal(null);
    });
  });

  describe("parseProtectedAddresses", () => {
    it("reads comma-separated <project>=<address> entries", () => {
      const launchpad = newKey().address;
      expect([...parseProtectedAddresses(` amm=${custody}, launchpad=${launchpad},`, NETWORKS.regtest)]).to.deep.equal([
        [custody, "amm"],
        [launchpad, "launchpad"],
      ]);
      expect(parseProtectedAddresses("", NETWORKS.regtest).size).to.equal(0);
    });

    it("refuses a malformed entry, an address of another network and an address named for two projects", () => {
      expect(() => parseProtectedAddresses(custody, NETWORKS.regtest)).to.throw(/<project>=<address>/);
      expect(() => parseProtectedAddresses(`Bad Name=${custody}`, NETWORKS.regtest)).to.throw(/<project>=<address>/);
      expect(() => parseProtectedAddresses(`amm=${custody}`, NETWORKS.mainnet)).to.throw(/not a mainnet address/);
      expect(() => parseProtectedAddresses(`amm=${custody},relayer=${custody}`, NETWORKS.regtest)).to.throw(
        /two projects/,
      );
    });
  });
});
