/**
 * The explorer's DRC-20 tick route (deploy, supply, holders largest first in pages) and an
 * inscription's owner history (its moves, oldest first in pages), over a devnet chain: a tick
 * deployed and minted by three addresses, one transfer inscribed and left unsent (transferable),
 * another sent on (a move, and a balance moved).
 */
import { expect } from "chai";
import type { Server } from "node:http";
import { NETWORKS } from "../../src/doge";
import { DogecoinRpcClient } from "../../src/chain/dogecoin-rpc";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { IndexQueries } from "../../src/indexer/queries";
import { RpcChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { createExplorerApp } from "../../src/services/explorer/app";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { deployTick, inscribeTransfer, mintTick, sendTransfer } from "../helpers/drc20";
import { TestKey, newKey } from "../helpers/keys";
import { listenLocal } from "../helpers/listen";

const TICK = "Mvs1";

describe("explorer: DRC-20 tick holders and inscription moves", function () {
  this.timeout(120_000);
  let devnet: RunningDevnet;
  let indexer: Indexer;
  let server: Server;
  let base: string;
  let alice: TestKey;
  let bob: TestKey;
  let carol: TestKey;
  let deployId: string;
  let sentId: string;
  let sendTxid: string;

  const get = async (path: string) => {
    const response = await fetch(`${base}${path}`);
    return { status: response.status, body: (await response.json()) as any };
  };
  const mine = async () => {
    await devnet.rpc("generatetoaddress", [1, newKey().address]);
    await indexer.syncOnce();
  };
  /** The id of the inscription transaction `txid` revealed (read from the explorer's transaction). */
  const revealedBy = async (txid: string) => {
    const { body } = await get(`/tx/${txid}`);
    expect(body.inscriptions).to.have.length(1);
    return body.inscriptions[0].id as string;
  };

  before(async () => {
    devnet = await startDevnet();
    [alice, bob, carol] = [newKey(), newKey(), newKey()];
    const rpc = new DogecoinRpcClient({ url: devnet.url });
    const db = openIndexerDatabase(":memory:");
    indexer = new Indexer({ store: new IndexerStore(db), source: new RpcChainSource(rpc), network: NETWORKS.regtest });
    const app = createExplorerApp({
      queries: new IndexQueries(db),
      network: NETWORKS.regtest,
      node: rpc,
      statusCacheMs: 0,
    });
    ({ server } = await listenLocal(app));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}/api`;

    deployId = await deployTick(devnet, carol, TICK, 21_000n, 1_000n);
    await mine();
    await mintTick(devnet, alice, TICK, 1_000n);
    await mintTick(devnet, bob, TICK, 500n);
    await mintTick(devnet, carol, TICK, 1_000n);
    await mine();
    // alice: 700 available and 300 transferable (her transfer left unsent).
    await inscribeTransfer(devnet, alice, TICK, 300n);
    // carol sends 200 to bob: carol 800, bob 700.
    const inscribed = await inscribeTransfer(devnet, carol, TICK, 200n);
    await mine();
    sentId = await revealedBy(inscribed.txid);
    sendTxid = await sendTransfer(devnet, carol, inscribed, bob.script);
    await mine();
  });

  after(async () => {
    server?.close();
    await devnet?.stop();
  });

  it("answers a tick with its deploy, supply and holders, largest total first", async () => {
    const { status, body } = await get(`/explorer/drc20/${TICK.toLowerCase()}`);
    expect(status).to.equal(200);
    const deployHeight = (await get(`/tx/${deployId.slice(0, 64)}`)).body.block.height;
    expect(body).to.deep.equal({
      tick: TICK,
      max_supply: "21000",
      mint_limit: "1000",
      minted: "2500",
      deployer_address: carol.address,
      inscription_id: deployId,
      height: deployHeight,
      holder_count: 3,
      holders: [
        { address: alice.address, available: "700", transferable: "300" },
        { address: carol.address, available: "800", transferable: "0" },
        { address: bob.address, available: "700", transferable: "0" },
      ],
      next_cursor: null,
    });
    // The tick in any case is the same tick.
    expect((await get(`/explorer/drc20/${TICK.toUpperCase()}`)).body).to.deep.equal(body);
  });

  it("pages the holders with a cursor", async () => {
    const seen: unknown[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 5; pages++) {
      const { status, body } = await get(
        `/explorer/drc20/${TICK}?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(status).to.equal(200);
      expect(body.holder_count).to.equal(3);
      expect(body.holders.length).to.be.at.most(1);
      seen.push(...body.holders);
      cursor = body.next_cursor;
      if (!cursor) break;
    }
    expect(cursor).to.equal(null);
    expect(seen).to.deep.equal((await get(`/explorer/drc20/${TICK}`)).body.holders);
    const two = await get(`/explorer/drc20/${TICK}?limit=2`);
    expect(two.body.holders.map((h: { address: string }) => h.address)).to.deep.equal([alice.address, carol.address]);
    expect(two.body.next_cursor).to.be.a("string");
  });

  it("refuses an unknown tick, a malformed tick, a bad cursor and a bad limit", async () => {
    const unknown = await get("/explorer/drc20/zzzz");
    expect(unknown.status).to.equal(404);
    expect(unknown.body.error.code).to.equal("TICK_NOT_FOUND");
    const long = await get("/explorer/drc20/toolong");
    expect(long.status).to.equal(400);
    expect(long.body.error.code).to.equal("INVALID_TICK");
    for (const cursor of ["garbage", Buffer.from(JSON.stringify({ a: "-1", d: "x" })).toString("base64url")]) {
      const bad = await get(`/explorer/drc20/${TICK}?cursor=${cursor}`);
      expect(bad.status).to.equal(400);
      expect(bad.body.error.code).to.equal("INVALID_CURSOR");
    }
    expect((await get(`/explorer/drc20/${TICK}?limit=0`)).status).to.equal(400);
    expect((await get(`/explorer/drc20/${TICK}?limit=101`)).status).to.equal(400);
  });

  it("answers an inscription's moves oldest first: inscribed to carol, then sent to bob", async () => {
    const { status, body } = await get(`/explorer/inscription/${sentId}/moves`);
    expect(status).to.equal(200);
    const revealHeight = (await get(`/tx/${sentId.slice(0, 64)}`)).body.block.height;
    const sendHeight = (await get(`/tx/${sendTxid}`)).body.block.height;
    expect(body.id).to.equal(sentId);
    expect(body.next_cursor).to.equal(null);
    expect(body.items).to.deep.equal([
      {
        height: revealHeight,
        txid: sentId.slice(0, 64),
        kind: "genesis",
        to_txid: sentId.slice(0, 64),
        to_vout: 0,
        to_offset: 0,
        owner_address: carol.address,
      },
      {
        height: sendHeight,
        txid: sendTxid,
        kind: "move",
        to_txid: sendTxid,
        to_vout: 0,
        to_offset: 0,
        owner_address: bob.address,
      },
    ]);
    // Where the inscription route says it is now is where the last move put it.
    const now = (await get(`/explorer/inscription/${sentId}`)).body;
    expect(now.owner_address).to.equal(bob.address);
    expect(now.location).to.deep.equal({ txid: sendTxid, vout: 0, offset: 0 });
  });

  it("pages the moves with a cursor", async () => {
    const first = await get(`/explorer/inscription/${sentId}/moves?limit=1`);
    expect(first.body.items.map((m: { kind: string }) => m.kind)).to.deep.equal(["genesis"]);
    const second = await get(
      `/explorer/inscription/${sentId}/moves?limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`,
    );
    expect(second.body.items.map((m: { kind: string }) => m.kind)).to.deep.equal(["move"]);
    const third = await get(
      `/explorer/inscription/${sentId}/moves?limit=1&cursor=${encodeURIComponent(second.body.next_cursor)}`,
    );
    expect(third.body).to.deep.equal({ id: sentId, items: [], next_cursor: null });
  });

  it("refuses an unknown inscription, a malformed id and a bad cursor", async () => {
    const unknown = await get(`/explorer/inscription/${"ab".repeat(32)}i0/moves`);
    expect(unknown.status).to.equal(404);
    expect(unknown.body.error.code).to.equal("INSCRIPTION_NOT_FOUND");
    const malformed = await get("/explorer/inscription/nope/moves");
    expect(malformed.status).to.equal(400);
    expect(malformed.body.error.code).to.equal("INVALID_INSCRIPTION_ID");
    const bad = await get(`/explorer/inscription/${sentId}/moves?cursor=garbage`);
    expect(bad.status).to.equal(400);
    expect(bad.body.error.code).to.equal("INVALID_CURSOR");
  });
});
