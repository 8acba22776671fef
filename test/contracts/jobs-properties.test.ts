import { expect } from "chai";
import fc from "fast-check";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { ethers } from "hardhat";
import type { Contract } from "ethers";
import type { HardhatEthersSigner } from "@nomicfoundation/hardhat-ethers/signers";
import { TIMELOCK_DELAY } from "./attestation-fixture";
import {
  STATUS,
  deployJobsFixture,
  requestAnchor,
  requestInscription,
  scheduleAndExecute,
  settleJob,
} from "./jobs-fixture";
import type { JobsFixture, OpenedJob } from "./jobs-fixture";

type Action =
  | { kind: "request"; service: number; who: number; payloadByte: number }
  | { kind: "settle"; service: number; pick: number }
  | { kind: "refund"; service: number; pick: number; byRequester: boolean; who: number }
  | { kind: "withdraw"; service: number; who: number }
  | { kind: "wait"; seconds: number }
  | { kind: "setFee"; service: number; feeWei: bigint };

const service = fc.integer({ min: 0, max: 1 });
const who = fc.integer({ min: 0, max: 3 });
const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("request" as const),
      service,
      who: fc.integer({ min: 0, max: 2 }),
      payloadByte: fc.integer({ min: 0, max: 255 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("settle" as const), service, pick: fc.nat() }) },
  // Mostly the requester (the only one who may), sometimes anyone.
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("refund" as const),
      service,
      pick: fc.nat(),
      byRequester: fc.boolean(),
      who,
    }),
  },
  // Mostly the operator (the only one credited), sometimes anyone.
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("withdraw" as const), service, who: fc.oneof(fc.constant(3), who) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("wait" as const), seconds: fc.integer({ min: 1, max: 3 * 86_400 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("setFee" as const),
      service,
      feeWei: fc.bigInt({ min: 1n, max: 5n * 10n ** 18n }),
    }),
  },
);

interface ModelJob extends OpenedJob {
  requester: string;
  status: bigint;
}

interface ServiceModel {
  contract: Contract;
  jobs: ModelJob[];
  withdrawable: Map<string, bigint>;
}

/** The custom error a call reverted with, or null when it went through. */
async function revertOf(
  contract: Contract,
  call: () => Promise<unknown>,
): Promise<{ name: string; args: unknown[] } | null> {
  try {
    await call();
    return null;
  } catch (error) {
    const data = (error as { data?: string }).data;
    const parsed = data ? contract.interface.parseError(data) : null;
    if (!parsed) throw error;
    return { name: parsed.name, args: [...parsed.args] };
  }
}

async function checkInvariants(models: ServiceModel[], accounts: HardhatEthersSigner[]) {
  for (const model of models) {
    const openEscrow = model.jobs
      .filter((job) => job.status === STATUS.Open)
      .reduce((sum, job) => sum + job.feeWei, 0n);
    let unpaid = 0n;
    for (const account of accounts) {
      const onChain = (await model.contract.withdrawableOf(account.address)) as bigint;
      expect(onChain).to.equal(model.withdrawable.get(account.address) ?? 0n);
      unpaid += onChain;
    }
    expect(await ethers.provider.getBalance(await model.contract.getAddress())).to.equal(openEscrow + unpaid);
  }
}

