/**
 * Constant-product AMM math for DRC-20 <-> DOGE pools (pure: no I/O, no clock, no mutation).
 *
 * Every amount is a bigint in base units: DOGE in koinu, the token in DRC-20 base units. Every
 * function returns new objects and leaves its arguments untouched. `index.ts` is the API overview;
 * each export below documents its own rounding.
 *
 * Sources of the formulas:
 * - constant product x * y = k, output floor(dx * y / (x + dx)), first deposit minting
 *   sqrt(x * y) - MINIMUM_LIQUIDITY and later deposits pro rata to the smaller side: Uniswap v2
 *   whitepaper (Adams, Zinsmeister, Robinson, 2020), sections 3.4 and 3.5, and UniswapV2Pair.mint.
 *   Here the fee is charged in DOGE on either side of the trade and kept outside the reserves.
 * - fee-per-share accumulator and per-position debt: SushiSwap MasterChef (accSushiPerShare,
 *   rewardDebt), itself the "scalable reward distribution" of Batog, Boca and Johnson (2018).
 *   Departures: the accumulator carries the remainder of its division, the debt is kept in scaled
 *   units (not floored to koinu) and a position carries its sub-koinu fraction, so that no koinu
 *   is created or lost by rounding.
 */
import { DogeosError } from "../errors";

/** Basis points in one whole. */
export const BPS = 10_000n;
/** Swap fee of a pool created without one: 1%. */
export const DEFAULT_FEE_BPS = 100n;
/** Highest accepted swap fee; a fee of 100% would leave nothing to trade. */
export const MAX_FEE_BPS = 9_999n;
/** Largest amount accepted anywhere, and the largest reserve or supply a pool may reach. */
export const MAX_AMOUNT = 2n ** 128n - 1n;
/** LP shares minted to nobody by the first deposit and locked forever (Uniswap v2). */
export const MINIMUM_LIQUIDITY = 1_000n;
/**
 * Scale of `accFeePerShare`: koinu per share times 10^36, so the accumulator reads as koinu per
 * share with 36 decimals and a share count made of 2s and 5s (2,000,000, 4,000,000...) divides a
 * fee exactly. Supplies of DOGE and of any DRC-20 are below 2^64, so a real lpSupply stays far
 * below 10^36 and one koinu always moves the accumulator; beyond that (reserves up to 2^128 are
 * accepted) the division's remainder, carried in accRemainder, still loses nothing.
 */
export const ACC_SCALE = 10n ** 36n;
/** Default scale of `spotPrice` (koinu per token base unit, times 10^18). */
export const PRICE_SCALE = 10n ** 18n;

export type Direction = "DOGE_TO_TOKEN" | "TOKEN_TO_DOGE";

/**
 * State of one pool. The fees are not part of the reserves: they sit in the pool's fee vault
 * (feesCredited - feesClaimed koinu) and belong to the share holders through the accumulator.
 */
export interface Pool {
  /** DOGE in the reserve, koinu. */
  dogeReserve: bigint;
  /** Tokens in the reserve, DRC-20 base units. */
  tokenReserve: bigint;
  /** LP shares in existence, MINIMUM_LIQUIDITY locked shares included (0 before the first deposit). */
  lpSupply: bigint;
  /** Swap fee in basis points, [0, MAX_FEE_BPS]. */
  feeBps: bigint;
  /** Fees per share ever credited, koinu * ACC_SCALE per share. */
  accFeePerShare: bigint;
  /** Remainder of the accumulator's last division, koinu * ACC_SCALE (undistributed). */
  accRemainder: bigint;
  /** Koinu of fees ever credited to the pool. */
  feesCredited: bigint;
  /** Koinu of fees ever paid out to positions (claimFees, removeLiquidity). */
  feesClaimed: bigint;
  /** Sub-koinu fractions left by positions whose shares went to zero, koinu * ACC_SCALE (undistributed). */
  feeDust: bigint;
}

/** One provider's stake in one pool. */
export interface Position {
  /** LP shares held. */
  shares: bigint;
  /** shares * accFeePerShare at the last settlement, koinu * ACC_SCALE. */
  feeDebt: bigint;
  /** Whole koinu of fees settled to the position and not yet paid out. */
  unclaimed: bigint;
  /** Sub-koinu part of the settled fees, koinu * ACC_SCALE, in [0, ACC_SCALE). */
  unclaimedFraction: bigint;
}

/** What the hot quote path returns. */
export interface Quote {
  /** Units paid to the trader: tokens for DOGE_TO_TOKEN, koinu for TOKEN_TO_DOGE (after the fee). */
  amountOut: bigint;
  /** Koinu of fee credited to the providers. */
  fee: bigint;
}

export interface SwapResult {
  direction: Direction;
  /** Units paid by the trader: koinu for DOGE_TO_TOKEN (fee included), tokens for TOKEN_TO_DOGE. */
  amountIn: bigint;
  /** Units paid to the trader: tokens for DOGE_TO_TOKEN, koinu for TOKEN_TO_DOGE (fee deducted). */
  amountOut: bigint;
  /** Koinu of fee, credited to the providers in `pool`. */
  fee: bigint;
  /** See priceImpactBps. */
  priceImpactBps: bigint;
  /** The pool after the swap, the fee credited. */
  pool: Pool;
}

export interface AddLiquidityResult {
  pool: Pool;
  position: Position;
  /** Shares minted to the position (the first deposit's locked shares excluded). */
  shares: bigint;
  dogeUsed: bigint;
  tokenUsed: bigint;
  /** Koinu offered and not taken (offered - used). */
  dogeRefund: bigint;
  /** Token units offered and not taken (offered - used). */
  tokenRefund: bigint;
  /** Shares locked forever by this deposit: MINIMUM_LIQUIDITY for the first one, else 0. */
  locked: bigint;
}

