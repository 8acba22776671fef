/**
 * Bonding curve of the launchpad: a constant product over virtual reserves, the curve the large
 * meme-coin launchpads use (pump.fun's `BondingCurve` account: virtual and real token and SOL
 * reserves, `k = virtualSol * virtualToken`, 1% fee on the SOL side; its published Global config is
 * 30 SOL virtual, 1,073,000,000 virtual tokens of which 793,100,000 real, out of 1,000,000,000).
 * The swap formulas are Uniswap v2's `getAmountOut` / `getAmountIn` (UniswapV2Library.sol) with the
 * fee moved to the DOGE side. Pure integer math on bigints: no I/O, no clock, states are immutable.
 *
 * Units: every `*Doge*` / `*Koinu` amount is in koinu (1e-8 DOGE); every token amount is in DRC-20
 * base units.
 *
 * Parametrization. The issue gives four numbers: total supply T_s, sellable supply S (sold on the
 * curve; T_s - S is kept for the AMM pool at graduation), virtual DOGE reserve V and graduation
 * threshold G (real DOGE raised). The virtual token reserve is derived so that selling the whole
 * sellable supply raises (at least, and about) G:
 *
 *   X0 = S + P,   P = floor(V * S / G)        (P: virtual-only tokens, never sold)
 *   Y0 = V,       k0 = Y0 * X0
 *   real DOGE raised when the last real token is sold >= k0 / P - V = V * S / P >= G
 *
 * P is rounded down, so the raise at sell-out is >= G: the threshold is always reachable within the
 * sellable supply (it needs P >= 1, i.e. G <= V * S, else INVALID_PARAMS). pump.fun's numbers give
 * P = 279,917,647 whole tokens for G = 85 SOL (its own 279,900,000 raise 85.005 SOL). For the AMM
 * pool to open at the curve's last price, choose T_s - S close to G * P / (V + G): pump.fun's
 * 206,900,000 ~= 85 * 279.9M / 115.
 *
 * Invariants kept by every trade (and checked by the property tests):
 * - `virtualToken - realToken = P` and `virtualDoge - realDoge = V` (both move by the same amounts);
 * - `virtualDoge * virtualToken` never decreases: outputs are rounded down, costs up;
 * - selling back every token sold pays out at most `realDoge`: `floor(sold * Y / (X + sold))` with
 *   `X + sold = X0` is at most `Y - k/X0 <= Y - V = realDoge`. A sell of more than was sold is refused,
 *   so the cap "never pay more real DOGE than the curve holds" can never bind and is not coded;
 * - when `realToken` reaches 0, `realDoge >= G` (from k >= k0), so the curve is ready to graduate.
 *
 * Trades stay possible on a curve that is ready to graduate until `graduate` is called: a service
 * that wants none after readiness graduates in the same step as the trade that made it ready.
 */
import { DogeosError } from "../errors";

/** Amounts and parameters must be below this (2^128), so that every product fits in 256 bits. */
export const AMOUNT_LIMIT = 1n << 128n;
/** Fee of the issue: 1% of the DOGE side. */
export const DEFAULT_FEE_BPS = 100n;
/** Basis points in one. */
export const BPS = 10_000n;

export type BondingErrorCode =
  /** An amount that is not a bigint, or is 0, negative or >= 2^128. */
  | "AMOUNT_OUT_OF_RANGE"
  /** Curve parameters (or a price argument) that make no sound curve. */
  | "INVALID_PARAMS"
  /** A buy on a curve with no real tokens left. */
  | "SOLD_OUT"
  /** An exact-out buy of more tokens than are left, a sell of more tokens than were sold, or of more DOGE than the curve holds. */
  | "INSUFFICIENT_LIQUIDITY"
  /** A trade that would give the trader nothing (all of it rounds away or goes to the fee). */
  | "OUTPUT_ZERO"
  /** A trade on, or a second graduation of, a graduated curve. */
  | "CURVE_GRADUATED"
  /** `graduate` on a curve that has not reached its threshold. */
  | "NOT_READY_TO_GRADUATE";

/** The one error of this module: a stable code and the values that caused it. */
export class BondingError extends DogeosError<BondingErrorCode> {
  declare readonly details: Readonly<Record<string, bigint | number | string | boolean>>;

  constructor(
    code: BondingErrorCode,
    message: string,
    details: Readonly<Record<string, bigint | number | string | boolean>> = {},
  ) {
    super("unprocessable", code, message, { details });
  }
}

