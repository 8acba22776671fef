/**
 * A SIGKILL inside the end-of-catch-up build of the deferred read-side indexes (issue 27): the
 * build runs in one transaction, so the killed process leaves the index as it was before the build
 * (every block written, the indexes still deferred), and the next start builds them and ends with
 * the same rows as an index that was never interrupted. On both backends.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { expect } from "chai";
import type { SqlDatabase } from "../../src/db/sql";
import { openIndexerDatabase } from "../../src/indexer/database";
import { CATCH_UP_DEFERRED_INDEXES } from "../../src/indexer/schema";
import { dumpDatabase } from "../helpers/db-dump";
import { forEachIndexBackend } from "../helpers/index-backends";

const CHILD = path.join(__dirname, "fixtures", "index-build-crash.ts");

function runChild(location: string, mode: "crash" | "finish") {
  return spawnSync(process.execPath, ["--import", "tsx", CHILD, location, mode], {
    encoding: "utf8",
    timeout: 120_000,
  });
}

function indexNames(db: SqlDatabase): string[] {
  const rows =
    db.dialect === "sqlite"
      ? db.prepare<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'index'").all()
      : db
          .prepare<{ name: string }>("SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema()")
          .all();
  return rows.map((r) => r.name);
}

forEachIndexBackend("a crash during the end-of-catch-up index build", function ({ newLocation }) {
  this.timeout(180_000);

  it("leaves the indexes deferred, and the next start builds them to the rows of an uninterrupted index", async () => {
    const crashed = await newLocation();
    const killed = runChild(crashed, "crash");
    expect(killed.signal, killed.stderr).to.equal("SIGKILL");
    expect(killed.stdout).to.include("read_index_restored");
    const deferred = CATCH_UP_DEFERRED_INDEXES.map((i) => i.name);
    let db = openIndexerDatabase(crashed);
    try {
      expect(
        db.prepare<{ value: string }>("SELECT value FROM meta WHERE key = 'read_indexes_deferred'").get(),
      ).to.deep.equal({
        value: "1",
      });
      // The index built before the kill went with the build's transaction.
      expect(indexNames(db).filter((name) => deferred.includes(name))).to.deep.equal([]);
    } finally {
      db.close();
    }

    const resumed = runChild(crashed, "finish");
    expect(resumed.status, resumed.stderr).to.equal(0);
    expect(resumed.stdout).to.include("read_indexes_restored");
    const clean = await newLocation();
    const uninterrupted = runChild(clean, "finish");
    expect(uninterrupted.status, uninterrupted.stderr).to.equal(0);

    db = openIndexerDatabase(crashed);
    const reference = openIndexerDatabase(clean);
    try {
      expect(indexNames(db)).to.include.members(deferred);
      expect(
        db.prepare<{ value: string }>("SELECT value FROM meta WHERE key = 'read_indexes_deferred'").get(),
      ).to.deep.equal({
        value: "0",
      });
      const rows = dumpDatabase(db);
      expect(rows.txs.length).to.be.greaterThan(400);
      expect(rows).to.deep.equal(dumpDatabase(reference));
    } finally {
      db.close();
      reference.close();
    }
  });
});
