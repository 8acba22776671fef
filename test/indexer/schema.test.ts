import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { RebuildRequiredError, SchemaMismatchError, openDatabase } from "../../src/db/sqlite";
import { openIndexerDatabase } from "../../src/indexer/database";
import { INDEXER_MIGRATIONS } from "../../src/indexer/schema";

describe("indexer database", () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), "indexer-schema-")); });
  afterEach(() => { fs.rmSync(dir, { recursive: true, force: true }); });

  it("refuses to open a database written under another schema version", () => {
    const file = path.join(dir, "index.sqlite");
    openIndexerDatabase(file).close();
    const db = openIndexerDatabase(file);
    db.prepare("UPDATE meta SET value = '999' WHERE key = 'schema_version'").run();
    db.close();
    expect(() => openIndexerDatabase(file)).to.throw(SchemaMismatchError, /schema version 999/);
  });

  it("asks for a rebuild when an older index lacks tables derived from history, and resets when allowed", () => {
    const file = path.join(dir, "old.sqlite");
    openDatabase(file, INDEXER_MIGRATIONS.filter((m) => m.version === 1), "dogeos-indexer").close();
    expect(() => openIndexerDatabase(file)).to.throw(RebuildRequiredError);
    const db = openIndexerDatabase(file, { resetIfRebuildRequired: true });
    expect((db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string }).value).to.equal(String(INDEXER_MIGRATIONS.length));
    db.close();
  });

  it("applies plain forward migrations to an existing database", () => {
    const file = path.join(dir, "plain.sqlite");
    const v1 = [{ version: 1, description: "a", sql: "CREATE TABLE a (x)" }];
    openDatabase(file, v1, "plain").close();
    const db = openDatabase(file, [...v1, { version: 2, description: "b", sql: "CREATE TABLE b (y)" }], "plain");
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'b'").get()).to.deep.equal({ name: "b" });
    db.close();
  });

  it("refuses a database of another daemon", () => {
    const file = path.join(dir, "other.sqlite");
    openDatabase(file, [{ version: 1, description: "x", sql: "CREATE TABLE x (a)" }], "something-else").close();
    expect(() => openIndexerDatabase(file)).to.throw(/"something-else" schema/);
  });

  it("records the latest migration's version in a new database", () => {
    const db = openIndexerDatabase(":memory:");
    const version = (db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string }).value;
    expect(Number(version)).to.equal(Math.max(...INDEXER_MIGRATIONS.map((m) => m.version)));
  });
});
