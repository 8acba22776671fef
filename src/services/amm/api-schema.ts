/**
 * The AMM's and its bonding curves' HTTP contract as zod schemas (one document for the daemon: GET
 * /openapi.json): the requests the routes of ./app.ts and ./bonding-app.ts take, each field refused
 * with the error code it had before the schemas (docs/api.md "AMM"), and the records they answer.
 * Every amount is a decimal string of base units (koinu, whole DRC-20 units); times are unix seconds.
 *
 * Some rules stay with the handlers, as the schemas cannot say them: an amount's range and the
 * code of each way to miss it (ledger.ts parseAmount: AMOUNT_NEGATIVE, AMOUNT_NOT_INTEGER,
 * AMOUNT_ZERO, AMOUNT_TOO_LARGE), exactly one of amountIn and amountOut (AMOUNT_REQUIRED), a
 * missing signature (SIGNATURE_REQUIRED: the field is documented as required) and the fields each
 * action of GET /auth/message needs.
 */
import type { DogeNetwork } from "../../doge";
import { DecimalString, coded, queryInteger, z } from "../http/openapi";
import { Address, Cursor, Tick, Txid } from "../http/validation";
import { badRequest } from "../http/errors";

// ---------------------------------------------------------------------------------------------
// Request fields.

const AMOUNT_PATTERN = "^[1-9][0-9]{0,38}$";

/**
 * An amount in a request: a string, parsed by the handler (ledger.ts parseAmount), which answers
 * each way to miss [1, 2^128 - 1] with its own code; anything but a string is INVALID_AMOUNT.
 */
export function amount(description = "base units (koinu, or whole DRC-20 units) as a decimal string, 1 to 2^128 - 1") {
  return coded(
    z.string().openapi({ type: "string", pattern: AMOUNT_PATTERN, description, example: "1000000000" }),
    "INVALID_AMOUNT",
    (field) => `${field} must be a decimal string of base units`,
  );
}
export const Amount = amount();

export const Direction = coded(
  z
    .enum(["DOGE_TO_TOKEN", "TOKEN_TO_DOGE"])
    .openapi({ description: "DOGE_TO_TOKEN: DOGE in, the token out; TOKEN_TO_DOGE: the reverse" }),
  "INVALID_DIRECTION",
  (field) => `${field} must be DOGE_TO_TOKEN or TOKEN_TO_DOGE`,
);

export const Side = coded(
  z.enum(["BUY", "SELL"]).openapi({ description: "BUY: DOGE in, tokens out; SELL: tokens in, DOGE out" }),
  "INVALID_SIDE",
  (field) => `${field} must be BUY or SELL`,
);

const SLIPPAGE_MESSAGE = (field: string) => `${field} must be an integer from 0 to 10000`;
/** Slippage in basis points (default 50), in a JSON body. */
export const SlippageBps = coded(
  z
    .number()
    .int()
    .min(0)
    .max(10_000)
    .openapi({ description: "basis points the output may fall short of the quote (default 50)", example: 50 }),
  "INVALID_SLIPPAGE",
  SLIPPAGE_MESSAGE,
);
/** The same in a query string. */
export const SlippageQuery = queryInteger(0, 10_000, "INVALID_SLIPPAGE");

/** A quote's id carries its terms (ledger.ts quoteId). */
export const QuoteId = coded(
  z
    .string()
    .regex(/^qt_[A-Za-z0-9_-]{1,800}\.[A-Za-z0-9_-]{22}$/)
    .openapi({ description: "a quote's id (qt_, its terms and their MAC)" }),
  "INVALID_QUOTE_ID",
  (field) => `${field} must be a qt_ id`,
);

/** An id of the form <prefix>_ and 24 hexadecimal digits, refused with `code`. */
function prefixedId(prefix: string, code: string, what: string) {
  return coded(
    z
      .string()
      .regex(new RegExp(`^${prefix}_[0-9a-f]{24}$`))
      .openapi({
        description: `${what} (${prefix}_ and 24 hexadecimal digits)`,
        example: `${prefix}_0123456789abcdef01234567`,
      }),
    code,
    (field) => `${field} must be a ${prefix}_ id`,
  );
}
export const SwapId = prefixedId("swp", "INVALID_SWAP_ID", "a swap's id");
export const PayoutId = prefixedId("pay", "INVALID_PAYOUT_ID", "a payout's id");
export const ReservationId = prefixedId("rsv", "INVALID_RESERVATION_ID", "a bonding reservation's id");

