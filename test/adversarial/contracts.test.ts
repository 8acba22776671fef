/**
 * The contracts' money paths, tried as an attacker would (issue 17, "Custody you can trust, part 2"):
 * a requester that names its own plug to take back part of its fee, one base-chain transaction
 * presented for several jobs, and a job "settled" by a transaction that was in a block before the
 * job was requested. Each test is the attack, with what the contracts must answer.
 */
import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { ethers } from "hardhat";
import type { Contract } from "ethers";
import { DEFAULT_REQUEST_FEE_WEI, FACT_TYPE_KEYS, ZERO_KEY, addressKey, attestationDomain } from "../../src/facts";
import type { Receipt } from "../../src/facts";
import {
  ATTESTERS,
  DOGE_ADDRESS,
  TIMELOCK_DELAY,
  balanceFact,
  deployAttestationFixture,
  signByTwo as signFactByTwo,
} from "../contracts/attestation-fixture";
import {
  STATUS,
  TIP,
  attestTip,
  deployJobsFixture,
  requestAnchor,
  requestInscription,
  signByTwo,
} from "../contracts/jobs-fixture";
import type { JobsFixture, OpenedJob } from "../contracts/jobs-fixture";

/** DogeAttestation wired to the real, permissionless PlugsMarketplace (not the test registry). */
async function deployWithMarketplace() {
  const fixture = await deployAttestationFixture();
  const { admin, guardian, treasury } = fixture;
  const marketplace = await ethers.deployContract("PlugsMarketplace");
  const attestation = await ethers.deployContract("DogeAttestation", [
    admin.address,
    guardian.address,
    treasury.address,
    ATTESTERS.map((w) => w.address),
    TIMELOCK_DELAY,
    await marketplace.getAddress(),
  ]);
  const domain = attestationDomain(fixture.chainId, await attestation.getAddress());
  return { ...fixture, attestation, marketplace, domain };
}

/** Lists a plug from `creator` on the marketplace and returns its id. */
async function listPlugFrom(marketplace: Contract, creator: Contract["runner"]): Promise<bigint> {
  const asCreator = marketplace.connect(creator) as Contract;
  const plugId = (await asCreator.listPlug.staticCall(0n, 0n, "ipfs://plug")) as bigint;
  await (await asCreator.listPlug(0n, 0n, "ipfs://plug")).wait();
  return plugId;
}

/** `requester` asks for DOGE_ADDRESS's balance through `plugId`; returns the request id. */
async function requestBalanceThrough(
  attestation: Contract,
  requester: Contract["runner"],
  plugId: bigint,
): Promise<string> {
  const asRequester = attestation.connect(requester) as Contract;
  const args = [FACT_TYPE_KEYS.DOGE_BALANCE, addressKey(DOGE_ADDRESS), ZERO_KEY, plugId] as const;
  const requestId = (await asRequester.requestFact.staticCall(...args, { value: DEFAULT_REQUEST_FEE_WEI })) as string;
  await (await asRequester.requestFact(...args, { value: DEFAULT_REQUEST_FEE_WEI })).wait();
  return requestId;
}

/** A receipt for `job` naming base-chain transaction `l1Txid` at `l1Height`, as two attesters would sign it. */
async function receiptNaming(service: Contract, job: OpenedJob, l1Txid: string, l1Height: bigint): Promise<Receipt> {
  const latest = (await ethers.provider.getBlock("latest"))!.timestamp;
  return {
    jobId: job.jobId,
    jobContract: await service.getAddress(),
    l1Txid,
    resultHash: job.resultHash,
    l1Height,
    attestedAt: BigInt(latest),
    attesterSetId: 1n,
  };
}

type Requester = (fixture: JobsFixture) => Promise<OpenedJob>;

const SERVICES: { name: string; service: (fixture: JobsFixture) => Contract; request: Requester; work: string }[] = [
  {
    name: "anchor",
    service: (f) => f.anchor,
    request: (f) => requestAnchor(f.anchor, f.requester, "0xd09e"),
    work: "an OP_RETURN",
  },
  {
    name: "inscription",
    service: (f) => f.inscriber,
    request: (f) => requestInscription(f.inscriber, f.requester),
    work: "an inscription reveal",
  },
];

