import { expect } from "chai";
import type { RequestListener } from "node:http";
import { NETWORKS } from "../../src/doge";
import type { DogecoinRpcClient } from "../../src/chain/dogecoin-rpc";
import type { Indexer } from "../../src/indexer/indexer";
import type { IndexQueries } from "../../src/indexer/queries";
import { createExplorerApp, createWalletFastPath } from "../../src/services/explorer/app";
import { MempoolView } from "../../src/services/explorer/mempool";
import type { RunningDevnet } from "../helpers/devnet";
import { ExplorerStack, startExplorerStack } from "../helpers/explorer-stack";
import { TestKey, newKey, spendP2pkh } from "../helpers/keys";
import { runEvery } from "../../src/ops/loop";

const DOGE = 100_000_000n;
const koinu = (amount: bigint) => Number(amount);

describe("explorer mempool view", function () {
  this.timeout(120_000);
  let stack: ExplorerStack;
  let devnet: RunningDevnet;
  let client: DogecoinRpcClient;
  let indexer: Indexer;
  let queries: IndexQueries;
  let view: MempoolView;
  let base: string; // the daemon's arrangement: the node:http fast path in front of Express
  let expressBase: string; // Express alone, for the routes the fast path also serves
  let plainBase: string; // an explorer created without a mempool view

  const fetchJson = async (url: string) => {
    const response = await fetch(url);
    return { status: response.status, body: (await response.json()) as any };
  };
  const get = (path: string) => fetchJson(`${base}${path}`);
  const listen = async (handler: RequestListener) => `${await stack.listen(handler)}/api`;
  /** A confirmed coin of `value` DOGE paid to `key` by the faucet, indexed. */
  const fund = async (key: TestKey, doge: bigint) => {
    const { txid } = await devnet.rpc<{ txid: string }>("devnet_faucet", [key.address, Number(doge), true]);
    await indexer.syncOnce();
    return { txid, vout: 0, value: doge * DOGE };
  };
  const mine = (blocks?: number, address?: string) => stack.mine(blocks, address);

  before(async () => {
    stack = await startExplorerStack();
    ({ devnet, client, indexer, queries, view } = stack);
    const app = stack.app;
    const fast = createWalletFastPath({ queries, network: NETWORKS.regtest, mempool: view });
    base = await listen((req, res) => {
      if (!fast(req, res)) app(req, res);
    });
    expressBase = await listen(app);
    plainBase = await listen(createExplorerApp({ queries, network: NETWORKS.regtest, node: client, statusCacheMs: 0 }));
    await mine();
  });

  after(async () => {
    await stack?.close();
  });

  describe("a broadcast transaction before it is mined", () => {
    let alice: TestKey;
    let bob: TestKey;
    let carol: TestKey;
    let coin: { txid: string; vout: number; value: bigint };
    let paymentTxid: string;
    let paymentHex: string;
    let chainedTxid: string;
    const esploraRoot = () => expressBase.replace(/\/api$/, "/esplora/api");

    before(async () => {
      alice = newKey();
      bob = newKey();
      carol = newKey();
      coin = await fund(alice, 100n);
      const payment = spendP2pkh(
        alice,
        [coin],
        [
          { script: bob.script, value: 25n * DOGE },
          { script: alice.script, value: 74n * DOGE },
        ],
      );
      const response = await fetch(`${base}/tx/broadcast`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ hex: payment.hex }),
      });
      paymentTxid = ((await response.json()) as { txid: string }).txid;
      paymentHex = payment.hex;
      // Bob spends his unconfirmed coin at once: its prevout is resolved from the mempool view.
      const chained = spendP2pkh(
        bob,
        [{ txid: paymentTxid, vout: 0, value: 25n * DOGE }],
        [{ script: carol.script, value: 24n * DOGE }],
      );
      chainedTxid = await devnet.rpc<string>("sendrawtransaction", [chained.hex]);
      await view.refresh();
    });

    it("is found by GET /tx/:txid with confirmations 0, block null, its inputs resolved and its fee", async () => {
      const { status, body } = await get(`/tx/${paymentTxid}`);
      expect(status).to.equal(200);
      expect(body).to.include({
        txid: paymentTxid,
        block: null,
        confirmations: 0,
        coinbase: false,
        fee_koinu: koinu(DOGE),
      });
      expect(body.inputs).to.deep.equal([
        { vin: 0, prev_txid: coin.txid, prev_vout: 0, value_koinu: koinu(100n * DOGE), address: alice.address },
      ]);
      expect(body.outputs.map((o: any) => [o.vout, o.value_koinu, o.address, o.spent])).to.deep.equal([
        [0, koinu(25n * DOGE), bob.address, { txid: chainedTxid, vin: 0, height: null }],
        [1, koinu(74n * DOGE), alice.address, null],
      ]);
      const chained = (await get(`/tx/${chainedTxid}`)).body;
      expect(chained.inputs).to.deep.equal([
        { vin: 0, prev_txid: paymentTxid, prev_vout: 0, value_koinu: koinu(25n * DOGE), address: bob.address },
      ]);
      expect(chained.fee_koinu).to.equal(koinu(DOGE));
    });

    it("fills the Esplora subset's mempool_stats of the addresses it funds and spends", async () => {
      const esplora = (address: string) =>
        fetchJson(`${expressBase.replace(/\/api$/, "/esplora/api")}/address/${address}`);
      expect((await esplora(alice.address)).body.mempool_stats).to.deep.equal({
        funded_txo_count: 1,
        funded_txo_sum: Number(74n * DOGE),
        spent_txo_count: 1,
        spent_txo_sum: Number(100n * DOGE),
        tx_count: 1,
      });
      expect((await esplora(bob.address)).body.mempool_stats).to.deep.equal({
        funded_txo_count: 1,
        funded_txo_sum: Number(25n * DOGE),
        spent_txo_count: 1,
        spent_txo_sum: Number(25n * DOGE),
        tx_count: 2,
      });
      const plain = await fetchJson(`${plainBase.replace(/\/api$/, "/esplora/api")}/address/${alice.address}`);
      expect(plain.body.mempool_stats).to.deep.equal({
        funded_txo_count: 0,
        funded_txo_sum: 0,
        spent_txo_count: 0,
        spent_txo_sum: 0,
        tx_count: 0,
      });
    });

    it("is served by the Esplora subset as unconfirmed: /tx, /tx/status, /tx/hex, /address/txs/mempool, and first in /address/txs", async () => {
      const tx = (await fetchJson(`${esploraRoot()}/tx/${paymentTxid}`)).body;
      expect(tx).to.include({ txid: paymentTxid, fee: Number(DOGE), size: paymentHex.length / 2 });
      expect(tx.status).to.deep.equal({ confirmed: false });
      expect(tx.vin[0]).to.include({ txid: coin.txid, vout: 0, is_coinbase: false });
      expect(tx.vin[0].prevout).to.include({ value: Number(100n * DOGE), scriptpubkey_address: alice.address });
      expect(tx.vout.map((o: any) => [o.value, o.scriptpubkey_address])).to.deep.equal([
        [Number(25n * DOGE), bob.address],
        [Number(74n * DOGE), alice.address],
      ]);
      // The chained spend's prevout is the pending payment's output.
      const chained = (await fetchJson(`${esploraRoot()}/tx/${chainedTxid}`)).body;
      expect(chained.vin[0].prevout).to.include({ value: Number(25n * DOGE), scriptpubkey_address: bob.address });
      expect((await fetchJson(`${esploraRoot()}/tx/${chainedTxid}/status`)).body).to.deep.equal({ confirmed: false });
      expect(await (await fetch(`${esploraRoot()}/tx/${paymentTxid}/hex`)).text()).to.equal(paymentHex);
      const pending = (await fetchJson(`${esploraRoot()}/address/${bob.address}/txs/mempool`)).body;
      expect(pending.map((t: any) => t.txid)).to.deep.equal([chainedTxid, paymentTxid]);
      const all = (await fetchJson(`${esploraRoot()}/address/${alice.address}/txs`)).body;
      expect(all.map((t: any) => [t.txid, t.status.confirmed])).to.deep.equal([
        [paymentTxid, false],
        [coin.txid, true],
      ]);
      // Without a mempool view nothing is pending.
      expect((await fetch(`${plainBase.replace(/\/api$/, "/esplora/api")}/tx/${paymentTxid}`)).status).to.equal(404);
    });

    it("marks the confirmed output it spends as spent by it, with height null", async () => {
      const { body } = await get(`/tx/${coin.txid}`);
      expect(body.outputs[0].spent).to.deep.equal({ txid: paymentTxid, vin: 0, height: null });
    });

    it("adds unconfirmed_koinu, the net effect of the mempool, to balances on both paths (negative for a spender)", async () => {
      for (const root of [base, expressBase]) {
        expect((await fetchJson(`${root}/wallet/address/${alice.address}/balance`)).body).to.include({
          confirmed_koinu: koinu(100n * DOGE),
          unconfirmed_koinu: -koinu(26n * DOGE),
        });
        expect((await fetchJson(`${root}/wallet/address/${bob.address}/balance`)).body).to.include({
          confirmed_koinu: 0,
          unconfirmed_koinu: 0,
        });
        expect((await fetchJson(`${root}/wallet/address/${carol.address}/balance`)).body).to.include({
          confirmed_koinu: 0,
          unconfirmed_koinu: koinu(24n * DOGE),
        });
      }
    });

    it("lists pending history items first, with block_height null and confirmations 0, on both paths", async () => {
      for (const root of [base, expressBase]) {
        const history = (await fetchJson(`${root}/wallet/address/${alice.address}/history`)).body;
        expect(history.total).to.equal(2);
        expect(history.items[0]).to.deep.equal({
          txid: paymentTxid,
          direction: "out",
          counterparty_address: bob.address,
          block_height: null,
          amount_koinu: koinu(26n * DOGE),
          is_doginal: false,
          confirmations: 0,
        });
        expect(history.items[1]).to.include({ txid: coin.txid, direction: "in", confirmations: 1 });
        const bobs = (await fetchJson(`${root}/wallet/address/${bob.address}/history`)).body.items;
        expect(bobs.map((i: any) => [i.txid, i.direction, i.block_height, i.confirmations])).to.have.deep.members([
          [paymentTxid, "in", null, 0],
          [chainedTxid, "out", null, 0],
        ]);
      }
    });

    it("pages history with the pending items on the first page and loses no confirmed one", async () => {
      const first = (await get(`/wallet/address/${alice.address}/history?limit=1`)).body;
      expect(first.items.map((i: any) => i.txid)).to.deep.equal([paymentTxid]);
      const second = (await get(`/wallet/address/${alice.address}/history?limit=1&cursor=${first.next_cursor}`)).body;
      expect(second.items.map((i: any) => i.txid)).to.deep.equal([coin.txid]);
    });

    it("lists unconfirmed outputs with confirmations 0 and marks outputs spent in the mempool as not spendable", async () => {
      const alices = (await get(`/wallet/address/${alice.address}/utxos`)).body;
      expect(alices.items).to.have.length(2);
      const spent = alices.items.find((u: any) => u.txid === coin.txid);
      expect(spent).to.deep.include({
        confirmations: 1,
        spendable: false,
        spent_in_mempool: { txid: paymentTxid, vin: 0 },
      });
      const change = alices.items.find((u: any) => u.txid === paymentTxid);
      expect(change).to.deep.include({
        vout: 1,
        value_koinu: koinu(74n * DOGE),
        height: null,
        confirmations: 0,
        coinbase: false,
        spendable: true,
        spent_in_mempool: null,
      });
      // Bob's unconfirmed coin is spent by another mempool transaction: listed, not spendable.
      const bobs = (await get(`/wallet/address/${bob.address}/utxos`)).body.items;
      expect(bobs).to.have.length(1);
      expect(bobs[0]).to.deep.include({
        txid: paymentTxid,
        vout: 0,
        confirmations: 0,
        spendable: false,
        spent_in_mempool: { txid: chainedTxid, vin: 0 },
      });
    });

    it("changes nothing in an explorer created without a mempool view", async () => {
      expect((await fetchJson(`${plainBase}/tx/${paymentTxid}`)).status).to.equal(404);
      expect((await fetchJson(`${plainBase}/wallet/address/${carol.address}/balance`)).body).to.include({
        confirmed_koinu: 0,
        unconfirmed_koinu: 0,
      });
      expect(
        (await fetchJson(`${plainBase}/wallet/address/${alice.address}/history`)).body.items.map((i: any) => i.txid),
      ).to.deep.equal([coin.txid]);
      const utxos = (await fetchJson(`${plainBase}/wallet/address/${alice.address}/utxos`)).body.items;
      expect(utxos).to.have.length(1);
      expect(utxos[0]).to.deep.include({ txid: coin.txid, spendable: true, spent_in_mempool: null });
    });

    it("shows the transactions confirmed once they are mined", async () => {
      await mine();
      await view.refresh();
      const { body } = await get(`/tx/${paymentTxid}`);
      expect(body.confirmations).to.equal(1);
      expect(body.block).to.not.equal(null);
      expect((await get(`/wallet/address/${alice.address}/balance`)).body).to.include({
        confirmed_koinu: koinu(74n * DOGE),
        unconfirmed_koinu: 0,
      });
      expect((await get(`/wallet/address/${carol.address}/balance`)).body).to.include({
        confirmed_koinu: koinu(24n * DOGE),
        unconfirmed_koinu: 0,
      });
      const history = (await get(`/wallet/address/${alice.address}/history`)).body;
      expect(history.total).to.equal(2);
      expect(history.items[0]).to.include({ txid: paymentTxid, confirmations: 1 });
      expect(history.items[0].block_height).to.be.a("number");
      const utxos = (await get(`/wallet/address/${alice.address}/utxos`)).body.items;
      expect(utxos.map((u: any) => [u.txid, u.vout, u.confirmations, u.spendable])).to.deep.equal([
        [paymentTxid, 1, 1, true],
      ]);
      expect(view.size).to.equal(0);
      const esplora = (await fetchJson(`${esploraRoot()}/tx/${paymentTxid}/status`)).body;
      expect(esplora).to.include({ confirmed: true, block_height: body.block.height, block_hash: body.block.hash });
      expect((await fetchJson(`${esploraRoot()}/address/${bob.address}/txs/mempool`)).body).to.deep.equal([]);
    });
  });

  describe("a transaction that leaves the mempool unmined", () => {
    it("disappears when the node evicts it", async () => {
      const dave = newKey();
      const erin = newKey();
      const coin = await fund(dave, 10n);
      const spend = spendP2pkh(dave, [coin], [{ script: erin.script, value: 9n * DOGE }]);
      const txid = await devnet.rpc<string>("sendrawtransaction", [spend.hex]);
      await view.refresh();
      expect((await get(`/tx/${txid}`)).body.confirmations).to.equal(0);
      expect((await get(`/wallet/address/${erin.address}/balance`)).body.unconfirmed_koinu).to.equal(koinu(9n * DOGE));
      await devnet.rpc("devnet_evict", [txid]);
      await view.refresh();
      expect((await get(`/tx/${txid}`)).status).to.equal(404);
      expect((await fetch(`${expressBase.replace(/\/api$/, "/esplora/api")}/tx/${txid}/status`)).status).to.equal(404);
      expect((await get(`/wallet/address/${erin.address}/balance`)).body.unconfirmed_koinu).to.equal(0);
      expect((await get(`/wallet/address/${erin.address}/history`)).body.items).to.deep.equal([]);
      expect((await get(`/wallet/address/${dave.address}/utxos`)).body.items[0]).to.deep.include({
        txid: coin.txid,
        spendable: true,
        spent_in_mempool: null,
      });
    });

    it("disappears when a reorg confirms a conflicting spend of its input", async () => {
      const frank = newKey();
      const coin = await fund(frank, 10n);
      const confirmedSpend = spendP2pkh(frank, [coin], [{ script: newKey().script, value: 9n * DOGE }]);
      const confirmedTxid = await devnet.rpc<string>("sendrawtransaction", [confirmedSpend.hex]);
      const [block] = await mine();
      // Take the block back, drop its spend from the mempool and broadcast a conflicting one.
      await devnet.rpc("invalidateblock", [block]);
      await devnet.rpc("devnet_evict", [confirmedTxid]);
      await indexer.syncOnce();
      const grace = newKey();
      const pending = spendP2pkh(frank, [coin], [{ script: grace.script, value: 9n * DOGE }]);
      const pendingTxid = await devnet.rpc<string>("sendrawtransaction", [pending.hex]);
      await view.refresh();
      expect((await get(`/wallet/address/${grace.address}/balance`)).body.unconfirmed_koinu).to.equal(koinu(9n * DOGE));
      // The block with the first spend comes back: the node drops the conflicting mempool one.
      await devnet.rpc("reconsiderblock", [block]);
      await indexer.syncOnce();
      await view.refresh();
      expect((await get(`/tx/${pendingTxid}`)).status).to.equal(404);
      expect((await get(`/wallet/address/${grace.address}/balance`)).body.unconfirmed_koinu).to.equal(0);
      expect((await get(`/wallet/address/${frank.address}/utxos`)).body.items).to.deep.equal([]);
    });
  });

  describe("coinbase outputs", () => {
    it("marks a coinbase output immature until it has 60 confirmations on regtest", async () => {
      const miner = newKey();
      await mine(1, miner.address);
      let utxo = (await get(`/wallet/address/${miner.address}/utxos`)).body.items[0];
      expect(utxo).to.deep.include({ confirmations: 1, coinbase: true, mature: false, spendable: false });
      await mine(58);
      utxo = (await get(`/wallet/address/${miner.address}/utxos`)).body.items[0];
      expect(utxo).to.deep.include({ confirmations: 59, mature: false, spendable: false });
      await mine(1);
      utxo = (await get(`/wallet/address/${miner.address}/utxos`)).body.items[0];
      expect(utxo).to.deep.include({ confirmations: 60, coinbase: true, mature: true, spendable: true });
    });
  });

  describe("refreshing", () => {
    it("sees a new mempool transaction within two seconds once started", async () => {
      const polled = new MempoolView({ node: client, index: queries, network: NETWORKS.regtest });
      const loop = runEvery("mempool_refresh", 250, () => polled.runOnce());
      try {
        const henry = newKey();
        const { txid } = await devnet.rpc<{ txid: string }>("devnet_faucet", [henry.address, 5]);
        const started = Date.now();
        while (!polled.tx(txid) && Date.now() - started < 2_000)
          await new Promise((resolve) => setTimeout(resolve, 50));
        expect(polled.tx(txid), "seen within 2 s").to.not.equal(undefined);
        expect(polled.unconfirmedKoinu(henry.address)).to.equal(5n * DOGE);
      } finally {
        await loop.stop();
      }
      await mine();
    });

    it("keeps at most maxTransactions mempool transactions and counts the ones left out", async () => {
      const capped = new MempoolView({ node: client, index: queries, network: NETWORKS.regtest, maxTransactions: 1 });
      await devnet.rpc("devnet_faucet", [newKey().address, 1]);
      await devnet.rpc("devnet_faucet", [newKey().address, 1]);
      const result = await capped.refresh();
      expect(capped.size).to.equal(1);
      expect(result.leftOut).to.equal(1);
      await mine();
      await capped.refresh();
      expect(capped.size).to.equal(0);
    });
  });
});
