/**
 * An Esplora wallet stack no one here wrote, pointed at the explorer's /esplora/api over a devnet:
 * @bitcoinerlab/explorer's EsploraExplorer, @bitcoinerlab/discovery and @bitcoinerlab/descriptors
 * sync a BIP44 pkh descriptor wallet (external and change chains) by script hash, then build,
 * sign and broadcast a spend through POST /tx at 0.01 DOGE per kB, and see it confirmed once the
 * devnet mines it, all through /esplora/api. Dogecoin regtest P2PKH addresses and legacy
 * signatures are the same bytes as Bitcoin regtest's, so the libraries run with bitcoinjs-lib's
 * regtest network unchanged. Every answer is checked against the explorer's OpenAPI document by
 * the test helper around fetch (which these libraries call).
 */
import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { BIP32Factory } from "bip32";
import { networks } from "bitcoinjs-lib";
import { EsploraExplorer } from "@bitcoinerlab/explorer";
import { DiscoveryFactory } from "@bitcoinerlab/discovery";
import { DescriptorsFactory, Psbt, ecc, scriptExpressions, signers } from "@bitcoinerlab/descriptors";
import { FEE_FLOOR_KOINU_PER_BYTE } from "../../src/services/explorer/esplora-mempool";
import type { RunningDevnet } from "../helpers/devnet";
import { ExplorerStack, startExplorerStack } from "../helpers/explorer-stack";
import { newKey } from "../helpers/keys";

const DOGE = 100_000_000;
const network = networks.regtest;
const { Output } = DescriptorsFactory(ecc);
const BIP32 = BIP32Factory(ecc);

describe("an outside Esplora wallet (bitcoinerlab discovery) over /esplora/api", function () {
  this.timeout(180_000);
  let stack: ExplorerStack;
  let devnet: RunningDevnet;
  let root: string;

  const mine = (blocks = 1) => stack.mine(blocks);

  before(async () => {
    stack = await startExplorerStack();
    devnet = stack.devnet;
    root = `${await stack.listen(stack.app)}/esplora/api`;
    await mine();
  });

  after(async () => {
    await stack?.close();
  });

  it("syncs a pkh descriptor wallet by script hash, spends at 0.01 DOGE/kB through POST /tx and sees it confirmed", async () => {
    const masterNode = BIP32.fromSeed(randomBytes(32), network);
    const external = scriptExpressions.pkhBIP32({ masterNode, network, account: 0, change: 0, index: "*" });
    const internal = scriptExpressions.pkhBIP32({ masterNode, network, account: 0, change: 1, index: "*" });
    const descriptors = [external, internal];
    const explorer = new EsploraExplorer({ url: root });
    await explorer.connect();
    const { Discovery } = DiscoveryFactory(explorer, network);
    const discovery = new Discovery();

    // Funds on the external chain at indexes 0 and 2 (a gap the discovery must look past).
    const addressAt = (index: number) => new Output({ descriptor: external, index, network }).getAddress();
    const funding = [
      { index: 0, doge: 40 },
      { index: 2, doge: 25 },
    ];
    for (const { index, doge } of funding) await devnet.rpc("devnet_faucet", [addressAt(index), doge, true]);
    await mine();

    await discovery.fetch({ descriptors, gapLimit: 5 });
    const synced = discovery.getUtxosAndBalance({ descriptors });
    expect(synced.balance).to.equal(65 * DOGE);
    expect(synced.utxos).to.have.length(2);
    expect(synced.utxos.map((utxo) => discovery.getDescriptor({ utxo })!.index).sort()).to.deep.equal([0, 2]);
    // Every transaction the wallet holds is confirmed at the height the devnet mined it at.
    const history = discovery.getHistory({ descriptors }, true) as { txId: string; blockHeight: number }[];
    expect(history).to.have.length(2);
    for (const { txId, blockHeight } of history) {
      const { blockhash } = await devnet.rpc<{ blockhash: string }>("getrawtransaction", [txId, 1]);
      expect(blockHeight).to.equal((await devnet.rpc<{ height: number }>("getblockheader", [blockhash])).height);
    }

    // The fee rate the wallet reads: Esplora's /fee-estimates, never below 0.01 DOGE per kB.
    const estimates = await explorer.fetchFeeEstimates();
    for (const rate of Object.values(estimates)) expect(rate).to.be.at.least(FEE_FLOOR_KOINU_PER_BYTE);

    // Spend both coins: 50 DOGE to someone else, the change to the change chain's next index.
    const psbt = new Psbt({ network });
    const finalizers = synced.utxos.map((utxo) => {
      const [txId, vout] = utxo.split(":");
      const { descriptor, index } = discovery.getDescriptor({ utxo })!;
      return new Output({ descriptor, index, network }).updatePsbtAsInput({
        psbt,
        txHex: discovery.getTxHex({ txId }),
        vout: Number(vout),
      });
    });
    const recipient = newKey();
    const changeIndex = discovery.getNextIndex({ descriptor: internal });
    // At most 149 bytes per P2PKH input (a 72-byte signature and a compressed key), 34 per output.
    const maxSize = 10 + 149 * finalizers.length + 34 * 2;
    const fee = BigInt(maxSize * FEE_FLOOR_KOINU_PER_BYTE);
    new Output({ descriptor: `addr(${recipient.address})`, network }).updatePsbtAsOutput({
      psbt,
      value: BigInt(50 * DOGE),
    });
    new Output({ descriptor: internal, index: changeIndex, network }).updatePsbtAsOutput({
      psbt,
      value: BigInt(15 * DOGE) - fee,
    });
    signers.signBIP32({ psbt, masterNode });
    for (const finalize of finalizers) finalize({ psbt });
    const tx = psbt.extractTransaction();
    const txHex = tx.toHex();
    expect(Number(fee) / tx.byteLength(), "koinu per byte").to.be.within(FEE_FLOOR_KOINU_PER_BYTE, 1020);

    await discovery.push({ txHex, gapLimit: 5 });
    const txid = tx.getId();
    expect(await devnet.rpc<string[]>("getrawmempool")).to.include(txid);

    const [block] = await mine();
    await discovery.fetch({ descriptors, gapLimit: 5 });
    const after = discovery.getUtxosAndBalance({ descriptors });
    expect(after.balance).to.equal(15 * DOGE - Number(fee));
    expect(after.utxos).to.deep.equal([`${txid}:1`]);
    const spend = (discovery.getHistory({ descriptors }, true) as { txId: string; blockHeight: number }[]).find(
      (t) => t.txId === txid,
    );
    const height = await devnet.rpc<number>("getblockcount");
    expect(spend?.blockHeight, "the spend is confirmed in the block just mined").to.equal(height);
    // The library caches the tip height for 3 s: ask it afresh first.
    expect(await explorer.fetchBlockHeight()).to.equal(height);
    const status = await explorer.fetchBlockStatus(height);
    expect(status).to.include({ blockHeight: height, blockHash: block });

    // The recipient sees the payment through the same API, by address.
    const received = await explorer.fetchAddress(recipient.address);
    expect(received).to.deep.include({ balance: 50 * DOGE, txCount: 1 });
  });
});
