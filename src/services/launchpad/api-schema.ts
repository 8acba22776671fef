/**
 * The launchpad API's requests and records as zod schemas: its OpenAPI document (GET /openapi.json)
 * is generated from these and from the route declarations in ./app.ts, and the request schemas
 * validate what the routes take (each refuses with the error code its field had before the
 * schemas, DESIGN.md section 6). Every launchpad amount is koinu as a decimal string.
 */
import { DogeNetwork, decodeAddress } from "../../doge";
import { LAUNCHPAD_CONTENT_TYPE, LAUNCHPAD_SLUG_PATTERN, parseLaunchpadBody } from "../../inscription/launchpad";
import { coded, queryInteger, z } from "../http/openapi";
import { Cursor, Txid } from "../http/validation";
import { MAX_COLLECTION_SIZE, MAX_PRICE_KOINU } from "./collections";

// ---------------------------------------------------------------------------------------------
// Request fields.

const SLUG_MESSAGE = (field: string) => `${field} must be 1 to 64 of a-z, 0-9 and inner hyphens`;

/** A collection's slug: 1 to 64 of a-z, 0-9 and inner hyphens. */
export const Slug = coded(
  z
    .string()
    .regex(LAUNCHPAD_SLUG_PATTERN)
    .openapi({ description: "a collection's slug: 1 to 64 of a-z, 0-9 and inner hyphens", example: "much-pups" }),
  "INVALID_SLUG",
  SLUG_MESSAGE,
);

/** Whether `value` decodes as an address of `network` (any type). */
function isAddress(value: string, network: DogeNetwork): boolean {
  try {
    decodeAddress(value, network);
    return true;
  } catch {
    return false;
  }
}

/** An address of the network; `description` says which kind the route wants. */
function address(network: DogeNetwork, description: string) {
  return coded(
    z
      .string()
      .refine((value) => isAddress(value, network))
      .openapi({ description, example: "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L" }),
    "INVALID_ADDRESS",
    (field) => `${field} is not a ${network.name} address`,
  );
}

const PRICE = /^(?:0|[1-9][0-9]{0,19})$/;

/** A canonical decimal string of koinu, 0 to MAX_PRICE_KOINU (1,000,000 DOGE). */
export const PriceKoinu = coded(
  z
    .string()
    .refine((value) => PRICE.test(value) && BigInt(value) <= MAX_PRICE_KOINU)
    .transform((value) => BigInt(value))
    .openapi({
      type: "string",
      pattern: PRICE.source,
      description: `the price of one mint in koinu, a decimal string without sign or leading zeros, 0 to ${MAX_PRICE_KOINU} (1,000,000 DOGE); 0 lists a free collection`,
      example: "100000000",
    }),
  "INVALID_PRICE",
  (field) => `${field} must be a decimal string of koinu without sign or leading zeros, at most ${MAX_PRICE_KOINU}`,
  (field) => ({ field, max_koinu: MAX_PRICE_KOINU.toString() }),
);

export const MaxSupply = coded(
  z
    .number()
    .int()
    .min(1)
    .max(MAX_COLLECTION_SIZE)
    .openapi({ description: "how many items the collection has (indices 0 to max - 1)", example: 100 }),
  "INVALID_MAX",
  (field) => `${field} must be an integer from 1 to ${MAX_COLLECTION_SIZE}`,
  (field) => ({ field, min: 1, max: MAX_COLLECTION_SIZE }),
);

/** The name rule is the deploy body's (src/inscription/launchpad.ts), checked by parsing a deploy body. */
const validName = (value: string): boolean =>
  parseLaunchpadBody(
    new TextEncoder().encode(
      JSON.stringify({ p: "service", op: "LAUNCHPAD_DEPLOY", slug: "x", name: value, price: "0", max: "1" }),
    ),
    LAUNCHPAD_CONTENT_TYPE,
  ).ok;

export const CollectionName = coded(
  z
    .string()
    .refine(validName)
    .openapi({ description: "1 to 128 characters without control characters", example: "Much Pups" }),
  "INVALID_NAME",
  (field) => `${field} must be 1 to 128 characters without control characters`,
);

