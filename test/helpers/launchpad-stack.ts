/**
 * The launchpad's end-to-end stack for tests: a devnet, an in-memory index of it, the real
 * inscriber (as test/services/inscriber.test.ts builds it, with its own funded hot wallet) served
 * over HTTP and reached by InscriberClient, and the launchpad app (no wallet of its own: it
 * refunds nothing). Free listings take LAUNCHPAD_OPERATOR_KEY; the per-IP limits are off unless a
 * test sets them, since every test client is 127.0.0.1. The mint-path tests and the browser tests
 * share it.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DogecoinRpcClient } from "../../src/chain/dogecoin-rpc";
import { NETWORKS, signMessage } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { IndexQueries } from "../../src/indexer/queries";
import { RpcChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { createInscriberApp, sha256Hex } from "../../src/services/inscriber/app";
import { PlatformInscriber } from "../../src/services/inscriber/platform";
import { JobStore, openInscriberDatabase } from "../../src/services/inscriber/store";
import { UserSignedInscriber } from "../../src/services/inscriber/user-signed";
import {
  LaunchpadApp,
  LaunchpadOptions,
  createLaunchpadApp,
  openLaunchpadDatabase,
} from "../../src/services/launchpad";
import { InscriberClient } from "../../src/services/inscriber/client";
import { HotWallet, indexNodeChain, openWalletDatabase } from "../../src/wallet";
import { RunningDevnet, startDevnet } from "./devnet";
import { TestKey, newKey } from "./keys";
import { until } from "./wait";
import { nodeRawTransactions } from "../../src/services/user-psbt";
import { jsonRequest } from "./http";
import { Loop, runEvery } from "../../src/ops/loop";
import { listenLocal } from "./listen";

export const STACK_FEE_RATE = 1_000_000n;
export const STACK_POSTAGE = 1_000_000n;
export const LAUNCHPAD_PROJECT_KEY = "ik_test_launchpad_key";
/** The launchpad operator key free listings need in X-Operator-Key. */
export const LAUNCHPAD_OPERATOR_KEY = "lk_test_operator_key";

export interface Answer {
  status: number;
  body: any;
}

