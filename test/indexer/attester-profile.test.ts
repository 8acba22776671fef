/**
 * The attester profile (issue 27, item 5; src/indexer/profile.ts): an index built with
 * `--profile attester` deletes spent outputs whose spender is deeper than the reorg limit, and
 * everything an attester reads answers as on a full index of the same chain.
 *
 * The devnet chain of the equivalence test (./equivalence/chain.ts: inscriptions, DRC-20, a
 * launchpad collection, a 1-block and a 2-block reorg) is indexed in lockstep, step by step, into a
 * full index, an attester index pruned per batch through outputs_by_spent_tx, and an attester
 * index whose read indexes are deferred on every sync (pruned by key from the batch's spends on
 * SQLite, and by the one pass at a catch-up's end), all with a reorg limit of 2 blocks so that
 * pruning reaches most of the chain. At every step:
 * - every IndexHistory read and attester fact of the equivalence fixture's routes, and the rows the
 *   attest-api serves (queries.tx: height, OP_RETURN and OP_CHECKZKP rows), answer alike;
 * - every table but `outputs` holds the same rows (meta but for the profile's own keys);
 * - `outputs` holds exactly the full index's rows less those the rule deletes (spent below the
 *   floor, and at input 0 only when the spender has no output left that a later transaction could
 *   spend), and the inscription tracker's `funder` lookup answers alike for every transaction that
 *   can still be spent.
 * Then the refusals: readers other than the attester's, the indexer with another profile (the
 * daemon with one line), and a rollback below the pruned height.
 */
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SqlDatabase } from "../../src/db/sql";
import { NETWORKS } from "../../src/doge";
import { IndexUnreadableError, openIndexReader, openIndexerDatabase } from "../../src/indexer/database";
import { Indexer, IndexerOptions, ReorgTooDeepError } from "../../src/indexer/indexer";
import { INDEX_PROFILES, IndexProfile, IndexProfileMismatchError, PRUNE_SQL } from "../../src/indexer/profile";
import { IndexQueries } from "../../src/indexer/queries";
import { TX_ID_OF_TXID } from "../../src/indexer/schema";
import { IndexerStore } from "../../src/indexer/store";
import { waitForIndex } from "../../src/indexer/wait-for-index";
import { runDaemonToExit } from "../helpers/daemon";
import { tableNames } from "../helpers/db-dump";
import { createTestDatabase } from "../helpers/postgres";
import { EquivalenceChain, SteppedChainSource, devnetChain } from "./equivalence/chain";
import { readFixture } from "./equivalence/fixture";
import { Reader, Route, canonical, loadStack, routeKind, routeName } from "./equivalence/harness";

const REORG_DEPTH = 2;
const stack = loadStack(path.resolve(__dirname, "..", ".."));

interface Built {
  name: string;
  db: SqlDatabase;
  indexer: Indexer;
}

function indexerOf(
  db: SqlDatabase,
  source: SteppedChainSource,
  chain: EquivalenceChain,
  options: Partial<IndexerOptions>,
) {
  return new Indexer({
    store: new IndexerStore(db),
    source,
    network: NETWORKS[chain.network],
    startHeight: chain.startHeight,
    maxReorgDepth: REORG_DEPTH,
    ...options,
  });
}

/** Every row of `table` as canonical text, sorted (the order rows come back in is not compared). */
function rowsOf(db: SqlDatabase, table: string): string[] {
  return db
    .prepare(`SELECT * FROM ${table}`)
    .safeIntegers(true)
    .all()
    .map((row) => canonical(row))
    .sort();
}

/** Meta keys that differ by profile or by wall clock. */
const OWN_META = new Set([
  "profile",
  "spends_pruned_below_tx_id",
  "spends_pruned_to_height",
  "node_seen_at",
  "read_indexes_deferred",
]);

interface OutputRow {
  tx_id: bigint;
  vout: bigint;
  spent_tx_id: bigint | null;
  spent_vin: bigint | null;
}

/** The full index's outputs less those the attester profile deletes at floor `floor` (profile.ts). */
function expectedOutputs(full: SqlDatabase, floor: bigint): string[] {
  const rows = full.prepare<OutputRow>("SELECT * FROM outputs").safeIntegers(true).all();
  const live = new Set<bigint>();
  for (const row of rows) if (row.spent_tx_id === null || row.spent_tx_id >= floor) live.add(row.tx_id);
  return rows
    .filter(
      (row) =>
        !(row.spent_tx_id !== null && row.spent_tx_id < floor && (row.spent_vin !== 0n || !live.has(row.spent_tx_id))),
    )
    .map((row) => canonical(row))
    .sort();
}

