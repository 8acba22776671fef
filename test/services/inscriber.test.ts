/**
 * The inscriber end to end on the devnet: platform jobs paid by the hot wallet and user-signed
 * PSBTs, both forms, small, multi-input v1 and multi-transaction Doginals payloads; 20 concurrent
 * jobs; a restart between commit and reveal; the refusals; and an independent check of every
 * transaction with bitcore-lib-doge's interpreter. The explorer (in process, over the same index)
 * is the judge of what landed.
 */
import { expect } from "chai";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Server } from "node:http";
import { Psbt } from "bitcoinjs-lib";
import createClient from "openapi-fetch";
import type express from "express";
import type { paths } from "../../shared/openapi/inscriber";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { DogecoinRpcClient } from "../../src/chain/dogecoin-rpc";
import { NETWORKS, bytesToHex, hexToBytes, parseTransactionHex, toBitcoinjsNetwork } from "../../src/doge";
import { envelopeHash } from "../../src/inscription";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { IndexQueries } from "../../src/indexer/queries";
import { RpcChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { PreparedTransaction, standardFlags } from "../../src/doge/script-check";
import { createExplorerApp } from "../../src/services/explorer/app";
import { undocumentedRoutes } from "../../src/services/http/openapi";
import { createInscriberApp, sha256Hex } from "../../src/services/inscriber/app";
import { PlatformInscriber } from "../../src/services/inscriber/platform";
import { JobStore, openInscriberDatabase } from "../../src/services/inscriber/store";
import { UserSignedInscriber } from "../../src/services/inscriber/user-signed";
import { HotWallet, indexNodeChain, openWalletDatabase } from "../../src/wallet";
import type { WalletKey } from "../../src/wallet";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { TestKey, newKey } from "../helpers/keys";
import { until } from "../helpers/wait";
import { expectPublished } from "../helpers/openapi-publish";
import { nodeRawTransactions } from "../../src/services/user-psbt";
import { Loop, runEvery } from "../../src/ops/loop";
import { listenLocal } from "../helpers/listen";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const bitcore = require("bitcore-lib-doge");

const FEE_RATE = 1_000_000n;
const POSTAGE = 1_000_000n;
const MAX_PAYLOAD = 16_384;
const LAUNCHPAD_KEY = "ik_test_launchpad_key";
const RESTART_KEY = "restart-between-commit-and-reveal";

interface Content {
  label: string;
  content_type: string;
  action?: string;
  body: Uint8Array;
  form?: "v1" | "doginals";
  expectForm: "v1" | "doginals";
  expectRevealTxs: number;
  expectInputs: number;
}

const utf8 = (text: string) => new TextEncoder().encode(text);
function pseudoRandom(length: number, seed: string): Uint8Array {
  const out = new Uint8Array(length);
  let block = crypto.createHash("sha256").update(seed).digest();
  for (let i = 0; i < length; i++) {
    if (i % 32 === 0 && i > 0) block = crypto.createHash("sha256").update(block).digest();
    out[i] = block[i % 32];
  }
  return out;
}

function contents(tag: string): Content[] {
  return [
    {
      label: "small v1 with an ACTION",
      content_type: "image/png",
      action: "LIST",
      body: pseudoRandom(200, `small ${tag}`),
      expectForm: "v1",
      expectRevealTxs: 1,
      expectInputs: 1,
    },
    {
      label: "multi-input v1",
      content_type: "application/pdf",
      action: "TOKENIZE",
      body: pseudoRandom(2_000, `large ${tag}`),
      expectForm: "v1",
      expectRevealTxs: 1,
      expectInputs: 5,
    },
    {
      label: "small DRC-20 plain text (Doginals)",
      content_type: "text/plain;charset=utf-8",
      body: utf8(JSON.stringify({ p: "drc-20", op: "deploy", tick: tag.slice(0, 4), max: "21000000", lim: "1000" })),
      expectForm: "doginals",
      expectRevealTxs: 1,
      expectInputs: 1,
    },
    {
      label: "multi-transaction Doginals",
      content_type: "text/plain;charset=utf-8",
      form: "doginals",
      body: utf8(`${tag} `.repeat(700)),
      expectForm: "doginals",
      expectRevealTxs: 3,
      expectInputs: 1,
    },
  ];
}

describe("inscriber", function () {
  this.timeout(300_000);
  let devnet: RunningDevnet;
  let client: DogecoinRpcClient;
  let indexer: Indexer;
  let queries: IndexQueries;
  let explorer: Server;
  let inscriber: Server;
  let app: express.Express;
  let explorerBase: string;
  let base: string;
  let dir: string;
  let walletKey: WalletKey;
  let wallet: HotWallet;
  let platform: PlatformInscriber;
  let platformLoop: Loop;
  let jobs: JobStore;
  const producedHex = new Set<string>();
  const miner = newKey();

  const request = async (url: string, init: RequestInit = {}) => {
    const response = await fetch(url, init);
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
  };
  const get = (p: string) => request(`${base}${p}`);
  const post = (p: string, body: unknown, headers: Record<string, string> = {}) =>
    request(`${base}${p}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  const explorerGet = (p: string) => request(`${explorerBase}${p}`);
  const inscribe = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    post("/inscribe", body, { Authorization: `Bearer ${LAUNCHPAD_KEY}`, ...headers });

  async function mine(blocks = 1): Promise<void> {
    await devnet.rpc("generatetoaddress", [blocks, miner.address]);
    await indexer.syncOnce();
  }

  async function jobReaches(id: string, statuses: string[]) {
    return until(`job ${id} to reach ${statuses.join("/")}`, async () => {
      const { body } = await get(`/jobs/${id}`);
      if (body.status === "failed") throw new Error(`job ${id} failed: ${JSON.stringify(body.error)}`);
      return statuses.includes(body.status) ? body : null;
    });
  }

  /** Mines until the job is confirmed (the worker follows confirmations on its own). */
  async function confirmJob(id: string) {
    await jobReaches(id, ["revealed", "confirmed"]);
    await mine();
    await platform.checkConfirmations();
    return jobReaches(id, ["confirmed"]);
  }

  function makePlatform(
    store: JobStore,
    hotWallet: HotWallet,
    afterStep?: ConstructorParameters<typeof PlatformInscriber>[0]["afterStep"],
  ) {
    return new PlatformInscriber({
      store,
      wallet: hotWallet,
      network: NETWORKS.regtest,
      postageKoinu: POSTAGE,
      feeRateKoinuPerKb: FEE_RATE,
      afterStep,
    });
  }

  async function checkInExplorer(inscriptionId: string, content: Content, owner: string) {
    const { status, body } = await explorerGet(`/explorer/inscription/${inscriptionId}`);
    expect(status, JSON.stringify(body)).to.equal(200);
    expect(body.owner_address).to.equal(owner);
    expect(body.content_type).to.equal(content.content_type);
    expect(body.action).to.equal(content.action ?? null);
    expect(body.form).to.equal(content.expectForm);
    expect(body.reveal_tx_count).to.equal(content.expectRevealTxs);
    expect(body.envelope_hash).to.equal(
      envelopeHash({ contentType: content.content_type, action: content.action ?? null, body: content.body }),
    );
    const raw = await fetch(`${explorerBase}/explorer/inscription/${inscriptionId}/content`);
    expect(raw.headers.get("content-type")).to.equal(content.content_type);
    expect(bytesToHex(new Uint8Array(await raw.arrayBuffer()))).to.equal(bytesToHex(content.body));
  }

  /** Decodes `hex` with bitcore-lib-doge and runs every input through its interpreter. */
  async function bitcoreVerifies(hex: string): Promise<void> {
    const decoded = new bitcore.Transaction(hex);
    const ours = parseTransactionHex(hex);
    if (!ours.ok) throw new Error("our codec cannot decode a transaction we made");
    expect(decoded.id).to.equal(ours.value.txid);
    const spent = [];
    for (const input of ours.value.inputs) {
      const prevHex = await devnet.rpc<string>("getrawtransaction", [input.prevTxid, 0]);
      const prev = parseTransactionHex(prevHex);
      if (!prev.ok) throw new Error("previous transaction does not decode");
      spent.push({ script: prev.value.outputs[input.vout].script, value: prev.value.outputs[input.vout].value });
    }
    const verdict = new PreparedTransaction(hexToBytes(hex)).verify(spent, standardFlags(false));
    expect(verdict, `bitcore verdict for ${ours.value.txid}`).to.deep.equal({ ok: true });
  }

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "inscriber-test-"));
    devnet = await startDevnet();
    client = new DogecoinRpcClient({ url: devnet.url });
    const indexDb = openIndexerDatabase(":memory:");
    indexer = new Indexer({
      store: new IndexerStore(indexDb),
      source: new RpcChainSource(client),
      network: NETWORKS.regtest,
    });
    queries = new IndexQueries(indexDb);
    const explorerApp = createExplorerApp({ queries, network: NETWORKS.regtest, node: client, statusCacheMs: 0 });
    ({ server: explorer } = await listenLocal(explorerApp));
    explorerBase = `http://127.0.0.1:${(explorer.address() as { port: number }).port}/api`;

    const key = newKey();
    walletKey = { privateKey: key.privateKey, publicKey: key.publicKey, address: key.address, script: key.script };
    wallet = new HotWallet({
      db: openWalletDatabase(path.join(dir, "wallet.sqlite")),
      key: walletKey,
      chain: indexNodeChain(queries, client),
      network: NETWORKS.regtest,
      feeRateKoinuPerKb: FEE_RATE,
    });
    // Thirty outputs of 100 DOGE: enough for every job here without waiting for change to confirm.
    for (let i = 0; i < 30; i++) await devnet.rpc("devnet_faucet", [walletKey.address, 100, false]);
    await mine();
    await wallet.sync();

    const db = openInscriberDatabase(path.join(dir, "inscriber.sqlite"));
    jobs = new JobStore(db);
    platform = makePlatform(jobs, wallet, (job, step) => {
      if (job.idempotencyKey === RESTART_KEY && step === "committed")
        throw new Error("simulated crash after the commit broadcast");
    });
    platformLoop = runEvery("inscriber_worker", 50, () => platform.runOnce());
    const userSigned = new UserSignedInscriber({
      db,
      queries,
      network: NETWORKS.regtest,
      feeRateKoinuPerKb: FEE_RATE,
      postageKoinu: POSTAGE,
      rawTransactions: nodeRawTransactions(client),
    });
    app = createInscriberApp({
      network: NETWORKS.regtest,
      projects: new Map([
        ["launchpad", sha256Hex(LAUNCHPAD_KEY)],
        ["relayer", sha256Hex("ik_other")],
      ]),
      platform,
      jobs,
      userSigned,
      maxPayloadBytes: MAX_PAYLOAD,
      feeRateKoinuPerKb: FEE_RATE,
      postageKoinu: POSTAGE,
    });
    ({ server: inscriber } = await listenLocal(app));
    base = `http://127.0.0.1:${(inscriber.address() as { port: number }).port}`;
  });

  after(async () => {
    await platformLoop?.stop();
    await platform?.stop();
    inscriber?.close();
    explorer?.close();
    await devnet?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("documents every route it serves", () => {
    expect(undocumentedRoutes(app)).to.deep.equal([]);
  });

  it("publishes its OpenAPI document, with the reference page", async () => {
    const document = await (await fetch(`${base}/openapi.json`)).json();
    expect(document.openapi).to.equal("3.1.0");
    await expectPublished("inscriber", document);
    const page = await fetch(`${base}/docs`);
    expect(page.headers.get("content-type")).to.match(/^text\/html/);
    expect(await page.text()).to.include("docs/assets/swagger-ui-bundle.js");
    const script = await fetch(`${base}/docs/assets/swagger-ui-bundle.js`);
    expect(script.status).to.equal(200);
    await script.arrayBuffer();
  });

  it("serves the standard: envelope version, forms, the ACTION registry and the limits", async () => {
    // A client generated from the published document (shared/openapi/inscriber.d.ts).
    const client = createClient<paths>({ baseUrl: base });
    const { data: body, error, response } = await client.GET("/standard");
    expect(response.status).to.equal(200);
    expect(error).to.equal(undefined);
    if (!body) throw new Error("no body");
    expect(body.envelope_version).to.equal(1);
    expect(body.protocol_id).to.equal("ord");
    expect(body.forms.v1.chunk_bytes).to.equal(520);
    expect(body.forms.doginals.chunk_bytes).to.equal(240);
    expect(body.limits.max_payload_bytes).to.equal(MAX_PAYLOAD);
    expect(body.actions.find((a) => a.name === "LAUNCHPAD_MINT")?.content_types).to.deep.equal(["application/json"]);
    expect(body.actions.map((a) => a.name)).to.include.members([
      "TRANSFER",
      "LIST",
      "TOKENIZE",
      "LAUNCHPAD_DEPLOY",
      "BRIDGE_L1_*",
      "ZKP",
    ]);
  });

  describe("platform path", () => {
    for (const content of contents("plat")) {
      it(`inscribes ${content.label} onto the recipient`, async () => {
        const recipient = newKey();
        const submitted = await inscribe({
          project: "launchpad",
          content_type: content.content_type,
          ...(content.action ? { action: content.action } : {}),
          content: Buffer.from(content.body).toString("base64"),
          encoding: "base64",
          recipient: recipient.address,
          ...(content.form ? { form: content.form } : {}),
        });
        expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
        expect(submitted.body.status).to.be.oneOf(["queued", "committed", "revealed"]);
        expect(submitted.body.form).to.equal(content.expectForm);
        expect(submitted.headers.get("location")).to.equal(`/jobs/${submitted.body.id}`);
        const done = await confirmJob(submitted.body.id);
        expect(done.reveal_txids).to.have.length(content.expectRevealTxs);
        expect(done.inscription_id).to.equal(`${done.reveal_txids[0]}i0`);
        expect(done.confirmed_height).to.be.a("number");
        expect(done.error).to.equal(null);
        const reveal = parseTransactionHex(await devnet.rpc<string>("getrawtransaction", [done.reveal_txids[0], 0]));
        expect(reveal.ok && reveal.value.inputs.length).to.equal(content.expectInputs);
        await checkInExplorer(done.inscription_id, content, recipient.address);
        for (const tx of wallet.txsOf(done.id)) producedHex.add(tx.hex);
      });
    }

    it("answers the same job for a repeated Idempotency-Key instead of inscribing twice", async () => {
      const body = {
        project: "launchpad",
        content_type: "text/plain;charset=utf-8",
        content: "once only",
        recipient: newKey().address,
      };
      const first = await inscribe(body, { "Idempotency-Key": "mint:demo:7" });
      const second = await inscribe(body, { "Idempotency-Key": "mint:demo:7" });
      expect(first.status).to.equal(202);
      expect(second.status).to.equal(200);
      expect(second.body.id).to.equal(first.body.id);
      const done = await confirmJob(first.body.id);
      expect(wallet.txsOf(done.id).filter((tx) => tx.label.startsWith("commit"))).to.have.length(1);
    });

    it("rebroadcasts a job's commit and reveal after they fall out of the mempool, and confirms the same transactions", async () => {
      const recipient = newKey();
      const submitted = await inscribe({
        project: "launchpad",
        content_type: "text/plain;charset=utf-8",
        content: "evicted once",
        recipient: recipient.address,
      });
      const revealed = await jobReaches(submitted.body.id, ["revealed"]);
      await devnet.rpc("devnet_evict", [revealed.commit_txid]);
      const mempool = await devnet.rpc<string[]>("getrawmempool");
      expect(mempool).to.not.include(revealed.commit_txid);
      expect(mempool).to.not.include(revealed.reveal_txids[0]);
      await platform.checkConfirmations();
      const back = await devnet.rpc<string[]>("getrawmempool");
      expect(back).to.include.members([revealed.commit_txid, revealed.reveal_txids[0]]);
      const done = await confirmJob(submitted.body.id);
      expect(done.commit_txid).to.equal(revealed.commit_txid);
      expect(done.inscription_id).to.equal(revealed.inscription_id);
      const { body } = await explorerGet(`/explorer/inscription/${done.inscription_id}`);
      expect(body.owner_address).to.equal(recipient.address);
    });

    it("runs 20 concurrent jobs to confirmation with no output spent twice and no inscription made twice", async () => {
      const recipients = Array.from({ length: 20 }, () => newKey());
      const answers = await Promise.all(
        recipients.map((recipient, i) =>
          inscribe({
            project: "launchpad",
            content_type: "text/plain;charset=utf-8",
            content: `concurrent job ${i}`,
            recipient: recipient.address,
          }),
        ),
      );
      for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).to.equal(202);
      const ids = answers.map((answer) => answer.body.id as string);
      expect(new Set(ids).size).to.equal(20);
      for (const id of ids) await jobReaches(id, ["revealed", "confirmed"]);
      await mine();
      await platform.checkConfirmations();
      const done = [];
      for (const id of ids) done.push(await jobReaches(id, ["confirmed"]));
      const spent = new Set<string>();
      for (const job of done) {
        for (const tx of wallet.txsOf(job.id)) {
          producedHex.add(tx.hex);
          const parsed = parseTransactionHex(tx.hex);
          if (!parsed.ok) throw new Error("stored transaction does not decode");
          for (const input of parsed.value.inputs) {
            const outpoint = `${input.prevTxid}:${input.vout}`;
            expect(spent.has(outpoint), `${outpoint} spent twice`).to.equal(false);
            spent.add(outpoint);
          }
        }
      }
      const inscriptionIds = done.map((job) => job.inscription_id);
      expect(new Set(inscriptionIds).size).to.equal(20);
      for (let i = 0; i < 20; i++) {
        const { body } = await explorerGet(`/explorer/inscription/${done[i].inscription_id}`);
        expect(body.owner_address).to.equal(recipients[i].address);
        expect(body.reveal_txid).to.equal(done[i].reveal_txids[0]);
      }
    });

    it("completes a job once after the worker stops between commit and reveal", async () => {
      const recipient = newKey();
      const submitted = await inscribe(
        {
          project: "launchpad",
          content_type: "text/plain;charset=utf-8",
          content: "survives a restart",
          recipient: recipient.address,
        },
        { "Idempotency-Key": RESTART_KEY },
      );
      expect(submitted.status).to.equal(202);
      const committed = await until("the simulated crash", async () => {
        const job = jobs.get(submitted.body.id)!;
        return job.status === "committed" && job.errorCode === "RETRYING" ? job : null;
      });
      const mempool = await devnet.rpc<string[]>("getrawmempool");
      expect(mempool).to.include(committed.commitTxid);
      expect(mempool).to.not.include(committed.revealTxids[0]);
      await platformLoop.stop();
      await platform.stop();

      // A new process: new connections to the same databases, a new wallet object and worker.
      const restartedWallet = new HotWallet({
        db: openWalletDatabase(path.join(dir, "wallet.sqlite")),
        key: walletKey,
        chain: indexNodeChain(queries, client),
        network: NETWORKS.regtest,
        feeRateKoinuPerKb: FEE_RATE,
      });
      const restartedJobs = new JobStore(openInscriberDatabase(path.join(dir, "inscriber.sqlite")));
      const restarted = makePlatform(restartedJobs, restartedWallet);
      const restartedLoop = runEvery("inscriber_worker", 50, () => restarted.runOnce());
      try {
        const revealed = await until("the resumed reveal", async () => {
          const job = restartedJobs.get(submitted.body.id)!;
          return job.status === "revealed" ? job : null;
        });
        expect(revealed.commitTxid).to.equal(committed.commitTxid);
        expect(revealed.revealTxids).to.deep.equal(committed.revealTxids);
        await mine();
        await restarted.checkConfirmations();
        const confirmed = await until("confirmation after the restart", async () => {
          const job = restartedJobs.get(submitted.body.id)!;
          return job.status === "confirmed" ? job : null;
        });
        expect(restartedWallet.txsOf(confirmed.id)).to.have.length(2);
        const inscribedOnRecipient = await explorerGet(`/wallet/address/${recipient.address}/utxos`);
        expect(inscribedOnRecipient.body.items).to.have.length(1);
        expect(inscribedOnRecipient.body.items[0].inscriptions.map((i: { id: string }) => i.id)).to.deep.equal([
          confirmed.inscriptionId,
        ]);
      } finally {
        await restartedLoop.stop();
        await restarted.stop();
        platform = restarted;
        platformLoop = restartedLoop;
        wallet = restartedWallet;
        jobs = restartedJobs;
      }
    });
  });

  describe("refusals", () => {
    const valid = () => ({
      project: "launchpad",
      content_type: "application/json",
      action: "LAUNCHPAD_MINT",
      content: '{"p":"service"}',
      recipient: newKey().address,
    });

    async function refused(
      answer: Promise<{ status: number; body: { error: { code: string } } }>,
      status: number,
      code: string,
    ) {
      const before = { mempool: await devnet.rpc<string[]>("getrawmempool"), jobs: jobs.counts() };
      const { status: got, body } = await answer;
      expect(got, JSON.stringify(body)).to.equal(status);
      expect(body.error.code).to.equal(code);
      expect(await devnet.rpc<string[]>("getrawmempool")).to.deep.equal(before.mempool);
      expect(jobs.counts()).to.deep.equal(before.jobs);
    }

    it("refuses an unknown project with 401 and broadcasts nothing", async () => {
      await refused(inscribe({ ...valid(), project: "nobody" }), 401, "UNKNOWN_PROJECT");
    });

    it("refuses a wrong or missing key with 401", async () => {
      await refused(post("/inscribe", valid(), { Authorization: "Bearer ik_other" }), 401, "INVALID_PROJECT_KEY");
      await refused(post("/inscribe", valid()), 401, "MISSING_CREDENTIALS");
    });

    it("authenticates before it reads the body: a malformed or invalid body without a valid key is 401", async () => {
      const raw = await fetch(`${base}/inscribe`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: "{not json",
      });
      expect([raw.status, ((await raw.json()) as any).error.code]).to.deep.equal([401, "MISSING_CREDENTIALS"]);
      expect(raw.headers.get("www-authenticate")).to.equal("Bearer");
      await refused(
        post("/inscribe", { project: "launchpad", content_type: 5 }, { Authorization: "Bearer ik_other" }),
        401,
        "INVALID_PROJECT_KEY",
      );
      await refused(post("/inscribe", { ...valid(), project: "NOT A NAME" }), 401, "MISSING_CREDENTIALS");
    });

    it("refuses a content type that does not match the ACTION's registered type", async () => {
      await refused(inscribe({ ...valid(), content_type: "text/plain;charset=utf-8" }), 400, "CONTENT_TYPE_MISMATCH");
      await refused(inscribe({ ...valid(), action: "NOT_AN_ACTION" }), 400, "UNKNOWN_ACTION");
    });

    it("refuses a payload over the configured limit", async () => {
      await refused(
        inscribe({
          ...valid(),
          content_type: "image/png",
          action: "LIST",
          encoding: "base64",
          content: Buffer.alloc(MAX_PAYLOAD + 1, 7).toString("base64"),
        }),
        400,
        "PAYLOAD_TOO_LARGE",
      );
    });

    it("refuses an invalid recipient address (mainnet address on regtest, garbage)", async () => {
      await refused(inscribe({ ...valid(), recipient: "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L" }), 400, "INVALID_ADDRESS");
      await refused(inscribe({ ...valid(), recipient: "not an address" }), 400, "INVALID_ADDRESS");
    });

    it("refuses unknown fields, bad base64, an empty payload and the Doginals form with an ACTION", async () => {
      await refused(inscribe({ ...valid(), extra: 1 }), 400, "UNKNOWN_FIELDS");
      await refused(
        inscribe({ ...valid(), content_type: "image/png", action: "LIST", encoding: "base64", content: "not base64!" }),
        400,
        "INVALID_CONTENT",
      );
      await refused(inscribe({ ...valid(), content: "" }), 400, "EMPTY_CONTENT");
      await refused(inscribe({ ...valid(), form: "doginals" }), 400, "FORM_HAS_NO_ACTION");
    });

    it("answers 404 for an unknown job and 400 for a malformed id", async () => {
      expect((await get(`/jobs/job_${"0".repeat(24)}`)).body.error.code).to.equal("JOB_NOT_FOUND");
      expect((await get("/jobs/nope")).status).to.equal(400);
    });
  });

  describe("user-signed path", () => {
    let user: TestKey;
    const network = toBitcoinjsNetwork(NETWORKS.regtest);

    const sign = (psbtBase64: string, key: TestKey): string => {
      const psbt = Psbt.fromBase64(psbtBase64, { network });
      const signer = {
        publicKey: key.publicKey,
        sign: (hash: Uint8Array) => secp256k1.sign(hash, key.privateKey, { prehash: false, lowS: true }),
      };
      for (let i = 0; i < psbt.inputCount; i++) psbt.signInput(i, signer);
      return psbt.toBase64();
    };
    const broadcast = async (hex: string) => {
      const answer = await request(`${explorerBase}/tx/broadcast`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ hex }),
      });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      producedHex.add(hex);
      return answer.body.txid as string;
    };

    before(async () => {
      user = newKey();
      for (let i = 0; i < 6; i++) await devnet.rpc("devnet_faucet", [user.address, 50, false]);
      await mine();
    });

    for (const content of contents("user")) {
      it(`prepares, takes the user's signatures and yields ${content.label} on the user's address`, async () => {
        const prepared = await post("/prepare", {
          address: user.address,
          public_key: bytesToHex(user.publicKey),
          content_type: content.content_type,
          ...(content.action ? { action: content.action } : {}),
          content: Buffer.from(content.body).toString("base64"),
          encoding: "base64",
          ...(content.form ? { form: content.form } : {}),
        });
        expect(prepared.status, JSON.stringify(prepared.body)).to.equal(201);
        expect(prepared.body.status).to.equal("awaiting_commit_signature");
        expect(prepared.body.form).to.equal(content.expectForm);
        expect(prepared.body.reveal_count).to.equal(content.expectRevealTxs);
        const committed = await post(`/prepare/${prepared.body.id}/commit`, {
          psbt: sign(prepared.body.commit.psbt, user),
        });
        expect(committed.status, JSON.stringify(committed.body)).to.equal(200);
        expect(await broadcast(committed.body.commit.hex)).to.equal(committed.body.commit.txid);
        let next = committed.body.next_reveal;
        let last;
        while (next) {
          const revealed = await post(`/prepare/${prepared.body.id}/reveal`, { psbt: sign(next.psbt, user) });
          expect(revealed.status, JSON.stringify(revealed.body)).to.equal(200);
          expect(await broadcast(revealed.body.reveal.hex)).to.equal(revealed.body.reveal.txid);
          next = revealed.body.next_reveal;
          last = revealed.body;
        }
        expect(last.status).to.equal("complete");
        expect(last.reveal_txids).to.have.length(content.expectRevealTxs);
        expect(last.transactions).to.have.length(1 + content.expectRevealTxs);
        await mine();
        await checkInExplorer(last.inscription_id, content, user.address);
      });
    }

    it("refuses a PSBT that is not the one it built, a signature by another key, and a step out of order", async () => {
      const prepared = await post("/prepare", {
        address: user.address,
        public_key: bytesToHex(user.publicKey),
        content_type: "text/plain;charset=utf-8",
        content: "checked",
      });
      expect(prepared.status).to.equal(201);
      const other = newKey();
      const forged = Psbt.fromBase64(prepared.body.commit.psbt, { network });
      const otherSignature = new Uint8Array([
        ...secp256k1.sign(new Uint8Array(32).fill(9), other.privateKey, { prehash: false, format: "der", lowS: true }),
        1,
      ]);
      for (let i = 0; i < forged.inputCount; i++)
        forged.updateInput(i, { partialSig: [{ pubkey: other.publicKey, signature: otherSignature }] });
      const wrongSigner = await post(`/prepare/${prepared.body.id}/commit`, { psbt: forged.toBase64() });
      expect(wrongSigner.status).to.equal(400);
      expect(wrongSigner.body.error.code).to.equal("WRONG_SIGNER");
      const badSignature = Psbt.fromBase64(prepared.body.commit.psbt, { network });
      for (let i = 0; i < badSignature.inputCount; i++)
        badSignature.updateInput(i, { partialSig: [{ pubkey: user.publicKey, signature: otherSignature }] });
      const invalid = await post(`/prepare/${prepared.body.id}/commit`, { psbt: badSignature.toBase64() });
      expect(invalid.body.error.code).to.equal("INVALID_SIGNATURE");
      const foreign = new Psbt({ network });
      foreign.addInput({ hash: "11".repeat(32), index: 0 });
      foreign.addOutput({ script: user.script, value: 1_000_000n });
      const mismatch = await post(`/prepare/${prepared.body.id}/commit`, { psbt: foreign.toBase64() });
      expect(mismatch.status).to.equal(400);
      expect(mismatch.body.error.code).to.equal("PSBT_MISMATCH");
      const unsigned = await post(`/prepare/${prepared.body.id}/commit`, { psbt: prepared.body.commit.psbt });
      expect(unsigned.body.error.code).to.equal("MISSING_SIGNATURE");
      const early = await post(`/prepare/${prepared.body.id}/reveal`, { psbt: prepared.body.commit.psbt });
      expect(early.status).to.equal(409);
      expect(early.body.error.code).to.equal("WRONG_STEP");
      const garbage = await post(`/prepare/${prepared.body.id}/commit`, { psbt: "bm90IGEgcHNidA==" });
      expect(garbage.body.error.code).to.equal("INVALID_PSBT");
    });

    it("refuses a public key that is not the address's, and an address without confirmed coins", async () => {
      const stranger = newKey();
      const mismatch = await post("/prepare", {
        address: user.address,
        public_key: bytesToHex(stranger.publicKey),
        content_type: "text/plain",
        content: "x",
      });
      expect(mismatch.status).to.equal(400);
      expect(mismatch.body.error.code).to.equal("KEY_ADDRESS_MISMATCH");
      const poor = await post("/prepare", {
        address: stranger.address,
        public_key: bytesToHex(stranger.publicKey),
        content_type: "text/plain",
        content: "x",
      });
      expect(poor.status).to.equal(422);
      expect(poor.body.error.code).to.equal("INSUFFICIENT_FUNDS");
    });
  });

  describe("independent check", () => {
    it("makes commits and reveals that bitcore-lib-doge decodes and whose input scripts its interpreter accepts", async () => {
      // Everything the platform and user-signed tests above produced (mocha runs this suite last).
      expect(producedHex.size).to.be.greaterThan(40);
      for (const hex of producedHex) await bitcoreVerifies(hex);
    });
  });
});
