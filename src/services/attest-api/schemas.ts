/**
 * The attest API's queries, bodies and answers as zod schemas: its OpenAPI document (GET
 * /openapi.json) is generated from these and the route declarations in ./app.ts. The signed Fact is
 * the attesters' (src/attester/schemas.ts); the OP_RETURN and OP_CHECKZKP records are the
 * explorer's (src/services/explorer/api-schema.ts).
 */
import { DogeNetwork } from "../../doge";
import { FACT_TYPE_NAMES } from "../../facts";
import { FactSchema } from "../../attester/schemas";
import { LAUNCHPAD_SLUG_PATTERN } from "../../inscription";
import { OpReturnRecord, ZkpRecord } from "../explorer/api-schema";
import { coded, z } from "../http/openapi";
import { Address, InscriptionId, Tick, Txid } from "../http/validation";

const Checksummed = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

export const Collection = coded(
  z
    .string()
    .regex(LAUNCHPAD_SLUG_PATTERN)
    .openapi({ description: "a launchpad collection slug (a-z, 0-9 and -)", example: "dogeos-pups" }),
  "INVALID_COLLECTION",
  () => "collection must be a collection slug (a-z, 0-9 and -)",
);

export const RequestId = coded(
  z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/)
    .transform((value) => value.toLowerCase())
    .openapi({
      type: "string",
      pattern: "^0x[0-9a-fA-F]{64}$",
      description: "the request id requestFact returned (bytes32)",
    }),
  "INVALID_REQUEST_ID",
  () => "requestId must be the 0x-prefixed 32-byte id requestFact returned",
);

/** Each fact endpoint's query (unknown parameters are 400 UNKNOWN_FIELDS). */
export function factQueries(network: DogeNetwork) {
  const address = Address(network);
  const id = InscriptionId;
  return {
    "doge-balance": z.object({ address }).strict(),
    "drc20-balance": z.object({ address, tick: Tick }).strict(),
    "collection-count": z.object({ address, collection: Collection }).strict(),
    "inscription-owner": z.object({ id }).strict(),
    "inscription-valid": z.object({ id }).strict(),
    "inscription-action": z.object({ id }).strict(),
    "drc20-transfer-valid": z.object({ txid: Txid }).strict(),
    "tx-included": z.object({ txid: Txid }).strict(),
    "l1-tip": z.object({}).strict(),
  };
}

export const TxidQuery = z.object({ txid: Txid }).strict();

export function fulfilBody(network: DogeNetwork) {
  return z
    .object({
      requestId: RequestId,
      address: Address(network).optional(),
      tick: Tick.optional(),
      collection: Collection.optional(),
      id: InscriptionId.optional(),
      txid: Txid.optional(),
    })
    .strict()
    .openapi("FulfilRequest", {
      description: "the request id and the inputs its keys were made from (those the fact type takes)",
    });
}

// ---------------------------------------------------------------------------------------------
// Answers.

export const TypedData = z
  .object({
    domain: z.object({
      name: z.string(),
      version: z.string(),
      chainId: z.int().min(1),
      verifyingContract: Checksummed,
    }),
    types: z
      .record(z.string(), z.array(z.object({ name: z.string(), type: z.string() })))
      .openapi({ description: "the Fact struct's fields (without EIP712Domain)" }),
    primaryType: z.literal("Fact"),
    message: FactSchema,
  })
  .openapi("FactTypedData", {
    description: "what ethers' TypedDataEncoder.hash(domain, types, message) and signTypedData take",
  });

export const AttestedFact = z
  .object({
    fact: FactSchema,
    typedData: TypedData,
    signatures: z
      .array(z.string().regex(/^0x[0-9a-fA-F]{130}$/))
      .min(2)
      .openapi({ description: "at least two, sorted by signer (the order DogeAttestation requires)" }),
    signers: z.array(Checksummed).min(2),
  })
  .openapi("AttestedFact", { description: "a fact signed by at least two attesters: submitFact(fact, signatures)" });

export const OwnerFact = AttestedFact.extend({
  owner_address: z.string().nullable().openapi({
    description:
      "the address whose addressKey is the fact's data, read from this API's index at l1Height; null when nobody owns it",
  }),
}).openapi("InscriptionOwnerFact");

const AttesterError = z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() });

export const AttestIndex = z
  .object({
    attesters: z
      .array(
        z.union([
          z.object({
            index: z.int().min(1),
            address: Checksummed,
            up: z.literal(true),
            signable_height: z.int(),
            indexed_height: z.int(),
          }),
          z.object({ index: z.int().min(1), address: z.null(), up: z.literal(false), error: AttesterError.nullable() }),
        ]),
      )
      .openapi({ description: "each attester by its number and signing address (its URL is internal)" }),
    min_signatures: z.int(),
    confirmation_depth: z.int(),
    facts: z.array(
      z.object({
        type: z.enum(FACT_TYPE_NAMES as unknown as [string, ...string[]]),
        path: z.string(),
        query: z.array(z.string()),
      }),
    ),
    fulfill: z.string().nullable().openapi({ description: "the fulfilment endpoint, or null without a relayer" }),
  })
  .openapi("AttestIndex");

export const OpReturnAnswer = z
  .object({
    txid: z.string(),
    block_height: z.int(),
    confirmations: z.int(),
    signed: z.literal(false),
    items: z.array(OpReturnRecord),
  })
  .openapi("AttestOpReturns");

export const ZkpAnswer = z
  .object({
    txid: z.string(),
    block_height: z.int(),
    confirmations: z.int(),
    signed: z.literal(false),
    verified_by_consensus: z.literal(false),
    status: z.string(),
    items: z.array(ZkpRecord),
  })
  .openapi("AttestZkp");

export const FulfilAnswer = z
  .object({
    requestId: z.string(),
    status: z.literal("fulfilled"),
    type: z.string().optional(),
    txHash: z.string().optional().openapi({ description: "the mined fulfill transaction" }),
    fact: FactSchema.optional(),
    signatures: z.array(z.string()).optional(),
    signers: z.array(z.string()).optional(),
  })
  .openapi("Fulfilment");
