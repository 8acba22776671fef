/**
 * The AMM's demo (`npm start`, the AMM daemon's --demo), made with the service's own code: the
 * pool WOOF/DOGE (the tick deployed and minted to the custody through the inscriber, then the pool
 * seeded from the custody's holdings by AmmLedger.seedPool) and the bonding coin MOON, launched as
 * any launch is (BondingStore): by a demo launcher (a key derived from the custody's, so a restart
 * finds the same one) that signs the launch (under a one-off operator key), has the tick deployed,
 * minted and a transfer of the whole supply inscribed to its own address through the inscriber,
 * sends that transfer to the custody (its network fee from a coin the custody pays it) and
 * announces the deposit; the curve is active once the deposit is deep enough.
 * Both are idempotent: what exists already is left as it is, and a restart picks the launch up
 * where it stopped.
 *
 * A job the inscriber could not do (its transaction refused by the node: a premature coinbase
 * spend, a fee above the node's -maxtxfee) is final there, and its idempotency key answers the failed
 * job forever: the demo notices it, warns (`amm_demo_job_failed`) and asks again under a new key
 * (`<key>-retry-<n>`), with a growing pause; after MAX_FAILED_JOBS failures in one run it warns
 * `amm_demo_cannot_finish` and gives up until the next start.
 */
import crypto from "node:crypto";
import { bytesToHex, serializeTransaction, signMessage } from "../../doge";
import { drc20TickKey, encodeDrc20 } from "../../inscription/drc20";
import type { IndexQueries } from "../../indexer/queries";
import { RECOMMENDED_FEE_RATE } from "../../wallet";
import type { HotWallet, WalletKey } from "../../wallet";
import { planOutputs, signWalletTransaction } from "../../wallet/build";
import { walletKeyFromPrivateKey } from "../../wallet/keys";
import { Refusal } from "../../errors";
import { jobFailure } from "../inscriber/client";
import type { InscribeRequest, InscriberClient, InscriberJob } from "../inscriber/client";
import { launchFields } from "./bonding-store";
import type { BondingStore } from "./bonding-store";
import type { AmmLedger } from "./ledger";
import { authorizationMessage } from "./orders";

/** The demo pool: 1,000,000,000 WOOF deployed and minted to the custody, 100,000,000 of them against 10,000 DOGE. */
export const AMM_DEMO_POOL = {
  tick: "WOOF",
  supply: 1_000_000_000n,
  token: 100_000_000n,
  doge: 10_000n * 100_000_000n,
};

/**
 * The demo bonding coin: 1,000,000,000 MOON, 800,000,000 sold on a curve with a virtual reserve of
 * 30,000 DOGE, graduating into a MOON/DOGE pool once 2,000 real DOGE are in.
 */
export const AMM_DEMO_CURVE = {
  tick: "MOON",
  totalSupply: 1_000_000_000n,
  sellableSupply: 800_000_000n,
  virtualDoge: 30_000n * 100_000_000n,
  graduationThreshold: 2_000n * 100_000_000n,
};

const TEXT = "text/plain;charset=utf-8";
/** The custody wallet's owner name of the demo launcher's fee coin and of the launcher's supply deposit it broadcasts. */
const DEMO_OWNER = "amm-demo";
/** The coin the custody pays the demo launcher for the network fee of its supply deposit. */
const LAUNCHER_FEE_COIN_KOINU = 100_000_000n;
/** Deposit refusals that only mean "not mined or not deep enough yet": the announcement is made again. */
const NOT_YET = new Set(["DEPOSIT_NOT_FOUND", "DEPOSIT_NOT_DEEP_ENOUGH"]);
/** Failed inscription jobs one run of a demo takes before it gives up (each followed by a new job). */
export const MAX_FAILED_JOBS = 5;
/** The pause before the first new job after a failure; doubled after each further failure. */
const RETRY_PAUSE_MS = 2_000;

