import { expect } from "chai";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { ethers } from "hardhat";
import type { Contract } from "ethers";
import { FOURTEEN_DAYS, TIMELOCK_DELAY } from "./attestation-fixture";
import {
  MAX_FEE,
  ONE_DAY,
  deployJobsFixture,
  requestAnchor,
  requestInscription,
  scheduleAndExecute,
} from "./jobs-fixture";
import type { JobsFixture } from "./jobs-fixture";

const SALT = ethers.id("jobs admin test salt");

/** The timelock, roles and pause of JobServiceBase, run against both services. */
for (const name of ["DogeInscriber", "DogeAnchor"] as const) {
  const serviceOf = (fixture: JobsFixture): Contract => (name === "DogeInscriber" ? fixture.inscriber : fixture.anchor);
  const request = (fixture: JobsFixture, requester: Contract["runner"]) =>
    name === "DogeInscriber"
      ? requestInscription(fixture.inscriber, requester)
      : requestAnchor(fixture.anchor, requester);

  describe(`contracts/${name} administration`, () => {
    const feeCall = (service: Contract, feeWei: bigint) => service.interface.encodeFunctionData("setFee", [feeWei]);

    describe("schedule", () => {
      it("makes an operation executable after the delay for 14 days, returns its id, and emits OperationScheduled", async () => {
        const fixture = await loadFixture(deployJobsFixture);
        const service = serviceOf(fixture);
        const asAdmin = service.connect(fixture.admin) as Contract;
        const call = feeCall(service, 5n);
        const operationId = await service.hashOperation(call, SALT);
        expect(operationId).to.equal(
          ethers.keccak256(ethers.AbiCoder.defaultAbiCoder().encode(["bytes", "bytes32"], [call, SALT])),
        );
        expect(await asAdmin.schedule.staticCall(call, SALT)).to.equal(operationId);
        const next = BigInt(await time.latest()) + 1n;
        await time.setNextBlockTimestamp(next);
        await expect(asAdmin.schedule(call, SALT))
          .to.emit(service, "OperationScheduled")
          .withArgs(operationId, call, SALT, next + TIMELOCK_DELAY, next + TIMELOCK_DELAY + FOURTEEN_DAYS);
        const operation = await service.operationOf(operationId);
        expect([operation.readyAt, operation.expiresAt, operation.executed]).to.deep.equal([
          next + TIMELOCK_DELAY,
          next + TIMELOCK_DELAY + FOURTEEN_DAYS,
          false,
        ]);
      });

      it("reverts with NotAdmin for anyone but the admin", async () => {
        const fixture = await loadFixture(deployJobsFixture);
        const service = serviceOf(fixture);
        await expect((service.connect(fixture.guardian) as Contract).schedule(feeCall(service, 5n), SALT))
          .to.be.revertedWithCustomError(service, "NotAdmin")
          .withArgs(fixture.guardian.address);
      });

      it("reverts with TimelockOperationNotAllowed for anything but a timelocked setter", async () => {
        const fixture = await loadFixture(deployJobsFixture);
        const service = serviceOf(fixture);
        const asAdmin = service.connect(fixture.admin) as Contract;
        const withdraw = service.interface.encodeFunctionData("withdraw", []);
        await expect(asAdmin.schedule(withdraw, SALT))
          .to.be.revertedWithCustomError(service, "TimelockOperationNotAllowed")
          .withArgs(withdraw);
        const unpause = service.interface.getFunction("unpause")!.selector;
        await expect(asAdmin.schedule(unpause, SALT))
          .to.be.revertedWithCustomError(service, "TimelockOperationNotAllowed")
          .withArgs(unpause);
        await expect(asAdmin.schedule("0x1234", SALT))
          .to.be.revertedWithCustomError(service, "TimelockOperationNotAllowed")
          .withArgs("0x00000000");
      });

      it("reverts with TimelockOperationAlreadyScheduled for the same call and salt, pending or executed, and takes another salt", async () => {
        const fixture = await loadFixture(deployJobsFixture);
        const service = serviceOf(fixture);
        const asAdmin = service.connect(fixture.admin) as Contract;
        const call = feeCall(service, 5n);
        const operationId = await service.hashOperation(call, SALT);
        await asAdmin.schedule(call, SALT);
        await expect(asAdmin.schedule(call, SALT))
          .to.be.revertedWithCustomError(service, "TimelockOperationAlreadyScheduled")
          .withArgs(operationId);
        await time.increase(TIMELOCK_DELAY);
        await asAdmin.execute(call, SALT);
        await expect(asAdmin.schedule(call, SALT))
          .to.be.revertedWithCustomError(service, "TimelockOperationAlreadyScheduled")
          .withArgs(operationId);
        await expect(asAdmin.schedule(call, ethers.id("another salt"))).to.emit(service, "OperationScheduled");
      });
    });

    describe("execute", () => {
      it("runs a scheduled call once ready and emits OperationExecuted and the setter's event", async () => {
        const fixture = await loadFixture(deployJobsFixture);
        const service = serviceOf(fixture);
        const call = feeCall(service, 2n * 10n ** 18n);
        const tx = scheduleAndExecute(service, fixture.admin, call, SALT);
        await expect(tx)
          .to.emit(service, "OperationExecuted")
          .withArgs(await service.hashOperation(call, SALT));
        await expect(tx)
          .to.emit(service, "FeeChanged")
          .withArgs(2n * 10n ** 18n);
        expect(await service.fee()).to.equal(2n * 10n ** 18n);
        expect((await service.operationOf(await service.hashOperation(call, SALT))).executed).to.equal(true);
      });

      it("reverts with TimelockOperationNotReady when executed early", async () => {
        const fixture = await loadFixture(deployJobsFixture);
        const service = serviceOf(fixture);
        const asAdmin = service.connect(fixture.admin) as Contract;
        const call = feeCall(service, 5n);
        await asAdmin.schedule(call, SALT);
        const operation = await service.operationOf(await service.hashOperation(call, SALT));
        await time.setNextBlockTimestamp(operation.readyAt - 1n);
        await expect(asAdmin.execute(call, SALT))
          .to.be.revertedWithCustomError(service, "TimelockOperationNotReady")
          .withArgs(await service.hashOperation(call, SALT), operation.readyAt, operation.readyAt - 1n);
      });

      it("runs exactly at expiry and reverts with TimelockOperationExpired one second later", async () => {
        const fixture = await loadFixture(deployJobsFixture);
        const service = serviceOf(fixture);
        const asAdmin = service.connect(fixture.admin) as Contract;
        const onTime = feeCall(service, 5n);
        const late = feeCall(service, 6n);
        await asAdmin.schedule(onTime, SALT);
        await asAdmin.schedule(late, SALT);
        const expiresAt = (await service.operationOf(await service.hashOperation(late, SALT))).expiresAt;
        await time.setNextBlockTimestamp(expiresAt - 1n);
        await expect(asAdmin.execute(onTime, SALT)).to.emit(service, "OperationExecuted");
        await time.setNextBlockTimestamp(expiresAt + 1n);
        await expect(asAdmin.execute(late, SALT))
          .to.be.revertedWithCustomError(service, "TimelockOperationExpired")
          .withArgs(await service.hashOperation(late, SALT), expiresAt, expiresAt + 1n);
      });

      it("reverts with TimelockOperationAlreadyExecuted when executed twice, TimelockOperationUnknown when never scheduled, NotAdmin for others", async () => {
        const fixture = await loadFixture(deployJobsFixture);
        const service = serviceOf(fixture);
        const asAdmin = service.connect(fixture.admin) as Contract;
        const call = feeCall(service, 5n);
        await scheduleAndExecute(service, fixture.admin, call, SALT);
        const operationId = await service.hashOperation(call, SALT);
        await expect(asAdmin.execute(call, SALT))
          .to.be.revertedWithCustomError(service, "TimelockOperationAlreadyExecuted")
          .withArgs(operationId);
        const never = feeCall(service, 7n);
        await expect(asAdmin.execute(never, SALT))
          .to.be.revertedWithCustomError(service, "TimelockOperationUnknown")
          .withArgs(await service.hashOperation(never, SALT));
        await expect((service.connect(fixture.stranger) as Contract).execute(call, SALT))
          .to.be.revertedWithCustomError(service, "NotAdmin")
          .withArgs(fixture.stranger.address);
      });

      it("passes the setters' own errors through", async () => {
        const fixture = await loadFixture(deployJobsFixture);
        const service = serviceOf(fixture);
        const encode = (fn: string, args: unknown[]) => service.interface.encodeFunctionData(fn, args);
        const cases: [string, string, unknown[]][] = [
          [encode("setFee", [0n]), "JobFeeOutOfRange", [0n, 1n, MAX_FEE]],
          [encode("setFee", [MAX_FEE + 1n]), "JobFeeOutOfRange", [MAX_FEE + 1n, 1n, MAX_FEE]],
          [encode("setDeadlineWindow", [3_599n]), "JobInvalidDeadlineWindow", [3_599n, 3_600n, 7n * ONE_DAY]],
          [
            encode("setDeadlineWindow", [7n * ONE_DAY + 1n]),
            "JobInvalidDeadlineWindow",
            [7n * ONE_DAY + 1n, 3_600n, 7n * ONE_DAY],
          ],
          [encode("setOperator", [ethers.ZeroAddress]), "JobInvalidOperator", [ethers.ZeroAddress]],
          [encode("setGuardian", [ethers.ZeroAddress]), "InvalidGuardian", [ethers.ZeroAddress]],
          [encode("setAdmin", [ethers.ZeroAddress]), "InvalidAdmin", [ethers.ZeroAddress]],
        ];
        const asAdmin = service.connect(fixture.admin) as Contract;
        for (const [call] of cases) await asAdmin.schedule(call, SALT);
        await time.increase(TIMELOCK_DELAY);
        for (const [call, error, args] of cases) {
          await expect(asAdmin.execute(call, SALT))
            .to.be.revertedWithCustomError(service, error)
            .withArgs(...args);
        }
      });
    });

    describe("cancel", () => {
      it("drops a scheduled operation, which then cannot run, and emits OperationCancelled", async () => {
        const fixture = await loadFixture(deployJobsFixture);
        const service = serviceOf(fixture);
        const asAdmin = service.connect(fixture.admin) as Contract;
        const call = feeCall(service, 5n);
        await asAdmin.schedule(call, SALT);
        const operationId = await service.hashOperation(call, SALT);
        await expect(asAdmin.cancel(operationId)).to.emit(service, "OperationCancelled").withArgs(operationId);
        await time.increase(TIMELOCK_DELAY);
        await expect(asAdmin.execute(call, SALT))
          .to.be.revertedWithCustomError(service, "TimelockOperationUnknown")
          .withArgs(operationId);
        expect((await service.operationOf(operationId)).readyAt).to.equal(0n);
      });

      it("reverts with TimelockOperationUnknown, TimelockOperationAlreadyExecuted and NotAdmin", async () => {
        const fixture = await loadFixture(deployJobsFixture);
        const service = serviceOf(fixture);
        const asAdmin = service.connect(fixture.admin) as Contract;
        const unknown = ethers.id("unknown operation");
        await expect(asAdmin.cancel(unknown))
          .to.be.revertedWithCustomError(service, "TimelockOperationUnknown")
          .withArgs(unknown);
        const call = feeCall(service, 5n);
        await scheduleAndExecute(service, fixture.admin, call, SALT);
        const operationId = await service.hashOperation(call, SALT);
        await expect(asAdmin.cancel(operationId))
          .to.be.revertedWithCustomError(service, "TimelockOperationAlreadyExecuted")
          .withArgs(operationId);
        await expect((service.connect(fixture.guardian) as Contract).cancel(operationId))
          .to.be.revertedWithCustomError(service, "NotAdmin")
          .withArgs(fixture.guardian.address);
      });
    });

    describe("timelocked setters", () => {
      it("revert with TimelockOnlySelf when called directly, even by the admin", async () => {
        const fixture = await loadFixture(deployJobsFixture);
        const service = serviceOf(fixture);
        const asAdmin = service.connect(fixture.admin) as Contract;
        const address = fixture.admin.address;
        const calls = [
          () => asAdmin.setFee(5n),
          () => asAdmin.setDeadlineWindow(ONE_DAY),
          () => asAdmin.setOperator(address),
          () => asAdmin.setGuardian(address),
          () => asAdmin.setAdmin(address),
        ];
        for (const call of calls)
          await expect(call()).to.be.revertedWithCustomError(service, "TimelockOnlySelf").withArgs(address);
      });

      it("setFee applies to later requests while open jobs keep and refund the fee they escrowed", async () => {
        const fixture = await loadFixture(deployJobsFixture);
        const service = serviceOf(fixture);
        const { requester } = fixture;
        const oldFee = (await service.fee()) as bigint;
        const early = await request(fixture, requester);
        await scheduleAndExecute(service, fixture.admin, feeCall(service, oldFee * 3n), SALT);
        const later = await request(fixture, requester);
        expect(later.feeWei).to.equal(oldFee * 3n);
        expect((await service.jobOf(early.jobId)).feeWei).to.equal(oldFee);
        await time.increaseTo(early.deadline + 1n);
        await expect((service.connect(requester) as Contract).refund(early.jobId))
          .to.emit(service, "JobRefunded")
          .withArgs(early.jobId, requester.address, oldFee);
      });

      it("setDeadlineWindow applies to later requests", async () => {
        const fixture = await loadFixture(deployJobsFixture);
        const service = serviceOf(fixture);
        await expect(
          scheduleAndExecute(
            service,
            fixture.admin,
            service.interface.encodeFunctionData("setDeadlineWindow", [7_200n]),
            SALT,
          ),
        )
          .to.emit(service, "DeadlineWindowChanged")
          .withArgs(7_200n);
        expect(await service.deadlineWindow()).to.equal(7_200n);
        const job = await request(fixture, fixture.requester);
        const mined = await job.tx.wait();
        const block = await ethers.provider.getBlock(mined!.blockNumber);
        expect(job.deadline).to.equal(BigInt(block!.timestamp) + 7_200n);
      });

      it("setGuardian and setAdmin hand the roles over", async () => {
        const fixture = await loadFixture(deployJobsFixture);
        const service = serviceOf(fixture);
        const { stranger, requester, admin, guardian } = fixture;
        await expect(
          scheduleAndExecute(
            service,
            admin,
            service.interface.encodeFunctionData("setGuardian", [stranger.address]),
            SALT,
          ),
        )
          .to.emit(service, "GuardianChanged")
          .withArgs(stranger.address);
        await expect((service.connect(guardian) as Contract).pause())
          .to.be.revertedWithCustomError(service, "NotGuardian")
          .withArgs(guardian.address);
        await expect((service.connect(stranger) as Contract).pause())
          .to.emit(service, "Paused")
          .withArgs(stranger.address);
        await expect(
          scheduleAndExecute(
            service,
            admin,
            service.interface.encodeFunctionData("setAdmin", [requester.address]),
            SALT,
          ),
        )
          .to.emit(service, "AdminChanged")
          .withArgs(requester.address);
        expect(await service.admin()).to.equal(requester.address);
        await expect((service.connect(admin) as Contract).unpause())
          .to.be.revertedWithCustomError(service, "NotAdmin")
          .withArgs(admin.address);
        await expect((service.connect(requester) as Contract).unpause())
          .to.emit(service, "Unpaused")
          .withArgs(requester.address);
      });
    });

    describe("pause and unpause", () => {
      it("let the guardian pause at once and the admin unpause, with Paused and Unpaused", async () => {
        const fixture = await loadFixture(deployJobsFixture);
        const service = serviceOf(fixture);
        await expect((service.connect(fixture.guardian) as Contract).pause())
          .to.emit(service, "Paused")
          .withArgs(fixture.guardian.address);
        expect(await service.paused()).to.equal(true);
        await expect((service.connect(fixture.admin) as Contract).unpause())
          .to.emit(service, "Unpaused")
          .withArgs(fixture.admin.address);
        expect(await service.paused()).to.equal(false);
        await request(fixture, fixture.requester);
      });

      it("revert with NotGuardian, NotAdmin and PauseUnchanged", async () => {
        const fixture = await loadFixture(deployJobsFixture);
        const service = serviceOf(fixture);
        const { admin, guardian } = fixture;
        await expect((service.connect(admin) as Contract).pause())
          .to.be.revertedWithCustomError(service, "NotGuardian")
          .withArgs(admin.address);
        await expect((service.connect(admin) as Contract).unpause())
          .to.be.revertedWithCustomError(service, "PauseUnchanged")
          .withArgs(false);
        await (service.connect(guardian) as Contract).pause();
        await expect((service.connect(guardian) as Contract).pause())
          .to.be.revertedWithCustomError(service, "PauseUnchanged")
          .withArgs(true);
        await expect((service.connect(guardian) as Contract).unpause())
          .to.be.revertedWithCustomError(service, "NotAdmin")
          .withArgs(guardian.address);
      });

      it("leave the timelock working while paused", async () => {
        const fixture = await loadFixture(deployJobsFixture);
        const service = serviceOf(fixture);
        await (service.connect(fixture.guardian) as Contract).pause();
        await expect(scheduleAndExecute(service, fixture.admin, feeCall(service, 5n), SALT))
          .to.emit(service, "FeeChanged")
          .withArgs(5n);
      });
    });
  });
}