describe("adversarial: contracts", () => {
  describe("DogeAttestation.fulfill and the plug creator's share", () => {
    it("gives the requester no creator share when it names its own plug", async () => {
      const { attestation, marketplace, domain, requester, stranger, treasury } =
        await loadFixture(deployWithMarketplace);
      // listPlug is permissionless: the requester lists a plug of its own and requests through it.
      const ownPlug = await listPlugFrom(marketplace, requester);
      expect(await marketplace.creatorOf(ownPlug)).to.equal(requester.address);
      const requestId = await requestBalanceThrough(attestation, requester, ownPlug);
      const answer = await balanceFact(42n, 1_000);
      await expect(attestation.fulfill(requestId, answer, await signFactByTwo(domain, answer)))
        .to.emit(attestation, "RequestFulfilled")
        .withArgs(requestId, ethers.ZeroAddress, treasury.address, 0n, DEFAULT_REQUEST_FEE_WEI);
      expect(await attestation.withdrawableOf(requester.address)).to.equal(0n);
      expect(await attestation.withdrawableOf(treasury.address)).to.equal(DEFAULT_REQUEST_FEE_WEI);

      // Someone else's request through the same plug still pays its creator the 20%.
      const othersRequest = await requestBalanceThrough(attestation, stranger, ownPlug);
      const later = await balanceFact(43n, 1_001, 5n);
      const share = (DEFAULT_REQUEST_FEE_WEI * 20n) / 100n;
      await expect(attestation.fulfill(othersRequest, later, await signFactByTwo(domain, later)))
        .to.emit(attestation, "RequestFulfilled")
        .withArgs(othersRequest, requester.address, treasury.address, share, DEFAULT_REQUEST_FEE_WEI - share);
    });
  });

  for (const { name, service, request, work } of SERVICES) {
    describe(`${name} jobs`, () => {
      it(`settles at most one ${name} job with one base-chain transaction`, async () => {
        const fixture = await loadFixture(deployJobsFixture);
        const { attestation, domain } = fixture;
        const contract = service(fixture);
        // Two jobs with the same result: one transaction's output matches both, and the attesters would sign a receipt for each.
        const first = await request(fixture);
        const second = await request(fixture);
        expect(second.resultHash).to.equal(first.resultHash);
        await attestTip(attestation, domain, TIP + 10n);
        const l1Txid = `0x${"c0".repeat(32)}`;
        const forFirst = await receiptNaming(contract, first, l1Txid, TIP + 1n);
        await expect(contract.settle(first.jobId, forFirst, await signByTwo(domain, forFirst))).to.emit(
          contract,
          "JobSettled",
        );
        const forSecond = await receiptNaming(contract, second, l1Txid, TIP + 1n);
        await expect(contract.settle(second.jobId, forSecond, await signByTwo(domain, forSecond)))
          .to.be.revertedWithCustomError(contract, "JobL1TxidAlreadySettled")
          .withArgs(second.jobId, l1Txid, first.jobId);
        expect((await contract.jobOf(second.jobId)).status).to.equal(STATUS.Open);
        expect(await contract.withdrawableOf(fixture.operator.address)).to.equal(first.feeWei);
      });

      it(`refuses ${work} mined at or below the L1 tip recorded when the ${name} job was requested`, async () => {
        const fixture = await loadFixture(deployJobsFixture);
        const { attestation, domain } = fixture;
        const contract = service(fixture);
        const job = await request(fixture);
        await attestTip(attestation, domain, TIP + 10n);
        // A transaction that was already in a block when the job was asked for: 6 deep, right result, signed.
        for (const l1Height of [TIP - 50n, TIP]) {
          const old = await receiptNaming(contract, job, ethers.id(`old ${name} transaction at ${l1Height}`), l1Height);
          await expect(contract.settle(job.jobId, old, await signByTwo(domain, old)))
            .to.be.revertedWithCustomError(contract, "JobL1TxNotAfterRequest")
            .withArgs(job.jobId, l1Height, TIP);
        }
        // The first block after the recorded tip is accepted.
        const fresh = await receiptNaming(contract, job, ethers.id(`fresh ${name} transaction`), TIP + 1n);
        await expect(contract.settle(job.jobId, fresh, await signByTwo(domain, fresh))).to.emit(contract, "JobSettled");
        expect((await contract.jobOf(job.jobId)).l1TipAtRequest).to.equal(TIP);
      });
    });
  }
});