export interface RemoveLiquidityResult {
  pool: Pool;
  position: Position;
  /** Shares burnt. */
  shares: bigint;
  /** Koinu paid out of the reserve. */
  doge: bigint;
  /** Token units paid out of the reserve. */
  token: bigint;
  /** Koinu of fees paid out with it: everything the position had earned. */
  fees: bigint;
}

export interface ClaimResult {
  pool: Pool;
  position: Position;
  /** Koinu paid out. */
  amount: bigint;
}

export interface SharesResult {
  pool: Pool;
  position: Position;
}

export interface DepthSide {
  /** Smallest input that moves the price by the asked basis points (koinu or token units). */
  amountIn: bigint;
  /** What that input buys. */
  amountOut: bigint;
}

export interface Depth {
  bps: bigint;
  /** DOGE in, price up; null when no input within MAX_AMOUNT reaches it. */
  dogeToToken: DepthSide | null;
  /** Tokens in, price down; null when no input within MAX_AMOUNT reaches it. */
  tokenToDoge: DepthSide | null;
}

export interface FeeAudit {
  feesCredited: bigint;
  feesClaimed: bigint;
  /** Koinu in the fee vault: feesCredited - feesClaimed. */
  feesHeld: bigint;
  /** Sum over the positions given of claimableFees. */
  owedToProviders: bigint;
  /** lockedFees(pool): earned by the MINIMUM_LIQUIDITY locked shares, payable to nobody. */
  lockedFees: bigint;
  /** feesHeld - owedToProviders - lockedFees: whole koinu made of carried fractions. */
  undistributed: bigint;
  /** The same in koinu * ACC_SCALE, summed from the fractions themselves. */
  undistributedScaled: bigint;
  /** true when undistributedScaled == undistributed * ACC_SCALE exactly (every koinu accounted). */
  balanced: boolean;
}

export type AmmMathErrorCode =
  /** An amount is not a bigint in [1, MAX_AMOUNT]. */
  | "AMOUNT_OUT_OF_RANGE"
  /** A fee is not a bigint in [0, MAX_FEE_BPS]. */
  | "FEE_OUT_OF_RANGE"
  /** A slippage is not a bigint in [0, BPS]. */
  | "SLIPPAGE_OUT_OF_RANGE"
  /** A depth is not a bigint in [1, BPS - 1]. */
  | "BPS_OUT_OF_RANGE"
  /** The direction is neither DOGE_TO_TOKEN nor TOKEN_TO_DOGE. */
  | "INVALID_DIRECTION"
  /** A pool field is not a bigint, negative, too large or inconsistent with the others. */
  | "INVALID_POOL"
  /** A position field is not a bigint, negative or inconsistent with the pool. */
  | "INVALID_POSITION"
  /** The pool holds no liquidity (no deposit yet). */
  | "POOL_EMPTY"
  /** The swap would pay nothing out. */
  | "OUTPUT_ZERO"
  /** Exact-out: the amount asked is at least the output reserve. */
  | "EXCESSIVE_OUTPUT"
  /** Exact-out: the reserve holds the amount, but not with the fee on top, or the input needed exceeds MAX_AMOUNT. */
  | "INSUFFICIENT_LIQUIDITY"
  /** A reserve would exceed MAX_AMOUNT. */
  | "RESERVE_OVERFLOW"
  /** First deposit with floor(sqrt(doge * token)) <= MINIMUM_LIQUIDITY. */
  | "INITIAL_LIQUIDITY_TOO_SMALL"
  /** A later deposit too small to mint one share. */
  | "SHARES_ZERO"
  /** A burn that would pay out nothing on either side (impossible on a pool these functions built: lpSupply^2 <= dogeReserve * tokenReserve). */
  | "WITHDRAWAL_ZERO"
  /** More shares asked than the position holds. */
  | "SHARES_EXCEED_POSITION"
  /** A position holding more shares than the pool's unlocked supply. */
  | "SHARES_EXCEED_SUPPLY";

/** The only error this module throws; `details` carries the values that caused it. */
export class AmmMathError extends DogeosError<AmmMathErrorCode> {
  declare readonly details: Readonly<Record<string, unknown>>;

  constructor(code: AmmMathErrorCode, message: string, details: Readonly<Record<string, unknown>> = {}) {
    super("unprocessable", code, message, { details });
  }
}

function show(value: unknown): string {
  return typeof value === "bigint" ? `${value}n` : typeof value === "string" ? JSON.stringify(value) : String(value);
}

function amountError(field: string, value: unknown): AmmMathError {
  return new AmmMathError("AMOUNT_OUT_OF_RANGE", `${field} must be a bigint in [1, 2^128 - 1], got ${show(value)}`, {
    field,
    value,
  });
}

function checkAmount(field: string, value: unknown): asserts value is bigint {
  if (typeof value !== "bigint" || value < 1n || value > MAX_AMOUNT) throw amountError(field, value);
}

function checkFeeBps(feeBps: unknown): asserts feeBps is bigint {
  if (typeof feeBps !== "bigint" || feeBps < 0n || feeBps > MAX_FEE_BPS) {
    throw new AmmMathError("FEE_OUT_OF_RANGE", `feeBps must be a bigint in [0, ${MAX_FEE_BPS}], got ${show(feeBps)}`, {
      feeBps,
    });
  }
}

