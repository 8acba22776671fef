import { expect } from "chai";
import { NETWORKS, OP, bytesToHex, compileScript } from "../../src/doge";
import { unspendableReason } from "../../src/wallet";
import { newKey } from "../helpers/keys";

describe("wallet/spendable: the one rule of what a wallet of ours can spend", () => {
  const key = newKey();
  const own = bytesToHex(key.script);
  const plain = { scriptHex: own, inscriptionCount: 0, coinbase: false, confirmations: 1 };

  it("counts a plain output to the wallet's own P2PKH script as spendable at any depth", () => {
    expect(unspendableReason(plain, own, NETWORKS.regtest)).to.equal(null);
    expect(unspendableReason({ ...plain, scriptHex: own.toUpperCase() }, own, NETWORKS.regtest)).to.equal(null);
  });

  it("refuses a bare pay-to-pubkey output to the same key, which the index lists under the same address", () => {
    const p2pk = bytesToHex(compileScript([key.publicKey, OP.OP_CHECKSIG]));
    expect(unspendableReason({ ...plain, scriptHex: p2pk }, own, NETWORKS.regtest)).to.equal("NOT_OWN_SCRIPT");
  });

  it("refuses an output that carries an inscription, before its maturity is looked at", () => {
    expect(unspendableReason({ ...plain, inscriptionCount: 1 }, own, NETWORKS.regtest)).to.equal("CARRIES_INSCRIPTION");
    expect(
      unspendableReason({ ...plain, inscriptionCount: 2, coinbase: true, confirmations: 1 }, own, NETWORKS.regtest),
    ).to.equal("CARRIES_INSCRIPTION");
  });

  it("refuses a coinbase output below the network's maturity (60 on regtest, 240 on mainnet) and takes it at it", () => {
    const coinbase = { ...plain, coinbase: true };
    expect(unspendableReason({ ...coinbase, confirmations: 59 }, own, NETWORKS.regtest)).to.equal("IMMATURE_COINBASE");
    expect(unspendableReason({ ...coinbase, confirmations: 60 }, own, NETWORKS.regtest)).to.equal(null);
    expect(unspendableReason({ ...coinbase, confirmations: 239 }, own, NETWORKS.mainnet)).to.equal("IMMATURE_COINBASE");
    expect(unspendableReason({ ...coinbase, confirmations: 240 }, own, NETWORKS.mainnet)).to.equal(null);
  });
});
