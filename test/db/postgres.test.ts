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

  it("copies rows with binary COPY (copyRows): bigint, int, smallint, boolean, bytea and text round-trip exactly, NULLs included", () => {
    db.exec(
      `CREATE TABLE copied (id BIGINT PRIMARY KEY, big BIGINT, small INTEGER, tiny SMALLINT, flag BOOLEAN, bytes BYTEA, note TEXT, "offset" INTEGER)`,
    );
    const columns = [
      ["id", "bigint"],
      ["big", "bigint"],
      ["small", "int"],
      ["tiny", "smallint"],
      ["flag", "boolean"],
      ["bytes", "bytea"],
      ["note", "text"],
      ["offset", "int"],
    ] as const;
    // Text and bytes that COPY's text format would have to escape: tabs, newlines, backslashes, \N.
    const awkward = "tab\there\nnew line\\back\\slash \\N \r end é 🐕";
    const rows: unknown[][] = [
      [1, 2n ** 63n - 1n, 2 ** 31 - 1, 2 ** 15 - 1, true, Buffer.from("5c095c0a0d00ff", "hex"), awkward, 0],
      [2n, -(2n ** 63n), -(2 ** 31), -(2 ** 15), false, new Uint8Array([1, 2, 3]), "", -7],
      [3, Number.MAX_SAFE_INTEGER, 0, 0, 1, Buffer.alloc(0), "\\N", 9],
      [4, -Number.MAX_SAFE_INTEGER, -1, -1, 0, Buffer.alloc(70_000, 0x5c), "x".repeat(70_000), null],
      [5, null, null, null, null, null, null, null],
    ];
    expect(db.copyRows("copied", columns, rows)).to.equal(5);
    const back = db
      .prepare<Record<string, unknown>>(
        `SELECT id, big, small, tiny, flag, bytes, note, "offset" AS at FROM copied ORDER BY id`,
      )
      .safeIntegers(true)
      .all();
    expect(back).to.deep.equal([
      {
        id: 1n,
        big: 2n ** 63n - 1n,
        small: 2n ** 31n - 1n,
        tiny: 2n ** 15n - 1n,
        flag: 1n,
        bytes: Buffer.from("5c095c0a0d00ff", "hex"),
        note: awkward,
        at: 0n,
      },
      {
        id: 2n,
        big: -(2n ** 63n),
        small: -(2n ** 31n),
        tiny: -(2n ** 15n),
        flag: 0n,
        bytes: Buffer.from([1, 2, 3]),
        note: "",
        at: -7n,
      },
      {
        id: 3n,
        big: BigInt(Number.MAX_SAFE_INTEGER),
        small: 0n,
        tiny: 0n,
        flag: 1n,
        bytes: Buffer.alloc(0),
        note: "\\N",
        at: 9n,
      },
      {
        id: 4n,
        big: -BigInt(Number.MAX_SAFE_INTEGER),
        small: -1n,
        tiny: -1n,
        flag: 0n,
        bytes: Buffer.alloc(70_000, 0x5c),
        note: "x".repeat(70_000),
        at: null,
      },
      { id: 5n, big: null, small: null, tiny: null, flag: null, bytes: null, note: null, at: null },
    ]);
    // Large enough for the encoder to grow its buffer many times; rows stay in order.
    const many = Array.from({ length: 20_000 }, (_, i) => [
      100 + i,
      BigInt(i) * 3n,
      i,
      i % 100,
      i % 2,
      Buffer.from([i & 0xff]),
      `n${i}`,
      i,
    ]);
    expect(db.copyRows("copied", columns, many)).to.equal(20_000);
    expect(
      db
        .prepare("SELECT COUNT(*) AS n, SUM(big) AS total, MAX(note) AS last FROM copied WHERE id >= 100")
        .safeIntegers(true)
        .get(),
    ).to.deep.equal({ n: 20_000n, total: 3n * ((19_999n * 20_000n) / 2n), last: "n9999" });
  });

  it("copies nothing of a failed copy, and a failed copy inside a transaction rolls the whole transaction back", () => {
    db.exec("CREATE TABLE copied_keys (id BIGINT PRIMARY KEY, note TEXT)");
    const columns = [
      ["id", "bigint"],
      ["note", "text"],
    ] as const;
    const count = () => db.prepare<{ n: number }>("SELECT COUNT(*) AS n FROM copied_keys").get()!.n;
    // COPY only inserts: a key the table holds (or one the copy repeats) refuses the whole copy.
    db.copyRows("copied_keys", columns, [[1, "one"]]);
    let failure: unknown;
    try {
      db.copyRows("copied_keys", columns, [
        [2, "two"],
        [1, "again"],
      ]);
    } catch (error) {
      failure = error;
    }
    expect(failure).to.be.instanceOf(PostgresError);
    expect((failure as PostgresError).code).to.equal("23505");
    expect(count()).to.equal(1);
    expect(() =>
      db.transaction(() => {
        db.prepare("INSERT INTO copied_keys (id, note) VALUES (?, ?)").run(10, "before");
        expect(db.copyRows("copied_keys", columns, [[11, "copied"]])).to.equal(1);
        db.copyRows("copied_keys", columns, [
          [12, "x"],
          [12, "y"],
        ]);
      })(),
    ).to.throw(PostgresError, /duplicate key/);
    expect(db.inTransaction).to.equal(false);
    expect(count()).to.equal(1);
    // A value its column cannot take is refused before anything is sent, naming the row and column.
    expect(() =>
      db.transaction(() => {
        db.copyRows("copied_keys", columns, [[20, "fine"]]);
        db.copyRows("copied_keys", columns, [
          [21, "fine"],
          [1.5, "not an integer"],
        ]);
      })(),
    ).to.throw(PostgresError, /row 1, column id \(bigint\)/);
    expect(() => db.copyRows("copied_keys", columns, [[2n ** 63n, "too big"]])).to.throw(PostgresError, /range/);
    expect(() => db.copyRows("copied_keys", [["id", "int"]], [[2 ** 31]])).to.throw(PostgresError, /range/);
    expect(() => db.copyRows("copied_keys; DROP TABLE kv", columns, [])).to.throw(
      PostgresError,
      /not a plain identifier/,
    );
    expect(count()).to.equal(1);
    // The connection goes on working, and an empty copy copies nothing.
    expect(db.copyRows("copied_keys", columns, [])).to.equal(0);
    expect(db.copyRows("copied_keys", columns, [[2, null]])).to.equal(1);
    expect(db.prepare("SELECT id, note FROM copied_keys ORDER BY id").all()).to.deep.equal([
      { id: 1, note: "one" },
      { id: 2, note: null },
    ]);
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
