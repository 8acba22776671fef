/**
 * Issue 27, item 4: Esplora's address and script-hash routes (and the transactions they answer)
 * read from the explorer's PostgreSQL pool answer byte for byte what they answer synchronously,
 * on PostgreSQL and on SQLite, over one generated chain: every address route of the busiest
 * addresses with their chain pages walked by the last seen txid, unknown and malformed ones, a
 * pending transaction whose prevouts are read from the index, and the transaction and block routes
 * that share the transaction writer. Each route is asked many at a time through a pool smaller
 * than the requests in flight, twice (the second time from the explorer's caches).
 */
import { expect } from "chai";
import { createHash } from "node:crypto";
import http from "node:http";
import { generateChain } from "../../scripts/bench/chain-generator";
import { NETWORKS, addressToOutputScript, outputScriptToAddress, parseBlock } from "../../src/doge";
import type { DecodedTransaction } from "../../src/doge";
import { PostgresPool } from "../../src/db/postgres-pool";
import type { SqlDatabase } from "../../src/db/sql";
import { openIndexReader, openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { IndexQueries } from "../../src/indexer/queries";
import { AsyncIndexReads } from "../../src/indexer/read/async";
import { MemoryChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { createExplorerApp } from "../../src/services/explorer/app";
import { testPostgresUrl } from "../helpers/postgres";

describe("Esplora's address routes from the PostgreSQL pool answer as they do synchronously (issue 27, item 4)", function () {
  this.timeout(300_000);
  const url = testPostgresUrl();
  const chain = generateChain({ blocks: 120, transactions: 600, seed: 41 });
  const blocks = chain.raws.map((raw) => {
    const parsed = parseBlock(raw);
    if (!parsed.ok) throw parsed.error;
    return parsed.value;
  });
  const rawByHash = new Map(chain.hashes.map((hash, i) => [hash, chain.raws[i]]));
  let sqlite: SqlDatabase;
  let reader: SqlDatabase;
  let pooled: AsyncIndexReads;
  let addresses: string[];
  let pending: DecodedTransaction;
  let pooledPlans = 0;
  const servers: http.Server[] = [];
  const bases: string[] = [];

  const index = async (db: SqlDatabase) =>
    new Indexer({
      store: new IndexerStore(db),
      source: new MemoryChainSource(chain.hashes, chain.raws),
      network: NETWORKS.regtest,
    }).syncOnce();

  before(async () => {
    sqlite = openIndexerDatabase(":memory:");
    await index(sqlite);
    const writer = openIndexerDatabase(url());
    await index(writer);
    writer.close();
    reader = openIndexReader(url());
    // Fewer connections than requests in flight below: reads queue for a connection and interleave.
    pooled = new AsyncIndexReads(new PostgresPool(url(), { size: 3, readOnly: true }));
    addresses = new IndexQueries(sqlite).busiestAddresses(12).map((a) => a.address);
    // A "pending" transaction: one of the chain's own, spending indexed outputs, so that its
    // prevouts are the index's (read per input) and its first output's address has one pending.
    pending = blocks.flatMap((b) => b.txs.slice(1)).find((tx) => tx.inputs.length > 1)!;
    const pendingAddress = outputScriptToAddress(pending.outputs[0].script, NETWORKS.regtest)!;
    const mempool = {
      addressStats: (a: string) =>
        a === pendingAddress
          ? { fundedCount: 1, fundedKoinu: pending.outputs[0].value, spentCount: 0, spentKoinu: 0n, txCount: 1 }
          : undefined,
      tx: (txid: string) => (txid === pending.txid ? { feeKoinu: 1234n, outputs: [] } : undefined),
      rawTx: (txid: string) => (txid === pending.txid ? pending : undefined),
      history: (a: string) => (a === pendingAddress ? [{ txid: pending.txid }] : []),
      spentBy: () => null,
    };
    addresses.push(pendingAddress);
    const serve = async (db: SqlDatabase, pool: AsyncIndexReads | undefined) => {
      const app = createExplorerApp({
        queries: new IndexQueries(db),
        network: NETWORKS.regtest,
        node: {
          sendRawTransaction: async () => "",
          getBlockHex: async (hash: string) => {
            const raw = rawByHash.get(hash);
            if (!raw) throw Object.assign(new Error("Block not found"), { code: -5 });
            return Buffer.from(raw).toString("hex");
          },
        } as never,
        mempool: mempool as never,
        statusCacheMs: 0,
        addressReads: pool,
      });
      const server = http.createServer(app);
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      bases.push(`http://127.0.0.1:${(server.address() as { port: number }).port}/esplora/api`);
    };
    await serve(sqlite, undefined);
    await serve(reader, undefined);
    // The pooled server's plans, counted: its routes must read through the pool.
    const counted = Object.create(pooled) as AsyncIndexReads;
    counted.run = (plan) => {
      pooledPlans++;
      return pooled.run(plan);
    };
    await serve(reader, counted);
  });

  after(async () => {
    for (const server of servers) server.close();
    await pooled?.close();
    reader?.close();
    sqlite?.close();
  });

  /** Every server's answer to each path (asked all at once); fails unless they are the same bytes. */
  const same = async (paths: string[]): Promise<{ status: number; body: string }[]> => {
    const answers = await Promise.all(
      paths.map((path) =>
        Promise.all(
          bases.map(async (base) => {
            const response = await fetch(`${base}${path}`);
            return {
              status: response.status,
              type: response.headers.get("content-type"),
              body: await response.text(),
            };
          }),
        ),
      ),
    );
    return answers.map(([expected, ...others], i) => {
      for (const [j, other] of others.entries())
        expect(other, `${paths[i]} (${j === 0 ? "PostgreSQL, synchronous" : "PostgreSQL, pooled"})`).to.deep.equal(
          expected,
        );
      return expected;
    });
  };
  /** Esplora's script hash of an address: SHA-256 of its output script, in that byte order. */
  const scriptHash = (address: string) =>
    createHash("sha256").update(addressToOutputScript(address, NETWORKS.regtest)).digest("hex");

  it("serves a chain whose busiest addresses have long histories and many unspent outputs", async () => {
    const [first] = await same([`/address/${addresses[0]}`]);
    const stats = JSON.parse(first.body) as { chain_stats: { tx_count: number; funded_txo_count: number } };
    expect(stats.chain_stats.tx_count).to.be.greaterThan(ESPLORA_PAGE);
    const [utxo] = await same([`/address/${addresses[0]}/utxo`]);
    expect((JSON.parse(utxo.body) as unknown[]).length).to.be.greaterThan(5);
  });

  for (const pass of ["read from the index", "kept by the explorer"])
    it(`answers every address and script-hash route alike, ${pass}`, async () => {
      let chainPages = 0;
      for (const address of addresses) {
        const hash = scriptHash(address);
        const roots = [`/address/${address}`, `/scripthash/${hash}`];
        const answers = await same(
          roots.flatMap((root) => [root, `${root}/utxo`, `${root}/txs`, `${root}/txs/chain`, `${root}/txs/mempool`]),
        );
        for (const answer of answers) expect(answer.status).to.equal(200);
        // Walk the confirmed history by the last seen txid, on both roots at once.
        let page = JSON.parse(answers[3].body) as { txid: string }[];
        while (page.length > 0) {
          const last = page[page.length - 1].txid;
          const [next, ...rest] = await same([
            ...roots.map((root) => `${root}/txs/chain/${last}`),
            ...roots.map((root) => `${root}/txs?after_txid=${last}`),
          ]);
          for (const answer of rest) expect(answer.body).to.equal(next.body);
          page = JSON.parse(next.body) as { txid: string }[];
          chainPages++;
        }
      }
      expect(chainPages).to.be.greaterThan(addresses.length);
      expect(pooledPlans, "plans the pooled server ran on the pool").to.be.greaterThan(addresses.length * 10);
    });

  it("answers the pending transaction with its prevouts read from the index", async () => {
    const address = addresses[addresses.length - 1];
    const [mempoolPage, txs, tx] = await same([
      `/address/${address}/txs/mempool`,
      `/address/${address}/txs`,
      `/tx/${pending.txid}`,
    ]);
    const [first] = JSON.parse(mempoolPage.body) as {
      txid: string;
      vin: { prevout: { value: number } | null }[];
      status: { confirmed: boolean };
    }[];
    expect(first.txid).to.equal(pending.txid);
    expect(first.status.confirmed).to.equal(false);
    expect(first.vin.every((input) => input.prevout !== null && input.prevout.value > 0)).to.equal(true);
    expect(txs.body.startsWith(`[${JSON.stringify(first)}`)).to.equal(true);
    expect((JSON.parse(tx.body) as { status: { confirmed: boolean } }).status.confirmed).to.equal(true);
  });

  it("answers unknown and malformed addresses and script hashes alike", async () => {
    const unknown = outputScriptToAddress(Buffer.from(`76a914${"ab".repeat(20)}88ac`, "hex"), NETWORKS.regtest)!;
    const unknownHash = "cd".repeat(32);
    const answers = await same([
      `/address/${unknown}`,
      `/address/${unknown}/utxo`,
      `/address/${unknown}/txs`,
      `/address/${unknown}/txs/chain/${"ef".repeat(32)}`,
      `/scripthash/${unknownHash}`,
      `/scripthash/${unknownHash}/utxo`,
      `/scripthash/${unknownHash}/txs`,
      `/address/${addresses[0]}/txs/chain/${"ef".repeat(32)}`,
    ]);
    for (const answer of answers) expect(answer.status).to.equal(200);
    expect(answers[2].body).to.equal("[]");
    expect(answers[7].body).to.equal("[]");
    const refused = await same([
      "/address/not-an-address",
      "/address/not-an-address/utxo",
      "/scripthash/zz",
      "/scripthash/zz/txs",
      `/address/${addresses[0]}/txs/chain/zz`,
    ]);
    for (const answer of refused) expect(answer.status).to.equal(400);
  });

  it("answers transactions, their spends and block pages alike", async () => {
    const txids = blocks.flatMap((b) => b.txs.map((tx) => tx.txid)).filter((_, i) => i % 7 === 0);
    const answers = await same([
      ...txids.flatMap((txid) => [`/tx/${txid}`, `/tx/${txid}/status`, `/tx/${txid}/outspends`]),
      ...txids.map((txid) => `/tx/${txid}/outspend/0`),
      ...chain.hashes.filter((_, i) => i % 10 === 0).map((hash) => `/block/${hash}/txs`),
      `/tx/${"ef".repeat(32)}`,
    ]);
    expect(answers.filter((a) => a.status === 200).length).to.equal(answers.length - 1);
    expect(answers[answers.length - 1].status).to.equal(404);
  });
});

/** Esplora's page of confirmed transactions. */
const ESPLORA_PAGE = 25;
