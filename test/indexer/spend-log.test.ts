/**
 * The catch-up logs: schema version 14's spend log (schema.ts SPEND_LOG) and version 15's balance
 * log (BALANCE_LOG). While a catch-up defers the read indexes, a SQLite index appends the spends of
 * outputs it has already written to spend_log instead of marking them on the outputs' rows, and
 * each batch's balance changes to balance_log instead of adding them into address_stats; when the
 * catch-up ends it marks the spends in key order and adds the changes up per address, in id order.
 * On the devnet equivalence chain (payments, DRC-20, Doginals and v1 inscriptions, two reorgs),
 * with a recent window of two transactions so that most spends meet written outputs:
 * - in the middle of a catch-up the logs hold spends whose outputs still read as unspent and
 *   balance changes address_stats lacks, so every read of spent state or of an address's counters
 *   refuses with INDEX_BEHIND while a transaction's inputs read the log;
 * - a restart in the middle marks the logged spends before it fills the UTXO cache (which must
 *   hold unspent outputs only);
 * - a reorg met in the middle rolls back through the logged spends;
 * and each ends with the rows of an index that never logged a spend.
 */
import { expect } from "chai";
import { NETWORKS } from "../../src/doge";
import { Refusal } from "../../src/errors";
import { openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { IndexQueries } from "../../src/indexer/queries";
import { IndexerStore } from "../../src/indexer/store";
import { dumpDatabase } from "../helpers/db-dump";
import { EquivalenceChain, SteppedChainSource, devnetChain } from "./equivalence/chain";

type Db = ReturnType<typeof openIndexerDatabase>;

const dumpText = (db: Db): string =>
  JSON.stringify(dumpDatabase(db, ["meta"]), (_, v) => (typeof v === "bigint" ? v.toString() : v));

const count = (db: Db, sql: string): number => Number(db.prepare<{ n: number }>(sql).get()!.n);

/**
 * An indexer over `db`, one block a batch with a recent window of two transactions, that defers the
 * read indexes (so logs spends) from the first block, or with `logging` false never defers them; it
 * stops once it has indexed `stopAt`.
 */
function loggingIndexer(
  chain: EquivalenceChain,
  db: Db,
  source: SteppedChainSource,
  stopAt = Infinity,
  logging = true,
) {
  const events: { event: string; fields?: Record<string, unknown> }[] = [];
  const indexer: Indexer = new Indexer({
    store: new IndexerStore(db, { recentTxs: 2 }),
    source,
    network: NETWORKS[chain.network],
    startHeight: chain.startHeight,
    deferIndexesBehind: logging ? 0 : 1_000_000,
    batchBlocks: 1,
    log: (event, fields) => {
      events.push({ event, fields });
      if (event === "indexed" && Number(fields?.height) >= stopAt) indexer.stop();
    },
  });
  return { indexer, events };
}

/** What `f` throws, as a Refusal (fails the test when it returns or throws anything else). */
function refusalOf(f: () => unknown): Refusal {
  try {
    f();
  } catch (error) {
    if (error instanceof Refusal) return error;
    throw error;
  }
  expect.fail("expected a refusal");
}

describe("the logs of a catch-up: spends (schema version 14) and balance changes (version 15)", function () {
  this.timeout(120_000);
  let chain: EquivalenceChain;

  before(async () => {
    chain = await devnetChain();
  });

  /**
   * Indexes `steps` (the blocks the source offers, in turn), each stopped after the height given
   * with it (or run to its end), a new indexer for each; answers the dump of every table at the end.
   * `logging` false: the same batches without a catch-up's deferral, so nothing is ever logged.
   */
  async function indexedThrough(
    steps: { blocks: EquivalenceChain["steps"][number]["blocks"]; stopAt?: number }[],
    logging: boolean,
  ) {
    const db = openIndexerDatabase(":memory:");
    const source = new SteppedChainSource(chain);
    for (const step of steps) {
      source.active = step.blocks;
      await loggingIndexer(chain, db, source, step.stopAt, logging).indexer.syncOnce();
      if (!logging) {
        expect(count(db, "SELECT COUNT(*) AS n FROM spend_log"), "without a deferred catch-up").to.equal(0);
        expect(count(db, "SELECT COUNT(*) AS n FROM balance_log"), "without a deferred catch-up").to.equal(0);
      }
    }
    const dump = dumpText(db);
    db.close();
    return dump;
  }

  /** An index of the final chain stopped 8 blocks short of its tip, in a catch-up, its spends and balance changes logged. */
  async function stoppedInTheMiddle() {
    const db = openIndexerDatabase(":memory:");
    const source = new SteppedChainSource(chain);
    const last = chain.steps[chain.steps.length - 1].blocks;
    source.active = last;
    // 8 blocks short of the tip: the chain's first blocks only mature coinbases, its last spend.
    const middle = chain.startHeight + last.length - 9;
    await loggingIndexer(chain, db, source, middle).indexer.syncOnce();
    expect(count(db, "SELECT MAX(height) AS n FROM blocks")).to.equal(middle);
    expect(count(db, "SELECT COUNT(*) AS n FROM spend_log")).to.be.greaterThan(5);
    expect(count(db, "SELECT COUNT(*) AS n FROM balance_log")).to.be.greaterThan(5);
    return { db, source, last, middle };
  }

  it("logs spends of written outputs and balance changes in the middle of a catch-up, refuses reads of spent state and of counters until it ends, and ends with the rows of an index that never logged", async () => {
    const { db, source, last, middle } = await stoppedInTheMiddle();
    // A logged spend names an output whose row still reads unspent, and an address that holds it.
    const spend = db
      .prepare<{ txid: Buffer; vout: number; spender: Buffer; spent_vin: number; address: string }>(
        `SELECT t.txid, s.vout, st.txid AS spender, s.spent_vin, a.address FROM spend_log s
        JOIN outputs o ON o.tx_id = s.tx_id AND o.vout = s.vout JOIN txs t ON t.id = s.tx_id JOIN txs st ON st.id = s.spent_tx_id
        JOIN addresses a ON a.id = o.address_id WHERE o.spent_tx_id IS NULL ORDER BY s.spent_tx_id DESC LIMIT 1`,
      )
      .get()!;
    expect(spend).to.not.equal(undefined);
    const txid = spend.txid.toString("hex");
    const spender = spend.spender.toString("hex");

    const queries = new IndexQueries(db);
    for (const [name, read] of [
      ["a UTXO page", () => queries.utxos(spend.address, null, 25)],
      ["a transaction with its outputs' spenders", () => queries.tx(txid)],
      ["an outspend", () => queries.outspend(txid, spend.vout)],
      ["an unspent output", () => queries.unspentOutput(txid, spend.vout)],
      ["a balance", () => queries.balance(spend.address)],
      ["a history page", () => queries.history(spend.address, null, 25)],
      ["output totals", () => queries.txoStats(spend.address)],
      ["the busiest addresses", () => queries.busiestAddresses(3)],
    ] as const) {
      const refusal = refusalOf(read);
      expect(refusal.code, name).to.equal("INDEX_BEHIND");
      expect(refusal.kind, name).to.equal("unavailable");
      expect(refusal.retryAfterSeconds, name).to.equal(5);
      expect(refusal.details, name).to.include({ indexedHeight: middle });
    }
    // The spender's inputs are read from the log as from the outputs' rows.
    const inputs = queries.txInputs(spender);
    expect(inputs.get(spend.spent_vin)).to.deep.include({ prevTxid: txid, prevVout: spend.vout });

    // The catch-up goes on in another indexer (this one was stopped) and ends: the log is marked.
    const rest = loggingIndexer(chain, db, source);
    await rest.indexer.syncOnce();
    expect(count(db, "SELECT COUNT(*) AS n FROM spend_log")).to.equal(0);
    expect(count(db, "SELECT COUNT(*) AS n FROM balance_log")).to.equal(0);
    // (The restart marked the spends the first one logged before it filled its UTXO cache; the rest,
    // and every balance change, are merged at the end.)
    const merged = rest.events.find((e) => e.event === "catch_up_logs_merged");
    expect(merged?.fields?.spends).to.be.greaterThan(0);
    expect(merged?.fields?.addresses).to.be.greaterThan(0);
    expect(dumpText(db)).to.equal(await indexedThrough([{ blocks: last, stopAt: middle }, { blocks: last }], false));
    expect(queries.outspend(txid, spend.vout)!.spent).to.deep.include({ txid: spender, vin: spend.spent_vin });
    expect(queries.txInputs(spender)).to.deep.equal(inputs);
    db.close();
  });

  it("marks the logged spends before a restart fills the UTXO cache, which then holds unspent outputs only", async () => {
    const { db, source, last, middle } = await stoppedInTheMiddle();
    const store = new IndexerStore(db);
    const logged = count(db, "SELECT COUNT(*) AS n FROM balance_log");
    expect(logged).to.be.greaterThan(5);
    const cached = store.warmUtxoCache();
    expect(count(db, "SELECT COUNT(*) AS n FROM spend_log")).to.equal(0);
    // The balance log is the end's to merge: the cache does not need it.
    expect(count(db, "SELECT COUNT(*) AS n FROM balance_log")).to.equal(logged);
    expect(cached).to.equal(count(db, "SELECT COUNT(*) AS n FROM outputs WHERE spent_tx_id IS NULL"));
    expect(cached).to.be.lessThan(count(db, "SELECT COUNT(*) AS n FROM outputs"));

    const rest = loggingIndexer(chain, db, source);
    await rest.indexer.syncOnce();
    expect(dumpText(db)).to.equal(await indexedThrough([{ blocks: last, stopAt: middle }, { blocks: last }], false));
    db.close();
  });

  it("rolls back through logged spends and balance changes when a reorg meets a catch-up in its middle", async () => {
    const branchA = chain.steps.findIndex((step) => step.snapshot === "branch-a");
    expect(branchA).to.be.greaterThan(0);
    const orphaned = chain.steps[branchA].blocks;
    const final = chain.steps[chain.steps.length - 1].blocks;
    // The fork: the first height where branch A and the final chain differ.
    const fork = orphaned.findIndex((block, i) => final[i]?.hash !== block.hash);
    expect(fork).to.be.greaterThan(0);

    const db = openIndexerDatabase(":memory:");
    const source = new SteppedChainSource(chain);
    source.active = orphaned;
    // Stopped on the orphaned branch, one block short of its tip: still catching up, spends logged.
    const first = loggingIndexer(chain, db, source, chain.startHeight + fork);
    await first.indexer.syncOnce();
    expect(first.indexer.store.tip()!.hash).to.equal(orphaned[fork].hash);
    expect(count(db, "SELECT COUNT(*) AS n FROM spend_log")).to.be.greaterThan(5);
    expect(count(db, "SELECT COUNT(*) AS n FROM balance_log")).to.be.greaterThan(5);

    source.active = final;
    const rest = loggingIndexer(chain, db, source);
    const result = await rest.indexer.syncOnce();
    expect(result.rolledBack).to.be.greaterThan(0);
    expect(count(db, "SELECT COUNT(*) AS n FROM spend_log")).to.equal(0);
    expect(count(db, "SELECT COUNT(*) AS n FROM balance_log")).to.equal(0);
    expect(dumpText(db)).to.equal(
      await indexedThrough([{ blocks: orphaned, stopAt: chain.startHeight + fork }, { blocks: final }], false),
    );
    db.close();
  });
});