/** A reserve a swap can trade against: [1, MAX_AMOUNT]; 0 means there is no pool yet. */
function checkReserve(field: string, value: unknown): asserts value is bigint {
  if (typeof value === "bigint" && value >= 1n && value <= MAX_AMOUNT) return;
  if (value === 0n) throw new AmmMathError("POOL_EMPTY", `${field} is 0: the pool has no liquidity`, { field });
  throw new AmmMathError("INVALID_POOL", `${field} must be a bigint in [1, 2^128 - 1], got ${show(value)}`, {
    field,
    value,
  });
}

function directionError(direction: unknown): AmmMathError {
  return new AmmMathError(
    "INVALID_DIRECTION",
    `direction must be "DOGE_TO_TOKEN" or "TOKEN_TO_DOGE", got ${show(direction)}`,
    { direction },
  );
}

function overflowError(field: string, value: bigint): AmmMathError {
  return new AmmMathError("RESERVE_OVERFLOW", `${field} would become ${value}, over 2^128 - 1`, { field, value });
}

const ceilDiv = (numerator: bigint, denominator: bigint): bigint => (numerator + denominator - 1n) / denominator;

/**
 * Checks every field of a pool: bigints, none negative, reserves and supply at most MAX_AMOUNT,
 * reserves positive exactly when shares exist (then at least the MINIMUM_LIQUIDITY locked), a pool
 * without shares holding no fee state, feesClaimed <= feesCredited. Throws INVALID_POOL.
 */
export function validatePool(pool: Pool): void {
  const invalid = (field: string, reason: string, value?: unknown) =>
    new AmmMathError("INVALID_POOL", `pool.${field} ${reason}${value === undefined ? "" : `, got ${show(value)}`}`, {
      field,
      value,
    });
  if (typeof pool !== "object" || pool === null) throw invalid("", "must be an object", pool);
  const fields = [
    "dogeReserve",
    "tokenReserve",
    "lpSupply",
    "feeBps",
    "accFeePerShare",
    "accRemainder",
    "feesCredited",
    "feesClaimed",
    "feeDust",
  ] as const;
  for (const field of fields) {
    const value = pool[field];
    if (typeof value !== "bigint" || value < 0n) throw invalid(field, "must be a non-negative bigint", value);
  }
  for (const field of ["dogeReserve", "tokenReserve", "lpSupply"] as const) {
    if (pool[field] > MAX_AMOUNT) throw invalid(field, "must be at most 2^128 - 1", pool[field]);
  }
  checkFeeBps(pool.feeBps);
  if (pool.lpSupply === 0n) {
    for (const field of fields) {
      if (field !== "feeBps" && pool[field] !== 0n)
        throw invalid(field, "must be 0 in a pool without shares", pool[field]);
    }
  } else {
    if (pool.lpSupply < MINIMUM_LIQUIDITY)
      throw invalid(
        "lpSupply",
        `must be at least MINIMUM_LIQUIDITY (${MINIMUM_LIQUIDITY}) once shares exist`,
        pool.lpSupply,
      );
    if (pool.dogeReserve === 0n) throw invalid("dogeReserve", "must be positive while shares exist", 0n);
    if (pool.tokenReserve === 0n) throw invalid("tokenReserve", "must be positive while shares exist", 0n);
  }
  if (pool.feesClaimed > pool.feesCredited)
    throw invalid("feesClaimed", `must not exceed feesCredited (${pool.feesCredited})`, pool.feesClaimed);
}

/**
 * Checks a position against its pool: bigints, none negative, unclaimedFraction < ACC_SCALE,
 * feeDebt <= shares * accFeePerShare (the accumulator only grows), shares within the unlocked
 * supply. Throws INVALID_POSITION, or SHARES_EXCEED_SUPPLY for the last rule.
 */
export function validatePosition(pool: Pool, position: Position): void {
  const invalid = (field: string, reason: string, value?: unknown) =>
    new AmmMathError(
      "INVALID_POSITION",
      `position.${field} ${reason}${value === undefined ? "" : `, got ${show(value)}`}`,
      { field, value },
    );
  if (typeof position !== "object" || position === null) throw invalid("", "must be an object", position);
  for (const field of ["shares", "feeDebt", "unclaimed", "unclaimedFraction"] as const) {
    const value = position[field];
    if (typeof value !== "bigint" || value < 0n) throw invalid(field, "must be a non-negative bigint", value);
  }
  if (position.unclaimedFraction >= ACC_SCALE)
    throw invalid("unclaimedFraction", "must be below ACC_SCALE", position.unclaimedFraction);
  if (position.feeDebt > position.shares * pool.accFeePerShare)
    throw invalid("feeDebt", "must not exceed shares * accFeePerShare", position.feeDebt);
  const unlocked = pool.lpSupply >= MINIMUM_LIQUIDITY ? pool.lpSupply - MINIMUM_LIQUIDITY : 0n;
  if (position.shares > unlocked) {
    throw new AmmMathError(
      "SHARES_EXCEED_SUPPLY",
      `position holds ${position.shares} shares, the pool's unlocked supply is ${unlocked}`,
      {
        shares: position.shares,
        unlockedSupply: unlocked,
      },
    );
  }
}

/** A pool before its first deposit. */
export function createPool(feeBps: bigint = DEFAULT_FEE_BPS): Pool {
  checkFeeBps(feeBps);
  return {
    dogeReserve: 0n,
    tokenReserve: 0n,
    lpSupply: 0n,
    feeBps,
    accFeePerShare: 0n,
    accRemainder: 0n,
    feesCredited: 0n,
    feesClaimed: 0n,
    feeDust: 0n,
  };
}

/** A position holding nothing. */
export function emptyPosition(): Position {
  return { shares: 0n, feeDebt: 0n, unclaimed: 0n, unclaimedFraction: 0n };
}