/** A base64 compact Dogecoin message signature (65 bytes: 88 characters). */
export const Signature = coded(
  z
    .string()
    .regex(/^[A-Za-z0-9+/]{86}[A-Za-z0-9+/=]{2}$/)
    .openapi({
      description:
        "the payer's base64 compact Dogecoin message signature (what signmessage makes) of the text GET /api/auth/message answers",
    }),
  "INVALID_SIGNATURE_FORMAT",
  (field) =>
    `${field} must be the payer's base64 compact Dogecoin message signature of the order message (GET /api/auth/message)`,
);

/** SIGNATURE_REQUIRED when a body has no signature (its schema leaves the field optional to answer that code). */
export function signatureOf(value: string | undefined, field = "signature"): string {
  if (value === undefined)
    throw badRequest(
      "SIGNATURE_REQUIRED",
      `${field} must be the payer's base64 compact Dogecoin message signature of the order message (GET /api/auth/message)`,
      { field },
    );
  return value;
}

export const Nonce = coded(
  z
    .string()
    .regex(/^[A-Za-z0-9_-]{8,64}$/)
    .openapi({ description: "used once per address: 8 to 64 of A-Z a-z 0-9 _ -", example: "claim-nonce-0001" }),
  "INVALID_NONCE",
  (field) => `${field} must be 8 to 64 characters of A-Z a-z 0-9 _ -`,
);

const EXPIRY_MESSAGE = (field: string) => `${field} must be unix seconds`;
/** Unix seconds, in a JSON body. */
export const ExpiresAt = coded(
  z.number().int().positive().openapi({
    description: "when the authorization expires, unix seconds (at most 3,600 s ahead)",
    example: 1790000000,
  }),
  "INVALID_EXPIRY",
  EXPIRY_MESSAGE,
);
/** Unix seconds, in a query string. */
export const ExpiresAtQuery = coded(
  z
    .string()
    .regex(/^[0-9]{1,12}$/)
    .transform(Number)
    .pipe(z.number().int().positive())
    .openapi({ type: "integer", minimum: 1, description: "unix seconds" }),
  "INVALID_EXPIRY",
  EXPIRY_MESSAGE,
);

export const PayoutAssetField = coded(
  z.enum(["DOGE", "DRC20"]),
  "INVALID_ASSET",
  (field) => `${field} must be DOGE or DRC20`,
);

/**
 * A JSON body with a payer's signature: unknown fields refused; `signature` is documented as
 * required but parsed as optional, so that its absence answers SIGNATURE_REQUIRED (signatureOf).
 */
function signedBody<T extends z.ZodRawShape>(name: string, shape: T) {
  const schema = z.object({ ...shape, signature: Signature.optional() }).strict();
  const required = Object.entries(shape)
    .filter(([, field]) => !(field as z.ZodType).safeParse(undefined).success)
    .map(([key]) => key);
  return schema.openapi(name, { required: [...required, "signature"] });
}

// ---------------------------------------------------------------------------------------------
// Requests (the ones with an address depend on the daemon's network).

const AMOUNTS = {
  amountIn: amount("exact in: what is paid in, base units as a decimal string (give this or amountOut)").optional(),
  amountOut: amount(
    "exact out: what should come out, base units as a decimal string (give this or amountIn)",
  ).optional(),
};

export const QuoteQuery = z
  .object({ tick: Tick, direction: Direction, ...AMOUNTS, slippageBps: SlippageQuery.optional() })
  .strict();
export const QuoteBody = z
  .object({ tick: Tick, direction: Direction, ...AMOUNTS, slippageBps: SlippageBps.optional() })
  .strict()
  .openapi("QuoteRequest");
export type QuoteFields = z.output<typeof QuoteQuery> | z.output<typeof QuoteBody>;

