import { expect } from "chai";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { ethers } from "hardhat";
import type { Contract } from "ethers";
import { DEFAULT_REQUEST_FEE_WEI, FACT_TYPE_KEYS, ZERO_KEY, addressKey } from "../../src/facts";
import {
  ATTESTERS,
  DOGE_ADDRESS,
  FOURTEEN_DAYS,
  SPARE_ATTESTERS,
  TIMELOCK_DELAY,
  balanceFact,
  deployAttestationFixture,
  scheduleAndExecute,
  setterCall,
  signByTwo,
} from "./attestation-fixture";

const FEE = DEFAULT_REQUEST_FEE_WEI;
const SALT = ethers.id("salt");

async function scheduled() {
  const fixture = await deployAttestationFixture();
  const { attestation, admin, treasury } = fixture;
  const call = setterCall(attestation, "setRequestFee", [FACT_TYPE_KEYS.DOGE_BALANCE, 2n * FEE]);
  await (attestation.connect(admin) as Contract).schedule(call, SALT);
  const operationId = await attestation.hashOperation(call, SALT);
  const operation = await attestation.operationOf(operationId);
  return {
    ...fixture,
    call,
    operationId,
    readyAt: operation.readyAt as bigint,
    expiresAt: operation.expiresAt as bigint,
    treasury,
  };
}

