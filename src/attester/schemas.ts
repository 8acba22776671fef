/**
 * The attester's signing API on the wire (./wire.ts) as zod schemas: its OpenAPI document (GET
 * /openapi.json on the attester's port) is generated from these and the route declarations in
 * ./app.ts, and the attest API's document uses the same Fact. bytes32 fields are 0x-prefixed hex,
 * uint256 and uint64 values decimal strings.
 */
import { isAddress } from "ethers";
import { DogeNetwork } from "../doge";
import { FACT_TYPE_NAMES } from "../facts";
import { LAUNCHPAD_SLUG_PATTERN } from "../inscription";
import { coded, z } from "../services/http/openapi";
import { Address, InscriptionId, Tick, Txid } from "../services/http/validation";

const UINT64_MAX = 2n ** 64n - 1n;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const Bytes32Out = z.string().regex(/^0x[0-9a-f]{64}$/);
const Uint = z.string().regex(/^(0|[1-9][0-9]*)$/);
const Checksummed = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

// ---------------------------------------------------------------------------------------------
// The structs.

export const FactSchema = z
  .object({
    factType: Bytes32Out.openapi({ description: "keccak256 of the fact type's name" }),
    subject: Bytes32Out,
    qualifier: Bytes32Out,
    value: Uint.openapi({ description: "uint256, decimal" }),
    data: Bytes32Out,
    l1Height: Uint.openapi({ description: "the base-chain height the fact holds at (uint64, decimal)" }),
    attestedAt: Uint.openapi({ description: "unix seconds (uint64, decimal)" }),
    attesterSetId: Uint.openapi({ description: "the attester set that signs it (uint64, decimal)" }),
  })
  .openapi("Fact", { description: 'DogeAttestation\'s Fact struct (docs/contracts.md, "Facts and keys")' });

export const ReceiptSchema = z
  .object({
    jobId: Bytes32Out,
    jobContract: Checksummed,
    l1Txid: Bytes32Out.openapi({ description: "the base-chain transaction, as bytes32 (display order)" }),
    resultHash: Bytes32Out,
    l1Height: Uint,
    attestedAt: Uint,
    attesterSetId: Uint,
  })
  .openapi("Receipt", { description: "DogeAttestation's Receipt struct: a base-chain transaction that did an L2 job" });

export const DomainSchema = z
  .object({
    name: z.string(),
    version: z.string(),
    chainId: z.int().min(1),
    verifyingContract: Checksummed,
  })
  .openapi("AttestationDomain", { description: "the EIP-712 domain facts and receipts are signed under" });

const Signature = z
  .string()
  .regex(/^0x[0-9a-fA-F]{130}$/)
  .openapi({ description: "65 bytes r || s || v over the EIP-712 digest" });

// ---------------------------------------------------------------------------------------------
// Requests.

/**
 * An integer from `min` to `max`, as a JSON number (a safe integer) or a decimal string; refused
 * with 400 INVALID_INTEGER.
 */
function uintField(min: bigint, max: bigint) {
  const schema = z
    .union([z.number().int().min(0), z.string().regex(/^(0|[1-9][0-9]{0,19})$/)])
    .transform((value) => BigInt(value))
    .refine((value) => value >= min && value <= max)
    .openapi({
      anyOf: [
        { type: "integer", minimum: Number(min) },
        { type: "string", pattern: "^(0|[1-9][0-9]{0,19})$" },
      ],
      description: `an integer from ${min} to ${max}: a JSON number, or a decimal string (beyond 2^53)`,
    });
  return coded(
    schema,
    "INVALID_INTEGER",
    (field) => `${field} must be an integer from ${min} to ${max} (a JSON number or a decimal string)`,
  );
}

export const FactType = coded(
  z.enum(FACT_TYPE_NAMES as unknown as [string, ...string[]]).openapi({ description: "the fact type" }),
  "UNKNOWN_FACT_TYPE",
  () => `type must be one of ${FACT_TYPE_NAMES.join(", ")}`,
);

export const Slug = coded(
  z
    .string()
    .regex(LAUNCHPAD_SLUG_PATTERN)
    .openapi({ description: "a launchpad collection slug ([a-z0-9-], 1 to 64 characters)", example: "dogeos-pups" }),
  "INVALID_SLUG",
  (field) => `${field} must be a launchpad slug ([a-z0-9-], 1 to 64 characters)`,
);

