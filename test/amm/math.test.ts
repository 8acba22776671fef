import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import fc from "fast-check";
import {
  ACC_SCALE,
  AmmMathError,
  MAX_AMOUNT,
  MINIMUM_LIQUIDITY,
  addLiquidity,
  auditFees,
  claimFees,
  claimableFees,
  createPool,
  creditFee,
  depth,
  emptyPosition,
  isqrt,
  lockedFees,
  minAmountOut,
  pendingFees,
  priceImpactBps,
  quoteExactIn,
  quoteExactOut,
  removeLiquidity,
  settlePosition,
  spotPrice,
  swapExactIn,
  swapExactOut,
  validatePool,
} from "../../src/amm";
import type { Direction, Pool, Position, Quote } from "../../src/amm";

// ---------------------------------------------------------------------------------------------
// Vectors

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type Step = { op: string } & Record<string, Json>;
interface VectorInput {
  feeBps?: string;
  steps: Step[];
}
interface VectorFile {
  valid: { description: string; input: VectorInput; expected: Record<string, Json>[] }[];
  invalid: { description: string; input: VectorInput; error: string }[];
}

const vectors = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "vectors", "amm.json"), "utf8")) as VectorFile;

/** A decimal string is a bigint; anything else is passed as is, to exercise the type checks. */
const arg = (value: Json): bigint => (typeof value === "string" ? BigInt(value) : (value as unknown as bigint));

interface World {
  pool: Pool;
  positions: Map<string, Position>;
}

function runStep(world: World, step: Step): Record<string, unknown> {
  const provider = String(step.provider);
  const positionOf = (name: string) => {
    const position = world.positions.get(name);
    if (!position) throw new Error(`no position for ${name}`);
    return position;
  };
  switch (step.op) {
    case "add": {
      const result = addLiquidity(world.pool, world.positions.get(provider) ?? null, arg(step.doge), arg(step.token));
      world.pool = result.pool;
      world.positions.set(provider, result.position);
      return { ...result };
    }
    case "remove": {
      const result = removeLiquidity(world.pool, positionOf(provider), arg(step.shares));
      world.pool = result.pool;
      world.positions.set(provider, result.position);
      return { ...result };
    }
    case "claim": {
      const result = claimFees(world.pool, positionOf(provider));
      world.pool = result.pool;
      world.positions.set(provider, result.position);
      return { ...result };
    }
    case "claimable":
      return { amount: claimableFees(world.pool, positionOf(provider)) };
    case "swapExactIn": {
      const direction = step.direction as Direction;
      const { dogeReserve, tokenReserve, feeBps } = world.pool;
      const result = swapExactIn(world.pool, direction, arg(step.amountIn));
      expect(quoteExactIn(dogeReserve, tokenReserve, feeBps, direction, result.amountIn)).to.deep.equal({
        amountOut: result.amountOut,
        fee: result.fee,
      });
      world.pool = result.pool;
      return { ...result };
    }
    case "swapExactOut": {
      const direction = step.direction as Direction;
      const wanted = arg(step.amountOut);
      const before = world.pool;
      const result = swapExactOut(world.pool, direction, wanted);
      // The minimal input: one base unit less pays less than asked (or nothing at all).
      if (result.amountIn > 1n)
        expect(outOrZero(before, direction, result.amountIn - 1n) < wanted, "amountIn - 1 pays less").to.equal(true);
      world.pool = result.pool;
      return { ...result };
    }
    case "audit":
      return { ...auditFees(world.pool, [...world.positions.values()]) };
    case "minAmountOut":
      return { value: minAmountOut(arg(step.amountOut), arg(step.slippageBps)) };
    case "depth":
      return { ...depth(world.pool, arg(step.bps)) };
    default:
      throw new Error(`unknown op ${step.op}`);
  }
}

/** What an exact-in swap pays, 0 when it is refused as paying nothing. */
function outOrZero(pool: Pool, direction: Direction, amountIn: bigint): bigint {
  if (
    codeOf(() => quoteExactIn(pool.dogeReserve, pool.tokenReserve, pool.feeBps, direction, amountIn)) === "OUTPUT_ZERO"
  )
    return 0n;
  return quoteExactIn(pool.dogeReserve, pool.tokenReserve, pool.feeBps, direction, amountIn).amountOut;
}

function expectFields(actual: unknown, expected: Record<string, Json>, where: string): void {
  for (const [key, want] of Object.entries(expected)) {
    const got = (actual as Record<string, unknown>)[key];
    if (want !== null && typeof want === "object" && !Array.isArray(want)) {
      expect(got, `${where}.${key}`).to.be.an("object");
      expectFields(got, want, `${where}.${key}`);
    } else if (typeof want === "string") {
      expect(got, `${where}.${key}`).to.equal(BigInt(want));
    } else {
      expect(got, `${where}.${key}`).to.equal(want);
    }
  }
}