/** floor(sqrt(n)) for a bigint n >= 0 (Newton's method from an upper bound). */
export function isqrt(n: bigint): bigint {
  if (typeof n !== "bigint" || n < 0n)
    throw new AmmMathError("AMOUNT_OUT_OF_RANGE", `isqrt needs a non-negative bigint, got ${show(n)}`, {
      field: "n",
      value: n,
    });
  if (n < 4_503_599_627_370_496n) {
    // Below 2^52 the double holds n exactly and its correctly rounded root is off by at most one.
    let root = BigInt(Math.floor(Math.sqrt(Number(n))));
    while (root * root > n) root -= 1n;
    while ((root + 1n) * (root + 1n) <= n) root += 1n;
    return root;
  }
  // 2^ceil(bits/2) >= sqrt(n); from above, Newton's iterates decrease until they reach the floor.
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / 2));
  for (;;) {
    const next = (x + n / x) >> 1n;
    if (next >= x) return x;
    x = next;
  }
}

/** ceil(sqrt(n)) for a bigint n >= 0. */
function ceilSqrt(n: bigint): bigint {
  const root = isqrt(n);
  return root * root === n ? root : root + 1n;
}

/**
 * The hot path: what an exact-in swap of `amountIn` pays, without building a pool. Same rules,
 * same errors, as swapExactIn (which calls it):
 * - DOGE_TO_TOKEN: fee = ceil(amountIn * feeBps / 10000) koinu kept from the input;
 *   netIn = amountIn - fee goes into the reserve; amountOut = floor(netIn * tokenReserve /
 *   (dogeReserve + netIn)) tokens.
 * - TOKEN_TO_DOGE: gross = floor(amountIn * dogeReserve / (tokenReserve + amountIn)) koinu leaves
 *   the reserve; fee = ceil(gross * feeBps / 10000); amountOut = gross - fee koinu.
 * Throws AMOUNT_OUT_OF_RANGE, POOL_EMPTY or INVALID_POOL (a reserve), FEE_OUT_OF_RANGE,
 * INVALID_DIRECTION, RESERVE_OVERFLOW (the input reserve would pass MAX_AMOUNT), OUTPUT_ZERO.
 */
export function quoteExactIn(
  dogeReserve: bigint,
  tokenReserve: bigint,
  feeBps: bigint,
  direction: Direction,
  amountIn: bigint,
): Quote {
  if (typeof amountIn !== "bigint" || amountIn < 1n || amountIn > MAX_AMOUNT) throw amountError("amountIn", amountIn);
  checkReserve("dogeReserve", dogeReserve);
  checkReserve("tokenReserve", tokenReserve);
  checkFeeBps(feeBps);
  let amountOut: bigint;
  let fee: bigint;
  if (direction === "DOGE_TO_TOKEN") {
    fee = (amountIn * feeBps + BPS - 1n) / BPS;
    const netIn = amountIn - fee;
    const dogeAfter = dogeReserve + netIn;
    if (dogeAfter > MAX_AMOUNT) throw overflowError("dogeReserve", dogeAfter);
    amountOut = (netIn * tokenReserve) / dogeAfter;
  } else if (direction === "TOKEN_TO_DOGE") {
    const tokenAfter = tokenReserve + amountIn;
    if (tokenAfter > MAX_AMOUNT) throw overflowError("tokenReserve", tokenAfter);
    const gross = (amountIn * dogeReserve) / tokenAfter;
    fee = (gross * feeBps + BPS - 1n) / BPS;
    amountOut = gross - fee;
  } else {
    throw directionError(direction);
  }
  if (amountOut === 0n) {
    throw new AmmMathError("OUTPUT_ZERO", `${direction} of ${amountIn} would pay out nothing`, {
      direction,
      amountIn,
      fee,
    });
  }
  return { amountOut, fee };
}

/**
 * Price impact of a quoted exact-in swap, in basis points, rounded up; >= 1 for any swap since
 * every constant-product trade moves the price. Defined on the reserve move alone, the fee
 * excluded: with reserveDelta the units the reserve receives (netIn koinu for DOGE_TO_TOKEN,
 * amountIn tokens for TOKEN_TO_DOGE) and reserveOut the units it pays (amountOut tokens, or the
 * gross koinu before the fee), it is
 *     10000 - floor(10000 * reserveOut * inputReserve / (reserveDelta * outputReserve)),
 * i.e. how much worse than the spot price before the swap the reserve's own rate is. It is the
 * same measure for both directions, and the fee (feeBps) comes on top for the trader.
 */
export function priceImpactBps(
  dogeReserve: bigint,
  tokenReserve: bigint,
  direction: Direction,
  amountIn: bigint,
  quote: Quote,
): bigint {
  if (direction === "DOGE_TO_TOKEN") {
    const netIn = amountIn - quote.fee;
    return BPS - (BPS * quote.amountOut * dogeReserve) / (netIn * tokenReserve);
  }
  if (direction === "TOKEN_TO_DOGE") {
    const grossOut = quote.amountOut + quote.fee;
    return BPS - (BPS * grossOut * tokenReserve) / (amountIn * dogeReserve);
  }
  throw directionError(direction);
}

/**
 * Exact-in swap: quoteExactIn's result, its price impact, and the pool after it (reserves moved,
 * the fee credited to the accumulator). k = dogeReserve * tokenReserve never decreases: each
 * output is rounded down and the fee never enters the reserves.
 */
