import { expect } from "chai";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { ethers } from "hardhat";
import type { Contract } from "ethers";
import { signReceipt } from "../../src/facts";
import { ATTESTERS, OUTSIDER, SPARE_ATTESTERS, TIMELOCK_DELAY, highS, rotateAttesters } from "./attestation-fixture";
import {
  ANCHOR_FEE,
  CONFIRMATIONS,
  L1_HEIGHT,
  MAX_FEE,
  ONE_DAY,
  SETTLE_TIP,
  STATUS,
  TIP,
  anchorResultHash,
  attestTip,
  attestTipFor,
  deployJobsFixture,
  jobIdOf,
  l1TxidFor,
  receiptFor,
  requestAnchor,
  requestInscription,
  scheduleAndExecute,
  settleJob,
  signByTwo,
} from "./jobs-fixture";

describe("contracts/DogeAnchor", () => {
  describe("deployment", () => {
    it("starts with a fee of 0.1 DOGE, a one-day deadline window, no jobs, unpaused, wired to the attestation contract", async () => {
      const { anchor, attestation, admin, guardian, operator } = await loadFixture(deployJobsFixture);
      expect(await anchor.fee()).to.equal(ANCHOR_FEE);
      expect(await anchor.DEFAULT_FEE()).to.equal(ANCHOR_FEE);
      expect(await anchor.deadlineWindow()).to.equal(ONE_DAY);
      expect(await anchor.jobCount()).to.equal(0n);
      expect(await anchor.paused()).to.equal(false);
      expect(await anchor.attestation()).to.equal(await attestation.getAddress());
      expect(await anchor.admin()).to.equal(admin.address);
      expect(await anchor.guardian()).to.equal(guardian.address);
      expect(await anchor.operator()).to.equal(operator.address);
      expect(await anchor.timelockDelay()).to.equal(TIMELOCK_DELAY);
    });

    it("exposes its constants", async () => {
      const { anchor } = await loadFixture(deployJobsFixture);
      expect(await anchor.CONFIRMATIONS()).to.equal(CONFIRMATIONS);
      expect(await anchor.MIN_PAYLOAD_BYTES()).to.equal(1n);
      expect(await anchor.MAX_PAYLOAD_BYTES()).to.equal(76n);
      expect(await anchor.EXECUTION_WINDOW()).to.equal(14n * ONE_DAY);
      expect(await anchor.MIN_TIMELOCK_DELAY()).to.equal(3_600n);
      expect(await anchor.MIN_FEE()).to.equal(1n);
      expect(await anchor.MAX_FEE()).to.equal(MAX_FEE);
      expect(await anchor.DEFAULT_DEADLINE_WINDOW()).to.equal(ONE_DAY);
      expect(await anchor.MIN_DEADLINE_WINDOW()).to.equal(3_600n);
      expect(await anchor.MAX_DEADLINE_WINDOW()).to.equal(7n * ONE_DAY);
    });

    it("emits the role, fee and window events from the constructor", async () => {
      const { anchor, admin, guardian, operator } = await loadFixture(deployJobsFixture);
      const mined = await anchor.deploymentTransaction()!.wait();
      const events = mined!.logs.map((log) => anchor.interface.parseLog(log)).map((e) => [e!.name, ...e!.args]);
      expect(events).to.deep.equal([
        ["AdminChanged", admin.address],
        ["GuardianChanged", guardian.address],
        ["OperatorChanged", operator.address],
        ["FeeChanged", ANCHOR_FEE],
        ["DeadlineWindowChanged", ONE_DAY],
      ]);
    });

    it("reverts with JobInvalidAttestation, TimelockInvalidDelay, InvalidAdmin, InvalidGuardian and JobInvalidOperator", async () => {
      const { anchor, attestation, admin, guardian, operator } = await loadFixture(deployJobsFixture);
      const factory = await ethers.getContractFactory("DogeAnchor");
      const at = await attestation.getAddress();
      const zero = ethers.ZeroAddress;
      await expect(factory.deploy(admin.address, admin.address, guardian.address, operator.address, TIMELOCK_DELAY))
        .to.be.revertedWithCustomError(anchor, "JobInvalidAttestation")
        .withArgs(admin.address);
      await expect(factory.deploy(zero, admin.address, guardian.address, operator.address, TIMELOCK_DELAY))
        .to.be.revertedWithCustomError(anchor, "JobInvalidAttestation")
        .withArgs(zero);
      await expect(factory.deploy(at, admin.address, guardian.address, operator.address, 3_599n))
        .to.be.revertedWithCustomError(anchor, "TimelockInvalidDelay")
        .withArgs(3_599n, 3_600n);
      await expect(factory.deploy(at, zero, guardian.address, operator.address, TIMELOCK_DELAY))
        .to.be.revertedWithCustomError(anchor, "InvalidAdmin")
        .withArgs(zero);
      await expect(factory.deploy(at, admin.address, zero, operator.address, TIMELOCK_DELAY))
        .to.be.revertedWithCustomError(anchor, "InvalidGuardian")
        .withArgs(zero);
      await expect(factory.deploy(at, admin.address, guardian.address, zero, TIMELOCK_DELAY))
        .to.be.revertedWithCustomError(anchor, "JobInvalidOperator")
        .withArgs(zero);
    });
  });

  describe("requestAnchor", () => {
    it("escrows the fee, opens the job recording the attested L1 tip, and emits AnchorRequested with sha256 of the payload and the deadline", async () => {
      const { anchor, chainId, requester } = await loadFixture(deployJobsFixture);
      const payload = ethers.toUtf8Bytes("dogeos anchor: hello, base chain");
      const resultHash = anchorResultHash(payload);
      const expectedId = jobIdOf(await anchor.getAddress(), chainId, 1n, resultHash);
      const asRequester = anchor.connect(requester) as Contract;
      expect(await asRequester.requestAnchor.staticCall(payload, { value: ANCHOR_FEE })).to.equal(expectedId);
      const next = BigInt(await time.latest()) + 1n;
      await time.setNextBlockTimestamp(next);
      const tx = asRequester.requestAnchor(payload, { value: ANCHOR_FEE });
      await expect(tx)
        .to.emit(anchor, "AnchorRequested")
        .withArgs(expectedId, requester.address, ethers.hexlify(payload), resultHash, ANCHOR_FEE, next + ONE_DAY);
      await expect(tx).to.changeEtherBalances([requester, anchor], [-ANCHOR_FEE, ANCHOR_FEE]);
      expect(await anchor.jobCount()).to.equal(1n);
      const job = await anchor.jobOf(expectedId);
      expect(job.requester).to.equal(requester.address);
      expect(job.feeWei).to.equal(ANCHOR_FEE);
      expect(job.sequence).to.equal(1n);
      expect(job.deadline).to.equal(next + ONE_DAY);
      expect(job.status).to.equal(STATUS.Open);
      expect(job.l1Height).to.equal(0n);
      expect(job.l1TipAtRequest).to.equal(TIP);
      expect(job.l1Txid).to.equal(ethers.ZeroHash);
      expect(await anchor.jobIdOf(1n, resultHash)).to.equal(expectedId);
    });

    it("gives two requests of the same payload two ids", async () => {
      const { anchor, requester } = await loadFixture(deployJobsFixture);
      const first = await requestAnchor(anchor, requester, "0xaa");
      const second = await requestAnchor(anchor, requester, "0xaa");
      expect(first.resultHash).to.equal(second.resultHash);
      expect(first.jobId).to.not.equal(second.jobId);
      expect((await anchor.jobOf(second.jobId)).sequence).to.equal(2n);
    });

    it("accepts payloads of 1 and 76 bytes", async () => {
      const { anchor, requester } = await loadFixture(deployJobsFixture);
      for (const length of [1, 76]) {
        const payload = ethers.hexlify(ethers.randomBytes(length));
        const job = await requestAnchor(anchor, requester, payload);
        expect(job.resultHash).to.equal(ethers.sha256(payload));
      }
    });

    it("reverts with AnchorPayloadLengthInvalid for an empty payload and one of 77 bytes", async () => {
      const { anchor, requester } = await loadFixture(deployJobsFixture);
      const asRequester = anchor.connect(requester) as Contract;
      await expect(asRequester.requestAnchor("0x", { value: ANCHOR_FEE }))
        .to.be.revertedWithCustomError(anchor, "AnchorPayloadLengthInvalid")
        .withArgs(0n, 1n, 76n);
      await expect(asRequester.requestAnchor(new Uint8Array(77), { value: ANCHOR_FEE }))
        .to.be.revertedWithCustomError(anchor, "AnchorPayloadLengthInvalid")
        .withArgs(77n, 1n, 76n);
    });

    it("reverts with JobWrongFee unless exactly the fee is sent", async () => {
      const { anchor, requester } = await loadFixture(deployJobsFixture);
      const asRequester = anchor.connect(requester) as Contract;
      for (const sent of [0n, ANCHOR_FEE - 1n, ANCHOR_FEE + 1n]) {
        await expect(asRequester.requestAnchor("0x01", { value: sent }))
          .to.be.revertedWithCustomError(anchor, "JobWrongFee")
          .withArgs(sent, ANCHOR_FEE);
      }
    });

    it("reverts with JobPaused while paused", async () => {
      const { anchor, requester, guardian } = await loadFixture(deployJobsFixture);
      await (anchor.connect(guardian) as Contract).pause();
      await expect(
        (anchor.connect(requester) as Contract).requestAnchor("0x01", { value: ANCHOR_FEE }),
      ).to.be.revertedWithCustomError(anchor, "JobPaused");
    });
  });

  describe("settle", () => {
    it("settles a 6-deep job relayed by anyone, credits the operator, stores the txid and height, spends the txid, and emits JobSettled", async () => {
      const { anchor, domain, requester, stranger, operator } = await loadFixture(deployJobsFixture);
      const job = await requestAnchor(anchor, requester);
      const l1Txid = l1TxidFor(job.jobId);
      expect(await anchor.settledJobOf(l1Txid)).to.equal(ethers.ZeroHash);
      const tx = settleJob(anchor, domain, job, stranger);
      await expect(tx)
        .to.emit(anchor, "JobSettled")
        .withArgs(job.jobId, operator.address, l1Txid, L1_HEIGHT, ANCHOR_FEE);
      await expect(tx).to.changeEtherBalance(anchor, 0n);
      expect(await anchor.settledJobOf(l1Txid)).to.equal(job.jobId);
      const stored = await anchor.jobOf(job.jobId);
      expect(stored.status).to.equal(STATUS.Settled);
      expect(stored.l1Txid).to.equal(l1Txid);
      expect(stored.l1Height).to.equal(L1_HEIGHT);
      expect(stored.l1TipAtRequest).to.equal(TIP);
      expect(stored.requester).to.equal(requester.address);
      expect(stored.feeWei).to.equal(ANCHOR_FEE);
      expect(stored.sequence).to.equal(1n);
      expect(stored.deadline).to.equal(job.deadline);
      expect(await anchor.withdrawableOf(operator.address)).to.equal(ANCHOR_FEE);
      expect(await ethers.provider.getBalance(await anchor.getAddress())).to.equal(ANCHOR_FEE);
    });

    it("reverts with JobNotConfirmed for a transaction only 5 deep, and accepts it once the tip moves", async () => {
      const { anchor, attestation, domain, requester } = await loadFixture(deployJobsFixture);
      const job = await requestAnchor(anchor, requester);
      const receipt = await receiptFor(anchor, job);
      const signatures = await signByTwo(domain, receipt);
      await expect(anchor.settle(job.jobId, receipt, signatures))
        .to.be.revertedWithCustomError(anchor, "JobNotConfirmed")
        .withArgs(job.jobId, L1_HEIGHT, TIP, CONFIRMATIONS);
      await attestTip(attestation, domain, SETTLE_TIP - 1n);
      await expect(anchor.settle(job.jobId, receipt, signatures))
        .to.be.revertedWithCustomError(anchor, "JobNotConfirmed")
        .withArgs(job.jobId, L1_HEIGHT, SETTLE_TIP - 1n, CONFIRMATIONS);
      await attestTip(attestation, domain, SETTLE_TIP);
      await expect(anchor.settle(job.jobId, receipt, signatures)).to.emit(anchor, "JobSettled");
    });

    it("reverts with JobNotConfirmed for a height above the tip and near 2^64 without overflowing", async () => {
      const { anchor, domain, requester } = await loadFixture(deployJobsFixture);
      const job = await requestAnchor(anchor, requester);
      const top = (1n << 64n) - 1n;
      for (const l1Height of [TIP + 10n, top]) {
        const receipt = await receiptFor(anchor, job, l1Height);
        await expect(anchor.settle(job.jobId, receipt, await signByTwo(domain, receipt)))
          .to.be.revertedWithCustomError(anchor, "JobNotConfirmed")
          .withArgs(job.jobId, l1Height, TIP, CONFIRMATIONS);
      }
    });

    it("settles a job past its deadline that nobody refunded", async () => {
      const { anchor, domain, requester } = await loadFixture(deployJobsFixture);
      const job = await requestAnchor(anchor, requester);
      await time.increaseTo(job.deadline + 3_600n);
      await expect(settleJob(anchor, domain, job)).to.emit(anchor, "JobSettled");
    });

    it("reverts with JobReceiptForOtherContract for an inscriber receipt presented to the anchor with the same job id", async () => {
      const { anchor, inscriber, domain, requester } = await loadFixture(deployJobsFixture);
      const anchorJob = await requestAnchor(anchor, requester);
      const inscriberJob = await requestInscription(inscriber, requester);
      // A properly signed receipt of the inscriber, re-pointed at the anchor's job id: still the inscriber's contract.
      const receipt = { ...(await receiptFor(inscriber, inscriberJob)), jobId: anchorJob.jobId };
      await expect(anchor.settle(anchorJob.jobId, receipt, await signByTwo(domain, receipt)))
        .to.be.revertedWithCustomError(anchor, "JobReceiptForOtherContract")
        .withArgs(anchorJob.jobId, await inscriber.getAddress());
      // The inscriber's own receipt for its own job does not settle anything at the anchor either.
      const own = await receiptFor(inscriber, inscriberJob);
      await expect(anchor.settle(inscriberJob.jobId, own, await signByTwo(domain, own)))
        .to.be.revertedWithCustomError(anchor, "JobReceiptForOtherContract")
        .withArgs(inscriberJob.jobId, await inscriber.getAddress());
    });

    it("reverts with JobReceiptForOtherJob when the receipt names another job", async () => {
      const { anchor, domain, requester } = await loadFixture(deployJobsFixture);
      const first = await requestAnchor(anchor, requester, "0x01");
      const second = await requestAnchor(anchor, requester, "0x01");
      const receipt = await receiptFor(anchor, first);
      await expect(anchor.settle(second.jobId, receipt, await signByTwo(domain, receipt)))
        .to.be.revertedWithCustomError(anchor, "JobReceiptForOtherJob")
        .withArgs(second.jobId, first.jobId);
    });

    it("reverts with JobResultHashMismatch for a receipt with another result hash", async () => {
      const { anchor, domain, requester } = await loadFixture(deployJobsFixture);
      const job = await requestAnchor(anchor, requester, "0x01");
      const wrong = anchorResultHash("0x02");
      const receipt = await receiptFor(anchor, { jobId: job.jobId, resultHash: wrong });
      await expect(anchor.settle(job.jobId, receipt, await signByTwo(domain, receipt)))
        .to.be.revertedWithCustomError(anchor, "JobResultHashMismatch")
        .withArgs(job.jobId, wrong);
    });

    it("reverts with JobNotOpen for an unknown job, a settled one and a refunded one", async () => {
      const { anchor, domain, requester } = await loadFixture(deployJobsFixture);
      const unknown = { jobId: ethers.id("no such job"), resultHash: anchorResultHash("0x01") };
      const receipt = await receiptFor(anchor, unknown);
      await expect(anchor.settle(unknown.jobId, receipt, await signByTwo(domain, receipt)))
        .to.be.revertedWithCustomError(anchor, "JobNotOpen")
        .withArgs(unknown.jobId, STATUS.None);

      const settled = await requestAnchor(anchor, requester);
      await settleJob(anchor, domain, settled);
      await expect(settleJob(anchor, domain, settled))
        .to.be.revertedWithCustomError(anchor, "JobNotOpen")
        .withArgs(settled.jobId, STATUS.Settled);

      const refunded = await requestAnchor(anchor, requester);
      await time.increaseTo(refunded.deadline + 1n);
      await (anchor.connect(requester) as Contract).refund(refunded.jobId);
      await expect(settleJob(anchor, domain, refunded))
        .to.be.revertedWithCustomError(anchor, "JobNotOpen")
        .withArgs(refunded.jobId, STATUS.Refunded);
    });

    it("reverts with AttestationQuorumNotMet for one signature and AttestationSignersNotAscending for one attester twice", async () => {
      const { anchor, attestation, domain, requester } = await loadFixture(deployJobsFixture);
      const job = await requestAnchor(anchor, requester);
      const receipt = await receiptFor(anchor, job);
      await attestTipFor(anchor, domain, receipt.l1Height);
      const [one] = await signReceipt([ATTESTERS[0]], domain, receipt);
      await expect(anchor.settle(job.jobId, receipt, [one]))
        .to.be.revertedWithCustomError(attestation, "AttestationQuorumNotMet")
        .withArgs(1n, 2n);
      await expect(anchor.settle(job.jobId, receipt, [one, one]))
        .to.be.revertedWithCustomError(attestation, "AttestationSignersNotAscending")
        .withArgs(1n, ATTESTERS[0].address, ATTESTERS[0].address);
      await expect(anchor.settle(job.jobId, receipt, []))
        .to.be.revertedWithCustomError(attestation, "AttestationQuorumNotMet")
        .withArgs(0n, 2n);
    });

    it("reverts with AttestationSignerNotAttester for an outsider and AttestationInvalidSignature for a high-s twin", async () => {
      const { anchor, attestation, domain, requester } = await loadFixture(deployJobsFixture);
      const job = await requestAnchor(anchor, requester);
      const receipt = await receiptFor(anchor, job);
      await attestTipFor(anchor, domain, receipt.l1Height);
      const signatures = await signReceipt([ATTESTERS[0], OUTSIDER], domain, receipt);
      const outsiderIndex = BigInt(OUTSIDER.address) > BigInt(ATTESTERS[0].address) ? 1n : 0n;
      await expect(anchor.settle(job.jobId, receipt, signatures))
        .to.be.revertedWithCustomError(attestation, "AttestationSignerNotAttester")
        .withArgs(outsiderIndex, OUTSIDER.address);
      const valid = await signByTwo(domain, receipt);
      const twin = highS(valid[0]);
      await expect(anchor.settle(job.jobId, receipt, [twin, valid[1]]))
        .to.be.revertedWithCustomError(attestation, "AttestationInvalidSignature")
        .withArgs(0n, 3n, `0x${twin.slice(66, 130)}`);
    });

    it("refuses a removed attester's signature after a rotation, and a receipt signed for the old set", async () => {
      const { anchor, attestation, admin, domain, requester } = await loadFixture(deployJobsFixture);
      const job = await requestAnchor(anchor, requester);
      const oldSetReceipt = await receiptFor(anchor, job);
      await attestTipFor(anchor, domain, oldSetReceipt.l1Height);
      const oldSetSignatures = await signByTwo(domain, oldSetReceipt);
      // Current set becomes {A1, A2, S1}; A3 is removed.
      await rotateAttesters(attestation, admin, [ATTESTERS[0], ATTESTERS[1], SPARE_ATTESTERS[0]]);
      await expect(anchor.settle(job.jobId, oldSetReceipt, oldSetSignatures))
        .to.be.revertedWithCustomError(attestation, "AttestationWrongAttesterSet")
        .withArgs(1n, 2n);
      const receipt = await receiptFor(anchor, job, L1_HEIGHT, 2n);
      const signatures = await signReceipt([ATTESTERS[0], ATTESTERS[2]], domain, receipt);
      const removedIndex = BigInt(ATTESTERS[2].address) > BigInt(ATTESTERS[0].address) ? 1n : 0n;
      await expect(anchor.settle(job.jobId, receipt, signatures))
        .to.be.revertedWithCustomError(attestation, "AttestationSignerNotAttester")
        .withArgs(removedIndex, ATTESTERS[2].address);
      await expect(
        anchor.settle(job.jobId, receipt, await signReceipt([ATTESTERS[0], SPARE_ATTESTERS[0]], domain, receipt)),
      ).to.emit(anchor, "JobSettled");
    });

    it("reverts with JobPaused while the service is paused and AttestationPaused while the attestation contract is", async () => {
      const { anchor, attestation, domain, requester, guardian, admin } = await loadFixture(deployJobsFixture);
      const job = await requestAnchor(anchor, requester);
      await (anchor.connect(guardian) as Contract).pause();
      await expect(settleJob(anchor, domain, job)).to.be.revertedWithCustomError(anchor, "JobPaused");
      await (anchor.connect(admin) as Contract).unpause();
      await (attestation.connect(guardian) as Contract).pause();
      await expect(settleJob(anchor, domain, job)).to.be.revertedWithCustomError(attestation, "AttestationPaused");
      await (attestation.connect(admin) as Contract).unpause();
      await expect(settleJob(anchor, domain, job)).to.emit(anchor, "JobSettled");
    });
  });

  describe("refund", () => {
    it("sends the whole fee back to the requester after the deadline and emits JobRefunded", async () => {
      const { anchor, requester } = await loadFixture(deployJobsFixture);
      const job = await requestAnchor(anchor, requester);
      await time.increaseTo(job.deadline + 1n);
      const tx = (anchor.connect(requester) as Contract).refund(job.jobId);
      await expect(tx).to.emit(anchor, "JobRefunded").withArgs(job.jobId, requester.address, ANCHOR_FEE);
      await expect(tx).to.changeEtherBalances([requester, anchor], [ANCHOR_FEE, -ANCHOR_FEE]);
      expect((await anchor.jobOf(job.jobId)).status).to.equal(STATUS.Refunded);
    });

    it("works while paused", async () => {
      const { anchor, requester, guardian } = await loadFixture(deployJobsFixture);
      const job = await requestAnchor(anchor, requester);
      await (anchor.connect(guardian) as Contract).pause();
      await time.increaseTo(job.deadline + 1n);
      await expect((anchor.connect(requester) as Contract).refund(job.jobId)).to.emit(anchor, "JobRefunded");
    });

    it("reverts with JobNotExpired up to and at the deadline", async () => {
      const { anchor, requester } = await loadFixture(deployJobsFixture);
      const job = await requestAnchor(anchor, requester);
      const asRequester = anchor.connect(requester) as Contract;
      const now = BigInt(await time.latest()) + 1n;
      await time.setNextBlockTimestamp(now);
      await expect(asRequester.refund(job.jobId))
        .to.be.revertedWithCustomError(anchor, "JobNotExpired")
        .withArgs(job.jobId, job.deadline, now);
      await time.setNextBlockTimestamp(job.deadline);
      await expect(asRequester.refund(job.jobId))
        .to.be.revertedWithCustomError(anchor, "JobNotExpired")
        .withArgs(job.jobId, job.deadline, job.deadline);
    });

    it("reverts with JobNotRequester for anyone else, the operator included", async () => {
      const { anchor, requester, stranger, operator } = await loadFixture(deployJobsFixture);
      const job = await requestAnchor(anchor, requester);
      await time.increaseTo(job.deadline + 1n);
      for (const caller of [stranger, operator]) {
        await expect((anchor.connect(caller) as Contract).refund(job.jobId))
          .to.be.revertedWithCustomError(anchor, "JobNotRequester")
          .withArgs(job.jobId, caller.address, requester.address);
      }
    });

    it("reverts with JobNotOpen after settlement, after a refund, and for an unknown job", async () => {
      const { anchor, domain, requester } = await loadFixture(deployJobsFixture);
      const asRequester = anchor.connect(requester) as Contract;
      const settled = await requestAnchor(anchor, requester);
      await settleJob(anchor, domain, settled);
      const refunded = await requestAnchor(anchor, requester);
      await time.increaseTo(refunded.deadline + 1n);
      await asRequester.refund(refunded.jobId);
      await expect(asRequester.refund(settled.jobId))
        .to.be.revertedWithCustomError(anchor, "JobNotOpen")
        .withArgs(settled.jobId, STATUS.Settled);
      await expect(asRequester.refund(refunded.jobId))
        .to.be.revertedWithCustomError(anchor, "JobNotOpen")
        .withArgs(refunded.jobId, STATUS.Refunded);
      const unknown = ethers.id("unknown");
      await expect(asRequester.refund(unknown))
        .to.be.revertedWithCustomError(anchor, "JobNotOpen")
        .withArgs(unknown, STATUS.None);
    });

    it("pays once when the requester's receive hook re-enters refund", async () => {
      const { anchor } = await loadFixture(deployJobsFixture);
      const receiver = await ethers.deployContract("JobReentrantReceiver", [await anchor.getAddress()]);
      await receiver.requestAnchor("0x01", { value: ANCHOR_FEE });
      await receiver.setReentry(1); // Refund
      const job = await anchor.jobOf(await receiver.jobId());
      await time.increaseTo(job.deadline + 1n);
      const tx = receiver.refund();
      await expect(tx).to.changeEtherBalances([receiver, anchor], [ANCHOR_FEE, -ANCHOR_FEE]);
      expect(await receiver.reentryAttempted()).to.equal(true);
      expect(await receiver.reentrySucceeded()).to.equal(false);
      expect(await receiver.paymentsReceived()).to.equal(1n);
      const selector = anchor.interface.getError("ReentrancyGuardReentrantCall")!.selector;
      expect(await receiver.reentryRevertData()).to.equal(selector);
    });

    it("reverts with JobPayoutFailed when the requester refuses the ether, and the job stays open", async () => {
      const { anchor } = await loadFixture(deployJobsFixture);
      const receiver = await ethers.deployContract("JobReentrantReceiver", [await anchor.getAddress()]);
      await receiver.requestAnchor("0x01", { value: ANCHOR_FEE });
      await receiver.setRejectPayments(true);
      const jobId = await receiver.jobId();
      await time.increaseTo((await anchor.jobOf(jobId)).deadline + 1n);
      await expect(receiver.refund())
        .to.be.revertedWithCustomError(anchor, "JobPayoutFailed")
        .withArgs(await receiver.getAddress(), ANCHOR_FEE);
      expect((await anchor.jobOf(jobId)).status).to.equal(STATUS.Open);
      await receiver.setRejectPayments(false);
      await expect(receiver.refund()).to.emit(anchor, "JobRefunded");
    });
  });

  describe("withdraw", () => {
    it("sends the operator its settled fees, emits PayoutWithdrawn, and leaves nothing to withdraw", async () => {
      const { anchor, domain, requester, operator } = await loadFixture(deployJobsFixture);
      for (let i = 0; i < 2; i++) await settleJob(anchor, domain, await requestAnchor(anchor, requester));
      const asOperator = anchor.connect(operator) as Contract;
      const tx = asOperator.withdraw();
      await expect(tx)
        .to.emit(anchor, "PayoutWithdrawn")
        .withArgs(operator.address, 2n * ANCHOR_FEE);
      await expect(tx).to.changeEtherBalances([operator, anchor], [2n * ANCHOR_FEE, -2n * ANCHOR_FEE]);
      expect(await anchor.withdrawableOf(operator.address)).to.equal(0n);
      await expect(asOperator.withdraw())
        .to.be.revertedWithCustomError(anchor, "JobNothingToWithdraw")
        .withArgs(operator.address);
    });

    it("reverts with JobNothingToWithdraw for an account without a balance", async () => {
      const { anchor, stranger } = await loadFixture(deployJobsFixture);
      await expect((anchor.connect(stranger) as Contract).withdraw())
        .to.be.revertedWithCustomError(anchor, "JobNothingToWithdraw")
        .withArgs(stranger.address);
    });

    it("works while paused", async () => {
      const { anchor, domain, requester, operator, guardian } = await loadFixture(deployJobsFixture);
      await settleJob(anchor, domain, await requestAnchor(anchor, requester));
      await (anchor.connect(guardian) as Contract).pause();
      await expect((anchor.connect(operator) as Contract).withdraw())
        .to.emit(anchor, "PayoutWithdrawn")
        .withArgs(operator.address, ANCHOR_FEE);
    });

    it("lets a former operator keep what it accrued while the new one accrues later settlements", async () => {
      const { anchor, domain, requester, operator, admin, stranger } = await loadFixture(deployJobsFixture);
      await settleJob(anchor, domain, await requestAnchor(anchor, requester));
      await expect(
        scheduleAndExecute(anchor, admin, anchor.interface.encodeFunctionData("setOperator", [stranger.address])),
      )
        .to.emit(anchor, "OperatorChanged")
        .withArgs(stranger.address);
      const job = await requestAnchor(anchor, requester);
      // Requested after the first settlement raised the attested tip to SETTLE_TIP: settled from the block above it.
      await expect(settleJob(anchor, domain, job))
        .to.emit(anchor, "JobSettled")
        .withArgs(job.jobId, stranger.address, l1TxidFor(job.jobId), SETTLE_TIP + 1n, ANCHOR_FEE);
      expect(await anchor.withdrawableOf(operator.address)).to.equal(ANCHOR_FEE);
      expect(await anchor.withdrawableOf(stranger.address)).to.equal(ANCHOR_FEE);
      await expect((anchor.connect(operator) as Contract).withdraw())
        .to.emit(anchor, "PayoutWithdrawn")
        .withArgs(operator.address, ANCHOR_FEE);
      await expect((anchor.connect(stranger) as Contract).withdraw())
        .to.emit(anchor, "PayoutWithdrawn")
        .withArgs(stranger.address, ANCHOR_FEE);
      expect(await ethers.provider.getBalance(await anchor.getAddress())).to.equal(0n);
    });

    it("pays once when the operator's receive hook re-enters withdraw, and reverts with JobPayoutFailed when it refuses", async () => {
      const { anchor, domain, requester, admin } = await loadFixture(deployJobsFixture);
      const receiver = await ethers.deployContract("JobReentrantReceiver", [await anchor.getAddress()]);
      await scheduleAndExecute(
        anchor,
        admin,
        anchor.interface.encodeFunctionData("setOperator", [await receiver.getAddress()]),
      );
      await settleJob(anchor, domain, await requestAnchor(anchor, requester));
      await receiver.setRejectPayments(true);
      await expect(receiver.withdraw())
        .to.be.revertedWithCustomError(anchor, "JobPayoutFailed")
        .withArgs(await receiver.getAddress(), ANCHOR_FEE);
      await receiver.setRejectPayments(false);
      await receiver.setReentry(2); // Withdraw
      await settleJob(anchor, domain, await requestAnchor(anchor, requester));
      const tx = receiver.withdraw();
      await expect(tx).to.changeEtherBalances([receiver, anchor], [2n * ANCHOR_FEE, -2n * ANCHOR_FEE]);
      expect(await receiver.reentryAttempted()).to.equal(true);
      expect(await receiver.reentrySucceeded()).to.equal(false);
      expect(await receiver.paymentsReceived()).to.equal(1n);
      expect(await receiver.reentryRevertData()).to.equal(
        anchor.interface.getError("ReentrancyGuardReentrantCall")!.selector,
      );
    });
  });
});