/** Compares the attester indexes with the full one after a step (see the header). */
async function compareStep(
  chain: EquivalenceChain,
  routes: Route[],
  full: Built,
  attesters: Built[],
  step: string,
): Promise<{ pruned: number; keptForFunder: number; spentBelowFloor: number }> {
  const readers = [full, ...attesters].map((b) => new Reader(stack, chain, b.db));
  for (const route of routes) {
    const expected = (await readers[0].answer(route)).text;
    for (let i = 1; i < readers.length; i++)
      expect(
        (await readers[i].answer(route)).text,
        `${attesters[i - 1].name} at ${step}: ${routeName(route)}`,
      ).to.equal(expected);
  }
  // What the attest-api reads beside facts: a transaction's height, OP_RETURN and OP_CHECKZKP rows.
  const txids = new Set<string>();
  for (const raw of chain.blocksByHash.values()) {
    const parsed = stack.doge.parseBlock(raw);
    if (!parsed.ok) throw parsed.error;
    for (const tx of parsed.value.txs) txids.add(tx.txid);
  }
  const attestApiView = (queries: IndexQueries, txid: string) => {
    const tx = queries.tx(txid);
    return canonical(tx && { height: tx.height, opReturns: tx.opReturns, zkpUses: tx.zkpUses });
  };
  const fullQueries = new IndexQueries(full.db);
  for (const attester of attesters) {
    const queries = new IndexQueries(attester.db);
    for (const txid of txids)
      expect(attestApiView(queries, txid), `${attester.name} at ${step}: tx ${txid}`).to.equal(
        attestApiView(fullQueries, txid),
      );
  }

  // Every table but outputs, row for row.
  const tables = tableNames(full.db);
  expect(tables).to.include("outputs");
  for (const attester of attesters) {
    expect(tableNames(attester.db)).to.deep.equal(tables);
    for (const table of tables) {
      if (table === "outputs") continue;
      const strip = (rows: string[]) =>
        table === "meta" ? rows.filter((r) => !OWN_META.has((JSON.parse(r) as { key: string }).key)) : rows;
      expect(strip(rowsOf(attester.db, table)), `${attester.name} at ${step}: table ${table}`).to.deep.equal(
        strip(rowsOf(full.db, table)),
      );
    }
  }

  // outputs: the full index's less exactly the rows the rule deletes.
  const floorOf = (db: SqlDatabase) =>
    BigInt(
      db.prepare<{ value: string }>("SELECT value FROM meta WHERE key = 'spends_pruned_below_tx_id'").get()?.value ?? 0,
    );
  const floor = floorOf(attesters[0].db);
  const expected = expectedOutputs(full.db, floor);
  for (const attester of attesters) {
    expect(floorOf(attester.db), `${attester.name} at ${step}: floor`).to.equal(floor);
    expect(rowsOf(attester.db, "outputs"), `${attester.name} at ${step}: outputs`).to.deep.equal(expected);
  }

  // The tracker's funder lookup (inscriptions.ts) answers alike for every transaction a later one may spend.
  const funder = `SELECT a.address FROM outputs o LEFT JOIN addresses a ON a.id = o.address_id
    WHERE o.spent_tx_id = ${TX_ID_OF_TXID} AND o.spent_vin = 0`;
  const spendable = full.db
    .prepare<{ txid: Buffer }>(
      `SELECT DISTINCT t.txid FROM outputs o JOIN txs t ON t.id = o.tx_id WHERE o.spent_tx_id IS NULL OR o.spent_tx_id >= ?`,
    )
    .all(floor);
  expect(spendable.length).to.be.greaterThan(0);
  const fullFunder = full.db.prepare(funder);
  for (const attester of attesters) {
    const attesterFunder = attester.db.prepare(funder);
    for (const { txid } of spendable) {
      const key = Buffer.from(txid);
      expect(attesterFunder.get(key), `${attester.name} at ${step}: funder of ${key.toString("hex")}`).to.deep.equal(
        fullFunder.get(key),
      );
    }
  }

  const fullCount = rowsOf(full.db, "outputs").length;
  const keptForFunder = full.db
    .prepare<{ n: number | bigint }>(
      `SELECT COUNT(*) AS n FROM outputs o WHERE o.spent_tx_id < ? AND o.spent_vin = 0
      AND EXISTS (SELECT 1 FROM outputs l WHERE l.tx_id = o.spent_tx_id AND (l.spent_tx_id IS NULL OR l.spent_tx_id >= ?))`,
    )
    .get(floor, floor)!.n;
  const spentBelowFloor = full.db
    .prepare<{ n: number | bigint }>("SELECT COUNT(*) AS n FROM outputs WHERE spent_tx_id < ?")
    .get(floor)!.n;
  return {
    pruned: fullCount - expected.length,
    keptForFunder: Number(keptForFunder),
    spentBelowFloor: Number(spentBelowFloor),
  };
}

