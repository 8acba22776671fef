/**
 * Issue 27, item 4: the explorer's hot address reads from a PostgreSQL connection pool
 * (AsyncIndexReads) answer exactly what the synchronous readers (IndexQueries) answer on the same
 * index: balances, every history page and every UTXO page of every address of a generated chain,
 * walked by their cursors, read many at a time through a pool smaller than the reads in flight.
 */
import { expect } from "chai";
import { generateChain } from "../../scripts/bench/chain-generator";
import { NETWORKS } from "../../src/doge";
import { PostgresPool } from "../../src/db/postgres-pool";
import type { SqlDatabase } from "../../src/db/sql";
import { openIndexReader, openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { IndexQueries } from "../../src/indexer/queries";
import { AsyncIndexReads } from "../../src/indexer/read/async";
import { MemoryChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { createExplorerApp, createWalletFastPath } from "../../src/services/explorer/app";
import http from "node:http";
import { testPostgresUrl } from "../helpers/postgres";

/** JSON with bigints written as "<n>n", so two answers compare exactly (types included). */
const plain = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? `${v}n` : v)));

describe("PostgreSQL reads from a pool answer as the synchronous readers do (issue 27, item 4)", function () {
  this.timeout(300_000);
  const url = testPostgresUrl();
  let reader: SqlDatabase;
  let sync: IndexQueries;
  let pooled: AsyncIndexReads;
  let addresses: string[];

  before(async () => {
    const chain = generateChain({ blocks: 140, transactions: 700, seed: 27 });
    const writer = openIndexerDatabase(url());
    await new Indexer({
      store: new IndexerStore(writer),
      source: new MemoryChainSource(chain.hashes, chain.raws),
      network: NETWORKS.regtest,
    }).syncOnce();
    writer.close();
    reader = openIndexReader(url());
    sync = new IndexQueries(reader);
    // Fewer connections than reads in flight below: reads queue for a connection and interleave.
    pooled = new AsyncIndexReads(new PostgresPool(url(), { size: 3, readOnly: true }));
    addresses = sync.busiestAddresses(1000).map((a) => a.address);
  });

  after(async () => {
    await pooled?.close();
    reader?.close();
  });

  it("reads a chain whose addresses have long histories and many unspent outputs", () => {
    expect(addresses.length).to.be.greaterThan(50);
    expect(sync.balance(addresses[0]).txCount).to.be.greaterThan(20);
    expect(sync.utxos(addresses[0], null, 500).items.length).to.be.greaterThan(5);
  });

  it("balances: every address, an unknown one and a malformed one, read concurrently", async () => {
    const keys = [...addresses, "nUnknownAddressThatHoldsNothing", ""];
    const answers = await Promise.all(keys.map((a) => pooled.balance(a)));
    expect(plain(answers)).to.deep.equal(plain(keys.map((a) => sync.balance(a))));
    expect(answers.filter((b) => b.confirmedKoinu > 0n).length).to.be.greaterThan(10);
  });

  it("history: every page of every address, walked by its cursor, and cursors past either end", async () => {
    const walk = async (address: string) => {
      const pages: { sync: unknown; pooled: unknown }[] = [];
      let before: { height: number; position: number } | null = null;
      for (;;) {
        const expected = sync.history(address, before, 7);
        pages.push({ sync: plain(expected), pooled: plain(await pooled.history(address, before, 7)) });
        const last = expected.items.at(-1);
        if (expected.items.length < 7 || !last) break;
        before = { height: last.height, position: last.position };
      }
      return pages;
    };
    const walks = await Promise.all(addresses.map(walk));
    let items = 0;
    for (const pages of walks)
      for (const page of pages) {
        expect(page.pooled).to.deep.equal(page.sync);
        items += (page.sync as { items: unknown[] }).items.length;
      }
    expect(items).to.be.greaterThan(700);
    for (const before of [{ height: -5, position: 0 }, { height: 1e12, position: 1e12 }, null]) {
      for (const size of [0, 1, 200])
        expect(plain(await pooled.history(addresses[0], before, size))).to.deep.equal(
          plain(sync.history(addresses[0], before, size)),
        );
    }
    expect(plain(await pooled.history("nUnknown", null, 50))).to.deep.equal({ total: 0, items: [] });
  });

  it("UTXOs: every page of every address, walked by its cursor, and cursors past either end", async () => {
    const walk = async (address: string) => {
      const pages: { sync: unknown; pooled: unknown }[] = [];
      let after: { height: number; txid: string; vout: number } | null = null;
      for (;;) {
        const expected = sync.utxos(address, after, 3);
        pages.push({ sync: plain(expected), pooled: plain(await pooled.utxos(address, after, 3)) });
        const last = expected.items.at(-1);
        if (expected.items.length < 3 || !last) break;
        after = { height: last.height, txid: last.txid, vout: last.vout };
      }
      return pages;
    };
    const walks = await Promise.all(addresses.map(walk));
    let items = 0;
    for (const pages of walks)
      for (const page of pages) {
        expect(page.pooled).to.deep.equal(page.sync);
        items += (page.sync as { items: unknown[] }).items.length;
      }
    expect(items).to.be.greaterThan(100);
    const first = sync.utxos(addresses[0], null, 1).items[0];
    for (const after of [
      { height: first.height, txid: first.txid, vout: first.vout },
      { height: -3, txid: "", vout: -3 },
      { height: 1e12, txid: "ff", vout: 0 },
      null,
    ])
      for (const size of [0, 1, 500])
        expect(plain(await pooled.utxos(addresses[0], after, size))).to.deep.equal(
          plain(sync.utxos(addresses[0], after, size)),
        );
  });

  it("the explorer's address routes answer alike from the pool (fast path and Express) and synchronously", async () => {
    const servers: http.Server[] = [];
    const serve = async (pooledReads: boolean, fastPath: boolean) => {
      const app = createExplorerApp({
        queries: sync,
        network: NETWORKS.regtest,
        node: { sendRawTransaction: async () => "" },
        statusCacheMs: 0,
        addressReads: pooledReads ? pooled : undefined,
      });
      const fast = createWalletFastPath({
        queries: sync,
        network: NETWORKS.regtest,
        addressReads: pooledReads ? pooled : undefined,
        toExpress: app,
      });
      const server = http.createServer((req, res) => {
        if (!fastPath || !fast(req, res)) app(req, res);
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return `http://127.0.0.1:${(server.address() as { port: number }).port}/api`;
    };
    try {
      const bases = [await serve(false, true), await serve(true, true), await serve(true, false)];
      const answers = (path: string) =>
        Promise.all(
          bases.map(async (base) => {
            const response = await fetch(`${base}${path}`);
            return { status: response.status, body: await response.text() };
          }),
        );
      const same = async (path: string) => {
        const [expected, ...others] = await answers(path);
        for (const other of others) expect(other, path).to.deep.equal(expected);
        return expected;
      };
      let pages = 0;
      for (const address of addresses.slice(0, 12)) {
        expect((await same(`/wallet/address/${address}/balance`)).status).to.equal(200);
        for (const [route, limit] of [
          ["history", 9],
          ["utxos", 4],
        ] as const) {
          let cursor: string | null = null;
          do {
            const page = await same(
              `/wallet/address/${address}/${route}?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`,
            );
            expect(page.status).to.equal(200);
            cursor = (JSON.parse(page.body) as { next_cursor: string | null }).next_cursor;
            pages++;
          } while (cursor !== null);
        }
      }
      expect(pages).to.be.greaterThan(100);
      // Refusals: the same status and error body whichever path answers.
      for (const path of [
        "/wallet/address/not-an-address/balance",
        "/wallet/address/not-an-address/history",
        `/wallet/address/${addresses[0]}/history?limit=0`,
        `/wallet/address/${addresses[0]}/history?cursor=nonsense`,
        `/wallet/address/${addresses[0]}/utxos?limit=501`,
      ])
        expect((await same(path)).status, path).to.equal(400);
    } finally {
      for (const server of servers) server.close();
    }
  });
});
