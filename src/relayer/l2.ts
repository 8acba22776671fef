/**
 * What the relayer reads from and sends to the L2, through ethers and the published ABIs
 * (shared/abi): the request events of DogeInscriber and DogeAnchor, a job as stored, the attested
 * L1 tip, and the two transactions it sends (submitFact of an L1_TIP fact, settle). Tests may
 * substitute their own RelayerL2 (a fake log source for L2 reorgs).
 */
import { AbiCoder, Interface, getAddress, isError } from "ethers";
import type { Log, Provider, Signer, TransactionResponse } from "ethers";
import { ABI, REQUEST_TOPIC, anchorAt, attestationAt, inscriberAt, jobServiceAt, readJob } from "../l2/contracts";
import type { JobKind, JobService, StoredJob } from "../l2/contracts";
import { DogeosError, classifyExternalFailure, failureFromExternal } from "../errors";
import { FACT_TYPE_KEYS, ZERO_KEY } from "../facts";
import type { Fact, Receipt } from "../facts";
import type { AnnouncedJob } from "./store";

export { JOB_STATUS } from "../l2/contracts";

/** Where the relayer finds job requests: blocks, their hashes (to notice reorgs) and the request events. */
export interface JobLogSource {
  /** The L2's latest block number. */
  head(): Promise<number>;
  /** The hash of block `blockNumber` on the current chain, or null above the head. */
  blockHash(blockNumber: number): Promise<string | null>;
  /** The request events of both services in [fromBlock, toBlock], in chain order. */
  jobEvents(fromBlock: number, toBlock: number): Promise<AnnouncedJob[]>;
}

/** A job as the contract stores it (`jobOf`), without the sequence the relayer does not use. */
export type JobOnChain = Omit<StoredJob, "sequence">;

/** A transaction the relayer sent. `wait` resolves true when it succeeded, false when it reverted; it throws on a timeout. */
export interface SentTransaction {
  hash: string;
  wait(): Promise<boolean>;
}

export type TransactionOutcome = "success" | "reverted" | "pending" | "unknown";

/** The contract calls of the relayer. */
export interface JobChain {
  /** The timestamp of the latest block: the clock the contracts compare deadlines with. */
  timestamp(): Promise<number>;
  jobOf(kind: JobKind, jobId: string): Promise<JobOnChain>;
  /** DogeAttestation's attested base-chain tip. */
  l1Tip(): Promise<bigint>;
  /** attestedAt of the stored L1_TIP fact (0 when none): a new one must be attested later. */
  l1TipAttestedAt(): Promise<bigint>;
  submitFact(fact: Fact, signatures: string[]): Promise<SentTransaction>;
  /** Simulates settle; throws ContractRefusedError with the revert when the contract would refuse it. */
  checkSettle(kind: JobKind, jobId: string, receipt: Receipt, signatures: string[]): Promise<void>;
  settle(kind: JobKind, jobId: string, receipt: Receipt, signatures: string[]): Promise<SentTransaction>;
  /** What became of a transaction sent earlier (by hash). */
  outcome(hash: string): Promise<TransactionOutcome>;
}

export type RelayerL2 = JobLogSource & JobChain;

/** A contract refuses a call of the relayer (a revert found by simulation or when sending it): CONTRACT_REFUSED, not retryable. */
export class ContractRefusedError extends DogeosError {
  constructor(
    message: string,
    readonly revert: string | null,
    cause?: unknown,
  ) {
    super("unprocessable", "CONTRACT_REFUSED", message, { details: { revert }, cause });
  }
}

/**
 * The relayer's boundary with the L2: a failure of a call to `l2` (or of a sent transaction's
 * `wait`) that src/errors.ts's table knows (ethers' errors, a socket error, an HTTP status) comes
 * out as an ExternalCallError coded L2_<ethers code>, retryable by that table, with the original as
 * its cause. A DogeosError (ContractRefusedError) and an error the table does not know (a bug) pass
 * unchanged. Methods are looked up at each call, so a test may replace one on `l2` later.
 */
export function guardL2(l2: RelayerL2): RelayerL2 {
  const wrap = (error: unknown): unknown => (classifyExternalFailure(error) ? failureFromExternal("L2", error) : error);
  const guard = <T>(promise: Promise<T>): Promise<T> =>
    promise.catch((error) => {
      throw wrap(error);
    });
  const guardSent = (sent: SentTransaction): SentTransaction => ({ hash: sent.hash, wait: () => guard(sent.wait()) });
  return new Proxy(l2, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        let result: unknown;
        try {
          result = value.apply(target, args);
        } catch (error) {
          throw wrap(error);
        }
        if (!(result instanceof Promise)) return result;
        return guard(result).then((answer) =>
          property === "submitFact" || property === "settle" ? guardSent(answer as SentTransaction) : answer,
        );
      };
    },
  });
}

