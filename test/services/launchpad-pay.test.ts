/**
 * What the launchpad's pages need from the server: the live minted counter (server-sent events),
 * payment PSBTs built from the claimant's own outputs on the devnet and signed with bitcoinjs-lib as
 * a wallet's signPSBT would, and the pages' directory served at `/`. The inscriber is a stand-in
 * that confirms every job at once: the mint path up to it (payment read from the index, the
 * counter's row) is the real one.
 */
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Server } from "node:http";
import { Psbt, Transaction as BitcoinjsTransaction } from "bitcoinjs-lib";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { DogecoinRpcClient } from "../../src/chain/dogecoin-rpc";
import { NETWORKS, addressToOutputScript, bytesToHex, signMessage, toBitcoinjsNetwork } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { IndexQueries } from "../../src/indexer/queries";
import { Indexer } from "../../src/indexer/indexer";
import { RpcChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import {
  LaunchpadApp,
  LaunchpadInscriptionRequest,
  createLaunchpadApp,
  openLaunchpadDatabase,
} from "../../src/services/launchpad";
import { inscriberJob } from "../helpers/inscriber-job";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { KOINU_PER_DOGE, inscribeV1 } from "../helpers/inscribe";
import { TestKey, newKey } from "../helpers/keys";
import { until } from "../helpers/wait";
import { nodeRawTransactions } from "../../src/services/user-psbt";
import { jsonRequest } from "../helpers/http";
import { listenLocal } from "../helpers/listen";

const PRICE = 5n * KOINU_PER_DOGE;
const PAID = "pay-pups";
const FREE = "free-pups";
const MAX = 20;
const MAX_STREAMS = 3;

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** An open event stream read as text, event by event. */
class EventReader {
  private buffer = "";
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    readonly abort: () => void,
  ) {}

  /** The next block (up to a blank line) that `accept` takes; earlier blocks are dropped. */
  async next(accept: (block: string) => boolean): Promise<string> {
    for (;;) {
      const end = this.buffer.indexOf("\n\n");
      if (end >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        if (accept(block)) return block;
        continue;
      }
      const { value, done } = await this.reader.read();
      if (done) throw new Error("the event stream ended");
      this.buffer += this.decoder.decode(value, { stream: true });
    }
  }

  /** The data of the next `minted` event. */
  async minted(): Promise<{ minted: number; max: number }> {
    const block = await this.next((b) => b.split("\n").includes("event: minted"));
    return JSON.parse(
      block
        .split("\n")
        .find((line) => line.startsWith("data: "))!
        .slice(6),
    );
  }
}

