/**
 * The Esplora surface (/esplora/api) on a devnet + indexer + explorer stack: every route of
 * Esplora's API.md that the subset test (explorer-esplora.test.ts) does not cover, through
 * @mempool/mempool.js where it has the route and through plain requests otherwise, each answer
 * compared with what the devnet itself says over RPC. Every answer is also checked against the
 * explorer's OpenAPI document by the test helper around fetch.
 */
import { expect } from "chai";
import { createHash } from "node:crypto";
import mempoolJS from "@mempool/mempool.js";
import type { MempoolView } from "../../src/services/explorer/mempool";
import { FEE_FLOOR_KOINU_PER_BYTE, FEE_TARGETS } from "../../src/services/explorer/esplora-mempool";
import type { RunningDevnet } from "../helpers/devnet";
import { ExplorerStack, startExplorerStack } from "../helpers/explorer-stack";
import { readMerkleBlock, rootFromBranch, headerId } from "../helpers/esplora-merkle";
import { TestKey, newKey, spendP2pkh } from "../helpers/keys";

const DOGE = 100_000_000n;

describe("explorer Esplora API: blocks, proofs, outspends, mempool and fees", function () {
  this.timeout(120_000);
  let stack: ExplorerStack;
  let devnet: RunningDevnet;
  let view: MempoolView;
  let root: string;
  let esplora: ReturnType<typeof mempoolJS>["bitcoin"];
  let alice: TestKey;
  let bob: TestKey;
  let fundTxid: string;
  let paymentTxid: string;
  let busyBlock: string;
  let busyTxids: string[];

  const get = async (path: string) => {
    const response = await fetch(`${root}${path}`);
    return {
      status: response.status,
      type: (response.headers.get("content-type") ?? "").split(";")[0],
      text: await response.text(),
    };
  };
  const getJson = async (path: string) => {
    const answer = await get(path);
    expect(answer.type, `${path} answers JSON`).to.equal("application/json");
    return { status: answer.status, body: JSON.parse(answer.text) };
  };
  const mine = (blocks = 1) => stack.mine(blocks);
  /** The devnet's own view of a block, in Esplora's block shape. */
  const expectedBlock = async (hash: string) => {
    const b = await devnet.rpc<any>("getblock", [hash, true]);
    return {
      id: hash,
      height: b.height,
      version: b.version,
      timestamp: b.time,
      tx_count: b.tx.length,
      size: b.size,
      weight: b.weight,
      merkle_root: b.merkleroot,
      previousblockhash: b.previousblockhash ?? null,
      mediantime: b.mediantime,
      nonce: b.nonce,
      bits: parseInt(b.bits, 16),
      difficulty: b.difficulty,
    };
  };

  before(async () => {
    stack = await startExplorerStack();
    ({ devnet, view } = stack);
    alice = newKey();
    bob = newKey();
    const origin = await stack.listen(stack.app);
    root = `${origin}/esplora/api`;
    esplora = mempoolJS({
      hostname: `${new URL(origin).host}/esplora`,
      protocol: "http",
      config: { adapter: "fetch" },
    }).bitcoin;

    fundTxid = (await devnet.rpc<{ txid: string }>("devnet_faucet", [alice.address, 100, true])).txid;
    const payment = spendP2pkh(
      alice,
      [{ txid: fundTxid, vout: 0, value: 100n * DOGE }],
      [
        { script: bob.script, value: 25n * DOGE },
        { script: alice.script, value: 74n * DOGE },
      ],
    );
    paymentTxid = await devnet.rpc<string>("sendrawtransaction", [payment.hex]);
    // A block of 28 transactions (coinbase, the payment and 26 faucet payments): two pages of
    // /block/:hash/txs and a merkle tree with an odd level.
    for (let i = 0; i < 26; i++) await devnet.rpc("devnet_faucet", [newKey().address, 1 + i]);
    await mine();
    busyBlock = await devnet.rpc<string>("getbestblockhash");
    busyTxids = (await devnet.rpc<{ tx: string[] }>("getblock", [busyBlock, true])).tx;
    await mine(2);
  });

  after(async () => {
    await stack?.close();
  });

  describe("blocks", () => {
    it("answers /blocks (10 from the tip) and /blocks/:start_height as the devnet describes each block", async () => {
      const tipHeight = await devnet.rpc<number>("getblockcount");
      const newest = (await getJson("/blocks")).body as any[];
      expect(newest.map((b) => b.height)).to.deep.equal(
        Array.from({ length: Math.min(10, tipHeight + 1) }, (_, i) => tipHeight - i),
      );
      for (const block of newest) expect(block).to.deep.equal(await expectedBlock(block.id));
      const fromTwo = (await getJson("/blocks/2")).body as any[];
      expect(fromTwo.map((b) => b.height)).to.deep.equal([2, 1, 0]);
      expect(fromTwo[2].previousblockhash, "the genesis block has no previous block").to.equal(null);
      // Esplora reads a start height that is not a number as "from the tip".
      expect((await getJson("/blocks/tip")).body).to.deep.equal(newest);
      const above = await get(`/blocks/${tipHeight + 1}`);
      expect([above.status, above.type, above.text]).to.deep.equal([404, "text/plain", "Block not found"]);
    });

    it("answers /block-height/:height, /block/:hash and /block/:hash/status through mempool.js", async () => {
      const height = (await devnet.rpc<any>("getblock", [busyBlock, true])).height;
      expect(await esplora.blocks.getBlockHeight({ height })).to.equal(busyBlock);
      expect((await getJson(`/block/${busyBlock}`)).body).to.deep.equal(await expectedBlock(busyBlock));
      expect(await esplora.blocks.getBlockStatus({ hash: busyBlock })).to.deep.equal({
        in_best_chain: true,
        height,
        next_best: await devnet.rpc<string>("getblockhash", [height + 1]),
      });
      const tip = await devnet.rpc<string>("getbestblockhash");
      expect(await esplora.blocks.getBlockStatus({ hash: tip })).to.deep.equal({
        in_best_chain: true,
        height: await devnet.rpc<number>("getblockcount"),
      });
      expect(await esplora.blocks.getBlockStatus({ hash: "ab".repeat(32) })).to.deep.equal({ in_best_chain: false });
    });

    it("answers Esplora's plain-text errors for block routes", async () => {
      const tipHeight = await devnet.rpc<number>("getblockcount");
      const cases: [string, number, string][] = [
        [`/block-height/${tipHeight + 5}`, 404, "Block not found"],
        ["/block-height/x1", 400, "Invalid number"],
        [`/block/${"ab".repeat(32)}`, 404, "Block not found"],
        [`/block/${"ab".repeat(32)}/txids`, 404, "Block not found"],
        ["/block/zz", 400, "Invalid hex string"],
        [`/block/${busyBlock}/txid/${busyTxids.length}`, 404, "tx index out of range"],
        [`/block/${busyBlock}/txs/5`, 400, "start index must be a multiple of 25"],
        [`/block/${busyBlock}/txs/50`, 400, "start index out of range"],
        [`/tx/${"cd".repeat(32)}`, 404, "Transaction not found"],
        [`/tx/${"cd".repeat(32)}/merkle-proof`, 404, "Transaction not found or is unconfirmed"],
        [`/tx/${"cd".repeat(32)}/outspends`, 404, "Transaction not found"],
        ["/tx/1234", 400, "Invalid hex string"],
        ["/no/such/route", 404, 'endpoint does not exist "/no/such/route"'],
      ];
      for (const [path, status, text] of cases) {
        const answer = await get(path);
        expect([answer.status, answer.type, answer.text], path).to.deep.equal([status, "text/plain", text]);
      }
    });

    it("lists a block's txids, one txid by index, and its transactions 25 at a time", async () => {
      expect(await esplora.blocks.getBlockTxids({ hash: busyBlock })).to.deep.equal(busyTxids);
      expect(busyTxids).to.have.length(28);
      expect(await esplora.blocks.getBlockTxid({ hash: busyBlock, index: 1 })).to.equal(busyTxids[1]);
      const first = (await esplora.blocks.getBlockTxs({ hash: busyBlock, start_index: 0 })) as unknown as any[];
      const second = (await getJson(`/block/${busyBlock}/txs/25`)).body as any[];
      expect((await getJson(`/block/${busyBlock}/txs`)).body).to.deep.equal(first);
      expect([...first, ...second].map((t) => t.txid)).to.deep.equal(busyTxids);
      expect(first[0].vin[0].is_coinbase).to.equal(true);
      const payment = first.find((t) => t.txid === paymentTxid);
      expect(payment).to.deep.equal((await getJson(`/tx/${paymentTxid}`)).body);
      expect(payment.fee).to.equal(Number(DOGE));
    });

    it("serves the raw block and its 80-byte header as the devnet serializes them", async () => {
      const rawHex = await devnet.rpc<string>("getblock", [busyBlock, false]);
      const raw = await fetch(`${root}/block/${busyBlock}/raw`);
      expect(raw.headers.get("content-type")).to.equal("application/octet-stream");
      expect(Buffer.from(await raw.arrayBuffer()).toString("hex")).to.equal(rawHex);
      // mempool.js reads it as text (axios's default): what it gets is the bytes decoded as UTF-8.
      const viaClient = (await esplora.blocks.getBlockRaw({ hash: busyBlock })) as unknown as string;
      expect(viaClient).to.equal(Buffer.from(rawHex, "hex").toString("utf8"));
      const header = await esplora.blocks.getBlockHeader({ hash: busyBlock });
      expect(header).to.equal(await devnet.rpc<string>("getblockheader", [busyBlock, false]));
      expect(headerId(header)).to.equal(busyBlock);
    });

    it("says a block a reorg took away is no longer in the best chain, still serves it by hash, and moves its transactions", async () => {
      // A payment mined in the block the reorg will take away, read (and kept) through /txs first.
      const carol = newKey();
      const paid = (await devnet.rpc<{ txid: string }>("devnet_faucet", [carol.address, 3])).txid;
      await mine();
      const stale = await devnet.rpc<string>("getbestblockhash");
      const height = await devnet.rpc<number>("getblockcount");
      const before = (await getJson(`/address/${carol.address}/txs`)).body as any[];
      expect(before.map((t) => [t.txid, t.status.block_hash])).to.deep.equal([[paid, stale]]);
      await devnet.rpc("invalidateblock", [stale]);
      await mine(2);
      expect(await esplora.blocks.getBlockHeight({ height })).to.not.equal(stale);
      expect(await esplora.blocks.getBlockStatus({ hash: stale })).to.deep.equal({ in_best_chain: false });
      expect((await getJson(`/block/${stale}`)).body).to.deep.include({ id: stale, height });
      // The payment went back to the mempool and into the new chain: its status names the new block.
      const { blockhash } = await devnet.rpc<{ blockhash: string }>("getrawtransaction", [paid, 1]);
      expect(blockhash).to.not.equal(stale);
      const after = (await getJson(`/address/${carol.address}/txs`)).body as any[];
      expect(after.map((t) => [t.txid, t.status.block_hash])).to.deep.equal([[paid, blockhash]]);
      expect((await getJson(`/tx/${paid}`)).body.status.block_hash).to.equal(blockhash);
      expect((await getJson(`/address/${carol.address}/utxo`)).body[0].status.block_hash).to.equal(blockhash);
    });
  });

  describe("transactions", () => {
    it("serves the raw transaction as binary", async () => {
      const hex = await devnet.rpc<string>("getrawtransaction", [paymentTxid, 0]);
      const raw = await fetch(`${root}/tx/${paymentTxid}/raw`);
      expect(raw.headers.get("content-type")).to.equal("application/octet-stream");
      expect(Buffer.from(await raw.arrayBuffer()).toString("hex")).to.equal(hex);
      const viaClient = (await esplora.transactions.getTxRaw({ txid: paymentTxid })) as unknown as string;
      expect(viaClient).to.equal(Buffer.from(hex, "hex").toString("utf8"));
    });

    it("proves every transaction of a 28-transaction block in Electrum's form and as a merkleblock", async () => {
      const block = await devnet.rpc<any>("getblock", [busyBlock, true]);
      const header = await devnet.rpc<string>("getblockheader", [busyBlock, false]);
      for (const [pos, txid] of busyTxids.entries()) {
        const proof = await esplora.transactions.getTxMerkleProof({ txid });
        expect([proof.block_height, proof.pos]).to.deep.equal([block.height, pos]);
        expect(rootFromBranch(txid, proof.merkle as unknown as string[], pos)).to.equal(block.merkleroot);
        const merkleblock = await esplora.transactions.getTxMerkleBlockProof({ txid });
        expect(readMerkleBlock(merkleblock)).to.deep.equal({
          header,
          transactions: busyTxids.length,
          root: block.merkleroot,
          matched: [txid],
        });
      }
    });

    it("answers each output's spend: by a confirmed input, by a pending one, or none", async () => {
      expect(await esplora.transactions.getTxOutspend({ txid: fundTxid, vout: 0 })).to.deep.equal({
        spent: true,
        txid: paymentTxid,
        vin: 0,
        status: (await getJson(`/tx/${paymentTxid}/status`)).body,
      });
      const spend = spendP2pkh(
        bob,
        [{ txid: paymentTxid, vout: 0, value: 25n * DOGE }],
        [{ script: alice.script, value: 24n * DOGE }],
      );
      const spendTxid = await devnet.rpc<string>("sendrawtransaction", [spend.hex]);
      await view.refresh();
      expect(await esplora.transactions.getTxOutspends({ txid: paymentTxid })).to.deep.equal([
        { spent: true, txid: spendTxid, vin: 0, status: { confirmed: false } },
        { spent: false },
      ]);
      // An output the chain never had is unspent, as Esplora answers it.
      expect(await esplora.transactions.getTxOutspend({ txid: paymentTxid, vout: 7 })).to.deep.equal({ spent: false });
      await mine();
      await view.refresh();
      expect((await esplora.transactions.getTxOutspends({ txid: paymentTxid }))[0]).to.deep.equal({
        spent: true,
        txid: spendTxid,
        vin: 0,
        status: (await getJson(`/tx/${spendTxid}/status`)).body,
      });
    });

    it("refuses a broadcast the node rejects with 400 and the node's answer in electrs's words", async () => {
      // Spends the faucet coin the payment already spent: the node answers -25 (missing inputs) or
      // -26 (conflict); Esplora clients read the text.
      const again = spendP2pkh(
        alice,
        [{ txid: fundTxid, vout: 0, value: 100n * DOGE }],
        [{ script: bob.script, value: 99n * DOGE }],
      );
      const response = await fetch(`${root}/tx`, { method: "POST", body: again.hex });
      expect(response.status).to.equal(400);
      expect(response.headers.get("content-type")).to.match(/^text\/plain/);
      const text = await response.text();
      const match = /^sendrawtransaction RPC error: (\{.*\})$/.exec(text);
      expect(match, text).to.not.equal(null);
      const body = JSON.parse(match![1]);
      const node = await devnet.rpcRaw("sendrawtransaction", [again.hex]);
      expect(body).to.deep.equal({ code: node.body!.error!.code, message: node.body!.error!.message });
    });
  });

  describe("address search", () => {
    it("answers the indexed addresses beginning with a prefix, in byte order, at most 10", async () => {
      // Every regtest P2PKH address begins with m or n: the index has seen alice's and bob's paid.
      const all = [
        ...((await getJson("/address-prefix/m")).body as string[]),
        ...((await getJson("/address-prefix/n")).body as string[]),
      ];
      expect(all.length).to.be.within(2, 20);
      for (const prefix of ["m", "n"]) {
        const page = (await getJson(`/address-prefix/${prefix}`)).body as string[];
        expect(page.length).to.be.at.most(10);
        expect(
          page.every((a) => a.startsWith(prefix)),
          prefix,
        ).to.equal(true);
        expect([...page].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).to.deep.equal(page);
      }
      // A prefix long enough to name one address finds exactly it.
      expect((await getJson(`/address-prefix/${alice.address.slice(0, 20)}`)).body).to.deep.equal([alice.address]);
      expect((await getJson(`/address-prefix/${alice.address}`)).body).to.deep.equal([alice.address]);
      // Never paid, or not Base58 (0, O, I and l are not in its alphabet): none.
      expect((await getJson(`/address-prefix/${newKey().address}`)).body).to.deep.equal([]);
      expect((await getJson("/address-prefix/m0")).body).to.deep.equal([]);
    });
  });

  describe("script hashes", () => {
    const scriptHash = (script: Uint8Array) => createHash("sha256").update(script).digest("hex");

    it("answers /scripthash/:hash and its lists as /address answers the address whose script it hashes", async () => {
      const hash = scriptHash(alice.script);
      const stats = (await getJson(`/scripthash/${hash}`)).body;
      const { address: _address, ...byAddress } = (await getJson(`/address/${alice.address}`)).body;
      expect(stats).to.deep.equal({ scripthash: hash, ...byAddress });
      expect(stats.chain_stats.tx_count).to.be.above(0);
      for (const list of ["utxo", "txs", "txs/chain", "txs/mempool"])
        expect((await getJson(`/scripthash/${hash}/${list}`)).body, list).to.deep.equal(
          (await getJson(`/address/${alice.address}/${list}`)).body,
        );
      const chain = (await getJson(`/scripthash/${hash}/txs/chain`)).body as any[];
      expect(chain.map((t) => t.txid)).to.include(paymentTxid);
      const last = chain[chain.length - 1].txid;
      expect((await getJson(`/scripthash/${hash}/txs/chain/${last}`)).body).to.deep.equal(
        (await getJson(`/address/${alice.address}/txs/chain/${last}`)).body,
      );
    });

    it("answers zeros and empty lists for a script no confirmed transaction pays, and 400 for a malformed hash", async () => {
      const unknown = scriptHash(newKey().script);
      expect((await getJson(`/scripthash/${unknown}`)).body).to.deep.equal({
        scripthash: unknown,
        chain_stats: { funded_txo_count: 0, funded_txo_sum: 0, spent_txo_count: 0, spent_txo_sum: 0, tx_count: 0 },
        mempool_stats: { funded_txo_count: 0, funded_txo_sum: 0, spent_txo_count: 0, spent_txo_sum: 0, tx_count: 0 },
      });
      for (const list of ["utxo", "txs", "txs/chain", "txs/mempool"])
        expect((await getJson(`/scripthash/${unknown}/${list}`)).body, list).to.deep.equal([]);
      const bad = await get("/scripthash/xyz/txs");
      expect([bad.status, bad.type, bad.text]).to.deep.equal([400, "text/plain", "Invalid scripthash"]);
    });

    it("ends the confirmed list at a last seen txid the index does not hold, as electrs does", async () => {
      const hash = scriptHash(alice.script);
      expect((await getJson(`/scripthash/${hash}/txs/chain/${"ef".repeat(32)}`)).body).to.deep.equal([]);
    });
  });

  describe("mempool and fees", () => {
    let pending: { txid: string; hex: string }[];

    before(async () => {
      pending = [];
      const keys = [newKey(), newKey(), newKey()];
      const coins: string[] = [];
      for (const key of keys)
        coins.push((await devnet.rpc<{ txid: string }>("devnet_faucet", [key.address, 10, true])).txid);
      await mine();
      for (const [i, key] of keys.entries()) {
        const tx = spendP2pkh(
          key,
          [{ txid: coins[i], vout: 0, value: 10n * DOGE }],
          [{ script: newKey().script, value: 10n * DOGE - BigInt(i + 1) * 1_000_000n }],
        );
        pending.push({ txid: await devnet.rpc<string>("sendrawtransaction", [tx.hex]), hex: tx.hex });
      }
      await view.refresh();
    });

    it("answers the backlog, the txids and the latest arrivals from the node's mempool", async () => {
      const verbose = await devnet.rpc<Record<string, { size: number; fee: number }>>("getrawmempool", [true]);
      const ids = Object.keys(verbose);
      expect(ids).to.include.members(pending.map((p) => p.txid));
      const backlog = (await esplora.mempool.getMempool()) as unknown as Record<string, any>;
      const sizes = ids.reduce((sum, id) => sum + verbose[id].size, 0);
      expect(backlog).to.deep.include({ count: ids.length, vsize: sizes });
      expect(backlog.total_fee).to.equal(
        Number(ids.reduce((sum, id) => sum + BigInt(Math.round(verbose[id].fee * 1e8)), 0n)),
      );
      // Fewer than 50,000 vbytes: one bin, at the lowest rate, holding every byte.
      const rates = ids.map((id) => Math.round(verbose[id].fee * 1e8) / verbose[id].size);
      expect(backlog.fee_histogram).to.deep.equal([[Math.min(...rates), sizes]]);
      expect([...(await esplora.mempool.getMempoolTxids())].sort()).to.deep.equal([...ids].sort());
      const recent = (await esplora.mempool.getMempoolRecent()) as any[];
      expect(ids.length, "fewer than Esplora's 10 recent").to.be.at.most(10);
      expect(recent.map((r) => r.txid).sort()).to.deep.equal([...ids].sort());
      const mine3 = recent.find((r) => r.txid === pending[2].txid);
      expect(mine3).to.deep.equal({
        txid: pending[2].txid,
        fee: 3_000_000,
        vsize: pending[2].hex.length / 2,
        value: Number(10n * DOGE - 3_000_000n),
      });
    });

    it("answers fee estimates in koinu per byte from the node's estimates, never below 0.01 DOGE/kB", async () => {
      expect(FEE_FLOOR_KOINU_PER_BYTE).to.equal(1000);
      const before = (await getJson("/fee-estimates")).body;
      expect(
        Object.keys(before)
          .map(Number)
          .sort((a, b) => a - b),
      ).to.deep.equal([...FEE_TARGETS]);
      // The pending payments pay 0.01 to 0.03 DOGE for about 190 bytes: mined, they are the
      // recent blocks' fee rates the devnet estimates from (DOGE per kB).
      await mine();
      const after = (await getJson("/fee-estimates")).body;
      for (const target of FEE_TARGETS) {
        const node = await devnet.rpc<{ feerate: number }>("estimatesmartfee", [Math.min(target, 25)]);
        const expected = node.feerate > 0 ? Math.max(1000, Math.round(node.feerate * 1e8) / 1000) : 1000;
        expect(after[String(target)], `target ${target}`).to.equal(expected);
        expect(before[String(target)]).to.be.at.least(1000);
      }
      expect(after["1"], "the mined payments pay well above the floor").to.be.above(1000);
    });
  });
});
