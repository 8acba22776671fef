/** Shared deployment and signing helpers of the DogeInscriber / DogeAnchor tests (test/contracts/{inscriber,anchor,jobs-*}.test.ts). */
import { time } from "@nomicfoundation/hardhat-network-helpers";
import { AbiCoder, keccak256, sha256 } from "ethers";
import type { BytesLike, Contract, ContractTransactionResponse, Wallet } from "ethers";
import { ethers } from "hardhat";
import { l1TipFact, signFact, signReceipt } from "../../src/facts";
import type { AttestationDomain, Receipt } from "../../src/facts";
import { ATTESTERS, TIMELOCK_DELAY, deployAttestationFixture } from "./attestation-fixture";
import { SETTLE_CONFIRMATIONS } from "../../src/facts/rules";

/** The attested base-chain tip the fixture starts at: the `l1TipAtRequest` of the jobs it requests. */
export const TIP = 1_000n;
/** The off-chain rule's settle depth (src/facts/rules.ts): the tests hold the contracts' CONFIRMATIONS() to it. */
export const CONFIRMATIONS = SETTLE_CONFIRMATIONS;
/** The lowest height a job requested at TIP is settled from: the first block above the tip at request time. */
export const L1_HEIGHT = TIP + 1n;
/** The attested tip at which a transaction at L1_HEIGHT is 6 deep (l1Tip >= l1Height + 5). */
export const SETTLE_TIP = L1_HEIGHT + CONFIRMATIONS - 1n;
export const ONE_DAY = 86_400n;
export const INSCRIBER_FEE = 10n ** 18n;
export const ANCHOR_FEE = 10n ** 17n;
export const MAX_FEE = 1_000n * 10n ** 18n;
export const RECIPIENT = "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L";

/** JobStatus as the contracts number it. */
export const STATUS = { None: 0n, Open: 1n, Settled: 2n, Refunded: 3n } as const;

const abi = AbiCoder.defaultAbiCoder();

/** The TypeScript twin of `jobIdOf`: keccak256(abi.encode(service, chainId, sequence, resultHash)). */
export function jobIdOf(service: string, chainId: bigint, sequence: bigint, resultHash: string): string {
  return keccak256(abi.encode(["address", "uint256", "uint64", "bytes32"], [service, chainId, sequence, resultHash]));
}

/** The base-chain txid the fixture's receipts name for `jobId`: one transaction per job, as settle requires. */
export function l1TxidFor(jobId: string): string {
  return keccak256(AbiCoder.defaultAbiCoder().encode(["string", "bytes32"], ["base-chain transaction of job", jobId]));
}

/** Attests the base-chain tip at `height` (an L1_TIP fact signed by the first two attesters). */
export async function attestTip(
  attestation: Contract,
  domain: AttestationDomain,
  height: bigint,
  attesterSetId = 1n,
  signers: Wallet[] = ATTESTERS.slice(0, 2),
) {
  const fact = l1TipFact(height, "00".repeat(31) + "01", {
    attestedAt: BigInt(await time.latest()) + 1n,
    attesterSetId,
  });
  await attestation.submitFact(fact, await signFact(signers, domain, fact));
}

export async function deployJobsFixture() {
  const fixture = await deployAttestationFixture();
  const { attestation, admin, guardian, treasury, domain } = fixture;
  const args = [
    await attestation.getAddress(),
    admin.address,
    guardian.address,
    treasury.address,
    TIMELOCK_DELAY,
  ] as const;
  const inscriber = await ethers.deployContract("DogeInscriber", [...args]);
  const anchor = await ethers.deployContract("DogeAnchor", [...args]);
  await attestTip(attestation, domain, TIP);
  return { ...fixture, inscriber, anchor, operator: treasury };
}

export type JobsFixture = Awaited<ReturnType<typeof deployJobsFixture>>;

/** What a request returns: the job's id, result hash, sequence and deadline, from its event. */
export interface OpenedJob {
  jobId: string;
  resultHash: string;
  feeWei: bigint;
  deadline: bigint;
  tx: ContractTransactionResponse;
}

async function openedFrom(service: Contract, tx: ContractTransactionResponse, eventName: string): Promise<OpenedJob> {
  const mined = await tx.wait();
  for (const log of mined!.logs) {
    const parsed = service.interface.parseLog(log);
    if (parsed?.name === eventName) {
      return {
        jobId: parsed.args.jobId,
        resultHash: parsed.args.resultHash,
        feeWei: parsed.args.feeWei,
        deadline: parsed.args.deadline,
        tx,
      };
    }
  }
  throw new Error(`no ${eventName} event`);
}

