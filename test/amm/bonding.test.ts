import { expect } from "chai";
import fc from "fast-check";
import {
  AMOUNT_LIMIT,
  BondingError,
  buy,
  buyExactOut,
  createCurve,
  graduate,
  priceKoinuPerWholeToken,
  progressBps,
  quoteBuy,
  quoteBuyExactOut,
  quoteSell,
  quoteSellExactOut,
  readyToGraduate,
  sell,
  sellExactOut,
  spotPrice,
  tokensSold,
} from "../../src/amm/bonding";
import type { BondingErrorCode, BuyQuote, CurveParams, CurveState, SellQuote } from "../../src/amm/bonding";
import vectors from "../vectors/bonding.json";

type Op = "create" | "buy" | "buyExactOut" | "sell" | "sellExactOut" | "graduate";
interface Step {
  op: string;
  amount?: string;
}
interface VectorInput extends Step {
  curve?: string;
  params?: Record<string, string>;
  setup?: Step[];
}

const BPS = 10_000n;
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

function paramsOf(input: VectorInput): CurveParams {
  const raw = (input.params ?? (vectors.curves as Record<string, Record<string, string>>)[input.curve!]) as Record<
    string,
    string
  >;
  return {
    totalSupply: BigInt(raw.totalSupply),
    sellableSupply: BigInt(raw.sellableSupply),
    virtualDoge: BigInt(raw.virtualDoge),
    graduationThreshold: BigInt(raw.graduationThreshold),
    ...(raw.feeBps === undefined ? {} : { feeBps: BigInt(raw.feeBps) }),
  };
}

/** Runs one vector step: the quote or graduation it gave and the state after it. */
function runStep(
  state: CurveState,
  step: Step,
): {
  state: CurveState;
  quote?: BuyQuote | SellQuote;
  graduation?: { poolDoge: bigint; poolToken: bigint; feesKoinu: bigint };
} {
  const amount = step.amount === undefined ? 0n : BigInt(step.amount);
  switch (step.op as Op) {
    case "buy":
      return buy(state, amount);
    case "buyExactOut":
      return buyExactOut(state, amount);
    case "sell":
      return sell(state, amount);
    case "sellExactOut":
      return sellExactOut(state, amount);
    case "graduate": {
      const graduation = graduate(state);
      return { state: graduation.state, graduation };
    }
    default:
      throw new Error(`unknown op ${step.op}`);
  }
}

function runVector(input: VectorInput) {
  const params = paramsOf(input);
  if (input.op === "create") return { state: createCurve(params) };
  let state = createCurve(params);
  for (const step of input.setup ?? []) state = runStep(state, step).state;
  return runStep(state, input);
}

/** The stringified fields of `actual` named in `expected`. */
function pick(actual: object, expected: Record<string, unknown>): Record<string, unknown> {
  const fields = actual as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(expected).map((key) => [key, typeof fields[key] === "bigint" ? String(fields[key]) : fields[key]]),
  );
}

function codeOf(call: () => unknown): BondingErrorCode | null {
  try {
    call();
    return null;
  } catch (error) {
    if (error instanceof BondingError) return error.code;
    throw error;
  }
}

const small = () =>
  createCurve({ totalSupply: 1000n, sellableSupply: 800n, virtualDoge: 100n, graduationThreshold: 400n });