export interface LaunchpadStack {
  devnet: RunningDevnet;
  client: DogecoinRpcClient;
  indexer: Indexer;
  indexDb: ReturnType<typeof openIndexerDatabase>;
  queries: IndexQueries;
  platform: PlatformInscriber;
  /** The inscriber's job store (what `GET /jobs/:id` reads). */
  jobs: JobStore;
  inscriberBase: string;
  app: LaunchpadApp;
  /** The launchpad's origin (API under /api). */
  base: string;
  dir: string;
  miner: TestKey;
  /** Seconds added to the launchpad's clock (reservation expiry tests). */
  clockOffset: number;
  /** Runs the launchpad's mint worker every `ms` as the daemon does (stopped by `stop()`). */
  runMints(ms: number): void;
  /** A JSON call to the launchpad's API; `operator` sends the operator key (free listings). */
  call(method: string, p: string, options?: { token?: string; body?: unknown; operator?: boolean }): Promise<Answer>;
  signIn(key: TestKey): Promise<string>;
  /** Mines one block and indexes it. */
  mine(): Promise<void>;
  /** Lets the inscriber reveal job `id`, mines it, and waits until the inscriber calls it confirmed. */
  confirmInscriberJob(id: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `launchpad`: extra options of the launchpad app, or a function making them from the stack built
 * so far (the devnet, the index and the inscriber; e.g. an explorer app over the same index).
 */
export async function startLaunchpadStack(
  options: {
    launchpad?: Partial<LaunchpadOptions> | ((stack: LaunchpadStack) => Promise<Partial<LaunchpadOptions>>);
  } = {},
): Promise<LaunchpadStack> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "launchpad-stack-"));
  const devnet = await startDevnet();
  const client = new DogecoinRpcClient({ url: devnet.url });
  const indexDb = openIndexerDatabase(":memory:");
  const indexer = new Indexer({
    store: new IndexerStore(indexDb),
    source: new RpcChainSource(client),
    network: NETWORKS.regtest,
  });
  const queries = new IndexQueries(indexDb);
  const miner = newKey();
  const stack = { devnet, client, indexer, indexDb, queries, dir, miner, clockOffset: 0 } as LaunchpadStack;
  stack.mine = async () => {
    await devnet.rpc("generatetoaddress", [1, miner.address]);
    await indexer.syncOnce();
  };
  stack.call = async (method, p, callOptions = {}) => {
    if (!callOptions.operator) return jsonRequest(`${stack.base}/api${p}`, method, callOptions);
    const response = await fetch(`${stack.base}/api${p}`, {
      method,
      headers: {
        "X-Operator-Key": LAUNCHPAD_OPERATOR_KEY,
        ...(callOptions.body !== undefined ? { "Content-Type": "application/json" } : {}),
        ...(callOptions.token ? { Authorization: `Bearer ${callOptions.token}` } : {}),
      },
      body: callOptions.body !== undefined ? JSON.stringify(callOptions.body) : undefined,
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  stack.signIn = async (key) => {
    const { challenge } = (await stack.call("GET", `/session/challenge?address=${key.address}`)).body;
    return (
      await stack.call("POST", "/session", {
        body: { address: key.address, challenge, signature: signMessage(challenge, key.privateKey) },
      })
    ).body.token;
  };

  const inscriberKey = newKey();
  const inscriberWallet = new HotWallet({
    db: openWalletDatabase(path.join(dir, "inscriber-wallet.sqlite")),
    key: inscriberKey,
    chain: indexNodeChain(queries, client),
    network: NETWORKS.regtest,
    feeRateKoinuPerKb: STACK_FEE_RATE,
  });
  for (let i = 0; i < 10; i++) await devnet.rpc("devnet_faucet", [inscriberKey.address, 100, false]);
  await stack.mine();
  await inscriberWallet.sync();

  const db = openInscriberDatabase(path.join(dir, "inscriber.sqlite"));
  const jobs = new JobStore(db);
  const platform = new PlatformInscriber({
    store: jobs,
    wallet: inscriberWallet,
    network: NETWORKS.regtest,
    postageKoinu: STACK_POSTAGE,
    feeRateKoinuPerKb: STACK_FEE_RATE,
  });
  const platformLoop = runEvery("inscriber_worker", 50, () => platform.runOnce());
  stack.platform = platform;
  stack.jobs = jobs;
  const userSigned = new UserSignedInscriber({
    db,
    queries,
    network: NETWORKS.regtest,
    feeRateKoinuPerKb: STACK_FEE_RATE,
    postageKoinu: STACK_POSTAGE,
    rawTransactions: nodeRawTransactions(client),
  });
  const inscriberApp = createInscriberApp({
    network: NETWORKS.regtest,
    projects: new Map([["launchpad", sha256Hex(LAUNCHPAD_PROJECT_KEY)]]),
    platform,
    jobs,
    userSigned,
    maxPayloadBytes: 16_384,
    feeRateKoinuPerKb: STACK_FEE_RATE,
    postageKoinu: STACK_POSTAGE,
  });
  const { server: inscriberServer } = await listenLocal(inscriberApp);
  stack.inscriberBase = `http://127.0.0.1:${(inscriberServer.address() as { port: number }).port}`;
  stack.confirmInscriberJob = async (id) => {
    const job = async () => (await (await fetch(`${stack.inscriberBase}/jobs/${id}`)).json()) as any;
    await until(`job ${id} revealed`, async () => {
      const body = await job();
      if (body.status === "failed") throw new Error(`job ${id} failed: ${JSON.stringify(body.error)}`);
      return ["revealed", "confirmed"].includes(body.status);
    });
    await stack.mine();
    await platform.checkConfirmations();
    await until(`job ${id} confirmed`, async () => (await job()).status === "confirmed");
  };

  const extra = typeof options.launchpad === "function" ? await options.launchpad(stack) : options.launchpad;
  stack.app = createLaunchpadApp({
    db: openLaunchpadDatabase(":memory:"),
    queries,
    network: NETWORKS.regtest,
    clock: () => Math.floor(Date.now() / 1000) + stack.clockOffset,
    inscriber: new InscriberClient({ url: stack.inscriberBase, key: LAUNCHPAD_PROJECT_KEY }),
    node: nodeRawTransactions(client),
    operatorKeySha256: crypto.createHash("sha256").update(LAUNCHPAD_OPERATOR_KEY, "utf8").digest("hex"),
    rateLimitPerMinute: 0,
    claimsPerSessionPerMinute: 0,
    maxReservationsPerClient: 0,
    ...extra,
  });
  const { server } = await listenLocal(stack.app);
  stack.base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

  let mintsLoop: Loop | null = null;
  stack.runMints = (ms) => {
    mintsLoop ??= runEvery("launchpad_worker", ms, () => stack.app.launchpad.mints.runOnce());
  };
  stack.stop = async () => {
    await mintsLoop?.stop();
    stack.app.launchpad.feed.close();
    await platformLoop.stop();
    await platform.stop();
    server.closeAllConnections();
    server.close();
    inscriberServer.close();
    await devnet.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return stack;
}
