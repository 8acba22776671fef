/**
 * Coinbase maturity, the one rule (src/doge/maturity.ts) that the devnet, the wallets' spendable
 * rule and the explorer use: its values per network and era, and the devnet refusing and accepting
 * a coinbase spend exactly at the boundary, as Dogecoin Core 1.14.7 regtest does.
 */
import { expect } from "chai";
import {
  COINBASE_MATURITY,
  DIGISHIELD_HEIGHT,
  NETWORKS,
  coinbaseMatureWith,
  coinbaseMaturity,
  coinbaseSpendableAt,
} from "../../src/doge";
import { unspendableReason } from "../../src/wallet/spendable";
import { RpcCallError, RunningDevnet, startDevnet } from "../helpers/devnet";
import { newKey, spendP2pkh } from "../helpers/keys";

describe("coinbase maturity (src/doge/maturity.ts)", () => {
  it("is 60 blocks on regtest at every height", () => {
    for (const height of [0, 1, 10, 20, DIGISHIELD_HEIGHT, 10_000_000])
      expect(coinbaseMaturity(NETWORKS.regtest, height), String(height)).to.equal(60);
    expect(coinbaseMaturity(NETWORKS.regtest)).to.equal(COINBASE_MATURITY.regtest);
  });

  it("is 30 blocks on mainnet and testnet before block 145,000 and 240 from it", () => {
    for (const network of [NETWORKS.mainnet, NETWORKS.testnet]) {
      expect(coinbaseMaturity(network, 0)).to.equal(30);
      expect(coinbaseMaturity(network, DIGISHIELD_HEIGHT - 1)).to.equal(30);
      expect(coinbaseMaturity(network, DIGISHIELD_HEIGHT)).to.equal(240);
      expect(coinbaseMaturity(network, 5_000_000)).to.equal(240);
      expect(coinbaseMaturity(network)).to.equal(240);
    }
  });

  it("takes the era of the coinbase's own height, not the spend's", () => {
    // A pre-Digishield coinbase spent after block 145,000 needs its own era's 30 blocks.
    expect(coinbaseSpendableAt(NETWORKS.mainnet, DIGISHIELD_HEIGHT - 10, DIGISHIELD_HEIGHT + 20)).to.equal(true);
    expect(coinbaseSpendableAt(NETWORKS.mainnet, DIGISHIELD_HEIGHT - 10, DIGISHIELD_HEIGHT + 19)).to.equal(false);
    expect(coinbaseSpendableAt(NETWORKS.mainnet, DIGISHIELD_HEIGHT, DIGISHIELD_HEIGHT + 239)).to.equal(false);
    expect(coinbaseSpendableAt(NETWORKS.mainnet, DIGISHIELD_HEIGHT, DIGISHIELD_HEIGHT + 240)).to.equal(true);
  });

  it("makes a coinbase spendable in the mempool once its confirmations reach the maturity", () => {
    expect(coinbaseMatureWith(NETWORKS.regtest, 59)).to.equal(false);
    expect(coinbaseMatureWith(NETWORKS.regtest, 60)).to.equal(true);
    // confirmations c at tip t: the coinbase is at t - c + 1 and the spend at t + 1, c blocks later.
    const tip = 1_000;
    for (const confirmations of [59, 60, 61])
      expect(coinbaseSpendableAt(NETWORKS.regtest, tip - confirmations + 1, tip + 1)).to.equal(
        coinbaseMatureWith(NETWORKS.regtest, confirmations),
      );
  });

  it("is the wallets' spendable rule, with the output's height picking the era", () => {
    const key = newKey();
    const own = Buffer.from(key.script).toString("hex");
    const output = (confirmations: number, height?: number) => ({
      scriptHex: own,
      inscriptionCount: 0,
      coinbase: true,
      confirmations,
      height,
    });
    expect(unspendableReason(output(59), own, NETWORKS.regtest)).to.equal("IMMATURE_COINBASE");
    expect(unspendableReason(output(60), own, NETWORKS.regtest)).to.equal(null);
    expect(unspendableReason(output(30, 100_000), own, NETWORKS.mainnet)).to.equal(null);
    expect(unspendableReason(output(30, DIGISHIELD_HEIGHT), own, NETWORKS.mainnet)).to.equal("IMMATURE_COINBASE");
    expect(unspendableReason(output(239), own, NETWORKS.mainnet)).to.equal("IMMATURE_COINBASE");
  });
});

describe("the devnet's coinbase maturity", function () {
  this.timeout(120_000);
  let devnet: RunningDevnet;

  before(async () => {
    devnet = await startDevnet();
  });

  after(async () => {
    await devnet?.stop();
  });

  it("refuses a coinbase spend at 59 confirmations with bad-txns-premature-spend-of-coinbase and takes it at 60", async () => {
    const miner = newKey();
    const [hash] = await devnet.rpc<string[]>("generatetoaddress", [1, miner.address]);
    const block = await devnet.rpc<{ tx: { txid: string; vout: { value: number }[] }[] }>("getblock", [hash, 2]);
    const coinbase = block.tx[0];
    const coin = { txid: coinbase.txid, vout: 0, value: BigInt(Math.round(coinbase.vout[0].value * 1e8)) };
    const { hex } = spendP2pkh(miner, [coin], [{ script: miner.script, value: coin.value - 100_000_000n }]);
    await devnet.rpc("generatetoaddress", [58, newKey().address]); // 59 confirmations
    const refused = await devnet.rpc("sendrawtransaction", [hex]).then(
      () => null,
      (error: RpcCallError) => error,
    );
    expect(refused?.code).to.equal(-26);
    expect(refused?.message).to.equal("16: bad-txns-premature-spend-of-coinbase");
    await devnet.rpc("generatetoaddress", [1, newKey().address]); // 60 confirmations
    expect(await devnet.rpc("sendrawtransaction", [hex])).to.be.a("string");
  });
});