describe("bonding curve", () => {
  describe("vectors", () => {
    for (const vector of vectors.valid) {
      it(vector.description, () => {
        const result = runVector(vector.input as VectorInput);
        const expected = vector.expected as unknown as Record<
          string,
          Record<string, unknown> | string | number | boolean | undefined
        >;
        if (expected.quote)
          expect(pick(result.quote!, expected.quote as Record<string, unknown>)).to.deep.equal(expected.quote);
        if (expected.graduation)
          expect(pick(result.graduation!, expected.graduation as Record<string, unknown>)).to.deep.equal(
            expected.graduation,
          );
        if (expected.state)
          expect(pick(result.state, expected.state as Record<string, unknown>)).to.deep.equal(expected.state);
        if (expected.spotPrice)
          expect(pick(spotPrice(result.state), expected.spotPrice as Record<string, unknown>)).to.deep.equal(
            expected.spotPrice,
          );
        if (expected.priceAt2Decimals !== undefined)
          expect(String(priceKoinuPerWholeToken(result.state, 2))).to.equal(expected.priceAt2Decimals);
        if (expected.priceAt6Decimals !== undefined)
          expect(String(priceKoinuPerWholeToken(result.state, 6))).to.equal(expected.priceAt6Decimals);
        if (expected.progressBps !== undefined) expect(progressBps(result.state)).to.equal(expected.progressBps);
        if (expected.readyToGraduate !== undefined)
          expect(readyToGraduate(result.state)).to.equal(expected.readyToGraduate);
      });
    }

    for (const vector of vectors.invalid) {
      it(`throws ${vector.error} on ${vector.description}`, () => {
        const input = vector.input as VectorInput;
        // The setup must succeed: only the last step is expected to throw.
        if (input.op !== "create") {
          let state = createCurve(paramsOf(input));
          for (const step of input.setup ?? []) state = runStep(state, step).state;
          expect(codeOf(() => runStep(state, input))).to.equal(vector.error);
        } else {
          expect(codeOf(() => createCurve(paramsOf(input)))).to.equal(vector.error);
        }
      });
    }
  });

  describe("createCurve", () => {
    it("defaults the fee to 100 bps", () => {
      expect(small().feeBps).to.equal(100n);
    });

    it("refuses parameters that are not bigints with INVALID_PARAMS", () => {
      const good = {
        totalSupply: 1000n,
        sellableSupply: 800n,
        virtualDoge: 100n,
        graduationThreshold: 400n,
        feeBps: 100n,
      };
      for (const name of Object.keys(good)) {
        for (const bad of [100, "100", undefined, null, 1.5]) {
          if (name === "feeBps" && bad === undefined) continue; // absent means the default
          const params = { ...good, [name]: bad } as unknown as CurveParams;
          expect(
            codeOf(() => createCurve(params)),
            `${name} = ${String(bad)}`,
          ).to.equal("INVALID_PARAMS");
        }
      }
    });

    it("raises at least the threshold when the whole sellable supply is sold", () => {
      fc.assert(
        fc.property(curveArbitrary, (state) => {
          const { state: soldOut } = buyExactOut(state, state.realToken);
          expect(soldOut.realToken).to.equal(0n);
          expect(soldOut.realDoge >= state.graduationThreshold).to.equal(true);
          expect(readyToGraduate(soldOut)).to.equal(true);
        }),
      );
    });
  });

  describe("bad input", () => {
    const amounts: unknown[] = [0n, -1n, AMOUNT_LIMIT, AMOUNT_LIMIT + 1n, 1, 10, "10", 1.5, null, undefined, {}];
    const calls: [string, (state: CurveState, amount: bigint) => unknown][] = [
      ["quoteBuy", quoteBuy],
      ["quoteBuyExactOut", quoteBuyExactOut],
      ["quoteSell", quoteSell],
      ["quoteSellExactOut", quoteSellExactOut],
      ["buy", buy],
      ["buyExactOut", buyExactOut],
      ["sell", sell],
      ["sellExactOut", sellExactOut],
    ];
    for (const [name, call] of calls) {
      it(`${name} throws AMOUNT_OUT_OF_RANGE on 0, negatives, 2^128 and non-bigints`, () => {
        const state = buy(small(), 100n).state;
        for (const amount of amounts)
          expect(
            codeOf(() => call(state, amount as bigint)),
            String(amount),
          ).to.equal("AMOUNT_OUT_OF_RANGE");
      });
    }

    it("accepts 2^128 - 1 as an amount", () => {
      const { quote } = buy(small(), AMOUNT_LIMIT - 1n);
      expect(quote.tokensOut).to.equal(800n);
      expect(quote.refundKoinu).to.equal(AMOUNT_LIMIT - 1n - 405n);
    });

    it("carries the values that caused the error", () => {
      const state = buy(small(), 10n).state;
      try {
        sell(state, 83n);
        expect.fail("sell should throw");
      } catch (error) {
        expect(error).to.be.instanceOf(BondingError);
        expect((error as BondingError).details).to.deep.equal({ tokensIn: 83n, tokensSold: 82n });
        expect((error as BondingError).name).to.equal("BondingError");
      }
    });

    it("refuses decimals and scales that are not small non-negative integers with INVALID_PARAMS", () => {
      for (const [decimals, scale] of [
        [-1, 0],
        [19, 0],
        [1.5, 0],
        [NaN, 0],
        [8, -1],
        [8, 37],
        [8, 0.5],
      ]) {
        expect(
          codeOf(() => priceKoinuPerWholeToken(small(), decimals, scale)),
          `${decimals}, ${scale}`,
        ).to.equal("INVALID_PARAMS");
      }
      expect(priceKoinuPerWholeToken(small(), 2, 3)).to.equal(10_000n);
    });
  });

  describe("properties", () => {
    it("keeps every invariant over any sequence of trades, and no set of traders who sell everything back ends with more DOGE than it paid", () => {
      fc.assert(
        fc.property(curveArbitrary, fc.array(actionArbitrary(3), { maxLength: 30 }), (state, actions) => {
          const model = new Model(state, 3);
          for (const action of actions) model.apply(action);
          model.sellEverythingBack();
          expect(model.received() <= model.paid()).to.equal(true);
          model.graduateIfReady();
        }),
        { numRuns: 100 },
      );
    });

    it("gives a single trader back no more DOGE than they put in, over any sequence of their buys and sells", () => {
      fc.assert(
        fc.property(curveArbitrary, fc.array(actionArbitrary(1), { maxLength: 20 }), (state, actions) => {
          const model = new Model(state, 1);
          for (const action of actions) model.apply(action);
          model.sellEverythingBack();
          expect(model.received() <= model.paid()).to.equal(true);
        }),
        { numRuns: 100 },
      );
    });

    it("quotes the least DOGE for an exact-out buy and the least tokens for an exact-out sell", () => {
      fc.assert(
        fc.property(
          curveArbitrary,
          fc.integer({ min: 0, max: 1_000_000 }),
          fc.integer({ min: 1, max: 1_000_000 }),
          fc.bigInt({ min: 0n, max: 5n }),
          (state, boughtPpm, askPpm, jitter) => {
            const bought = (state.realToken * BigInt(boughtPpm)) / 1_000_000n;
            if (bought > 0n) state = buyExactOut(state, bought).state;
            if (state.realToken > 0n) {
              const tokens = clamp((state.realToken * BigInt(askPpm)) / 1_000_000n + jitter, 1n, state.realToken);
              expectMinimalBuy(state, tokens);
            }
            const sold = tokensSold(state);
            if (sold > 0n && state.realDoge > 0n) {
              const doge = clamp((state.realDoge * BigInt(askPpm)) / 1_000_000n + jitter, 1n, state.realDoge);
              expectMinimalSell(state, doge);
            }
          },
        ),
        { numRuns: 300 },
      );
    });
  });
});

