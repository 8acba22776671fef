/**
 * What an attester reads from the L2, through ethers and the published ABIs (shared/abi): the
 * attestation contract's EIP-712 domain and current attester set, and a job as its service
 * contract stored it and announced it in its request event. Read-only: an attester never sends
 * L2 transactions.
 */
import { Contract, getAddress, isError } from "ethers";
import type { ContractRunner, EventLog, Provider } from "ethers";
import { REQUEST_EVENT, attestationAt, jobServiceAt, readJob } from "../l2/contracts";
import type { JobKind } from "../l2/contracts";
import { domainFromEip712Result } from "../facts";
import type { AttestationDomain } from "../facts";
import { DogeosError, Refusal, notFound, unprocessable } from "../errors";
import type { JobOnL2 } from "./receipts";

/** The current attester set of the attestation contract. */
export interface AttesterSet {
  attesters: string[];
  attesterSetId: bigint;
}

/** The L2 as an attester sees it (tests may substitute their own). */
export interface AttesterL2 {
  /** The domain `eip712Domain()` reports. Throws L2ReadError when it cannot be read. */
  eip712Domain(): Promise<AttestationDomain>;
  /** `attesters()`. Throws L2ReadError when it cannot be read. */
  attesterSet(): Promise<AttesterSet>;
  /**
   * The job `jobId` of the `kind` service at `jobContract`, which must be wired to this attester's
   * attestation contract. Throws Refusal: JOB_CONTRACT_MISMATCH, JOB_NOT_FOUND, L2_UNAVAILABLE.
   */
  job(kind: JobKind, jobContract: string, jobId: string): Promise<JobOnL2>;
}

/**
 * A read of the L2 failed: `unreachable` (transport: L2_UNREACHABLE, unavailable, retryable) or
 * `call` (no such contract or function, a revert: L2_CALL_FAILED, unprocessable).
 */
export class L2ReadError extends DogeosError {
  constructor(
    readonly failure: "unreachable" | "call",
    message: string,
    cause?: unknown,
  ) {
    super(
      failure === "unreachable" ? "unavailable" : "unprocessable",
      failure === "unreachable" ? "L2_UNREACHABLE" : "L2_CALL_FAILED",
      message,
      { cause },
    );
  }
}

/** A call that reached the chain and failed there (a revert, no such function, no code), as opposed to a transport failure. */
function isCallFailure(error: unknown): boolean {
  if (isError(error, "CALL_EXCEPTION") || isError(error, "BAD_DATA")) return true;
  // Hardhat's in-process network throws its own revert errors, carrying the revert data.
  return (
    typeof error === "object" &&
    error !== null &&
    "data" in error &&
    /revert/i.test(String((error as { message?: unknown }).message))
  );
}

async function read<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isCallFailure(error))
      throw new L2ReadError("call", `${what} failed: ${(error as Error).message.split("\n")[0]}`, error);
    throw new L2ReadError(
      "unreachable",
      `${what}: the L2 did not answer (${(error as Error).message.split("\n")[0]})`,
      error,
    );
  }
}

export interface EthersAttesterL2Options {
  /** Where to look for request events (the service contracts' deployment block; default 0). */
  fromBlock?: number;
}

/** An AttesterL2 over an ethers provider (a JsonRpcProvider, or Hardhat's in-process one in tests). */
export function ethersAttesterL2(
  runner: ContractRunner & Pick<Provider, "getCode">,
  attestationAddress: string,
  options: EthersAttesterL2Options = {},
): AttesterL2 {
  const attestation = attestationAt(attestationAddress, runner);
  const fromBlock = options.fromBlock ?? 0;
  return {
    async eip712Domain() {
      const result = await read("eip712Domain()", () => attestation.eip712Domain());
      return domainFromEip712Result(result);
    },
    async attesterSet() {
      const [attesters, attesterSetId] = await read("attesters()", () => attestation.attesters());
      return { attesters: [...attesters].map((a) => getAddress(a)), attesterSetId };
    },
    async job(kind, jobContract, jobId) {
      const address = getAddress(jobContract);
      const service = jobServiceAt(kind, address, runner);
      try {
        const code = await read("getCode", () => runner.getCode(address));
        if (code === "0x") throw jobContractMismatch(address, "no contract at this address");
        let wiredTo: string;
        try {
          wiredTo = getAddress(await read("attestation()", () => service.attestation()));
        } catch (error) {
          if (error instanceof L2ReadError && error.failure === "call")
            throw jobContractMismatch(address, `not a job service: ${error.message}`);
          throw error;
        }
        if (wiredTo !== attestation.target)
          throw jobContractMismatch(address, `settles through ${wiredTo}, not ${String(attestation.target)}`);
        const eventName = REQUEST_EVENT[kind];
        // The two kinds' request events differ: filter by name on the contract itself (typechain types them per kind).
        const requests = service as unknown as Contract;
        const logs = await read(`${eventName} logs`, () =>
          requests.queryFilter(requests.filters[eventName](jobId), fromBlock, "latest"),
        );
        const request = logs.find(
          (log): log is EventLog => "args" in log && log.address.toLowerCase() === address.toLowerCase(),
        );
        if (!request)
          throw notFound("JOB_NOT_FOUND", `${address} announced no ${kind} job ${jobId}`, {
            job_contract: address,
            job_id: jobId,
            kind,
          });
        const stored = await read("jobOf()", () => readJob(service, jobId));
        const resultHash = String(request.args.resultHash).toLowerCase();
        // The id commits to (contract, chain, sequence, result hash): the stored job must be the announced one.
        const recomputed = await read("jobIdOf()", () => service.jobIdOf(stored.sequence, resultHash));
        if (recomputed.toLowerCase() !== jobId.toLowerCase())
          throw notFound("JOB_NOT_FOUND", `${address} stores no job ${jobId} for its announced result hash`, {
            job_contract: address,
            job_id: jobId,
            kind,
          });
        return {
          kind,
          jobId: jobId.toLowerCase(),
          jobContract: address,
          resultHash,
          dogeRecipient: kind === "inscription" ? String(request.args.dogeRecipient) : null,
          status: stored.status,
          sequence: stored.sequence,
        };
      } catch (error) {
        if (error instanceof L2ReadError) {
          throw error.failure === "unreachable"
            ? new Refusal("unavailable", "L2_UNAVAILABLE", "the L2 could not be read", { reason: error.message })
            : jobContractMismatch(address, error.message);
        }
        throw error;
      }
    },
  };
}

function jobContractMismatch(address: string, reason: string): Refusal {
  return unprocessable(
    "JOB_CONTRACT_MISMATCH",
    `${address} is not a job service of this attester's attestation contract`,
    { job_contract: address, reason },
  );
}