for (const backend of ["sqlite", "postgres"] as const) {
  describe(`attester profile [${backend}]`, function () {
    this.timeout(600_000);
    const cleanups: (() => Promise<void> | void)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });
    const newIndex = async (): Promise<SqlDatabase> => {
      if (backend === "sqlite") {
        const db = openIndexerDatabase(":memory:");
        cleanups.push(() => db.close());
        return db;
      }
      const database = await createTestDatabase();
      cleanups.push(() => database.drop());
      const db = openIndexerDatabase(database.url);
      cleanups.push(() => db.close());
      return db;
    };

    it("answers every attester read as a full index does, before and after reorgs, with spent outputs below the reorg limit gone", async () => {
      const chain = await devnetChain();
      const fixture = readFixture(chain.name);
      const source = new SteppedChainSource(chain);
      const build = async (name: string, options: Partial<IndexerOptions>): Promise<Built> => {
        const db = await newIndex();
        return { name, db, indexer: indexerOf(db, source, chain, options) };
      };
      const full = await build("full", {});
      const attesters = [
        await build("attester", { profile: "attester" }),
        // Read indexes dropped on every sync: pruned by the pass at the catch-up's end.
        await build("attester (deferred indexes)", { profile: "attester", deferIndexesBehind: 0 }),
      ];
      let last = { pruned: 0, keptForFunder: 0, spentBelowFloor: 0 };
      let compared = 0;
      for (const [i, step] of chain.steps.entries()) {
        source.active = step.blocks;
        for (const built of [full, ...attesters]) await built.indexer.syncOnce();
        // The fixture's attester routes at its snapshots; at the other steps only the tables.
        // On PostgreSQL (a round trip per statement) every fifth of them, to keep the suite near a minute.
        const stride = backend === "postgres" ? 5 : 1;
        const routes = step.snapshot
          ? fixture.snapshots[step.snapshot]
              .map(([route]) => route)
              .filter((r) => {
                const kind = routeKind(r);
                return kind === "history" || kind === "attester";
              })
              .filter((_, j) => j % stride === 0)
          : [];
        if (step.snapshot) expect(routes.length * stride, step.snapshot).to.be.greaterThan(1000);
        compared += routes.length;
        last = await compareStep(chain, routes, full, attesters, step.snapshot ?? `step ${i}`);
      }
      expect(compared * (backend === "postgres" ? 5 : 1)).to.be.greaterThan(5000);
      // Every output spent below the floor is gone but those kept for the funder lookup (on this
      // chain most transactions have one input and unspent change: 43 of 109 go, 66 stay).
      expect(last.pruned + last.keptForFunder).to.equal(last.spentBelowFloor);
      expect(last.pruned).to.be.greaterThan(0);
      expect(last.keptForFunder).to.be.greaterThan(0);
      if (backend === "sqlite") {
        const bytes = (db: SqlDatabase) =>
          Number(db.prepare<{ n: number }>("SELECT SUM(payload) AS n FROM dbstat WHERE name = 'outputs'").get()!.n);
        expect(bytes(attesters[0].db)).to.be.lessThan(bytes(full.db));
        expect(bytes(attesters[1].db)).to.be.lessThan(bytes(full.db));
      }
    });

    it("refuses a rollback below the height it has pruned to, where a full index rolls back", async () => {
      const chain = await devnetChain();
      const branch = chain.steps.find((s) => s.snapshot === "branch-a")!.blocks;
      const source = new SteppedChainSource(chain);
      const full = indexerOf(await newIndex(), source, chain, {});
      const attester = indexerOf(await newIndex(), source, chain, { profile: "attester" });
      source.active = branch;
      for (const indexer of [full, attester]) await indexer.syncOnce();
      // The node goes back 2 blocks (the reorg limit): both roll back.
      source.active = branch.slice(0, branch.length - REORG_DEPTH);
      for (const indexer of [full, attester]) expect((await indexer.syncOnce()).rolledBack).to.equal(REORG_DEPTH);
      // One more: 1 block below the new tip, 3 below the highest, whose spends the attester index deleted.
      source.active = branch.slice(0, branch.length - REORG_DEPTH - 1);
      expect((await full.syncOnce()).rolledBack).to.equal(1);
      let refused: unknown = null;
      await attester.syncOnce().catch((error: unknown) => {
        refused = error;
      });
      expect(refused).to.be.instanceOf(ReorgTooDeepError);
      expect(attester.indexedHeight()).to.equal(chain.startHeight + branch.length - REORG_DEPTH - 1);
    });

    it("refuses to open an index with another profile than it was built with", async () => {
      const chain = await devnetChain();
      const source = new SteppedChainSource(chain);
      source.active = chain.steps[0].blocks;
      const profiles: IndexProfile[] = ["full", "attester"];
      for (const [built, other] of [profiles, [...profiles].reverse()]) {
        const db = await newIndex();
        await indexerOf(db, source, chain, { profile: built }).syncOnce();
        expect(() => indexerOf(db, source, chain, { profile: other })).to.throw(
          IndexProfileMismatchError,
          new RegExp(`built with --profile ${built}, not ${other}: start the indexer with --profile ${built}`),
        );
        expect(indexerOf(db, source, chain, { profile: built }).indexedHeight()).to.equal(
          chain.startHeight + source.active.length - 1,
        );
      }
      // An index from before profiles (no profile recorded) is a full one.
      const old = await newIndex();
      await indexerOf(old, source, chain, {}).syncOnce();
      old.prepare("DELETE FROM meta WHERE key = 'profile'").run();
      expect(() => indexerOf(old, source, chain, { profile: "attester" })).to.throw(
        IndexProfileMismatchError,
        /built with --profile full/,
      );
    });
  });
}