function clamp(value: bigint, min: bigint, max: bigint): bigint {
  return value < min ? min : value > max ? max : value;
}

/** Scales 1..1e3, 1..1e15 and 1..1e30 so that rounding at tiny reserves and huge ones are both tried. */
const amountArbitrary = fc.oneof(
  fc.bigInt({ min: 1n, max: 1000n }),
  fc.bigInt({ min: 1n, max: 10n ** 15n }),
  fc.bigInt({ min: 1n, max: 10n ** 30n }),
);

/** A valid curve: the threshold is derived from a wanted number of virtual-only tokens. */
const curveArbitrary: fc.Arbitrary<CurveState> = fc
  .record({
    sellableSupply: amountArbitrary,
    keptSupply: amountArbitrary,
    virtualDoge: fc.oneof(
      fc.bigInt({ min: 1n, max: 1000n }),
      fc.bigInt({ min: 1n, max: 10n ** 12n }),
      fc.bigInt({ min: 1n, max: 10n ** 20n }),
    ),
    virtualOnlyTokens: amountArbitrary,
    feeBps: fc.oneof(fc.constant(0n), fc.constant(100n), fc.bigInt({ min: 0n, max: 9999n })),
  })
  .map(({ sellableSupply, keptSupply, virtualDoge, virtualOnlyTokens, feeBps }) => {
    const threshold = clamp((virtualDoge * sellableSupply) / virtualOnlyTokens, 1n, AMOUNT_LIMIT - 1n);
    return createCurve({
      totalSupply: sellableSupply + keptSupply,
      sellableSupply,
      virtualDoge,
      graduationThreshold: threshold,
      feeBps,
    });
  });