export interface AmmDemoOptions {
  ledger: AmmLedger;
  bonding: BondingStore;
  queries: Pick<IndexQueries, "drc20Tick" | "drc20Balances" | "drc20Balance" | "tickCarriers">;
  wallet: Pick<HotWallet, "address" | "key" | "network" | "sync" | "balance" | "fund" | "track" | "broadcast" | "txOf">;
  inscriber: Pick<InscriberClient, "inscribe" | "job">;
  /** The demo launcher's key (default: derived from the custody's key, demoLauncherKey). */
  launcherKey?: WalletKey;
  /** The inscriber project the demo's inscriptions are filed under (default "amm"). */
  project?: string;
  log: (event: string, fields: Record<string, unknown>) => void;
  /** What the person running the demo must see (a failed job, a demo that cannot finish); default: `log`. */
  warn?: (event: string, fields: Record<string, unknown>) => void;
  /** The pause before a new job after a failed one, doubled per further failure (default 2 s). */
  retryPauseMs?: number;
  /** Ends the waits for the index (the daemon's stop signal). */
  signal?: AbortSignal;
  /** How often the index is looked at while waiting (default 1 s). */
  pollMs?: number;
}

/**
 * The demo launcher's key: derived from the custody's private key (HMAC-SHA256), so it is as secret
 * as the custody's and the same after a restart; never a service address.
 */
export function demoLauncherKey(wallet: Pick<HotWallet, "key" | "network">): WalletKey {
  const secret = crypto.createHmac("sha256", wallet.key.privateKey).update("dogeos-amm demo launcher").digest();
  return walletKeyFromPrivateKey(new Uint8Array(secret), wallet.network);
}

/**
 * Launches the demo bonding coin when it is not launched yet, and brings its launch to the end:
 * the launcher's deploy, mint and supply deposit (each once, by the inscriber's idempotency keys
 * and the custody wallet's owner/label), then the deposit announced until it counts. Returns once
 * the curve takes no more supply (active, or failed); throws when the signal aborts.
 */
export async function launchDemoCurve(options: AmmDemoOptions): Promise<void> {
  const { bonding, ledger } = options;
  const demo = AMM_DEMO_CURVE;
  const launcher = options.launcherKey ?? demoLauncherKey(options.wallet);
  if (!bonding.curve(demo.tick)) {
    const auth = {
      address: launcher.address,
      nonce: `demo-${crypto.randomBytes(8).toString("hex")}`,
      expiresAt: Math.floor(Date.now() / 1000) + 600,
    };
    const { tick, totalSupply, sellableSupply, virtualDoge, graduationThreshold } = demo;
    const terms = { tick, totalSupply, sellableSupply, virtualDoge, graduationThreshold };
    const message = authorizationMessage(ledger.domain, "bonding-launch", launchFields(terms), auth);
    const key = bonding.issueApiKey("npm start demo launch");
    try {
      bonding.launch({ ...terms, auth: { ...auth, signature: signMessage(message, launcher.privateKey) } }, key.id);
    } finally {
      bonding.revokeApiKey(key.id);
    }
    options.log("amm_demo_curve_launched", { tick: demo.tick, launcher: launcher.address });
  }
  if (bonding.curve(demo.tick)!.status !== "awaiting_supply") return;
  const depositTxid = await depositDemoSupply(options, launcher);
  await announceDemoSupply(options, launcher, depositTxid);
}

/**
 * The demo launcher's supply deposit: the tick deployed (max = lim = the total supply), minted and
 * a transfer of the whole supply inscribed, each to the launcher through the inscriber; the
 * transfer then sent to the custody by the launcher (input 0 the inscribed output, output 0 the
 * custody with its value, a coin the custody pays the launcher for the fee). Answers the deposit's
 * txid (the stored one after a restart).
 */