function newWorld(input: VectorInput): World {
  return { pool: createPool(input.feeBps === undefined ? undefined : BigInt(input.feeBps)), positions: new Map() };
}

function codeOf(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (error) {
    if (error instanceof AmmMathError) return error.code;
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Generators and a simulation for the properties

/** A bigint spread over magnitudes: 10^(digits-1)..10^digits, digits in [minDigits, maxDigits]. */
const magnitude = (minDigits: number, maxDigits: number) =>
  fc
    .integer({ min: minDigits, max: maxDigits })
    .chain((digits) => fc.bigInt({ min: 10n ** BigInt(digits - 1), max: 10n ** BigInt(digits) }));

const feeBpsArb = fc.oneof(fc.constant(100n), fc.bigInt({ min: 0n, max: 1_000n }), fc.constant(9_999n));
const directionArb = fc.constantFrom<Direction>("DOGE_TO_TOKEN", "TOKEN_TO_DOGE");

/** A pool after a first deposit by "founder", reserves from 10^3 to 10^19 on each side. */
const seededPoolArb = fc
  .record({ doge: magnitude(4, 19), token: magnitude(4, 19), feeBps: feeBpsArb })
  .filter(({ doge, token }) => isqrt(doge * token) > MINIMUM_LIQUIDITY)
  .map(({ doge, token, feeBps }) => {
    const first = addLiquidity(createPool(feeBps), null, doge, token);
    return { pool: first.pool, founder: first.position };
  });

/** An amount relative to a reserve: reserve * parts / 10^6 / 10^shift plus a few units (up to 10x the reserve). */
const relativeArb = fc.record({
  parts: fc.bigInt({ min: 1n, max: 10_000_000n }),
  shift: fc.integer({ min: 0, max: 14 }),
  jitter: fc.bigInt({ min: 0n, max: 3n }),
});
type Relative = { parts: bigint; shift: number; jitter: bigint };
const relative = (reserve: bigint, r: Relative): bigint => {
  const amount = (reserve * r.parts) / (1_000_000n * 10n ** BigInt(r.shift)) + r.jitter;
  return amount < 1n ? 1n : amount > MAX_AMOUNT ? MAX_AMOUNT : amount;
};

type Op =
  | { kind: "swap"; direction: Direction; size: Relative }
  | { kind: "add"; who: number; doge: Relative; token: Relative }
  | { kind: "remove"; who: number; percent: number }
  | { kind: "claim"; who: number };

const opArb = (providers: number): fc.Arbitrary<Op> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({ kind: fc.constant("swap" as const), direction: directionArb, size: relativeArb }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("add" as const),
        who: fc.nat(providers - 1),
        doge: relativeArb,
        token: relativeArb,
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("remove" as const),
        who: fc.nat(providers - 1),
        percent: fc.integer({ min: 1, max: 100 }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("claim" as const), who: fc.nat(providers - 1) }) },
  );

/** Exact rational, for the fees each provider is owed without any rounding. */
interface Ratio {
  num: bigint;
  den: bigint;
}
/** a + num / den, left unreduced (a few thousand bits at most here, cheaper than a gcd). */
const addRatio = (a: Ratio, num: bigint, den: bigint): Ratio =>
  a.den === den ? { num: a.num + num, den } : { num: a.num * den + num * a.den, den: a.den * den };

/** Refusals a random operation may meet; anything else fails the property. */
const EXPECTED_REFUSALS = new Set(["OUTPUT_ZERO", "RESERVE_OVERFLOW", "SHARES_ZERO"]);

interface Provider {
  position: Position;
  /** Net koinu and token units received (negative: paid in), fees included. */
  doge: bigint;
  token: bigint;
  claimed: bigint;
  owed: Ratio;
  exits: number;
}

class Simulation {
  readonly providers: Provider[];
  /** The trader's net flows (swaps only). */
  traderDoge = 0n;
  traderToken = 0n;
  feesSeen = 0n;
  lockedOwed: Ratio = { num: 0n, den: 1n };

  constructor(
    public pool: Pool,
    founder: Position,
    count: number,
  ) {
    this.providers = Array.from({ length: count }, () => ({
      position: emptyPosition(),
      doge: 0n,
      token: 0n,
      claimed: 0n,
      owed: { num: 0n, den: 1n },
      exits: 0,
    }));
    // Provider 0 is the founder: the first deposit's amounts are its outflows.
    this.providers[0].position = founder;
    this.providers[0].doge = -pool.dogeReserve;
    this.providers[0].token = -pool.tokenReserve;
  }