export const SwapExecuteBody = signedBody("SwapExecuteRequest", { swapId: SwapId, depositTxid: Txid });
export const ConfirmBody = signedBody("BondingConfirmRequest", { reservationId: ReservationId, depositTxid: Txid });
export const BondingQuoteBody = z
  .object({ symbol: Tick, side: Side, ...AMOUNTS })
  .strict()
  .openapi("BondingQuoteRequest");
const LAUNCH_TERMS = {
  symbol: Tick,
  totalSupply: amount("T: every token, whole units (at most 2^64 - 1; the tick's max on chain)"),
  sellableSupply: amount("S: the tokens sold on the curve, whole units (S < T)"),
  virtualDoge: amount("V: the virtual DOGE reserve, koinu"),
  graduationThreshold: amount("G: the real DOGE that graduates the curve, koinu (G <= V x S)"),
};
export const SupplyBody = signedBody("BondingSupplyRequest", { depositTxid: Txid });

export const ACTIONS = [
  "execute-swap",
  "add-liquidity",
  "refund-deposit",
  "remove-liquidity",
  "claim-fees",
  "bonding-reserve",
  "bonding-confirm",
  "bonding-launch",
  "bonding-supply",
] as const;
export type Action = (typeof ACTIONS)[number];
const ACTION_MESSAGE = (field: string) => `${field} must be one of ${ACTIONS.join(", ")}`;

/** The requests that name an address of `network`. */
function requestsOf(network: DogeNetwork) {
  const address = Address(network);
  const authorization = { address, nonce: Nonce, expiresAt: ExpiresAt };
  return {
    address,
    SwapCreateBody: z.object({ quoteId: QuoteId, address }).strict().openapi("SwapCreateRequest"),
    LiquidityAddBody: signedBody("LiquidityAddRequest", {
      tick: Tick,
      address,
      dogeTxid: Txid,
      tokenTxid: Txid,
      minShares: Amount.optional(),
    }),
    LiquidityRemoveBody: signedBody("LiquidityRemoveRequest", { tick: Tick, shares: Amount, ...authorization }),
    ClaimFeesBody: signedBody("ClaimFeesRequest", authorization),
    RefundBody: signedBody("DepositRefundRequest", {
      asset: PayoutAssetField,
      tick: Tick.optional(),
      address,
      depositTxid: Txid,
    }),
    LaunchBody: signedBody("BondingLaunchRequest", {
      ...LAUNCH_TERMS,
      /** The launcher: signs the launch (bonding-launch), deploys and mints the tick, deposits the supply. */
      launcher: address,
      nonce: Nonce,
      expiresAt: ExpiresAt,
    }),
    ReserveBody: signedBody("BondingReserveRequest", {
      side: Side,
      address,
      amountIn: Amount,
      minAmountOut: Amount.optional(),
      nonce: Nonce,
      expiresAt: ExpiresAt,
    }),
    /** Every field any action takes; which ones an action needs is the handler's (`need`). */
    AuthMessageQuery: z.object({
      action: coded(z.enum(ACTIONS), "INVALID_ACTION", ACTION_MESSAGE),
      swapId: SwapId.optional(),
      depositTxid: Txid.optional(),
      tick: Tick.optional(),
      address: address.optional(),
      dogeTxid: Txid.optional(),
      tokenTxid: Txid.optional(),
      minShares: Amount.optional(),
      shares: Amount.optional(),
      asset: PayoutAssetField.optional(),
      nonce: Nonce.optional(),
      expiresAt: ExpiresAtQuery.optional(),
      symbol: Tick.optional(),
      side: Side.optional(),
      amountIn: Amount.optional(),
      minAmountOut: Amount.optional(),
      reservationId: ReservationId.optional(),
      totalSupply: Amount.optional(),
      sellableSupply: Amount.optional(),
      virtualDoge: Amount.optional(),
      graduationThreshold: Amount.optional(),
    }),
  };
}

const REQUESTS = new Map<string, ReturnType<typeof requestsOf>>();
/** The requests of a daemon on `network` (made once per network). */
export function requests(network: DogeNetwork): ReturnType<typeof requestsOf> {
  let made = REQUESTS.get(network.name);
  if (!made) REQUESTS.set(network.name, (made = requestsOf(network)));
  return made;
}