async function depositDemoSupply(options: AmmDemoOptions, launcher: WalletKey): Promise<string> {
  const { queries, wallet } = options;
  const demo = AMM_DEMO_CURVE;
  const sent = wallet.txOf(DEMO_OWNER, "launcher-supply");
  if (sent) return sent.txid;
  const project = options.project ?? "amm";
  const tickKey = drc20TickKey(demo.tick);
  const request = (content: Uint8Array): InscribeRequest => ({
    project,
    contentType: TEXT,
    action: null,
    content,
    recipient: launcher.address,
  });
  const carrier = () =>
    queries.tickCarriers(launcher.address, tickKey).find((c) => BigInt(c.amount) === demo.totalSupply);
  if (!carrier()) {
    if (!queries.drc20Tick(tickKey)) {
      const { totalSupply } = demo;
      await inscribeUntil(
        options,
        "amm-demo-moon-deploy",
        request(
          encodeDrc20({ kind: "deploy", tick: demo.tick, tickKey, maxSupply: totalSupply, mintLimit: totalSupply }),
        ),
        () => queries.drc20Tick(tickKey) !== null,
      );
    }
    const held = () => queries.drc20Balance(launcher.address, tickKey).available;
    if (held() < demo.totalSupply) {
      await inscribeUntil(
        options,
        "amm-demo-moon-mint",
        request(encodeDrc20({ kind: "mint", tick: demo.tick, tickKey, amount: demo.totalSupply })),
        () => held() >= demo.totalSupply,
      );
    }
    await inscribeUntil(
      options,
      "amm-demo-moon-transfer",
      request(encodeDrc20({ kind: "transfer", tick: demo.tick, tickKey, amount: demo.totalSupply })),
      () => carrier() !== undefined,
    );
  }
  const inscribed = carrier()!;
  await wallet.sync();
  const fee = wallet.fund(DEMO_OWNER, "launcher-fee", [{ script: launcher.script, value: LAUNCHER_FEE_COIN_KOINU }]);
  await wallet.broadcast(fee.txid);
  const coins = [
    { txid: inscribed.txid, vout: inscribed.vout, valueKoinu: inscribed.valueKoinu },
    { txid: fee.txid, vout: 0, valueKoinu: LAUNCHER_FEE_COIN_KOINU },
  ];
  const plan = planOutputs(
    coins.length,
    inscribed.valueKoinu + LAUNCHER_FEE_COIN_KOINU,
    [{ script: wallet.key.script, value: inscribed.valueKoinu }],
    launcher.script,
    RECOMMENDED_FEE_RATE,
    0,
  );
  if (!plan) throw new Error("the demo launcher's fee coin does not pay its supply deposit's fee");
  const tx = signWalletTransaction(coins, plan.outputs, launcher);
  const tracked = wallet.track(DEMO_OWNER, "launcher-supply", bytesToHex(serializeTransaction(tx)));
  await wallet.broadcast(tracked.txid);
  options.log("amm_demo_supply_sent", { tick: demo.tick, txid: tracked.txid });
  return tracked.txid;
}

/** Announces the launcher's deposit (signed bonding-supply) until it is deep enough to count. */
async function announceDemoSupply(options: AmmDemoOptions, launcher: WalletKey, depositTxid: string): Promise<void> {
  const { bonding } = options;
  const { tick } = AMM_DEMO_CURVE;
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      const signature = signMessage(bonding.supplyMessage(tick, depositTxid), launcher.privateKey);
      const { curve } = bonding.depositSupply(tick, depositTxid, signature);
      options.log("amm_demo_supply_deposited", { tick, status: curve.status });
      return;
    } catch (error) {
      if (!(error instanceof Refusal) || !NOT_YET.has(error.code)) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 1_000).unref());
  }
}