export const ReservationId = coded(
  z.number().int().min(1).openapi({ description: "the reservation_id a claim answered" }),
  "INVALID_RESERVATION_ID",
  (field) => `${field} must be the positive integer the claim answered`,
);

/** A token index in a path: decimal digits without leading zeros. */
export const TokenIndexParam = coded(
  z
    .string()
    .regex(/^(?:0|[1-9][0-9]{0,6})$/)
    .transform(Number)
    .openapi({ type: "integer", minimum: 0, maximum: 9_999_999, description: "a token index" }),
  "INVALID_INDEX",
  (field) => `${field} must be a decimal token index`,
);

const SIGNATURE = /^[A-Za-z0-9+/]{86}[A-Za-z0-9+/=]{2}$/;
const PUBLIC_KEY = /^(02|03)[0-9a-fA-F]{64}$/;

export const SlugParams = z.object({ slug: Slug });

/** The request schemas that depend on the daemon's network (addresses). */
export function launchpadRequests(network: DogeNetwork) {
  const signer = address(
    network,
    "a P2PKH address of the daemon's network (only a key signs the challenge; a script address is refused with ADDRESS_NOT_PUBKEYHASH)",
  );
  return {
    ChallengeQuery: z.object({ address: signer }),
    SignIn: z
      .object({
        address: signer,
        challenge: coded(
          z.string().min(1).max(1024).openapi({ description: "the exact text GET /api/session/challenge answered" }),
          "INVALID_CHALLENGE",
          () => "challenge must be the text GET /api/session/challenge answered",
        ),
        signature: coded(
          z.string().regex(SIGNATURE).openapi({
            description:
              "the Dogecoin message signature of the challenge text by the address's key: base64 of 65 bytes (compact)",
          }),
          "INVALID_SIGNATURE_FORMAT",
          () => "signature must be a base64 compact message signature (65 bytes)",
        ),
      })
      .strict()
      .openapi("SignIn"),
    CollectionsQuery: z.object({ limit: queryInteger(1, 500).optional(), cursor: Cursor.optional() }),
    NewCollection: z
      .object({
        slug: Slug,
        name: CollectionName,
        price_koinu: PriceKoinu,
        max: MaxSupply,
        creator_address: address(network, "the creator, who receives the payments: must be the signed-in address"),
      })
      .strict()
      .openapi("NewCollection"),
    MintRequest: z
      .object({
        reservation_id: ReservationId,
        // A union, not Txid.nullable(): the document would lose the null (Txid names its own type).
        payment_txid: coded(
          z
            .union([Txid, z.null()])
            .openapi({ description: "the payment's txid, for a priced collection (omit or null for a free one)" }),
          "INVALID_TXID",
          (field) => `${field} must be 64 hexadecimal characters`,
        ).optional(),
      })
      .strict()
      .openapi("MintRequest"),
    PaymentPsbtRequest: z
      .object({
        reservation_id: ReservationId,
        public_key: coded(
          z.string().regex(PUBLIC_KEY).openapi({
            description: "the session address's compressed secp256k1 public key, 66 hexadecimal characters",
          }),
          "INVALID_PUBLIC_KEY",
          () => "public_key must be a compressed secp256k1 public key (66 hexadecimal characters)",
        ),
      })
      .strict()
      .openapi("PaymentPsbtRequest"),
    SignedPaymentRequest: z
      .object({
        reservation_id: ReservationId,
        psbt: coded(
          z
            .string()
            .min(1)
            .openapi({ description: "the payment PSBT (base64), every input signed by the session's key" }),
          "INVALID_PSBT",
          () => "psbt must be a base64 string",
        ),
      })
      .strict()
      .openapi("SignedPaymentRequest"),
    MembershipQuery: z.object({ address: address(network, "the address whose tokens count") }),
  };
}

// ---------------------------------------------------------------------------------------------
// Records.

const KoinuString = z
  .string()
  .regex(/^(0|[1-9][0-9]*)$/)
  .openapi({ description: "koinu as a decimal string (1 DOGE = 100,000,000 koinu)", example: "100000000" });