export type AuthMessageQuery = z.output<ReturnType<typeof requestsOf>["AuthMessageQuery"]>;

/** The code a field of GET /auth/message is refused with when its action needs it and it is missing. */
const NEEDED: Record<string, string> = {
  swapId: "INVALID_SWAP_ID",
  depositTxid: "INVALID_TXID",
  tick: "INVALID_TICK",
  address: "INVALID_ADDRESS",
  dogeTxid: "INVALID_TXID",
  tokenTxid: "INVALID_TXID",
  shares: "INVALID_AMOUNT",
  asset: "INVALID_ASSET",
  nonce: "INVALID_NONCE",
  expiresAt: "INVALID_EXPIRY",
  symbol: "INVALID_TICK",
  side: "INVALID_SIDE",
  amountIn: "INVALID_AMOUNT",
  reservationId: "INVALID_RESERVATION_ID",
  totalSupply: "INVALID_AMOUNT",
  sellableSupply: "INVALID_AMOUNT",
  virtualDoge: "INVALID_AMOUNT",
  graduationThreshold: "INVALID_AMOUNT",
};

/** `query[key]`, which the action needs: a 400 with the field's code when it is missing. */
export function need<K extends keyof AuthMessageQuery>(
  query: AuthMessageQuery,
  key: K,
): NonNullable<AuthMessageQuery[K]> {
  const value = query[key];
  if (value === undefined || value === null)
    throw badRequest(
      NEEDED[key as string] ?? "MISSING_FIELD",
      `${String(key)} is required for action ${query.action}`,
      { field: key },
    );
  return value as NonNullable<AuthMessageQuery[K]>;
}

// ---------------------------------------------------------------------------------------------
// Path parameters.

export const PairParams = z.object({
  tokenA: z.string().openapi({ description: "a DRC-20 tick or DOGE", example: "WOOF" }),
  tokenB: z.string().openapi({ description: "DOGE or a DRC-20 tick", example: "DOGE" }),
});
export const SymbolParams = z.object({ symbol: Tick });

// ---------------------------------------------------------------------------------------------
// Answers.

const Unix = z.number().int().openapi({ description: "unix seconds" });
const Price = z
  .string()
  .regex(/^[0-9]+(\.[0-9]{1,8})?$/)
  .openapi({
    description: "koinu per whole token, a decimal string with at most 8 fraction digits, rounded down",
    example: "200000",
  });
/** A difference of base units that may be negative, as a decimal string. */
const SignedDecimalString = z
  .string()
  .regex(/^-?(0|[1-9][0-9]*)$/)
  .openapi({
    description: "base units as a decimal string; negative when the payout's cost is more than the trade pays",
  });
const ErrorRecord = z.object({ code: z.string(), message: z.string() }).openapi("RecordError");
const DogeFee = z.literal("DOGE").openapi({ description: "every fee is in DOGE" });

export const Payout = z
  .object({
    id: z.string().openapi({ example: "pay_0123456789abcdef01234567" }),
    asset: z.enum(["DOGE", "DRC20"]),
    tick: z.string().nullable(),
    address: z.string(),
    amount: DecimalString,
    reason: z.string().openapi({
      description:
        "swap, swap_refund:<CODE>, liquidity_excess, liquidity_remove, fee_claim, deposit_refund, bonding_buy, bonding_sell, bonding_excess, bonding_refund:<CODE>, ...",
    }),
    status: z.enum(["queued", "inscribing", "inscribed", "sent", "confirmed", "below_dust", "failed", "frozen"]),
    txid: z.string().nullable(),
    inscriptionId: z.string().nullable(),
    confirmedHeight: z.number().int().nullable(),
    error: z.string().nullable(),
    costKoinu: DecimalString.openapi({ description: "koinu the payout's order paid toward its cost" }),
  })
  .openapi("Payout");

