/**
 * The relayer end to end: jobs paid on the L2 (DogeInscriber and DogeAnchor on the in-process
 * Hardhat network, wired as deploy/deploy.ts wires them), the inscriber service in process with its
 * own funded hot wallet, the relayer's own hot wallet for the OP_RETURNs, three attesters each over
 * its own index of the devnet, and the explorer (in process, over a fourth index) as the judge of
 * what landed on the base chain. Blocks are mined by the test, and each relayer pass is `runOnce()`.
 */
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Server } from "node:http";
import { time } from "@nomicfoundation/hardhat-network-helpers";
import { ethers } from "hardhat";
import createClient from "openapi-fetch";
import { Registry } from "prom-client";
import type { paths } from "../../shared/openapi/relayer";
import type { HardhatEthersSigner } from "@nomicfoundation/hardhat-ethers/signers";
import { sha256 } from "ethers";
import type { Contract, ContractTransactionResponse } from "ethers";
import { DogecoinRpcClient } from "../../src/chain/dogecoin-rpc";
import { NETWORKS, bytesToHex } from "../../src/doge";
import { factFromJson } from "../../src/attester/wire";
import { FACT_TYPE_KEYS, ZERO_KEY } from "../../src/facts";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { IndexHistory } from "../../src/indexer/read/as-of-height";
import { IndexQueries } from "../../src/indexer/queries";
import { RpcChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { createExplorerApp } from "../../src/services/explorer/app";
import { createInscriberApp, sha256Hex } from "../../src/services/inscriber/app";
import { PlatformInscriber } from "../../src/services/inscriber/platform";
import { JobStore, openInscriberDatabase } from "../../src/services/inscriber/store";
import { UserSignedInscriber } from "../../src/services/inscriber/user-signed";
import { AttesterPanel } from "../../src/services/attest-api/panel";
import { HotWallet, indexNodeChain, openWalletDatabase } from "../../src/wallet";
import { Relayer, openRelayerDatabase, startRelayerServer } from "../../src/relayer";
import { undocumentedRoutes } from "../../src/services/http/openapi";
import type { RelayerAction, RelayerJob, RelayerJobStatus } from "../../src/relayer";
import type { Sqlite } from "../../src/db/sqlite";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { TestKey, newKey } from "../helpers/keys";
import { ATTESTERS } from "../contracts/attestation-fixture";
import { RunningAttester, blockRpc, deployContracts, startAttester } from "../attester/helpers";
import { until } from "../helpers/wait";
import { expectPublished } from "../helpers/openapi-publish";
import { nodeRawTransactions } from "../../src/services/user-psbt";
import { Loop, runEvery } from "../../src/ops/loop";
import { listenLocal } from "../helpers/listen";

const FEE_RATE = 1_000_000n;
const POSTAGE = 1_000_000n;
const PROJECT = "relayer";
const PROJECT_KEY = "ik_relayer_test_key";
const utf8 = (text: string) => new TextEncoder().encode(text);

interface L2Job {
  jobId: string;
  resultHash: string;
  feeWei: bigint;
}

describe("relayer", function () {
  this.timeout(300_000);
  let devnet: RunningDevnet;
  let client: DogecoinRpcClient;
  const indexers: Indexer[] = [];
  let explorerQueries: IndexQueries;
  const attesters: RunningAttester[] = [];
  let explorer: Server;
  let explorerBase: string;
  let inscriberServer: Server;
  let inscriberUrl: string;
  let platform: PlatformInscriber;
  let platformLoop: Loop;
  let inscriberJobs: JobStore;
  let inscriberWallet: HotWallet;
  let relayerWallet: HotWallet;
  let attestation: Contract;
  let inscriber: Contract;
  let anchor: Contract;
  let operator: HardhatEthersSigner;
  let relayerSigner: HardhatEthersSigner;
  let requester: HardhatEthersSigner;
  let panel: AttesterPanel;
  let fromBlock: number;
  let dir: string;
  let dbFile: string;
  const openDbs: Sqlite[] = [];
  const events: { level: string; event: string; fields: Record<string, unknown> }[] = [];
  const miner = newKey();

  const request = async (url: string) => {
    const response = await fetch(url);
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  const explorerGet = (p: string) => request(`${explorerBase}${p}`);

  async function mine(blocks = 1): Promise<void> {
    await devnet.rpc("generatetoaddress", [blocks, miner.address]);
    for (const indexer of indexers) await indexer.syncOnce();
  }
  const tip = () => indexers[3].indexedHeight();

  function makeRelayer(afterAction?: (job: RelayerJob, action: RelayerAction) => void): {
    relayer: Relayer;
    db: Sqlite;
  } {
    const db = openRelayerDatabase(dbFile);
    openDbs.push(db);
    const relayer = new Relayer({
      db,
      signer: relayerSigner,
      panel,
      wallet: relayerWallet,
      fromBlock,
      addresses: {
        attestation: String(attestation.target),
        inscriber: String(inscriber.target),
        anchor: String(anchor.target),
      },
      inscriber: { url: inscriberUrl, project: PROJECT, key: PROJECT_KEY },
      retryBaseMs: 0,
      retryMaxMs: 0,
      log: (level, event, fields) => events.push({ level, event, fields }),
      afterAction,
    });
    return { relayer, db };
  }

  const opened = async (service: Contract, tx: ContractTransactionResponse, eventName: string): Promise<L2Job> => {
    const mined = await tx.wait();
    for (const log of mined!.logs) {
      const parsed = service.interface.parseLog(log);
      if (parsed?.name === eventName)
        return { jobId: parsed.args.jobId, resultHash: parsed.args.resultHash, feeWei: parsed.args.feeWei };
    }
    throw new Error(`no ${eventName}`);
  };
  const requestInscription = async (contentType: string, action: string, body: Uint8Array, recipient: string) =>
    opened(
      inscriber,
      await (inscriber.connect(requester) as Contract).requestInscription(contentType, action, body, recipient, {
        value: await inscriber.fee(),
      }),
      "InscriptionRequested",
    );
  const requestAnchor = async (payload: Uint8Array) =>
    opened(
      anchor,
      await (anchor.connect(requester) as Contract).requestAnchor(payload, { value: await anchor.fee() }),
      "AnchorRequested",
    );

  const statusOf = (relayer: Relayer, job: L2Job): RelayerJobStatus | undefined => relayer.store.get(job.jobId)?.status;

  /** Waits until the inscriber has broadcast the reveal of the relayer's job for `job`. */
  async function inscriberRevealed(relayer: Relayer, job: L2Job): Promise<void> {
    const id = relayer.store.get(job.jobId)!.workRef!;
    await until(`inscriber job ${id} to reveal`, () => {
      const row = inscriberJobs.get(id)!;
      if (row.status === "failed") throw new Error(`inscriber job failed: ${row.errorCode} ${row.errorMessage}`);
      return row.status === "revealed" || row.status === "confirmed";
    });
  }

  /** Mines a block at a time and runs the relayer until every job is settled; returns the tip at each job's settlement. */
  async function driveUntilSettled(relayer: Relayer, jobs: L2Job[], maxBlocks = 20): Promise<Map<string, number>> {
    const settledAt = new Map<string, number>();
    for (let i = 0; i <= maxBlocks; i++) {
      await platform.checkConfirmations();
      await relayer.runOnce();
      for (const job of jobs)
        if (!settledAt.has(job.jobId) && statusOf(relayer, job) === "settled") settledAt.set(job.jobId, tip());
      if (settledAt.size === jobs.length) return settledAt;
      await mine();
    }
    const states = jobs.map((job) => relayer.store.get(job.jobId));
    throw new Error(
      `not settled after ${maxBlocks} blocks: ${JSON.stringify(states.map((s) => [s?.status, s?.lastErrorCode, s?.lastError]))}`,
    );
  }

  async function settleEvents(service: Contract, jobId: string): Promise<number> {
    return (await service.queryFilter(service.filters.JobSettled(jobId), fromBlock, "latest")).length;
  }

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "relayer-test-"));
    dbFile = path.join(dir, "relayer.sqlite");
    devnet = await startDevnet();
    client = new DogecoinRpcClient({ url: devnet.url });
    const histories: IndexHistory[] = [];
    for (let i = 0; i < 4; i++) {
      const db = openIndexerDatabase(":memory:");
      indexers.push(
        new Indexer({
          store: new IndexerStore(db),
          source: new RpcChainSource(i === 3 ? client : blockRpc(devnet)),
          network: NETWORKS.regtest,
        }),
      );
      histories.push(new IndexHistory(db));
      if (i === 3) explorerQueries = new IndexQueries(db);
    }
    const explorerApp = createExplorerApp({
      queries: explorerQueries,
      network: NETWORKS.regtest,
      node: client,
      statusCacheMs: 0,
    });
    ({ server: explorer } = await listenLocal(explorerApp));
    explorerBase = `http://127.0.0.1:${(explorer.address() as { port: number }).port}/api`;

    const walletOf = (key: TestKey, file: string) =>
      new HotWallet({
        db: openWalletDatabase(path.join(dir, file)),
        key: { privateKey: key.privateKey, publicKey: key.publicKey, address: key.address, script: key.script },
        chain: indexNodeChain(explorerQueries, client),
        network: NETWORKS.regtest,
        feeRateKoinuPerKb: FEE_RATE,
      });
    inscriberWallet = walletOf(newKey(), "inscriber-wallet.sqlite");
    relayerWallet = walletOf(newKey(), "relayer-wallet.sqlite");
    for (let i = 0; i < 10; i++) {
      await devnet.rpc("devnet_faucet", [inscriberWallet.address, 100, false]);
      await devnet.rpc("devnet_faucet", [relayerWallet.address, 100, false]);
    }
    await mine();
    await inscriberWallet.sync();
    await relayerWallet.sync();

    // The inscriber service, with a project for the relayer.
    const inscriberDb = openInscriberDatabase(path.join(dir, "inscriber.sqlite"));
    inscriberJobs = new JobStore(inscriberDb);
    platform = new PlatformInscriber({
      store: inscriberJobs,
      wallet: inscriberWallet,
      network: NETWORKS.regtest,
      postageKoinu: POSTAGE,
      feeRateKoinuPerKb: FEE_RATE,
    });
    platformLoop = runEvery("inscriber_worker", 50, () => platform.runOnce());
    const userSigned = new UserSignedInscriber({
      db: inscriberDb,
      queries: explorerQueries,
      network: NETWORKS.regtest,
      feeRateKoinuPerKb: FEE_RATE,
      postageKoinu: POSTAGE,
      rawTransactions: nodeRawTransactions(client),
    });
    const inscriberApp = createInscriberApp({
      network: NETWORKS.regtest,
      projects: new Map([[PROJECT, sha256Hex(PROJECT_KEY)]]),
      platform,
      jobs: inscriberJobs,
      userSigned,
      maxPayloadBytes: 16_384,
      feeRateKoinuPerKb: FEE_RATE,
      postageKoinu: POSTAGE,
    });
    ({ server: inscriberServer } = await listenLocal(inscriberApp));
    inscriberUrl = `http://127.0.0.1:${(inscriberServer.address() as { port: number }).port}`;

    // The L2: the contract set, and the attesters over their own indexes.
    fromBlock = await ethers.provider.getBlockNumber();
    ({ attestation, inscriber, anchor } = await deployContracts(ATTESTERS));
    const signers = await ethers.getSigners();
    operator = signers[0];
    relayerSigner = signers[7];
    requester = signers[8];
    for (let i = 0; i < 3; i++) {
      attesters.push(
        await startAttester({
          name: `attester-${i + 1}`,
          history: histories[i],
          signer: ATTESTERS[i],
          attestationAddress: String(attestation.target),
          chainId: (await ethers.provider.getNetwork()).chainId,
        }),
      );
    }
    // No caching of rounds or answers: each pass sees the blocks the test just mined.
    panel = new AttesterPanel({
      attesters: attesters.map((a) => a.url),
      timeoutMs: 5000,
      infoCacheMs: 0,
      answerCacheMs: 0,
    });
    await mine(6);
  });

  after(async () => {
    await platformLoop?.stop();
    await platform?.stop();
    inscriberServer?.close();
    explorer?.close();
    for (const attester of attesters) await attester.close();
    for (const db of openDbs) if (db.open) db.close();
    await devnet?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("inscribes and anchors paid jobs on the base chain and settles them on the L2 once 6 deep, crediting the operator", async () => {
    const { relayer } = makeRelayer();
    const recipient = newKey();
    const image = { contentType: "image/png", action: "LIST", body: utf8("a picture the L2 paid for") };
    const payload = utf8("anchored by the relayer");
    const creditsBefore = [
      await inscriber.withdrawableOf(operator.address),
      await anchor.withdrawableOf(operator.address),
    ];
    const insJob = await requestInscription(image.contentType, image.action, image.body, recipient.address);
    const ancJob = await requestAnchor(payload);
    // DRC-20 plain text goes out in the Doginals form; its result hash is still the envelopeHash of (content type, no ACTION, body).
    const drc20Body = utf8(JSON.stringify({ p: "drc-20", op: "deploy", tick: "rlyr", max: "1000", lim: "10" }));
    const drc20Job = await requestInscription("text/plain;charset=utf-8", "", drc20Body, recipient.address);

    await relayer.runOnce();
    expect(statusOf(relayer, insJob)).to.equal("submitted");
    expect(statusOf(relayer, drc20Job)).to.equal("submitted");
    expect(statusOf(relayer, ancJob)).to.equal("l1_done");
    await inscriberRevealed(relayer, insJob);
    await inscriberRevealed(relayer, drc20Job);
    const settledAt = await driveUntilSettled(relayer, [insJob, ancJob, drc20Job]);
    const drc20 = inscriberJobs.get(relayer.store.get(drc20Job.jobId)!.workRef!)!;
    expect(drc20.form).to.equal("doginals");
    const drc20Inscription = await explorerGet(`/explorer/inscription/${drc20.inscriptionId}`);
    expect(drc20Inscription.body).to.deep.include({
      form: "doginals",
      owner_address: recipient.address,
      envelope_hash: drc20Job.resultHash.slice(2),
    });
    expect((await inscriber.jobOf(drc20Job.jobId)).status).to.equal(2n);

    // The inscription: the job's recipient owns it and its envelope hash is the job's result hash.
    const ins = relayer.store.get(insJob.jobId)!;
    const inscriberJob = inscriberJobs.get(ins.workRef!)!;
    expect(inscriberJob.idempotencyKey).to.equal(insJob.jobId);
    const inscription = await explorerGet(`/explorer/inscription/${inscriberJob.inscriptionId}`);
    expect(inscription.status, JSON.stringify(inscription.body)).to.equal(200);
    expect(inscription.body.owner_address).to.equal(recipient.address);
    expect(`0x${inscription.body.envelope_hash}`).to.equal(insJob.resultHash);
    expect(inscription.body.content_type).to.equal("image/png");
    expect(inscription.body.action).to.equal("LIST");
    expect(ins.l1Txid).to.equal(inscription.body.reveal_txid);

    // The OP_RETURN: SHA-256 of its payload is the job's result hash.
    const anc = relayer.store.get(ancJob.jobId)!;
    const opReturn = await explorerGet(`/explorer/opreturn/tx/${anc.l1Txid}`);
    expect(opReturn.status, JSON.stringify(opReturn.body)).to.equal(200);
    expect(opReturn.body.items).to.have.length(1);
    expect(`0x${opReturn.body.items[0].payload_sha256}`).to.equal(ancJob.resultHash);
    expect(opReturn.body.items[0].payload_hex).to.equal(bytesToHex(payload));
    expect(ancJob.resultHash).to.equal(sha256(payload));

    // Settled on the L2, 6 deep: l1Tip >= l1Height + 5 when it happened, the fee credited to the operator.
    for (const [service, job, row] of [
      [inscriber, insJob, ins],
      [anchor, ancJob, anc],
    ] as const) {
      const stored = await service.jobOf(job.jobId);
      expect(stored.status).to.equal(2n);
      expect(stored.l1Txid).to.equal(`0x${row.l1Txid}`);
      expect(Number(stored.l1Height)).to.equal(row.l1Height);
      expect(settledAt.get(job.jobId)!).to.be.greaterThanOrEqual(row.l1Height! + 5);
      expect(await attestation.l1Tip()).to.be.greaterThanOrEqual(stored.l1Height + 5n);
      expect(row.settledByUs).to.equal(true);
      expect(await settleEvents(service, job.jobId)).to.equal(1);
    }
    const inscriptionBlock = await explorerGet(`/tx/${ins.l1Txid}`);
    expect(inscriptionBlock.body.block.height).to.equal(ins.l1Height);
    expect(await inscriber.withdrawableOf(operator.address)).to.equal(
      creditsBefore[0] + insJob.feeWei + drc20Job.feeWei,
    );
    expect(await anchor.withdrawableOf(operator.address)).to.equal(creditsBefore[1] + ancJob.feeWei);
    const status = relayer.status();
    expect(status.jobs.settled).to.be.greaterThanOrEqual(2);
    expect(status.cursor!.block).to.equal(status.l2_head);
    expect(events.some((e) => e.event === "relayer_job_settled" && e.fields.job_id === insJob.jobId)).to.equal(true);
  });

  it("completes a job once across restarts: one inscriber job per L2 job, one settle, no second OP_RETURN", async () => {
    const recipient = newKey();
    const payload = utf8("anchored across restarts");
    const insJob = await requestInscription(
      "text/plain;charset=utf-8",
      "",
      utf8("inscribed across restarts"),
      recipient.address,
    );
    const ancJob = await requestAnchor(payload);

    // First run: crashes right after the inscriber took the job and right after the wallet signed the
    // anchor, before either was recorded (as a kill -9 there would).
    const first = makeRelayer((_job, action) => {
      if (action === "inscription_submitted" || action === "anchor_funded")
        throw new Error(`simulated crash after ${action}`);
    });
    await first.relayer.runOnce();
    expect(statusOf(first.relayer, insJob)).to.equal("seen");
    expect(first.relayer.store.get(ancJob.jobId)!.status).to.equal("seen");
    expect(relayerWallet.txsOf(ancJob.jobId)).to.have.length(1);
    expect(relayerWallet.txOf(ancJob.jobId, "anchor")!.state).to.equal("signed");
    await first.relayer.stop();
    first.db.close();

    // Second run, over the same database: the same inscriber job and the same signed anchor come back.
    const second = makeRelayer();
    await second.relayer.runOnce();
    expect(statusOf(second.relayer, insJob)).to.equal("submitted");
    expect(statusOf(second.relayer, ancJob)).to.equal("l1_done");
    await inscriberRevealed(second.relayer, insJob);
    await mine();
    await platform.checkConfirmations();
    await second.relayer.runOnce();
    expect(statusOf(second.relayer, insJob)).to.equal("l1_done");
    await second.relayer.stop();
    second.db.close();

    // Third run: crashes right after sending settle, before recording it.
    const third = makeRelayer((_job, action) => {
      if (action === "settle_sent") throw new Error("simulated crash after settle was sent");
    });
    for (
      let i = 0;
      i < 20 && (await settleEvents(inscriber, insJob.jobId)) + (await settleEvents(anchor, ancJob.jobId)) < 2;
      i++
    ) {
      await mine();
      await platform.checkConfirmations();
      await third.relayer.runOnce();
    }
    expect(statusOf(third.relayer, insJob)).to.equal("l1_done");
    expect(statusOf(third.relayer, ancJob)).to.equal("l1_done");
    await third.relayer.stop();
    third.db.close();

    // Fourth run: finds both settled on the L2 and sends nothing.
    const fourth = makeRelayer();
    const nonce = await ethers.provider.getTransactionCount(relayerSigner.address);
    await fourth.relayer.runOnce();
    expect(statusOf(fourth.relayer, insJob)).to.equal("settled");
    expect(statusOf(fourth.relayer, ancJob)).to.equal("settled");
    expect(await ethers.provider.getTransactionCount(relayerSigner.address)).to.equal(nonce);

    const forJob = [
      ...inscriberJobs.db.prepare("SELECT id FROM jobs WHERE idempotency_key LIKE ?").all(`${insJob.jobId}%`),
    ];
    expect(forJob).to.have.length(1);
    expect(await settleEvents(inscriber, insJob.jobId)).to.equal(1);
    expect(await settleEvents(anchor, ancJob.jobId)).to.equal(1);
    expect(relayerWallet.txsOf(ancJob.jobId)).to.have.length(1);
    const anchored = await explorerGet(`/explorer/opreturn/sha256/${ancJob.resultHash.slice(2)}`);
    expect(anchored.body.matches).to.have.length(1);
    const inscription = await explorerGet(
      `/explorer/inscription/${inscriberJobs.get(fourth.relayer.store.get(insJob.jobId)!.workRef!)!.inscriptionId}`,
    );
    expect(inscription.body.owner_address).to.equal(recipient.address);
    expect(`0x${inscription.body.envelope_hash}`).to.equal(insJob.resultHash);
  });

  it("does not settle while a base-chain reorg leaves the transaction fewer than 6 deep, then settles once it is 6 deep again", async () => {
    const { relayer } = makeRelayer();
    const ancJob = await requestAnchor(utf8("anchored under a reorg"));
    await relayer.runOnce();
    const l1Txid = relayer.store.get(ancJob.jobId)!.l1Txid!;
    await mine();
    const height = tip();
    expect((await explorerGet(`/tx/${l1Txid}`)).body.block.height).to.equal(height);
    await relayer.runOnce();
    expect(relayer.store.get(ancJob.jobId)!.lastErrorCode).to.equal("NOT_DEEP_ENOUGH");

    // 10 blocks on top, and an attested tip high enough that only the depth on the attesters' own
    // indexes can hold settlement back.
    await mine(10);
    const stored = await attestation.factOf(FACT_TYPE_KEYS.L1_TIP, ZERO_KEY, ZERO_KEY);
    const tipFact = await panel.fact("L1_TIP", {}, { notBefore: Number(stored.attestedAt) + 1 });
    await (await attestation.submitFact(factFromJson(tipFact.fact), tipFact.signatures)).wait();
    expect(await attestation.l1Tip()).to.be.greaterThanOrEqual(BigInt(height + 5));

    // Replace everything from height + 3: the transaction's block stays, 3 deep on the new chain.
    await devnet.rpc("invalidateblock", [await devnet.rpc<string>("getblockhash", [height + 3])]);
    for (const indexer of indexers) await indexer.syncOnce();
    expect(tip()).to.equal(height + 2);
    for (const extra of [0, 1, 1]) {
      if (extra) await mine(extra);
      await relayer.runOnce();
      const row = relayer.store.get(ancJob.jobId)!;
      expect(row.status, `at tip ${tip()}`).to.equal("l1_done");
      expect(row.lastErrorCode).to.equal("NOT_DEEP_ENOUGH");
      expect((await anchor.jobOf(ancJob.jobId)).status).to.equal(1n);
    }
    expect(tip()).to.equal(height + 4);
    await mine();
    await relayer.runOnce();
    const settled = relayer.store.get(ancJob.jobId)!;
    expect(settled.status).to.equal("settled");
    expect(settled.l1Height).to.equal(height);
    const onChain = await anchor.jobOf(ancJob.jobId);
    expect(onChain.status).to.equal(2n);
    expect(onChain.l1Height).to.equal(BigInt(height));
    expect(onChain.l1Txid).to.equal(`0x${l1Txid}`);
    expect(await settleEvents(anchor, ancJob.jobId)).to.equal(1);
  });

  it("marks content the inscriber refuses as failed and leaves it for the requester's refund after the deadline", async () => {
    const { relayer } = makeRelayer();
    const mismatch = await requestInscription("image/png", "LAUNCHPAD_MINT", utf8("{}"), newKey().address);
    const mainnetRecipient = await requestInscription(
      "text/plain;charset=utf-8",
      "",
      utf8("to the wrong network"),
      "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L",
    );
    await relayer.runOnce();
    for (const [job, code] of [
      [mismatch, "CONTENT_TYPE_MISMATCH"],
      [mainnetRecipient, "INVALID_ADDRESS"],
    ] as const) {
      const row = relayer.store.get(job.jobId)!;
      expect(row.status).to.equal("failed_permanently");
      expect(row.lastErrorCode).to.equal(code);
      expect(relayer.status().attention.failed_permanently.map((j) => j.job_id)).to.include(job.jobId);
      expect(
        events.some(
          (e) =>
            e.event === "relayer_job_failed_permanently" &&
            e.fields.job_id === job.jobId &&
            e.level === "error" &&
            e.fields.left_for_refund,
        ),
      ).to.equal(true);
    }
    expect(
      inscriberJobs.db
        .prepare("SELECT COUNT(*) AS n FROM jobs WHERE idempotency_key IN (?, ?)")
        .get(mismatch.jobId, mainnetRecipient.jobId),
    ).to.deep.equal({ n: 0 });

    // A job first seen after its deadline is not started at all.
    const late = await requestAnchor(utf8("requested while the relayer was down"));
    await time.increase(Number(await anchor.deadlineWindow()) + 1);
    await relayer.runOnce();
    expect(relayer.store.get(late.jobId)!.status).to.equal("expired");
    expect(relayer.store.get(late.jobId)!.lastErrorCode).to.equal("DEADLINE_PASSED");
    expect(relayerWallet.txsOf(late.jobId)).to.have.length(0);

    for (const [service, job] of [
      [inscriber, mismatch],
      [inscriber, mainnetRecipient],
      [anchor, late],
    ] as const) {
      const before = await ethers.provider.getBalance(requester.address);
      const receipt = await (await (service.connect(requester) as Contract).refund(job.jobId)).wait();
      const gas = BigInt(receipt!.gasUsed) * BigInt(receipt!.gasPrice);
      expect(await ethers.provider.getBalance(requester.address)).to.equal(before + job.feeWei - gas);
      expect((await service.jobOf(job.jobId)).status).to.equal(3n);
    }
    await relayer.runOnce();
    expect(relayer.store.get(mismatch.jobId)!.status).to.equal("failed_permanently");
    expect(relayer.store.get(late.jobId)!.status).to.equal("expired");
  });

  it("serves its status port: every route documented, its OpenAPI document published, GET only", async () => {
    // Over the jobs the tests above left: settled, failed, expired.
    const { relayer } = makeRelayer();
    const server = await startRelayerServer({ relayer, registry: new Registry(), host: "127.0.0.1", port: 0 });
    try {
      expect(undocumentedRoutes(server.app)).to.deep.equal([]);
      const document = await (await fetch(`${server.url}/openapi.json`)).json();
      expect(document.openapi).to.equal("3.1.0");
      await expectPublished("relayer", document);
      const page = await fetch(`${server.url}/docs`);
      expect(page.headers.get("content-type")).to.match(/^text\/html/);
      expect(await page.text()).to.include("docs/assets/swagger-ui-bundle.js");
      const script = await fetch(`${server.url}/docs/assets/swagger-ui-bundle.js`);
      expect(script.status).to.equal(200);
      await script.arrayBuffer();

      // A client generated from the published document (shared/openapi/relayer.d.ts).
      const client = createClient<paths>({ baseUrl: server.url });
      const { data: status, response } = await client.GET("/v1/status");
      expect(response.status).to.equal(200);
      expect(response.headers.get("cache-control")).to.equal("no-store");
      expect(status!.jobs.settled).to.be.greaterThanOrEqual(2);
      expect(status!.attention.failed_permanently.map((job) => job.last_error?.code)).to.include(
        "CONTENT_TYPE_MISMATCH",
      );
      expect(status!.attention.expired.length).to.be.greaterThanOrEqual(1);
      // No scan has run in this relayer: its health says so.
      const health = await client.GET("/health");
      expect(health.response.status).to.equal(503);
      expect(health.error).to.deep.include({ ok: false, name: "relayer" });
      expect((await fetch(`${server.url}/metrics`)).status).to.equal(200);
      const posted = await fetch(`${server.url}/v1/status`, { method: "POST" });
      expect([posted.status, ((await posted.json()) as { error: { code: string } }).error.code]).to.deep.equal([
        405,
        "METHOD_NOT_ALLOWED",
      ]);
      const unknown = await fetch(`${server.url}/v2/status`);
      expect([unknown.status, ((await unknown.json()) as { error: { code: string } }).error.code]).to.deep.equal([
        404,
        "NOT_FOUND",
      ]);
    } finally {
      await server.close();
    }
  });
});