/**
 * The subject parameters of a fact request: each type takes exactly its own (facts.ts FACT_PARAMS:
 * DOGE_BALANCE address; DRC20_BALANCE address, tick; COLLECTION_COUNT address, slug;
 * INSCRIPTION_OWNER, INSCRIPTION_VALID, INSCRIPTION_ACTION inscription_id; DRC20_TRANSFER_VALID,
 * TX_INCLUDED txid; L1_TIP none), which the route checks (400 MISSING_PARAMS, UNKNOWN_FIELDS).
 */
export function factParams(network: DogeNetwork) {
  return z
    .object({
      address: Address(network).optional(),
      tick: Tick.optional(),
      slug: Slug.optional(),
      inscription_id: InscriptionId.optional(),
      txid: Txid.optional(),
    })
    .strict()
    .openapi("FactParams", {
      description:
        "the subject: exactly the parameters the fact type takes (DOGE_BALANCE: address; DRC20_BALANCE: address, tick; COLLECTION_COUNT: address, slug; INSCRIPTION_OWNER, INSCRIPTION_VALID, INSCRIPTION_ACTION: inscription_id; DRC20_TRANSFER_VALID, TX_INCLUDED: txid; L1_TIP: none)",
    });
}

export function factRequest(network: DogeNetwork) {
  return z
    .object({
      type: FactType,
      params: factParams(network).optional(),
      l1_height: uintField(0n, BigInt(Number.MAX_SAFE_INTEGER)),
      attester_set_id: uintField(1n, UINT64_MAX),
      attested_at: uintField(1n, UINT64_MAX),
    })
    .strict()
    .openapi("FactRequest");
}

const ReceiptTxid = coded(
  z
    .string()
    .regex(/^(0[xX])?[0-9a-fA-F]{64}$/)
    .transform((value) => value.replace(/^0x/i, "").toLowerCase())
    .openapi({
      type: "string",
      pattern: "^(0[xX])?[0-9a-fA-F]{64}$",
      description: "the base-chain txid (display order), with or without 0x",
    }),
  "INVALID_TXID",
  (field) => `${field} must be 64 hexadecimal characters`,
);

export const ReceiptRequest = z
  .object({
    kind: coded(z.enum(["inscription", "anchor"]), "INVALID_KIND", () => "kind must be inscription or anchor"),
    job_contract: coded(
      z
        .string()
        .refine((value) => isAddress(value))
        .openapi({ description: "the service contract (DogeInscriber or DogeAnchor), an L2 address" }),
      "INVALID_ADDRESS",
      () => "job_contract must be an L2 address",
    ),
    job_id: coded(
      z.string().regex(BYTES32).openapi({ description: "the L2 job id, 0x and 64 hex digits" }),
      "INVALID_JOB_ID",
      () => "job_id must be 0x and 64 hex digits",
    ),
    l1_txid: ReceiptTxid,
    attester_set_id: uintField(1n, UINT64_MAX),
    attested_at: uintField(1n, UINT64_MAX),
  })
  .strict()
  .openapi("ReceiptRequest");

// ---------------------------------------------------------------------------------------------
// Answers.

export const SignedFact = z
  .object({ fact: FactSchema, signature: Signature, signer: Checksummed })
  .openapi("SignedFact");
export const SignedReceipt = z
  .object({ receipt: ReceiptSchema, signature: Signature, signer: Checksummed })
  .openapi("SignedReceipt");

export const AttesterInfo = z
  .object({
    name: z.string(),
    signer: Checksummed,
    domain: DomainSchema,
    attester_set_id: Uint.nullable().openapi({
      description: "the contract's current set, or null while the L2 cannot be read",
    }),
    indexed_height: z.int().min(-1).openapi({ description: "the attester's index tip; -1 when empty" }),
    indexed_hash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .nullable(),
    node_height: z
      .int()
      .nullable()
      .openapi({ description: "the attester's own node's height, or null when it cannot be asked" }),
    min_confirmations: z.int().min(6),
    signable_height: z
      .int()
      .openapi({ description: "indexed_height - (min_confirmations - 1): the greatest height it signs facts at" }),
  })
  .openapi("AttesterInfo");

export const AttesterHealth = z
  .object({
    ok: z.boolean(),
    name: z.string(),
    signer: Checksummed,
    indexed_height: z.int().min(-1),
    node_height: z.int().nullable(),
    signable_height: z.int(),
    l2: z
      .union([
        z.object({ ok: z.boolean(), attester_set_id: Uint, is_attester: z.boolean() }),
        z.object({ ok: z.literal(false), error: z.string() }),
      ])
      .openapi({ description: "the contract's domain is the configured one and this key is in its set" }),
  })
  .openapi("AttesterHealth");