  /** Applies one operation; false when the math refused it (with an expected code). */
  apply(op: Op): boolean {
    const pool = Object.freeze({ ...this.pool });
    try {
      if (op.kind === "swap") {
        const reserveIn = op.direction === "DOGE_TO_TOKEN" ? pool.dogeReserve : pool.tokenReserve;
        const result = swapExactIn(pool, op.direction, relative(reserveIn, op.size));
        this.creditOwed(result.fee, pool.lpSupply);
        if (op.direction === "DOGE_TO_TOKEN") {
          this.traderDoge -= result.amountIn;
          this.traderToken += result.amountOut;
        } else {
          this.traderToken -= result.amountIn;
          this.traderDoge += result.amountOut;
        }
        this.pool = result.pool;
      } else if (op.kind === "add") {
        const who = this.providers[op.who];
        const result = addLiquidity(
          pool,
          Object.freeze({ ...who.position }),
          relative(pool.dogeReserve, op.doge),
          relative(pool.tokenReserve, op.token),
        );
        who.doge -= result.dogeUsed;
        who.token -= result.tokenUsed;
        who.position = result.position;
        this.pool = result.pool;
      } else if (op.kind === "remove") {
        const who = this.providers[op.who];
        const shares = (who.position.shares * BigInt(op.percent)) / 100n;
        if (shares === 0n) return false;
        const result = removeLiquidity(pool, Object.freeze({ ...who.position }), shares);
        who.doge += result.doge + result.fees;
        who.token += result.token;
        who.claimed += result.fees;
        if (result.position.shares === 0n) who.exits += 1;
        who.position = result.position;
        this.pool = result.pool;
      } else {
        const who = this.providers[op.who];
        const result = claimFees(pool, Object.freeze({ ...who.position }));
        who.doge += result.amount;
        who.claimed += result.amount;
        who.position = result.position;
        this.pool = result.pool;
      }
      return true;
    } catch (error) {
      if (error instanceof AmmMathError && EXPECTED_REFUSALS.has(error.code)) return false;
      throw error;
    }
  }

  /** Each holder is owed fee * shares / lpSupply exactly, the locked shares included. */
  private creditOwed(fee: bigint, lpSupply: bigint): void {
    this.feesSeen += fee;
    if (fee === 0n) return;
    for (const provider of this.providers) {
      if (provider.position.shares > 0n)
        provider.owed = addRatio(provider.owed, fee * provider.position.shares, lpSupply);
    }
    this.lockedOwed = addRatio(this.lockedOwed, fee * MINIMUM_LIQUIDITY, lpSupply);
  }

  /** Everyone leaves: every share burnt, every fee claimed. */
  exitAll(): void {
    for (const provider of this.providers) {
      if (provider.position.shares > 0n) {
        const result = removeLiquidity(this.pool, provider.position, provider.position.shares);
        provider.doge += result.doge + result.fees;
        provider.token += result.token;
        provider.claimed += result.fees;
        provider.exits += 1;
        provider.position = result.position;
        this.pool = result.pool;
      }
      const claim = claimFees(this.pool, provider.position);
      provider.doge += claim.amount;
      provider.claimed += claim.amount;
      provider.position = claim.position;
      this.pool = claim.pool;
    }
  }
}

const k = (pool: Pool) => pool.dogeReserve * pool.tokenReserve;

/** A plain assertion for the property loops: chai's matchers, as extended by hardhat, cost more than the math. */
function ok(condition: boolean, message: string): void {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}
const TOLERANCE = 10n ** 12n;

// ---------------------------------------------------------------------------------------------

