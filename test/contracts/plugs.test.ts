import { expect } from "chai";
import fc from "fast-check";
import hre, { ethers } from "hardhat";
import type { Contract, Signer } from "ethers";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";

/** True under `npx hardhat coverage`, whose instrumented contracts spend more gas. */
const underCoverage = () =>
  (hre as unknown as { __SOLIDITY_COVERAGE_RUNNING?: boolean }).__SOLIDITY_COVERAGE_RUNNING === true;

const MAX_METADATA_URI_BYTES = 2048n;
const MAX_LICENSE_DURATION_SECONDS = 100n * 365n * 86_400n;
const PRICE_WEI = ethers.parseEther("1.5");
const DAY_SECONDS = 86_400n;
const URI = "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/plug.json";

/** Gas ceilings of the hot calls (receipt gasUsed, 21,000 base included). */
const GAS_CEILING = {
  listPlug: 200_000n, // an 84-byte metadata URI stored on chain: 6 new slots
  buyLicenseFirst: 100_000n,
  buyLicenseRenewal: 50_000n,
  setPrice: 35_000n,
  delistPlug: 35_000n,
  withdrawPayout: 40_000n,
};

async function deployPlugsFixture() {
  const [deployer, creator, otherCreator, buyer, otherBuyer] = await ethers.getSigners();
  const market = (await ethers.deployContract("PlugsMarketplace")) as unknown as Contract;
  const marketAddress = await market.getAddress();
  return { market, marketAddress, deployer, creator, otherCreator, buyer, otherBuyer };
}

const as = (market: Contract, signer: Signer) => market.connect(signer) as Contract;

/** Lists a plug as `creator` and returns its id. */
async function listPlug(
  market: Contract,
  creator: Signer,
  priceWei = PRICE_WEI,
  durationSeconds = 0n,
  uri = URI,
): Promise<bigint> {
  const plugId: bigint = await as(market, creator).listPlug.staticCall(priceWei, durationSeconds, uri);
  await (await as(market, creator).listPlug(priceWei, durationSeconds, uri)).wait();
  return plugId;
}

async function gasUsedOf(txPromise: Promise<{ wait(): Promise<{ gasUsed: bigint } | null> }>): Promise<bigint> {
  const receipt = await (await txPromise).wait();
  return receipt!.gasUsed;
}