interface Action {
  kind: "buy" | "buyExactOut" | "sell" | "sellExactOut";
  trader: number;
  /** Size of the trade in millionths of what is at stake (threshold, real tokens, balance). */
  ppm: number;
  jitter: bigint;
}

const actionArbitrary = (traders: number): fc.Arbitrary<Action> =>
  fc.record({
    kind: fc.constantFrom("buy" as const, "buyExactOut" as const, "sell" as const, "sellExactOut" as const),
    trader: fc.integer({ min: 0, max: traders - 1 }),
    ppm: fc.oneof(
      { weight: 3, arbitrary: fc.integer({ min: 0, max: 50_000 }) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 1_000_000 }) },
    ),
    jitter: fc.bigInt({ min: 0n, max: 3n }),
  });

/** Price after >= price before, as rationals Y/X. */
const priceNotBelow = (after: CurveState, before: CurveState) =>
  after.virtualDoge * before.virtualToken >= before.virtualDoge * after.virtualToken;

function expectMinimalBuy(state: CurveState, tokens: bigint): void {
  const quote = quoteBuyExactOut(state, tokens);
  expect(quote.tokensOut >= tokens).to.equal(true);
  expect(quote.refundKoinu).to.equal(0n);
  expect(quoteBuy(state, quote.dogeInKoinu)).to.deep.equal(quote);
  if (quote.dogeInKoinu > 1n) {
    let fewer: bigint;
    try {
      fewer = quoteBuy(state, quote.dogeInKoinu - 1n).tokensOut;
    } catch (error) {
      expect((error as BondingError).code).to.equal("OUTPUT_ZERO");
      fewer = 0n;
    }
    expect(fewer < tokens, "one koinu less buys fewer tokens").to.equal(true);
  }
}

function expectMinimalSell(state: CurveState, doge: bigint): void {
  let quote: SellQuote;
  try {
    quote = quoteSellExactOut(state, doge);
  } catch (error) {
    // Only when even every sold token cannot pay it.
    expect((error as BondingError).code).to.equal("INSUFFICIENT_LIQUIDITY");
    const all = tokensSold(state);
    const code = codeOf(() => quoteSell(state, all));
    if (code === null) expect(quoteSell(state, all).dogeOutKoinu < doge).to.equal(true);
    return;
  }
  expect(quote.dogeOutKoinu >= doge).to.equal(true);
  expect(quoteSell(state, quote.tokensIn)).to.deep.equal(quote);
  if (quote.tokensIn > 1n) {
    let less: bigint;
    try {
      less = quoteSell(state, quote.tokensIn - 1n).dogeOutKoinu;
    } catch (error) {
      expect((error as BondingError).code).to.equal("OUTPUT_ZERO");
      less = 0n;
    }
    expect(less < doge, "one token less pays less").to.equal(true);
  }
}

/** A curve and its traders' ledgers; every step checks the curve against the ledgers. */
class Model {
  private readonly virtualOnlyTokens: bigint;
  private readonly virtualDoge0: bigint;
  private readonly paidKoinu: bigint[];
  private readonly receivedKoinu: bigint[];
  private readonly balances: bigint[];

  constructor(
    private state: CurveState,
    traders: number,
  ) {
    this.virtualOnlyTokens = state.virtualToken - state.realToken;
    this.virtualDoge0 = state.virtualDoge;
    this.paidKoinu = Array.from({ length: traders }, () => 0n);
    this.receivedKoinu = Array.from({ length: traders }, () => 0n);
    this.balances = Array.from({ length: traders }, () => 0n);
  }

