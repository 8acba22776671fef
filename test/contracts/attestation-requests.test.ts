import { expect } from "chai";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { ethers } from "hardhat";
import type { Contract, ContractTransactionResponse } from "ethers";
import type { HardhatEthersSigner } from "@nomicfoundation/hardhat-ethers/signers";
import {
  DEFAULT_REQUEST_FEE_WEI,
  FACT_TYPE_KEYS,
  ZERO_KEY,
  addressKey,
  creditedCreator,
  dogeBalanceFact,
  drc20BalanceFact,
  requestIdOf,
  signFact,
  splitRequestFee,
  tickKey,
} from "../../src/facts";
import {
  ATTESTERS,
  DOGE_ADDRESS,
  OTHER_DOGE_ADDRESS,
  balanceFact,
  deployAttestationFixture,
  scheduleAndExecute,
  setterCall,
  signByTwo,
  stampAt,
} from "./attestation-fixture";
import type { AttestationFixture } from "./attestation-fixture";

const FEE = DEFAULT_REQUEST_FEE_WEI;
const PLUG_ID = 7n;
const SUBJECT = addressKey(DOGE_ADDRESS);
const REENTRY = { None: 0, Refund: 1, Withdraw: 2 };
const REENTRANCY_GUARD_SELECTOR = ethers.id("ReentrancyGuardReentrantCall()").slice(0, 10);

/** The request id from a requestFact transaction's FactRequested event. */
async function requestIdFrom(attestation: Contract, tx: ContractTransactionResponse): Promise<string> {
  const receipt = await tx.wait();
  for (const log of receipt!.logs) {
    const parsed = attestation.interface.parseLog(log);
    if (parsed?.name === "FactRequested") return parsed.args.requestId as string;
  }
  throw new Error("no FactRequested event");
}

/** The requester asks for DOGE_ADDRESS's balance through `plugId`. */
async function requestBalance(
  fixture: AttestationFixture,
  plugId = PLUG_ID,
  from: HardhatEthersSigner = fixture.requester,
) {
  const tx = await (fixture.attestation.connect(from) as Contract).requestFact(
    FACT_TYPE_KEYS.DOGE_BALANCE,
    SUBJECT,
    ZERO_KEY,
    plugId,
    { value: FEE },
  );
  return requestIdFrom(fixture.attestation, tx);
}

async function withListedPlug() {
  const fixture = await deployAttestationFixture();
  await fixture.registry.setCreator(PLUG_ID, fixture.creator.address);
  return fixture;
}

async function withOpenRequest() {
  const fixture = await withListedPlug();
  const requestId = await requestBalance(fixture);
  return { ...fixture, requestId };
}

