/**
 * Snapshots of the index (`dogeos indexer snapshot`), so that a new explorer, attester or replica
 * starts from a copy instead of indexing from genesis.
 *
 * A SQLite index is copied with `VACUUM INTO` through a read-only handle: the copy is one read
 * transaction's view of the file (every block the indexer had committed when it began, nothing of
 * a batch in progress), compacted, and the indexer keeps writing meanwhile (WAL readers do not
 * block it). The copy is written under a temporary name beside --out and linked to --out only when
 * complete, so --out never names a partial file, and an existing --out is never replaced.
 *
 * A PostgreSQL index is copied with PostgreSQL's own tools; this refuses it with one line naming
 * them (pg_dump -Fc / pg_restore for a new database, pg_basebackup for a new replica).
 */
import fs from "node:fs";
import path from "node:path";
import { isPostgresUrl, printableLocation } from "../db/sql";
import { openIndexReader } from "./database";
import { INDEX_PROFILES } from "./profile";
import { IndexQueries } from "./queries";
import { DogeosError } from "../errors";

export class SnapshotError extends DogeosError {
  constructor(message: string) {
    super("invalid", "SNAPSHOT_FAILED", message);
  }
}

export interface SnapshotResult {
  /** The snapshot file written. */
  out: string;
  bytes: number;
  /** The tip the snapshot holds (read back from the snapshot itself), -1 before the first block. */
  indexedHeight: number;
  indexedHash: string | null;
  seconds: number;
}

/** The one-line refusal for a PostgreSQL location: what to run instead. */
export function postgresSnapshotHint(location: string): string {
  // Printed without its password: pg_dump reads it from ~/.pgpass or PGPASSWORD.
  let url = printableLocation(location);
  try {
    const parsed = new URL(location);
    parsed.password = "";
    url = parsed.toString();
  } catch {
    // printableLocation's form
  }
  return `a PostgreSQL index is copied with PostgreSQL's tools, not this command: pg_dump -Fc -f index.dump -d '${url}' (password from ~/.pgpass or PGPASSWORD), then pg_restore --no-owner -d <new database URL> index.dump; for a new streaming replica, pg_basebackup -R -X stream -D <data dir> -h <primary host> -U <replication role> (docs/operations.md, "Snapshots")`;
}

/** Writes a consistent copy of the SQLite index at `location` to `out` (a file that must not exist yet). */
export function snapshotIndex(location: string, out: string): SnapshotResult {
  if (isPostgresUrl(location)) throw new SnapshotError(postgresSnapshotHint(location));
  if (location === ":memory:") throw new SnapshotError("an in-memory index cannot be snapshotted");
  const target = path.resolve(out);
  if (target === path.resolve(location)) throw new SnapshotError(`--out ${out} is the index itself`);
  if (fs.existsSync(target))
    throw new SnapshotError(
      `${out} already exists; a snapshot never replaces a file (remove it or choose another --out)`,
    );
  const dir = path.dirname(target);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory())
    throw new SnapshotError(`the directory of --out (${dir}) does not exist`);

  const started = process.hrtime.bigint();
  // Refuses a missing index or one of another schema, as every reader does; copies either profile.
  const source = openIndexReader(location, { profiles: INDEX_PROFILES });
  const partial = path.join(dir, `.${path.basename(target)}.partial-${process.pid}`);
  fs.rmSync(partial, { force: true });
  try {
    source.prepare("VACUUM INTO ?").run(partial);
    // VACUUM INTO does not sync what it wrote: the snapshot is on disk before it gets its name.
    const fd = fs.openSync(partial, "r+");
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    // link() fails when --out appeared meanwhile: never a replaced file, never a partial one.
    try {
      fs.linkSync(partial, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST")
        throw new SnapshotError(
          `${out} already exists; a snapshot never replaces a file (remove it or choose another --out)`,
        );
      throw error;
    }
  } catch (error) {
    if (error instanceof SnapshotError) throw error;
    throw new SnapshotError(`cannot write the snapshot to ${out}: ${(error as Error).message}`);
  } finally {
    source.close();
    fs.rmSync(partial, { force: true });
  }

  // What the snapshot holds, read from the snapshot (the index may have moved on since).
  const copy = openIndexReader(target, { profiles: INDEX_PROFILES });
  try {
    const status = new IndexQueries(copy).status();
    return {
      out: target,
      bytes: fs.statSync(target).size,
      indexedHeight: status.indexedHeight,
      indexedHash: status.indexedHash,
      seconds: Number(process.hrtime.bigint() - started) / 1e9,
    };
  } finally {
    copy.close();
  }
}

/** The line `dogeos indexer snapshot` prints. */
export function formatSnapshotResult(result: SnapshotResult): string {
  const mib = (result.bytes / 1024 / 1024).toFixed(1);
  const tip =
    result.indexedHeight < 0
      ? "no block indexed yet"
      : `indexed height ${result.indexedHeight} (${result.indexedHash})`;
  return `snapshot ${result.out}: ${result.bytes} bytes (${mib} MiB), ${tip}, written in ${result.seconds.toFixed(1)} s`;
}
