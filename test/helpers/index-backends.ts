/**
 * The index's two backends, for suites that must hold on both (the indexer's reorg, crash and
 * consistency tests): `forEachIndexBackend(title, body)` declares the suite once per backend; the
 * body gets `openIndex()`, a fresh empty index on that backend (SQLite in memory, or a new
 * PostgreSQL database on the test server, dropped after the suite), and `location()` for a daemon's
 * `--db` where a test needs one.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SqlDatabase } from "../../src/db/sql";
import { openIndexerDatabase } from "../../src/indexer/database";
import { createTestDatabase } from "./postgres";

export type IndexBackend = "sqlite" | "postgres";
export const INDEX_BACKENDS: readonly IndexBackend[] = ["sqlite", "postgres"];

export interface BackendContext {
  backend: IndexBackend;
  /** A new empty index: the indexer's (writer's) handle. Closed and dropped after the suite. */
  openIndex(): Promise<SqlDatabase>;
  /** A new empty index's location (a file path or a postgres:// URL), for a daemon to open. */
  newLocation(): Promise<string>;
}

export function forEachIndexBackend(title: string, body: (this: Mocha.Suite, context: BackendContext) => void): void {
  for (const backend of INDEX_BACKENDS) {
    describe(`${title} [${backend}]`, function () {
      const cleanups: (() => Promise<void> | void)[] = [];
      after(async () => {
        for (const cleanup of cleanups.reverse()) await cleanup();
        cleanups.length = 0;
      });
      const newLocation = async (): Promise<string> => {
        if (backend === "sqlite") {
          const dir = fs.mkdtempSync(path.join(os.tmpdir(), "index-"));
          cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
          return path.join(dir, "index.sqlite");
        }
        const database = await createTestDatabase();
        cleanups.push(() => database.drop());
        return database.url;
      };
      const openIndex = async (): Promise<SqlDatabase> => {
        const db = backend === "sqlite" ? openIndexerDatabase(":memory:") : openIndexerDatabase(await newLocation());
        cleanups.push(() => db.close());
        return db;
      };
      body.call(this, { backend, openIndex, newLocation });
    });
  }
}
