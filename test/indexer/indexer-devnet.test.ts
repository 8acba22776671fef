import { expect } from "chai";
import { NETWORKS, nullDataScript } from "../../src/doge";
import type { SqlDatabase } from "../../src/db/sql";
import { Indexer, ReorgTooDeepError } from "../../src/indexer/indexer";
import { BlockRpc, RpcChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { dumpDatabase } from "../helpers/db-dump";
import { forEachIndexBackend } from "../helpers/index-backends";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { newKey, spendP2pkh } from "../helpers/keys";

const DOGE = 100_000_000n;

function blockRpc(devnet: RunningDevnet): BlockRpc {
  return {
    getBlockCount: () => devnet.rpc<number>("getblockcount"),
    getBlockHash: (height) => devnet.rpc<string>("getblockhash", [height]),
    getBlockHex: (hash) => devnet.rpc<string>("getblock", [hash, false]),
  };
}

function newIndexer(
  db: SqlDatabase,
  devnet: RunningDevnet,
  options: { maxReorgDepth?: number; batchBlocks?: number } = {},
) {
  return new Indexer({
    store: new IndexerStore(db),
    source: new RpcChainSource(blockRpc(devnet)),
    network: NETWORKS.regtest,
    ...options,
  });
}

forEachIndexBackend("indexer on the devnet", function ({ openIndex }) {
  this.timeout(120_000);
  let devnet: RunningDevnet;
  before(async () => {
    devnet = await startDevnet();
  });
  after(async () => {
    await devnet?.stop();
  });

  it("tracks payments, balances, spends and OP_RETURNs, and after a 6-block reorg equals a fresh index of the final chain", async () => {
    const alice = newKey();
    const bob = newKey();
    const indexer = newIndexer(await openIndex(), devnet, { batchBlocks: 4 });
    const paid = await devnet.rpc<{ txid: string }>("devnet_faucet", [alice.address, 100, true]);
    await indexer.syncOnce();
    const aliceBalance = () =>
      indexer.store.db
        .prepare("SELECT s.confirmed FROM addresses a JOIN address_stats s ON s.id = a.id WHERE a.address = ?")
        .get(alice.address) as { confirmed: number } | undefined;
    expect(Number(aliceBalance()!.confirmed)).to.equal(100 * 1e8);

    const pay = spendP2pkh(
      alice,
      [{ txid: paid.txid, vout: 0, value: 100n * DOGE }],
      [
        { script: bob.script, value: 30n * DOGE },
        { script: nullDataScript(Buffer.from("dogeos:hello")), value: 0n },
        { script: alice.script, value: 69n * DOGE },
      ],
    );
    const payTxid = await devnet.rpc<string>("sendrawtransaction", [pay.hex]);
    const forkPoint = await devnet.rpc<number>("getblockcount");
    const oldBranch = await devnet.rpc<string[]>("generatetoaddress", [6, alice.address]);
    await indexer.syncOnce();
    expect(Number(aliceBalance()!.confirmed), "change, six coinbases and the 1 DOGE fee").to.equal(
      69 * 1e8 + 6 * 500_000 * 1e8 + 1e8,
    );
    const spent = indexer.store.db
      .prepare(
        "SELECT s.txid AS spent_txid FROM outputs o JOIN txs t ON t.id = o.tx_id JOIN txs s ON s.id = o.spent_tx_id WHERE t.txid = ? AND o.vout = 0",
      )
      .get(Buffer.from(paid.txid, "hex")) as { spent_txid: Buffer };
    expect(Buffer.from(spent.spent_txid).toString("hex")).to.equal(payTxid);
    const opReturn = indexer.store.db
      .prepare("SELECT magic, size FROM op_returns WHERE tx_id = (SELECT id FROM txs WHERE txid = ?)")
      .get(Buffer.from(payTxid, "hex")) as {
      magic: string;
      size: number;
    };
    expect(opReturn).to.deep.equal({ magic: Buffer.from("doge").toString("hex"), size: 12 });

    // Reorg: the 6 blocks go away; the payment is mined again on a longer branch paying bob instead.
    await devnet.rpc("invalidateblock", [oldBranch[0]]);
    await devnet.rpc("generatetoaddress", [7, bob.address]);
    const result = await indexer.syncOnce();
    expect(result.rolledBack).to.equal(6);
    expect(indexer.indexedHeight()).to.equal(forkPoint + 7);
    expect(Number(aliceBalance()!.confirmed)).to.equal(69 * 1e8);

    const fresh = newIndexer(await openIndex(), devnet);
    await fresh.syncOnce();
    expect(dumpDatabase(indexer.store.db)).to.deep.equal(dumpDatabase(fresh.store.db));
  });

  it("stops with ReorgTooDeepError when the fork is deeper than the configured limit", async () => {
    const indexer = newIndexer(await openIndex(), devnet, { maxReorgDepth: 3 });
    const key = newKey();
    const branch = await devnet.rpc<string[]>("generatetoaddress", [5, key.address]);
    await indexer.syncOnce();
    await devnet.rpc("invalidateblock", [branch[0]]);
    await devnet.rpc("generatetoaddress", [6, key.address]);
    let failure: unknown;
    try {
      await indexer.syncOnce();
    } catch (error) {
      failure = error;
    }
    expect(failure).to.be.instanceOf(ReorgTooDeepError);
  });
});
