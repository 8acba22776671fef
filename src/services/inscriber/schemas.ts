/**
 * The inscriber's requests and answers as zod schemas: its OpenAPI document (GET /openapi.json) is
 * generated from these and the route declarations in ./app.ts. Every amount is a decimal string of
 * koinu (DecimalString).
 */
import { DogeNetwork } from "../../doge";
import { DecimalString, coded, orNull, z } from "../http/openapi";
import { Address } from "../http/validation";
import { MAX_CONTENT_TYPE_BYTES } from "./request";

/** RFC 6838 type/subtype with optional parameters; at most 255 bytes. */
const MEDIA_TYPE =
  /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(?:\s*;\s*[A-Za-z0-9!#$&^_.+-]+=(?:[A-Za-z0-9!#$&^_.+-]+|"[^"]*"))*$/;
const PROJECT_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const JOB_ID = /^job_[0-9a-f]{24}$/;
const PREPARE_ID = /^prep_[0-9a-f]{24}$/;
const TXID = z.string().regex(/^[0-9a-f]{64}$/);
const HEX = z.string().regex(/^([0-9a-f]{2})*$/);
const InscriptionIdOut = z
  .string()
  .regex(/^[0-9a-f]{64}i[0-9]+$/)
  .openapi({ description: "<first reveal txid>i0" });
const FormOut = z.enum(["v1", "doginals"]);
const Timestamp = z.string().openapi({ format: "date-time" });

export const ProjectName = coded(
  z.string().regex(PROJECT_NAME).openapi({
    description: "the project whose key authenticates the request (lower-case letters, digits, - and _)",
    example: "launchpad",
  }),
  "INVALID_PROJECT",
  () => "project must be a project name (lower-case letters, digits, - and _)",
);

export const JobId = coded(
  z.string().regex(JOB_ID).openapi({ description: "job_<24 hex>", example: "job_0123456789abcdef01234567" }),
  "INVALID_JOB_ID",
  () => "a job id looks like job_<24 hex>",
);
export const PreparationId = coded(
  z.string().regex(PREPARE_ID).openapi({ description: "prep_<24 hex>", example: "prep_0123456789abcdef01234567" }),
  "INVALID_PREPARATION_ID",
  () => "a preparation id looks like prep_<24 hex>",
);

export const PublicKey = coded(
  z.string().openapi({ description: "the address's compressed public key, hexadecimal (33 bytes)" }),
  "INVALID_PUBLIC_KEY",
  () => "public_key must be the address's compressed public key in hex",
);

export const Psbt = coded(
  z.string().min(1).openapi({
    description: "a PSBT in base64, signed by the wallet (one partial signature per input) and not finalised",
  }),
  "INVALID_PSBT",
  () => "psbt must be a base64 string",
);

// ---------------------------------------------------------------------------------------------
// The inscription fields' shapes (./request.ts checks the rules they cannot say).

export const ContentType = coded(
  z
    .string()
    .regex(MEDIA_TYPE)
    .refine((value) => Buffer.byteLength(value) <= MAX_CONTENT_TYPE_BYTES)
    .openapi({
      description: `a media type (type/subtype with optional ;param=value), at most ${MAX_CONTENT_TYPE_BYTES} bytes`,
      example: "text/plain;charset=utf-8",
    }),
  "INVALID_CONTENT_TYPE",
  () =>
    `content_type must be a media type such as "image/png" or "text/plain;charset=utf-8", at most ${MAX_CONTENT_TYPE_BYTES} bytes`,
);

export const Action = coded(
  z.string().min(1).nullable().optional().openapi({
    description: "a registered ACTION (GET /standard) whose content types include content_type; absent or null: none",
    example: "LAUNCHPAD_MINT",
  }),
  "INVALID_ACTION",
  () => "action must be a non-empty string when given",
);

export const Content = coded(
  z.string().openapi({
    description:
      'the payload: UTF-8 text, or canonical base64 with encoding "base64"; not empty, at most the inscriber\'s payload limit (GET /standard limits.max_payload_bytes)',
  }),
  "INVALID_CONTENT",
  () => "content must be a string",
);

export const Encoding = coded(
  z.enum(["utf8", "base64"]).optional().openapi({ description: "how content is written (default utf8)" }),
  "INVALID_ENCODING",
  () => 'encoding must be "utf8" or "base64"',
);

export const Form = coded(
  z.enum(["v1", "doginals"]).nullable().optional().openapi({
    description:
      "the envelope form; default: DRC-20 plain text goes out as Doginals, everything else in the v1 envelope. Doginals takes no ACTION",
  }),
  "INVALID_FORM",
  () => 'form must be "v1" or "doginals"',
);

/** An address of `network` to inscribe onto. */
export const Recipient = (network: DogeNetwork) => Address(network);

// ---------------------------------------------------------------------------------------------
// Bodies.

export function inscribeBody(network: DogeNetwork) {
  return z
    .object({
      project: ProjectName,
      content_type: ContentType,
      action: Action,
      form: Form,
      encoding: Encoding,
      content: Content,
      recipient: Recipient(network),
    })
    .strict()
    .openapi("InscribeRequest");
}

export function prepareBody(network: DogeNetwork) {
  return z
    .object({
      // The user's P2PKH address: its confirmed outputs fund the commit, change returns to it.
      address: Address(network),
      public_key: PublicKey,
      content_type: ContentType,
      action: Action,
      form: Form,
      encoding: Encoding,
      content: Content,
      recipient: Recipient(network)
        .optional()
        .openapi({ description: "where the inscription goes (default: address)" }),
    })
    .strict()
    .openapi("PrepareRequest");
}

export const SignedPsbtBody = z.object({ psbt: Psbt }).strict().openapi("SignedPsbt");

// ---------------------------------------------------------------------------------------------
// Answers.

export const Standard = z
  .object({
    envelope_version: z.literal(1),
    protocol_id: z.string(),
    forms: z.object({
      v1: z.object({ chunk_bytes: z.int(), max_redeem_script_bytes: z.int(), layout: z.string() }),
      doginals: z.object({ chunk_bytes: z.int(), used_for: z.string() }),
    }),
    actions: z.array(
      z.object({
        name: z.string().openapi({ description: "the ACTION, or a family PREFIX_* that takes any PREFIX_<NAME>" }),
        content_types: z.array(z.string()).openapi({ description: "exact media types, or type/*" }),
        meaning: z.string(),
        group: z.enum(["drc20", "marketplace", "rwa", "launchpad", "bridge", "zkp"]),
      }),
    ),
    limits: z.object({ max_payload_bytes: z.int().min(1) }),
    fees: z.object({ fee_rate_koinu_per_kb: DecimalString, postage_koinu: DecimalString }),
  })
  .openapi("Standard");

export const Job = z
  .object({
    id: z.string().regex(JOB_ID),
    project: z.string(),
    status: z.enum(["queued", "committed", "revealed", "confirmed", "failed"]),
    form: FormOut,
    content_type: z.string(),
    action: z.string().nullable(),
    content_size: z.int().min(1),
    recipient: z.string(),
    envelope_hash: z.string().regex(/^[0-9a-f]{64}$/),
    commit_txid: TXID.nullable(),
    reveal_txids: z.array(TXID),
    inscription_id: InscriptionIdOut.nullable(),
    fee_koinu: DecimalString.nullable().openapi({ description: "commit plus reveals, once signed" }),
    confirmed_height: z.int().nullable(),
    error: z.object({ code: z.string(), message: z.string().nullable() }).nullable().openapi({
      description:
        "on a live job why it waits (WAITING_FOR_FUNDS, RETRYING, REFUNDED_ROUND); on a failed job the reason",
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi("InscriberJob");

const Preparation = z.object({
  id: z.string().regex(PREPARE_ID),
  status: z.enum(["awaiting_commit_signature", "awaiting_reveal_signature", "complete", "expired"]),
  address: z.string(),
  recipient: z.string(),
  content_type: z.string(),
  action: z.string().nullable(),
  form: FormOut,
  envelope_hash: z.string().regex(/^[0-9a-f]{64}$/),
  reveal_count: z.int().min(1),
  reveal_inputs: z.int().min(1),
  postage_koinu: DecimalString,
  reveal_fees_koinu: z.array(DecimalString),
  commit_outputs: z.array(z.object({ script_hex: HEX, value_koinu: DecimalString })),
  commit_txid: TXID.nullable(),
  reveal_txids: z.array(TXID),
  inscription_id: InscriptionIdOut.nullable(),
  transactions: z
    .array(HEX)
    .openapi({ description: "the signed transactions to hand to the explorer, in order (commit first)" }),
  expires_at: Timestamp,
});

const RevealPsbt = z
  .object({ index: z.int().min(0), psbt: z.string() })
  .openapi("RevealPsbt", { description: "the unsigned PSBT of reveal `index`" });

export const PreparedAnswer = Preparation.extend({
  commit: z.object({
    psbt: z.string(),
    fee_koinu: DecimalString,
    inputs: z.array(z.object({ txid: TXID, vout: z.int().min(0), value_koinu: DecimalString })),
    change_koinu: DecimalString,
  }),
}).openapi("Prepared");

export const PreparationAnswer = Preparation.extend({
  next_reveal: orNull(RevealPsbt).openapi({
    description: "the PSBT awaited next, while a reveal signature is awaited",
  }),
}).openapi("Preparation");

export const CommittedAnswer = Preparation.extend({
  commit: z.object({ txid: TXID, hex: HEX }),
  next_reveal: RevealPsbt,
}).openapi("Committed");

export const RevealedAnswer = Preparation.extend({
  reveal: z.object({ index: z.int().min(0), txid: TXID, hex: HEX }),
  next_reveal: orNull(RevealPsbt).openapi({ description: "the next link of a Doginals chain, or null when complete" }),
}).openapi("Revealed");
