/** Opens the indexer's database with the settings its write pattern wants. */
import fs from "node:fs";
import { RebuildRequiredError, Sqlite, openDatabase } from "../db/sqlite";
import { INDEXER_MIGRATIONS, INDEXER_SCHEMA } from "./schema";

export function openIndexerDatabase(file: string, options: { cacheMb?: number; resetIfRebuildRequired?: boolean } = {}): Sqlite {
  let db: Sqlite;
  try {
    db = openDatabase(file, INDEXER_MIGRATIONS, INDEXER_SCHEMA);
  } catch (error) {
    if (!(error instanceof RebuildRequiredError) || !options.resetIfRebuildRequired) throw error;
    // The index is derived from the chain: starting over is always correct, only slower.
    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
    db = openDatabase(file, INDEXER_MIGRATIONS, INDEXER_SCHEMA);
  }
  // Random txid and address keys dirty pages all over the B-trees: a larger page cache and fewer,
  // larger WAL checkpoints roughly doubled catch-up speed (npm run bench:indexer).
  db.pragma(`cache_size = -${(options.cacheMb ?? 256) * 1024}`);
  if (file !== ":memory:") db.pragma("wal_autocheckpoint = 20000");
  return db;
}
