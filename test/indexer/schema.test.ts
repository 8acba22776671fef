import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SchemaMismatchError, openDatabase } from "../../src/db/sqlite";
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
