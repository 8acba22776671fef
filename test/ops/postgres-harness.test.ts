/**
 * The PostgreSQL test harness (test/helpers/postgres.ts) does what the backend's and the replica's
 * tests rely on: each suite gets an empty database of its own, dropped afterwards; a replica made
 * with pg_basebackup -R streams what the primary writes, is caught up once waitForReplay returns,
 * and refuses writes; stopping a cluster removes its server and its directory.
 */
import { expect } from "chai";
import fs from "node:fs";
import { until } from "../helpers/wait";
import {
  PgCluster,
  createTestDatabase,
  pauseReplay,
  pgQuery,
  startCluster,
  startReplica,
  testPostgresUrl,
  waitForReplay,
} from "../helpers/postgres";

describe("PostgreSQL test harness", function () {
  this.timeout(180_000);

  describe("a suite's own database", () => {
    const url = testPostgresUrl();
    it("is empty, UTF8 with the C collation, and writable", async () => {
      const tables = await pgQuery(
        url(),
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
      );
      expect(tables).to.deep.equal([]);
      const [settings] = await pgQuery<{ encoding: string; collate: string }>(
        url(),
        "SELECT pg_encoding_to_char(encoding) AS encoding, datcollate AS collate FROM pg_database WHERE datname = current_database()",
      );
      expect(settings).to.deep.equal({ encoding: "UTF8", collate: "C" });
      await pgQuery(url(), "CREATE TABLE t (k TEXT PRIMARY KEY)");
      await pgQuery(url(), "INSERT INTO t VALUES ($1), ($2)", ["b", "B"]);
      // Bytewise ordering, as SQLite's: upper case first.
      expect((await pgQuery<{ k: string }>(url(), "SELECT k FROM t ORDER BY k")).map((r) => r.k)).to.deep.equal([
        "B",
        "b",
      ]);
    });
  });

  it("createTestDatabase gives a different database each time, and drop removes it even with a connection open", async () => {
    const first = await createTestDatabase();
    const second = await createTestDatabase();
    try {
      expect(first.name).to.not.equal(second.name);
      await pgQuery(first.url, "CREATE TABLE only_here (x INT)");
      const seen = await pgQuery(
        second.url,
        "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 'only_here'",
      );
      expect(seen).to.deep.equal([{ n: 0 }]);
    } finally {
      await second.drop();
    }
    const { Client } = await import("pg");
    const held = new Client({ connectionString: first.url });
    await held.connect();
    held.on("error", () => undefined);
    await first.drop();
    let failure: unknown;
    try {
      await pgQuery(first.url, "SELECT 1");
    } catch (error) {
      failure = error;
    }
    expect(String(failure)).to.match(/does not exist/);
    await held.end().catch(() => undefined);
  });

  describe("a primary and a streaming replica", () => {
    let primary: PgCluster;
    let replica: PgCluster;
    before(async () => {
      primary = await startCluster({ primary: true });
      replica = await startReplica(primary);
    });
    after(async () => {
      await replica?.stop();
      await primary?.stop();
    });

    it("a table written on the primary is on the replica once waitForReplay returns", async () => {
      await primary.query("CREATE TABLE blocks (height INT PRIMARY KEY, hash TEXT NOT NULL)");
      await primary.query("INSERT INTO blocks SELECT g, md5(g::text) FROM generate_series(0, 999) AS g");
      const lsn = await waitForReplay(primary, replica);
      expect(lsn).to.match(/^[0-9A-F]+\/[0-9A-F]+$/);
      const onReplica = await replica.query(
        "SELECT count(*)::int AS n, max(height) AS top, md5(string_agg(hash, '' ORDER BY height)) AS digest FROM blocks",
      );
      const onPrimary = await primary.query(
        "SELECT count(*)::int AS n, max(height) AS top, md5(string_agg(hash, '' ORDER BY height)) AS digest FROM blocks",
      );
      expect(onReplica).to.deep.equal(onPrimary);
      expect(onReplica[0].n).to.equal(1000);

      // A later write too: the replica keeps following.
      await primary.query("DELETE FROM blocks WHERE height >= 500");
      await waitForReplay(primary, replica);
      expect(await replica.query("SELECT count(*)::int AS n FROM blocks")).to.deep.equal([{ n: 500 }]);
    });

    it("the replica is a hot standby that refuses writes", async () => {
      expect(await replica.query("SELECT pg_is_in_recovery() AS standby")).to.deep.equal([{ standby: true }]);
      expect(await primary.query("SELECT pg_is_in_recovery() AS standby")).to.deep.equal([{ standby: false }]);
      const senders = await primary.query("SELECT state FROM pg_stat_replication");
      expect(senders).to.deep.equal([{ state: "streaming" }]);
      for (const write of ["INSERT INTO blocks VALUES (5000, 'x')", "CREATE TABLE nope (x INT)"]) {
        let failure: unknown;
        try {
          await replica.query(write);
        } catch (error) {
          failure = error;
        }
        expect(failure, write).to.be.an("error");
        expect((failure as { code?: string }).code, write).to.equal("25006"); // read_only_sql_transaction
      }
    });

    it("pauseReplay holds the replica at what it had replayed while it receives more, until resumed", async () => {
      await pauseReplay(replica);
      try {
        await primary.query("INSERT INTO blocks VALUES (7000, 'while paused')");
        const [{ lsn }] = await primary.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn");
        // Received (streamed) but not applied.
        await until(
          "the replica to receive the write",
          async () => {
            const [row] = await replica.query<{ received: boolean }>(
              "SELECT pg_last_wal_receive_lsn() >= $1::pg_lsn AS received",
              [lsn],
            );
            return row.received;
          },
          30_000,
        );
        expect(await replica.query("SELECT count(*)::int AS n FROM blocks WHERE height = 7000")).to.deep.equal([
          { n: 0 },
        ]);
        const [{ behind }] = await replica.query<{ behind: boolean }>(
          "SELECT pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()) > 0 AS behind",
        );
        expect(behind).to.equal(true);
      } finally {
        await pauseReplay(replica, false);
      }
      await waitForReplay(primary, replica);
      expect(await replica.query("SELECT hash FROM blocks WHERE height = 7000")).to.deep.equal([
        { hash: "while paused" },
      ]);
    });

    it("stop() ends the server and removes its directory", async () => {
      const extra = await startCluster();
      expect(fs.existsSync(extra.dataDir)).to.equal(true);
      expect(await extra.query("SELECT 1 AS one")).to.deep.equal([{ one: 1 }]);
      await extra.stop();
      expect(fs.existsSync(extra.dir)).to.equal(false);
      let failure: unknown;
      try {
        await extra.query("SELECT 1");
      } catch (error) {
        failure = error;
      }
      expect(String(failure)).to.match(/ECONNREFUSED/);
      await extra.stop(); // idempotent
    });
  });
});
