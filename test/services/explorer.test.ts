import { expect } from "chai";
import type { Server } from "node:http";
import { NETWORKS, nullDataScript, sha256, bytesToHex } from "../../src/doge";
import { DogecoinRpcClient } from "../../src/chain/dogecoin-rpc";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { IndexQueries } from "../../src/indexer/queries";
import { RpcChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { createExplorerApp, createWalletFastPath } from "../../src/services/explorer/app";
import createClient from "openapi-fetch";
import type { paths } from "../../shared/openapi/explorer";
import { undocumentedRoutes } from "../../src/services/http/openapi";
import { expectPublished } from "../helpers/openapi-publish";
import http from "node:http";
import { OP, compileScript } from "../../src/doge";
import { ZkpShadowService } from "../../src/indexer/zkp-shadow";
import { commitP2sh } from "../helpers/inscribe";
import zkpVectors from "../vectors/zkp-groth16.json";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { openDatabase } from "../../src/db/sqlite";
import {
  PQC_MIGRATIONS,
  PQC_SCHEMA,
  PqcRegistry,
  registrationMessage,
  revocationMessage,
} from "../../src/services/explorer/pqc";
import { ml_dsa44 } from "@noble/post-quantum/ml-dsa.js";
import { signMessage, parseTransactionHex } from "../../src/doge";
import { inscribeDoginals, sendInscription } from "../helpers/inscribe";
import { TestKey, newKey, spendP2pkh } from "../helpers/keys";
import { isInteger, parse as parseLossless } from "lossless-json";
import { listenLocal } from "../helpers/listen";

const DOGE = 100_000_000n;
let now = 1_800_000_000;

describe("explorer API", function () {
  this.timeout(120_000);
  let devnet: RunningDevnet;
  let indexer: Indexer;
  let server: Server;
  let base: string;
  let app: ReturnType<typeof createExplorerApp>;
  let client: ReturnType<typeof createClient<paths>>;
  let alice: TestKey;
  let bob: TestKey;
  let paymentTxid: string;
  let fundTxid: string;
  const payload = Buffer.from("dogeos explorer test");

  const get = async (path: string) => {
    const response = await fetch(`${base}${path}`);
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  };
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  before(async () => {
    // Promiscuous like a miner that takes OP_NOP10 spends, so OP_CHECKZKP uses reach blocks.
    devnet = await startDevnet({ args: ["--promiscuousmempool"] });
    alice = newKey();
    bob = newKey();
    const rpc = new DogecoinRpcClient({ url: devnet.url });
    const db = openIndexerDatabase(":memory:");
    indexer = new Indexer({ store: new IndexerStore(db), source: new RpcChainSource(rpc), network: NETWORKS.regtest });
    const queries = new IndexQueries(db);
    const pqcDb = openDatabase(":memory:", PQC_MIGRATIONS, PQC_SCHEMA);
    app = createExplorerApp({
      queries,
      network: NETWORKS.regtest,
      node: rpc,
      statusCacheMs: 0,
      pqc: new PqcRegistry(pqcDb, NETWORKS.regtest, queries, () => now),
    });
    ({ server } = await listenLocal(app));
    const address = server.address() as { port: number };
    base = `http://127.0.0.1:${address.port}/api`;
    // A client generated from the published document (shared/openapi/explorer.d.ts), used unchanged.
    client = createClient<paths>({ baseUrl: `http://127.0.0.1:${address.port}` });

    fundTxid = (await devnet.rpc<{ txid: string }>("devnet_faucet", [alice.address, 100, true])).txid;
    const payment = spendP2pkh(
      alice,
      [{ txid: fundTxid, vout: 0, value: 100n * DOGE }],
      [
        { script: bob.script, value: 25n * DOGE },
        { script: nullDataScript(payload), value: 0n },
        { script: alice.script, value: 74n * DOGE },
      ],
    );
    paymentTxid = await devnet.rpc<string>("sendrawtransaction", [payment.hex]);
    await devnet.rpc("generatetoaddress", [1, newKey().address]);
    await indexer.syncOnce();
  });

  after(async () => {
    server?.close();
    await devnet?.stop();
  });

  it("serves a transaction with its inputs, outputs, spends, fee and OP_RETURN", async () => {
    const { status, body, headers } = await get(`/tx/${paymentTxid}`);
    expect(status).to.equal(200);
    expect(headers.get("cache-control")).to.equal("no-store");
    expect(body.confirmations).to.equal(1);
    expect(body.fee_koinu).to.equal(Number(DOGE));
    expect(body.inputs).to.deep.equal([
      { vin: 0, prev_txid: fundTxid, prev_vout: 0, value_koinu: Number(100n * DOGE), address: alice.address },
    ]);
    expect(body.outputs.map((o: any) => [o.vout, o.value_koinu, o.address, o.spent])).to.deep.equal([
      [0, Number(25n * DOGE), bob.address, null],
      [2, Number(74n * DOGE), alice.address, null],
    ]);
    expect(body.op_returns).to.deep.equal([opReturnRecord(body.block.height, 1)]);
  });

  it("serves a coinbase with a null fee, as its document says (the answer is checked against it)", async () => {
    const height = (await get(`/tx/${paymentTxid}`)).body.block.height as number;
    const hash = await devnet.rpc<string>("getblockhash", [height]);
    const coinbase = (await devnet.rpc<{ tx: string[] }>("getblock", [hash])).tx[0];
    const { status, body } = await get(`/tx/${coinbase}`);
    expect(status).to.equal(200);
    expect([body.coinbase, body.fee_koinu]).to.deep.equal([true, null]);
  });

  /** The spec's OP_RETURN record for the test payment's OP_RETURN, exactly its fields. */
  const opReturnRecord = (block: number, confirmations: number) => ({
    txid: paymentTxid,
    vout: 1,
    payload_hex: payload.toString("hex"),
    payload_utf8: payload.toString("utf8"),
    payload_sha256: bytesToHex(sha256(payload)),
    magic: payload.subarray(0, 4).toString("hex"),
    bytes: payload.length,
    block,
    confirmations,
  });

  it("answers OP_RETURN records with the spec's field names and types everywhere", async () => {
    const block = (await get(`/tx/${paymentTxid}`)).body.block.height;
    const confirmations = (await get("/status")).body.indexer.indexed_height - block + 1;
    const record = opReturnRecord(block, confirmations);
    expect((await get(`/explorer/opreturn/tx/${paymentTxid}`)).body.items).to.deep.equal([record]);
    const bySha = (await get(`/explorer/opreturn/sha256/${record.payload_sha256}`)).body;
    expect(bySha.first).to.deep.equal(record);
    expect(bySha.matches).to.deep.equal([record]);
    expect((await get(`/explorer/opreturn/recent?magic=${record.magic}`)).body.items).to.deep.equal([record]);
  });

  it("writes 2^60 koinu as a JSON integer with every digit, on both the Express and the fast path", async () => {
    const whale = newKey().address;
    const huge = 2n ** 60n;
    indexer.store.db
      .prepare(
        "INSERT INTO addresses (id, address, script, script_hash) VALUES ((SELECT MAX(id) + 1 FROM addresses), ?, x'00', x'00')",
      )
      .run(whale);
    indexer.store.db
      .prepare(
        `INSERT INTO address_stats (id, confirmed, tx_count, funded_txo_count, funded_txo_sum, spent_txo_count, spent_txo_sum)
        VALUES ((SELECT id FROM addresses WHERE address = ?), ?, ?, 0, 0, 0, 0)`,
      )
      .run(whale, huge, 1);
    const queries = new IndexQueries(indexer.store.db);
    const fast = createWalletFastPath({ queries, network: NETWORKS.regtest });
    const app = createExplorerApp({
      queries,
      network: NETWORKS.regtest,
      node: { sendRawTransaction: async () => "" },
      statusCacheMs: 0,
    });
    const served = http.createServer((req, res) => {
      if (!fast(req, res)) app(req, res);
    });
    await new Promise<void>((resolve) => served.listen(0, "127.0.0.1", resolve));
    const fastBase = `http://127.0.0.1:${(served.address() as { port: number }).port}/api`;
    try {
      for (const url of [`${base}/wallet/address/${whale}/balance`, `${fastBase}/wallet/address/${whale}/balance`]) {
        const text = await (await fetch(url)).text();
        expect(text, url).to.contain(`"confirmed_koinu":${huge}`);
        const body = parseLossless(text, null, (value) => (isInteger(value) ? BigInt(value) : Number(value))) as {
          confirmed_koinu: unknown;
        };
        expect(body.confirmed_koinu, url).to.equal(huge);
      }
    } finally {
      served.close();
      indexer.store.db
        .prepare("DELETE FROM address_stats WHERE id = (SELECT id FROM addresses WHERE address = ?)")
        .run(whale);
      indexer.store.db.prepare("DELETE FROM addresses WHERE address = ?").run(whale);
    }
  });

  it("serves balances, UTXOs and the seed's history object (through the client generated from its document)", async () => {
    const balance = await client.GET("/api/wallet/address/{address}/balance", {
      params: { path: { address: bob.address } },
    });
    expect(balance.data).to.include({ address: bob.address, confirmed_koinu: Number(25n * DOGE), tx_count: 1 });
    const utxos = await client.GET("/api/wallet/address/{address}/utxos", {
      params: { path: { address: alice.address } },
    });
    // No total: counting an address's unspent outputs would read all of them (pages end with next_cursor null).
    expect(utxos.data).to.not.have.property("total");
    expect(utxos.data!.items).to.have.length(1);
    expect(utxos.data!.next_cursor).to.equal(null);
    expect(utxos.data!.items[0]).to.include({
      txid: paymentTxid,
      vout: 2,
      value_koinu: Number(74n * DOGE),
      confirmations: 1,
      carrier: null,
    });
    const history = await client.GET("/api/wallet/address/{address}/history", {
      params: { path: { address: bob.address } },
    });
    expect(history.data!.address).to.equal(bob.address);
    expect(history.data!.items).to.deep.equal([
      {
        txid: paymentTxid,
        direction: "in",
        counterparty_address: alice.address,
        block_height: await devnet.rpc<number>("getblockcount"),
        amount_koinu: Number(25n * DOGE),
        is_doginal: false,
        confirmations: 1,
      },
    ]);
    const aliceHistory = await client.GET("/api/wallet/address/{address}/history", {
      params: { path: { address: alice.address }, query: { limit: 1 } },
    });
    expect(aliceHistory.data!.items[0]).to.include({
      txid: paymentTxid,
      direction: "out",
      counterparty_address: bob.address,
      amount_koinu: Number(26n * DOGE),
    });
    const next = await client.GET("/api/wallet/address/{address}/history", {
      params: { path: { address: alice.address }, query: { limit: 1, cursor: aliceHistory.data!.next_cursor! } },
    });
    expect(next.data!.items[0]).to.include({ txid: fundTxid, direction: "in" });
    const refused = await client.GET("/api/wallet/address/{address}/history", { params: { path: { address: "xyz" } } });
    expect(refused.error!.error.code).to.equal("INVALID_ADDRESS");
  });

  it("documents every route it serves, and publishes that document with its client types", async () => {
    expect(undocumentedRoutes(app)).to.deep.equal([]);
    const document = await (await fetch(`${base.replace(/\/api$/, "")}/openapi.json`)).json();
    expect(document.openapi).to.equal("3.1.0");
    await expectPublished("explorer", document);
    const page = await fetch(`${base.replace(/\/api$/, "")}/docs`);
    expect(page.headers.get("content-type")).to.match(/^text\/html/);
    expect(await page.text()).to.include("docs/assets/swagger-ui-bundle.js");
    const script = await fetch(`${base.replace(/\/api$/, "")}/docs/assets/swagger-ui-bundle.js`);
    expect(script.status).to.equal(200);
    expect((await script.arrayBuffer()).byteLength).to.be.greaterThan(100_000);
  });

  it("finds OP_RETURN payloads by transaction, by hash and among the recent ones", async () => {
    const sha = bytesToHex(sha256(payload));
    const bySha = await get(`/explorer/opreturn/sha256/${sha}`);
    expect(bySha.body.anchored).to.equal(true);
    expect(bySha.body.first).to.include({ txid: paymentTxid, vout: 1 });
    const unknown = await get(`/explorer/opreturn/sha256/${"00".repeat(32)}`);
    expect(unknown.body).to.deep.include({ anchored: false, first: null, matches: [] });
    const recent = await get(`/explorer/opreturn/recent?magic=${payload.subarray(0, 4).toString("hex")}`);
    expect(recent.body.items.map((i: any) => i.txid)).to.deep.equal([paymentTxid]);
    const anyMagic = (await get("/explorer/opreturn/recent?limit=100")).body;
    expect(anyMagic.items.map((i: any) => i.txid)).to.include(paymentTxid);
    expect(anyMagic).to.not.have.property("total");
  });

  it("answers bad input with 400 and the error body, unknown entities with 404", async () => {
    const badTxid = await get("/tx/xyz");
    expect(badTxid.status).to.equal(400);
    expect(badTxid.body.error.code).to.equal("INVALID_TXID");
    const badAddress = await get("/wallet/address/DJ9uBk5Kq8Ex6Y5dwLCBgwp3vAAu8bTR9H/balance");
    expect(badAddress.status).to.equal(400);
    expect(badAddress.body.error.code).to.equal("INVALID_ADDRESS");
    const badLimit = await get("/explorer/zkp/recent?limit=101");
    expect(badLimit.body.error.code).to.equal("INVALID_LIMIT");
    const badCursor = await get(`/wallet/address/${alice.address}/history?cursor=nope`);
    expect(badCursor.body.error.code).to.equal("INVALID_CURSOR");
    const missing = await get(`/tx/${"00".repeat(32)}`);
    expect(missing.status).to.equal(404);
    expect(missing.body.error.code).to.equal("TX_NOT_FOUND");
    const route = await get("/nope");
    expect(route.status).to.equal(404);
  });

  it("answers 503 with both heights while the index is behind the node", async () => {
    await devnet.rpc("generatetoaddress", [1, newKey().address]);
    // The node is one block ahead and the indexer has seen it but not indexed it yet.
    indexer.store.setMeta("node_height", String(await devnet.rpc<number>("getblockcount")));
    const missing = await get(`/tx/${"11".repeat(32)}`);
    expect(missing.status).to.equal(503);
    expect(missing.body.error.code).to.equal("INDEX_BEHIND");
    expect(missing.body.error.details.nodeHeight).to.equal(missing.body.error.details.indexedHeight + 1);
    await indexer.syncOnce();
  });

  it("broadcasts a signed transaction and maps the node's refusals", async () => {
    const spend = spendP2pkh(
      bob,
      [{ txid: paymentTxid, vout: 0, value: 25n * DOGE }],
      [{ script: alice.script, value: 24n * DOGE }],
    );
    const accepted = await post("/tx/broadcast", { hex: spend.hex });
    expect(accepted).to.deep.equal({
      status: 200,
      body: { txid: await devnet.rpc<string[]>("getrawmempool").then((m) => m[0]) },
    });
    const double = spendP2pkh(
      bob,
      [{ txid: paymentTxid, vout: 0, value: 25n * DOGE }],
      [{ script: bob.script, value: 24n * DOGE }],
    );
    const conflict = await post("/tx/broadcast", { hex: double.hex });
    expect(conflict.status).to.equal(409);
    expect(conflict.body.error.code).to.equal("TX_CONFLICT");
    const garbage = await post("/tx/broadcast", { hex: "00" });
    expect(garbage.status).to.equal(400);
    const extra = await post("/tx/broadcast", { hex: spend.hex, extra: 1 });
    expect(extra.body.error.code).to.equal("UNKNOWN_FIELDS");
    const malformed = await post("/tx/broadcast", "{not json");
    expect(malformed.body.error.code).to.equal("MALFORMED_JSON");
  });

  describe("post-quantum key registry", () => {
    const mldsa = ml_dsa44.keygen(new Uint8Array(32).fill(9));
    const keySha = () => bytesToHex(sha256(mldsa.publicKey));
    const registration = (issuedAt: number, overrides: Record<string, unknown> = {}) => {
      const message = registrationMessage(alice.address, keySha(), issuedAt);
      return {
        address: alice.address,
        mldsa_public_key: Buffer.from(mldsa.publicKey).toString("hex"),
        issued_at: issuedAt,
        dogecoin_signature: signMessage(message, alice.privateKey),
        mldsa_signature: Buffer.from(ml_dsa44.sign(new TextEncoder().encode(message), mldsa.secretKey)).toString("hex"),
        ...overrides,
      };
    };

    it("refuses a registration signed by the wrong Dogecoin key or the wrong ML-DSA key", async () => {
      const wrongDoge = registration(now, {
        dogecoin_signature: signMessage(registrationMessage(alice.address, keySha(), now), bob.privateKey),
      });
      expect((await post("/pqc/register", wrongDoge)).body.error.code).to.equal("BAD_DOGECOIN_SIGNATURE");
      const other = ml_dsa44.keygen(new Uint8Array(32).fill(7));
      const wrongKey = registration(now, {
        mldsa_signature: Buffer.from(
          ml_dsa44.sign(new TextEncoder().encode(registrationMessage(alice.address, keySha(), now)), other.secretKey),
        ).toString("hex"),
      });
      const refused = await post("/pqc/register", wrongKey);
      expect(refused.status).to.equal(401);
      expect(refused.body.error.code).to.equal("BAD_MLDSA_SIGNATURE");
      expect((await post("/pqc/register", registration(now - 3600))).body.error.code).to.equal("STALE_REQUEST");
      expect((await get(`/pqc/address/${alice.address}`)).status).to.equal(404);
    });

    it("registers, looks up, verifies, anchors through a real OP_RETURN, and revokes", async () => {
      const created = await post("/pqc/register", registration(now));
      expect(created.status).to.equal(201);
      expect(created.body).to.include({
        address: alice.address,
        key_sha256: keySha(),
        algorithm: "ML-DSA-44",
        revoked_at: null,
        anchored: false,
      });
      expect(
        (await post("/pqc/register", registration(now))).body.error.code,
        "a replayed request is refused",
      ).to.equal("REPLAYED_REQUEST");
      expect((await get(`/pqc/key/${keySha()}`)).body.address).to.equal(alice.address);

      const text = "hello from a post-quantum key";
      const signature = Buffer.from(ml_dsa44.sign(new TextEncoder().encode(text), mldsa.secretKey)).toString("hex");
      expect((await post("/pqc/verify", { address: alice.address, message: text, signature })).body.valid).to.equal(
        true,
      );
      expect(
        (await post("/pqc/verify", { address: alice.address, message: text + "!", signature })).body.valid,
      ).to.equal(false);

      // Anchor: OP_RETURN "PQC1" || sha256(key) mined and indexed.
      const utxo = (await get(`/wallet/address/${alice.address}/utxos`)).body.items[0];
      const anchorTx = spendP2pkh(
        alice,
        [{ txid: utxo.txid, vout: utxo.vout, value: BigInt(utxo.value_koinu) }],
        [
          { script: nullDataScript(Buffer.concat([Buffer.from("PQC1"), Buffer.from(keySha(), "hex")])), value: 0n },
          { script: alice.script, value: BigInt(utxo.value_koinu) - DOGE },
        ],
      );
      const anchorTxid = await devnet.rpc<string>("sendrawtransaction", [anchorTx.hex]);
      await devnet.rpc("generatetoaddress", [1, newKey().address]);
      await indexer.syncOnce();
      const anchored = await get(`/pqc/address/${alice.address}`);
      expect(anchored.body.anchored).to.equal(true);
      expect(anchored.body.anchor.txid).to.equal(anchorTxid);

      now += 10;
      const revokeMessage = revocationMessage(alice.address, keySha(), now);
      const revoked = await post("/pqc/revoke", {
        address: alice.address,
        key_sha256: keySha(),
        issued_at: now,
        dogecoin_signature: signMessage(revokeMessage, alice.privateKey),
      });
      expect(revoked.status).to.equal(200);
      expect(revoked.body.revoked_at).to.equal(now);
      expect((await get(`/pqc/address/${alice.address}`)).status).to.equal(404);
      expect((await post("/pqc/verify", { address: alice.address, message: text, signature })).status).to.equal(404);
    });
  });

  describe("POST /tx/pipeline", () => {
    async function freshCoin(owner: TestKey, amount: number) {
      const paid = await devnet.rpc<{ txid: string }>("devnet_faucet", [owner.address, amount, true]);
      await indexer.syncOnce();
      return { txid: paid.txid, vout: 0, value: BigInt(amount) * DOGE };
    }

    it("checks a parent and child package as a whole, then broadcasts both", async () => {
      const carol = newKey();
      const coin = await freshCoin(carol, 20);
      const parent = spendP2pkh(carol, [coin], [{ script: carol.script, value: 19n * DOGE }]);
      const parentTxid = parseTransactionHex(parent.hex).ok ? (parseTransactionHex(parent.hex) as any).value.txid : "";
      const child = spendP2pkh(
        carol,
        [{ txid: parentTxid, vout: 0, value: 19n * DOGE }],
        [{ script: bob.script, value: 18n * DOGE }],
      );
      const result = await post("/tx/pipeline", { transactions: [parent.hex, child.hex] });
      expect(result.status).to.equal(200);
      expect(result.body.results.map((r: any) => r.status)).to.deep.equal(["broadcast", "broadcast"]);
      expect(await devnet.rpc<string[]>("getrawmempool")).to.include.members([parentTxid, result.body.results[1].txid]);
    });

    it("broadcasts nothing when the second transaction is invalid", async () => {
      const dave = newKey();
      const coin = await freshCoin(dave, 20);
      const parent = spendP2pkh(dave, [coin], [{ script: dave.script, value: 19n * DOGE }]);
      const parentTxid = (parseTransactionHex(parent.hex) as any).value.txid;
      // Signed by the wrong key: the script check fails before anything is sent.
      const forged = spendP2pkh(
        { ...bob, script: dave.script },
        [{ txid: parentTxid, vout: 0, value: 19n * DOGE }],
        [{ script: bob.script, value: 18n * DOGE }],
      );
      const before = await devnet.rpc<string[]>("getrawmempool");
      const result = await post("/tx/pipeline", { transactions: [parent.hex, forged.hex] });
      expect(result.status).to.equal(422);
      expect(result.body.results.map((r: any) => r.status)).to.deep.equal(["skipped", "invalid"]);
      expect(result.body.results[1].error.message).to.match(/^16: mandatory-script-verify-flag-failed/);
      expect(await devnet.rpc<string[]>("getrawmempool")).to.deep.equal(before);
    });

    it("refuses a package whose child comes before its parent", async () => {
      const erin = newKey();
      const coin = await freshCoin(erin, 20);
      const parent = spendP2pkh(erin, [coin], [{ script: erin.script, value: 19n * DOGE }]);
      const parentTxid = (parseTransactionHex(parent.hex) as any).value.txid;
      const child = spendP2pkh(
        erin,
        [{ txid: parentTxid, vout: 0, value: 19n * DOGE }],
        [{ script: bob.script, value: 18n * DOGE }],
      );
      const result = await post("/tx/pipeline", { transactions: [child.hex, parent.hex] });
      expect(result.status).to.equal(422);
      expect(result.body.results[0].error.code).to.equal("PACKAGE_OUT_OF_ORDER");
      expect((await post("/tx/pipeline", { transactions: [] })).body.error.code).to.equal("INVALID_PACKAGE");
    });
  });

  describe("DRC-20 carriers and transfer inscriptions", () => {
    it("lists a tick's carrier UTXOs and the transfer inscriptions with their state", async () => {
      const frank = newKey();
      const grace = newKey();
      const text = (body: object) => ({
        contentType: "text/plain;charset=utf-8",
        body: new TextEncoder().encode(JSON.stringify(body)),
      });
      const coin = await devnet.rpc<{ txid: string }>("devnet_faucet", [frank.address, 50, true]);
      let spendable = { txid: coin.txid, vout: 0, value: 50n * DOGE };
      const step = async (body: object) => {
        const result = await inscribeDoginals(devnet, frank, spendable, text(body), frank.script);
        spendable = result.change!;
        await devnet.rpc("generatetoaddress", [1, newKey().address]);
        return result;
      };
      await step({ p: "drc-20", op: "deploy", tick: "WOOF", max: "1000", lim: "500" });
      await step({ p: "drc-20", op: "mint", tick: "WOOF", amt: "400" });
      const transfer = await step({ p: "drc-20", op: "transfer", tick: "WOOF", amt: "150" });
      await indexer.syncOnce();

      const balances = await get(`/wallet/address/${frank.address}/drc20`);
      expect(balances.body.balances).to.deep.equal([{ tick: "WOOF", available: "250", transferable: "150" }]);
      const carriers = await get(`/wallet/address/${frank.address}/drc20/woof/utxos`);
      expect(carriers.body.items).to.have.length(1);
      expect(carriers.body.items[0]).to.include({
        txid: transfer.output.txid,
        vout: 0,
        inscription_id: transfer.inscriptionId,
        offset: 0,
        amount: "150",
      });
      const utxos = await get(`/wallet/address/${frank.address}/utxos`);
      expect(utxos.body.items.find((u: any) => u.txid === transfer.output.txid).carrier).to.equal("drc20");
      const listed = await get(`/wallet/address/${frank.address}/transfer_inscriptions?envelope=true`);
      expect(listed.body.items).to.have.length(1);
      expect(listed.body.items[0]).to.include({
        inscription_id: transfer.inscriptionId,
        tick: "WOOF",
        amount: "150",
        state: "transferable",
      });
      expect(JSON.parse(listed.body.items[0].body)).to.deep.equal({
        p: "drc-20",
        op: "transfer",
        tick: "WOOF",
        amt: "150",
      });

      await sendInscription(devnet, frank, transfer.output, grace.script);
      await devnet.rpc("generatetoaddress", [1, newKey().address]);
      await indexer.syncOnce();
      expect((await get(`/wallet/address/${grace.address}/drc20`)).body.balances).to.deep.equal([
        { tick: "WOOF", available: "150", transferable: "0" },
      ]);
      const sent = await get(
        `/wallet/address/${frank.address}/transfer_inscriptions?order=asc&txid=${transfer.revealTxids[0]}`,
      );
      expect(sent.body.items[0]).to.include({ state: "sent", receiver_address: grace.address });
      expect((await get(`/wallet/address/${frank.address}/drc20/WOOF/utxos`)).body.items).to.deep.equal([]);
      expect((await get(`/wallet/address/${frank.address}/drc20/TOOLONG/utxos`)).body.error.code).to.equal(
        "INVALID_TICK",
      );
      expect((await get(`/wallet/address/${frank.address}/transfer_inscriptions?order=up`)).body.error.code).to.equal(
        "INVALID_ORDER",
      );
    });
  });

  it("pages through history with no item lost or repeated while new blocks arrive", async () => {
    const henry = newKey();
    for (let i = 0; i < 4; i++) await devnet.rpc("devnet_faucet", [henry.address, 1 + i, true]);
    await indexer.syncOnce();
    const before = (await get(`/wallet/address/${henry.address}/history?limit=200`)).body.items.map(
      (item: any) => item.txid,
    );
    expect(before).to.have.length(4);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { items: { txid: string }[]; next_cursor: string | null } } = await get(
        `/wallet/address/${henry.address}/history?limit=1${cursor ? `&cursor=${cursor}` : ""}`,
      );
      seen.push(...page.body.items.map((item) => item.txid));
      cursor = page.body.next_cursor;
      // A new payment lands between pages: it is newer than the cursor, so it never shifts the pages.
      await devnet.rpc("devnet_faucet", [henry.address, 1, true]);
      await indexer.syncOnce();
    } while (cursor);
    expect(seen).to.deep.equal(before);
    expect(new Set(seen).size).to.equal(seen.length);

    // UTXOs page oldest first: new ones land after the cursor and are reached, none repeats.
    const all = (await get(`/wallet/address/${henry.address}/utxos?limit=500`)).body;
    const walked: string[] = [];
    let utxoCursor: string | null = null;
    do {
      const page: { body: { items: { txid: string; vout: number }[]; next_cursor: string | null } } = await get(
        `/wallet/address/${henry.address}/utxos?limit=2${utxoCursor ? `&cursor=${utxoCursor}` : ""}`,
      );
      walked.push(...page.body.items.map((u) => `${u.txid}:${u.vout}`));
      utxoCursor = page.body.next_cursor;
    } while (utxoCursor);
    expect(walked).to.deep.equal(all.items.map((u: any) => `${u.txid}:${u.vout}`));
    expect(all.next_cursor).to.equal(null);
  });

  it("answers balance and history identically through the node:http fast path", async () => {
    const queries = new IndexQueries(indexer.store.db);
    const app = createExplorerApp({
      queries,
      network: NETWORKS.regtest,
      node: { sendRawTransaction: async () => "" },
      statusCacheMs: 0,
    });
    const fast = createWalletFastPath({ queries, network: NETWORKS.regtest });
    const served = http.createServer((req, res) => {
      if (!fast(req, res)) app(req, res);
    });
    await new Promise<void>((resolve) => served.listen(0, "127.0.0.1", resolve));
    const fastBase = `http://127.0.0.1:${(served.address() as { port: number }).port}/api`;
    try {
      for (const path of [
        `/wallet/address/${alice.address}/balance`,
        `/wallet/address/${alice.address}/history?limit=2`,
        `/wallet/address/${bob.address}/history`,
        "/wallet/address/xyz/balance",
        `/wallet/address/${alice.address}/history?limit=0`,
        `/wallet/address/${alice.address}/history?cursor=nope`,
      ]) {
        const viaExpress = await get(path);
        const response = await fetch(`${fastBase}${path}`);
        expect(response.status, path).to.equal(viaExpress.status);
        expect(await response.json(), path).to.deep.equal(viaExpress.body);
      }
    } finally {
      served.close();
    }
  });

  describe("OP_CHECKZKP endpoints", () => {
    let validTxid: string;
    let strayTxid: string;
    let vkSha: string;
    before(async () => {
      const vector = (zkpVectors.valid as { description: string; input: { script_asm: string } }[])[0];
      const items = vector.input.script_asm
        .split(" ")
        .filter((token) => !token.startsWith("OP_"))
        .map((hex) => Buffer.from(hex, "hex"));
      const verifyRedeem = compileScript([OP.OP_0, OP.OP_CHECKZKP, OP.OP_DROP, ...Array(8).fill(OP.OP_2DROP), OP.OP_1]);
      const ivy = newKey();
      const paid = await devnet.rpc<{ txid: string }>("devnet_faucet", [ivy.address, 30, true]);
      const first = await commitP2sh(devnet, ivy, { txid: paid.txid, vout: 0, value: 30n * DOGE }, verifyRedeem);
      const second = await commitP2sh(devnet, ivy, first.change!, compileScript([OP.OP_CHECKZKP, OP.OP_1]));
      await devnet.rpc("generatetoaddress", [1, newKey().address]);
      validTxid = (await first.spend(items, ivy.script)).txid;
      strayTxid = (await second.spend([], ivy.script)).txid;
      await devnet.rpc("generatetoaddress", [1, newKey().address]);
      await indexer.syncOnce();
      const shadow = new ZkpShadowService(indexer.store.db);
      shadow.enqueuePending();
      await shadow.drain();
      vkSha = bytesToHex(sha256(Buffer.concat(items.slice(10, 16))));
    });

    it("reports the capture status with its event count and verifier state", async () => {
      const { status, body } = await get("/explorer/zkp/status");
      expect(status).to.equal(200);
      expect(body).to.deep.include({
        activation_height: null,
        consensus_enforced: false,
        status: "shadow (not consensus-enforced)",
        event_count: 2,
      });
      expect(body.opcode).to.deep.equal({ name: "OP_CHECKZKP", byte: "0xb9", replaces: "OP_NOP10" });
      expect(body.verifier).to.deep.equal({ pending: 0, valid: 1, invalid: 0 });
    });

    it("lists recent uses newest first, and the uses of one transaction and of one key", async () => {
      const recent = await get("/explorer/zkp/recent?limit=2");
      expect(recent.body.items.map((u: any) => u.txid).sort()).to.deep.equal([validTxid, strayTxid].sort());
      const valid = (await get(`/explorer/zkp/tx/${validTxid}`)).body.items;
      expect(valid).to.have.length(1);
      expect(valid[0]).to.deep.include({
        role: "redeem_script",
        input_index: 0,
        mode: 0,
        mode_name: "groth16-bls12-381",
        vk_sha256: vkSha,
        parse_error: null,
        shadow_valid: true,
        shadow_encoding: "affine-be",
        consensus_enforced: false,
      });
      const stray = (await get(`/explorer/zkp/tx/${strayTxid}`)).body.items[0];
      expect(stray.mode).to.equal(null);
      expect(stray.parse_error).to.be.a("string");
      expect(stray.shadow_valid).to.equal(null);
      const byKey = await get(`/explorer/zkp/vk/${vkSha}`);
      expect(byKey.body).to.deep.include({ vk_sha256: vkSha, next_cursor: null });
      expect(byKey.body.items).to.have.length(1);
      expect((await get(`/explorer/zkp/vk/${"ab".repeat(32)}`)).status).to.equal(404);
      expect((await get("/explorer/zkp/recent?limit=0")).status).to.equal(400);
      expect((await get(`/explorer/zkp/tx/${"cd".repeat(32)}`)).body.error.code).to.equal("TX_NOT_FOUND");
    });

    it("answers OP_CHECKZKP records with their confirmations on every route", async () => {
      const tip = (await get("/status")).body.indexer.indexed_height;
      const lists = [
        (await get("/explorer/zkp/recent?limit=2")).body.items,
        (await get(`/explorer/zkp/tx/${validTxid}`)).body.items,
        (await get(`/explorer/zkp/vk/${vkSha}`)).body.items,
        (await get(`/tx/${validTxid}`)).body.zkp,
      ];
      for (const items of lists) {
        expect(items).to.have.length.greaterThan(0);
        for (const item of items) expect(item.confirmations).to.equal(tip - item.block_height + 1);
      }
    });

    it("pages through every use of a verifying key with a cursor, none lost or repeated", async () => {
      const db = indexer.store.db;
      // 60 more uses of the key beside the real one (copies at other op indexes), so the list passes 50.
      const copy =
        db.prepare(`INSERT INTO zkp_uses (tx_id, height, position, role, input_index, output_index, op_index, mode, mode_name, proof_hex, vk_hex, vk_sha256,
        public_inputs, parse_error, shadow_valid, shadow_encoding, shadow_error, verified_at)
        SELECT tx_id, height, position, role, input_index, output_index, op_index + ?, mode, mode_name, proof_hex, vk_hex, vk_sha256,
        public_inputs, parse_error, shadow_valid, shadow_encoding, shadow_error, verified_at FROM zkp_uses WHERE vk_sha256 = ? AND op_index < 1000`);
      // Schema version 9 stores the key's hash as a 32-byte BLOB.
      for (let i = 1; i <= 60; i++) copy.run(1000 + i, Buffer.from(vkSha, "hex"));
      try {
        const seen: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const page: any = (await get(`/explorer/zkp/vk/${vkSha}?limit=25${cursor ? `&cursor=${cursor}` : ""}`)).body;
          expect(page).to.not.have.property("total");
          expect(page.items.length).to.be.at.most(25);
          seen.push(
            ...page.items.map((u: any) => `${u.txid}:${u.role}:${u.input_index}:${u.output_index}:${u.op_index}`),
          );
          cursor = page.next_cursor;
          pages++;
        } while (cursor && pages < 10);
        expect(seen).to.have.length(61);
        expect(new Set(seen).size).to.equal(61);
        const all = (await get(`/explorer/zkp/vk/${vkSha}?limit=100`)).body;
        expect(all.items).to.have.length(61);
        expect(all.next_cursor).to.equal(null);
        // The pages, one after another, are the one long page: the cursor splits uses of one transaction.
        expect(seen).to.deep.equal(
          all.items.map((u: any) => `${u.txid}:${u.role}:${u.input_index}:${u.output_index}:${u.op_index}`),
        );
        const rowidCursor = Buffer.from(JSON.stringify({ h: 1, p: 0, r: 5 })).toString("base64url");
        expect((await get(`/explorer/zkp/vk/${vkSha}?cursor=${rowidCursor}`)).body.error.code).to.equal(
          "INVALID_CURSOR",
        );
        expect((await get(`/explorer/zkp/vk/${"00".repeat(32)}`)).status).to.equal(404);
        expect((await get(`/explorer/zkp/vk/${vkSha}?limit=101`)).status).to.equal(400);
        expect((await get(`/explorer/zkp/vk/${vkSha}?cursor=nope`)).status).to.equal(400);
      } finally {
        db.prepare("DELETE FROM zkp_uses WHERE vk_sha256 = ? AND op_index > 1000").run(Buffer.from(vkSha, "hex"));
      }
    });
  });

  it("serves a transaction's OP_RETURNs, and caches only deep-confirmed transactions as immutable", async () => {
    const own = await get(`/explorer/opreturn/tx/${paymentTxid}`);
    expect(own.body.items).to.have.length(1);
    expect(own.body.items[0]).to.include({ vout: 1, payload_hex: payload.toString("hex"), bytes: payload.length });
    expect((await get(`/explorer/opreturn/tx/${"ef".repeat(32)}`)).status).to.equal(404);
    expect((await get(`/tx/${paymentTxid}`)).headers.get("cache-control")).to.equal("no-store");
    await devnet.rpc("generatetoaddress", [100, newKey().address]);
    await indexer.syncOnce();
    const deep = await get(`/tx/${paymentTxid}`);
    expect(deep.body.confirmations).to.be.at.least(100);
    expect(deep.headers.get("cache-control")).to.equal("public, max-age=31536000, immutable");
  });
});