export function swapExactIn(pool: Pool, direction: Direction, amountIn: bigint): SwapResult {
  validatePool(pool);
  const quote = quoteExactIn(pool.dogeReserve, pool.tokenReserve, pool.feeBps, direction, amountIn);
  const moved =
    direction === "DOGE_TO_TOKEN"
      ? {
          ...pool,
          dogeReserve: pool.dogeReserve + amountIn - quote.fee,
          tokenReserve: pool.tokenReserve - quote.amountOut,
        }
      : {
          ...pool,
          dogeReserve: pool.dogeReserve - quote.amountOut - quote.fee,
          tokenReserve: pool.tokenReserve + amountIn,
        };
  return {
    direction,
    amountIn,
    amountOut: quote.amountOut,
    fee: quote.fee,
    priceImpactBps: priceImpactBps(pool.dogeReserve, pool.tokenReserve, direction, amountIn, quote),
    pool: creditFee(moved, quote.fee),
  };
}

/**
 * The smallest amountIn whose exact-in swap pays at least `amountOut`, with what it pays.
 * Closed form, no search (the exact-in output never decreases with amountIn):
 * - DOGE_TO_TOKEN: netIn >= ceil(amountOut * dogeReserve / (tokenReserve - amountOut)), then
 *   amountIn = ceil(netIn * 10000 / (10000 - feeBps)) (the smallest input whose net is that).
 * - TOKEN_TO_DOGE: gross >= ceil(amountOut * 10000 / (10000 - feeBps)) =: g, then
 *   amountIn = ceil(g * tokenReserve / (dogeReserve - g)).
 * The quote returned is quoteExactIn(amountIn) itself, so quote == execution. Its amountOut is
 * >= the amount asked and may exceed it, in either direction: when one more base unit of input
 * buys more than one unit of output (the token is cheap against a koinu, or the reverse), or when
 * the fee's rounding steps over the target. amountIn - 1 always pays less than asked.
 * Throws EXCESSIVE_OUTPUT (amountOut >= the output reserve), INSUFFICIENT_LIQUIDITY (out of reach
 * with the fee, or needing more than MAX_AMOUNT), and quoteExactIn's errors.
 */
export function quoteExactOut(
  dogeReserve: bigint,
  tokenReserve: bigint,
  feeBps: bigint,
  direction: Direction,
  amountOut: bigint,
): Quote & { amountIn: bigint } {
  checkAmount("amountOut", amountOut);
  checkReserve("dogeReserve", dogeReserve);
  checkReserve("tokenReserve", tokenReserve);
  checkFeeBps(feeBps);
  let amountIn: bigint;
  if (direction === "DOGE_TO_TOKEN") {
    if (amountOut >= tokenReserve) throw excessiveOutput(direction, amountOut, tokenReserve);
    const netIn = ceilDiv(amountOut * dogeReserve, tokenReserve - amountOut);
    amountIn = ceilDiv(netIn * BPS, BPS - feeBps);
  } else if (direction === "TOKEN_TO_DOGE") {
    if (amountOut >= dogeReserve) throw excessiveOutput(direction, amountOut, dogeReserve);
    const gross = ceilDiv(amountOut * BPS, BPS - feeBps);
    if (gross >= dogeReserve) {
      throw new AmmMathError(
        "INSUFFICIENT_LIQUIDITY",
        `paying ${amountOut} koinu after the fee takes ${gross} koinu, the reserve holds ${dogeReserve}`,
        {
          direction,
          amountOut,
          grossOut: gross,
          reserve: dogeReserve,
        },
      );
    }
    amountIn = ceilDiv(gross * tokenReserve, dogeReserve - gross);
  } else {
    throw directionError(direction);
  }
  if (amountIn > MAX_AMOUNT) {
    throw new AmmMathError(
      "INSUFFICIENT_LIQUIDITY",
      `paying ${amountOut} needs an input of ${amountIn}, over 2^128 - 1`,
      { direction, amountOut, amountIn },
    );
  }
  return { amountIn, ...quoteExactIn(dogeReserve, tokenReserve, feeBps, direction, amountIn) };
}

function excessiveOutput(direction: Direction, amountOut: bigint, reserve: bigint): AmmMathError {
  return new AmmMathError("EXCESSIVE_OUTPUT", `${direction} asks ${amountOut}, the output reserve holds ${reserve}`, {
    direction,
    amountOut,
    reserve,
  });
}

/**
 * Exact-out swap: swapExactIn on quoteExactOut's amountIn (see there for the rounding). The
 * result's amountOut is what the trader gets, possibly more than `amountOut`.
 */
export function swapExactOut(pool: Pool, direction: Direction, amountOut: bigint): SwapResult {
  validatePool(pool);
  const { amountIn } = quoteExactOut(pool.dogeReserve, pool.tokenReserve, pool.feeBps, direction, amountOut);
  return swapExactIn(pool, direction, amountIn);
}

/**
 * Credits `fee` koinu to the share holders: with n = fee * ACC_SCALE + accRemainder,
 * accFeePerShare += floor(n / lpSupply) and accRemainder = n mod lpSupply, so that
 * feesCredited * ACC_SCALE == sum over credits of (increment * lpSupply at the time) + accRemainder.
 * A fee of 0 returns an equal pool. Throws POOL_EMPTY without shares, AMOUNT_OUT_OF_RANGE.
 */
export function creditFee(pool: Pool, fee: bigint): Pool {
  if (typeof fee !== "bigint" || fee < 0n || fee > MAX_AMOUNT) throw amountError("fee", fee);
  if (fee === 0n) return { ...pool };
  if (pool.lpSupply === 0n) throw new AmmMathError("POOL_EMPTY", "no shares to credit a fee to", { fee });
  const scaled = fee * ACC_SCALE + pool.accRemainder;
  return {
    ...pool,
    accFeePerShare: pool.accFeePerShare + scaled / pool.lpSupply,
    accRemainder: scaled % pool.lpSupply,
    feesCredited: pool.feesCredited + fee,
  };
}