describe("attester profile: readers and the daemon", function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "attester-profile-"));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const buildFile = async (name: string, profile: IndexProfile): Promise<string> => {
    const chain = await devnetChain();
    const file = path.join(dir, name);
    const db = openIndexerDatabase(file);
    try {
      const source = new SteppedChainSource(chain);
      source.active = chain.steps[1].blocks;
      await indexerOf(db, source, chain, { profile }).syncOnce();
    } finally {
      db.close();
    }
    return file;
  };

  it("the explorer's and the custody services' reader refuses an attester index; the attester's takes both", async () => {
    const attester = await buildFile("attester.sqlite", "attester");
    const full = await buildFile("full.sqlite", "full");
    const refusal =
      /cannot be read: it was built with `dogeos indexer --profile attester`, which deletes spent outputs this reader needs/;
    expect(() => openIndexReader(attester)).to.throw(IndexUnreadableError, refusal);
    // The daemons' start (waitForIndex) does not wait for it to change: the refusal is final.
    let refused: unknown = null;
    await waitForIndex(attester, { intervalMs: 10 }).catch((error: unknown) => {
      refused = error;
    });
    expect(refused).to.be.instanceOf(IndexUnreadableError);
    expect((refused as Error).message).to.match(refusal);
    expect((refused as Error).message).not.to.include("\n");
    for (const file of [attester, full]) {
      const db = openIndexReader(file, { profiles: INDEX_PROFILES });
      expect(new IndexQueries(db).status().indexedHeight).to.be.greaterThan(0);
      db.close();
    }
    openIndexReader(full).close();
  });

  it("prunes through outputs_by_spent_tx or the primary key, never a scan of outputs (SQLite plans)", async () => {
    const file = await buildFile("plans.sqlite", "attester");
    const db = openIndexerDatabase(file);
    try {
      const plan = (sql: string, params: number[]) =>
        db
          .prepare<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...params)
          .map((row) => row.detail);
      for (const [name, sql] of [
        ["releaseFunders", PRUNE_SQL.releaseFunders],
        ["pruneRange", PRUNE_SQL.pruneRange],
      ] as const) {
        const details = plan(sql, [10, 20, 20]);
        expect(details.join("; "), name).to.include("outputs_by_spent_tx");
        expect(
          details.filter((d) => /^SCAN (outputs|c|l)\b/.test(d) && !/USING/.test(d)),
          `${name}: ${details.join("; ")}`,
        ).to.deep.equal([]);
      }
      const chunk = plan(PRUNE_SQL.pruneChunk, [0, 10, 20, 20]);
      expect(chunk.join("; ")).to.match(/SEARCH outputs USING PRIMARY KEY \(tx_id>\? AND tx_id<\?\)/);
      const spend = plan(PRUNE_SQL.pruneSpend, [1, 0, 2, 0, 20]);
      expect(spend.join("; ")).to.match(/SEARCH outputs USING PRIMARY KEY \(tx_id=\? AND vout=\?\)/);
    } finally {
      db.close();
    }
  });

  it("the indexer daemon refuses an index built with another profile, in one line, before it asks the node anything", async () => {
    const attester = await buildFile("daemon.sqlite", "attester");
    const run = await runDaemonToExit("daemons/indexer/main.ts", [
      "--rpc-url",
      "http://user:pass@127.0.0.1:1",
      "--db",
      attester,
      "--network",
      "regtest",
    ]);
    expect(run.code).to.equal(2);
    const lines = run.stderr.split("\n").filter((line) => line.trim() !== "");
    expect(lines).to.deep.equal([
      `indexer: index ${attester} was built with --profile attester, not full: start the indexer with --profile attester, or build a full index in another database (--db)`,
    ]);
    const bad = await runDaemonToExit("daemons/indexer/main.ts", [
      "--rpc-url",
      "http://user:pass@127.0.0.1:1",
      "--db",
      attester,
      "--profile",
      "light",
    ]);
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/--profile must be full or attester, not "light"/);
  });
});
