/**
 * The AMM's demo seeding (src/services/amm/demo.ts) over the service's own ledger and bonding store
 * (in-memory database), with an inscriber, an index and a custody wallet that stand in for the real
 * ones: the deploy and the mint go to the inscriber once, the pool is seeded from the custody's
 * holdings once, the demo curve is launched once by its launcher (signed; its one-off operator key
 * revoked), the launcher's deploy, mint and transfer are filed to the launcher and the transfer sent
 * to the custody once, and a stop signal ends a wait for the index. test/services/amm-demo-devnet.test.ts
 * runs the demo curve's launch to active on the devnet.
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
  demoLauncherKey,
  launchDemoCurve,
  seedDemoPool,
} from "../../src/services/amm/demo";
import { parseTransaction, hexToBytes, bytesToHex } from "../../src/doge";
import type { InscribeRequest, InscriberClient } from "../../src/services/inscriber/client";
import { inscriberJob } from "../helpers/inscriber-job";
import { newKey } from "../helpers/keys";
import { until } from "../helpers/wait";

const DOGE = 100_000_000n;

function demoHarness() {
  const custody = newKey();
  const index = new IndexQueries(openIndexerDatabase(":memory:"));
  const db = openAmmDatabase(":memory:");
  const deposits = new DepositReader(index, custody.address);
  const ledger = new AmmLedger({ db, network: NETWORKS.regtest, deposits, tickDeployed: (tick) => tick });
  // What the index will show once each inscription is mined: deployed ticks, balances, transfer carriers.
  const chain = {
    deployed: new Set<string>(),
    held: 0n,
    launcherHeld: 0n,
    carriers: [] as { txid: string; vout: number; amount: string; valueKoinu: bigint }[],
  };
  const filed: { key: string; request: InscribeRequest }[] = [];
  const inscriber: Pick<InscriberClient, "inscribe" | "job"> = {
    inscribe: async (key, request) => {
      filed.push({ key, request });
      const body = JSON.parse(new TextDecoder().decode(request.content)) as { op: string; tick: string; amt: string };
      const tick = body.tick.toLowerCase();
      if (body.op === "deploy") chain.deployed.add(tick);
      if (body.op === "mint" && tick === "woof") chain.held = AMM_DEMO_POOL.supply;
      if (body.op === "mint" && tick === "moon") chain.launcherHeld = BigInt(body.amt);
      if (body.op === "transfer")
        chain.carriers.push({ txid: "cd".repeat(32), vout: 0, amount: body.amt, valueKoinu: 100_000n });
      return { job: inscriberJob({ id: `job_${filed.length}` }), created: true };
    },
    job: async (id) => inscriberJob({ id }),
  };
  const bonding = new BondingStore({ db, ledger, deposits, queries: index });
  const queries = {
    drc20Tick: (tickKey: string) => (chain.deployed.has(tickKey) ? { tick: tickKey.toUpperCase() } : null),
    drc20Balances: () => [{ tick: "WOOF", available: chain.held.toString(), transferable: "0" }],
    drc20Balance: () => ({ available: chain.launcherHeld, transferable: 0n }),
    tickCarriers: () => chain.carriers,
  } as unknown as AmmDemoOptions["queries"];
  const tracked = new Map<string, { txid: string; hex: string }>();
  const broadcasts: string[] = [];
  const wallet = {
    address: custody.address,
    key: { ...custody, publicKey: custody.publicKey },
    network: NETWORKS.regtest,
    syncs: 0,
    sync: async () => {
      wallet.syncs++;
    },
    balance: () => ({ confirmedKoinu: 20_000n * DOGE }),
    fund: (owner: string, label: string) => {
      const txid = "ef".repeat(32);
      tracked.set(`${owner}/${label}`, { txid, hex: "" });
      return { txid, hex: "", changeVout: 1 };
    },
    track: (owner: string, label: string, hex: string) => {
      const parsed = parseTransaction(hexToBytes(hex));
      if (!parsed.ok) throw new Error("not a transaction");
      const row = { txid: parsed.value.txid, hex };
      tracked.set(`${owner}/${label}`, row);
      return row;
    },
    broadcast: async (txid: string) => {
      broadcasts.push(txid);
      return { txid };
    },
    txOf: (owner: string, label: string) =>
      label === "launcher-supply" ? (tracked.get(`${owner}/${label}`) ?? null) : null,
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
  return { options, ledger, bonding, db, filed, events, custody, chain, wallet, tracked, broadcasts };
}

describe("AMM demo seeding (src/services/amm/demo.ts)", () => {
  it("deploys and mints the demo tick to the custody through the inscriber, then seeds the pool from its holdings, once", async () => {
    const h = demoHarness();
    await seedDemoPool(h.options);
    expect(h.filed.map((f) => f.key)).to.deep.equal(["amm-demo-deploy", "amm-demo-mint"]);
    for (const { request } of h.filed)
      expect(request).to.deep.include({ project: "amm", recipient: h.custody.address, action: null });
    expect(h.wallet.syncs).to.equal(1);
    const pool = h.ledger.pool(AMM_DEMO_POOL.tick)!.pool;
    expect(pool.lpSupply > 0n).to.equal(true);
    expect(h.events).to.deep.equal(["amm_demo_seeded"]);

    await seedDemoPool(h.options);
    expect(h.filed).to.have.length(2);
    expect(h.events).to.deep.equal(["amm_demo_seeded"]);
  });

  it("launches the demo bonding coin by its launcher, files the launcher's deploy, mint and transfer, sends the supply to the custody once, and leaves no operator key behind", async () => {
    const h = demoHarness();
    const launcher = demoLauncherKey(h.wallet);
    expect(launcher.address).to.not.equal(h.custody.address);
    const stop = new AbortController();
    const first = launchDemoCurve({ ...h.options, signal: stop.signal });
    // The index never shows the deposit here: the demo announces it until the stop signal.
    await until("the supply deposit broadcast", () => h.broadcasts.length === 2);
    stop.abort(new Error("stopping"));
    expect(
      await first.then(
        () => null,
        (error: Error) => error.message,
      ),
    ).to.equal("stopping");

    const curve = h.bonding.curve(AMM_DEMO_CURVE.tick)!;
    expect([curve.status, curve.launcher]).to.deep.equal(["awaiting_supply", launcher.address]);
    expect(h.filed.map((f) => f.key)).to.deep.equal([
      "amm-demo-moon-deploy",
      "amm-demo-moon-mint",
      "amm-demo-moon-transfer",
    ]);
    for (const { request } of h.filed) expect(request).to.deep.include({ project: "amm", recipient: launcher.address });
    // The launcher's transaction: input 0 the transfer's carrier, output 0 the custody with its value, the fee from the custody's coin.
    const supply = h.tracked.get("amm-demo/launcher-supply")!;
    const tx = parseTransaction(hexToBytes(supply.hex));
    if (!tx.ok) throw new Error("the supply deposit does not parse");
    expect(tx.value.inputs.map((i) => `${i.prevTxid}:${i.vout}`)).to.deep.equal([
      `${"cd".repeat(32)}:0`,
      `${"ef".repeat(32)}:0`,
    ]);
    expect([bytesToHex(tx.value.outputs[0].script), tx.value.outputs[0].value]).to.deep.equal([
      bytesToHex(h.custody.script),
      100_000n,
    ]);
    expect(h.broadcasts).to.deep.equal(["ef".repeat(32), supply.txid]);

    // After a restart the launch goes on from the deposit already sent: nothing filed or sent again.
    const again = new AbortController();
    const second = launchDemoCurve({ ...h.options, signal: again.signal });
    setTimeout(() => again.abort(new Error("stopping")), 30);
    await second.catch(() => undefined);
    expect(h.filed).to.have.length(3);
    expect(h.broadcasts).to.have.length(2);
    expect(h.events.filter((e) => e === "amm_demo_curve_launched")).to.have.length(1);
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