  paid = () => this.paidKoinu.reduce((a, b) => a + b, 0n);
  received = () => this.receivedKoinu.reduce((a, b) => a + b, 0n);

  apply(action: Action): void {
    const state = this.state;
    const ppm = BigInt(action.ppm);
    const trader = action.trader;
    switch (action.kind) {
      case "buy": {
        // Up to 1.2 times the threshold: a buy of the whole threshold may still leave tokens (P is rounded down).
        const offered = clamp(
          (state.graduationThreshold * 12n * ppm) / 10_000_000n + action.jitter,
          1n,
          AMOUNT_LIMIT - 1n,
        );
        const code = codeOf(() => quoteBuy(state, offered));
        if (code !== null) {
          expect(code).to.equal(state.realToken === 0n ? "SOLD_OUT" : "OUTPUT_ZERO");
          return;
        }
        const { state: next, quote } = buy(state, offered);
        expect(quote).to.deep.equal(quoteBuy(state, offered));
        expect(quote.dogeInKoinu + quote.refundKoinu).to.equal(offered);
        if (quote.refundKoinu > 0n) {
          // Capped: the last real tokens at exactly what an exact-out buy of them costs.
          expect(quote.tokensOut).to.equal(state.realToken);
          expect(quoteBuyExactOut(state, state.realToken).dogeInKoinu).to.equal(quote.dogeInKoinu);
        } else {
          expect(quoteBuyExactOut(state, quote.tokensOut).dogeInKoinu <= quote.dogeInKoinu).to.equal(true);
        }
        this.afterBuy(trader, next, quote);
        return;
      }
      case "buyExactOut": {
        const tokens = (state.realToken * ppm) / 1_000_000n + action.jitter || 1n;
        const code = codeOf(() => quoteBuyExactOut(state, tokens));
        if (code !== null) {
          expect(code).to.equal(state.realToken === 0n ? "SOLD_OUT" : "INSUFFICIENT_LIQUIDITY");
          expect(tokens > state.realToken).to.equal(true);
          return;
        }
        expectMinimalBuy(state, tokens);
        const { state: next, quote } = buyExactOut(state, tokens);
        expect(quote).to.deep.equal(quoteBuyExactOut(state, tokens));
        this.afterBuy(trader, next, quote);
        return;
      }
      case "sell": {
        const balance = this.balances[trader];
        if (balance === 0n) return;
        const tokens = clamp((balance * ppm) / 1_000_000n + action.jitter, 1n, balance);
        const code = codeOf(() => quoteSell(state, tokens));
        if (code !== null) {
          expect(code).to.equal("OUTPUT_ZERO");
          return;
        }
        const { state: next, quote } = sell(state, tokens);
        expect(quote).to.deep.equal(quoteSell(state, tokens));
        this.afterSell(trader, next, quote);
        return;
      }
      case "sellExactOut": {
        const balance = this.balances[trader];
        if (balance === 0n) return;
        const worth = (balance * state.virtualDoge) / (state.virtualToken + balance);
        const doge = (worth * ppm) / 1_000_000n + action.jitter || 1n;
        const code = codeOf(() => quoteSellExactOut(state, doge));
        if (code !== null) {
          expect(code).to.equal("INSUFFICIENT_LIQUIDITY");
          return;
        }
        expectMinimalSell(state, doge);
        const quote = quoteSellExactOut(state, doge);
        if (quote.tokensIn > balance) return; // more than this trader holds
        const { state: next, quote: applied } = sellExactOut(state, doge);
        expect(applied).to.deep.equal(quote);
        this.afterSell(trader, next, quote);
        return;
      }
    }
  }

  /** Every trader sells all they hold in one sell (tokens worth nothing after the fee stay with them). */
  sellEverythingBack(): void {
    for (let trader = 0; trader < this.balances.length; trader++) {
      const balance = this.balances[trader];
      if (balance === 0n) continue;
      const code = codeOf(() => quoteSell(this.state, balance));
      if (code !== null) {
        expect(code).to.equal("OUTPUT_ZERO");
        continue;
      }
      const { state, quote } = sell(this.state, balance);
      this.afterSell(trader, state, quote);
    }
  }