const Seconds = z.number().int().openapi({ description: "unix seconds" });
const AddressOut = z.string().openapi({ description: "a Dogecoin address" });
const TxidOut = z.string().regex(/^[0-9a-f]{64}$/);

export const Challenge = z
  .object({
    address: AddressOut,
    nonce: z.string().regex(/^[0-9a-f]{32}$/),
    challenge: z
      .string()
      .openapi({ description: "the text to sign, exactly (several lines, the last an HMAC of the others)" }),
    expires_at: Seconds,
  })
  .openapi("Challenge");

export const SessionCreated = z
  .object({
    token: z.string().openapi({ description: "the Bearer token (stored only as its SHA-256)" }),
    token_type: z.literal("Bearer"),
    address: AddressOut,
    expires_at: Seconds,
  })
  .openapi("SessionCreated");

export const Session = z.object({ address: AddressOut, expires_at: Seconds }).openapi("Session");

export const Collection = z
  .object({
    slug: z.string(),
    name: z.string(),
    price_koinu: KoinuString,
    max: z.number().int().min(1),
    minted: z.number().int().min(0).openapi({ description: "items whose mint confirmed" }),
    creator_address: AddressOut,
    listed_by: AddressOut,
    created_at: Seconds,
    deploy: z.object({
      status: z.enum(["pending", "submitted", "indexed", "failed"]).openapi({
        description:
          "pending until the inscriber takes the LAUNCHPAD_DEPLOY job (no inscriber, or it could not be reached: see error; submitted again); submitted while the job runs and until the index holds this deploy as the slug's at the payment depth; indexed: the collection takes claims and payments; failed for good (the job failed, or another deploy holds the slug on chain: see error), no claim ever",
      }),
      job_id: z.string().nullable(),
      inscription_id: z.string().nullable(),
      error: z.string().nullable().openapi({ description: "why the deploy is pending or failed; null otherwise" }),
    }),
  })
  .openapi("Collection");

export const CollectionPage = z
  .object({
    items: z.array(Collection),
    next_cursor: z
      .string()
      .nullable()
      .openapi({ description: "pass as `cursor` for the next page; null on the last page" }),
  })
  .openapi("CollectionPage");

export const MintBody = z
  .object({
    p: z.string(),
    op: z.literal("LAUNCHPAD_MINT"),
    slug: z.string(),
    id: z.string().openapi({ description: "the token index, decimal" }),
    max: z.string().openapi({ description: "the collection's max, decimal" }),
  })
  .openapi("MintBody", { description: "the exact LAUNCHPAD_MINT body of one index (DESIGN.md 4.3)" });

export const CollectionDetail = Collection.extend({
  mint_body_example: z.object({ content_type: z.string(), action: z.literal("LAUNCHPAD_MINT"), body: MintBody }),
}).openapi("CollectionDetail");

export const Payment = z
  .object({
    txid: TxidOut,
    payer_address: z.string().nullable(),
    received_koinu: KoinuString,
    price_koinu: KoinuString,
    status: z.enum(["accepted", "underpaid", "late", "duplicate", "mint_failed", "mint_rejected"]),
    settlement: z
      .object({
        reason: z.enum([
          "UNDERPAID",
          "RESERVATION_EXPIRED",
          "RESERVATION_USED",
          "OVERPAID",
          "MINT_FAILED",
          "MINT_REJECTED",
        ]),
        owed_koinu: KoinuString,
        owed_by: AddressOut.openapi({ description: "the creator, who received the payment and settles it" }),
        owed_to: z.string().nullable(),
      })
      .nullable()
      .openapi({ description: "what the creator owes the payer back; null: nothing" }),
  })
  .openapi("Payment");

export const Reservation = z
  .object({
    reservation_id: z.number().int().min(1),
    slug: z.string(),
    index: z.number().int().min(0),
    address: AddressOut,
    status: z.literal("active"),
    reserved_at: Seconds,
    expires_at: Seconds,
    mint_body: MintBody,
    owed_payments: z.array(Payment).openapi({
      description: "the claimant's recorded payments on this collection that the creator owes something back for",
    }),
  })
  .openapi("Reservation");

