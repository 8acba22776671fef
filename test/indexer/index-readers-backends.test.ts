/**
 * The query module's SQL is the portable subset (issue 20, item 1): one devnet story (payments,
 * OP_RETURN outputs, DRC-20 deploy, mint, transfer and send, a launchpad collection and its mints,
 * an inscription moved on) indexed into SQLite and into PostgreSQL, then every read of IndexQueries
 * and IndexHistory through a reader's handle (openIndexReader) answers the same on both.
 */
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NETWORKS, bytesToHex, nullDataScript, sha256 } from "../../src/doge";
import type { SqlDatabase } from "../../src/db/sql";
import { drc20TickKey } from "../../src/inscription/drc20";
import { encodeLaunchpadDeploy, encodeLaunchpadMint } from "../../src/inscription/launchpad";
import { openIndexReader, openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { IndexHistory, IndexQueries } from "../../src/indexer/queries";
import { RpcChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { deployTick, faucetCoin, inscribeTransfer, mintTick, sendTransfer } from "../helpers/drc20";
import { inscribeV1, pay, sendInscription } from "../helpers/inscribe";
import { TestKey, newKey } from "../helpers/keys";
import { createTestDatabase } from "../helpers/postgres";

/** JSON with bigints written as "<n>n" and Maps as entry lists, so two answers compare exactly. */
const plain = (value: unknown): unknown =>
  JSON.parse(
    JSON.stringify(value, (_key, v) =>
      typeof v === "bigint"
        ? `${v}n`
        : v instanceof Map
          ? [...v.entries()]
          : v instanceof Uint8Array
            ? bytesToHex(v)
            : v,
    ),
  );

describe("the query module answers the same on SQLite and PostgreSQL (issue 20, item 1)", function () {
  this.timeout(300_000);
  let devnet: RunningDevnet;
  let dir: string;
  let dropPostgres: (() => Promise<void>) | null = null;
  const readers: SqlDatabase[] = [];
  let sqlite: IndexQueries;
  let postgres: IndexQueries;
  let alice: TestKey;
  let bob: TestKey;
  let carol: TestKey;
  const txids: string[] = [];
  const inscriptionIds: string[] = [];
  const payloads: Uint8Array[] = [];
  let transferTxid = "";
  const SLUG = "backend-pups";

  const mine = async (blocks = 1) => {
    await devnet.rpc("generatetoaddress", [blocks, newKey().address]);
  };

  before(async () => {
    devnet = await startDevnet();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "index-backends-"));
    [alice, bob, carol] = [newKey(), newKey(), newKey()];

    // Payments with OP_RETURN outputs of two magics, several in one block.
    for (let i = 0; i < 6; i++) {
      const coin = await faucetCoin(devnet, alice);
      const payload = Uint8Array.from(Buffer.from(`${i % 2 === 0 ? "DOGE" : "TEST"}-payload-${i}`));
      payloads.push(payload);
      const paid = await pay(
        devnet,
        alice,
        [coin],
        [
          { script: bob.script, value: 10n * 100_000_000n + BigInt(i) },
          { script: nullDataScript(payload), value: 0n },
        ],
      );
      txids.push(paid.txid);
      if (i % 3 === 2) await mine();
    }
    await mine();
    // DRC-20: a deploy, two mints, a transfer inscribed and sent to carol.
    inscriptionIds.push(await deployTick(devnet, alice, "pups", 1_000_000n, 1_000n));
    await mine();
    inscriptionIds.push(await mintTick(devnet, alice, "pups", 1_000n));
    inscriptionIds.push(await mintTick(devnet, bob, "PUPS", 700n));
    await mine();
    const inscribed = await inscribeTransfer(devnet, alice, "pups", 400n);
    await mine();
    transferTxid = await sendTransfer(devnet, alice, inscribed, carol.script);
    await mine();
    // A launchpad collection and two mints, one then moved on to carol.
    const deploy = await inscribeV1(
      devnet,
      alice,
      await faucetCoin(devnet, alice),
      {
        contentType: "application/json",
        action: "LAUNCHPAD_DEPLOY",
        body: encodeLaunchpadDeploy({ slug: SLUG, name: "Backend Pups", priceKoinu: 0n, maxSupply: 10n }),
      },
      alice.script,
    );
    await mine();
    const mintContent = (tokenId: bigint) => ({
      contentType: "application/json",
      action: "LAUNCHPAD_MINT",
      body: encodeLaunchpadMint({ slug: SLUG, tokenId, maxSupply: 10n }),
    });
    const mint0 = await inscribeV1(devnet, alice, deploy.change!, mintContent(0n), bob.script);
    await mine();
    const mint1 = await inscribeV1(devnet, alice, mint0.change!, mintContent(1n), bob.script);
    await mine();
    inscriptionIds.push(deploy.inscriptionId, mint0.inscriptionId, mint1.inscriptionId);
    txids.push((await sendInscription(devnet, bob, mint1.output, carol.script)).txid);
    await mine(2);

    // The same chain into both backends, each read back through a reader's handle.
    const sqliteFile = path.join(dir, "index.sqlite");
    const pg = await createTestDatabase();
    dropPostgres = pg.drop;
    for (const location of [sqliteFile, pg.url]) {
      const writer = openIndexerDatabase(location);
      const rpc = {
        getBlockCount: () => devnet.rpc<number>("getblockcount"),
        getBlockHash: (height: number) => devnet.rpc<string>("getblockhash", [height]),
        getBlockHex: (hash: string) => devnet.rpc<string>("getblock", [hash, false]),
      };
      await new Indexer({
        store: new IndexerStore(writer),
        source: new RpcChainSource(rpc),
        network: NETWORKS.regtest,
      }).syncOnce();
      writer.close();
      readers.push(openIndexReader(location));
    }
    [sqlite, postgres] = readers.map((db) => new IndexQueries(db));
    expect(readers[1].dialect).to.equal("postgres");
  });

  after(async () => {
    for (const reader of readers) reader.close();
    await dropPostgres?.();
    await devnet?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The same read on both backends: equal answers, and the answer (for further checks). */
  const same = <T>(read: (q: IndexQueries) => T): T => {
    const a = read(sqlite);
    expect(plain(read(postgres))).to.deep.equal(plain(a));
    return a;
  };

  it("status, transactions, outputs and inputs", () => {
    // nodeSeenAt is when each indexer last asked the node: its own clock.
    const status = same((q) => ({ ...q.status(), nodeSeenAt: null }));
    expect(status.indexedHeight).to.be.greaterThan(10);
    same((q) => q.tipHeight());
    for (const txid of [...txids, transferTxid]) {
      const tx = same((q) => q.tx(txid));
      expect(tx).to.not.equal(null);
      same((q) => q.hasTx(txid));
      same((q) => q.txInputs(txid));
      for (const output of tx!.outputs) {
        same((q) => q.output(txid, output.vout));
        same((q) => q.unspentOutput(txid, output.vout));
        // Who spent it, as the transaction's own view says.
        expect(same((q) => q.outspend(txid, output.vout))).to.deep.equal({ spent: output.spent });
      }
    }
    expect(same((q) => q.tx("00".repeat(32)))).to.equal(null);
    expect(same((q) => q.outspend("00".repeat(32), 0))).to.equal(null);
    expect(same((q) => q.outspend(txids[0], 9999))).to.equal(null);
    // Not a txid in the stored form (upper case, short): found by no read, as before version 8.
    expect(same((q) => q.hasTx(txids[0].toUpperCase()))).to.equal(false);
    expect(same((q) => q.tx(txids[0].slice(2)))).to.equal(null);
  });

  it("finds an address by the SHA-256 of its output script (Esplora's script hash, unreversed)", () => {
    for (const key of [alice, bob, carol]) {
      const hash = bytesToHex(sha256(key.script));
      expect(same((q) => q.addressForScriptHash(hash))).to.equal(key.address);
      expect(same((q) => q.addressForScriptHash(hash.toUpperCase()))).to.equal(key.address);
      // Electrum's byte order is another hash: not found.
      const reversed = bytesToHex(sha256(key.script).slice().reverse());
      expect(same((q) => q.addressForScriptHash(reversed))).to.equal(null);
    }
    expect(same((q) => q.addressForScriptHash(bytesToHex(sha256(newKey().script))))).to.equal(null);
    expect(same((q) => q.addressForScriptHash("zz"))).to.equal(null);
  });

  it("balances, UTXO pages, history pages and Esplora's output sums", () => {
    for (const key of [alice, bob, carol]) {
      same((q) => q.balance(key.address));
      same((q) => q.txoStats(key.address));
      let after: { height: number; txid: string; vout: number } | null = null;
      let walked = 0;
      for (;;) {
        const page = same((q) => q.utxos(key.address, after, 2));
        walked += page.items.length;
        if (page.items.length < 2) break;
        const last = page.items[page.items.length - 1];
        after = { height: last.height, txid: last.txid, vout: last.vout };
      }
      expect(walked).to.equal(sqlite.utxos(key.address, null, 500).items.length);
      let before: { height: number; position: number } | null = null;
      for (;;) {
        const page = same((q) => q.history(key.address, before, 3));
        if (page.items.length < 3) break;
        before = { height: page.items[2].height, position: page.items[2].position };
      }
    }
    expect(same((q) => q.busiestAddresses(5))).to.have.length(5);
    // Keys from clients' cursors beyond any column's range: compared, not refused, on both.
    expect(
      same((q) => q.history(alice.address, { height: Number.MAX_SAFE_INTEGER, position: 1e300 }, 2)).items,
    ).to.have.length(2);
    expect(same((q) => q.utxos(bob.address, { height: 1e20, txid: "", vout: 0 }, 2)).items).to.deep.equal([]);
    expect(same((q) => q.opReturnRecent(null, { height: -1e20, position: 0, vout: 0 }, 2)).items).to.deep.equal([]);
  });

  it("DRC-20 balances, ticks, carriers, transfer inscriptions and deposits", () => {
    const tickKey = drc20TickKey("pups");
    expect(same((q) => q.drc20Tick(tickKey))).to.include({ tick: "pups", maxSupply: "1000000" });
    for (const key of [alice, bob, carol]) {
      same((q) => q.drc20Balances(key.address));
      same((q) => q.drc20Balance(key.address, tickKey));
      same((q) => q.tickCarriers(key.address, tickKey));
      for (const order of ["asc", "desc"] as const)
        same((q) => q.transferInscriptions(key.address, { order, count: 10, revealTxid: null }));
    }
    expect(same((q) => q.drc20Balance(carol.address, tickKey))).to.deep.equal({ available: 400n, transferable: 0n });
    const sent = same((q) => q.transferInscriptions(alice.address, { order: "desc", count: 10, revealTxid: null }));
    expect(sent.total).to.equal(1);
    same((q) =>
      q.transferInscriptions(alice.address, { order: "desc", count: 10, revealTxid: sent.items[0].reveal_txid }),
    );
    // Holders, largest total first (bob 700, alice 600 after her transfer of 400, carol 400), in pages.
    const holders = same((q) => q.drc20TickHolders(tickKey, null, 10));
    expect(holders.holderCount).to.equal(3);
    expect(holders.items.map((h) => h.address)).to.deep.equal([bob.address, alice.address, carol.address]);
    expect(holders.next).to.equal(null);
    const first = same((q) => q.drc20TickHolders(tickKey, null, 2));
    expect(first.next).to.deep.equal({ total: 600n, address: alice.address });
    const second = same((q) => q.drc20TickHolders(tickKey, first.next, 2));
    expect(second.items).to.deep.equal([{ address: carol.address, available: "400", transferable: "0" }]);
    expect(second.next).to.equal(null);
    expect(same((q) => q.drc20TickHolders(drc20TickKey("none"), null, 10))).to.deep.equal({
      holderCount: 0,
      items: [],
      next: null,
    });
    expect(same((q) => q.drc20Receipts(transferTxid, carol.address))).to.deep.equal([
      { tick: "pups", amount: "400", sender: alice.address, height: sqlite.tx(transferTxid)!.height },
    ]);
  });

  it("inscriptions and launchpad collections", () => {
    for (const id of inscriptionIds) {
      expect(same((q) => q.inscription(id))).to.not.equal(null);
      same((q) => q.inscriptionBody(id));
      expect(same((q) => q.inscriptionMoves(id, null, 10))[0]).to.include({ kind: "genesis" });
    }
    // The launchpad mint moved on to carol: inscribed to bob, then moved; paged one move at a time.
    const moved = inscriptionIds[inscriptionIds.length - 1];
    const moves = same((q) => q.inscriptionMoves(moved, null, 10));
    expect(moves.map((m) => [m.kind, m.ownerAddress])).to.deep.equal([
      ["genesis", bob.address],
      ["move", carol.address],
    ]);
    const [one] = same((q) => q.inscriptionMoves(moved, null, 1));
    expect(same((q) => q.inscriptionMoves(moved, one, 1))).to.deep.equal([moves[1]]);
    expect(same((q) => q.inscriptionMoves(moved, moves[1], 1))).to.deep.equal([]);
    expect(same((q) => q.hasCollection(SLUG))).to.equal(true);
    expect(same((q) => q.collectionTokensHeld(SLUG, bob.address)).map((t) => t.tokenId)).to.deep.equal(["0"]);
    expect(same((q) => q.collectionTokensHeld(SLUG, carol.address)).map((t) => t.tokenId)).to.deep.equal(["1"]);
  });

  it("OP_RETURN pages with and without a magic, by transaction and by hash", () => {
    for (const magic of [null, bytesToHex(Buffer.from("DOGE")), bytesToHex(Buffer.from("TEST"))]) {
      let before: { height: number; position: number; vout: number } | null = null;
      const seen: string[] = [];
      for (;;) {
        const page = same((q) => q.opReturnRecent(magic, before, 2));
        seen.push(...page.items.map((o) => `${o.txid}:${o.vout}`));
        if (page.items.length < 2) break;
        const last = page.items[1];
        before = { height: last.height, position: last.position, vout: last.vout };
      }
      expect(seen).to.have.length(magic === null ? 6 : 3);
    }
    for (const [i, payload] of payloads.entries()) {
      same((q) => q.opReturnsOfTx(txids[i]));
      expect(same((q) => q.opReturnsBySha(bytesToHex(sha256(payload))))).to.have.length(1);
      expect(same((q) => q.firstAnchor(bytesToHex(payload)))).to.deep.equal({
        txid: txids[i],
        blockHeight: sqlite.tx(txids[i])!.height,
      });
    }
  });

  it("OP_CHECKZKP reads (none on this chain)", () => {
    expect(same((q) => q.zkpSummary())).to.deep.equal({ events: 0, pending: 0, valid: 0, invalid: 0 });
    same((q) => q.zkpRecent(10));
    same((q) => q.zkpByVk("00".repeat(32), null, 10));
    same((q) => q.zkpVkUsed("00".repeat(32)));
  });

  it("the index as of each height, for attesters", () => {
    const [a, b] = readers.map((db) => new IndexHistory(db));
    const tip = a.tip()!.height;
    expect(plain(b.tip())).to.deep.equal(plain(a.tip()));
    const tickKey = drc20TickKey("pups");
    for (let height = 0; height <= tip; height++) {
      expect(b.blockHashAt(height)).to.equal(a.blockHashAt(height));
      for (const key of [alice, bob, carol]) {
        expect(b.dogeBalanceAt(key.address, height)).to.equal(a.dogeBalanceAt(key.address, height));
        expect(b.drc20BalanceAt(key.address, tickKey, height)).to.equal(a.drc20BalanceAt(key.address, tickKey, height));
        expect(b.collectionCountAt(key.address, SLUG, height)).to.equal(a.collectionCountAt(key.address, SLUG, height));
      }
      for (const id of inscriptionIds) {
        expect(plain(b.inscriptionAt(id, height))).to.deep.equal(plain(a.inscriptionAt(id, height)));
        expect(plain(b.inscriptionPlaceAt(id, height))).to.deep.equal(plain(a.inscriptionPlaceAt(id, height)));
        expect(plain(b.drc20TransferAt(id, height))).to.deep.equal(plain(a.drc20TransferAt(id, height)));
      }
      for (const txid of txids)
        expect(plain(b.txInclusionAt(txid, height))).to.deep.equal(plain(a.txInclusionAt(txid, height)));
    }
    expect(b.collectionCountAt(carol.address, SLUG, tip)).to.equal(1);
    for (const txid of txids) expect(b.opReturnShasOf(txid)).to.deep.equal(a.opReturnShasOf(txid));
  });
});
