import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NETWORKS, nullDataScript } from "../../src/doge";
import { DogecoinRpcClient } from "../../src/chain/dogecoin-rpc";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { RpcChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { dumpDatabase } from "../helpers/db-dump";
import { INDEX_BACKENDS } from "../helpers/index-backends";
import { createTestDatabase } from "../helpers/postgres";
import { RunningDevnet, startDevnet } from "../helpers/devnet";
import { spawnDaemon } from "../helpers/daemon";
import { newKey, spendP2pkh } from "../helpers/keys";

const DOGE = 100_000_000n;

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("condition not met in time");
}

describe("indexer daemon crash safety", function () {
  this.timeout(300_000);
  let devnet: RunningDevnet;
  let dir: string;

  before(async () => {
    devnet = await startDevnet();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "indexer-crash-"));
    // A chain with payments, change and OP_RETURNs spread over 200 blocks.
    const alice = newKey();
    const bob = newKey();
    for (let round = 0; round < 20; round++) {
      const paid = await devnet.rpc<{ txid: string }>("devnet_faucet", [alice.address, 50, true]);
      const tx = spendP2pkh(
        alice,
        [{ txid: paid.txid, vout: 0, value: 50n * DOGE }],
        [
          { script: bob.script, value: 10n * DOGE },
          { script: nullDataScript(Buffer.from(`round ${round}`)), value: 0n },
          { script: alice.script, value: 39n * DOGE },
        ],
      );
      await devnet.rpc("sendrawtransaction", [tx.hex]);
      await devnet.rpc("generatetoaddress", [8, bob.address]);
    }
  });

  const databases: { drop(): Promise<void> }[] = [];
  async function postgresDatabase(): Promise<string> {
    const database = await createTestDatabase();
    databases.push(database);
    return database.url;
  }

  after(async () => {
    for (const database of databases) await database.drop();
    await devnet?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const backend of INDEX_BACKENDS) {
    it(`loses nothing when killed with SIGKILL at several points of a sync [${backend}]`, async () => {
      const location = backend === "sqlite" ? path.join(dir, "index.sqlite") : await postgresDatabase();
      const args = [
        "--rpc-url",
        devnet.url,
        "--db",
        location,
        "--network",
        "regtest",
        "--batch-blocks",
        "2",
        "--poll-ms",
        "100",
      ];
      const tip = await devnet.rpc<number>("getblockcount");
      const crashDelaysMs = backend === "sqlite" ? [250, 600, 150, 900] : [700, 1200, 500, 1600];
      const heightsAtCrash: number[] = [];
      for (const delay of crashDelaysMs) {
        const daemon = await spawnDaemon("daemons/indexer/main.ts", args, "indexer");
        await new Promise((resolve) => setTimeout(resolve, delay));
        await daemon.crash();
        const db = openIndexerDatabase(location);
        heightsAtCrash.push(
          Number((db.prepare("SELECT COALESCE(MAX(height), -1) AS h FROM blocks").get() as { h: number }).h),
        );
        db.close();
      }
      expect(
        heightsAtCrash.some((h) => h > 0 && h < tip),
        `crashes happened mid-sync (heights ${heightsAtCrash.join(", ")})`,
      ).to.equal(true);
      const daemon = await spawnDaemon("daemons/indexer/main.ts", args, "indexer");
      await waitFor(async () => {
        const health = (await (await fetch(`${daemon.url}/health`)).json()) as { indexedHeight: number };
        return health.indexedHeight === tip;
      }, 120_000);
      expect(await daemon.stop()).to.equal(0);

      const crashed = openIndexerDatabase(location);
      const fresh = new Indexer({
        store: new IndexerStore(openIndexerDatabase(":memory:")),
        source: new RpcChainSource(new DogecoinRpcClient({ url: devnet.url })),
        network: NETWORKS.regtest,
      });
      await fresh.syncOnce();
      // On either backend, the same rows as an uninterrupted embedded index.
      expect(dumpDatabase(crashed)).to.deep.equal(dumpDatabase(fresh.store.db));
      crashed.close();
    });
  }

  it("answers /health and /metrics, and exits 0 on SIGTERM", async () => {
    const daemon = await spawnDaemon(
      "daemons/indexer/main.ts",
      ["--rpc-url", devnet.url, "--db", path.join(dir, "other.sqlite"), "--network", "regtest"],
      "indexer",
    );
    const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
    expect(metrics).to.include("indexer_indexed_height");
    const health = await fetch(`${daemon.url}/health`);
    expect([200, 503]).to.include(health.status);
    expect(await daemon.stop()).to.equal(0);
  });

  it("refuses to start with a clear message when the node URL is missing", async () => {
    let failure: Error | null = null;
    try {
      await spawnDaemon("daemons/indexer/main.ts", ["--db", path.join(dir, "x.sqlite")], "indexer", {
        timeoutMs: 20_000,
      });
    } catch (error) {
      failure = error as Error;
    }
    expect(failure?.message).to.match(/missing rpc-url/);
  });
});