export const Pool = z
  .object({
    tick: z.string(),
    dogeReserve: DecimalString,
    tokenReserve: DecimalString,
    lpSupply: DecimalString,
    feeBps: z.number().int(),
    priceKoinuPerToken: Price.nullable().openapi({
      description: "dogeReserve / tokenReserve (null for an empty pool)",
    }),
    feesCredited: DecimalString,
    feesClaimed: DecimalString,
  })
  .openapi("Pool");

const DepthStep = z.object({ amountIn: DecimalString, amountOut: DecimalString }).nullable();
export const PoolWithDepth = Pool.extend({
  depth: z
    .array(z.object({ bps: z.number().int(), dogeToToken: DepthStep, tokenToDoge: DepthStep }))
    .openapi({ description: "the smallest input that moves the price by at least `bps` each way, and what it buys" }),
}).openapi("PoolWithDepth");

export const Pools = z.object({ pools: z.array(Pool) }).openapi("Pools");

export const Quote = z
  .object({
    quoteId: z.string(),
    tick: z.string(),
    direction: z.enum(["DOGE_TO_TOKEN", "TOKEN_TO_DOGE"]),
    amountIn: DecimalString,
    amountOut: DecimalString,
    fee: DecimalString,
    feeAsset: DogeFee,
    slippageBps: z.number().int(),
    minAmountOut: DecimalString,
    priceImpactBps: z.number().int(),
    payoutCost: DecimalString,
    depositAmount: DecimalString,
    payoutAmount: DecimalString,
    createdAt: Unix,
    expiresAt: Unix,
  })
  .openapi("Quote");

export const Swap = z
  .object({
    swapId: z.string(),
    quoteId: z.string(),
    tick: z.string(),
    direction: z.enum(["DOGE_TO_TOKEN", "TOKEN_TO_DOGE"]),
    address: z.string(),
    status: z.enum(["created", "deposit_seen", "executed", "settled", "refunded", "expired", "failed"]),
    depositAddress: z.string(),
    depositAmount: DecimalString,
    payoutCost: DecimalString,
    depositAsset: z.string().openapi({ description: "DOGE or the tick" }),
    quotedOut: DecimalString,
    minAmountOut: DecimalString,
    expiresAt: Unix,
    depositTxid: z.string().nullable(),
    depositReceived: DecimalString.nullable(),
    amountOut: DecimalString.nullable(),
    fee: DecimalString.nullable(),
    feeAsset: DogeFee,
    ledgerSeq: z.number().int().nullable(),
    payout: Payout.nullable(),
    refund: Payout.nullable(),
    error: ErrorRecord.nullable(),
    createdAt: Unix,
    updatedAt: Unix,
  })
  .openapi("Swap");

export const SwapHistory = z
  .object({ address: z.string(), swaps: z.array(Swap), nextCursor: Cursor.nullable() })
  .openapi("SwapHistory");

export const PoolSwapsQuery = z.object({
  limit: queryInteger(1, 200).optional().openapi({ description: "page size, 1 to 200 (default 100)" }),
  order: z.enum(["asc", "desc"]).optional().openapi({ description: "desc: newest first (default); asc: oldest first" }),
  cursor: Cursor.optional(),
});

export const PoolSwap = z
  .object({
    swapId: z.string(),
    ledgerSeq: z.number().int().openapi({ description: "the pool ledger's sequence: swaps are in this order" }),
    address: z.string().openapi({ description: "the order's address (paid the tokens or DOGE out)" }),
    direction: z.enum(["DOGE_TO_TOKEN", "TOKEN_TO_DOGE"]),
    amountIn: DecimalString.openapi({ description: "what went into the pool (koinu or tokens), fee included" }),
    amountOut: DecimalString.openapi({ description: "what came out of the pool, before the payout's cost" }),
    fee: DecimalString.openapi({ description: "the pool's fee, koinu" }),
    priceKoinuPerToken: Price.openapi({
      description: "the trade's price: the DOGE side over the token side of amountIn and amountOut, fee included",
    }),
    spotAfterKoinuPerToken: Price.nullable().openapi({
      description: "dogeReserve / tokenReserve after this swap (null when the pool's token reserve was emptied)",
    }),
    dogeReserve: DecimalString.openapi({ description: "the pool's DOGE reserve after this swap" }),
    tokenReserve: DecimalString.openapi({ description: "the pool's token reserve after this swap" }),
    at: Unix.openapi({ description: "when the swap executed (its deposit was deep enough in the index)" }),
    depositTxid: Txid.nullable(),
    status: z.string().nullable().openapi({ description: "the order's status now (executed, settled)" }),
  })
  .openapi("PoolSwap");

