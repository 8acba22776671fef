import { expect } from "chai";
import fc from "fast-check";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { ethers } from "hardhat";
import type { Wallet } from "ethers";
import { quorumVerdict } from "../../src/facts";
import { ATTESTERS, OUTSIDER, SPARE_ATTESTERS, highS } from "./attestation-fixture";

const DIGEST = ethers.id("a digest some other contract verifies");
const sign = (wallet: Wallet) => wallet.signingKey.sign(DIGEST).serialized;
const ascending = (wallets: Wallet[]) => [...wallets].sort((a, b) => (BigInt(a.address) < BigInt(b.address) ? -1 : 1));
const SET = ATTESTERS.map((w) => w.address);

async function harnessFixture() {
  const harness = await ethers.deployContract("AttestationQuorumHarness");
  await harness.setMembers(SET, 1n);
  return { harness };
}

describe("contracts/libraries/AttesterQuorum", () => {
  for (const form of ["verifyWithMapping", "verifyWithSet"] as const) {
    const call = (harness: Awaited<ReturnType<typeof harnessFixture>>["harness"], signatures: string[]) =>
      form === "verifyWithMapping"
        ? harness.verifyWithMapping(DIGEST, signatures)
        : harness.verifyWithSet(DIGEST, signatures, SET);

    describe(form, () => {
      it("accepts two or three members in ascending order", async () => {
        const { harness } = await loadFixture(harnessFixture);
        await call(harness, ascending(ATTESTERS.slice(0, 2)).map(sign));
        await call(harness, ascending(ATTESTERS).map(sign));
      });

      it("reverts with AttestationQuorumNotMet(1, 2) for one member", async () => {
        const { harness } = await loadFixture(harnessFixture);
        await expect(call(harness, [sign(ATTESTERS[0])]))
          .to.be.revertedWithCustomError(harness, "AttestationQuorumNotMet")
          .withArgs(1n, 2n);
      });

      it("reverts with AttestationSignersNotAscending for a repeated member", async () => {
        const { harness } = await loadFixture(harnessFixture);
        await expect(call(harness, [sign(ATTESTERS[1]), sign(ATTESTERS[1])]))
          .to.be.revertedWithCustomError(harness, "AttestationSignersNotAscending")
          .withArgs(1n, ATTESTERS[1].address, ATTESTERS[1].address);
      });

      it("reverts with AttestationSignerNotAttester for a non-member", async () => {
        const { harness } = await loadFixture(harnessFixture);
        await expect(call(harness, [sign(SPARE_ATTESTERS[0])]))
          .to.be.revertedWithCustomError(harness, "AttestationSignerNotAttester")
          .withArgs(0n, SPARE_ATTESTERS[0].address);
      });

      it("reverts with AttestationInvalidSignature for a high-s twin", async () => {
        const { harness } = await loadFixture(harnessFixture);
        const malleated = highS(sign(ATTESTERS[0]));
        await expect(call(harness, [malleated]))
          .to.be.revertedWithCustomError(harness, "AttestationInvalidSignature")
          .withArgs(0n, 3n, `0x${malleated.slice(66, 130)}`);
      });

      it("agrees with quorumVerdict from src/facts on random signer lists", async () => {
        const { harness } = await loadFixture(harnessFixture);
        const pool = [...ATTESTERS, SPARE_ATTESTERS[0], OUTSIDER];
        await fc.assert(
          fc.asyncProperty(fc.array(fc.integer({ min: 0, max: pool.length - 1 }), { maxLength: 4 }), async (picks) => {
            const wallets = picks.map((i) => pool[i]);
            const verdict = quorumVerdict(
              wallets.map((w) => w.address),
              SET,
            );
            const accepted = await call(harness, wallets.map(sign)).then(
              () => true,
              () => false,
            );
            expect(accepted).to.equal(verdict.accepted);
          }),
          { numRuns: 40 },
        );
      });
    });
  }

  describe("recoverAt", () => {
    it("returns the signer of a valid signature", async () => {
      const { harness } = await loadFixture(harnessFixture);
      expect(await harness.recoverAt(DIGEST, [sign(OUTSIDER)], 0n)).to.equal(OUTSIDER.address);
    });
  });
});
