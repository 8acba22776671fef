/**
 * The AMM's demo seeding (src/services/amm/demo.ts) over the service's own ledger and bonding store
 * (in-memory database), with an inscriber and an index that stand in for the real ones: the deploy
 * and the mint go to the inscriber once, the pool is seeded from the custody's holdings once, the
 * demo curve is launched once and its one-off operator key revoked, and a stop signal ends a wait
 * for the index.
 */
import { expect } from "chai";
import { NETWORKS } from "../../src/doge";
import { openIndexerDatabase } from "../../src/indexer/database";
import { IndexQueries } from "../../src/indexer/queries";
import { AmmLedger, BondingStore, DepositReader, openAmmDatabase } from "../../src/services/amm";
import {
  AMM_DEMO_CURVE,
  AMM_DEMO_POOL,
  AmmDemoOptions,
  launchDemoCurve,
  seedDemoPool,
} from "../../src/services/amm/demo";
import type { InscribeRequest, InscriberClient } from "../../src/services/inscriber/client";
import { inscriberJob } from "../helpers/inscriber-job";
import { newKey } from "../helpers/keys";

const DOGE = 100_000_000n;

function demoHarness() {
  const custody = newKey();
  const index = new IndexQueries(openIndexerDatabase(":memory:"));
  const db = openAmmDatabase(":memory:");
  const deposits = new DepositReader(index, custody.address);
  const ledger = new AmmLedger({ db, network: NETWORKS.regtest, deposits, tickDeployed: (tick) => tick });
  const chain = { deployed: false, held: 0n };
  const filed: { key: string; request: InscribeRequest }[] = [];
  const inscriber: Pick<InscriberClient, "inscribe" | "job"> = {
    inscribe: async (key, request) => {
      filed.push({ key, request });
      // What the index will show once the inscription is mined.
      const body = JSON.parse(new TextDecoder().decode(request.content)) as { op: string };
      if (body.op === "deploy") chain.deployed = true;
      if (body.op === "mint") chain.held = AMM_DEMO_POOL.supply;
      return { job: inscriberJob({ id: `job_${filed.length}` }), created: true };
    },
    job: async (id) => inscriberJob({ id }),
  };
  const bonding = new BondingStore({ db, ledger, deposits, queries: index, inscriber, inscriberProject: "amm" });
  const queries = {
    drc20Tick: (tickKey: string) => (chain.deployed && tickKey === "woof" ? { tick: "WOOF" } : null),
    drc20Balances: () => [{ tick: "WOOF", available: chain.held.toString(), transferable: "0" }],
  } as unknown as AmmDemoOptions["queries"];
  const wallet = {
    address: custody.address,
    syncs: 0,
    sync: async () => {
      wallet.syncs++;
    },
    balance: () => ({ confirmedKoinu: 20_000n * DOGE }),
  } as unknown as AmmDemoOptions["wallet"] & { syncs: number };
  const events: string[] = [];
  const options: AmmDemoOptions = {
    ledger,
    bonding,
    queries,
    wallet,
    inscriber,
    project: "amm",
    log: (event) => events.push(event),
    pollMs: 5,
  };
  return { options, ledger, bonding, db, filed, events, custody, chain, wallet };
}

describe("AMM demo seeding (src/services/amm/demo.ts)", () => {
  it("deploys and mints the demo tick to the custody through the inscriber, then seeds the pool from its holdings, once", async () => {
    const h = demoHarness();
    await seedDemoPool(h.options);
    expect(h.filed.map((f) => f.key)).to.deep.equal(["amm-demo-deploy", "amm-demo-mint"]);
    for (const { request } of h.filed)
      expect(request).to.deep.include({ project: "amm", recipient: h.custody.address, action: null });
    const pool = h.ledger.pool(AMM_DEMO_POOL.tick)!.pool;
    expect(pool.lpSupply > 0n).to.equal(true);
    expect(h.events).to.deep.equal(["amm_demo_seeded"]);

    await seedDemoPool(h.options);
    expect(h.filed).to.have.length(2);
    expect(h.events).to.deep.equal(["amm_demo_seeded"]);
  });

  it("launches the demo bonding coin through the bonding store once, and leaves no operator key behind", async () => {
    const h = demoHarness();
    await launchDemoCurve(h.options);
    const curve = h.bonding.curve(AMM_DEMO_CURVE.tick)!;
    expect(curve.tick).to.equal(AMM_DEMO_CURVE.tick);
    expect(h.filed.map((f) => f.key)).to.deep.equal([`${curve.id}:deploy`]);
    await launchDemoCurve(h.options);
    expect(h.filed).to.have.length(1);
    expect(h.events).to.deep.equal(["amm_demo_curve_launched"]);
    const live = h.db.prepare("SELECT COUNT(*) AS n FROM bonding_api_keys WHERE revoked_at IS NULL").get() as {
      n: number;
    };
    expect(live.n).to.equal(0);
  });

  it("stops waiting for the index when the stop signal aborts", async () => {
    const h = demoHarness();
    const stop = new AbortController();
    const stuck = {
      ...h.options,
      inscriber: {
        ...h.options.inscriber,
        inscribe: async () => ({ job: inscriberJob({ id: "job_stuck" }), created: true }),
      },
      signal: stop.signal,
    };
    const seeding = seedDemoPool(stuck);
    setTimeout(() => stop.abort(new Error("stopping")), 30);
    let failure: unknown = null;
    await seeding.catch((error) => {
      failure = error;
    });
    expect((failure as Error)?.message).to.equal("stopping");
    expect(h.ledger.pool(AMM_DEMO_POOL.tick)?.pool.lpSupply ?? 0n).to.equal(0n);
  });
});