/** Fees earned since the position's last settlement, koinu * ACC_SCALE, carried fraction included. */
function earnedScaled(pool: Pool, position: Position): bigint {
  return position.shares * pool.accFeePerShare - position.feeDebt + position.unclaimedFraction;
}

/** Whole koinu earned since the last settlement (not yet in `unclaimed`). */
export function pendingFees(pool: Pool, position: Position): bigint {
  return earnedScaled(pool, position) / ACC_SCALE;
}

/** Whole koinu the position could be paid now: unclaimed + pendingFees. */
export function claimableFees(pool: Pool, position: Position): bigint {
  return position.unclaimed + pendingFees(pool, position);
}

/**
 * Moves what the position earned into `unclaimed` (whole koinu) and `unclaimedFraction` (the
 * rest) and resets feeDebt to shares * accFeePerShare. claimableFees is unchanged.
 */
export function settlePosition(pool: Pool, position: Position): Position {
  validatePosition(pool, position);
  const earned = earnedScaled(pool, position);
  return {
    shares: position.shares,
    feeDebt: position.shares * pool.accFeePerShare,
    unclaimed: position.unclaimed + earned / ACC_SCALE,
    unclaimedFraction: earned % ACC_SCALE,
  };
}

/**
 * Share bookkeeping only (no reserves move): settles, then adds `shares` to the position and the
 * pool's lpSupply. addLiquidity is the operation; this is its building block.
 */
export function addShares(pool: Pool, position: Position, shares: bigint): SharesResult {
  checkAmount("shares", shares);
  const settled = settlePosition(pool, position);
  const lpSupply = pool.lpSupply + shares;
  if (lpSupply > MAX_AMOUNT)
    throw new AmmMathError("RESERVE_OVERFLOW", `lpSupply would become ${lpSupply}, over 2^128 - 1`, {
      field: "lpSupply",
      value: lpSupply,
    });
  const held = settled.shares + shares;
  return {
    pool: { ...pool, lpSupply },
    position: { ...settled, shares: held, feeDebt: held * pool.accFeePerShare },
  };
}

/**
 * Share bookkeeping only (no reserves move, no fee paid): settles, then removes `shares` from the
 * position and lpSupply. A position left with no shares hands its sub-koinu fraction to
 * pool.feeDust, so that it can be forgotten once its `unclaimed` is paid.
 * Throws SHARES_EXCEED_POSITION, SHARES_EXCEED_SUPPLY.
 */
export function removeShares(pool: Pool, position: Position, shares: bigint): SharesResult {
  checkAmount("shares", shares);
  const settled = settlePosition(pool, position);
  if (shares > settled.shares) {
    throw new AmmMathError(
      "SHARES_EXCEED_POSITION",
      `cannot remove ${shares} shares from a position of ${settled.shares}`,
      { shares, held: settled.shares },
    );
  }
  const held = settled.shares - shares;
  const dust = held === 0n ? settled.unclaimedFraction : 0n;
  return {
    pool: { ...pool, lpSupply: pool.lpSupply - shares, feeDust: pool.feeDust + dust },
    position: {
      ...settled,
      shares: held,
      feeDebt: held * pool.accFeePerShare,
      unclaimedFraction: settled.unclaimedFraction - dust,
    },
  };
}

/**
 * Deposits up to `doge` koinu and `token` units for `position` (null: a new one).
 * - First deposit (lpSupply 0): takes both amounts, lpSupply = floor(sqrt(doge * token)) of which
 *   MINIMUM_LIQUIDITY are locked to nobody and the rest minted; refused with
 *   INITIAL_LIQUIDITY_TOO_SMALL when the root is <= MINIMUM_LIQUIDITY.
 * - Later: shares = min(floor(doge * lpSupply / dogeReserve), floor(token * lpSupply /
 *   tokenReserve)); it takes ceil(shares * reserve / lpSupply) of each side (the least that pays
 *   for the shares, rounded up for the pool, never more than offered) and reports the rest as
 *   refunds. Refused with SHARES_ZERO when not one share is paid for.
 * The position's fees are settled before its shares change.
 */
export function addLiquidity(pool: Pool, position: Position | null, doge: bigint, token: bigint): AddLiquidityResult {
  validatePool(pool);
  checkAmount("doge", doge);
  checkAmount("token", token);
  const holder = position ?? emptyPosition();
  validatePosition(pool, holder);
  if (pool.lpSupply === 0n) {
    const root = isqrt(doge * token);
    if (root <= MINIMUM_LIQUIDITY) {
      throw new AmmMathError(
        "INITIAL_LIQUIDITY_TOO_SMALL",
        `sqrt(${doge} * ${token}) = ${root} does not exceed the ${MINIMUM_LIQUIDITY} locked shares`,
        {
          doge,
          token,
          root,
        },
      );
    }
    const shares = root - MINIMUM_LIQUIDITY;
    // The locked shares join at accFeePerShare 0 (a pool without shares has no fee state), so
    // their earnings are always MINIMUM_LIQUIDITY * accFeePerShare.
    const seeded: Pool = { ...pool, dogeReserve: doge, tokenReserve: token, lpSupply: MINIMUM_LIQUIDITY };
    const added = addShares(seeded, holder, shares);
    return {
      ...added,
      shares,
      dogeUsed: doge,
      tokenUsed: token,
      dogeRefund: 0n,
      tokenRefund: 0n,
      locked: MINIMUM_LIQUIDITY,
    };
  }
  const byDoge = (doge * pool.lpSupply) / pool.dogeReserve;
  const byToken = (token * pool.lpSupply) / pool.tokenReserve;
  const shares = byDoge < byToken ? byDoge : byToken;
  if (shares === 0n) {
    throw new AmmMathError("SHARES_ZERO", `depositing ${doge} koinu and ${token} tokens does not pay for one share`, {
      doge,
      token,
    });
  }
  // shares <= doge * lpSupply / dogeReserve, so the ceiling is at most doge (same for token).
  const dogeUsed = ceilDiv(shares * pool.dogeReserve, pool.lpSupply);
  const tokenUsed = ceilDiv(shares * pool.tokenReserve, pool.lpSupply);
  const dogeReserve = pool.dogeReserve + dogeUsed;
  const tokenReserve = pool.tokenReserve + tokenUsed;
  if (dogeReserve > MAX_AMOUNT) throw overflowError("dogeReserve", dogeReserve);
  if (tokenReserve > MAX_AMOUNT) throw overflowError("tokenReserve", tokenReserve);
  const added = addShares({ ...pool, dogeReserve, tokenReserve }, holder, shares);
  return {
    ...added,
    shares,
    dogeUsed,
    tokenUsed,
    dogeRefund: doge - dogeUsed,
    tokenRefund: token - tokenUsed,
    locked: 0n,
  };
}