describe("contracts/DogeAttestation paid requests", () => {
  describe("requestFact", () => {
    it("escrows exactly the fee, returns the request id and emits FactRequested", async () => {
      const fixture = await loadFixture(withListedPlug);
      const { attestation, requester } = fixture;
      const asRequester = attestation.connect(requester) as Contract;
      const args = [FACT_TYPE_KEYS.DRC20_BALANCE, SUBJECT, tickKey("doge"), PLUG_ID] as const;
      const expectedId = requestIdOf(FACT_TYPE_KEYS.DRC20_BALANCE, SUBJECT, tickKey("doge"), 1n);
      expect(await asRequester.requestFact.staticCall(...args, { value: FEE })).to.equal(expectedId);
      const next = BigInt(await time.latest()) + 10n;
      await time.setNextBlockTimestamp(next);
      const tx = asRequester.requestFact(...args, { value: FEE });
      await expect(tx)
        .to.emit(attestation, "FactRequested")
        .withArgs(
          expectedId,
          requester.address,
          FACT_TYPE_KEYS.DRC20_BALANCE,
          SUBJECT,
          tickKey("doge"),
          PLUG_ID,
          FEE,
          next + 3_600n,
        );
      await expect(tx).to.changeEtherBalances([requester, attestation], [-FEE, FEE]);
      const stored = await attestation.requestOf(expectedId);
      expect(stored.requester).to.equal(requester.address);
      expect([
        stored.feeWei,
        stored.plugId,
        stored.sequence,
        stored.requestedAt,
        stored.deadline,
        stored.status,
      ]).to.deep.equal([FEE, PLUG_ID, 1n, next, next + 3_600n, 1n]);
    });

    it("numbers requests, so the same fact requested twice gets two ids", async () => {
      const fixture = await loadFixture(withListedPlug);
      const first = await requestBalance(fixture);
      const second = await requestBalance(fixture);
      expect(first).to.equal(requestIdOf(FACT_TYPE_KEYS.DOGE_BALANCE, SUBJECT, ZERO_KEY, 1n));
      expect(second).to.equal(requestIdOf(FACT_TYPE_KEYS.DOGE_BALANCE, SUBJECT, ZERO_KEY, 2n));
    });

    it("reverts with AttestationFactTypeNotRequestable for a type without a fee", async () => {
      const { attestation, requester } = await loadFixture(withListedPlug);
      const unknown = ethers.id("NOT_A_FACT_TYPE");
      await expect(
        (attestation.connect(requester) as Contract).requestFact(unknown, SUBJECT, ZERO_KEY, 0n, { value: FEE }),
      )
        .to.be.revertedWithCustomError(attestation, "AttestationFactTypeNotRequestable")
        .withArgs(unknown);
    });

    it("reverts with AttestationWrongFee for less or more than the fee", async () => {
      const { attestation, requester } = await loadFixture(withListedPlug);
      const asRequester = attestation.connect(requester) as Contract;
      for (const sent of [0n, FEE - 1n, FEE + 1n]) {
        await expect(asRequester.requestFact(FACT_TYPE_KEYS.DOGE_BALANCE, SUBJECT, ZERO_KEY, 0n, { value: sent }))
          .to.be.revertedWithCustomError(attestation, "AttestationWrongFee")
          .withArgs(sent, FEE);
      }
    });

    it("reverts with AttestationPlugIdTooLarge for a plug id above 2^96 - 1", async () => {
      const { attestation, requester } = await loadFixture(withListedPlug);
      await expect(
        (attestation.connect(requester) as Contract).requestFact(
          FACT_TYPE_KEYS.DOGE_BALANCE,
          SUBJECT,
          ZERO_KEY,
          1n << 96n,
          { value: FEE },
        ),
      )
        .to.be.revertedWithCustomError(attestation, "AttestationPlugIdTooLarge")
        .withArgs(1n << 96n, (1n << 96n) - 1n);
    });

    it("reverts with AttestationPaused while paused", async () => {
      const fixture = await loadFixture(withListedPlug);
      await (fixture.attestation.connect(fixture.guardian) as Contract).pause();
      await expect(requestBalance(fixture)).to.be.revertedWithCustomError(fixture.attestation, "AttestationPaused");
    });
  });

  describe("fulfill", () => {
    it("credits 20% to the plug's creator and 80% to the treasury, stores the fact and emits RequestFulfilled", async () => {
      const { attestation, domain, requestId, creator, treasury } = await loadFixture(withOpenRequest);
      const fact = await balanceFact(42n, 900);
      const { creatorShareWei, operatorShareWei } = splitRequestFee(FEE, true);
      const tx = attestation.fulfill(requestId, fact, await signByTwo(domain, fact));
      await expect(tx)
        .to.emit(attestation, "RequestFulfilled")
        .withArgs(requestId, creator.address, treasury.address, creatorShareWei, operatorShareWei);
      await expect(tx).to.emit(attestation, "FactStored");
      await expect(tx).to.changeEtherBalance(attestation, 0n);
      expect(await attestation.withdrawableOf(creator.address)).to.equal(FEE / 5n);
      expect(await attestation.withdrawableOf(treasury.address)).to.equal((FEE * 4n) / 5n);
      expect((await attestation.requestOf(requestId)).status).to.equal(2n);
      expect((await attestation.dogeBalance(DOGE_ADDRESS))[0]).to.equal(42n);
    });

    it("credits the whole fee to the treasury when no plug id was given", async () => {
      const fixture = await loadFixture(withListedPlug);
      const requestId = await requestBalance(fixture, 0n);
      const fact = await balanceFact(1n, 900);
      await expect(fixture.attestation.fulfill(requestId, fact, await signByTwo(fixture.domain, fact)))
        .to.emit(fixture.attestation, "RequestFulfilled")
        .withArgs(requestId, ethers.ZeroAddress, fixture.treasury.address, 0n, FEE);
      expect(await fixture.attestation.withdrawableOf(fixture.treasury.address)).to.equal(FEE);
    });

    it("credits the whole fee to the treasury when the marketplace names no creator for the plug", async () => {
      const fixture = await loadFixture(withListedPlug);
      const requestId = await requestBalance(fixture, 99n);
      const fact = await balanceFact(1n, 900);
      await expect(fixture.attestation.fulfill(requestId, fact, await signByTwo(fixture.domain, fact)))
        .to.emit(fixture.attestation, "RequestFulfilled")
        .withArgs(requestId, ethers.ZeroAddress, fixture.treasury.address, 0n, FEE);
    });

    it("credits the whole fee to the treasury when no marketplace is set", async () => {
      const fixture = await loadFixture(withOpenRequest);
      const { attestation, admin } = fixture;
      await scheduleAndExecute(
        attestation,
        admin,
        setterCall(attestation, "setPlugsMarketplace", [ethers.ZeroAddress]),
      );
      const requestId = await requestBalance(fixture);
      const fact = await balanceFact(1n, 900);
      await expect(attestation.fulfill(requestId, fact, await signByTwo(fixture.domain, fact)))
        .to.emit(attestation, "RequestFulfilled")
        .withArgs(requestId, ethers.ZeroAddress, fixture.treasury.address, 0n, FEE);
    });

    it("credits the whole fee to the treasury when the plug's creator is the requester, as creditedCreator says", async () => {
      const fixture = await loadFixture(withListedPlug);
      const { attestation, registry, requester, treasury, domain } = fixture;
      await registry.setCreator(8n, requester.address);
      const requestId = await requestBalance(fixture, 8n);
      expect(creditedCreator(requester.address, requester.address)).to.equal(ethers.ZeroAddress);
      const { creatorShareWei, operatorShareWei } = splitRequestFee(FEE, false);
      const fact = await balanceFact(1n, 900);
      await expect(attestation.fulfill(requestId, fact, await signByTwo(domain, fact)))
        .to.emit(attestation, "RequestFulfilled")
        .withArgs(requestId, ethers.ZeroAddress, treasury.address, creatorShareWei, operatorShareWei);
      expect(await attestation.withdrawableOf(requester.address)).to.equal(0n);
      expect(await attestation.withdrawableOf(treasury.address)).to.equal(FEE);
      // Another requester through the same plug pays its creator (the first requester) the share.
      expect(creditedCreator(requester.address, fixture.stranger.address)).to.equal(requester.address);
      const othersRequest = await requestBalance(fixture, 8n, fixture.stranger);
      const later = await balanceFact(2n, 901, 5n);
      await expect(attestation.fulfill(othersRequest, later, await signByTwo(domain, later)))
        .to.emit(attestation, "RequestFulfilled")
        .withArgs(othersRequest, requester.address, treasury.address, FEE / 5n, (FEE * 4n) / 5n);
    });

    it("credits the creator of a plug listed on the real PlugsMarketplace, and nobody once it is delisted", async () => {
      const fixture = await loadFixture(withListedPlug);
      const { attestation, admin, creator, treasury, domain } = fixture;
      const marketplace = await ethers.deployContract("PlugsMarketplace");
      const asCreator = marketplace.connect(creator) as Contract;
      const plugId = await asCreator.listPlug.staticCall(0n, 0n, "ipfs://plug");
      await asCreator.listPlug(0n, 0n, "ipfs://plug");
      await scheduleAndExecute(
        attestation,
        admin,
        setterCall(attestation, "setPlugsMarketplace", [await marketplace.getAddress()]),
      );
      const listed = await requestBalance(fixture, plugId);
      const first = await balanceFact(1n, 900);
      await expect(attestation.fulfill(listed, first, await signByTwo(domain, first)))
        .to.emit(attestation, "RequestFulfilled")
        .withArgs(listed, creator.address, treasury.address, FEE / 5n, (FEE * 4n) / 5n);
      await asCreator.delistPlug(plugId);
      const delisted = await requestBalance(fixture, plugId);
      const second = await balanceFact(2n, 901, 5n);
      await expect(attestation.fulfill(delisted, second, await signByTwo(domain, second)))
        .to.emit(attestation, "RequestFulfilled")
        .withArgs(delisted, ethers.ZeroAddress, treasury.address, 0n, FEE);
    });

    it("pays without overwriting when a newer fact is already stored", async () => {
      const { attestation, domain, requestId, creator } = await loadFixture(withOpenRequest);
      const answer = await balanceFact(1n, 900);
      const newer = await balanceFact(2n, 901, 5n);
      await attestation.submitFact(newer, await signByTwo(domain, newer));
      const tx = attestation.fulfill(requestId, answer, await signByTwo(domain, answer));
      await expect(tx).to.emit(attestation, "RequestFulfilled");
      await expect(tx).to.not.emit(attestation, "FactStored");
      expect((await attestation.dogeBalance(DOGE_ADDRESS))[0]).to.equal(2n);
      expect(await attestation.withdrawableOf(creator.address)).to.equal(FEE / 5n);
    });

    it("pays when the same signed answer was already relayed through submitFact", async () => {
      const { attestation, domain, requestId } = await loadFixture(withOpenRequest);
      const answer = await balanceFact(1n, 900);
      const signatures = await signByTwo(domain, answer);
      await attestation.submitFact(answer, signatures);
      await expect(attestation.fulfill(requestId, answer, signatures)).to.emit(attestation, "RequestFulfilled");
    });

    it("lets anyone relay the answer; the fee still goes to the creator and the treasury", async () => {
      const { attestation, domain, requestId, stranger, treasury } = await loadFixture(withOpenRequest);
      const fact = await balanceFact(1n, 900);
      await (attestation.connect(stranger) as Contract).fulfill(requestId, fact, await signByTwo(domain, fact));
      expect(await attestation.withdrawableOf(stranger.address)).to.equal(0n);
      expect(await attestation.withdrawableOf(treasury.address)).to.equal((FEE * 4n) / 5n);
    });

    it("reverts with AttestationFactDoesNotAnswerRequest for a fact about another subject, type or qualifier", async () => {
      const { attestation, domain, requestId } = await loadFixture(withOpenRequest);
      const stamp = await stampAt(900);
      const wrong = [
        dogeBalanceFact(OTHER_DOGE_ADDRESS, 1n, stamp),
        drc20BalanceFact(DOGE_ADDRESS, "doge", 1n, stamp),
        { ...dogeBalanceFact(DOGE_ADDRESS, 1n, stamp), qualifier: tickKey("doge") },
      ];
      for (const fact of wrong) {
        await expect(attestation.fulfill(requestId, fact, await signByTwo(domain, fact)))
          .to.be.revertedWithCustomError(attestation, "AttestationFactDoesNotAnswerRequest")
          .withArgs(requestId, fact.factType, fact.subject, fact.qualifier);
      }
    });

    it("reverts with AttestationRequestNotOpen(id, 2) on a second fulfilment", async () => {
      const { attestation, domain, requestId } = await loadFixture(withOpenRequest);
      const fact = await balanceFact(1n, 900);
      await attestation.fulfill(requestId, fact, await signByTwo(domain, fact));
      const again = await balanceFact(1n, 901, 5n);
      await expect(attestation.fulfill(requestId, again, await signByTwo(domain, again)))
        .to.be.revertedWithCustomError(attestation, "AttestationRequestNotOpen")
        .withArgs(requestId, 2n);
    });

    it("reverts with AttestationRequestNotOpen(id, 0) for an unknown request", async () => {
      const { attestation, domain } = await loadFixture(withOpenRequest);
      const fact = await balanceFact(1n, 900);
      const unknown = ethers.id("no such request");
      await expect(attestation.fulfill(unknown, fact, await signByTwo(domain, fact)))
        .to.be.revertedWithCustomError(attestation, "AttestationRequestNotOpen")
        .withArgs(unknown, 0n);
    });

    it("reverts with AttestationRequestExpired after the deadline", async () => {
      const { attestation, domain, requestId } = await loadFixture(withOpenRequest);
      const deadline = (await attestation.requestOf(requestId)).deadline as bigint;
      await time.setNextBlockTimestamp(deadline + 1n);
      await ethers.provider.send("evm_mine", []);
      const fact = await balanceFact(1n, 900);
      const signatures = await signByTwo(domain, fact);
      await time.setNextBlockTimestamp(deadline + 2n);
      await expect(attestation.fulfill(requestId, fact, signatures))
        .to.be.revertedWithCustomError(attestation, "AttestationRequestExpired")
        .withArgs(requestId, deadline, deadline + 2n);
    });

    it("accepts a fulfilment exactly at the deadline", async () => {
      const { attestation, domain, requestId } = await loadFixture(withOpenRequest);
      const deadline = (await attestation.requestOf(requestId)).deadline as bigint;
      const fact = await balanceFact(1n, 900);
      const signatures = await signByTwo(domain, fact);
      await time.setNextBlockTimestamp(deadline);
      await expect(attestation.fulfill(requestId, fact, signatures)).to.emit(attestation, "RequestFulfilled");
    });

    it("reverts with AttestationFactOlderThanRequest for a fact attested before the request", async () => {
      const { attestation, domain, requestId } = await loadFixture(withOpenRequest);
      const requestedAt = (await attestation.requestOf(requestId)).requestedAt as bigint;
      const fact = { ...(await balanceFact(1n, 900)), attestedAt: requestedAt - 1n };
      await expect(attestation.fulfill(requestId, fact, await signByTwo(domain, fact)))
        .to.be.revertedWithCustomError(attestation, "AttestationFactOlderThanRequest")
        .withArgs(requestId, requestedAt - 1n, requestedAt);
    });

    it("reverts with AttestationQuorumNotMet for an answer signed by one attester", async () => {
      const { attestation, domain, requestId } = await loadFixture(withOpenRequest);
      const fact = await balanceFact(1n, 900);
      await expect(attestation.fulfill(requestId, fact, await signFact([ATTESTERS[0]], domain, fact)))
        .to.be.revertedWithCustomError(attestation, "AttestationQuorumNotMet")
        .withArgs(1n, 2n);
    });

    it("reverts with AttestationPaused while paused", async () => {
      const { attestation, domain, requestId, guardian } = await loadFixture(withOpenRequest);
      await (attestation.connect(guardian) as Contract).pause();
      const fact = await balanceFact(1n, 900);
      await expect(attestation.fulfill(requestId, fact, await signByTwo(domain, fact))).to.be.revertedWithCustomError(
        attestation,
        "AttestationPaused",
      );
    });
  });

  describe("refund", () => {
    it("returns the whole fee to the requester after the deadline and emits RequestRefunded", async () => {
      const { attestation, requestId, requester } = await loadFixture(withOpenRequest);
      await time.increase(3_601n);
      const tx = (attestation.connect(requester) as Contract).refund(requestId);
      await expect(tx).to.emit(attestation, "RequestRefunded").withArgs(requestId, requester.address, FEE);
      await expect(tx).to.changeEtherBalances([requester, attestation], [FEE, -FEE]);
      expect((await attestation.requestOf(requestId)).status).to.equal(3n);
    });

    it("works while paused", async () => {
      const { attestation, requestId, requester, guardian } = await loadFixture(withOpenRequest);
      await (attestation.connect(guardian) as Contract).pause();
      await time.increase(3_601n);
      await expect((attestation.connect(requester) as Contract).refund(requestId)).to.changeEtherBalance(
        requester,
        FEE,
      );
    });

    it("reverts with AttestationRequestNotExpired before the deadline and at it", async () => {
      const { attestation, requestId, requester } = await loadFixture(withOpenRequest);
      const deadline = (await attestation.requestOf(requestId)).deadline as bigint;
      const asRequester = attestation.connect(requester) as Contract;
      const now = BigInt(await time.latest()) + 1n;
      await time.setNextBlockTimestamp(now);
      await expect(asRequester.refund(requestId))
        .to.be.revertedWithCustomError(attestation, "AttestationRequestNotExpired")
        .withArgs(requestId, deadline, now);
      await time.setNextBlockTimestamp(deadline);
      await expect(asRequester.refund(requestId))
        .to.be.revertedWithCustomError(attestation, "AttestationRequestNotExpired")
        .withArgs(requestId, deadline, deadline);
    });

    it("reverts with AttestationNotRequester for anyone but the requester", async () => {
      const { attestation, requestId, requester, stranger } = await loadFixture(withOpenRequest);
      await time.increase(3_601n);
      await expect((attestation.connect(stranger) as Contract).refund(requestId))
        .to.be.revertedWithCustomError(attestation, "AttestationNotRequester")
        .withArgs(requestId, stranger.address, requester.address);
    });

    it("reverts with AttestationRequestNotOpen(id, 2) after a fulfilment", async () => {
      const { attestation, domain, requestId, requester } = await loadFixture(withOpenRequest);
      const fact = await balanceFact(1n, 900);
      await attestation.fulfill(requestId, fact, await signByTwo(domain, fact));
      await time.increase(3_601n);
      await expect((attestation.connect(requester) as Contract).refund(requestId))
        .to.be.revertedWithCustomError(attestation, "AttestationRequestNotOpen")
        .withArgs(requestId, 2n);
    });

    it("refunds at most once, and a refunded request cannot be fulfilled", async () => {
      const { attestation, domain, requestId, requester } = await loadFixture(withOpenRequest);
      const fact = await balanceFact(1n, 900);
      const signatures = await signByTwo(domain, fact);
      await time.increase(3_601n);
      const asRequester = attestation.connect(requester) as Contract;
      await asRequester.refund(requestId);
      await expect(asRequester.refund(requestId))
        .to.be.revertedWithCustomError(attestation, "AttestationRequestNotOpen")
        .withArgs(requestId, 3n);
      await expect(attestation.fulfill(requestId, fact, signatures))
        .to.be.revertedWithCustomError(attestation, "AttestationRequestNotOpen")
        .withArgs(requestId, 3n);
    });

    it("reverts with AttestationPayoutFailed when the requester refuses the payment", async () => {
      const { attestation } = await loadFixture(withListedPlug);
      const receiver = await ethers.deployContract("AttestationReentrantReceiver", [await attestation.getAddress()]);
      await receiver.requestFact(FACT_TYPE_KEYS.DOGE_BALANCE, SUBJECT, ZERO_KEY, 0n, { value: FEE });
      await receiver.setRejectPayments(true);
      await time.increase(3_601n);
      await expect(receiver.refund())
        .to.be.revertedWithCustomError(attestation, "AttestationPayoutFailed")
        .withArgs(await receiver.getAddress(), FEE);
    });

    it("stops a receiver that re-enters refund, and pays it once", async () => {
      const { attestation } = await loadFixture(withListedPlug);
      const receiver = await ethers.deployContract("AttestationReentrantReceiver", [await attestation.getAddress()]);
      await receiver.requestFact(FACT_TYPE_KEYS.DOGE_BALANCE, SUBJECT, ZERO_KEY, 0n, { value: FEE });
      await receiver.setReentry(REENTRY.Refund);
      await time.increase(3_601n);
      await expect(receiver.refund()).to.changeEtherBalances([receiver, attestation], [FEE, -FEE]);
      expect(await receiver.reentryAttempted()).to.equal(true);
      expect(await receiver.reentrySucceeded()).to.equal(false);
      expect(await receiver.reentryRevertData()).to.equal(REENTRANCY_GUARD_SELECTOR);
      expect(await receiver.paymentsReceived()).to.equal(1n);
    });
  });

  describe("withdraw", () => {
    async function withFulfilledRequest() {
      const fixture = await withOpenRequest();
      const fact = await balanceFact(1n, 900);
      await fixture.attestation.fulfill(fixture.requestId, fact, await signByTwo(fixture.domain, fact));
      return fixture;
    }

    it("pays the creator and the treasury their balances and emits PayoutWithdrawn", async () => {
      const { attestation, creator, treasury } = await loadFixture(withFulfilledRequest);
      const asCreator = attestation.connect(creator) as Contract;
      await expect(asCreator.withdraw())
        .to.emit(attestation, "PayoutWithdrawn")
        .withArgs(creator.address, FEE / 5n);
      const tx = (attestation.connect(treasury) as Contract).withdraw();
      await expect(tx).to.changeEtherBalances([treasury, attestation], [(FEE * 4n) / 5n, -(FEE * 4n) / 5n]);
      expect(await attestation.withdrawableOf(creator.address)).to.equal(0n);
      expect(await attestation.withdrawableOf(treasury.address)).to.equal(0n);
      expect(await ethers.provider.getBalance(await attestation.getAddress())).to.equal(0n);
    });

    it("reverts with AttestationNothingToWithdraw for an account without a balance", async () => {
      const { attestation, creator, stranger } = await loadFixture(withFulfilledRequest);
      await expect((attestation.connect(stranger) as Contract).withdraw())
        .to.be.revertedWithCustomError(attestation, "AttestationNothingToWithdraw")
        .withArgs(stranger.address);
      await (attestation.connect(creator) as Contract).withdraw();
      await expect((attestation.connect(creator) as Contract).withdraw())
        .to.be.revertedWithCustomError(attestation, "AttestationNothingToWithdraw")
        .withArgs(creator.address);
    });

    it("works while paused", async () => {
      const { attestation, creator, guardian } = await loadFixture(withFulfilledRequest);
      await (attestation.connect(guardian) as Contract).pause();
      await expect((attestation.connect(creator) as Contract).withdraw()).to.changeEtherBalance(creator, FEE / 5n);
    });

    it("leaves an old treasury's balance with it after the treasury changes", async () => {
      const fixture = await loadFixture(withFulfilledRequest);
      const { attestation, admin, treasury, stranger, domain } = fixture;
      await scheduleAndExecute(attestation, admin, setterCall(attestation, "setTreasury", [stranger.address]));
      const requestId = await requestBalance(fixture, 0n);
      const fact = await balanceFact(2n, 950);
      await attestation.fulfill(requestId, fact, await signByTwo(domain, fact));
      expect(await attestation.withdrawableOf(treasury.address)).to.equal((FEE * 4n) / 5n);
      expect(await attestation.withdrawableOf(stranger.address)).to.equal(FEE);
      await expect((attestation.connect(treasury) as Contract).withdraw()).to.changeEtherBalance(
        treasury,
        (FEE * 4n) / 5n,
      );
    });

    it("reverts with AttestationPayoutFailed when the account refuses the payment", async () => {
      const fixture = await loadFixture(withListedPlug);
      const { attestation, registry, domain } = fixture;
      const receiver = await ethers.deployContract("AttestationReentrantReceiver", [await attestation.getAddress()]);
      await registry.setCreator(PLUG_ID, await receiver.getAddress());
      const requestId = await requestBalance(fixture);
      const fact = await balanceFact(1n, 900);
      await attestation.fulfill(requestId, fact, await signByTwo(domain, fact));
      await receiver.setRejectPayments(true);
      await expect(receiver.withdraw())
        .to.be.revertedWithCustomError(attestation, "AttestationPayoutFailed")
        .withArgs(await receiver.getAddress(), FEE / 5n);
      expect(await attestation.withdrawableOf(await receiver.getAddress())).to.equal(FEE / 5n);
    });

    it("stops a creator that re-enters withdraw, and pays it once", async () => {
      const fixture = await loadFixture(withListedPlug);
      const { attestation, registry, domain } = fixture;
      const receiver = await ethers.deployContract("AttestationReentrantReceiver", [await attestation.getAddress()]);
      await registry.setCreator(PLUG_ID, await receiver.getAddress());
      for (const height of [900, 901]) {
        const requestId = await requestBalance(fixture);
        const fact = await balanceFact(1n, height, BigInt(height));
        await attestation.fulfill(requestId, fact, await signByTwo(domain, fact));
      }
      await receiver.setReentry(REENTRY.Withdraw);
      await expect(receiver.withdraw()).to.changeEtherBalance(receiver, (2n * FEE) / 5n);
      expect(await receiver.reentrySucceeded()).to.equal(false);
      expect(await receiver.reentryRevertData()).to.equal(REENTRANCY_GUARD_SELECTOR);
      expect(await receiver.paymentsReceived()).to.equal(1n);
      expect(await attestation.withdrawableOf(await receiver.getAddress())).to.equal(0n);
    });
  });
});
