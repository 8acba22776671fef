/**
 * Paid fresh facts: a requester pays `requestFact` on the L2 and posts the request's inputs (the
 * Dogecoin address, tick, ...) to `POST /api/attest/fulfill`. The relayer reads the request's event
 * from the contract, checks that the inputs hash to the keys the request was paid for
 * (`keccak256(address)`, the tick key, ...), gathers two attester signatures for that fact and calls
 * `fulfill` before the deadline. A request is fulfilled at most once: the contract refuses a second
 * fulfilment, and concurrent posts for one request share one attempt.
 */
import { AbiCoder, Contract, keccak256 } from "ethers";
import {
  collectionCountFact,
  dogeBalanceFact,
  drc20BalanceFact,
  drc20TransferValidFact,
  factTypeName,
  inscriptionActionFact,
  inscriptionOwnerFact,
  inscriptionValidFact,
  l1TipFact,
  txIncludedFact,
} from "../facts";
import type { Fact, FactStamp, FactTypeName } from "../facts";
import { factFromJson } from "../attester/wire";
import type { FactParamsJson } from "../attester/wire";
import { Refusal, badRequest, conflict, notFound } from "../errors";
import type { AttesterPanel } from "../services/attest-api/panel";

const STATUS = ["None", "Open", "Fulfilled", "Refunded"] as const;
const DUMMY: FactStamp = { l1Height: 0n, attestedAt: 0n, attesterSetId: 0n };
const ZERO_TXID = "00".repeat(32);

/** The (subject, qualifier) keys a fact of `type` about `params` carries. */
export function factKeysOf(type: FactTypeName, params: FactParamsJson): { subject: string; qualifier: string } {
  const need = (value: string | undefined, name: string): string => {
    if (value === undefined) throw badRequest("MISSING_INPUT", `a ${type} request needs ${name}`, { field: name });
    return value;
  };
  let fact: Fact;
  switch (type) {
    case "DOGE_BALANCE":
      fact = dogeBalanceFact(need(params.address, "address"), 0n, DUMMY);
      break;
    case "DRC20_BALANCE":
      fact = drc20BalanceFact(need(params.address, "address"), need(params.tick, "tick"), 0n, DUMMY);
      break;
    case "COLLECTION_COUNT":
      fact = collectionCountFact(need(params.address, "address"), need(params.slug, "collection"), 0n, DUMMY);
      break;
    case "INSCRIPTION_OWNER":
      fact = inscriptionOwnerFact(need(params.inscription_id, "id"), "x", DUMMY);
      break;
    case "INSCRIPTION_VALID":
      fact = inscriptionValidFact(need(params.inscription_id, "id"), false, ZERO_TXID, DUMMY);
      break;
    case "INSCRIPTION_ACTION":
      fact = inscriptionActionFact(need(params.inscription_id, "id"), null, DUMMY);
      break;
    case "DRC20_TRANSFER_VALID":
      fact = drc20TransferValidFact(need(params.txid, "txid"), "xxxx", 0n, DUMMY);
      break;
    case "TX_INCLUDED":
      fact = txIncludedFact(need(params.txid, "txid"), null, DUMMY);
      break;
    case "L1_TIP":
      fact = l1TipFact(0n, ZERO_TXID, DUMMY);
      break;
  }
  return { subject: fact.subject, qualifier: fact.qualifier };
}

/** The inputs a request of `type` takes (only these are passed to the attesters). */
function paramsFor(type: FactTypeName, params: FactParamsJson): FactParamsJson {
  switch (type) {
    case "DOGE_BALANCE":
      return { address: params.address };
    case "DRC20_BALANCE":
      return { address: params.address, tick: params.tick };
    case "COLLECTION_COUNT":
      return { address: params.address, slug: params.slug };
    case "INSCRIPTION_OWNER":
    case "INSCRIPTION_VALID":
    case "INSCRIPTION_ACTION":
      return { inscription_id: params.inscription_id };
    case "DRC20_TRANSFER_VALID":
    case "TX_INCLUDED":
      return { txid: params.txid };
    case "L1_TIP":
      return {};
  }
}

export interface FactRequestFulfillerOptions {
  /** DogeAttestation connected to the relayer's signer. */
  attestation: Contract;
  panel: AttesterPanel;
  /** Blocks searched back for a request's event (default 100,000). */
  lookbackBlocks?: number;
  log?: (event: string, fields: Record<string, unknown>) => void;
}

export class FactRequestFulfiller {
  private readonly inProgress = new Map<string, Promise<Record<string, unknown>>>();

  constructor(private readonly options: FactRequestFulfillerOptions) {}

  fulfil(requestId: string, params: FactParamsJson): Promise<Record<string, unknown>> {
    const running = this.inProgress.get(requestId);
    if (running) return running;
    const attempt = this.attempt(requestId, params).finally(() => this.inProgress.delete(requestId));
    this.inProgress.set(requestId, attempt);
    return attempt;
  }