/**
 * Burns `shares` of the position: pays floor(shares * reserve / lpSupply) of each side (rounded
 * down for the pool) and every fee the position has earned (its claimableFees, all of it).
 * Refused with WITHDRAWAL_ZERO when both sides would be 0; SHARES_EXCEED_POSITION,
 * SHARES_EXCEED_SUPPLY. The locked shares keep both reserves positive.
 */
export function removeLiquidity(pool: Pool, position: Position, shares: bigint): RemoveLiquidityResult {
  validatePool(pool);
  checkAmount("shares", shares);
  if (pool.lpSupply === 0n) throw new AmmMathError("POOL_EMPTY", "the pool has no shares", { shares });
  validatePosition(pool, position);
  if (shares > position.shares) {
    throw new AmmMathError(
      "SHARES_EXCEED_POSITION",
      `cannot burn ${shares} shares from a position of ${position.shares}`,
      { shares, held: position.shares },
    );
  }
  const doge = (shares * pool.dogeReserve) / pool.lpSupply;
  const token = (shares * pool.tokenReserve) / pool.lpSupply;
  if (doge === 0n && token === 0n) {
    throw new AmmMathError("WITHDRAWAL_ZERO", `burning ${shares} shares would pay out nothing`, { shares });
  }
  const removed = removeShares(
    { ...pool, dogeReserve: pool.dogeReserve - doge, tokenReserve: pool.tokenReserve - token },
    position,
    shares,
  );
  const fees = removed.position.unclaimed;
  return {
    pool: { ...removed.pool, feesClaimed: removed.pool.feesClaimed + fees },
    position: { ...removed.position, unclaimed: 0n },
    shares,
    doge,
    token,
    fees,
  };
}

/** Pays the position every whole koinu it has earned (claimableFees); the fraction stays. */
export function claimFees(pool: Pool, position: Position): ClaimResult {
  validatePool(pool);
  const settled = settlePosition(pool, position);
  const amount = settled.unclaimed;
  return {
    pool: { ...pool, feesClaimed: pool.feesClaimed + amount },
    position: { ...settled, unclaimed: 0n },
    amount,
  };
}

/**
 * Koinu earned by the MINIMUM_LIQUIDITY locked shares: floor(MINIMUM_LIQUIDITY * accFeePerShare
 * / ACC_SCALE). They are payable to nobody and stay in the fee vault for good.
 */
export function lockedFees(pool: Pool): bigint {
  return (MINIMUM_LIQUIDITY * pool.accFeePerShare) / ACC_SCALE;
}

/**
 * Where every koinu of fee is, given all the pool's positions (every position with shares or
 * unclaimed fees): feesCredited = feesClaimed + owedToProviders + lockedFees + undistributed.
 * `undistributed` is whole koinu made of the fractions nobody holds a whole koinu of yet (the
 * accumulator's remainder, pool.feeDust, the locked shares' and each position's fraction);
 * `balanced` checks that sum, computed from the fractions themselves, in koinu * ACC_SCALE.
 * false means a position is missing or the state was altered.
 */
export function auditFees(pool: Pool, positions: readonly Position[]): FeeAudit {
  let owedToProviders = 0n;
  let fractions = 0n;
  for (const position of positions) {
    const earned = earnedScaled(pool, position);
    owedToProviders += position.unclaimed + earned / ACC_SCALE;
    fractions += earned % ACC_SCALE;
  }
  const lockedScaled = MINIMUM_LIQUIDITY * pool.accFeePerShare;
  const locked = lockedScaled / ACC_SCALE;
  const undistributedScaled = pool.accRemainder + pool.feeDust + (lockedScaled % ACC_SCALE) + fractions;
  const feesHeld = pool.feesCredited - pool.feesClaimed;
  const undistributed = feesHeld - owedToProviders - locked;
  return {
    feesCredited: pool.feesCredited,
    feesClaimed: pool.feesClaimed,
    feesHeld,
    owedToProviders,
    lockedFees: locked,
    undistributed,
    undistributedScaled,
    balanced: undistributedScaled === undistributed * ACC_SCALE,
  };
}

/**
 * Least amount the trader accepts: floor(amountOut * (10000 - slippageBps) / 10000).
 * Throws AMOUNT_OUT_OF_RANGE, SLIPPAGE_OUT_OF_RANGE (slippageBps outside [0, 10000]).
 */
export function minAmountOut(amountOut: bigint, slippageBps: bigint): bigint {
  checkAmount("amountOut", amountOut);
  if (typeof slippageBps !== "bigint" || slippageBps < 0n || slippageBps > BPS) {
    throw new AmmMathError(
      "SLIPPAGE_OUT_OF_RANGE",
      `slippageBps must be a bigint in [0, 10000], got ${show(slippageBps)}`,
      { slippageBps },
    );
  }
  return (amountOut * (BPS - slippageBps)) / BPS;
}

