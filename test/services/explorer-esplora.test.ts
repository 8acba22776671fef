import { expect } from "chai";
import { createHash } from "node:crypto";
import mempoolJS from "@mempool/mempool.js";
import { checkedCount } from "../helpers/openapi";
import { isInteger, parse as parseLossless } from "lossless-json";
import { bytesToHex, nullDataScript } from "../../src/doge";
import type { Indexer } from "../../src/indexer/indexer";
import { esploraAsm } from "../../src/services/explorer/esplora";
import type { RunningDevnet } from "../helpers/devnet";
import { ExplorerStack, startExplorerStack } from "../helpers/explorer-stack";
import { TestKey, newKey, spendP2pkh } from "../helpers/keys";

const DOGE = 100_000_000n;

describe("explorer Esplora-compatible subset", function () {
  this.timeout(120_000);
  let devnet: RunningDevnet;
  let indexer: Indexer;
  let stack: ExplorerStack<null>;
  let root: string;
  let esplora: ReturnType<typeof mempoolJS>["bitcoin"];
  let alice: TestKey;
  let bob: TestKey;
  let fundTxid: string;
  let payment: { hex: string };
  let paymentTxid: string;
  const payload = Buffer.from("dogeos esplora test");

  const getText = async (path: string) => {
    const response = await fetch(`${root}${path}`);
    return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
  };
  const getJson = async (path: string) => {
    const response = await fetch(`${root}${path}`);
    return { status: response.status, body: (await response.json()) as any };
  };
  const blockOf = async (txid: string) => {
    const raw = await devnet.rpc<{ blockhash: string }>("getrawtransaction", [txid, true]);
    const header = await devnet.rpc<{ height: number; time: number }>("getblockheader", [raw.blockhash]);
    return { confirmed: true, block_height: header.height, block_hash: raw.blockhash, block_time: header.time };
  };

  before(async () => {
    // The explorer without a mempool view, as before the stack helper: mempool_stats are zero.
    stack = await startExplorerStack({ mempool: false });
    ({ devnet, indexer } = stack);
    alice = newKey();
    bob = newKey();
    const origin = await stack.listen(stack.app);
    const { host } = new URL(origin);
    root = `${origin}/esplora/api`;
    // mempool.js builds `${protocol}://${hostname}/api/`: a hostname with our path prefix points it here.
    // Its axios on the fetch adapter: then every answer it gets is also checked against the explorer's
    // OpenAPI document by the test helper (test/helpers/openapi.ts), which sees the global fetch.
    esplora = mempoolJS({
      hostname: `${host}/esplora`,
      protocol: "http",
      config: { adapter: "fetch" },
    }).bitcoin;

    fundTxid = (await devnet.rpc<{ txid: string }>("devnet_faucet", [alice.address, 100, true])).txid;
    payment = spendP2pkh(
      alice,
      [{ txid: fundTxid, vout: 0, value: 100n * DOGE }],
      [
        { script: bob.script, value: 25n * DOGE },
        { script: nullDataScript(payload), value: 0n },
        { script: alice.script, value: 74n * DOGE },
      ],
    );
    paymentTxid = await devnet.rpc<string>("sendrawtransaction", [payment.hex]);
    await stack.mine();
  });

  after(async () => {
    await stack?.close();
  });

  describe("through @mempool/mempool.js", () => {
    it("answers an address's chain_stats over its funded and spent outputs, and zero mempool_stats", async () => {
      const before = checkedCount();
      const info = await esplora.addresses.getAddress({ address: alice.address });
      expect(checkedCount(), "the client's answer was checked against /openapi.json").to.equal(before + 1);
      expect(info).to.deep.equal({
        address: alice.address,
        chain_stats: {
          funded_txo_count: 2,
          funded_txo_sum: Number(174n * DOGE),
          spent_txo_count: 1,
          spent_txo_sum: Number(100n * DOGE),
          tx_count: 2,
        },
        mempool_stats: { funded_txo_count: 0, funded_txo_sum: 0, spent_txo_count: 0, spent_txo_sum: 0, tx_count: 0 },
      });
    });

    it("lists an address's unspent outputs with the funding block's status", async () => {
      const utxos = await esplora.addresses.getAddressTxsUtxo({ address: alice.address });
      expect(utxos).to.deep.equal([
        { txid: paymentTxid, vout: 2, status: await blockOf(paymentTxid), value: Number(74n * DOGE) },
      ]);
    });

    it("serves a transaction in Esplora's format, field by field", async () => {
      const tx = await esplora.transactions.getTx({ txid: paymentTxid });
      const size = payment.hex.length / 2;
      const aliceScript = bytesToHex(alice.script);
      const p2pkhAsm = (script: Uint8Array) =>
        `OP_DUP OP_HASH160 OP_PUSHBYTES_20 ${bytesToHex(script.subarray(3, 23))} OP_EQUALVERIFY OP_CHECKSIG`;
      expect(Object.keys(tx).sort()).to.deep.equal([
        "fee",
        "locktime",
        "size",
        "status",
        "txid",
        "version",
        "vin",
        "vout",
        "weight",
      ]);
      expect(tx).to.deep.include({
        txid: paymentTxid,
        version: 1,
        locktime: 0,
        size,
        weight: 4 * size,
        fee: Number(DOGE),
        status: await blockOf(paymentTxid),
      });
      expect(tx.vin).to.have.length(1);
      const [input] = tx.vin as any[];
      expect(Object.keys(input).sort()).to.deep.equal([
        "is_coinbase",
        "prevout",
        "scriptsig",
        "scriptsig_asm",
        "sequence",
        "txid",
        "vout",
      ]);
      expect(input).to.deep.include({ txid: fundTxid, vout: 0, is_coinbase: false, sequence: 0xffffffff });
      expect(input.prevout).to.deep.equal({
        scriptpubkey: aliceScript,
        scriptpubkey_asm: p2pkhAsm(alice.script),
        scriptpubkey_type: "p2pkh",
        scriptpubkey_address: alice.address,
        value: Number(100n * DOGE),
      });
      expect(payment.hex).to.include(input.scriptsig);
      expect(input.scriptsig_asm).to.equal(esploraAsm(Buffer.from(input.scriptsig, "hex")));
      expect(input.scriptsig_asm).to.match(/^OP_PUSHBYTES_7[12] [0-9a-f]+ OP_PUSHBYTES_33 [0-9a-f]{66}$/);
      expect(tx.vout).to.deep.equal([
        {
          scriptpubkey: bytesToHex(bob.script),
          scriptpubkey_asm: p2pkhAsm(bob.script),
          scriptpubkey_type: "p2pkh",
          scriptpubkey_address: bob.address,
          value: Number(25n * DOGE),
        },
        {
          scriptpubkey: bytesToHex(nullDataScript(payload)),
          scriptpubkey_asm: `OP_RETURN OP_PUSHBYTES_${payload.length} ${payload.toString("hex")}`,
          scriptpubkey_type: "op_return",
          value: 0,
        },
        {
          scriptpubkey: aliceScript,
          scriptpubkey_asm: p2pkhAsm(alice.script),
          scriptpubkey_type: "p2pkh",
          scriptpubkey_address: alice.address,
          value: Number(74n * DOGE),
        },
      ]);
    });

    it("serves a coinbase with is_coinbase, a null prevout and no fee", async () => {
      const best = await devnet.rpc<string>("getbestblockhash");
      const coinbaseTxid = (await devnet.rpc<{ tx: string[] }>("getblock", [best, true])).tx[0];
      const tx = (await esplora.transactions.getTx({ txid: coinbaseTxid })) as any;
      expect(tx.fee).to.equal(0);
      expect(tx.vin).to.have.length(1);
      expect(tx.vin[0]).to.deep.include({ txid: "0".repeat(64), vout: 0xffffffff, prevout: null, is_coinbase: true });
    });

    it("answers the raw hex and the status of a transaction", async () => {
      expect(await esplora.transactions.getTxHex({ txid: paymentTxid })).to.equal(payment.hex);
      expect(await esplora.transactions.getTxStatus({ txid: paymentTxid })).to.deep.equal(await blockOf(paymentTxid));
    });

    it("lists an address's transactions newest first", async () => {
      const txs = await esplora.addresses.getAddressTxs({ address: alice.address });
      expect(txs.map((t) => t.txid)).to.deep.equal([paymentTxid, fundTxid]);
      expect(txs[0]).to.deep.equal(await esplora.transactions.getTx({ txid: paymentTxid }));
      expect(await esplora.addresses.getAddressTxsChain({ address: alice.address })).to.deep.equal(txs);
      expect(await esplora.addresses.getAddressTxsMempool({ address: alice.address })).to.deep.equal([]);
    });

    it("answers the tip's height and hash as the index holds them", async () => {
      expect(await esplora.blocks.getBlocksTipHeight()).to.equal(await devnet.rpc<number>("getblockcount"));
      expect(await esplora.blocks.getBlocksTipHash()).to.equal(await devnet.rpc<string>("getbestblockhash"));
    });

    it("broadcasts a raw transaction and answers its txid", async () => {
      const spend = spendP2pkh(
        alice,
        [{ txid: paymentTxid, vout: 2, value: 74n * DOGE }],
        [{ script: bob.script, value: 73n * DOGE }],
      );
      const txid = String(await esplora.transactions.postTx({ txhex: spend.hex }));
      expect(await devnet.rpc<string[]>("getrawmempool")).to.include(txid);
      await stack.mine();
      expect((await esplora.transactions.getTxStatus({ txid })).confirmed).to.equal(true);
    });

    it("rejects with 404 for a transaction the index does not hold", async () => {
      const error = await esplora.transactions.getTx({ txid: "ab".repeat(32) }).then(
        () => null,
        (e) => e,
      );
      expect(error?.response?.status).to.equal(404);
    });
  });

  describe("through our own requests", () => {
    it("answers text for hex, tip height and tip hash", async () => {
      const hex = await getText(`/tx/${paymentTxid}/hex`);
      expect([hex.status, hex.type?.split(";")[0], hex.text]).to.deep.equal([200, "text/plain", payment.hex]);
      const height = await getText("/blocks/tip/height");
      expect([height.type?.split(";")[0], height.text]).to.deep.equal([
        "text/plain",
        String(await devnet.rpc<number>("getblockcount")),
      ]);
    });

    it("pages the confirmed history 25 at a time with /txs/chain/:last_seen_txid", async () => {
      const carol = newKey();
      const funded: string[] = [];
      for (let i = 0; i < 27; i++)
        funded.push((await devnet.rpc<{ txid: string }>("devnet_faucet", [carol.address, 1 + i])).txid);
      await stack.mine();
      const first = (await getJson(`/address/${carol.address}/txs/chain`)).body as any[];
      expect(first).to.have.length(25);
      const second = (await getJson(`/address/${carol.address}/txs/chain/${first[24].txid}`)).body as any[];
      expect(second).to.have.length(2);
      const all = [...first, ...second].map((t) => t.txid);
      expect(new Set(all)).to.deep.equal(new Set(funded));
      // Newest first: one block, so by descending position in it.
      const block = (await devnet.rpc<{ tx: string[] }>("getblock", [first[0].status.block_hash, true])).tx;
      expect(all).to.deep.equal([...funded].sort((a, b) => block.indexOf(b) - block.indexOf(a)));
      const afterTxid = (await getJson(`/address/${carol.address}/txs?after_txid=${first[24].txid}`)).body as any[];
      expect(afterTxid.map((t) => t.txid)).to.deep.equal(second.map((t) => t.txid));
    });

    it("writes koinu sums past 2^53 as JSON integers of every digit", async () => {
      const whale = newKey();
      const huge = 2n ** 60n + 1n;
      const db = indexer.store.db;
      // The indexer's counters of the address (address_stats, schema version 13), as it would have
      // written them for one output of that value: /address reads only them.
      db.prepare(
        "INSERT INTO addresses (id, address, script, script_hash) VALUES ((SELECT MAX(id) + 1 FROM addresses), ?, ?, ?)",
      ).run(whale.address, Buffer.from(whale.script), createHash("sha256").update(whale.script).digest());
      db.prepare(
        `INSERT INTO address_stats (id, confirmed, tx_count, funded_txo_count, funded_txo_sum, spent_txo_count, spent_txo_sum)
          VALUES ((SELECT id FROM addresses WHERE address = ?), ?, 1, 1, ?, 0, 0)`,
      ).run(whale.address, huge, huge);
      const response = await fetch(`${root}/address/${whale.address}`);
      const body = parseLossless(await response.text(), undefined, (value) =>
        isInteger(value) ? BigInt(value) : Number(value),
      ) as any;
      expect(body.chain_stats.funded_txo_sum).to.equal(huge);
      expect(body.chain_stats.spent_txo_sum).to.equal(0n);
    });

    it("refuses a body that is not a transaction with 400 and Esplora's plain-text message", async () => {
      const response = await fetch(`${root}/tx`, { method: "POST", body: "00ff" });
      expect(response.status).to.equal(400);
      expect(response.headers.get("content-type")).to.match(/^text\/plain/);
      expect(await response.text()).to.match(/^TX decode failed: /);
    });

    it("answers CORS to any origin", async () => {
      const response = await fetch(`${root}/blocks/tip/hash`, { method: "OPTIONS" });
      expect(response.status).to.equal(204);
      expect(response.headers.get("access-control-allow-origin")).to.equal("*");
    });
  });
});
