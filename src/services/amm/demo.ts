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
import type { InscriberClient } from "../inscriber/client";
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

export interface AmmDemoOptions {
  ledger: AmmLedger;
  bonding: BondingStore;
  queries: Pick<IndexQueries, "drc20Tick" | "drc20Balances" | "drc20Balance" | "tickCarriers">;
  wallet: Pick<HotWallet, "address" | "key" | "network" | "sync" | "balance" | "fund" | "track" | "broadcast" | "txOf">;
  inscriber: Pick<InscriberClient, "inscribe">;
  /** The demo launcher's key (default: derived from the custody's key, demoLauncherKey). */
  launcherKey?: WalletKey;
  /** The inscriber project the demo's inscriptions are filed under (default "amm"). */
  project?: string;
  log: (event: string, fields: Record<string, unknown>) => void;
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
  const { queries, wallet, inscriber } = options;
  const demo = AMM_DEMO_CURVE;
  const sent = wallet.txOf(DEMO_OWNER, "launcher-supply");
  if (sent) return sent.txid;
  const project = options.project ?? "amm";
  const tickKey = drc20TickKey(demo.tick);
  const inscribe = (key: string, content: Uint8Array) =>
    inscriber.inscribe(key, { project, contentType: TEXT, action: null, content, recipient: launcher.address });
  const carrier = () =>
    queries.tickCarriers(launcher.address, tickKey).find((c) => BigInt(c.amount) === demo.totalSupply);
  if (!carrier()) {
    if (!queries.drc20Tick(tickKey)) {
      const { totalSupply } = demo;
      await inscribe(
        "amm-demo-moon-deploy",
        encodeDrc20({ kind: "deploy", tick: demo.tick, tickKey, maxSupply: totalSupply, mintLimit: totalSupply }),
      );
      await waitFor(() => queries.drc20Tick(tickKey) !== null, options);
    }
    const held = () => queries.drc20Balance(launcher.address, tickKey).available;
    if (held() < demo.totalSupply) {
      await inscribe(
        "amm-demo-moon-mint",
        encodeDrc20({ kind: "mint", tick: demo.tick, tickKey, amount: demo.totalSupply }),
      );
      await waitFor(() => held() >= demo.totalSupply, options);
    }
    await inscribe(
      "amm-demo-moon-transfer",
      encodeDrc20({ kind: "transfer", tick: demo.tick, tickKey, amount: demo.totalSupply }),
    );
    await waitFor(() => carrier() !== undefined, options);
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
  const { ledger, queries, wallet, inscriber } = options;
  const demo = AMM_DEMO_POOL;
  if ((ledger.pool(demo.tick)?.pool.lpSupply ?? 0n) > 0n) return;
  const project = options.project ?? "amm";
  const tickKey = drc20TickKey(demo.tick);
  const deployed = () => queries.drc20Tick(tickKey) !== null;
  const available = () =>
    BigInt(queries.drc20Balances(wallet.address).find((b) => drc20TickKey(b.tick) === tickKey)?.available ?? "0");
  if (!deployed()) {
    const content = encodeDrc20({
      kind: "deploy",
      tick: demo.tick,
      tickKey,
      maxSupply: demo.supply,
      mintLimit: demo.supply,
    });
    await inscriber.inscribe("amm-demo-deploy", {
      project,
      contentType: TEXT,
      action: null,
      content,
      recipient: wallet.address,
    });
    await waitFor(deployed, options);
  }
  if (available() < demo.token) {
    const content = encodeDrc20({ kind: "mint", tick: demo.tick, tickKey, amount: demo.supply });
    await inscriber.inscribe("amm-demo-mint", {
      project,
      contentType: TEXT,
      action: null,
      content,
      recipient: wallet.address,
    });
    await waitFor(() => available() >= demo.token, options);
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

/** Waits until `done()` (the index caught up with an inscription); throws when the signal aborts. */
async function waitFor(done: () => boolean, options: Pick<AmmDemoOptions, "signal" | "pollMs">): Promise<void> {
  while (!done()) {
    options.signal?.throwIfAborted();
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 1_000).unref());
  }
}