export const PoolSwaps = z
  .object({ tick: z.string(), order: z.enum(["asc", "desc"]), swaps: z.array(PoolSwap), nextCursor: Cursor.nullable() })
  .openapi("PoolSwaps");

export const Positions = z
  .object({
    address: z.string(),
    positions: z.array(
      z.object({
        tick: z.string(),
        shares: DecimalString,
        lpSupply: DecimalString,
        doge: DecimalString,
        token: DecimalString,
        unclaimedFees: DecimalString,
      }),
    ),
  })
  .openapi("Positions");

export const Operation = z
  .object({
    operationId: z.string(),
    tick: z.string(),
    address: z.string(),
    kind: z
      .enum(["add", "remove", "seed"])
      .openapi({ description: "add, remove, or seed (a pool seeded by the operator or a graduating curve)" }),
    dogeTxid: z.string().nullable(),
    tokenTxid: z.string().nullable(),
    doge: DecimalString,
    token: DecimalString,
    shares: DecimalString,
    fees: DecimalString,
    ledgerSeq: z.number().int(),
    createdAt: Unix,
    payouts: z.array(Payout),
  })
  .openapi("LiquidityOperation");

export const Fees = z
  .object({
    address: z.string(),
    feeAsset: DogeFee,
    unclaimed: DecimalString,
    pools: z.array(z.object({ tick: z.string(), unclaimed: DecimalString })),
    claims: z.array(
      z.object({
        claimId: z.string(),
        amount: DecimalString,
        pools: z.array(z.string()),
        createdAt: Unix,
        payout: Payout.nullable(),
      }),
    ),
  })
  .openapi("Fees");

export const Claim = z
  .object({
    claimId: z.string(),
    address: z.string(),
    amount: DecimalString,
    feeAsset: DogeFee,
    pools: z.array(z.string()),
    payout: Payout.nullable(),
  })
  .openapi("FeeClaim");

export const Message = z
  .object({ message: z.string().openapi({ description: "the exact text to sign (lines joined by \\n)" }) })
  .openapi("SigningMessage");

export const Curve = z
  .object({
    symbol: z.string(),
    status: z.enum(["awaiting_supply", "active", "graduated", "failed"]).openapi({
      description:
        "awaiting_supply: waiting for the launcher's deposits of the whole supply; active: open for trading; graduated: in its AMM pool; failed: the launch did not complete (error says why)",
    }),
    depositAddress: z.string(),
    totalSupply: DecimalString,
    sellableSupply: DecimalString,
    launchVirtualDoge: DecimalString,
    graduationThreshold: DecimalString,
    feeBps: z.number().int(),
    virtualDoge: DecimalString,
    virtualToken: DecimalString,
    realDoge: DecimalString,
    realToken: DecimalString,
    tokensSold: DecimalString,
    feesCollected: DecimalString,
    reservedTokens: DecimalString,
    progressBps: z.number().int(),
    priceKoinuPerToken: Price,
    launcher: z.string().nullable().openapi({
      description: "the address that signed the launch and deposits the supply (null: launched before launchers)",
    }),
    supplyDeposited: DecimalString.openapi({
      description: "tokens the launcher's deposits bound to the launch so far (only the launcher's count)",
    }),
    supplyDeadline: Unix.nullable().openapi({
      description: "when a launch still short of its supply fails, unix seconds",
    }),
    refund: Payout.nullable().openapi({
      description: "a failed launch's bound supply, queued back to the launcher",
    }),
    graduation: z
      .object({
        poolDoge: DecimalString,
        poolToken: DecimalString,
        poolSeeded: z.boolean(),
        graduatedAt: Unix.nullable(),
        reservationId: z.string().nullable().openapi({
          description:
            "the reservation whose confirmed BUY completed the curve (null for a curve graduated before the service recorded it)",
        }),
        pool: z.object({ dogeReserve: DecimalString, tokenReserve: DecimalString, lpSupply: DecimalString }).nullable(),
      })
      .nullable(),
    error: z.string().nullable(),
    createdAt: Unix,
    activatedAt: Unix.nullable(),
    updatedAt: Unix,
  })
  .openapi("Curve");