describe("launchpad pages' server side", function () {
  this.timeout(300_000);
  const network = toBitcoinjsNetwork(NETWORKS.regtest);
  let devnet: RunningDevnet;
  let client: DogecoinRpcClient;
  let indexer: Indexer;
  let app: LaunchpadApp;
  let server: Server;
  let base: string;
  let webDir: string;
  let clockOffset = 0;
  let jobs = 0;
  const inscribed: LaunchpadInscriptionRequest[] = [];
  const creator = newKey();
  const miner = newKey();
  /** The fake inscriber's key: it inscribes each request on the devnet for real, so the index judges the deploys and mints. */
  const inscriberKey = newKey();
  const reveals = new Map<string, string>();

  const call = (method: string, p: string, options: { token?: string; body?: unknown } = {}): Promise<Answer> =>
    jsonRequest(`${base}/api${p}`, method, options);
  const signIn = async (key: TestKey): Promise<string> => {
    const { challenge } = (await call("GET", `/session/challenge?address=${key.address}`)).body;
    return (
      await call("POST", "/session", {
        body: { address: key.address, challenge, signature: signMessage(challenge, key.privateKey) },
      })
    ).body.token;
  };
  const mine = async () => {
    await devnet.rpc("generatetoaddress", [1, miner.address]);
    await indexer.syncOnce();
  };
  const fund = async (key: TestKey, coins: number, doge = 100) => {
    for (let i = 0; i < coins; i++) await devnet.rpc("devnet_faucet", [key.address, doge, false]);
    await mine();
  };
  /** Signs every input as a wallet's signPSBT does (bitcoinjs-lib, low-s, SIGHASH_ALL). */
  const sign = (psbtBase64: string, key: TestKey): string => {
    const psbt = Psbt.fromBase64(psbtBase64, { network });
    const signer = {
      publicKey: key.publicKey,
      sign: (hash: Uint8Array) => secp256k1.sign(hash, key.privateKey, { prehash: false, lowS: true }),
    };
    for (let i = 0; i < psbt.inputCount; i++) psbt.signInput(i, signer);
    return psbt.toBase64();
  };
  const openEvents = async (slug: string): Promise<{ response: Response; events: EventReader }> => {
    const controller = new AbortController();
    const response = await fetch(`${base}/api/collections/${slug}/events`, { signal: controller.signal });
    const reader = response.body!.getReader();
    return { response, events: new EventReader(reader, () => controller.abort()) };
  };
  const claim = async (token: string, slug: string) => {
    const answer = await call("POST", `/collections/${slug}/claim`, { token });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
    return answer.body;
  };

  before(async () => {
    devnet = await startDevnet();
    client = new DogecoinRpcClient({ url: devnet.url });
    const indexDb = openIndexerDatabase(":memory:");
    indexer = new Indexer({
      store: new IndexerStore(indexDb),
      source: new RpcChainSource(client),
      network: NETWORKS.regtest,
    });
    webDir = fs.mkdtempSync(path.join(os.tmpdir(), "launchpad-web-"));
    fs.writeFileSync(path.join(webDir, "index.html"), "<!doctype html><title>launchpad</title>");
    fs.mkdirSync(path.join(webDir, "collection"));
    fs.writeFileSync(path.join(webDir, "collection", "index.html"), "<!doctype html><title>collection</title>");
    fs.writeFileSync(path.join(webDir, "app.js"), "console.log('pages');");
    app = createLaunchpadApp({
      db: openLaunchpadDatabase(":memory:"),
      queries: new IndexQueries(indexDb),
      network: NETWORKS.regtest,
      clock: () => Math.floor(Date.now() / 1000) + clockOffset,
      node: nodeRawTransactions(client),
      // The poll is slow enough that a counter moving within the tests' waits came from MintService's notification.
      events: { pollMs: 600_000, maxStreams: MAX_STREAMS, heartbeatMs: 100 },
      webDir,
      // Every client of these tests is 127.0.0.1: the per-IP limits are the adversarial tests' subject.
      rateLimitPerMinute: 0,
      claimsPerSessionPerMinute: 0,
      maxReservationsPerClient: 0,
      inscriber: {
        inscribe: async (idempotencyKey, request) => {
          inscribed.push({ ...request, idempotencyKey } as LaunchpadInscriptionRequest);
          const id = `job-${++jobs}`;
          const { txid: coinTxid } = await devnet.rpc<{ txid: string }>("devnet_faucet", [
            inscriberKey.address,
            10,
            false,
          ]);
          const revealed = await inscribeV1(
            devnet,
            inscriberKey,
            { txid: coinTxid, vout: 0, value: 10n * KOINU_PER_DOGE },
            { contentType: request.contentType, action: request.action, body: request.content },
            addressToOutputScript(request.recipient, NETWORKS.regtest),
          );
          reveals.set(id, revealed.revealTxids[0]);
          return { job: inscriberJob({ id }), created: true };
        },
        job: async (id) => {
          const txid = reveals.get(id)!;
          return inscriberJob({
            id,
            status: "confirmed",
            commitTxid: txid,
            revealTxids: [txid],
            inscriptionId: `${txid}i0`,
            confirmedHeight: 1,
          });
        },
      },
    });
    ({ server } = await listenLocal(app));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    // The creator lists the priced one; the free one (an operator's listing) goes straight into the store.
    const listed = await call("POST", "/collections", {
      token: await signIn(creator),
      body: { slug: PAID, name: PAID, price_koinu: PRICE.toString(), max: MAX, creator_address: creator.address },
    });
    expect(listed.status, JSON.stringify(listed.body)).to.equal(201);
    const free = app.launchpad.collections.create({
      slug: FREE,
      name: FREE,
      priceKoinu: 0n,
      maxSupply: MAX,
      creatorAddress: creator.address,
      listedBy: creator.address,
    });
    await app.launchpad.deploys.submit(free);
    // Both deploys in a block: the collections take claims once the launchpad has seen them indexed.
    await mine();
    await app.launchpad.mints.runOnce();
  });

  after(async () => {
    app?.launchpad.feed.close();
    server?.closeAllConnections();
    server?.close();
    await devnet?.stop();
    if (webDir) fs.rmSync(webDir, { recursive: true, force: true });
  });

  describe("live counter", () => {
    it("streams the minted count, then X+1 after a mint without reopening, with heartbeats between", async () => {
      const { response, events } = await openEvents(FREE);
      try {
        expect(response.status).to.equal(200);
        expect(response.headers.get("content-type")).to.match(/^text\/event-stream/);
        expect(response.headers.get("cache-control")).to.equal("no-store");
        const first = await events.minted();
        expect(first.max).to.equal(MAX);
        await events.next((block) => block === ": heartbeat");

        const bob = newKey();
        const token = await signIn(bob);
        const reservation = await claim(token, FREE);
        const mint = await call("POST", `/collections/${FREE}/mint`, {
          token,
          body: { reservation_id: reservation.reservation_id },
        });
        expect(mint.status, JSON.stringify(mint.body)).to.equal(202);
        // The mint is counted once the index holds it as a member token of the claimant.
        await mine();
        await app.launchpad.mints.runOnce();
        expect(await events.minted()).to.deep.equal({ minted: first.minted + 1, max: MAX });
        expect((await call("GET", `/collections/${FREE}`)).body.minted).to.equal(first.minted + 1);
      } finally {
        events.abort();
      }
      await until("the stream to be released", () => app.launchpad.feed.openStreams === 0);
    });

    it("answers 503 TOO_MANY_STREAMS beyond the cap and takes a stream again once one closes", async () => {
      const open = [];
      for (let i = 0; i < MAX_STREAMS; i++) open.push(await openEvents(FREE));
      try {
        for (const { events } of open) await events.minted();
        const refused = await call("GET", `/collections/${FREE}/events`);
        expect(refused.status).to.equal(503);
        expect(refused.body.error.code).to.equal("TOO_MANY_STREAMS");
        expect(refused.headers.get("retry-after")).to.equal("5");
        open.pop()!.events.abort();
        await until("a stream to be released", () => app.launchpad.feed.openStreams === MAX_STREAMS - 1);
        const again = await openEvents(FREE);
        open.push(again);
        expect(again.response.status).to.equal(200);
        await again.events.minted();
      } finally {
        for (const { events } of open) events.abort();
      }
      await until("every stream to be released", () => app.launchpad.feed.openStreams === 0);
    });

    it("answers 404 for an unknown collection's stream", async () => {
      const answer = await call("GET", "/collections/no-such-pups/events");
      expect(answer.status).to.equal(404);
      expect(answer.body.error.code).to.equal("COLLECTION_NOT_FOUND");
    });
  });

  describe("payment PSBT", () => {
    it("builds the payment for a claim from the claimant's outputs, takes the signed PSBT and the broadcast payment mints", async () => {
      const bob = newKey();
      await fund(bob, 2);
      const token = await signIn(bob);
      const reservation = await claim(token, PAID);
      const built = await call("POST", `/collections/${PAID}/payment-psbt`, {
        token,
        body: { reservation_id: reservation.reservation_id, public_key: bytesToHex(bob.publicKey) },
      });
      expect(built.status, JSON.stringify(built.body)).to.equal(201);
      expect(built.body.expires_at).to.equal(reservation.expires_at);
      const psbt = Psbt.fromBase64(built.body.psbt, { network });
      expect(psbt.version).to.equal(1);
      expect(psbt.inputCount).to.equal(built.body.inputs.length);
      let inputTotal = 0n;
      psbt.data.inputs.forEach((input, i) => {
        const prev = BitcoinjsTransaction.fromBuffer(input.nonWitnessUtxo!);
        expect(prev.getId()).to.equal(built.body.inputs[i].txid);
        const out = prev.outs[psbt.txInputs[i].index];
        expect(bytesToHex(out.script)).to.equal(bytesToHex(bob.script));
        inputTotal += BigInt(out.value);
      });
      const outs = psbt.txOutputs;
      expect(bytesToHex(outs[0].script)).to.equal(bytesToHex(creator.script));
      expect(BigInt(outs[0].value)).to.equal(PRICE);
      expect(Buffer.from(outs[1].script.subarray(2)).toString("utf8")).to.equal(
        `service-launch-mint:${PAID}:${reservation.index}`,
      );
      expect(BigInt(outs[1].value)).to.equal(0n);
      expect(bytesToHex(outs[2].script)).to.equal(bytesToHex(bob.script));
      expect(built.body.outputs.map((o: any) => o.kind)).to.deep.equal(["price", "op_return", "change"]);
      const outputTotal = outs.reduce((sum, o) => sum + BigInt(o.value), 0n);
      expect(inputTotal - outputTotal).to.equal(BigInt(built.body.fee_koinu));

      const paid = await call("POST", `/collections/${PAID}/payment`, {
        token,
        body: { reservation_id: reservation.reservation_id, psbt: sign(built.body.psbt, bob) },
      });
      expect(paid.status, JSON.stringify(paid.body)).to.equal(200);
      expect(await devnet.rpc<string>("sendrawtransaction", [paid.body.hex])).to.equal(paid.body.txid);
      // The node's fee check: at least 1 DOGE per kB of the signed size.
      expect((BigInt(built.body.fee_koinu) * 1000n) / BigInt(paid.body.hex.length / 2) >= 1_000_000n).to.equal(true);
      await mine();
      const mint = await call("POST", `/collections/${PAID}/mint`, {
        token,
        body: { reservation_id: reservation.reservation_id, payment_txid: paid.body.txid },
      });
      expect(mint.status, JSON.stringify(mint.body)).to.equal(202);
      expect(mint.body.payment.status).to.equal("accepted");
      expect(mint.body.payment.received_koinu).to.equal(PRICE.toString());
      expect(mint.body.payment.settlement).to.equal(null);
    });

    it("leaves out outputs the mempool already spends when building again", async () => {
      const carol = newKey();
      await fund(carol, 2);
      const token = await signIn(carol);
      const reservation = await claim(token, PAID);
      const body = { reservation_id: reservation.reservation_id, public_key: bytesToHex(carol.publicKey) };
      const first = await call("POST", `/collections/${PAID}/payment-psbt`, { token, body });
      expect(first.body.inputs).to.have.length(1);
      const paid = await call("POST", `/collections/${PAID}/payment`, {
        token,
        body: { reservation_id: reservation.reservation_id, psbt: sign(first.body.psbt, carol) },
      });
      await devnet.rpc("sendrawtransaction", [paid.body.hex]);
      const second = await call("POST", `/collections/${PAID}/payment-psbt`, { token, body });
      expect(second.status, JSON.stringify(second.body)).to.equal(201);
      expect(second.body.inputs).to.have.length(1);
      expect(`${second.body.inputs[0].txid}:${second.body.inputs[0].vout}`).to.not.equal(
        `${first.body.inputs[0].txid}:${first.body.inputs[0].vout}`,
      );
      // The first PSBT is no longer the one kept for this reservation.
      const stale = await call("POST", `/collections/${PAID}/payment`, {
        token,
        body: { reservation_id: reservation.reservation_id, psbt: sign(first.body.psbt, carol) },
      });
      expect(stale.body.error.code).to.equal("PSBT_MISMATCH");
      await mine();
    });

    describe("refusals", () => {
      const dave = newKey();
      let token: string;
      let reservation: any;
      let built: any;

      before(async () => {
        await fund(dave, 1);
        token = await signIn(dave);
        reservation = await claim(token, PAID);
        built = (
          await call("POST", `/collections/${PAID}/payment-psbt`, {
            token,
            body: { reservation_id: reservation.reservation_id, public_key: bytesToHex(dave.publicKey) },
          })
        ).body;
        expect(built.psbt).to.be.a("string");
      });
      const submit = (psbt: string) =>
        call("POST", `/collections/${PAID}/payment`, {
          token,
          body: { reservation_id: reservation.reservation_id, psbt },
        });

      it("refuses a PSBT it did not build with 400 PSBT_MISMATCH", async () => {
        const foreign = new Psbt({ network });
        foreign.addInput({ hash: "11".repeat(32), index: 0 });
        foreign.addOutput({ script: dave.script, value: 1_000_000n });
        const answer = await submit(foreign.toBase64());
        expect(answer.status).to.equal(400);
        expect(answer.body.error.code).to.equal("PSBT_MISMATCH");
        expect((await submit("bm90IGEgcHNidA==")).body.error.code).to.equal("INVALID_PSBT");
      });

      it("refuses a signature by another key with 400 WRONG_SIGNER and a bad one with INVALID_SIGNATURE", async () => {
        // bitcoinjs-lib will not sign another key's input; a wallet that did would hand in this.
        const other = newKey();
        const withSignature = (key: TestKey) => {
          const forged = Psbt.fromBase64(built.psbt, { network });
          const signature = new Uint8Array([
            ...secp256k1.sign(new Uint8Array(32).fill(9), key.privateKey, {
              prehash: false,
              format: "der",
              lowS: true,
            }),
            1,
          ]);
          for (let i = 0; i < forged.inputCount; i++)
            forged.updateInput(i, { partialSig: [{ pubkey: key.publicKey, signature }] });
          return forged.toBase64();
        };
        const wrong = await submit(withSignature(other));
        expect(wrong.status).to.equal(400);
        expect(wrong.body.error.code).to.equal("WRONG_SIGNER");
        expect((await submit(withSignature(dave))).body.error.code).to.equal("INVALID_SIGNATURE");
      });

      it("refuses an unsigned input with 400 MISSING_SIGNATURE", async () => {
        const answer = await submit(built.psbt);
        expect(answer.status).to.equal(400);
        expect(answer.body.error.code).to.equal("MISSING_SIGNATURE");
      });

      it("refuses a public key that is not the session's with 400 KEY_ADDRESS_MISMATCH", async () => {
        const answer = await call("POST", `/collections/${PAID}/payment-psbt`, {
          token,
          body: { reservation_id: reservation.reservation_id, public_key: bytesToHex(newKey().publicKey) },
        });
        expect(answer.status).to.equal(400);
        expect(answer.body.error.code).to.equal("KEY_ADDRESS_MISMATCH");
        const malformed = await call("POST", `/collections/${PAID}/payment-psbt`, {
          token,
          body: { reservation_id: reservation.reservation_id, public_key: "02zz" },
        });
        expect(malformed.body.error.code).to.equal("INVALID_PUBLIC_KEY");
      });

      it("refuses an unpriced collection with 400, another's reservation with 404 and a claimant without coins with 422 INSUFFICIENT_FUNDS", async () => {
        const free = await claim(token, FREE);
        const unpriced = await call("POST", `/collections/${FREE}/payment-psbt`, {
          token,
          body: { reservation_id: free.reservation_id, public_key: bytesToHex(dave.publicKey) },
        });
        expect(unpriced.status).to.equal(400);
        expect(unpriced.body.error.code).to.equal("PAYMENT_NOT_EXPECTED");
        const poor = newKey();
        const poorToken = await signIn(poor);
        const foreign = await call("POST", `/collections/${PAID}/payment-psbt`, {
          token: poorToken,
          body: { reservation_id: reservation.reservation_id, public_key: bytesToHex(poor.publicKey) },
        });
        expect(foreign.status).to.equal(404);
        expect(foreign.body.error.code).to.equal("RESERVATION_NOT_FOUND");
        const poorReservation = await claim(poorToken, PAID);
        const answer = await call("POST", `/collections/${PAID}/payment-psbt`, {
          token: poorToken,
          body: { reservation_id: poorReservation.reservation_id, public_key: bytesToHex(poor.publicKey) },
        });
        expect(answer.status).to.equal(422);
        expect(answer.body.error.code).to.equal("INSUFFICIENT_FUNDS");
        expect(BigInt(answer.body.error.details.needed_koinu) > PRICE).to.equal(true);
        const noSession = await call("POST", `/collections/${PAID}/payment-psbt`, {
          body: { reservation_id: reservation.reservation_id, public_key: bytesToHex(dave.publicKey) },
        });
        expect(noSession.status).to.equal(401);
        const unknownField = await call("POST", `/collections/${PAID}/payment`, {
          token,
          body: { reservation_id: reservation.reservation_id, psbt: built.psbt, extra: 1 },
        });
        expect(unknownField.status).to.equal(400);
      });

      it("refuses with 422 MEMO_TOO_LONG a slug whose payment OP_RETURN nodes would not relay", async () => {
        const slug = "p".repeat(64);
        // Listing such a priced collection through the API is refused up front ...
        const listed = await call("POST", "/collections", {
          token: await signIn(creator),
          body: { slug, name: "long", price_koinu: PRICE.toString(), max: 1, creator_address: creator.address },
        });
        expect(listed.status).to.equal(400);
        expect(listed.body.error.code).to.equal("SLUG_TOO_LONG_FOR_PAYMENT");
        // ... and one in the database from before that rule still cannot be given a payment it could not relay.
        const legacy = app.launchpad.collections.create({
          slug,
          name: "long",
          priceKoinu: PRICE,
          maxSupply: 1,
          creatorAddress: creator.address,
          listedBy: dave.address,
        });
        await app.launchpad.deploys.submit(legacy);
        await mine();
        await app.launchpad.mints.runOnce();
        const long = await claim(token, slug);
        const answer = await call("POST", `/collections/${slug}/payment-psbt`, {
          token,
          body: { reservation_id: long.reservation_id, public_key: bytesToHex(dave.publicKey) },
        });
        expect(answer.status).to.equal(422);
        expect(answer.body.error.code).to.equal("MEMO_TOO_LONG");
        expect(answer.body.error.details.bytes).to.equal(`service-launch-mint:${slug}:0`.length);
      });

      it("refuses a reservation that expired with 409 RESERVATION_EXPIRED, for building and for the signed PSBT", async () => {
        const signed = sign(built.psbt, dave);
        clockOffset = 601;
        try {
          const late = await submit(signed);
          expect(late.status).to.equal(409);
          expect(late.body.error.code).to.equal("RESERVATION_EXPIRED");
          const rebuild = await call("POST", `/collections/${PAID}/payment-psbt`, {
            token,
            body: { reservation_id: reservation.reservation_id, public_key: bytesToHex(dave.publicKey) },
          });
          expect(rebuild.status).to.equal(409);
          expect(rebuild.body.error.code).to.equal("RESERVATION_EXPIRED");
        } finally {
          clockOffset = 0;
        }
      });
    });
  });

  describe("pages' directory", () => {
    it("serves the web directory at / with index.html as a directory's page, and the API beside it", async () => {
      const root = await fetch(`${base}/`);
      expect(root.status).to.equal(200);
      expect(root.headers.get("content-type")).to.match(/^text\/html/);
      expect(await root.text()).to.include("<title>launchpad</title>");
      const page = await fetch(`${base}/collection/`);
      expect(await page.text()).to.include("<title>collection</title>");
      const script = await fetch(`${base}/app.js`);
      expect(script.headers.get("content-type")).to.match(/javascript/);
      expect((await call("GET", `/collections/${FREE}`)).status).to.equal(200);
      const missing = await fetch(`${base}/no-such-page.html`);
      expect(missing.status).to.equal(404);
      expect((await missing.json()).error.code).to.equal("NOT_FOUND");
    });
  });
});