describe("contracts/DogeAttestation administration", () => {
  describe("schedule", () => {
    it("makes an operation executable after the delay for 14 days, and emits OperationScheduled", async () => {
      const { attestation, admin } = await loadFixture(deployAttestationFixture);
      const call = setterCall(attestation, "setRequestDeadlineWindow", [7_200n]);
      const now = BigInt(await time.latest()) + 1n;
      await time.setNextBlockTimestamp(now);
      const operationId = ethers.keccak256(
        ethers.AbiCoder.defaultAbiCoder().encode(["bytes", "bytes32"], [call, SALT]),
      );
      await expect((attestation.connect(admin) as Contract).schedule(call, SALT))
        .to.emit(attestation, "OperationScheduled")
        .withArgs(operationId, call, SALT, now + TIMELOCK_DELAY, now + TIMELOCK_DELAY + FOURTEEN_DAYS);
      expect(await attestation.hashOperation(call, SALT)).to.equal(operationId);
      const operation = await attestation.operationOf(operationId);
      expect([operation.readyAt, operation.expiresAt, operation.executed]).to.deep.equal([
        now + TIMELOCK_DELAY,
        now + TIMELOCK_DELAY + FOURTEEN_DAYS,
        false,
      ]);
    });

    it("returns the operation id", async () => {
      const { attestation, admin } = await loadFixture(deployAttestationFixture);
      const call = setterCall(attestation, "setRequestDeadlineWindow", [7_200n]);
      expect(await (attestation.connect(admin) as Contract).schedule.staticCall(call, SALT)).to.equal(
        await attestation.hashOperation(call, SALT),
      );
    });

    it("reverts with NotAdmin for anyone but the admin", async () => {
      const { attestation, guardian } = await loadFixture(deployAttestationFixture);
      const call = setterCall(attestation, "setRequestDeadlineWindow", [7_200n]);
      await expect((attestation.connect(guardian) as Contract).schedule(call, SALT))
        .to.be.revertedWithCustomError(attestation, "NotAdmin")
        .withArgs(guardian.address);
    });

    it("reverts with TimelockOperationNotAllowed for anything but a timelocked setter", async () => {
      const { attestation, admin } = await loadFixture(deployAttestationFixture);
      const asAdmin = attestation.connect(admin) as Contract;
      const withdraw = attestation.interface.encodeFunctionData("withdraw", []);
      await expect(asAdmin.schedule(withdraw, SALT))
        .to.be.revertedWithCustomError(attestation, "TimelockOperationNotAllowed")
        .withArgs(withdraw.slice(0, 10));
      const refund = attestation.interface.encodeFunctionData("refund", [ZERO_KEY]);
      await expect(asAdmin.schedule(refund, SALT))
        .to.be.revertedWithCustomError(attestation, "TimelockOperationNotAllowed")
        .withArgs(refund.slice(0, 10));
      await expect(asAdmin.schedule("0x1234", SALT))
        .to.be.revertedWithCustomError(attestation, "TimelockOperationNotAllowed")
        .withArgs("0x00000000");
    });

    it("reverts with TimelockOperationAlreadyScheduled for the same call and salt, pending or executed", async () => {
      const { attestation, admin, call, operationId } = await loadFixture(scheduled);
      const asAdmin = attestation.connect(admin) as Contract;
      await expect(asAdmin.schedule(call, SALT))
        .to.be.revertedWithCustomError(attestation, "TimelockOperationAlreadyScheduled")
        .withArgs(operationId);
      await time.increase(TIMELOCK_DELAY);
      await asAdmin.execute(call, SALT);
      await expect(asAdmin.schedule(call, SALT))
        .to.be.revertedWithCustomError(attestation, "TimelockOperationAlreadyScheduled")
        .withArgs(operationId);
    });

    it("schedules the same call again under another salt after it ran", async () => {
      const { attestation, admin, call } = await loadFixture(scheduled);
      const asAdmin = attestation.connect(admin) as Contract;
      await time.increase(TIMELOCK_DELAY);
      await asAdmin.execute(call, SALT);
      await expect(asAdmin.schedule(call, ethers.id("another salt"))).to.emit(attestation, "OperationScheduled");
    });
  });

  describe("execute", () => {
    it("runs a scheduled call once ready and emits OperationExecuted and the setter's event", async () => {
      const { attestation, admin, call, operationId, readyAt } = await loadFixture(scheduled);
      await time.setNextBlockTimestamp(readyAt);
      const tx = (attestation.connect(admin) as Contract).execute(call, SALT);
      await expect(tx).to.emit(attestation, "OperationExecuted").withArgs(operationId);
      await expect(tx)
        .to.emit(attestation, "RequestFeeChanged")
        .withArgs(FACT_TYPE_KEYS.DOGE_BALANCE, 2n * FEE);
      expect(await attestation.requestFee(FACT_TYPE_KEYS.DOGE_BALANCE)).to.equal(2n * FEE);
      expect((await attestation.operationOf(operationId)).executed).to.equal(true);
    });

    it("reverts with TimelockOperationNotReady when executed early", async () => {
      const { attestation, admin, call, operationId, readyAt } = await loadFixture(scheduled);
      await time.setNextBlockTimestamp(readyAt - 1n);
      await expect((attestation.connect(admin) as Contract).execute(call, SALT))
        .to.be.revertedWithCustomError(attestation, "TimelockOperationNotReady")
        .withArgs(operationId, readyAt, readyAt - 1n);
    });

    it("runs exactly at expiry", async () => {
      const { attestation, admin, call, expiresAt } = await loadFixture(scheduled);
      await time.setNextBlockTimestamp(expiresAt);
      await expect((attestation.connect(admin) as Contract).execute(call, SALT)).to.emit(
        attestation,
        "OperationExecuted",
      );
    });

    it("reverts with TimelockOperationExpired when executed after expiry", async () => {
      const { attestation, admin, call, operationId, expiresAt } = await loadFixture(scheduled);
      await time.setNextBlockTimestamp(expiresAt + 1n);
      await expect((attestation.connect(admin) as Contract).execute(call, SALT))
        .to.be.revertedWithCustomError(attestation, "TimelockOperationExpired")
        .withArgs(operationId, expiresAt, expiresAt + 1n);
    });

    it("reverts with TimelockOperationAlreadyExecuted when executed twice", async () => {
      const { attestation, admin, call, operationId } = await loadFixture(scheduled);
      const asAdmin = attestation.connect(admin) as Contract;
      await time.increase(TIMELOCK_DELAY);
      await asAdmin.execute(call, SALT);
      await expect(asAdmin.execute(call, SALT))
        .to.be.revertedWithCustomError(attestation, "TimelockOperationAlreadyExecuted")
        .withArgs(operationId);
    });

    it("reverts with TimelockOperationUnknown for a call never scheduled", async () => {
      const { attestation, admin, call } = await loadFixture(scheduled);
      const other = ethers.id("other salt");
      await expect((attestation.connect(admin) as Contract).execute(call, other))
        .to.be.revertedWithCustomError(attestation, "TimelockOperationUnknown")
        .withArgs(await attestation.hashOperation(call, other));
    });

    it("reverts with NotAdmin for anyone but the admin", async () => {
      const { attestation, guardian, call } = await loadFixture(scheduled);
      await time.increase(TIMELOCK_DELAY);
      await expect((attestation.connect(guardian) as Contract).execute(call, SALT))
        .to.be.revertedWithCustomError(attestation, "NotAdmin")
        .withArgs(guardian.address);
    });

    it("passes the setters' own errors through", async () => {
      const { attestation, admin } = await loadFixture(deployAttestationFixture);
      const [a, b] = ATTESTERS.map((w) => w.address);
      const zero = ethers.ZeroAddress;
      const cases: [string, unknown[], string, unknown[]][] = [
        ["setAttesters", [[zero, a, b]], "AttestationZeroAttester", [0n]],
        ["setAttesters", [[a, b, b]], "AttestationDuplicateAttester", [b]],
        [
          "setRequestFee",
          [FACT_TYPE_KEYS.DOGE_BALANCE, 1n << 96n],
          "AttestationFeeTooLarge",
          [1n << 96n, (1n << 96n) - 1n],
        ],
        ["setRequestDeadlineWindow", [299n], "AttestationInvalidDeadlineWindow", [299n, 300n, 604_800n]],
        ["setRequestDeadlineWindow", [604_801n], "AttestationInvalidDeadlineWindow", [604_801n, 300n, 604_800n]],
        ["setTreasury", [zero], "AttestationInvalidTreasury", [zero]],
        ["setGuardian", [zero], "InvalidGuardian", [zero]],
        ["setAdmin", [zero], "InvalidAdmin", [zero]],
      ];
      for (const [index, [setter, args, error, errorArgs]] of cases.entries()) {
        const call = setterCall(attestation, setter, args);
        const salt = ethers.toBeHex(index, 32);
        await (attestation.connect(admin) as Contract).schedule(call, salt);
        await time.increase(TIMELOCK_DELAY);
        await expect((attestation.connect(admin) as Contract).execute(call, salt))
          .to.be.revertedWithCustomError(attestation, error)
          .withArgs(...errorArgs);
      }
    });
  });

  describe("cancel", () => {
    it("drops a scheduled operation, which then cannot run, and emits OperationCancelled", async () => {
      const { attestation, admin, call, operationId } = await loadFixture(scheduled);
      const asAdmin = attestation.connect(admin) as Contract;
      await expect(asAdmin.cancel(operationId)).to.emit(attestation, "OperationCancelled").withArgs(operationId);
      expect((await attestation.operationOf(operationId)).readyAt).to.equal(0n);
      await time.increase(TIMELOCK_DELAY);
      await expect(asAdmin.execute(call, SALT))
        .to.be.revertedWithCustomError(attestation, "TimelockOperationUnknown")
        .withArgs(operationId);
    });

    it("reverts with TimelockOperationUnknown, TimelockOperationAlreadyExecuted and NotAdmin", async () => {
      const { attestation, admin, guardian, call, operationId } = await loadFixture(scheduled);
      const asAdmin = attestation.connect(admin) as Contract;
      await expect((attestation.connect(guardian) as Contract).cancel(operationId))
        .to.be.revertedWithCustomError(attestation, "NotAdmin")
        .withArgs(guardian.address);
      await expect(asAdmin.cancel(ZERO_KEY))
        .to.be.revertedWithCustomError(attestation, "TimelockOperationUnknown")
        .withArgs(ZERO_KEY);
      await time.increase(TIMELOCK_DELAY);
      await asAdmin.execute(call, SALT);
      await expect(asAdmin.cancel(operationId))
        .to.be.revertedWithCustomError(attestation, "TimelockOperationAlreadyExecuted")
        .withArgs(operationId);
    });
  });

  describe("timelocked setters", () => {
    it("revert with TimelockOnlySelf when called directly, even by the admin", async () => {
      const { attestation, admin } = await loadFixture(deployAttestationFixture);
      const asAdmin = attestation.connect(admin) as Contract;
      const calls: [string, unknown[]][] = [
        ["setAttesters", [SPARE_ATTESTERS.map((w) => w.address).concat(ATTESTERS[0].address)]],
        ["setRequestFee", [FACT_TYPE_KEYS.DOGE_BALANCE, 1n]],
        ["setRequestDeadlineWindow", [600n]],
        ["setTreasury", [admin.address]],
        ["setPlugsMarketplace", [ethers.ZeroAddress]],
        ["setGuardian", [admin.address]],
        ["setAdmin", [admin.address]],
      ];
      for (const [name, args] of calls) {
        await expect(asAdmin[name](...args))
          .to.be.revertedWithCustomError(attestation, "TimelockOnlySelf")
          .withArgs(admin.address);
      }
    });

    it("setAttesters starts a new set id with the new members only", async () => {
      const { attestation, admin } = await loadFixture(deployAttestationFixture);
      const next = [ATTESTERS[1], SPARE_ATTESTERS[0], SPARE_ATTESTERS[1]].map((w) => w.address);
      const tx = scheduleAndExecute(attestation, admin, setterCall(attestation, "setAttesters", [next]));
      await expect(tx).to.emit(attestation, "AttesterSetChanged").withArgs(2n, next);
      const [members, setId] = await attestation.attesters();
      expect([[...members], setId]).to.deep.equal([next, 2n]);
      expect(await attestation.isAttester(ATTESTERS[0].address)).to.equal(false);
      expect(await attestation.isAttester(ATTESTERS[1].address)).to.equal(true);
      expect(await attestation.isAttester(SPARE_ATTESTERS[1].address)).to.equal(true);
    });

    it("setRequestFee to 0 disables requests of that type", async () => {
      const { attestation, admin, requester } = await loadFixture(deployAttestationFixture);
      await expect(
        scheduleAndExecute(attestation, admin, setterCall(attestation, "setRequestFee", [FACT_TYPE_KEYS.L1_TIP, 0n])),
      )
        .to.emit(attestation, "RequestFeeChanged")
        .withArgs(FACT_TYPE_KEYS.L1_TIP, 0n);
      await expect(
        (attestation.connect(requester) as Contract).requestFact(FACT_TYPE_KEYS.L1_TIP, ZERO_KEY, ZERO_KEY, 0n),
      )
        .to.be.revertedWithCustomError(attestation, "AttestationFactTypeNotRequestable")
        .withArgs(FACT_TYPE_KEYS.L1_TIP);
    });

    it("setRequestDeadlineWindow applies to later requests", async () => {
      const { attestation, admin, requester } = await loadFixture(deployAttestationFixture);
      await expect(scheduleAndExecute(attestation, admin, setterCall(attestation, "setRequestDeadlineWindow", [600n])))
        .to.emit(attestation, "RequestDeadlineWindowChanged")
        .withArgs(600n);
      expect(await attestation.requestDeadlineWindow()).to.equal(600n);
      const now = BigInt(await time.latest()) + 1n;
      await time.setNextBlockTimestamp(now);
      await expect(
        (attestation.connect(requester) as Contract).requestFact(
          FACT_TYPE_KEYS.DOGE_BALANCE,
          addressKey(DOGE_ADDRESS),
          ZERO_KEY,
          0n,
          { value: FEE },
        ),
      )
        .to.emit(attestation, "FactRequested")
        .withArgs(
          ethers.isHexString,
          requester.address,
          FACT_TYPE_KEYS.DOGE_BALANCE,
          addressKey(DOGE_ADDRESS),
          ZERO_KEY,
          0n,
          FEE,
          now + 600n,
        );
    });

    it("setTreasury, setPlugsMarketplace, setGuardian and setAdmin hand the roles over", async () => {
      const { attestation, admin, guardian, stranger, requester } = await loadFixture(deployAttestationFixture);
      await expect(scheduleAndExecute(attestation, admin, setterCall(attestation, "setTreasury", [stranger.address])))
        .to.emit(attestation, "TreasuryChanged")
        .withArgs(stranger.address);
      await expect(
        scheduleAndExecute(attestation, admin, setterCall(attestation, "setPlugsMarketplace", [requester.address])),
      )
        .to.emit(attestation, "PlugsMarketplaceChanged")
        .withArgs(requester.address);
      await expect(scheduleAndExecute(attestation, admin, setterCall(attestation, "setGuardian", [stranger.address])))
        .to.emit(attestation, "GuardianChanged")
        .withArgs(stranger.address);
      await expect(scheduleAndExecute(attestation, admin, setterCall(attestation, "setAdmin", [requester.address])))
        .to.emit(attestation, "AdminChanged")
        .withArgs(requester.address);
      expect([
        await attestation.treasury(),
        await attestation.plugsMarketplace(),
        await attestation.guardian(),
        await attestation.admin(),
      ]).to.deep.equal([stranger.address, requester.address, stranger.address, requester.address]);
      await expect((attestation.connect(guardian) as Contract).pause())
        .to.be.revertedWithCustomError(attestation, "NotGuardian")
        .withArgs(guardian.address);
      await (attestation.connect(stranger) as Contract).pause();
      await expect((attestation.connect(admin) as Contract).unpause())
        .to.be.revertedWithCustomError(attestation, "NotAdmin")
        .withArgs(admin.address);
      await (attestation.connect(requester) as Contract).unpause();
    });
  });

  describe("pause and unpause", () => {
    it("let the guardian pause at once and the admin unpause, with Paused and Unpaused", async () => {
      const { attestation, admin, guardian } = await loadFixture(deployAttestationFixture);
      await expect((attestation.connect(guardian) as Contract).pause())
        .to.emit(attestation, "Paused")
        .withArgs(guardian.address);
      expect(await attestation.paused()).to.equal(true);
      await expect((attestation.connect(admin) as Contract).unpause())
        .to.emit(attestation, "Unpaused")
        .withArgs(admin.address);
      expect(await attestation.paused()).to.equal(false);
    });

    it("revert with NotGuardian, NotAdmin and PauseUnchanged", async () => {
      const { attestation, admin, guardian } = await loadFixture(deployAttestationFixture);
      await expect((attestation.connect(admin) as Contract).pause())
        .to.be.revertedWithCustomError(attestation, "NotGuardian")
        .withArgs(admin.address);
      await expect((attestation.connect(admin) as Contract).unpause())
        .to.be.revertedWithCustomError(attestation, "PauseUnchanged")
        .withArgs(false);
      await (attestation.connect(guardian) as Contract).pause();
      await expect((attestation.connect(guardian) as Contract).pause())
        .to.be.revertedWithCustomError(attestation, "PauseUnchanged")
        .withArgs(true);
      await expect((attestation.connect(guardian) as Contract).unpause())
        .to.be.revertedWithCustomError(attestation, "NotAdmin")
        .withArgs(guardian.address);
    });

    it("leave the timelock working while paused", async () => {
      const { attestation, admin, guardian } = await loadFixture(deployAttestationFixture);
      await (attestation.connect(guardian) as Contract).pause();
      const next = [ATTESTERS[0], ATTESTERS[1], SPARE_ATTESTERS[0]].map((w) => w.address);
      await expect(scheduleAndExecute(attestation, admin, setterCall(attestation, "setAttesters", [next]))).to.emit(
        attestation,
        "AttesterSetChanged",
      );
    });
  });

  describe("escrow safety", () => {
    it("no admin path moves escrowed fees or credited balances", async () => {
      const { attestation, registry, domain, admin, guardian, treasury, requester, creator, stranger } =
        await loadFixture(deployAttestationFixture);
      await registry.setCreator(1n, creator.address);
      const asRequester = attestation.connect(requester) as Contract;
      await asRequester.requestFact(FACT_TYPE_KEYS.DOGE_BALANCE, addressKey(DOGE_ADDRESS), ZERO_KEY, 1n, {
        value: FEE,
      });
      const fulfilled = await asRequester.requestFact.staticCall(
        FACT_TYPE_KEYS.DOGE_BALANCE,
        addressKey(DOGE_ADDRESS),
        ZERO_KEY,
        1n,
        { value: FEE },
      );
      await asRequester.requestFact(FACT_TYPE_KEYS.DOGE_BALANCE, addressKey(DOGE_ADDRESS), ZERO_KEY, 1n, {
        value: FEE,
      });
      const fact = await balanceFact(1n, 10);
      await attestation.fulfill(fulfilled, fact, await signByTwo(domain, fact));
      const contractAddress = await attestation.getAddress();
      const before = {
        contract: await ethers.provider.getBalance(contractAddress),
        treasury: await attestation.withdrawableOf(treasury.address),
        creator: await attestation.withdrawableOf(creator.address),
      };
      await (attestation.connect(guardian) as Contract).pause();
      const setters: [string, unknown[]][] = [
        ["setAttesters", [SPARE_ATTESTERS.map((w) => w.address).concat(ATTESTERS[0].address)]],
        ["setRequestFee", [FACT_TYPE_KEYS.DOGE_BALANCE, 1n]],
        ["setRequestDeadlineWindow", [604_800n]],
        ["setTreasury", [stranger.address]],
        ["setPlugsMarketplace", [ethers.ZeroAddress]],
        ["setGuardian", [stranger.address]],
        ["setAdmin", [stranger.address]],
      ];
      for (const [name, args] of setters)
        await scheduleAndExecute(attestation, admin, setterCall(attestation, name, args), ethers.id(name));
      expect(await ethers.provider.getBalance(contractAddress)).to.equal(before.contract);
      expect(await attestation.withdrawableOf(treasury.address)).to.equal(before.treasury);
      expect(await attestation.withdrawableOf(creator.address)).to.equal(before.creator);
      expect(await attestation.withdrawableOf(stranger.address)).to.equal(0n);
      await time.increase(3_601n);
      const open = (await attestation.queryFilter(attestation.filters.FactRequested()))[0];
      await expect(
        asRequester.refund((open as unknown as { args: { requestId: string } }).args.requestId),
      ).to.changeEtherBalance(requester, FEE);
      await expect((attestation.connect(treasury) as Contract).withdraw()).to.changeEtherBalance(
        treasury,
        before.treasury,
      );
      await expect((attestation.connect(creator) as Contract).withdraw()).to.changeEtherBalance(
        creator,
        before.creator,
      );
      expect(await ethers.provider.getBalance(contractAddress)).to.equal(0n);
    });
  });
});