describe("contracts/PlugsMarketplace", () => {
  describe("listPlug", () => {
    it("lists a plug with id 1, stores it and emits PlugListed", async () => {
      const { market, creator } = await loadFixture(deployPlugsFixture);
      expect(await as(market, creator).listPlug.staticCall(PRICE_WEI, 30n * DAY_SECONDS, URI)).to.equal(1n);
      await expect(as(market, creator).listPlug(PRICE_WEI, 30n * DAY_SECONDS, URI))
        .to.emit(market, "PlugListed")
        .withArgs(1n, creator.address, PRICE_WEI, 30n * DAY_SECONDS, URI);
      const plug = await market.getPlug(1n);
      expect(plug.creator).to.equal(creator.address);
      expect(plug.licenseDurationSeconds).to.equal(30n * DAY_SECONDS);
      expect(plug.listed).to.equal(true);
      expect(plug.priceWei).to.equal(PRICE_WEI);
      expect(plug.metadataURI).to.equal(URI);
      expect(await market.plugCount()).to.equal(1n);
      expect(await market.creatorOf(1n)).to.equal(creator.address);
    });

    it("numbers plugs 1, 2, 3 in listing order across creators", async () => {
      const { market, creator, otherCreator } = await loadFixture(deployPlugsFixture);
      expect(await listPlug(market, creator)).to.equal(1n);
      expect(await listPlug(market, otherCreator)).to.equal(2n);
      expect(await listPlug(market, creator)).to.equal(3n);
      expect(await market.plugCount()).to.equal(3n);
      expect(await market.creatorOf(2n)).to.equal(otherCreator.address);
    });

    it("accepts a free plug, a URI of exactly MAX_METADATA_URI_BYTES and the longest duration", async () => {
      const { market, creator } = await loadFixture(deployPlugsFixture);
      const longUri = "u".repeat(Number(MAX_METADATA_URI_BYTES));
      const plugId = await listPlug(market, creator, 0n, MAX_LICENSE_DURATION_SECONDS, longUri);
      const plug = await market.getPlug(plugId);
      expect(plug.priceWei).to.equal(0n);
      expect(plug.metadataURI).to.equal(longUri);
      expect(plug.licenseDurationSeconds).to.equal(MAX_LICENSE_DURATION_SECONDS);
    });

    it("reverts with PlugsMetadataURILengthInvalid for an empty URI", async () => {
      const { market, creator } = await loadFixture(deployPlugsFixture);
      await expect(as(market, creator).listPlug(PRICE_WEI, 0n, ""))
        .to.be.revertedWithCustomError(market, "PlugsMetadataURILengthInvalid")
        .withArgs(0n, 1n, MAX_METADATA_URI_BYTES);
    });

    it("reverts with PlugsMetadataURILengthInvalid for a URI one byte over the limit", async () => {
      const { market, creator } = await loadFixture(deployPlugsFixture);
      await expect(as(market, creator).listPlug(PRICE_WEI, 0n, "u".repeat(Number(MAX_METADATA_URI_BYTES) + 1)))
        .to.be.revertedWithCustomError(market, "PlugsMetadataURILengthInvalid")
        .withArgs(MAX_METADATA_URI_BYTES + 1n, 1n, MAX_METADATA_URI_BYTES);
    });

    it("reverts with PlugsLicenseDurationTooLong one second over MAX_LICENSE_DURATION_SECONDS", async () => {
      const { market, creator } = await loadFixture(deployPlugsFixture);
      await expect(as(market, creator).listPlug(PRICE_WEI, MAX_LICENSE_DURATION_SECONDS + 1n, URI))
        .to.be.revertedWithCustomError(market, "PlugsLicenseDurationTooLong")
        .withArgs(MAX_LICENSE_DURATION_SECONDS + 1n, MAX_LICENSE_DURATION_SECONDS);
    });
  });

  describe("setPrice", () => {
    it("changes the price for future buyers, emits PlugPriceChanged and leaves sold licenses alone", async () => {
      const { market, creator, buyer, otherBuyer } = await loadFixture(deployPlugsFixture);
      const plugId = await listPlug(market, creator);
      await as(market, buyer).buyLicense(plugId, { value: PRICE_WEI });
      const newPriceWei = ethers.parseEther("3");
      await expect(as(market, creator).setPrice(plugId, newPriceWei))
        .to.emit(market, "PlugPriceChanged")
        .withArgs(plugId, PRICE_WEI, newPriceWei);
      expect((await market.getPlug(plugId)).priceWei).to.equal(newPriceWei);
      expect(await market.hasLicense(plugId, buyer.address)).to.equal(true);
      await expect(as(market, otherBuyer).buyLicense(plugId, { value: newPriceWei }))
        .to.emit(market, "LicensePurchased")
        .withArgs(plugId, otherBuyer.address, creator.address, newPriceWei, 0n);
      expect(await market.payoutOf(creator.address)).to.equal(PRICE_WEI + newPriceWei);
    });

    it("reverts with PlugsNotCreator when someone else changes the price", async () => {
      const { market, creator, otherCreator } = await loadFixture(deployPlugsFixture);
      const plugId = await listPlug(market, creator);
      await expect(as(market, otherCreator).setPrice(plugId, 1n))
        .to.be.revertedWithCustomError(market, "PlugsNotCreator")
        .withArgs(plugId, otherCreator.address, creator.address);
    });

    it("reverts with PlugsNotListed for an id never listed and for a delisted plug", async () => {
      const { market, creator } = await loadFixture(deployPlugsFixture);
      await expect(as(market, creator).setPrice(7n, 1n))
        .to.be.revertedWithCustomError(market, "PlugsNotListed")
        .withArgs(7n);
      const plugId = await listPlug(market, creator);
      await as(market, creator).delistPlug(plugId);
      await expect(as(market, creator).setPrice(plugId, 1n))
        .to.be.revertedWithCustomError(market, "PlugsNotListed")
        .withArgs(plugId);
    });
  });

  describe("delistPlug", () => {
    it("delists for good: emits PlugDelisted, creatorOf turns zero, sold licenses and payouts remain", async () => {
      const { market, creator, buyer } = await loadFixture(deployPlugsFixture);
      const plugId = await listPlug(market, creator);
      await as(market, buyer).buyLicense(plugId, { value: PRICE_WEI });
      await expect(as(market, creator).delistPlug(plugId))
        .to.emit(market, "PlugDelisted")
        .withArgs(plugId, creator.address);
      expect(await market.creatorOf(plugId)).to.equal(ethers.ZeroAddress);
      const plug = await market.getPlug(plugId);
      expect(plug.listed).to.equal(false);
      expect(plug.creator).to.equal(creator.address);
      expect(await market.hasLicense(plugId, buyer.address)).to.equal(true);
      expect(await market.payoutOf(creator.address)).to.equal(PRICE_WEI);
      await expect(as(market, creator).withdrawPayout()).to.changeEtherBalance(creator, PRICE_WEI);
    });

    it("reverts with PlugsNotCreator when someone else delists", async () => {
      const { market, creator, buyer } = await loadFixture(deployPlugsFixture);
      const plugId = await listPlug(market, creator);
      await expect(as(market, buyer).delistPlug(plugId))
        .to.be.revertedWithCustomError(market, "PlugsNotCreator")
        .withArgs(plugId, buyer.address, creator.address);
    });

    it("reverts with PlugsNotListed when delisting twice or delisting an unknown id", async () => {
      const { market, creator } = await loadFixture(deployPlugsFixture);
      const plugId = await listPlug(market, creator);
      await as(market, creator).delistPlug(plugId);
      await expect(as(market, creator).delistPlug(plugId))
        .to.be.revertedWithCustomError(market, "PlugsNotListed")
        .withArgs(plugId);
      await expect(as(market, creator).delistPlug(0n))
        .to.be.revertedWithCustomError(market, "PlugsNotListed")
        .withArgs(0n);
    });
  });

  describe("buyLicense", () => {
    it("sells a perpetual license: emits LicensePurchased, records it and credits the creator", async () => {
      const { market, marketAddress, creator, buyer } = await loadFixture(deployPlugsFixture);
      const plugId = await listPlug(market, creator);
      expect(await as(market, buyer).buyLicense.staticCall(plugId, { value: PRICE_WEI })).to.equal(0n);
      const tx = as(market, buyer).buyLicense(plugId, { value: PRICE_WEI });
      await expect(tx)
        .to.emit(market, "LicensePurchased")
        .withArgs(plugId, buyer.address, creator.address, PRICE_WEI, 0n);
      await expect(tx).to.changeEtherBalances([buyer, marketAddress], [-PRICE_WEI, PRICE_WEI]);
      const license = await market.licenseOf(plugId, buyer.address);
      expect(license.purchasedAt).to.equal(BigInt(await time.latest()));
      expect(license.expiresAt).to.equal(0n);
      expect(await market.hasLicense(plugId, buyer.address)).to.equal(true);
      await time.increase(1000n * 365n * DAY_SECONDS);
      expect(await market.hasLicense(plugId, buyer.address)).to.equal(true);
      expect(await market.payoutOf(creator.address)).to.equal(PRICE_WEI);
    });

    it("sells an expiring license that is valid until expiresAt and not from then on", async () => {
      const { market, creator, buyer } = await loadFixture(deployPlugsFixture);
      const plugId = await listPlug(market, creator, PRICE_WEI, 30n * DAY_SECONDS);
      await as(market, buyer).buyLicense(plugId, { value: PRICE_WEI });
      const boughtAt = BigInt(await time.latest());
      const license = await market.licenseOf(plugId, buyer.address);
      expect(license.purchasedAt).to.equal(boughtAt);
      expect(license.expiresAt).to.equal(boughtAt + 30n * DAY_SECONDS);
      await time.increaseTo(license.expiresAt - 1n);
      expect(await market.hasLicense(plugId, buyer.address)).to.equal(true);
      await time.increaseTo(license.expiresAt);
      expect(await market.hasLicense(plugId, buyer.address)).to.equal(false);
    });

    it("renews a still valid license from its expiry, so no paid time is lost", async () => {
      const { market, creator, buyer } = await loadFixture(deployPlugsFixture);
      const plugId = await listPlug(market, creator, PRICE_WEI, 30n * DAY_SECONDS);
      await as(market, buyer).buyLicense(plugId, { value: PRICE_WEI });
      const firstExpiresAt = (await market.licenseOf(plugId, buyer.address)).expiresAt;
      await time.increase(10n * DAY_SECONDS);
      await expect(as(market, buyer).buyLicense(plugId, { value: PRICE_WEI }))
        .to.emit(market, "LicensePurchased")
        .withArgs(plugId, buyer.address, creator.address, PRICE_WEI, firstExpiresAt + 30n * DAY_SECONDS);
      const renewed = await market.licenseOf(plugId, buyer.address);
      expect(renewed.purchasedAt).to.equal(BigInt(await time.latest()));
      expect(renewed.expiresAt).to.equal(firstExpiresAt + 30n * DAY_SECONDS);
      expect(await market.payoutOf(creator.address)).to.equal(2n * PRICE_WEI);
    });

    it("renews an expired license from the time of the new purchase", async () => {
      const { market, creator, buyer } = await loadFixture(deployPlugsFixture);
      const plugId = await listPlug(market, creator, PRICE_WEI, DAY_SECONDS);
      await as(market, buyer).buyLicense(plugId, { value: PRICE_WEI });
      await time.increase(5n * DAY_SECONDS);
      expect(await market.hasLicense(plugId, buyer.address)).to.equal(false);
      await as(market, buyer).buyLicense(plugId, { value: PRICE_WEI });
      expect((await market.licenseOf(plugId, buyer.address)).expiresAt).to.equal(
        BigInt(await time.latest()) + DAY_SECONDS,
      );
      expect(await market.hasLicense(plugId, buyer.address)).to.equal(true);
    });

    it("sells a free plug for zero wei", async () => {
      const { market, creator, buyer } = await loadFixture(deployPlugsFixture);
      const plugId = await listPlug(market, creator, 0n);
      await expect(as(market, buyer).buyLicense(plugId))
        .to.emit(market, "LicensePurchased")
        .withArgs(plugId, buyer.address, creator.address, 0n, 0n);
      expect(await market.hasLicense(plugId, buyer.address)).to.equal(true);
      expect(await market.payoutOf(creator.address)).to.equal(0n);
    });

    it("keeps licenses per buyer and per plug", async () => {
      const { market, creator, buyer, otherBuyer } = await loadFixture(deployPlugsFixture);
      const plugId = await listPlug(market, creator);
      const otherPlugId = await listPlug(market, creator);
      await as(market, buyer).buyLicense(plugId, { value: PRICE_WEI });
      expect(await market.hasLicense(plugId, buyer.address)).to.equal(true);
      expect(await market.hasLicense(plugId, otherBuyer.address)).to.equal(false);
      expect(await market.hasLicense(otherPlugId, buyer.address)).to.equal(false);
      const none = await market.licenseOf(otherPlugId, buyer.address);
      expect([none.purchasedAt, none.expiresAt]).to.deep.equal([0n, 0n]);
    });

    it("reverts with PlugsIncorrectPayment when paying less, more, or a price changed since", async () => {
      const { market, creator, buyer } = await loadFixture(deployPlugsFixture);
      const plugId = await listPlug(market, creator);
      await expect(as(market, buyer).buyLicense(plugId, { value: PRICE_WEI - 1n }))
        .to.be.revertedWithCustomError(market, "PlugsIncorrectPayment")
        .withArgs(plugId, PRICE_WEI - 1n, PRICE_WEI);
      await expect(as(market, buyer).buyLicense(plugId, { value: PRICE_WEI + 1n }))
        .to.be.revertedWithCustomError(market, "PlugsIncorrectPayment")
        .withArgs(plugId, PRICE_WEI + 1n, PRICE_WEI);
      await as(market, creator).setPrice(plugId, 2n * PRICE_WEI);
      await expect(as(market, buyer).buyLicense(plugId, { value: PRICE_WEI }))
        .to.be.revertedWithCustomError(market, "PlugsIncorrectPayment")
        .withArgs(plugId, PRICE_WEI, 2n * PRICE_WEI);
    });

    it("reverts with PlugsNotListed for id 0, an unknown id and a delisted plug", async () => {
      const { market, creator, buyer } = await loadFixture(deployPlugsFixture);
      const plugId = await listPlug(market, creator);
      await as(market, creator).delistPlug(plugId);
      for (const id of [0n, 42n, plugId]) {
        await expect(as(market, buyer).buyLicense(id, { value: PRICE_WEI }))
          .to.be.revertedWithCustomError(market, "PlugsNotListed")
          .withArgs(id);
      }
    });

    it("reverts with PlugsLicenseAlreadyPerpetual when a holder of a perpetual license buys again", async () => {
      const { market, creator, buyer } = await loadFixture(deployPlugsFixture);
      const plugId = await listPlug(market, creator);
      await as(market, buyer).buyLicense(plugId, { value: PRICE_WEI });
      await expect(as(market, buyer).buyLicense(plugId, { value: PRICE_WEI }))
        .to.be.revertedWithCustomError(market, "PlugsLicenseAlreadyPerpetual")
        .withArgs(plugId, buyer.address);
    });
  });

  describe("withdrawPayout", () => {
    it("sends the whole balance, emits PayoutWithdrawn and zeroes the balance", async () => {
      const { market, marketAddress, creator, otherCreator, buyer, otherBuyer } = await loadFixture(deployPlugsFixture);
      const plugId = await listPlug(market, creator);
      const otherPlugId = await listPlug(market, otherCreator, 7n);
      await as(market, buyer).buyLicense(plugId, { value: PRICE_WEI });
      await as(market, otherBuyer).buyLicense(plugId, { value: PRICE_WEI });
      await as(market, buyer).buyLicense(otherPlugId, { value: 7n });
      expect(await as(market, creator).withdrawPayout.staticCall()).to.equal(2n * PRICE_WEI);
      const tx = as(market, creator).withdrawPayout();
      await expect(tx)
        .to.emit(market, "PayoutWithdrawn")
        .withArgs(creator.address, 2n * PRICE_WEI);
      await expect(tx).to.changeEtherBalances([creator, marketAddress], [2n * PRICE_WEI, -2n * PRICE_WEI]);
      expect(await market.payoutOf(creator.address)).to.equal(0n);
      expect(await market.payoutOf(otherCreator.address)).to.equal(7n);
      expect(await ethers.provider.getBalance(marketAddress)).to.equal(7n);
    });

    it("reverts with PlugsNothingToWithdraw for an account never paid and after a withdrawal", async () => {
      const { market, creator, buyer } = await loadFixture(deployPlugsFixture);
      await expect(as(market, creator).withdrawPayout())
        .to.be.revertedWithCustomError(market, "PlugsNothingToWithdraw")
        .withArgs(creator.address);
      const plugId = await listPlug(market, creator);
      await as(market, buyer).buyLicense(plugId, { value: PRICE_WEI });
      await as(market, creator).withdrawPayout();
      await expect(as(market, creator).withdrawPayout())
        .to.be.revertedWithCustomError(market, "PlugsNothingToWithdraw")
        .withArgs(creator.address);
    });

    it("blocks reentry from a malicious payout receiver with ReentrancyGuardReentrantCall and pays once", async () => {
      const { market, marketAddress, creator, buyer } = await loadFixture(deployPlugsFixture);
      const attacker = (await ethers.deployContract("PlugsReentrantCreator", [marketAddress])) as unknown as Contract;
      const attackerAddress = await attacker.getAddress();
      const attackerPlugId: bigint = await attacker.listPlug.staticCall(PRICE_WEI, 0n, URI);
      await attacker.listPlug(PRICE_WEI, 0n, URI);
      const honestPlugId = await listPlug(market, creator);
      await as(market, buyer).buyLicense(attackerPlugId, { value: PRICE_WEI });
      await as(market, buyer).buyLicense(honestPlugId, { value: PRICE_WEI });
      await attacker.setMode(1); // ReenterWithdraw

      const tx = attacker.withdrawPayout();
      await expect(tx).to.emit(market, "PayoutWithdrawn").withArgs(attackerAddress, PRICE_WEI);
      await expect(tx).to.changeEtherBalances([attackerAddress, marketAddress], [PRICE_WEI, -PRICE_WEI]);
      expect(await attacker.reentryAttempts()).to.equal(1n);
      expect(await attacker.reentrySucceeded()).to.equal(false);
      const reentrancySelector = market.interface.getError("ReentrancyGuardReentrantCall")!.selector;
      expect(await attacker.reentryRevertData()).to.equal(reentrancySelector);
      expect(await market.payoutOf(attackerAddress)).to.equal(0n);
      expect(await ethers.provider.getBalance(marketAddress)).to.equal(await market.payoutOf(creator.address));
    });

    it("reverts with PlugsPayoutFailed when the receiver refuses the ether, and keeps the balance", async () => {
      const { market, marketAddress, buyer } = await loadFixture(deployPlugsFixture);
      const receiver = (await ethers.deployContract("PlugsReentrantCreator", [marketAddress])) as unknown as Contract;
      const receiverAddress = await receiver.getAddress();
      const plugId: bigint = await receiver.listPlug.staticCall(PRICE_WEI, 0n, URI);
      await receiver.listPlug(PRICE_WEI, 0n, URI);
      await as(market, buyer).buyLicense(plugId, { value: PRICE_WEI });
      await receiver.setMode(2); // Reject
      await expect(receiver.withdrawPayout())
        .to.be.revertedWithCustomError(market, "PlugsPayoutFailed")
        .withArgs(receiverAddress, PRICE_WEI);
      expect(await market.payoutOf(receiverAddress)).to.equal(PRICE_WEI);
      await receiver.setMode(0); // Accept
      await expect(receiver.withdrawPayout()).to.changeEtherBalance(receiverAddress, PRICE_WEI);
    });
  });

  describe("views", () => {
    it("creatorOf returns the zero address for id 0, an unknown id and a delisted plug", async () => {
      const { market, creator } = await loadFixture(deployPlugsFixture);
      const plugId = await listPlug(market, creator);
      expect(await market.creatorOf(0n)).to.equal(ethers.ZeroAddress);
      expect(await market.creatorOf(plugId + 1n)).to.equal(ethers.ZeroAddress);
      expect(await market.creatorOf(plugId)).to.equal(creator.address);
      await as(market, creator).delistPlug(plugId);
      expect(await market.creatorOf(plugId)).to.equal(ethers.ZeroAddress);
    });

    it("getPlug returns an all-zero plug and hasLicense false for an unknown id", async () => {
      const { market, buyer } = await loadFixture(deployPlugsFixture);
      const plug = await market.getPlug(5n);
      expect([plug.creator, plug.licenseDurationSeconds, plug.listed, plug.priceWei, plug.metadataURI]).to.deep.equal([
        ethers.ZeroAddress,
        0n,
        false,
        0n,
        "",
      ]);
      expect(await market.hasLicense(5n, buyer.address)).to.equal(false);
      expect(await market.plugCount()).to.equal(0n);
    });

    it("exposes the limits MAX_METADATA_URI_BYTES and MAX_LICENSE_DURATION_SECONDS", async () => {
      const { market } = await loadFixture(deployPlugsFixture);
      expect(await market.MAX_METADATA_URI_BYTES()).to.equal(MAX_METADATA_URI_BYTES);
      expect(await market.MAX_LICENSE_DURATION_SECONDS()).to.equal(MAX_LICENSE_DURATION_SECONDS);
    });
  });

  describe("gas", () => {
    it("keeps listPlug, buyLicense, setPrice, delistPlug and withdrawPayout under their ceilings", async function (this: Mocha.Context) {
      if (underCoverage()) this.skip(); // instrumented bytecode costs more gas
      const { market, creator, buyer, otherBuyer } = await loadFixture(deployPlugsFixture);
      const measured = {
        listPlug: await gasUsedOf(as(market, creator).listPlug(PRICE_WEI, 30n * DAY_SECONDS, URI)),
        buyLicenseFirst: await gasUsedOf(as(market, buyer).buyLicense(1n, { value: PRICE_WEI })),
        buyLicenseRenewal: await gasUsedOf(as(market, buyer).buyLicense(1n, { value: PRICE_WEI })),
        setPrice: await gasUsedOf(as(market, creator).setPrice(1n, 2n * PRICE_WEI)),
        withdrawPayout: await gasUsedOf(as(market, creator).withdrawPayout()),
        delistPlug: 0n,
      };
      await as(market, otherBuyer).buyLicense(1n, { value: 2n * PRICE_WEI });
      measured.delistPlug = await gasUsedOf(as(market, creator).delistPlug(1n));
      if (process.env.REPORT_GAS === "true") console.log("      PlugsMarketplace gas:", measured);
      for (const [call, gasUsed] of Object.entries(measured)) {
        expect(gasUsed, call).to.be.lessThan(GAS_CEILING[call as keyof typeof GAS_CEILING]);
      }
    });
  });

  describe("invariant", () => {
    type Operation =
      | { kind: "list"; creator: number; priceWei: bigint; durationSeconds: bigint }
      | { kind: "buy"; buyer: number; plug: number; exactPayment: boolean }
      | { kind: "setPrice"; caller: number; plug: number; priceWei: bigint }
      | { kind: "delist"; caller: number; plug: number }
      | { kind: "withdraw"; caller: number }
      | { kind: "wait"; seconds: bigint };

    const accountIndex = fc.integer({ min: 0, max: 3 });
    const priceWei = fc.bigInt({ min: 0n, max: 10n ** 18n });
    const operation: fc.Arbitrary<Operation> = fc.oneof(
      fc.record({
        kind: fc.constant("list" as const),
        creator: accountIndex,
        priceWei,
        durationSeconds: fc.constantFrom(0n, 100n, DAY_SECONDS),
      }),
      fc.record({
        kind: fc.constant("buy" as const),
        buyer: accountIndex,
        plug: fc.nat(5),
        exactPayment: fc.boolean(),
      }),
      fc.record({
        kind: fc.constant("buy" as const),
        buyer: accountIndex,
        plug: fc.nat(5),
        exactPayment: fc.constant(true),
      }),
      fc.record({ kind: fc.constant("setPrice" as const), caller: accountIndex, plug: fc.nat(5), priceWei }),
      fc.record({ kind: fc.constant("delist" as const), caller: accountIndex, plug: fc.nat(5) }),
      fc.record({ kind: fc.constant("withdraw" as const), caller: accountIndex }),
      fc.record({ kind: fc.constant("wait" as const), seconds: fc.bigInt({ min: 1n, max: 2n * DAY_SECONDS }) }),
    );

    it("keeps the contract balance equal to the sum of unpaid creator balances, as a model predicts", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 14 }), async (operations) => {
          const { market, marketAddress, creator, otherCreator, buyer, otherBuyer } =
            await loadFixture(deployPlugsFixture);
          const accounts = [creator, otherCreator, buyer, otherBuyer];
          const model = {
            plugs: [] as { creator: number; priceWei: bigint; durationSeconds: bigint; listed: boolean }[],
            perpetualHolders: new Set<string>(),
            payouts: [0n, 0n, 0n, 0n],
          };
          for (const op of operations) {
            switch (op.kind) {
              case "list":
                await as(market, accounts[op.creator]).listPlug(op.priceWei, op.durationSeconds, URI);
                model.plugs.push({
                  creator: op.creator,
                  priceWei: op.priceWei,
                  durationSeconds: op.durationSeconds,
                  listed: true,
                });
                break;
              case "buy": {
                const plug = model.plugs[op.plug];
                const price = plug?.priceWei ?? 0n;
                const value = op.exactPayment ? price : price + 1n;
                const holderKey = `${op.plug}:${op.buyer}`;
                const succeeds =
                  plug !== undefined &&
                  plug.listed &&
                  op.exactPayment &&
                  !(plug.durationSeconds === 0n && model.perpetualHolders.has(holderKey));
                const call = as(market, accounts[op.buyer]).buyLicense(BigInt(op.plug + 1), { value });
                if (succeeds) {
                  await call;
                  model.payouts[plug.creator] += price;
                  if (plug.durationSeconds === 0n) model.perpetualHolders.add(holderKey);
                } else {
                  await expect(call).to.be.reverted;
                }
                break;
              }
              case "setPrice":
              case "delist": {
                const plug = model.plugs[op.plug];
                const succeeds = plug !== undefined && plug.listed && plug.creator === op.caller;
                const signer = as(market, accounts[op.caller]);
                const call =
                  op.kind === "setPrice"
                    ? signer.setPrice(BigInt(op.plug + 1), op.priceWei)
                    : signer.delistPlug(BigInt(op.plug + 1));
                if (!succeeds) {
                  await expect(call).to.be.reverted;
                } else {
                  await call;
                  if (op.kind === "setPrice") plug.priceWei = op.priceWei;
                  else plug.listed = false;
                }
                break;
              }
              case "withdraw": {
                const call = as(market, accounts[op.caller]).withdrawPayout();
                if (model.payouts[op.caller] === 0n) {
                  await expect(call).to.be.revertedWithCustomError(market, "PlugsNothingToWithdraw");
                } else {
                  await expect(call).to.changeEtherBalance(accounts[op.caller], model.payouts[op.caller], {
                    includeFee: false,
                  });
                  model.payouts[op.caller] = 0n;
                }
                break;
              }
              case "wait":
                await time.increase(op.seconds);
                break;
            }
            const unpaid = await Promise.all(
              accounts.map((account) => market.payoutOf(account.address) as Promise<bigint>),
            );
            expect(unpaid).to.deep.equal(model.payouts);
            expect(await ethers.provider.getBalance(marketAddress)).to.equal(
              unpaid.reduce((sum, amount) => sum + amount, 0n),
            );
          }
        }),
        { numRuns: 25 },
      );
    });
  });
});