export interface CurveParams {
  /** Whole supply of the token, base units. */
  totalSupply: bigint;
  /** Part of the supply sold on the curve (< totalSupply: the rest seeds the AMM pool). */
  sellableSupply: bigint;
  /** Virtual DOGE reserve at launch, koinu: sets the opening price V / (S + P). */
  virtualDoge: bigint;
  /** Real DOGE (koinu) at which the curve is ready to graduate; <= virtualDoge * sellableSupply. */
  graduationThreshold: bigint;
  /** Fee on the DOGE side of every trade, basis points, 0 <= feeBps < 10000; default 100 (1%). */
  feeBps?: bigint;
}

export interface CurveState {
  readonly totalSupply: bigint;
  readonly sellableSupply: bigint;
  readonly graduationThreshold: bigint;
  readonly feeBps: bigint;
  /** DOGE side of the constant product, koinu: the launch's virtual DOGE plus `realDoge`. */
  readonly virtualDoge: bigint;
  /** Token side of the constant product: `realToken` plus the virtual-only tokens P. */
  readonly virtualToken: bigint;
  /** DOGE buyers put into the curve net of fees, koinu: what sellers are paid from and the pool gets. */
  readonly realDoge: bigint;
  /** Tokens still for sale on the curve. */
  readonly realToken: bigint;
  /** Fees taken so far, koinu (held beside `realDoge`, never part of the curve). */
  readonly feesCollected: bigint;
  readonly graduated: boolean;
}

export interface BuyQuote {
  /** DOGE the buyer pays, fee included: what they offered less `refundKoinu`. */
  readonly dogeInKoinu: bigint;
  /** Part of `dogeInKoinu` that is fee; the rest goes into the curve. */
  readonly feeKoinu: bigint;
  readonly tokensOut: bigint;
  /** DOGE offered but not used, because the buy took the last real tokens; 0 otherwise. */
  readonly refundKoinu: bigint;
}

export interface SellQuote {
  readonly tokensIn: bigint;
  /** DOGE leaving the curve, koinu: `dogeOutKoinu + feeKoinu`. */
  readonly grossKoinu: bigint;
  readonly feeKoinu: bigint;
  /** DOGE the seller receives. */
  readonly dogeOutKoinu: bigint;
}

export interface Graduation {
  /** The curve, marked graduated; its reserves are frozen at what was handed to the pool. */
  readonly state: CurveState;
  /** DOGE that seeds the AMM pool: all of the curve's real DOGE, koinu. */
  readonly poolDoge: bigint;
  /** Tokens that seed the AMM pool: unsold real tokens plus the supply kept off the curve. */
  readonly poolToken: bigint;
  /** Fees taken during the curve's life, koinu (not part of the pool). */
  readonly feesKoinu: bigint;
}

