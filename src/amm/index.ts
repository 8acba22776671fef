/**
 * AMM math for DRC-20 <-> DOGE constant-product pools (pure, no I/O). The API the AMM service
 * (src/services/amm/) is written against; math.ts documents every rounding.
 *
 * Units: bigint everywhere; DOGE in koinu, the token in DRC-20 base units, fees always in koinu.
 * Every input amount must be a bigint in [1, MAX_AMOUNT = 2^128 - 1]. Functions never mutate
 * their arguments; they return new Pool and Position objects to store. Failures throw
 * AmmMathError with a stable SNAKE_CASE `code` (AmmMathErrorCode) and the offending values in
 * `details`.
 *
 * State
 *   Pool      { dogeReserve, tokenReserve, lpSupply, feeBps, accFeePerShare, accRemainder,
 *               feesCredited, feesClaimed, feeDust }
 *   Position  { shares, feeDebt, unclaimed, unclaimedFraction }
 *   createPool(feeBps = 100n): Pool                 empty pool (lpSupply 0)
 *   emptyPosition(): Position                       a position holding nothing
 *   validatePool(pool) / validatePosition(pool, p)  throw INVALID_POOL / INVALID_POSITION
 *
 * Swaps (the fee is in DOGE, kept outside the reserves and credited to the share holders)
 *   quoteExactIn(dogeReserve, tokenReserve, feeBps, direction, amountIn): { amountOut, fee }
 *       the hot path (no pool object); same numbers and errors as swapExactIn
 *   quoteExactOut(dogeReserve, tokenReserve, feeBps, direction, amountOut): { amountIn, amountOut, fee }
 *       smallest amountIn paying >= amountOut, and quoteExactIn(amountIn) (amountOut may be larger)
 *   swapExactIn(pool, direction, amountIn): SwapResult   { direction, amountIn, amountOut, fee, priceImpactBps, pool }
 *   swapExactOut(pool, direction, amountOut): SwapResult swapExactIn on quoteExactOut's amountIn
 *   priceImpactBps(dogeReserve, tokenReserve, direction, amountIn, quote): bigint
 *       how much worse than spot the reserve's own rate is (fee excluded), rounded up, >= 1
 *
 * Liquidity
 *   addLiquidity(pool, position | null, doge, token): { pool, position, shares, dogeUsed,
 *       tokenUsed, dogeRefund, tokenRefund, locked }   first deposit: sqrt(doge*token) - 1000
 *       shares, 1000 locked; later: pro rata to the smaller side, the excess refunded
 *   removeLiquidity(pool, position, shares): { pool, position, shares, doge, token, fees }
 *       pro rata rounded down, plus every fee the position earned
 *
 * Fees (accumulator scaled by ACC_SCALE = 10^36, remainder carried: no koinu lost)
 *   creditFee(pool, fee): Pool                      swaps call it; exported for the service's tests
 *   pendingFees(pool, position): bigint             koinu earned since the last settlement
 *   claimableFees(pool, position): bigint           unclaimed + pending: what claimFees pays
 *   settlePosition(pool, position): Position        earned fees into unclaimed, debt reset
 *   addShares / removeShares(pool, position, shares): { pool, position }   share bookkeeping only
 *   claimFees(pool, position): { pool, position, amount }
 *   lockedFees(pool): bigint                        koinu earned by the 1000 locked shares (nobody's)
 *   auditFees(pool, positions): FeeAudit            feesCredited == feesClaimed + owedToProviders
 *       + lockedFees + undistributed, checked to the koinu (`balanced`)
 *
 * Helpers
 *   minAmountOut(amountOut, slippageBps): bigint    floor(amountOut * (10000 - slippage) / 10000)
 *   spotPrice(pool, scale = 10^18): bigint          floor(dogeReserve * scale / tokenReserve), koinu per token unit
 *   depth(pool, bps): { bps, dogeToToken, tokenToDoge }   smallest input moving the price by bps, per side
 *   isqrt(n): bigint                                floor(sqrt(n))
 */
export * from "./math";
