/**
 * The attester's internal signing API on the wire (docs/architecture.md, "Attesters"): the Fact
 * and Receipt structs as JSON, and the request and answer bodies. bytes32 fields are 0x-prefixed
 * lower-case hex, the job contract a checksummed address, integers decimal strings (uint256 and
 * uint64 do not fit JSON numbers). The aggregator and the attesters both go through these. Pure.
 */
import { getAddress, isAddress } from "ethers";
import type { AttestationDomain, Fact, FactTypeName, Receipt } from "../facts";
import { DogeosError } from "../errors";
import {
  FACT_JSON_FIELDS,
  bytes32Field,
  factFromRecord,
  uintField,
  type FactJson,
  type JsonFieldRefusal,
} from "../../packages/sdk/src/fact-json";

/** A Fact as JSON: @dogeos/sdk's FactJson (packages/sdk/src/fact-json.ts), which reads it for both. */
export type { FactJson } from "../../packages/sdk/src/fact-json";

/** A Receipt as JSON. */
export interface ReceiptJson {
  jobId: string;
  jobContract: string;
  l1Txid: string;
  resultHash: string;
  l1Height: string;
  attestedAt: string;
  attesterSetId: string;
}

/** The subject parameters of `POST /v1/fact` (which ones each type takes: FACT_PARAMS in facts.ts). */
export interface FactParamsJson {
  address?: string;
  tick?: string;
  slug?: string;
  inscription_id?: string;
  txid?: string;
}

/** `POST /v1/fact` body. Integers as JSON numbers or decimal strings. */
export interface FactRequestJson {
  type: FactTypeName;
  params: FactParamsJson;
  l1_height: number | string;
  attested_at: number | string;
  attester_set_id: number | string;
}

/** `POST /v1/receipt` body. */
export interface ReceiptRequestJson {
  kind: "inscription" | "anchor";
  job_contract: string;
  job_id: string;
  l1_txid: string;
  attested_at: number | string;
  attester_set_id: number | string;
}

/** `POST /v1/fact` answer. */
export interface SignedFactJson {
  fact: FactJson;
  /** 65 bytes r || s || v, 0x hex, over the EIP-712 digest of `fact` under the attester's domain. */
  signature: string;
  /** The attester's address (checksummed). */
  signer: string;
}

/** `POST /v1/receipt` answer. */
export interface SignedReceiptJson {
  receipt: ReceiptJson;
  signature: string;
  signer: string;
}

/** `GET /v1/info` answer. */
export interface AttesterInfoJson {
  name: string;
  signer: string;
  domain: { name: string; version: string; chainId: number; verifyingContract: string };
  /** The contract's current set id, or null while the L2 cannot be read. */
  attester_set_id: string | null;
  indexed_height: number;
  indexed_hash: string | null;
  /** The attester's own node's height, or null when it cannot be asked. */
  node_height: number | null;
  min_confirmations: number;
  /** indexed_height - (min_confirmations - 1): the greatest height the attester signs facts at. */
  signable_height: number;
}

/** A JSON value is not the struct it should be. */
export class WireFormatError extends DogeosError<"WIRE_FORMAT"> {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super("invalid", "WIRE_FORMAT", `${field}: ${message}`, { details: { field } });
  }
}

/** A bad field as WireFormatError. */
const refuse: JsonFieldRefusal = (field, problem) =>
  new WireFormatError(
    field,
    problem.kind === "bytes32"
      ? "must be 0x and 64 hex digits"
      : problem.kind === "decimal"
        ? "must be a decimal string"
        : `must be at most ${problem.max}`,
  );

function objectOf(json: unknown, fields: readonly string[], what: string): Record<string, unknown> {
  if (typeof json !== "object" || json === null || Array.isArray(json))
    throw new WireFormatError(what, "must be a JSON object");
  const record = json as Record<string, unknown>;
  const extra = Object.keys(record).filter((key) => !fields.includes(key));
  if (extra.length > 0) throw new WireFormatError(what, `unknown fields ${extra.join(", ")}`);
  return record;
}

const RECEIPT_FIELDS = [
  "jobId",
  "jobContract",
  "l1Txid",
  "resultHash",
  "l1Height",
  "attestedAt",
  "attesterSetId",
] as const;

export function factToJson(fact: Fact): FactJson {
  return {
    factType: fact.factType.toLowerCase(),
    subject: fact.subject.toLowerCase(),
    qualifier: fact.qualifier.toLowerCase(),
    value: fact.value.toString(),
    data: fact.data.toLowerCase(),
    l1Height: fact.l1Height.toString(),
    attestedAt: fact.attestedAt.toString(),
    attesterSetId: fact.attesterSetId.toString(),
  };
}

/** The Fact a JSON value describes; throws WireFormatError on anything else (extra fields too). */
export function factFromJson(json: unknown): Fact {
  return factFromRecord(objectOf(json, FACT_JSON_FIELDS, "fact"), refuse);
}

export function receiptToJson(receipt: Receipt): ReceiptJson {
  return {
    jobId: receipt.jobId.toLowerCase(),
    jobContract: getAddress(receipt.jobContract),
    l1Txid: receipt.l1Txid.toLowerCase(),
    resultHash: receipt.resultHash.toLowerCase(),
    l1Height: receipt.l1Height.toString(),
    attestedAt: receipt.attestedAt.toString(),
    attesterSetId: receipt.attesterSetId.toString(),
  };
}

/** The Receipt a JSON value describes; throws WireFormatError on anything else. */
export function receiptFromJson(json: unknown): Receipt {
  const record = objectOf(json, RECEIPT_FIELDS, "receipt");
  const jobContract = record.jobContract;
  if (typeof jobContract !== "string" || !isAddress(jobContract))
    throw new WireFormatError("jobContract", "must be an address");
  return {
    jobId: bytes32Field(record, "jobId", refuse),
    jobContract: getAddress(jobContract),
    l1Txid: bytes32Field(record, "l1Txid", refuse),
    resultHash: bytes32Field(record, "resultHash", refuse),
    l1Height: uintField(record, "l1Height", 64, refuse),
    attestedAt: uintField(record, "attestedAt", 64, refuse),
    attesterSetId: uintField(record, "attesterSetId", 64, refuse),
  };
}

/** The domain as `GET /v1/info` shows it. */
export function domainToJson(domain: AttestationDomain): AttesterInfoJson["domain"] {
  return {
    name: domain.name,
    version: domain.version,
    chainId: Number(domain.chainId),
    verifyingContract: getAddress(domain.verifyingContract),
  };
}
