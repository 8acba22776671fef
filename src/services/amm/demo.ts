/**
 * The AMM's demo (`npm start`, the AMM daemon's --demo), made with the service's own code: the
 * pool WOOF/DOGE (the tick deployed and minted to the custody through the inscriber, then the pool
 * seeded from the custody's holdings by AmmLedger.seedPool) and the bonding coin MOON (launched by
 * BondingStore.launch under a one-off operator key; its deploy and mint follow in the bonding pass).
 * Both are idempotent: what exists already is left as it is.
 */
import { drc20TickKey, encodeDrc20 } from "../../inscription/drc20";
import type { IndexQueries } from "../../indexer/queries";
import type { HotWallet } from "../../wallet";
import type { InscriberClient } from "../inscriber/client";
import type { BondingStore } from "./bonding-store";
import type { AmmLedger } from "./ledger";

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

export interface AmmDemoOptions {
  ledger: AmmLedger;
  bonding: BondingStore;
  queries: Pick<IndexQueries, "drc20Tick" | "drc20Balances">;
  wallet: Pick<HotWallet, "address" | "sync" | "balance">;
  inscriber: Pick<InscriberClient, "inscribe">;
  /** The inscriber project the demo's inscriptions are filed under (default "amm"). */
  project?: string;
  log: (event: string, fields: Record<string, unknown>) => void;
  /** Ends the waits for the index (the daemon's stop signal). */
  signal?: AbortSignal;
  /** How often the index is looked at while waiting (default 1 s). */
  pollMs?: number;
}

/** Launches the demo bonding coin when it is not launched yet. */
export async function launchDemoCurve(options: AmmDemoOptions): Promise<void> {
  const { bonding } = options;
  if (bonding.curve(AMM_DEMO_CURVE.tick)) return;
  const key = bonding.issueApiKey("npm start demo launch");
  try {
    await bonding.launch(AMM_DEMO_CURVE, key.id);
  } finally {
    bonding.revokeApiKey(key.id);
  }
  options.log("amm_demo_curve_launched", { tick: AMM_DEMO_CURVE.tick });
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