  private async attempt(requestId: string, params: FactParamsJson): Promise<Record<string, unknown>> {
    const { attestation } = this.options;
    const stored = await attestation.requestOf(requestId);
    const status = STATUS[Number(stored.status)];
    if (status === "None")
      throw notFound("REQUEST_NOT_FOUND", `no request ${requestId} on the attestation contract`, { requestId });
    if (status === "Fulfilled")
      throw conflict("ALREADY_FULFILLED", `request ${requestId} is already fulfilled`, { requestId });
    if (status === "Refunded") throw conflict("REQUEST_REFUNDED", `request ${requestId} was refunded`, { requestId });
    const deadline = Number(stored.deadline);
    const block = await attestation.runner!.provider!.getBlock("latest");
    if (block && block.timestamp > deadline) {
      throw new Refusal(
        "gone",
        "REQUEST_EXPIRED",
        `request ${requestId} passed its deadline; the requester can take the fee back with refund`,
        { requestId, deadline },
      );
    }
    const event = await this.requestEvent(requestId);
    const type = factTypeName(event.factType);
    if (!type)
      throw new Refusal(
        "unprocessable",
        "UNKNOWN_FACT_TYPE",
        `request ${requestId} is for fact type ${event.factType}, which this relayer does not know`,
        { requestId },
      );
    const wanted = paramsFor(type, params);
    const keys = factKeysOf(type, wanted);
    if (keys.subject !== event.subject || keys.qualifier !== event.qualifier) {
      throw new Refusal(
        "unprocessable",
        "INPUTS_DO_NOT_MATCH_REQUEST",
        `the inputs do not hash to the keys request ${requestId} was paid for (keccak256 of the address, the tick key, ...)`,
        {
          requestId,
          type,
          expected: { subject: event.subject, qualifier: event.qualifier },
          given: keys,
        },
      );
    }
    // The contract takes no fact attested before the request (the L2's clock may run a little ahead).
    const answer = await this.options.panel.fact(type, wanted, { notBefore: Number(stored.requestedAt) });
    const fact = factFromJson(answer.fact);
    try {
      const tx = await attestation.fulfill(requestId, fact, answer.signatures);
      const receipt = await tx.wait();
      this.options.log?.("relayer_request_fulfilled", {
        requestId,
        type,
        tx: receipt.hash,
        gas: receipt.gasUsed.toString(),
      });
      return {
        requestId,
        status: "fulfilled",
        type,
        txHash: receipt.hash,
        fact: answer.fact,
        signatures: answer.signatures,
        signers: answer.signers,
      };
    } catch (error) {
      // Another relayer (or a race) got there first, or the deadline passed meanwhile.
      const after = STATUS[Number((await attestation.requestOf(requestId)).status)];
      if (after === "Fulfilled")
        throw conflict("ALREADY_FULFILLED", `request ${requestId} was fulfilled meanwhile`, { requestId });
      if (after === "Refunded")
        throw conflict("REQUEST_REFUNDED", `request ${requestId} was refunded meanwhile`, { requestId });
      throw new Refusal(
        "upstream",
        "FULFIL_FAILED",
        `the fulfil transaction failed: ${(error as Error).message.split("\n")[0]}`,
        { requestId },
      );
    }
  }

  /** The FactRequested event of a request: its fact type and keys (the contract stores only their hash). */
  private async requestEvent(requestId: string): Promise<{ factType: string; subject: string; qualifier: string }> {
    const { attestation } = this.options;
    const provider = attestation.runner!.provider!;
    const latest = await provider.getBlockNumber();
    const from = Math.max(0, latest - (this.options.lookbackBlocks ?? 100_000));
    // "latest" rather than the number read above: a provider may answer a block number a polling
    // interval old, and the request may be in the block after it.
    const logs = await attestation.queryFilter(attestation.filters.FactRequested(requestId), from, "latest");
    const log = logs[0] as unknown as { args: { factType: string; subject: string; qualifier: string } } | undefined;
    if (!log)
      throw notFound(
        "REQUEST_NOT_FOUND",
        `no FactRequested event for ${requestId} in the last ${latest - from} blocks`,
        { requestId },
      );
    return { factType: log.args.factType, subject: log.args.subject, qualifier: log.args.qualifier };
  }
}

/** keccak256(abi.encode(factType, subject, qualifier, sequence)): how the contract makes request ids. */
export function requestIdOf(factType: string, subject: string, qualifier: string, sequence: bigint): string {
  return keccak256(
    AbiCoder.defaultAbiCoder().encode(
      ["bytes32", "bytes32", "bytes32", "uint64"],
      [factType, subject, qualifier, sequence],
    ),
  );
}
