/**
 * The PostgreSQL side of the benchmarks that compare the index's two backends (bench:indexer,
 * bench:api): where to index, and an index that must start empty.
 */
import type { SqlDatabase } from "../../src/db/sql";
import { printableLocation } from "../../src/db/sql";
import { openIndexerDatabase } from "../../src/indexer/database";
import { IndexerStore } from "../../src/indexer/store";
import { startCluster } from "../../test/helpers/postgres";

/** BENCH_POSTGRES_URL (an empty database), else a database on a throwaway local cluster; stop() removes the cluster. */
export async function benchPostgres(): Promise<{ url: string; stop(): Promise<void> }> {
  const given = process.env.BENCH_POSTGRES_URL;
  if (given) return { url: given, stop: async () => undefined };
  const cluster = await startCluster();
  try {
    await cluster.query("CREATE DATABASE bench TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'");
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return { url: cluster.url("bench"), stop: () => cluster.stop() };
}

/** The indexer's handle on `location`, refused (and closed) when it already holds blocks: a bench starts from nothing. */
export function openEmptyIndex(location: string): SqlDatabase {
  const db = openIndexerDatabase(location);
  if (new IndexerStore(db).tip() !== null) {
    db.close();
    throw new Error(
      `${printableLocation(location)} already holds an index: a benchmark needs an empty one (BENCH_POSTGRES_URL)`,
    );
  }
  return db;
}