describe("amm/math", () => {
  describe("test/vectors/amm.json", () => {
    for (const vector of vectors.valid) {
      it(`computes ${vector.description}`, () => {
        const world = newWorld(vector.input);
        expect(vector.expected).to.have.length(vector.input.steps.length);
        vector.input.steps.forEach((step, index) =>
          expectFields(runStep(world, step), vector.expected[index], `step ${index} (${step.op})`),
        );
      });
    }
    for (const vector of vectors.invalid) {
      it(`refuses ${vector.description} with ${vector.error}`, () => {
        const steps = vector.input.steps;
        let world: World | undefined;
        const code = codeOf(() => {
          world = newWorld(vector.input);
          for (const step of steps.slice(0, -1)) runStep(world, step);
        });
        if (steps.length === 0) {
          expect(code).to.equal(vector.error);
          return;
        }
        expect(code, "the steps before the last must succeed").to.equal(null);
        expect(codeOf(() => runStep(world!, steps[steps.length - 1]))).to.equal(vector.error);
      });
    }
  });

  describe("isqrt", () => {
    it("returns floor(sqrt(n)) for any n below 2^256", () => {
      fc.assert(
        fc.property(
          fc.oneof(fc.bigInt({ min: 0n, max: 1n << 60n }), fc.bigInt({ min: 0n, max: (1n << 256n) - 1n })),
          (n) => {
            const root = isqrt(n);
            return root * root <= n && (root + 1n) * (root + 1n) > n;
          },
        ),
        { numRuns: 500 },
      );
    });

    it("is exact around perfect squares near the 2^52 switch", () => {
      for (const root of [0n, 1n, 2n, 67_108_863n, 67_108_864n, 67_108_865n, (1n << 64n) - 1n]) {
        expect(isqrt(root * root)).to.equal(root);
        if (root > 0n) expect(isqrt(root * root - 1n)).to.equal(root - 1n);
        expect(isqrt(root * root + 2n * root)).to.equal(root);
      }
    });
  });

  describe("swaps", () => {
    it("keeps k non-decreasing for any sequence of swaps", () => {
      fc.assert(
        fc.property(
          seededPoolArb,
          fc.array(fc.tuple(directionArb, relativeArb), { minLength: 1, maxLength: 20 }),
          ({ pool: start }, swaps) => {
            let pool = start;
            for (const [direction, size] of swaps) {
              const reserveIn = direction === "DOGE_TO_TOKEN" ? pool.dogeReserve : pool.tokenReserve;
              const code = codeOf(() => {
                const next = swapExactIn(pool, direction, relative(reserveIn, size)).pool;
                if (k(next) < k(pool)) throw new Error(`k fell from ${k(pool)} to ${k(next)}`);
                pool = next;
              });
              if (code !== null) expect(["OUTPUT_ZERO", "RESERVE_OVERFLOW"]).to.include(code);
            }
          },
        ),
        { numRuns: 300 },
      );
    });

    it("quotes exactly what swapExactIn executes, refusals included", () => {
      fc.assert(
        fc.property(seededPoolArb, directionArb, relativeArb, ({ pool }, direction, size) => {
          const amountIn = relative(direction === "DOGE_TO_TOKEN" ? pool.dogeReserve : pool.tokenReserve, size);
          let quote: Quote | undefined;
          const quoteCode = codeOf(
            () => (quote = quoteExactIn(pool.dogeReserve, pool.tokenReserve, pool.feeBps, direction, amountIn)),
          );
          const swapCode = codeOf(() => {
            const result = swapExactIn(pool, direction, amountIn);
            expect({ amountOut: result.amountOut, fee: result.fee }).to.deep.equal(quote);
          });
          expect(swapCode).to.equal(quoteCode);
        }),
        { numRuns: 300 },
      );
    });

    it("never pays out more than the output reserve holds and never lowers the output for a larger input", () => {
      fc.assert(
        fc.property(seededPoolArb, directionArb, relativeArb, ({ pool }, direction, size) => {
          const amountIn = relative(direction === "DOGE_TO_TOKEN" ? pool.dogeReserve : pool.tokenReserve, size);
          if (amountIn >= MAX_AMOUNT) return;
          const out = (a: bigint) =>
            codeOf(() => quoteExactIn(pool.dogeReserve, pool.tokenReserve, pool.feeBps, direction, a)) === null
              ? quoteExactIn(pool.dogeReserve, pool.tokenReserve, pool.feeBps, direction, a).amountOut
              : -1n;
          const [here, next] = [out(amountIn), out(amountIn + 1n)];
          if (here >= 0n && next >= 0n)
            ok(next >= here, `${amountIn + 1n} pays ${next}, less than ${amountIn} (${here})`);
          if (here >= 0n)
            ok(
              here < (direction === "DOGE_TO_TOKEN" ? pool.tokenReserve : pool.dogeReserve),
              `pays ${here}, the whole reserve`,
            );
        }),
        { numRuns: 300 },
      );
    });

    it("never returns more than was put in by a round trip A -> B -> A", () => {
      fc.assert(
        fc.property(seededPoolArb, directionArb, relativeArb, ({ pool }, direction, size) => {
          const back: Direction = direction === "DOGE_TO_TOKEN" ? "TOKEN_TO_DOGE" : "DOGE_TO_TOKEN";
          const amountIn = relative(direction === "DOGE_TO_TOKEN" ? pool.dogeReserve : pool.tokenReserve, size);
          codeOf(() => {
            const there = swapExactIn(pool, direction, amountIn);
            const returned = swapExactIn(there.pool, back, there.amountOut);
            ok(returned.amountOut <= amountIn, `${amountIn} in, ${returned.amountOut} back`);
          });
        }),
        { numRuns: 300 },
      );
    });

    it("reports a price impact in [1, 10000] bps", () => {
      fc.assert(
        fc.property(seededPoolArb, directionArb, relativeArb, ({ pool }, direction, size) => {
          const amountIn = relative(direction === "DOGE_TO_TOKEN" ? pool.dogeReserve : pool.tokenReserve, size);
          codeOf(() => {
            const impact = swapExactIn(pool, direction, amountIn).priceImpactBps;
            ok(impact >= 1n && impact <= 10_000n, `impact ${impact}`);
          });
        }),
        { numRuns: 200 },
      );
    });

    it("finds the minimal exact-out input: amountIn - 1 pays less than asked", () => {
      fc.assert(
        fc.property(
          seededPoolArb,
          directionArb,
          fc.bigInt({ min: 1n, max: 1_000_000n }),
          fc.integer({ min: 0, max: 12 }),
          ({ pool }, direction, parts, shift) => {
            const reserveOut = direction === "DOGE_TO_TOKEN" ? pool.tokenReserve : pool.dogeReserve;
            const wanted = (reserveOut * parts) / (1_000_000n * 10n ** BigInt(shift)) || 1n;
            let found: (Quote & { amountIn: bigint }) | undefined;
            const code = codeOf(
              () => (found = quoteExactOut(pool.dogeReserve, pool.tokenReserve, pool.feeBps, direction, wanted)),
            );
            if (code !== null) {
              expect(["EXCESSIVE_OUTPUT", "INSUFFICIENT_LIQUIDITY", "RESERVE_OVERFLOW"]).to.include(code);
              return;
            }
            const { amountIn, amountOut } = found!;
            ok(amountOut >= wanted, `${amountIn} pays ${amountOut} < ${wanted}`);
            expect(quoteExactIn(pool.dogeReserve, pool.tokenReserve, pool.feeBps, direction, amountIn)).to.deep.equal({
              amountOut,
              fee: found!.fee,
            });
            expect(swapExactOut(pool, direction, wanted).amountIn).to.equal(amountIn);
            if (amountIn > 1n) ok(outOrZero(pool, direction, amountIn - 1n) < wanted, `${amountIn - 1n} pays enough`);
          },
        ),
        { numRuns: 300 },
      );
    });

    it("refuses exact-out at or over the output reserve with EXCESSIVE_OUTPUT", () => {
      fc.assert(
        fc.property(seededPoolArb, directionArb, fc.bigInt({ min: 0n, max: 1000n }), ({ pool }, direction, extra) => {
          const reserveOut = direction === "DOGE_TO_TOKEN" ? pool.tokenReserve : pool.dogeReserve;
          expect(
            codeOf(() =>
              quoteExactOut(pool.dogeReserve, pool.tokenReserve, pool.feeBps, direction, reserveOut + extra),
            ),
          ).to.equal("EXCESSIVE_OUTPUT");
        }),
        { numRuns: 100 },
      );
    });
  });

  describe("liquidity", () => {
    it("never returns more of either side than deposited when adding then removing", () => {
      fc.assert(
        fc.property(
          seededPoolArb,
          fc.array(fc.tuple(directionArb, relativeArb), { maxLength: 5 }),
          relativeArb,
          relativeArb,
          ({ pool: start }, swaps, dogeSize, tokenSize) => {
            let pool = start;
            for (const [direction, size] of swaps) {
              codeOf(
                () =>
                  (pool = swapExactIn(
                    pool,
                    direction,
                    relative(direction === "DOGE_TO_TOKEN" ? pool.dogeReserve : pool.tokenReserve, size),
                  ).pool),
              );
            }
            const doge = relative(pool.dogeReserve, dogeSize);
            const token = relative(pool.tokenReserve, tokenSize);
            codeOf(() => {
              const added = addLiquidity(pool, null, doge, token);
              expect(added.dogeUsed + added.dogeRefund).to.equal(doge);
              expect(added.tokenUsed + added.tokenRefund).to.equal(token);
              ok(added.dogeUsed <= doge && added.tokenUsed <= token, "takes more than offered");
              const removed = removeLiquidity(added.pool, added.position, added.shares);
              ok(removed.doge <= added.dogeUsed, `doge ${removed.doge} back for ${added.dogeUsed}`);
              ok(removed.token <= added.tokenUsed, `token ${removed.token} back for ${added.tokenUsed}`);
              ok(removed.fees === 0n, "fees without a swap");
            });
          },
        ),
        { numRuns: 300 },
      );
    });

    it("never lets a single actor end with more value at the initial price than it put in", () => {
      // The founder's deposit sets the price p0 = x0 / y0; the actor (provider 1, also the trader)
      // swaps, adds, removes and claims, then leaves. Its net flows valued at p0, times y0:
      // doge * y0 + token * x0 must not be positive.
      fc.assert(
        fc.property(seededPoolArb, fc.array(opArb(2), { minLength: 1, maxLength: 25 }), ({ pool, founder }, ops) => {
          const sim = new Simulation(pool, founder, 2);
          const [x0, y0] = [pool.dogeReserve, pool.tokenReserve];
          for (const op of ops) {
            if (op.kind !== "swap" && op.who === 0) continue;
            sim.apply(op);
          }
          const actor = sim.providers[1];
          if (actor.position.shares > 0n) {
            const result = removeLiquidity(sim.pool, actor.position, actor.position.shares);
            actor.doge += result.doge + result.fees;
            actor.token += result.token;
            sim.pool = result.pool;
            actor.position = result.position;
          }
          actor.doge += claimFees(sim.pool, actor.position).amount;
          const doge = actor.doge + sim.traderDoge;
          const token = actor.token + sim.traderToken;
          ok(doge * y0 + token * x0 <= 0n, `actor ends with ${doge} koinu and ${token} tokens at ${x0}/${y0}`);
        }),
        { numRuns: 300 },
      );
    });

    it("never lowers the value of a share: sqrt(k) / lpSupply does not decrease", () => {
      fc.assert(
        fc.property(seededPoolArb, fc.array(opArb(3), { minLength: 1, maxLength: 25 }), ({ pool, founder }, ops) => {
          const sim = new Simulation(pool, founder, 3);
          for (const op of ops) {
            const before = sim.pool;
            sim.apply(op);
            // k' / L'^2 >= k / L^2
            ok(k(sim.pool) * before.lpSupply ** 2n >= k(before) * sim.pool.lpSupply ** 2n, `after ${op.kind}`);
            validatePool(sim.pool);
          }
        }),
        { numRuns: 300 },
      );
    });
  });

  describe("fees", () => {
    it("conserves fees to the koinu: credited = claimed + owed + locked + undistributed, and each provider gets its exact share", () => {
      fc.assert(
        fc.property(seededPoolArb, fc.array(opArb(3), { minLength: 1, maxLength: 30 }), ({ pool, founder }, ops) => {
          const sim = new Simulation(pool, founder, 3);
          const check = () => {
            const positions = sim.providers.map((p) => p.position);
            const audit = auditFees(sim.pool, positions);
            const claimed = sim.providers.reduce((sum, p) => sum + p.claimed, 0n);
            ok(audit.balanced, "balanced");
            ok(sim.pool.feesCredited === sim.feesSeen, "feesCredited is the sum of the swaps' fees");
            ok(sim.pool.feesClaimed === claimed, "feesClaimed is the sum paid to the providers");
            ok(audit.feesHeld === sim.feesSeen - claimed, "feesHeld");
            // Fractions below one koinu each: the remainder, the locked shares', each position's,
            // and feeDust (under one koinu per position that emptied).
            const exits = sim.providers.reduce((sum, p) => sum + p.exits, 0);
            ok(
              audit.undistributed >= 0n && audit.undistributed < BigInt(positions.length + 2 + exits),
              `undistributed ${audit.undistributed}`,
            );
            // Paid or payable, in whole koinu, against the exact rational share: never more (but for
            // the accumulator's carried remainder, under 10^-12 koinu here), and less by under one
            // koinu, plus one per exit (the fraction of a position that empties goes to feeDust).
            const within = (got: bigint, { num, den }: Ratio, slack: bigint) =>
              got * den * TOLERANCE <= num * TOLERANCE + den && (got + slack) * den * TOLERANCE + den > num * TOLERANCE;
            for (const provider of sim.providers) {
              const got = provider.claimed + claimableFees(sim.pool, provider.position);
              // (the message is built only on failure: printing these rationals is slow)
              if (!within(got, provider.owed, BigInt(provider.exits + 1)))
                expect.fail(`provider got ${got} of ${provider.owed.num}/${provider.owed.den}`);
            }
            ok(within(audit.lockedFees, sim.lockedOwed, 1n), "locked shares' fees");
          };
          for (const op of ops) {
            sim.apply(op);
            check();
          }
          sim.exitAll();
          check();
        }),
        { numRuns: 300 },
      );
    });

    it("credits a fee through the accumulator with its remainder carried", () => {
      fc.assert(
        fc.property(
          seededPoolArb,
          fc.array(fc.bigInt({ min: 0n, max: 10n ** 20n }), { maxLength: 10 }),
          ({ pool: start }, fees) => {
            let pool = start;
            for (const fee of fees) pool = creditFee(pool, fee);
            const credited = fees.reduce((sum, fee) => sum + fee, 0n);
            expect(pool.feesCredited).to.equal(credited);
            // One share count throughout: every scaled unit is in acc * lpSupply or the remainder.
            expect(pool.accFeePerShare * pool.lpSupply + pool.accRemainder).to.equal(credited * ACC_SCALE);
            expect(pool.accRemainder < pool.lpSupply).to.equal(true);
          },
        ),
        { numRuns: 200 },
      );
    });

    it("settles without changing what the position can claim", () => {
      let pool = addLiquidity(createPool(), null, 1_000_000n, 4_000_000n).pool;
      const bob = addLiquidity(pool, null, 333_333n, 1_333_333n);
      pool = swapExactIn(bob.pool, "DOGE_TO_TOKEN", 77_777n).pool;
      const settled = settlePosition(pool, bob.position);
      expect(claimableFees(pool, settled)).to.equal(claimableFees(pool, bob.position));
      expect(pendingFees(pool, settled)).to.equal(0n);
      expect(settled.feeDebt).to.equal(settled.shares * pool.accFeePerShare);
    });

    it("credits the locked shares and leaves their fees in the vault", () => {
      let pool = addLiquidity(createPool(), null, 1_000_000n, 4_000_000n).pool;
      pool = creditFee(pool, 2_000_000n); // 1 koinu per share
      expect(lockedFees(pool)).to.equal(1_000n);
    });
  });

  describe("helpers", () => {
    it("depth returns the smallest input that moves the price by the bps asked", () => {
      fc.assert(
        fc.property(seededPoolArb, fc.constantFrom(1n, 100n, 200n, 500n, 5_000n, 9_999n), ({ pool }, bps) => {
          const result = depth(pool, bps);
          const moved = (direction: Direction, amountIn: bigint): boolean => {
            if (
              codeOf(() => quoteExactIn(pool.dogeReserve, pool.tokenReserve, pool.feeBps, direction, amountIn)) !== null
            )
              return false;
            const after = swapExactIn(pool, direction, amountIn).pool;
            // p' / p against (10000 +- bps) / 10000, p = dogeReserve / tokenReserve
            const ratioNum = after.dogeReserve * pool.tokenReserve * 10_000n;
            const ratioDen = after.tokenReserve * pool.dogeReserve;
            return direction === "DOGE_TO_TOKEN"
              ? ratioNum >= ratioDen * (10_000n + bps)
              : ratioNum <= ratioDen * (10_000n - bps);
          };
          for (const [direction, side] of [
            ["DOGE_TO_TOKEN", result.dogeToToken],
            ["TOKEN_TO_DOGE", result.tokenToDoge],
          ] as const) {
            if (side === null) {
              expect(
                moved(
                  direction,
                  direction === "DOGE_TO_TOKEN" ? MAX_AMOUNT - pool.dogeReserve : MAX_AMOUNT - pool.tokenReserve,
                ),
              ).to.equal(false);
              continue;
            }
            expect(moved(direction, side.amountIn), `${direction} ${side.amountIn}`).to.equal(true);
            expect(
              quoteExactIn(pool.dogeReserve, pool.tokenReserve, pool.feeBps, direction, side.amountIn).amountOut,
            ).to.equal(side.amountOut);
            if (side.amountIn > 1n)
              expect(moved(direction, side.amountIn - 1n), `${direction} ${side.amountIn - 1n}`).to.equal(false);
          }
        }),
        { numRuns: 150 },
      );
    });

    it("spotPrice is koinu per token unit scaled by 10^18, rounded down", () => {
      expect(spotPrice({ dogeReserve: 1_000_000n, tokenReserve: 3_000_000n })).to.equal(333_333_333_333_333_333n);
      expect(spotPrice({ dogeReserve: 1_000_000n, tokenReserve: 3_000_000n }, 1_000n)).to.equal(333n);
    });

    it("priceImpactBps is computed from the reserves and a quote alone", () => {
      const quote = quoteExactIn(1_000_000n, 4_000_000n, 100n, "TOKEN_TO_DOGE", 40_000n);
      expect(priceImpactBps(1_000_000n, 4_000_000n, "TOKEN_TO_DOGE", 40_000n, quote)).to.equal(100n);
    });

    it("leaves its arguments as they were", () => {
      const first = addLiquidity(createPool(), null, 1_000_000n, 4_000_000n);
      const pool = Object.freeze({ ...first.pool });
      const position = Object.freeze({ ...first.position });
      const snapshot = JSON.stringify({ pool, position }, (_key, value) =>
        typeof value === "bigint" ? value.toString() : value,
      );
      const swapped = swapExactIn(pool, "DOGE_TO_TOKEN", 10_000n);
      addLiquidity(swapped.pool, position, 5_000n, 5_000n);
      removeLiquidity(swapped.pool, position, 1_000n);
      claimFees(swapped.pool, position);
      expect(
        JSON.stringify({ pool, position }, (_key, value) => (typeof value === "bigint" ? value.toString() : value)),
      ).to.equal(snapshot);
    });
  });

  describe("bad input", () => {
    const pool = addLiquidity(createPool(), null, 1_000_000n, 4_000_000n);
    const bad: [string, unknown][] = [
      ["0", 0n],
      ["-1", -1n],
      ["2^128", MAX_AMOUNT + 1n],
      ["the number 1000", 1000],
      ['the string "1000"', "1000"],
      ["null", null],
      ["undefined", undefined],
    ];
    const entryPoints: [string, (value: bigint) => unknown][] = [
      ["quoteExactIn's amountIn", (v) => quoteExactIn(1_000_000n, 4_000_000n, 100n, "DOGE_TO_TOKEN", v)],
      ["quoteExactOut's amountOut", (v) => quoteExactOut(1_000_000n, 4_000_000n, 100n, "TOKEN_TO_DOGE", v)],
      ["swapExactIn's amountIn", (v) => swapExactIn(pool.pool, "TOKEN_TO_DOGE", v)],
      ["swapExactOut's amountOut", (v) => swapExactOut(pool.pool, "DOGE_TO_TOKEN", v)],
      ["addLiquidity's doge", (v) => addLiquidity(pool.pool, null, v, 1_000n)],
      ["addLiquidity's token", (v) => addLiquidity(createPool(), null, 1_000_000n, v)],
      ["removeLiquidity's shares", (v) => removeLiquidity(pool.pool, pool.position, v)],
      ["minAmountOut's amountOut", (v) => minAmountOut(v, 50n)],
    ];
    for (const [name, call] of entryPoints) {
      it(`refuses ${bad.map(([label]) => label).join(", ")} as ${name} with AMOUNT_OUT_OF_RANGE`, () => {
        for (const [label, value] of bad) {
          expect(
            codeOf(() => call(value as bigint)),
            label,
          ).to.equal("AMOUNT_OUT_OF_RANGE");
        }
      });
    }

    it("refuses a bad fee, slippage, depth or direction with its own code", () => {
      expect(codeOf(() => createPool(-1n))).to.equal("FEE_OUT_OF_RANGE");
      expect(codeOf(() => createPool(10_000n))).to.equal("FEE_OUT_OF_RANGE");
      expect(codeOf(() => createPool(100 as unknown as bigint))).to.equal("FEE_OUT_OF_RANGE");
      expect(codeOf(() => quoteExactIn(1_000_000n, 4_000_000n, 10_000n, "DOGE_TO_TOKEN", 1_000n))).to.equal(
        "FEE_OUT_OF_RANGE",
      );
      expect(codeOf(() => minAmountOut(100n, -1n))).to.equal("SLIPPAGE_OUT_OF_RANGE");
      expect(codeOf(() => minAmountOut(100n, 10_001n))).to.equal("SLIPPAGE_OUT_OF_RANGE");
      expect(codeOf(() => depth(pool.pool, 10_000n))).to.equal("BPS_OUT_OF_RANGE");
      expect(codeOf(() => quoteExactIn(1_000_000n, 4_000_000n, 100n, "SELL" as Direction, 1_000n))).to.equal(
        "INVALID_DIRECTION",
      );
      expect(codeOf(() => quoteExactIn(0n, 4_000_000n, 100n, "DOGE_TO_TOKEN", 1_000n))).to.equal("POOL_EMPTY");
      expect(codeOf(() => quoteExactIn(MAX_AMOUNT + 1n, 4_000_000n, 100n, "DOGE_TO_TOKEN", 1_000n))).to.equal(
        "INVALID_POOL",
      );
    });

    it("refuses an inconsistent pool or position", () => {
      expect(codeOf(() => swapExactIn({ ...pool.pool, tokenReserve: 0n }, "DOGE_TO_TOKEN", 1_000n))).to.equal(
        "INVALID_POOL",
      );
      expect(codeOf(() => swapExactIn({ ...pool.pool, feesClaimed: 1n }, "DOGE_TO_TOKEN", 1_000n))).to.equal(
        "INVALID_POOL",
      );
      expect(codeOf(() => claimFees(pool.pool, { ...pool.position, feeDebt: 1n }))).to.equal("INVALID_POSITION");
      expect(codeOf(() => claimFees(pool.pool, { ...pool.position, shares: pool.pool.lpSupply }))).to.equal(
        "SHARES_EXCEED_SUPPLY",
      );
    });

    it("refuses with WITHDRAWAL_ZERO a burn paying nothing, possible only on a pool not built by this module", () => {
      // lpSupply^2 <= dogeReserve * tokenReserve holds for every pool these functions return, so
      // one share always pays something; a hand-made pool breaks it.
      const odd: Pool = { ...createPool(), dogeReserve: 10n, tokenReserve: 10n, lpSupply: 1_000_000n };
      expect(codeOf(() => removeLiquidity(odd, { ...emptyPosition(), shares: 1n }, 1n))).to.equal("WITHDRAWAL_ZERO");
    });

    it("carries the offending values in details", () => {
      try {
        quoteExactIn(1_000_000n, 4_000_000n, 100n, "DOGE_TO_TOKEN", -5n);
        expect.fail("no error");
      } catch (error) {
        expect(error).to.be.instanceOf(AmmMathError);
        expect((error as AmmMathError).details).to.deep.equal({ field: "amountIn", value: -5n });
      }
    });
  });
});