/** Requests an anchor of `payload` from `requester`, paying the current fee. */
export async function requestAnchor(
  anchor: Contract,
  requester: Contract["runner"],
  payload: BytesLike = "0x01020304",
): Promise<OpenedJob> {
  const feeWei = (await anchor.fee()) as bigint;
  const tx = (await (anchor.connect(requester) as Contract).requestAnchor(payload, {
    value: feeWei,
  })) as ContractTransactionResponse;
  return openedFrom(anchor, tx, "AnchorRequested");
}

export interface InscriptionInput {
  contentType: string;
  action: string;
  payload: BytesLike;
  dogeRecipient: string;
}

export const MINT: InscriptionInput = {
  contentType: "application/json",
  action: "LAUNCHPAD_MINT",
  payload: ethers.toUtf8Bytes('{"p":"service","op":"LAUNCHPAD_MINT","slug":"doges","id":"7","max":"100"}'),
  dogeRecipient: RECIPIENT,
};

/** Requests an inscription from `requester`, paying the current fee. */
export async function requestInscription(
  inscriber: Contract,
  requester: Contract["runner"],
  input: InscriptionInput = MINT,
): Promise<OpenedJob> {
  const feeWei = (await inscriber.fee()) as bigint;
  const tx = (await (inscriber.connect(requester) as Contract).requestInscription(
    input.contentType,
    input.action,
    input.payload,
    input.dogeRecipient,
    {
      value: feeWei,
    },
  )) as ContractTransactionResponse;
  return openedFrom(inscriber, tx, "InscriptionRequested");
}

/**
 * A receipt for `job` of `service` naming the job's own transaction (`l1TxidFor`) at `l1Height`,
 * by default the first block above the tip recorded at request time; signed now for set `attesterSetId`.
 */
export async function receiptFor(
  service: Contract,
  job: Pick<OpenedJob, "jobId" | "resultHash">,
  l1Height?: bigint,
  attesterSetId = 1n,
): Promise<Receipt> {
  const height = l1Height ?? ((await service.jobOf(job.jobId)).l1TipAtRequest as bigint) + 1n;
  return {
    jobId: job.jobId,
    jobContract: await service.getAddress(),
    l1Txid: l1TxidFor(job.jobId),
    resultHash: job.resultHash,
    l1Height: height,
    attestedAt: BigInt(await time.latest()),
    attesterSetId,
  };
}

/** Attests a tip at which a transaction at `l1Height` is 6 deep for `service`'s settle, unless the attested tip already is one. */
export async function attestTipFor(service: Contract, domain: AttestationDomain, l1Height: bigint) {
  const attestation = await ethers.getContractAt("DogeAttestation", (await service.attestation()) as string);
  const needed = l1Height + CONFIRMATIONS - 1n;
  if ((await attestation.l1Tip()) < needed) await attestTip(attestation as unknown as Contract, domain, needed);
}

/** The first two attesters' signatures, sorted. */
export function signByTwo(domain: AttestationDomain, receipt: Receipt): Promise<string[]> {
  return signReceipt(ATTESTERS.slice(0, 2), domain, receipt);
}

/** Settles `job` with a valid receipt from `relayer` (anyone), first attesting a tip that makes it 6 deep. */
export async function settleJob(
  service: Contract,
  domain: AttestationDomain,
  job: Pick<OpenedJob, "jobId" | "resultHash">,
  relayer?: Contract["runner"],
) {
  const receipt = await receiptFor(service, job);
  await attestTipFor(service, domain, receipt.l1Height);
  const signatures = await signByTwo(domain, receipt);
  const caller = relayer ? (service.connect(relayer) as Contract) : service;
  return (await caller.settle(job.jobId, receipt, signatures)) as ContractTransactionResponse;
}

/** SHA-256 of an anchor payload, as the receipt's result hash. */
export function anchorResultHash(payload: BytesLike): string {
  return sha256(payload);
}

/** Schedules `call` on `service`, waits out the delay, executes it. */
export async function scheduleAndExecute(
  service: Contract,
  admin: Contract["runner"],
  call: string,
  salt = ethers.ZeroHash,
) {
  const asAdmin = service.connect(admin) as Contract;
  await asAdmin.schedule(call, salt);
  await time.increase(TIMELOCK_DELAY);
  return (await asAdmin.execute(call, salt)) as ContractTransactionResponse;
}