export const Claim = Reservation.extend({
  created: z.boolean().openapi({ description: "false when the address already held this live reservation" }),
}).openapi("Claim");

export const Mint = z
  .object({
    slug: z.string(),
    index: z.number().int().min(0),
    status: z.enum(["accepted", "submitted", "revealed", "confirmed", "failed", "rejected_by_index"]).openapi({
      description:
        "confirmed (and counted in minted) only once the index judges the inscription a member token at the claimant's address; rejected_by_index when it judges it none (see index_reason; the payment is owed back by the creator, MINT_REJECTED)",
    }),
    address: AddressOut,
    reservation_id: z.number().int().min(1),
    attempt: z.number().int().min(1),
    inscriber_job_id: z.string().nullable(),
    payment_txid: TxidOut.nullable(),
    inscription_id: z.string().nullable(),
    mint_txid: TxidOut.nullable(),
    error: z.string().nullable(),
    index_reason: z.string().nullable().openapi({
      description:
        "the index's reason when it judged the inscription no member (ALREADY_MINTED, WRONG_INSCRIBER, ...); null otherwise",
    }),
    // A union, not Payment.nullable(), which the generator writes as allOf [Payment, object or null].
    payment: z
      .union([Payment, z.null()])
      .openapi({ description: "the payment this mint used; null for a free collection" }),
    created_at: Seconds,
    updated_at: Seconds,
  })
  .openapi("Mint");

export const MintAccepted = Mint.extend({
  created: z.boolean().openapi({ description: "false when this reservation's mint already existed" }),
}).openapi("MintAccepted");

export const PaymentPsbt = z
  .object({
    reservation_id: z.number().int().min(1),
    index: z.number().int().min(0),
    psbt: z.string().openapi({ description: "the unsigned PSBT, base64" }),
    fee_koinu: KoinuString,
    inputs: z.array(z.object({ txid: TxidOut, vout: z.number().int().min(0), value_koinu: KoinuString })),
    outputs: z.array(
      z.object({
        index: z.number().int().min(0),
        kind: z.enum(["price", "op_return", "change"]),
        address: AddressOut.optional().openapi({
          description: "the creator (price) or the claimant (change); absent on the op_return output",
        }),
        op_return: z
          .string()
          .optional()
          .openapi({ description: "the memo service-launch-mint:<slug>:<index>, on the op_return output only" }),
        value_koinu: KoinuString,
      }),
    ),
    expires_at: Seconds,
  })
  .openapi("PaymentPsbt");

export const SignedPayment = z
  .object({
    txid: TxidOut,
    hex: z
      .string()
      .regex(/^([0-9a-f]{2})+$/)
      .openapi({ description: "the finalised transaction, for the explorer's broadcast" }),
  })
  .openapi("SignedPayment");

export const Membership = z
  .object({
    slug: z.string(),
    address: AddressOut,
    member: z.boolean(),
    tokens: z.array(
      z.object({
        token_id: z.string(),
        inscription_id: z.string(),
        location: z.object({ txid: TxidOut, vout: z.number().int().min(0), offset: z.number().int().min(0) }),
      }),
    ),
    collection_indexed: z
      .boolean()
      .openapi({ description: "whether the index holds the collection's deploy (false until it confirms)" }),
    indexed_height: z.number().int().nullable(),
  })
  .openapi("Membership");

export const MembersOnly = z
  .object({
    slug: z.string(),
    name: z.string(),
    address: AddressOut,
    tokens: z.array(z.object({ token_id: z.string(), inscription_id: z.string() })),
    message: z.string(),
  })
  .openapi("MembersOnly");

export const PagesConfig = z
  .object({
    network: z.string(),
    explorer_url: z
      .string()
      .nullable()
      .openapi({ description: "the explorer's public base URL, where pages broadcast payments" }),
    development_wallet: z
      .boolean()
      .openapi({ description: "whether /wallet-provider.js installs the development wallet" }),
  })
  .openapi("PagesConfig");
