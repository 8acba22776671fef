import { expect } from "chai";
import fc from "fast-check";
import { flowIntoCoinbase, flowThrough } from "../../src/indexer/flow";

describe("indexer/flow", () => {
  describe("flowThrough", () => {
    it("puts a new inscription on the first koinu of output 0", () => {
      const result = flowThrough(
        [{ value: 100_000n, inscriptions: [] }],
        [1_000n, 98_000n],
        [{ id: "a", inputIndex: 0 }],
      );
      expect(result.toOutputs).to.deep.equal([{ id: "a", vout: 0, offset: 0n }]);
    });

    it("follows an inscription first-in-first-out across inputs and outputs", () => {
      const result = flowThrough(
        [
          { value: 500n, inscriptions: [{ id: "x", offset: 100n }] },
          { value: 1_000n, inscriptions: [{ id: "y", offset: 0n }] },
        ],
        [500n, 900n],
      );
      expect(result.toOutputs).to.deep.equal([
        { id: "x", vout: 0, offset: 100n },
        { id: "y", vout: 1, offset: 0n },
      ]);
    });

    it("sends an inscription beyond the outputs to the fee", () => {
      const result = flowThrough([{ value: 1_000n, inscriptions: [{ id: "z", offset: 900n }] }], [800n]);
      expect(result.toFee).to.deep.equal([{ id: "z", feeOffset: 100n }]);
    });

    it("skips empty outputs", () => {
      const result = flowThrough([{ value: 1_000n, inscriptions: [{ id: "z", offset: 0n }] }], [0n, 1_000n]);
      expect(result.toOutputs).to.deep.equal([{ id: "z", vout: 1, offset: 0n }]);
    });

    it("conserves every inscription (property)", () => {
      fc.assert(
        fc.property(
          fc.array(fc.record({ value: fc.bigInt({ min: 1n, max: 10_000n }), count: fc.nat(3) }), {
            minLength: 1,
            maxLength: 5,
          }),
          fc.array(fc.bigInt({ min: 0n, max: 10_000n }), { minLength: 1, maxLength: 5 }),
          (inputSpecs, outputs) => {
            let n = 0;
            const inputs = inputSpecs.map((spec) => ({
              value: spec.value,
              inscriptions: Array.from({ length: spec.count }, (_, i) => ({
                id: `i${n++}`,
                offset: (spec.value * BigInt(i)) / 4n,
              })),
            }));
            const result = flowThrough(inputs, outputs);
            expect(result.toOutputs.length + result.toFee.length).to.equal(n);
            for (const landed of result.toOutputs) expect(landed.offset < outputs[landed.vout]).to.equal(true);
          },
        ),
      );
    });
  });

  describe("flowIntoCoinbase", () => {
    it("places fee koinu after the subsidy and the earlier fees", () => {
      expect(flowIntoCoinbase(1_000n, 50n, 5n, [1_055n, 100n])).to.deep.equal({ vout: 1, offset: 0n });
      expect(flowIntoCoinbase(1_000n, 0n, 5n, [2_000n])).to.deep.equal({ vout: 0, offset: 1_005n });
    });

    it("reports koinu the miner did not claim as lost", () => {
      expect(flowIntoCoinbase(1_000n, 0n, 5n, [1_000n])).to.equal(null);
    });
  });
});
