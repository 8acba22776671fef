import { expect } from "chai";
import { TxOutput, hexToBytes, minRelayFee } from "../../src/doge";
import {
  HARD_DUST_LIMIT,
  MIN_RELAY_FEE_RATE,
  RECOMMENDED_FEE_RATE,
  SOFT_DUST_LIMIT,
  dogecoinFee,
} from "../../src/wallet";
import vectors from "../vectors/wallet-fees.json";

interface VectorInput {
  sizeBytes: number;
  outputs: { value: string; script: string }[];
  feeRateKoinuPerKb: string;
}

const outputsOf = (input: VectorInput): TxOutput[] =>
  input.outputs.map((o) => ({ value: BigInt(o.value), script: hexToBytes(o.script) }));

describe("dogecoinFee", () => {
  it("uses Dogecoin Core 1.14.6's constants", () => {
    expect([RECOMMENDED_FEE_RATE, MIN_RELAY_FEE_RATE, SOFT_DUST_LIMIT, HARD_DUST_LIMIT]).to.deep.equal([
      1_000_000n,
      100_000n,
      1_000_000n,
      100_000n,
    ]);
  });

  for (const vector of vectors.valid) {
    it(`charges ${vector.expected} koinu: ${vector.description}`, () => {
      const input = vector.input as VectorInput;
      expect(dogecoinFee(input.sizeBytes, outputsOf(input), BigInt(input.feeRateKoinuPerKb))).to.equal(
        BigInt(vector.expected),
      );
    });
  }

  for (const vector of vectors.invalid) {
    it(`throws a ${vector.error} on ${vector.description}`, () => {
      const input = vector.input as VectorInput;
      expect(() => dogecoinFee(input.sizeBytes, outputsOf(input), BigInt(input.feeRateKoinuPerKb))).to.throw(
        RangeError,
      );
    });
  }

  it("defaults to the recommended rate", () => {
    expect(dogecoinFee(250, [])).to.equal(250_000n);
  });

  it("asks at the relay rate exactly the relay minimum the devnet enforces (src/doge/policy.ts), on every vector", () => {
    for (const vector of vectors.valid) {
      const input = vector.input as VectorInput;
      const outputs = outputsOf(input);
      expect(dogecoinFee(input.sizeBytes, outputs, MIN_RELAY_FEE_RATE), vector.description).to.equal(
        minRelayFee(input.sizeBytes, outputs),
      );
    }
  });
});