describe("contracts/DogeInscriber and DogeAnchor properties", () => {
  /** How often each transition went through over all runs, so a test that exercises nothing shows. */
  const done = { settled: 0, refunded: 0, withdrawn: 0, refused: 0 };

  after(() => {
    console.log(
      `      over all runs: ${done.settled} settled, ${done.refunded} refunded, ${done.withdrawn} withdrawals, ${done.refused} refused calls`,
    );
  });

  it("keep each contract's balance equal to the open escrow plus the withdrawable balances, and end every job in at most one terminal state", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 30, size: "max" }), async (actions) => {
        const fixture: JobsFixture = await loadFixture(deployJobsFixture);
        const { domain, admin, operator } = fixture;
        const requesters = [fixture.requester, fixture.creator, fixture.stranger];
        const accounts = [...requesters, operator];
        const models: ServiceModel[] = [fixture.inscriber, fixture.anchor].map((contract) => ({
          contract,
          jobs: [],
          withdrawable: new Map(),
        }));
        const credit = (model: ServiceModel, account: string, amount: bigint) =>
          model.withdrawable.set(account, (model.withdrawable.get(account) ?? 0n) + amount);

        for (const step of actions) {
          if (step.kind === "wait") {
            await time.increase(step.seconds);
            continue;
          }
          const model = models[step.service];
          const contract = model.contract;
          switch (step.kind) {
            case "request": {
              const requester = requesters[step.who];
              const payload = Uint8Array.of(step.payloadByte, 0x42);
              const job =
                step.service === 0
                  ? await requestInscription(contract, requester, {
                      contentType: "application/octet-stream",
                      action: "ZKP",
                      payload,
                      dogeRecipient: "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L",
                    })
                  : await requestAnchor(contract, requester, payload);
              model.jobs.push({ ...job, requester: requester.address, status: STATUS.Open });
              break;
            }
            case "settle": {
              if (model.jobs.length === 0) break;
              const job = model.jobs[step.pick % model.jobs.length];
              const outcome = await revertOf(contract, async () => (await settleJob(contract, domain, job)).wait());
              if (job.status === STATUS.Open) {
                expect(outcome).to.equal(null);
                job.status = STATUS.Settled;
                credit(model, operator.address, job.feeWei);
                done.settled += 1;
              } else {
                done.refused += 1;
                expect(outcome).to.deep.equal({ name: "JobNotOpen", args: [job.jobId, job.status] });
              }
              break;
            }
            case "refund": {
              if (model.jobs.length === 0) break;
              const job = model.jobs[step.pick % model.jobs.length];
              const caller = step.byRequester
                ? accounts.find((account) => account.address === job.requester)!
                : accounts[step.who];
              const now = BigInt(await time.latest()) + 1n;
              await time.setNextBlockTimestamp(now);
              const outcome = await revertOf(contract, async () =>
                (await (contract.connect(caller) as Contract).refund(job.jobId)).wait(),
              );
              if (outcome !== null) done.refused += 1;
              if (job.status !== STATUS.Open) {
                expect(outcome).to.deep.equal({ name: "JobNotOpen", args: [job.jobId, job.status] });
              } else if (caller.address !== job.requester) {
                expect(outcome).to.deep.equal({
                  name: "JobNotRequester",
                  args: [job.jobId, caller.address, job.requester],
                });
              } else if (now <= job.deadline) {
                expect(outcome).to.deep.equal({ name: "JobNotExpired", args: [job.jobId, job.deadline, now] });
              } else {
                expect(outcome).to.equal(null);
                job.status = STATUS.Refunded;
                done.refunded += 1;
              }
              break;
            }
            case "withdraw": {
              const account = accounts[step.who];
              const expected = model.withdrawable.get(account.address) ?? 0n;
              const before = await ethers.provider.getBalance(await contract.getAddress());
              const outcome = await revertOf(contract, async () =>
                (await (contract.connect(account) as Contract).withdraw()).wait(),
              );
              if (expected === 0n) {
                done.refused += 1;
                expect(outcome).to.deep.equal({ name: "JobNothingToWithdraw", args: [account.address] });
              } else {
                expect(outcome).to.equal(null);
                expect(await ethers.provider.getBalance(await contract.getAddress())).to.equal(before - expected);
                model.withdrawable.set(account.address, 0n);
                done.withdrawn += 1;
              }
              break;
            }
            case "setFee": {
              await scheduleAndExecute(
                contract,
                admin,
                contract.interface.encodeFunctionData("setFee", [step.feeWei]),
                ethers.hexlify(ethers.randomBytes(32)),
              );
              expect(await contract.fee()).to.equal(step.feeWei);
              break;
            }
          }
          await checkInvariants(models, accounts);
        }

        for (const model of models) {
          for (const job of model.jobs) {
            const stored = await model.contract.jobOf(job.jobId);
            expect(stored.status).to.equal(job.status);
            expect(stored.feeWei).to.equal(job.feeWei);
            expect(stored.l1Txid === ethers.ZeroHash).to.equal(job.status !== STATUS.Settled);
          }
        }
      }),
      { numRuns: 30 },
    );
    // About 40 settlements, 8 refunds and 10 withdrawals is typical; this only catches a run that exercised nothing.
    expect(done.settled + done.refunded + done.withdrawn).to.be.greaterThan(10);
  });

  it("keeps the timelock delay between scheduling and running any setter", async () => {
    const fixture = await loadFixture(deployJobsFixture);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: Number(TIMELOCK_DELAY) - 2 }),
        fc.bigInt({ min: 1n, max: 10n ** 18n }),
        async (waited, feeWei) => {
          const contract = fixture.anchor;
          const asAdmin = contract.connect(fixture.admin) as Contract;
          const call = contract.interface.encodeFunctionData("setFee", [feeWei]);
          const salt = ethers.hexlify(ethers.randomBytes(32));
          await asAdmin.schedule(call, salt);
          const { readyAt } = await contract.operationOf(await contract.hashOperation(call, salt));
          await time.setNextBlockTimestamp(readyAt - TIMELOCK_DELAY + 1n + BigInt(waited));
          const outcome = await revertOf(contract, async () => (await asAdmin.execute(call, salt)).wait());
          expect(outcome?.name).to.equal("TimelockOperationNotReady");
        },
      ),
      { numRuns: 20 },
    );
  });
});
