import { expect } from "chai";
import { PostgresDatabase, PostgresError, openPostgres } from "../../src/db/postgres";
import { testPostgresUrl } from "../helpers/postgres";

describe("PostgreSQL behind the synchronous SQL surface (src/db/postgres.ts)", function () {
  this.timeout(60_000);
  const url = testPostgresUrl();
  let db: PostgresDatabase;
  before(() => {
    db = openPostgres(url(), { conflictKeys: { kv: ["k"] } });
    db.exec(
      `CREATE TABLE kv (k TEXT PRIMARY KEY, big BIGINT, small INTEGER, bytes BYTEA, flag BOOLEAN, "offset" INTEGER)`,
    );
  });
  after(() => db?.close());

  it("gives values as better-sqlite3 does: numbers, or bigint for every integer with safeIntegers; bytea as Buffer; booleans as 1/0", () => {
    db.prepare("INSERT OR REPLACE INTO kv (k, big, small, bytes, flag, offset) VALUES (?, ?, ?, ?, ?, ?)").run(
      "a",
      2n ** 62n,
      7,
      Buffer.from("00ff", "hex"),
      true,
      3,
    );
    expect(db.prepare("SELECT k, small, bytes, flag, offset FROM kv WHERE k = ?").get("a")).to.deep.equal({
      k: "a",
      small: 7,
      bytes: Buffer.from("00ff", "hex"),
      flag: 1,
      offset: 3,
    });
    const exact = db
      .prepare<{ big: bigint; small: bigint; n: bigint; total: bigint }>(
        "SELECT big, small, COUNT(*) OVER () AS n, SUM(big) OVER () AS total FROM kv WHERE k = ?",
      )
      .safeIntegers(true)
      .get("a")!;
    expect(exact).to.deep.equal({ big: 2n ** 62n, small: 7n, n: 1n, total: 2n ** 62n });
    // A Uint8Array that is not a Buffer is still bytes.
    db.prepare("INSERT OR REPLACE INTO kv (k, bytes) VALUES (?, ?)").run("b", new Uint8Array([1, 2, 3]));
    expect(
      db.prepare<{ bytes: Buffer }>("SELECT bytes FROM kv WHERE k = @k").get({ k: "b" })!.bytes.toString("hex"),
    ).to.equal("010203");
    expect(db.prepare("SELECT k FROM kv WHERE k = ?").get("none")).to.equal(undefined);
  });

  it("upserts with INSERT OR REPLACE and counts changed rows", () => {
    const put = db.prepare("INSERT OR REPLACE INTO kv (k, small) VALUES (?, ?)");
    put.run("c", 1);
    put.run("c", 2);
    expect(db.prepare("SELECT small FROM kv WHERE k = 'c'").get()).to.deep.equal({ small: 2 });
    expect(db.prepare("UPDATE kv SET small = small + 1 WHERE k IN (?, ?)").run("c", "a").changes).to.equal(2);
  });

  it("rolls a failed transaction back, and a failed nested one back to its savepoint only", () => {
    const put = db.prepare("INSERT INTO kv (k, small) VALUES (?, ?)");
    expect(() =>
      db.transaction(() => {
        put.run("t1", 1);
        put.run("t1", 2);
      })(),
    ).to.throw(PostgresError, /duplicate key/);
    expect(db.prepare("SELECT k FROM kv WHERE k = 't1'").get()).to.equal(undefined);
    expect(db.inTransaction).to.equal(false);
    db.transaction(() => {
      put.run("t2", 1);
      expect(db.inTransaction).to.equal(true);
      expect(() =>
        db.transaction(() => {
          put.run("t3", 1);
          throw new Error("inner fails");
        })(),
      ).to.throw("inner fails");
    })();
    expect(db.prepare("SELECT k FROM kv WHERE k IN ('t2', 't3') ORDER BY k").all()).to.deep.equal([{ k: "t2" }]);
  });

  it("answers a bad statement with the server's error and code, and goes on working", () => {
    let failure: unknown;
    try {
      db.prepare("SELECT nope FROM kv").all();
    } catch (error) {
      failure = error;
    }
    expect(failure).to.be.instanceOf(PostgresError);
    expect((failure as PostgresError).code).to.equal("42703");
    expect(db.prepare("SELECT 1 AS one").get()).to.deep.equal({ one: 1 });
  });

  it("answers every call with its own rows after a call it stopped waiting for (a late answer is dropped, never handed to the next call)", () => {
    const impatient = openPostgres(url(), { answerWaitMs: 300 });
    try {
      expect(() => impatient.prepare("SELECT pg_sleep(1) AS slept, 1 AS first").get()).to.throw(
        PostgresError,
        /did not answer within 300 ms/,
      );
      // Let the slow statement finish, so that its answer is waiting when the next call asks.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_500);
      expect(impatient.prepare("SELECT 2 AS second").get()).to.deep.equal({ second: 2 });
      expect(impatient.prepare("SELECT 3 AS third").get()).to.deep.equal({ third: 3 });
    } finally {
      impatient.close();
    }
  });

  it("refuses writes on a read-only handle", () => {
    const reader = openPostgres(url(), { readOnly: true, conflictKeys: { kv: ["k"] } });
    try {
      expect(reader.prepare("SELECT COUNT(*) AS n FROM kv WHERE k = 'a'").get()).to.deep.equal({ n: 1 });
      expect(() => reader.prepare("INSERT INTO kv (k) VALUES ('r')").run()).to.throw(PostgresError, /read-only/);
    } finally {
      reader.close();
    }
  });

  it("refuses an unreachable server with a clear error", () => {
    expect(() => openPostgres("postgres://postgres@127.0.0.1:1/none")).to.throw(PostgresError, /ECONNREFUSED|connect/);
  });
});