export interface EthersRelayerL2Options {
  /** Sends settle and submitFact; its provider reads everything. */
  signer: Signer;
  attestation: string;
  /** DogeInscriber and DogeAnchor; a service left out is not watched. */
  inscriber?: string | null;
  anchor?: string | null;
  /** How long to wait for a sent transaction to be mined before leaving it for the next attempt (default 120 s). */
  txTimeoutMs?: number;
}

const INSCRIPTION_TOPIC = REQUEST_TOPIC.inscription;
const ANCHOR_TOPIC = REQUEST_TOPIC.anchor;
// Strings are decoded as bytes (the same ABI encoding), so text that is not UTF-8 cannot stop the scan:
// it becomes U+FFFD and the inscriber refuses it like any other bad input.
const INSCRIPTION_DATA = ["bytes", "bytes", "bytes", "bytes", "bytes32", "uint256", "uint64"];
const ANCHOR_DATA = ["bytes", "bytes32", "uint256", "uint64"];
const text = (hex: string) => new TextDecoder("utf-8", { fatal: false }).decode(Buffer.from(hex.slice(2), "hex"));
const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.slice(2), "hex"));

/** The job a request log announces, or null for a log that is not one (another event, undecodable data). */
export function announcedJobOf(
  log: Pick<Log, "address" | "topics" | "data" | "blockNumber" | "transactionHash">,
): AnnouncedJob | null {
  const coder = AbiCoder.defaultAbiCoder();
  if (log.topics.length !== 3) return null;
  const jobId = log.topics[1].toLowerCase();
  const requester = getAddress(`0x${log.topics[2].slice(26)}`);
  try {
    if (log.topics[0] === INSCRIPTION_TOPIC) {
      const [contentType, action, payload, recipient, resultHash, feeWei, deadline] = coder.decode(
        INSCRIPTION_DATA,
        log.data,
      );
      return {
        kind: "inscription",
        jobId,
        contract: getAddress(log.address),
        requester,
        contentType: text(contentType),
        action: text(action),
        dogeRecipient: text(recipient),
        payload: bytes(payload),
        resultHash: String(resultHash).toLowerCase(),
        feeWei: BigInt(feeWei),
        deadline: Number(deadline),
        l2Block: log.blockNumber,
        l2Tx: log.transactionHash,
      };
    }
    if (log.topics[0] === ANCHOR_TOPIC) {
      const [payload, resultHash, feeWei, deadline] = coder.decode(ANCHOR_DATA, log.data);
      return {
        kind: "anchor",
        jobId,
        contract: getAddress(log.address),
        requester,
        contentType: null,
        action: null,
        dogeRecipient: null,
        payload: bytes(payload),
        resultHash: String(resultHash).toLowerCase(),
        feeWei: BigInt(feeWei),
        deadline: Number(deadline),
        l2Block: log.blockNumber,
        l2Tx: log.transactionHash,
      };
    }
  } catch {
    return null;
  }
  return null;
}

/** The first line of an ethers (or Hardhat) error, and the custom error's name when it can be decoded. */
export function revertOf(error: unknown, iface: Interface): { message: string; revert: string | null } {
  const message = (error as Error)?.message?.split("\n")[0] ?? String(error);
  const data =
    (error as { data?: unknown })?.data ?? (error as { info?: { error?: { data?: unknown } } })?.info?.error?.data;
  let revert: string | null = (error as { revert?: { name?: string } })?.revert?.name ?? null;
  if (!revert && typeof data === "string" && data.startsWith("0x") && data.length >= 10) {
    try {
      const parsed = iface.parseError(data);
      if (parsed) revert = `${parsed.name}(${parsed.args.map((arg) => String(arg)).join(", ")})`;
    } catch {
      revert = null;
    }
  }
  if (!revert) {
    const match = /reverted with custom error '([^']+)'/.exec(message);
    if (match) revert = match[1];
  }
  return { message, revert };
}

/** True for a revert (as opposed to the L2 not answering). */
export function isRevert(error: unknown): boolean {
  if (isError(error, "CALL_EXCEPTION")) return true;
  const message = String((error as Error)?.message ?? "");
  return /revert/i.test(message);
}