/** Rational price: `numerator / denominator` koinu per token base unit. */
export interface SpotPrice {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

const isAmount = (value: unknown): value is bigint => typeof value === "bigint" && value > 0n && value < AMOUNT_LIMIT;

function checkAmount(value: unknown, name: string): asserts value is bigint {
  if (!isAmount(value)) {
    throw new BondingError("AMOUNT_OUT_OF_RANGE", `${name} must be a bigint in [1, 2^128), got ${show(value)}`, {
      name,
      value: show(value),
    });
  }
}

function show(value: unknown): string {
  return typeof value === "bigint" ? `${value}n` : typeof value === "string" ? JSON.stringify(value) : String(value);
}

function checkTradable(state: CurveState): void {
  if (state.graduated) throw new BondingError("CURVE_GRADUATED", "the curve has graduated: trade in its AMM pool");
}

/** ceil(a / b) for a >= 0, b > 0. */
const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/** Fee on a DOGE amount, rounded up (in the curve's favour). */
const feeOf = (amountKoinu: bigint, feeBps: bigint): bigint => (amountKoinu * feeBps + BPS - 1n) / BPS;

/**
 * Least gross g with g - feeOf(g) >= net. g - feeOf(g) = floor(g * (BPS - f) / BPS) grows by 0 or 1
 * per koinu, so at this g it equals `net` exactly.
 */
const grossForNet = (netKoinu: bigint, feeBps: bigint): bigint => ceilDiv(netKoinu * BPS, BPS - feeBps);

/**
 * A curve at launch, after checking its parameters: every amount a bigint in [1, 2^128), sellable
 * below total, threshold <= virtualDoge * sellable (at least one virtual-only token, see the header),
 * the derived virtual token reserve below 2^128, 0 <= feeBps < 10000. Otherwise INVALID_PARAMS.
 */
export function createCurve(params: CurveParams): CurveState {
  const { totalSupply, sellableSupply, virtualDoge, graduationThreshold } = params;
  const feeBps = params.feeBps === undefined ? DEFAULT_FEE_BPS : params.feeBps;
  const amounts = { totalSupply, sellableSupply, virtualDoge, graduationThreshold };
  for (const [name, value] of Object.entries(amounts)) {
    if (!isAmount(value))
      throw new BondingError("INVALID_PARAMS", `${name} must be a bigint in [1, 2^128), got ${show(value)}`, {
        name,
        value: show(value),
      });
  }
  if (typeof feeBps !== "bigint" || feeBps < 0n || feeBps >= BPS) {
    throw new BondingError("INVALID_PARAMS", `feeBps must be a bigint in [0, 10000), got ${show(feeBps)}`, {
      name: "feeBps",
      value: show(feeBps),
    });
  }
  if (sellableSupply >= totalSupply) {
    throw new BondingError(
      "INVALID_PARAMS",
      `sellableSupply ${sellableSupply} must be below totalSupply ${totalSupply}: the rest seeds the AMM pool`,
      { sellableSupply, totalSupply },
    );
  }
  const virtualOnlyTokens = (virtualDoge * sellableSupply) / graduationThreshold;
  if (virtualOnlyTokens === 0n) {
    throw new BondingError(
      "INVALID_PARAMS",
      `graduationThreshold ${graduationThreshold} is above virtualDoge * sellableSupply ${virtualDoge * sellableSupply}: the curve would need an infinite price to raise it`,
      { graduationThreshold, virtualDoge, sellableSupply },
    );
  }
  const virtualToken = sellableSupply + virtualOnlyTokens;
  if (virtualToken >= AMOUNT_LIMIT) {
    throw new BondingError(
      "INVALID_PARAMS",
      `the virtual token reserve ${virtualToken} would reach 2^128: raise graduationThreshold or lower virtualDoge`,
      { virtualToken },
    );
  }
  return {
    totalSupply,
    sellableSupply,
    graduationThreshold,
    feeBps,
    virtualDoge,
    virtualToken,
    realDoge: 0n,
    realToken: sellableSupply,
    feesCollected: 0n,
    graduated: false,
  };
}

/** Tokens the curve has sold and not bought back: `sellableSupply - realToken`. */
export const tokensSold = (state: CurveState): bigint => state.sellableSupply - state.realToken;

/** The buy quote for a `dogeInKoinu` already checked: shared by quoteBuy and quoteBuyExactOut. */
function buyQuoteOf(state: CurveState, dogeInKoinu: bigint): BuyQuote {
  checkTradable(state);
  const realToken = state.realToken;
  if (realToken === 0n) throw new BondingError("SOLD_OUT", "the curve has no real tokens left");
  const feeBps = state.feeBps;
  const fee = feeOf(dogeInKoinu, feeBps);
  const net = dogeInKoinu - fee;
  const virtualDoge = state.virtualDoge;
  const virtualToken = state.virtualToken;
  const tokensOut = (net * virtualToken) / (virtualDoge + net);
  if (tokensOut === 0n) {
    throw new BondingError("OUTPUT_ZERO", `${dogeInKoinu} koinu buys no token at the current price`, {
      dogeInKoinu,
      feeKoinu: fee,
    });
  }
  if (tokensOut <= realToken) return { dogeInKoinu, feeKoinu: fee, tokensOut, refundKoinu: 0n };
  // The last buyer takes exactly the real tokens left and pays the least net c with
  // floor(c * X / (Y + c)) >= realToken, i.e. c * (X - realToken) >= realToken * Y
  // (X - realToken = P > 0), plus the fee on it; the rest of the offer is refunded.
  const netCost = ceilDiv(realToken * virtualDoge, virtualToken - realToken);
  const gross = grossForNet(netCost, feeBps);
  return { dogeInKoinu: gross, feeKoinu: gross - netCost, tokensOut: realToken, refundKoinu: dogeInKoinu - gross };
}

/**
 * Exact-in buy: `dogeInKoinu` offered, fee ceil(in * feeBps / 10000) taken first, the rest buys
 * floor(net * X / (Y + net)) tokens; if that is more than the real tokens left, the buy takes
 * exactly those at their rounded-up cost and refunds the rest. Throws AMOUNT_OUT_OF_RANGE,
 * CURVE_GRADUATED, SOLD_OUT, OUTPUT_ZERO.
 */
export function quoteBuy(state: CurveState, dogeInKoinu: bigint): BuyQuote {
  checkAmount(dogeInKoinu, "dogeInKoinu");
  return buyQuoteOf(state, dogeInKoinu);
}

/**
 * Exact-out buy: the buy of the least DOGE (fee included) whose exact-in quote gives at least
 * `tokensOut` tokens (a koinu buys whole tokens at a time, so it may give a few more). Throws
 * AMOUNT_OUT_OF_RANGE, CURVE_GRADUATED, SOLD_OUT, INSUFFICIENT_LIQUIDITY when fewer are left.
 */
export function quoteBuyExactOut(state: CurveState, tokensOut: bigint): BuyQuote {
  checkAmount(tokensOut, "tokensOut");
  checkTradable(state);
  if (state.realToken === 0n) throw new BondingError("SOLD_OUT", "the curve has no real tokens left");
  if (tokensOut > state.realToken) {
    throw new BondingError(
      "INSUFFICIENT_LIQUIDITY",
      `${tokensOut} tokens asked, ${state.realToken} left on the curve`,
      { tokensOut, realToken: state.realToken },
    );
  }
  // Least net c with floor(c * X / (Y + c)) >= n: c * (X - n) >= n * Y (Uniswap v2 getAmountIn,
  // without its "+1", which is only needed there because the fee is on the same side).
  const netCost = ceilDiv(tokensOut * state.virtualDoge, state.virtualToken - tokensOut);
  return buyQuoteOf(state, grossForNet(netCost, state.feeBps));
}

/** The sell quote for a `tokensIn` already checked. */
function sellQuoteOf(state: CurveState, tokensIn: bigint): SellQuote {
  checkTradable(state);
  const sold = state.sellableSupply - state.realToken;
  if (tokensIn > sold) {
    throw new BondingError("INSUFFICIENT_LIQUIDITY", `${tokensIn} tokens offered, the curve sold only ${sold}`, {
      tokensIn,
      tokensSold: sold,
    });
  }
  const gross = (tokensIn * state.virtualDoge) / (state.virtualToken + tokensIn);
  const fee = feeOf(gross, state.feeBps);
  const dogeOutKoinu = gross - fee;
  if (dogeOutKoinu === 0n) {
    throw new BondingError("OUTPUT_ZERO", `${tokensIn} tokens sell for nothing after the fee`, {
      tokensIn,
      grossKoinu: gross,
    });
  }
  return { tokensIn, grossKoinu: gross, feeKoinu: fee, dogeOutKoinu };
}

/**
 * Exact-in sell: `tokensIn` tokens give gross floor(t * Y / (X + t)) koinu, of which
 * ceil(gross * feeBps / 10000) is fee. Throws AMOUNT_OUT_OF_RANGE, CURVE_GRADUATED,
 * INSUFFICIENT_LIQUIDITY (more tokens than the curve sold), OUTPUT_ZERO.
 */
export function quoteSell(state: CurveState, tokensIn: bigint): SellQuote {
  checkAmount(tokensIn, "tokensIn");
  return sellQuoteOf(state, tokensIn);
}

/**
 * Exact-out sell: the sell of the least tokens whose exact-in quote pays at least `dogeOutKoinu`
 * after the fee. Throws AMOUNT_OUT_OF_RANGE, CURVE_GRADUATED, INSUFFICIENT_LIQUIDITY when the curve
 * cannot pay it for the tokens it sold.
 */
export function quoteSellExactOut(state: CurveState, dogeOutKoinu: bigint): SellQuote {
  checkAmount(dogeOutKoinu, "dogeOutKoinu");
  checkTradable(state);
  // Least gross g with g - fee(g) >= out, then least t with floor(t * Y / (X + t)) >= g:
  // t * (Y - g) >= g * X. A gross above realDoge (< Y) is more than selling every sold token pays.
  const gross = grossForNet(dogeOutKoinu, state.feeBps);
  const sold = state.sellableSupply - state.realToken;
  if (gross > state.realDoge) {
    throw new BondingError("INSUFFICIENT_LIQUIDITY", `${dogeOutKoinu} koinu asked, the curve holds ${state.realDoge}`, {
      dogeOutKoinu,
      realDoge: state.realDoge,
    });
  }
  const tokensIn = ceilDiv(gross * state.virtualToken, state.virtualDoge - gross);
  if (tokensIn > sold) {
    throw new BondingError(
      "INSUFFICIENT_LIQUIDITY",
      `${dogeOutKoinu} koinu needs ${tokensIn} tokens, the curve sold only ${sold}`,
      { dogeOutKoinu, tokensIn, tokensSold: sold },
    );
  }
  return sellQuoteOf(state, tokensIn);
}

function applyBuy(state: CurveState, quote: BuyQuote): CurveState {
  const net = quote.dogeInKoinu - quote.feeKoinu;
  return {
    ...state,
    virtualDoge: state.virtualDoge + net,
    virtualToken: state.virtualToken - quote.tokensOut,
    realDoge: state.realDoge + net,
    realToken: state.realToken - quote.tokensOut,
    feesCollected: state.feesCollected + quote.feeKoinu,
  };
}

function applySell(state: CurveState, quote: SellQuote): CurveState {
  return {
    ...state,
    virtualDoge: state.virtualDoge - quote.grossKoinu,
    virtualToken: state.virtualToken + quote.tokensIn,
    realDoge: state.realDoge - quote.grossKoinu,
    realToken: state.realToken + quote.tokensIn,
    feesCollected: state.feesCollected + quote.feeKoinu,
  };
}

/** quoteBuy, and the curve after it. */
export function buy(state: CurveState, dogeInKoinu: bigint): { state: CurveState; quote: BuyQuote } {
  const quote = quoteBuy(state, dogeInKoinu);
  return { state: applyBuy(state, quote), quote };
}

/** quoteBuyExactOut, and the curve after it. */
export function buyExactOut(state: CurveState, tokensOut: bigint): { state: CurveState; quote: BuyQuote } {
  const quote = quoteBuyExactOut(state, tokensOut);
  return { state: applyBuy(state, quote), quote };
}

/** quoteSell, and the curve after it. */
export function sell(state: CurveState, tokensIn: bigint): { state: CurveState; quote: SellQuote } {
  const quote = quoteSell(state, tokensIn);
  return { state: applySell(state, quote), quote };
}

/** quoteSellExactOut, and the curve after it. */
export function sellExactOut(state: CurveState, dogeOutKoinu: bigint): { state: CurveState; quote: SellQuote } {
  const quote = quoteSellExactOut(state, dogeOutKoinu);
  return { state: applySell(state, quote), quote };
}

/** Marginal price of the curve, koinu per token base unit: virtualDoge / virtualToken. */
export function spotPrice(state: CurveState): SpotPrice {
  return { numerator: state.virtualDoge, denominator: state.virtualToken };
}

/**
 * Marginal price in koinu per whole token of `decimals` decimals, times 10^scaleDigits, rounded
 * down: floor(virtualDoge * 10^(decimals + scaleDigits) / virtualToken). Integers 0..18 and 0..36,
 * else INVALID_PARAMS.
 */
export function priceKoinuPerWholeToken(state: CurveState, decimals: number, scaleDigits = 0): bigint {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 18) {
    throw new BondingError("INVALID_PARAMS", `decimals must be an integer in [0, 18], got ${decimals}`, {
      name: "decimals",
      value: String(decimals),
    });
  }
  if (!Number.isInteger(scaleDigits) || scaleDigits < 0 || scaleDigits > 36) {
    throw new BondingError("INVALID_PARAMS", `scaleDigits must be an integer in [0, 36], got ${scaleDigits}`, {
      name: "scaleDigits",
      value: String(scaleDigits),
    });
  }
  return (state.virtualDoge * 10n ** BigInt(decimals + scaleDigits)) / state.virtualToken;
}

