import { expect } from "chai";
import type { Server } from "node:http";
import { NETWORKS, signMessage } from "../../src/doge";
import type { SqlDatabase } from "../../src/db/sql";
import { IndexQueries } from "../../src/indexer/queries";
import { DogecoinRpcClient } from "../../src/chain/dogecoin-rpc";
import { encodeLaunchpadDeploy, encodeLaunchpadMint } from "../../src/inscription/launchpad";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { RpcChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { LaunchpadApp, createLaunchpadApp, openLaunchpadDatabase } from "../../src/services/launchpad";
import { z } from "../../src/services/http/openapi";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { InscribeResult, KOINU_PER_DOGE, inscribeV1, sendInscription } from "../helpers/inscribe";
import { TestKey, newKey } from "../helpers/keys";
import { listenLocal } from "../helpers/listen";

const SLUG = "member-pups";
const MAX = 10n;

describe("launchpad membership from the index", function () {
  this.timeout(120_000);
  let devnet: RunningDevnet;
  let indexer: Indexer;
  let app: LaunchpadApp;
  let server: Server;
  let base: string;
  let alice: TestKey; // the deploy's inscriber
  let bob: TestKey; // holds token 0 minted by alice
  let carol: TestKey; // holds token 1 minted by mallory, who did not deploy
  let dave: TestKey; // receives bob's token later
  let mallory: TestKey;
  let mint0: InscribeResult;
  let foreignMint: InscribeResult;
  let indexDb: SqlDatabase;

  const get = async (path: string, token?: string) => {
    const response = await fetch(`${base}${path}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    return { status: response.status, body: (await response.json()) as any };
  };
  const signIn = async (key: TestKey): Promise<string> => {
    const { challenge } = (await get(`/api/session/challenge?address=${key.address}`)).body;
    const response = await fetch(`${base}/api/session`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ address: key.address, challenge, signature: signMessage(challenge, key.privateKey) }),
    });
    return ((await response.json()) as any).token;
  };
  const mine = async () => {
    await devnet.rpc("generatetoaddress", [1, newKey().address]);
    await indexer.syncOnce();
  };
  const faucet = async (key: TestKey) => ({
    txid: (await devnet.rpc<{ txid: string }>("devnet_faucet", [key.address, 100, true])).txid,
    vout: 0,
    value: 100n * KOINU_PER_DOGE,
  });
  const mintContent = (tokenId: bigint) => ({
    contentType: "application/json",
    action: "LAUNCHPAD_MINT",
    body: encodeLaunchpadMint({ slug: SLUG, tokenId, maxSupply: MAX }),
  });

  before(async () => {
    devnet = await startDevnet();
    [alice, bob, carol, dave, mallory] = [newKey(), newKey(), newKey(), newKey(), newKey()];
    indexDb = openIndexerDatabase(":memory:");
    indexer = new Indexer({
      store: new IndexerStore(indexDb),
      source: new RpcChainSource(new DogecoinRpcClient({ url: devnet.url })),
      network: NETWORKS.regtest,
    });
    app = createLaunchpadApp({
      db: openLaunchpadDatabase(":memory:"),
      queries: new IndexQueries(indexDb),
      network: NETWORKS.regtest,
      // A members-only page, as a page of the launchpad would mount it (declared in the app's document).
      mount: (express, gate, surface) => {
        express.get(
          "/members/:slug",
          gate.requireMember((req) => String(req.params.slug)),
        );
        surface.on(express).get(
          "/members/:slug",
          {
            summary: "A members-only page",
            params: z.object({ slug: z.string() }),
            security: "session",
            responses: { 200: z.object({ welcome: z.literal(true) }) },
          },
          (_input, _req, res) => {
            res.json({ welcome: true });
          },
        );
      },
    });
    ({ server } = await listenLocal(app));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

    const aliceCoin = await faucet(alice);
    const malloryCoin = await faucet(mallory);
    const deploy = await inscribeV1(
      devnet,
      alice,
      aliceCoin,
      {
        contentType: "application/json",
        action: "LAUNCHPAD_DEPLOY",
        body: encodeLaunchpadDeploy({ slug: SLUG, name: "Member Pups", priceKoinu: 0n, maxSupply: MAX }),
      },
      alice.script,
    );
    mint0 = await inscribeV1(devnet, alice, deploy.change!, mintContent(0n), bob.script);
    foreignMint = await inscribeV1(devnet, mallory, malloryCoin, mintContent(1n), carol.script);
    await mine();
  });

  after(async () => {
    server?.close();
    await devnet?.stop();
  });

  it("counts a token minted by the deploy's inscriber for its holder", async () => {
    const answer = await get(`/api/collections/${SLUG}/membership?address=${bob.address}`);
    expect(answer.status).to.equal(200);
    expect(answer.body).to.deep.equal({
      slug: SLUG,
      address: bob.address,
      member: true,
      collection_indexed: true,
      indexed_height: await devnet.rpc<number>("getblockcount"),
      tokens: [
        {
          token_id: "0",
          inscription_id: mint0.inscriptionId,
          location: { txid: mint0.output.txid, vout: 0, offset: 0 },
        },
      ],
    });
    expect(await app.launchpad.gate.isMember(SLUG, bob.address)).to.equal(true);
  });

  it("does not count others, nor a mint inscribed by someone other than the deploy's inscriber", async () => {
    for (const key of [alice, carol, mallory]) {
      const answer = await get(`/api/collections/${SLUG}/membership?address=${key.address}`);
      expect(answer.body).to.include({ member: false });
      expect(answer.body.tokens).to.deep.equal([]);
      expect(await app.launchpad.gate.isMember(SLUG, key.address)).to.equal(false);
    }
    // The foreign mint is indexed and sits with carol; the indexer just did not admit it.
    expect(
      indexDb
        .prepare(
          `SELECT a.address AS owner_address FROM inscription_locations l JOIN addresses a ON a.id = l.owner_id
          WHERE l.inscription_id = (SELECT id FROM txs WHERE txid = ?)`,
        )
        .get(Buffer.from(foreignMint.inscriptionId.slice(0, 64), "hex")),
    ).to.deep.equal({ owner_address: carol.address });
    expect(
      indexDb
        .prepare(
          "SELECT valid, reason FROM launchpad_operations WHERE inscription_id = (SELECT id FROM txs WHERE txid = ?)",
        )
        .get(Buffer.from(foreignMint.inscriptionId.slice(0, 64), "hex")),
    ).to.deep.equal({ valid: 0, reason: "WRONG_INSCRIBER" });
  });

  it("lets requireMember through for a member's session and refuses others with 403 and no session with 401", async () => {
    const [bobToken, carolToken] = [await signIn(bob), await signIn(carol)];
    expect(await get(`/members/${SLUG}`, bobToken)).to.deep.equal({ status: 200, body: { welcome: true } });
    const refused = await get(`/members/${SLUG}`, carolToken);
    expect(refused.status).to.equal(403);
    expect(refused.body.error).to.deep.include({
      code: "NOT_A_MEMBER",
      details: { slug: SLUG, address: carol.address },
    });
    const anonymous = await get(`/members/${SLUG}`);
    expect(anonymous.status).to.equal(401);
    expect(anonymous.body.error.code).to.equal("SESSION_REQUIRED");
  });

  it("moves membership with the token: after a send the new owner is a member and the old one is not", async () => {
    const bobToken = await signIn(bob);
    const send = await sendInscription(devnet, bob, mint0.output, dave.script);
    await mine();
    const daveAnswer = await get(`/api/collections/${SLUG}/membership?address=${dave.address}`);
    expect(daveAnswer.body.member).to.equal(true);
    expect(daveAnswer.body.tokens).to.deep.equal([
      { token_id: "0", inscription_id: mint0.inscriptionId, location: { txid: send.txid, vout: 0, offset: 0 } },
    ]);
    expect((await get(`/api/collections/${SLUG}/membership?address=${bob.address}`)).body).to.include({
      member: false,
    });
    expect(await app.launchpad.gate.isMember(SLUG, dave.address)).to.equal(true);
    expect(await app.launchpad.gate.isMember(SLUG, bob.address)).to.equal(false);
    expect((await get(`/members/${SLUG}`, bobToken)).status).to.equal(403);
    expect((await get(`/members/${SLUG}`, await signIn(dave))).status).to.equal(200);
  });

  it("answers a slug neither listed nor indexed with 404, and a listed collection whose deploy is not indexed with collection_indexed false", async () => {
    const unknown = await get(`/api/collections/no-such-pups/membership?address=${bob.address}`);
    expect(unknown.status).to.equal(404);
    expect(unknown.body.error.code).to.equal("COLLECTION_NOT_FOUND");
    app.launchpad.collections.create({
      slug: "listed-only",
      name: "Listed Only",
      priceKoinu: 0n,
      maxSupply: 5,
      creatorAddress: alice.address,
      listedBy: alice.address,
    });
    const listed = await get(`/api/collections/listed-only/membership?address=${bob.address}`);
    expect(listed.status).to.equal(200);
    expect(listed.body).to.include({ member: false, collection_indexed: false });
    const bad = await get(`/api/collections/${SLUG}/membership?address=nope`);
    expect(bad.status).to.equal(400);
    expect(bad.body.error.code).to.equal("INVALID_ADDRESS");
  });
});
