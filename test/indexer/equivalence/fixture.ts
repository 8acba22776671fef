/**
 * The recorded answers of the version-7 index (test/fixtures/index-v7-answers/<chain>.json.gz):
 * per chain, the commit and schema version they were recorded with, a digest of the chain's blocks,
 * and per snapshot the routes asked in order with their canonical answers (./harness.ts).
 */
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import type { Answers } from "./harness";

export const FIXTURE_DIR = path.resolve(__dirname, "..", "..", "fixtures", "index-v7-answers");

export interface ChainFixture {
  chain: string;
  /** The commit of the tree that indexed and answered (git rev-parse HEAD of the recording tree). */
  commit: string;
  /** INDEXER_SCHEMA_VERSION of that tree. */
  schemaVersion: number;
  /** chainDigest(chain): the chain the answers are about. */
  chainDigest: string;
  snapshots: Record<string, Answers>;
}

export function fixturePath(chain: string): string {
  return path.join(FIXTURE_DIR, `${chain}.json.gz`);
}

export function writeFixture(fixture: ChainFixture): void {
  fs.mkdirSync(FIXTURE_DIR, { recursive: true });
  // zlib writes no file name or time in the gzip header: the same answers give the same bytes.
  const text = JSON.stringify(fixture);
  fs.writeFileSync(fixturePath(fixture.chain), zlib.gzipSync(text, { level: 9 }));
}

export function readFixture(chain: string): ChainFixture {
  return JSON.parse(zlib.gunzipSync(fs.readFileSync(fixturePath(chain))).toString("utf8")) as ChainFixture;
}
