import { expect } from "chai";
import { DialectError, toPostgres } from "../../src/db/dialect";

const KEYS = { outputs: ["txid", "vout"], meta: ["key"], inscription_locations: ["inscription_id"] };

describe("SQLite to PostgreSQL rewrites (src/db/dialect.ts)", () => {
  it("numbers ? placeholders in order and leaves string literals alone", () => {
    expect(toPostgres("SELECT '?', x FROM t WHERE a = ? AND b = 'it''s ?' AND c = ?", KEYS)).to.deep.equal({
      text: "SELECT '?', x FROM t WHERE a = $1 AND b = 'it''s ?' AND c = $2",
      names: null,
      count: 2,
    });
  });

  it("maps @name placeholders to $n once per name", () => {
    expect(toPostgres("INSERT INTO t (a, b, c) VALUES (@a, @b, @a)", KEYS)).to.deep.equal({
      text: "INSERT INTO t (a, b, c) VALUES ($1, $2, $1)",
      names: ["a", "b"],
      count: 2,
    });
    expect(() => toPostgres("SELECT @a, ?", KEYS)).to.throw(DialectError, /mixes/);
  });

  it("turns INSERT OR REPLACE into an upsert on the table's key and INSERT OR IGNORE into DO NOTHING", () => {
    expect(toPostgres("INSERT OR REPLACE INTO outputs (txid, vout, value) VALUES (?, ?, ?)", KEYS).text).to.equal(
      "INSERT INTO outputs (txid, vout, value) VALUES ($1, $2, $3) ON CONFLICT (txid, vout) DO UPDATE SET value = EXCLUDED.value",
    );
    expect(toPostgres("INSERT OR IGNORE INTO x (a) VALUES (?)", KEYS).text).to.equal(
      "INSERT INTO x (a) VALUES ($1) ON CONFLICT DO NOTHING",
    );
    expect(() => toPostgres("INSERT OR REPLACE INTO unknown (a) VALUES (?)", KEYS)).to.throw(
      DialectError,
      /key is not known/,
    );
  });

  it("quotes the column offset but not the OFFSET clause, compares IS ? as NOT DISTINCT, and keeps camelCase aliases", () => {
    expect(
      toPostgres("INSERT OR REPLACE INTO inscription_locations (inscription_id, offset) VALUES (?, ?)", KEYS).text,
    ).to.equal(
      'INSERT INTO inscription_locations (inscription_id, "offset") VALUES ($1, $2) ON CONFLICT (inscription_id) DO UPDATE SET "offset" = EXCLUDED."offset"',
    );
    expect(
      toPostgres("SELECT l.offset, offset AS to_offset FROM l WHERE a IS ? ORDER BY offset LIMIT ? OFFSET ?", KEYS)
        .text,
    ).to.equal(
      'SELECT l."offset", "offset" AS to_offset FROM l WHERE a IS NOT DISTINCT FROM $1 ORDER BY "offset" LIMIT $2 OFFSET $3',
    );
    expect(toPostgres("SELECT a AS rowKey FROM t", KEYS).text).to.equal('SELECT a AS "rowKey" FROM t');
    // A parameter only a cast types (the one-row subquery of TX_ID_OF_TXID); a BLOB column is left alone.
    expect(
      toPostgres("SELECT k.x FROM (SELECT CAST(? AS BLOB) AS x) k WHERE k.x = ? AND b = 'CAST(? AS BLOB)'", KEYS).text,
    ).to.equal("SELECT k.x FROM (SELECT CAST($1 AS bytea) AS x) k WHERE k.x = $2 AND b = 'CAST(? AS BLOB)'");
  });

  it("refuses an unterminated literal", () => {
    expect(() => toPostgres("SELECT 'abc", KEYS)).to.throw(DialectError, /unterminated/);
  });
});