/**
 * Spot price in koinu per token base unit, times `scale`, rounded down:
 * floor(dogeReserve * scale / tokenReserve). Throws POOL_EMPTY or INVALID_POOL.
 */
export function spotPrice(pool: Pick<Pool, "dogeReserve" | "tokenReserve">, scale: bigint = PRICE_SCALE): bigint {
  checkReserve("dogeReserve", pool.dogeReserve);
  checkReserve("tokenReserve", pool.tokenReserve);
  checkAmount("scale", scale);
  return (pool.dogeReserve * scale) / pool.tokenReserve;
}

/**
 * Market depth at `bps` basis points: for each direction, the smallest exact-in amountIn (fee
 * included) whose swap succeeds and leaves the spot price dogeReserve / tokenReserve moved by at
 * least `bps` from where it was (up by DOGE_TO_TOKEN: p' >= p * (10000 + bps) / 10000; down by
 * TOKEN_TO_DOGE: p' <= p * (10000 - bps) / 10000), prices compared exactly by
 * cross-multiplication on the reserves exact-in would leave. The price only moves one way as the
 * input grows, so the answer is found from the closed form of the unrounded curve (an integer
 * square root) and corrected by a bracketed search. null for a side no input within MAX_AMOUNT
 * (and the reserve limit) reaches. bps in [1, 9999]: 100, 200, 500 are 1%, 2%, 5%.
 */
export function depth(pool: Pick<Pool, "dogeReserve" | "tokenReserve" | "feeBps">, bps: bigint): Depth {
  const { dogeReserve: x, tokenReserve: y, feeBps } = pool;
  checkReserve("dogeReserve", x);
  checkReserve("tokenReserve", y);
  checkFeeBps(feeBps);
  if (typeof bps !== "bigint" || bps < 1n || bps >= BPS) {
    throw new AmmMathError("BPS_OUT_OF_RANGE", `bps must be a bigint in [1, 9999], got ${show(bps)}`, { bps });
  }
  // DOGE_TO_TOKEN: x' = x + netIn; on the curve y' = k / x', p' / p = (x' / x)^2.
  const dogeAfter = ceilSqrt(ceilDiv(x * x * (BPS + bps), BPS));
  const dogeGuess = ceilDiv((dogeAfter - x) * BPS, BPS - feeBps);
  // The largest input keeping dogeReserve + netIn <= MAX_AMOUNT: netIn = floor(a * (B - f) / B).
  const dogeCap = min(MAX_AMOUNT, ceilDiv((MAX_AMOUNT - x + 1n) * BPS, BPS - feeBps) - 1n);
  const dogeToToken = searchDepth(dogeGuess, dogeCap, (amountIn) => {
    const out = dogeToTokenOut(x, y, feeBps, amountIn);
    // p' >= p (B + b) / B  <=>  (x + netIn) * y * B >= x * (y - out) * (B + b)
    return out.amountOut > 0n && (x + out.netIn) * y * BPS >= x * (y - out.amountOut) * (BPS + bps)
      ? out.amountOut
      : null;
  });
  // TOKEN_TO_DOGE: y' = y + amountIn; on the curve p' / p = (y / y')^2.
  const tokenAfter = ceilSqrt(ceilDiv(y * y * BPS, BPS - bps));
  const tokenCap = MAX_AMOUNT - y;
  const tokenToDoge = searchDepth(tokenAfter - y, tokenCap, (amountIn) => {
    const gross = (amountIn * x) / (y + amountIn);
    const amountOut = gross - (gross * feeBps + BPS - 1n) / BPS;
    // p' <= p (B - b) / B  <=>  (x - gross) * y * B <= x * (y + amountIn) * (B - b)
    return amountOut > 0n && (x - gross) * y * BPS <= x * (y + amountIn) * (BPS - bps) ? amountOut : null;
  });
  return { bps, dogeToToken, tokenToDoge };
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

function dogeToTokenOut(x: bigint, y: bigint, feeBps: bigint, amountIn: bigint): { netIn: bigint; amountOut: bigint } {
  const netIn = amountIn - (amountIn * feeBps + BPS - 1n) / BPS;
  return { netIn, amountOut: (netIn * y) / (x + netIn) };
}

/**
 * Smallest amountIn in [1, cap] for which `reaches` answers (it must be monotone: once an input
 * reaches, every larger one does), starting from a guess; null when even `cap` does not.
 */
function searchDepth(guess: bigint, cap: bigint, reaches: (amountIn: bigint) => bigint | null): DepthSide | null {
  if (cap < 1n || reaches(cap) === null) return null;
  let hi = guess < 1n ? 1n : guess > cap ? cap : guess;
  let lo = 0n; // 0 never reaches
  if (reaches(hi) === null) {
    // Gallop up from the guess.
    let step = 1n;
    lo = hi;
    for (;;) {
      const next = lo + step > cap ? cap : lo + step;
      if (reaches(next) !== null) {
        hi = next;
        break;
      }
      lo = next;
      step *= 2n;
    }
  } else {
    // Gallop down from the guess.
    let step = 1n;
    for (;;) {
      const next = hi - step;
      if (next < 1n) break;
      if (reaches(next) === null) {
        lo = next;
        break;
      }
      hi = next;
      step *= 2n;
    }
  }
  // Invariant: reaches(hi), not reaches(lo), lo < hi.
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if (reaches(mid) !== null) hi = mid;
    else lo = mid;
  }
  return { amountIn: hi, amountOut: reaches(hi)! };
}