/** Deploys and mints the demo tick to the custody (through the inscriber), then seeds the pool from the custody's holdings. */
export async function seedDemoPool(options: AmmDemoOptions): Promise<void> {
  const { ledger, queries, wallet } = options;
  const demo = AMM_DEMO_POOL;
  if ((ledger.pool(demo.tick)?.pool.lpSupply ?? 0n) > 0n) return;
  const project = options.project ?? "amm";
  const tickKey = drc20TickKey(demo.tick);
  const deployed = () => queries.drc20Tick(tickKey) !== null;
  const available = () =>
    BigInt(queries.drc20Balances(wallet.address).find((b) => drc20TickKey(b.tick) === tickKey)?.available ?? "0");
  const request = (content: Uint8Array): InscribeRequest => ({
    project,
    contentType: TEXT,
    action: null,
    content,
    recipient: wallet.address,
  });
  if (!deployed()) {
    const content = encodeDrc20({
      kind: "deploy",
      tick: demo.tick,
      tickKey,
      maxSupply: demo.supply,
      mintLimit: demo.supply,
    });
    await inscribeUntil(options, "amm-demo-deploy", request(content), deployed);
  }
  if (available() < demo.token) {
    const content = encodeDrc20({ kind: "mint", tick: demo.tick, tickKey, amount: demo.supply });
    await inscribeUntil(options, "amm-demo-mint", request(content), () => available() >= demo.token);
  }
  await wallet.sync();
  const seeded = ledger.seedPool({
    tick: demo.tick,
    doge: demo.doge,
    token: demo.token,
    provider: wallet.address,
    refId: "demo-seed",
    holdings: { doge: wallet.balance().confirmedKoinu, token: available() },
  });
  options.log("amm_demo_seeded", { tick: demo.tick, shares: seeded.shares.toString() });
}

/** The idempotency key of a demo inscription's attempt `n` (0: the key itself). */
export function demoAttemptKey(key: string, attempt: number): string {
  return attempt === 0 ? key : `${key}-retry-${attempt}`;
}

/**
 * Has `request` inscribed under `key` and waits until `done()` (the index shows what it inscribed).
 * A failed job (final in the inscriber) is warned about and replaced by a new one under the next
 * attempt's key, after a pause; the attempts of an earlier run are found again by their keys (a
 * failed one is passed over at once). Throws after MAX_FAILED_JOBS failures in this run, or when
 * the signal aborts.
 */
async function inscribeUntil(
  options: AmmDemoOptions,
  key: string,
  request: InscribeRequest,
  done: () => boolean,
): Promise<void> {
  const warn = options.warn ?? options.log;
  let failedThisRun = 0;
  for (let attempt = 0; ; attempt++) {
    if (done()) return;
    const attemptKey = demoAttemptKey(key, attempt);
    const { job, created } = await options.inscriber.inscribe(attemptKey, request);
    if (job.status === "failed" && !created) {
      // Failed before this run asked (an earlier run's): its key is spent, the next one is tried at once.
      warn("amm_demo_job_failed", {
        key: attemptKey,
        job: job.id,
        err: jobFailure(job),
        retry: demoAttemptKey(key, attempt + 1),
      });
      continue;
    }
    const failure = job.status === "failed" ? job : await waitForJob(options, job.id, done);
    if (failure === null) return;
    failedThisRun += 1;
    const next = demoAttemptKey(key, attempt + 1);
    if (failedThisRun >= MAX_FAILED_JOBS) {
      warn("amm_demo_cannot_finish", { key: attemptKey, failedJobs: failedThisRun, err: jobFailure(failure) });
      throw new Error(`the demo's ${key} inscription failed ${failedThisRun} times: ${jobFailure(failure)}`);
    }
    const pauseMs = (options.retryPauseMs ?? RETRY_PAUSE_MS) * 2 ** (failedThisRun - 1);
    warn("amm_demo_job_failed", { key: attemptKey, job: failure.id, err: jobFailure(failure), retry: next, pauseMs });
    await pause(pauseMs, options);
  }
}

/**
 * Waits until `done()` or the job fails; answers null when done, else the failed job. Throws when
 * the signal aborts.
 */
async function waitForJob(
  options: Pick<AmmDemoOptions, "inscriber" | "signal" | "pollMs">,
  jobId: string,
  done: () => boolean,
): Promise<InscriberJob | null> {
  for (;;) {
    if (done()) return null;
    const job = await options.inscriber.job(jobId);
    if (job.status === "failed") return job;
    await pause(options.pollMs ?? 1_000, options);
  }
}

function pause(ms: number, options: Pick<AmmDemoOptions, "signal">): Promise<void> {
  options.signal?.throwIfAborted();
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