export function ethersRelayerL2(options: EthersRelayerL2Options): RelayerL2 {
  const { signer } = options;
  const provider: Provider =
    signer.provider ??
    (() => {
      throw new Error("the relayer's L2 signer needs a provider");
    })();
  const attestation = attestationAt(options.attestation, signer);
  const services: Record<JobKind, JobService | null> = {
    inscription: options.inscriber ? inscriberAt(options.inscriber, signer) : null,
    anchor: options.anchor ? anchorAt(options.anchor, signer) : null,
  };
  const addresses = [options.inscriber, options.anchor]
    .filter((a): a is string => Boolean(a))
    .map((a) => getAddress(a));
  const topics = [...(options.inscriber ? [INSCRIPTION_TOPIC] : []), ...(options.anchor ? [ANCHOR_TOPIC] : [])];
  const txTimeoutMs = options.txTimeoutMs ?? 120_000;
  // One interface that knows every error the settle path can revert with (the service's and DogeAttestation's).
  const errors = new Interface(
    [...ABI.DogeInscriber, ...ABI.DogeAttestation].filter((item: { type: string }) => item.type === "error"),
  );

  const service = (kind: JobKind): JobService => {
    const contract = services[kind];
    if (!contract) throw new Error(`no ${kind} contract is configured`);
    return contract;
  };
  const sent = (tx: TransactionResponse): SentTransaction => ({
    hash: tx.hash,
    async wait() {
      try {
        const receipt = await tx.wait(1, txTimeoutMs);
        return receipt !== null && receipt.status === 1;
      } catch (error) {
        if (isError(error, "CALL_EXCEPTION")) return false;
        throw error;
      }
    },
  });
  const send = async (call: () => Promise<TransactionResponse>): Promise<SentTransaction> => {
    try {
      return sent(await call());
    } catch (error) {
      if (!isRevert(error)) throw error;
      const { message, revert } = revertOf(error, errors);
      throw new ContractRefusedError(message, revert, error);
    }
  };

  return {
    head: () => provider.getBlockNumber(),
    async blockHash(blockNumber) {
      const block = await provider.getBlock(blockNumber);
      return block?.hash ?? null;
    },
    async jobEvents(fromBlock, toBlock) {
      if (addresses.length === 0) return [];
      const logs = await provider.getLogs({ address: addresses, topics: [topics], fromBlock, toBlock });
      return logs
        .filter((log) => !log.removed)
        .sort((a, b) => a.blockNumber - b.blockNumber || a.index - b.index)
        .map((log) => announcedJobOf(log))
        .filter((job): job is AnnouncedJob => job !== null);
    },
    async timestamp() {
      const block = await provider.getBlock("latest");
      if (!block) throw new Error("the L2 has no latest block");
      return block.timestamp;
    },
    jobOf: (kind, jobId) => readJob(service(kind), jobId),
    l1Tip: () => attestation.l1Tip(),
    async l1TipAttestedAt() {
      const record = await attestation.factOf(FACT_TYPE_KEYS.L1_TIP, ZERO_KEY, ZERO_KEY);
      return record.exists ? record.attestedAt : 0n;
    },
    submitFact: (fact, signatures) => send(() => attestation.submitFact(fact, signatures)),
    async checkSettle(kind, jobId, receipt, signatures) {
      try {
        await service(kind).settle.staticCall(jobId, receipt, signatures);
      } catch (error) {
        if (!isRevert(error)) throw error;
        const { message, revert } = revertOf(error, errors);
        throw new ContractRefusedError(message, revert, error);
      }
    },
    settle: (kind, jobId, receipt, signatures) => send(() => service(kind).settle(jobId, receipt, signatures)),
    async outcome(hash) {
      const receipt = await provider.getTransactionReceipt(hash);
      if (receipt) return receipt.status === 1 ? "success" : "reverted";
      return (await provider.getTransaction(hash)) ? "pending" : "unknown";
    },
  };
}

/**
 * Checks that DogeInscriber and DogeAnchor exist and settle through `attestation` (as
 * deploy/deploy.ts wires them). Returns what is wrong (empty when all is well); throws when the L2
 * cannot be read.
 */
export async function checkJobContracts(
  provider: Provider,
  addresses: { attestation: string; inscriber?: string | null; anchor?: string | null },
): Promise<string[]> {
  const problems: string[] = [];
  const attestationAddress = getAddress(addresses.attestation);
  if ((await provider.getCode(attestationAddress)) === "0x")
    problems.push(`no contract at the attestation address ${attestationAddress}`);
  for (const [name, kind, address] of [
    ["DogeInscriber", "inscription", addresses.inscriber],
    ["DogeAnchor", "anchor", addresses.anchor],
  ] as const) {
    if (!address) continue;
    const at = getAddress(address);
    if ((await provider.getCode(at)) === "0x") {
      problems.push(`no contract at the ${name} address ${at}`);
      continue;
    }
    try {
      const wiredTo = getAddress(await jobServiceAt(kind, at, provider).attestation());
      if (wiredTo !== attestationAddress)
        problems.push(`${name} at ${at} settles through ${wiredTo}, not ${attestationAddress}`);
    } catch (error) {
      if (!isRevert(error) && !isError(error, "BAD_DATA")) throw error;
      problems.push(`${name} at ${at} is not a job service (attestation() fails)`);
    }
  }
  return problems;
}
