/**
 * What `npm start`'s AMM demo does when the node refuses one of its inscription jobs (the job is
 * final in the inscriber, and its idempotency key answers the failed job forever): it warns and asks
 * again under a new key, passes over the failed keys of an earlier run, and gives up with a warning
 * after MAX_FAILED_JOBS failures in one run. The whole path on a node is test/cli/start-node-demo.test.ts.
 */
import { expect } from "chai";
import {
  AMM_DEMO_POOL,
  AmmDemoOptions,
  MAX_FAILED_JOBS,
  demoAttemptKey,
  seedDemoPool,
} from "../../src/services/amm/demo";
import type { InscriberJob } from "../../src/services/inscriber/client";
import { inscriberJob } from "../helpers/inscriber-job";
import { newKey } from "../helpers/keys";
import { NETWORKS } from "../../src/doge";

/** A demo whose inscriber fails the jobs of the keys in `failing` (as the node refused them) and does the others at once. */
function harness(failing: (key: string) => boolean, earlier: Map<string, InscriberJob> = new Map()) {
  const custody = newKey();
  const chain = { deployed: false, minted: false };
  const jobs = new Map<string, InscriberJob>();
  const asked: string[] = [];
  const warnings: { event: string; fields: Record<string, unknown> }[] = [];
  let seeded = false;
  const options = {
    ledger: {
      pool: () => (seeded ? { pool: { lpSupply: 1n } } : null),
      seedPool: () => {
        seeded = true;
        return { shares: 1n };
      },
    },
    bonding: {},
    queries: {
      drc20Tick: () => (chain.deployed ? { tick: AMM_DEMO_POOL.tick } : null),
      drc20Balances: () =>
        chain.minted
          ? [{ tick: AMM_DEMO_POOL.tick, available: AMM_DEMO_POOL.supply.toString(), transferable: "0" }]
          : [],
    },
    wallet: {
      address: custody.address,
      network: NETWORKS.regtest,
      sync: async () => undefined,
      balance: () => ({ confirmedKoinu: AMM_DEMO_POOL.doge * 2n }),
    },
    inscriber: {
      inscribe: async (key: string) => {
        asked.push(key);
        const known = earlier.get(key) ?? jobs.get(key);
        if (known) return { job: known, created: false };
        const failed = failing(key);
        const job = inscriberJob({
          id: `job_${asked.length}`,
          status: failed ? "failed" : "queued",
          error: failed ? { code: "TX_REJECTED", message: "256: absurdly-high-fee" } : null,
        });
        jobs.set(key, job);
        if (!failed && key.startsWith("amm-demo-deploy")) chain.deployed = true;
        if (!failed && key.startsWith("amm-demo-mint")) chain.minted = true;
        // The failure is seen when the job is next read, as the inscriber reports it after its broadcast.
        return { job: failed ? { ...job, status: "queued" as const, error: null } : job, created: true };
      },
      job: async (id: string) => [...jobs.values()].find((job) => job.id === id)!,
    },
    project: "amm",
    log: () => undefined,
    warn: (event: string, fields: Record<string, unknown>) => warnings.push({ event, fields }),
    pollMs: 1,
    retryPauseMs: 1,
  } as unknown as AmmDemoOptions;
  return { options, asked, warnings, seeded: () => seeded };
}

describe("AMM demo after a refused inscription job (src/services/amm/demo.ts)", () => {
  it("warns of the failed deploy job and seeds the pool through a new job under the next key", async () => {
    const h = harness((key) => key === "amm-demo-deploy");
    await seedDemoPool(h.options);
    expect(h.seeded()).to.equal(true);
    expect(h.asked).to.deep.equal(["amm-demo-deploy", "amm-demo-deploy-retry-1", "amm-demo-mint"]);
    expect(h.warnings.map((w) => w.event)).to.deep.equal(["amm_demo_job_failed"]);
    expect(h.warnings[0].fields).to.include({ key: "amm-demo-deploy", retry: "amm-demo-deploy-retry-1" });
    expect(String(h.warnings[0].fields.err)).to.include("TX_REJECTED");
  });

  it("passes over the failed jobs of an earlier run at once, warning of each", async () => {
    const earlier = new Map<string, InscriberJob>(
      [0, 1].map((attempt) => [
        demoAttemptKey("amm-demo-deploy", attempt),
        inscriberJob({ id: `old_${attempt}`, status: "failed", error: { code: "TX_REJECTED", message: "refused" } }),
      ]),
    );
    const h = harness(() => false, earlier);
    await seedDemoPool(h.options);
    expect(h.seeded()).to.equal(true);
    expect(h.asked.slice(0, 3)).to.deep.equal([
      "amm-demo-deploy",
      "amm-demo-deploy-retry-1",
      "amm-demo-deploy-retry-2",
    ]);
    expect(h.warnings.map((w) => w.fields.key)).to.deep.equal(["amm-demo-deploy", "amm-demo-deploy-retry-1"]);
  });

  it(`gives up with amm_demo_cannot_finish after ${MAX_FAILED_JOBS} failed jobs in one run`, async () => {
    const h = harness((key) => key.startsWith("amm-demo-mint"));
    let failure: Error | null = null;
    await seedDemoPool(h.options).catch((error: Error) => {
      failure = error;
    });
    expect(failure).to.be.instanceOf(Error);
    expect(h.seeded()).to.equal(false);
    expect(h.asked.filter((key) => key.startsWith("amm-demo-mint"))).to.have.length(MAX_FAILED_JOBS);
    expect(h.warnings.map((w) => w.event)).to.deep.equal([
      ...Array(MAX_FAILED_JOBS - 1).fill("amm_demo_job_failed"),
      "amm_demo_cannot_finish",
    ]);
  });
});