/** Real DOGE raised against the threshold, in basis points rounded down, at most 10000 (10000 when sold out). */
export function progressBps(state: CurveState): number {
  if (state.realToken === 0n || state.realDoge >= state.graduationThreshold) return 10_000;
  return Number((state.realDoge * BPS) / state.graduationThreshold);
}

/** The curve has raised its threshold or sold every real token (and has not graduated yet). */
export function readyToGraduate(state: CurveState): boolean {
  return !state.graduated && (state.realDoge >= state.graduationThreshold || state.realToken === 0n);
}

/**
 * Hands the curve to its AMM pool: all the real DOGE, and the unsold real tokens plus the supply kept
 * off the curve. Throws CURVE_GRADUATED the second time and NOT_READY_TO_GRADUATE before the threshold.
 */
export function graduate(state: CurveState): Graduation {
  if (state.graduated) throw new BondingError("CURVE_GRADUATED", "the curve has already graduated");
  if (!readyToGraduate(state)) {
    throw new BondingError(
      "NOT_READY_TO_GRADUATE",
      `the curve raised ${state.realDoge} of ${state.graduationThreshold} koinu`,
      {
        realDoge: state.realDoge,
        graduationThreshold: state.graduationThreshold,
      },
    );
  }
  return {
    state: { ...state, graduated: true },
    poolDoge: state.realDoge,
    poolToken: state.realToken + (state.totalSupply - state.sellableSupply),
    feesKoinu: state.feesCollected,
  };
}
