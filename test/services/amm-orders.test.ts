/**
 * The texts an AMM payer signs, held by test/vectors/amm-orders.json (STYLE.md 7): each valid
 * vector's order goes through the service's own field builder and orderMessage (or
 * authorizationMessage), must give the vector's fields and text exactly, and its signature by the
 * vector's key must be what RFC 6979 signing reproduces and what requireSignature accepts. A wallet
 * or a page that builds these texts itself can check its bytes against the same file.
 */
import { expect } from "chai";
import { NETWORKS, decodeWif, getNetwork, signMessage } from "../../src/doge";
import { AmmLedger, addLiquidityFields, executeSwapFields } from "../../src/services/amm/ledger";
import { confirmFields, launchFields, reserveFields, supplyFields } from "../../src/services/amm/bonding-store";
import { authorizationMessage, orderMessage, requireSignature } from "../../src/services/amm/orders";
import { ACTIONS } from "../../src/services/amm/api-schema";
import vectors from "../vectors/amm-orders.json";

type Order = Record<string, any>;
const big = (value: unknown) => BigInt(value as string);

/** The service's builder of each action's fields, from a vector's order (amounts as decimal strings). */
const BUILDERS: Record<string, (o: Order) => Record<string, string>> = {
  "execute-swap": (o) =>
    executeSwapFields({ ...o, amountIn: big(o.amountIn), minAmountOut: big(o.minAmountOut) } as never, o.depositTxid),
  "add-liquidity": (o) =>
    addLiquidityFields({ ...o, ...(o.minShares !== undefined ? { minShares: big(o.minShares) } : {}) } as never),
  "refund-deposit": (o) => AmmLedger.refundFields(o as never),
  "bonding-confirm": (o) =>
    confirmFields({ ...o, amountIn: big(o.amountIn), reservedOut: big(o.reservedOut) } as never, o.depositTxid),
  "bonding-supply": (o) => supplyFields({ tick: o.tick, launcher: o.launcher }, o.depositTxid),
  "remove-liquidity": (o) => ({ tick: o.tick, shares: big(o.shares).toString() }),
  "claim-fees": () => ({}),
  "bonding-reserve": (o) => reserveFields({ tick: o.tick, side: o.side, amountIn: big(o.amountIn) }),
  "bonding-launch": (o) =>
    launchFields({
      tick: o.tick,
      totalSupply: big(o.totalSupply),
      sellableSupply: big(o.sellableSupply),
      virtualDoge: big(o.virtualDoge),
      graduationThreshold: big(o.graduationThreshold),
    }),
};

describe("amm/orders: the signed order texts (test/vectors/amm-orders.json)", () => {
  it("covers every action the AMM's signing message route serves", () => {
    expect(new Set(vectors.valid.map((v) => v.input.action))).to.deep.equal(new Set(ACTIONS));
    expect(new Set(Object.keys(BUILDERS))).to.deep.equal(new Set(ACTIONS));
  });

  for (const vector of vectors.valid) {
    it(`builds and verifies ${vector.description}`, () => {
      const input = vector.input as Order;
      const domain = { network: getNetwork(input.network), custodyAddress: input.custody };
      const fields = BUILDERS[input.action](input.order);
      expect(fields).to.deep.equal(vector.expected.fields);
      // Field order is part of the text: compare the keys in order too.
      expect(Object.keys(fields)).to.deep.equal(Object.keys(vector.expected.fields));
      const message = input.authorization
        ? authorizationMessage(domain, input.action, fields, input.authorization)
        : orderMessage(domain, input.action, fields);
      expect(message).to.equal(vector.expected.message);
      const key = decodeWif(input.signer.wif, NETWORKS.regtest);
      expect(signMessage(message, key.privateKey)).to.equal(vector.expected.signature);
      expect(() => requireSignature(domain, input.signer.address, vector.expected.signature, message)).to.not.throw();
    });
  }

  for (const vector of vectors.invalid) {
    it(`refuses ${vector.description}`, () => {
      const input = vector.input as Order;
      const domain = { network: getNetwork(input.network), custodyAddress: input.custody };
      const message = orderMessage(domain, input.action, input.fields);
      expect(() => requireSignature(domain, input.address, input.signature, message))
        .to.throw()
        .with.property("code", vector.error);
    });
  }
});
