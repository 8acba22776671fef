/** A fake L2 for the relayer's unit tests: blocks with hashes and request events that a test can replace (reorgs), and jobs as a contract would store them. */
import { keccak256, toUtf8Bytes } from "ethers";
import type { Fact, Receipt } from "../../src/facts";
import { JOB_STATUS, ContractRefusedError } from "../../src/relayer";
import type {
  AnnouncedJob,
  JobKind,
  JobOnChain,
  RelayerL2,
  SentTransaction,
  TransactionOutcome,
} from "../../src/relayer";

export const INSCRIBER = "0x00000000000000000000000000000000000000A1";
export const ANCHOR = "0x00000000000000000000000000000000000000A2";

let counter = 0;
/** A fresh job announcement in block `block`. */
export function announced(kind: JobKind, block: number, overrides: Partial<AnnouncedJob> = {}): AnnouncedJob {
  counter += 1;
  const id = keccak256(toUtf8Bytes(`job ${counter}`));
  return {
    kind,
    jobId: id,
    contract: kind === "inscription" ? INSCRIBER : ANCHOR,
    requester: "0x0000000000000000000000000000000000000B0B",
    contentType: kind === "inscription" ? "text/plain;charset=utf-8" : null,
    action: kind === "inscription" ? "" : null,
    dogeRecipient: kind === "inscription" ? "nRecipientPlaceholder" : null,
    payload: toUtf8Bytes(`payload ${counter}`),
    resultHash: keccak256(toUtf8Bytes(`result ${counter}`)),
    feeWei: 10n ** 17n,
    deadline: 1_000_000,
    l2Block: block,
    l2Tx: keccak256(toUtf8Bytes(`tx ${counter}`)),
    ...overrides,
  };
}

interface Block {
  hash: string;
  events: AnnouncedJob[];
}

export class FakeL2 implements RelayerL2 {
  blocks: Block[] = [];
  /** getLogs ranges asked for, in order. */
  readonly ranges: [number, number][] = [];
  readonly jobs = new Map<string, JobOnChain>();
  now = 500_000;
  tip = 0n;
  tipAttestedAt = 0n;
  readonly settles: { jobId: string; receipt: Receipt; signatures: string[] }[] = [];
  readonly facts: Fact[] = [];
  /** Makes checkSettle refuse with this revert name. */
  refuseSettle: string | null = null;
  /** Called between the two hash reads of a range (tests move the chain there). */
  duringRead: (() => void) | null = null;
  private fork = 0;

  constructor(length = 1) {
    this.extend(length);
  }

  /** Appends `n` blocks, the events given for them by offset. */
  extend(n: number, events: Record<number, AnnouncedJob[]> = {}): void {
    for (let i = 0; i < n; i++) {
      const height = this.blocks.length;
      this.blocks.push({
        hash: keccak256(toUtf8Bytes(`block ${height} fork ${this.fork}`)),
        events: (events[i] ?? []).map((e) => ({ ...e, l2Block: height })),
      });
    }
  }

  /** Replaces every block from `height` (an L2 reorg), then appends `n` new ones. */
  reorg(height: number, n: number, events: Record<number, AnnouncedJob[]> = {}): void {
    this.fork += 1;
    this.blocks = this.blocks.slice(0, height);
    this.extend(n, events);
  }

  /** Stores a job as the contract would after its request (recorded with an attested tip of 0: any height settles it). */
  open(job: AnnouncedJob): void {
    this.jobs.set(job.jobId, {
      status: JOB_STATUS.Open,
      requester: job.requester,
      feeWei: job.feeWei,
      deadline: job.deadline,
      l1Height: 0n,
      l1TipAtRequest: 0n,
      l1Txid: `0x${"00".repeat(32)}`,
    });
  }

  async head() {
    return this.blocks.length - 1;
  }
  async blockHash(n: number) {
    return this.blocks[n]?.hash ?? null;
  }
  async jobEvents(from: number, to: number) {
    this.ranges.push([from, to]);
    const out = this.blocks.slice(from, to + 1).flatMap((b) => b.events);
    const hook = this.duringRead;
    this.duringRead = null;
    hook?.();
    return out;
  }
  async timestamp() {
    return this.now;
  }
  async jobOf(_kind: JobKind, jobId: string) {
    return (
      this.jobs.get(jobId) ?? {
        status: JOB_STATUS.None,
        requester: "0x0000000000000000000000000000000000000000",
        feeWei: 0n,
        deadline: 0,
        l1Height: 0n,
        l1TipAtRequest: 0n,
        l1Txid: `0x${"00".repeat(32)}`,
      }
    );
  }
  async l1Tip() {
    return this.tip;
  }
  async l1TipAttestedAt() {
    return this.tipAttestedAt;
  }
  private mined(hash: string): SentTransaction {
    return { hash, wait: async () => true };
  }
  async submitFact(fact: Fact) {
    this.facts.push(fact);
    if (fact.l1Height > this.tip) this.tip = fact.l1Height;
    this.tipAttestedAt = fact.attestedAt;
    return this.mined(keccak256(toUtf8Bytes(`fact ${this.facts.length}`)));
  }
  async checkSettle() {
    if (this.refuseSettle)
      throw new ContractRefusedError(`reverted with custom error '${this.refuseSettle}'`, this.refuseSettle);
  }
  async settle(_kind: JobKind, jobId: string, receipt: Receipt, signatures: string[]) {
    this.settles.push({ jobId, receipt, signatures });
    const job = this.jobs.get(jobId)!;
    this.jobs.set(jobId, { ...job, status: JOB_STATUS.Settled, l1Height: receipt.l1Height, l1Txid: receipt.l1Txid });
    return this.mined(keccak256(toUtf8Bytes(`settle ${this.settles.length}`)));
  }
  async outcome(hash: string): Promise<TransactionOutcome> {
    return hash.startsWith("0x") ? "success" : "unknown";
  }
}