  graduateIfReady(): void {
    if (!readyToGraduate(this.state)) {
      expect(codeOf(() => graduate(this.state))).to.equal("NOT_READY_TO_GRADUATE");
      return;
    }
    const graduation = graduate(this.state);
    const held = this.balances.reduce((a, b) => a + b, 0n);
    expect(graduation.poolDoge).to.equal(this.state.realDoge);
    expect(graduation.poolToken + held).to.equal(this.state.totalSupply);
    expect(graduation.poolDoge + graduation.feesKoinu).to.equal(this.paid() - this.received());
    expect(graduation.state.graduated).to.equal(true);
    expect(codeOf(() => quoteBuy(graduation.state, 1000n))).to.equal("CURVE_GRADUATED");
    expect(codeOf(() => graduate(graduation.state))).to.equal("CURVE_GRADUATED");
  }

  private afterBuy(trader: number, next: CurveState, quote: BuyQuote): void {
    const before = this.state;
    const net = quote.dogeInKoinu - quote.feeKoinu;
    expect(quote.feeKoinu).to.equal(ceilDiv(quote.dogeInKoinu * before.feeBps, BPS));
    expect(quote.tokensOut > 0n && quote.tokensOut <= before.realToken).to.equal(true);
    expect(next.virtualDoge - before.virtualDoge).to.equal(net);
    expect(before.virtualToken - next.virtualToken).to.equal(quote.tokensOut);
    expect(priceNotBelow(next, before), "a buy never lowers the price").to.equal(true);
    this.paidKoinu[trader] += quote.dogeInKoinu;
    this.balances[trader] += quote.tokensOut;
    this.state = next;
    this.checkInvariants(before);
  }

  private afterSell(trader: number, next: CurveState, quote: SellQuote): void {
    const before = this.state;
    expect(quote.feeKoinu).to.equal(ceilDiv(quote.grossKoinu * before.feeBps, BPS));
    expect(quote.dogeOutKoinu).to.equal(quote.grossKoinu - quote.feeKoinu);
    expect(quote.dogeOutKoinu > 0n).to.equal(true);
    expect(before.virtualDoge - next.virtualDoge).to.equal(quote.grossKoinu);
    expect(next.virtualToken - before.virtualToken).to.equal(quote.tokensIn);
    expect(priceNotBelow(before, next), "a sell never raises the price").to.equal(true);
    this.receivedKoinu[trader] += quote.dogeOutKoinu;
    this.balances[trader] -= quote.tokensIn;
    this.state = next;
    this.checkInvariants(before);
  }

  private checkInvariants(before: CurveState): void {
    const state = this.state;
    expect(state.realToken >= 0n && state.realToken <= state.sellableSupply, "0 <= realToken <= sellable").to.equal(
      true,
    );
    expect(state.realDoge >= 0n).to.equal(true);
    expect(state.virtualToken - state.realToken).to.equal(this.virtualOnlyTokens);
    expect(state.virtualDoge - state.realDoge).to.equal(this.virtualDoge0);
    expect(
      state.virtualDoge * state.virtualToken >= before.virtualDoge * before.virtualToken,
      "k never decreases",
    ).to.equal(true);
    // Tokens bought minus sold are the tokens gone from the curve.
    expect(this.balances.reduce((a, b) => a + b, 0n)).to.equal(state.sellableSupply - state.realToken);
    // Every koinu paid in and not paid out is in the curve or its fees.
    expect(state.realDoge + state.feesCollected).to.equal(this.paid() - this.received());
    // What the curve owes: selling back every token outstanding at once never pays more than it holds.
    const sold = tokensSold(state);
    expect(
      (sold * state.virtualDoge) / (state.virtualToken + sold) <= state.realDoge,
      "realDoge covers every outstanding token",
    ).to.equal(true);
    expect(progressBps(state) >= 0 && progressBps(state) <= 10_000).to.equal(true);
  }
}