export const ActiveCurves = z.object({ curves: z.array(Curve) }).openapi("ActiveCurves");

const CURVE_STATUSES = ["awaiting_supply", "active", "graduated", "failed"] as const;

export const CurvesQuery = z.object({
  status: coded(
    z.enum(CURVE_STATUSES),
    "INVALID_STATUS",
    (field) => `${field} must be one of ${CURVE_STATUSES.join(", ")}`,
  )
    .optional()
    .openapi({ description: "only the curves of this status (default: every status)" }),
  limit: queryInteger(1, 200).optional().openapi({ description: "page size, 1 to 200 (default 50)" }),
  cursor: Cursor.optional(),
});

export const CurvesPage = z
  .object({
    curves: z.array(Curve),
    nextCursor: Cursor.nullable().openapi({ description: "the next page's cursor (null: this is the last page)" }),
  })
  .openapi("CurvesPage");

export const BondingQuote = z
  .object({
    symbol: z.string(),
    side: z.enum(["BUY", "SELL"]),
    amountIn: DecimalString,
    amountInAsset: z.string(),
    amountOut: DecimalString,
    amountOutAsset: z.string(),
    fee: DecimalString,
    feeAsset: DogeFee,
    refund: DecimalString,
    payoutCost: DecimalString,
    depositAmount: DecimalString,
    payoutAmount: SignedDecimalString,
    progressBps: z.number().int(),
    priceKoinuPerToken: Price,
  })
  .openapi("BondingQuote");

export const Reservation = z
  .object({
    reservationId: z.string(),
    symbol: z.string(),
    side: z.enum(["BUY", "SELL"]),
    address: z.string(),
    status: z.enum(["reserved", "confirmed", "refunded", "expired"]),
    depositAddress: z.string(),
    depositAmount: DecimalString,
    payoutCost: DecimalString,
    depositAsset: z.string(),
    reservedAmount: DecimalString,
    reservedAsset: z.string(),
    fee: DecimalString,
    feeAsset: DogeFee,
    expiresAt: Unix,
    depositTxid: z.string().nullable(),
    pendingTxid: z.string().nullable(),
    depositReceived: DecimalString.nullable(),
    amountOut: DecimalString.nullable(),
    payout: Payout.nullable(),
    refund: Payout.nullable(),
    error: ErrorRecord.nullable(),
    createdAt: Unix,
    updatedAt: Unix,
  })
  .openapi("Reservation");

export const ConfirmedReservation = Reservation.extend({
  graduated: z.boolean().openapi({ description: "this buy graduated the curve" }),
  curve: Curve,
}).openapi("ConfirmedReservation");

const ReserveAmount = DecimalString.openapi({
  description: "base units: koinu for DOGE, whole DRC-20 units for a tick",
});
/** GET /api/reserves (reserves.ts reservesJson). */
export const ReservesBody = z
  .object({
    custodyAddress: z.string(),
    indexedHeight: z.number().int(),
    checkedAt: z.number().int().openapi({ description: "unix seconds of the pass that computed it" }),
    whole: z.boolean().openapi({ description: "true when every asset's holdings cover its obligations" }),
    assets: z.array(
      z.object({
        asset: z.enum(["DOGE", "DRC20"]),
        tick: z.string().nullable(),
        holdings: ReserveAmount,
        obligations: ReserveAmount,
        owed: z.object({ pools: ReserveAmount, bonding: ReserveAmount, payouts: ReserveAmount }),
        shortfall: ReserveAmount,
      }),
    ),
    stuckPayouts: z.object({ failed: z.number().int(), insufficientFunds: z.number().int() }),
  })
  .openapi("Reserves");
