/**
 * `dogeos indexer snapshot` (src/indexer/snapshot.ts): a copy of a SQLite index taken while the
 * indexer holds it open in the middle of a write is the index as last committed (row for row), a
 * reader opens it and answers as it does on the index, the indexer writes on meanwhile, and an
 * existing --out or a PostgreSQL URL is refused. For PostgreSQL, what the refusal (and
 * docs/operations.md, "Snapshots") says to do instead works: a pg_dump -Fc taken while the indexer
 * holds the database, restored with pg_restore into a new database, is continued by an indexer there
 * to the same index as the original's.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import type { SqlDatabase } from "../../src/db/sql";
import { NETWORKS } from "../../src/doge";
import { openIndexReader, openIndexerDatabase } from "../../src/indexer/database";
import { Indexer } from "../../src/indexer/indexer";
import { IndexQueries } from "../../src/indexer/queries";
import { SnapshotError, snapshotIndex } from "../../src/indexer/snapshot";
import { MemoryChainSource } from "../../src/indexer/source";
import { IndexerStore } from "../../src/indexer/store";
import { GeneratedChain, generateChain } from "../../scripts/bench/chain-generator";
import { dumpDatabase } from "../helpers/db-dump";
import { createTestDatabase, pgBinDir } from "../helpers/postgres";

const ROOT = path.resolve(__dirname, "..", "..");

function dogeos(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [path.join(ROOT, "bin", "dogeos.js"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 60_000,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: "warn" },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A set of reader answers: the tip, and the busiest addresses' balance, first history and UTXO pages, and some transactions. */
function answers(db: SqlDatabase, addresses: string[], txids: string[]) {
  const queries = new IndexQueries(db);
  const { indexedHeight, indexedHash, startHeight, network } = queries.status();
  return {
    status: { indexedHeight, indexedHash, startHeight, network },
    addresses: addresses.map((address) => ({
      address,
      balance: queries.balance(address),
      history: queries.history(address, null, 25),
      utxos: queries.utxos(address, null, 25),
    })),
    txs: txids.map((txid) => queries.tx(txid)),
  };
}

describe("dogeos indexer snapshot", function () {
  this.timeout(120_000);
  const FIRST_BLOCKS = 115; // payments start after 100 coinbase-only blocks (scripts/bench/chain-generator.ts)
  let chain: GeneratedChain;
  let dir: string;
  let indexFile: string;
  let writer: SqlDatabase;
  let addresses: string[];
  let txids: string[];

  before(async () => {
    chain = generateChain({ blocks: 130, transactions: 600, seed: 20 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "indexer-snapshot-"));
    indexFile = path.join(dir, "index.sqlite");
    writer = openIndexerDatabase(indexFile);
    const indexer = new Indexer({
      store: new IndexerStore(writer),
      source: new MemoryChainSource(chain.hashes.slice(0, FIRST_BLOCKS), chain.raws.slice(0, FIRST_BLOCKS)),
      network: NETWORKS.regtest,
      batchBlocks: 5,
    });
    await indexer.syncOnce();
    addresses = (
      writer
        .prepare(
          "SELECT a.address FROM addresses a JOIN address_stats s ON s.id = a.id ORDER BY s.tx_count DESC, a.address LIMIT 3",
        )
        .all() as {
        address: string;
      }[]
    ).map((r) => r.address);
    // The last payments indexed and the first coinbase.
    txids = (
      writer.prepare("SELECT txid FROM txs WHERE coinbase = 0 ORDER BY height DESC, position LIMIT 5").all() as {
        txid: Buffer;
      }[]
    ).map((r) => r.txid.toString("hex"));
    txids.push(
      (writer.prepare("SELECT txid FROM txs WHERE height = 1").get() as { txid: Buffer }).txid.toString("hex"),
    );
    expect(addresses).to.have.length(3);
    expect(txids).to.have.length(6);
  });

  after(() => {
    writer?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("copies the index while the indexer is inside a write: the copy is the last committed state, and reads on it answer as on the index", () => {
    const snapshot = path.join(dir, "snapshot.sqlite");
    const committed = answers(writer, addresses, txids);
    expect(committed.status.indexedHeight).to.equal(FIRST_BLOCKS - 1);
    const committedRows = dumpDatabase(writer, []);

    // The writer is in the middle of a transaction that changes every balance and adds a block.
    writer.exec("BEGIN IMMEDIATE");
    try {
      writer.prepare("UPDATE address_stats SET confirmed = confirmed + 1").run();
      writer.prepare("INSERT INTO meta (key, value) VALUES ('snapshot_test_uncommitted', 'x')").run();
      const run = dogeos(["indexer", "snapshot", "--db", indexFile, "--out", snapshot]);
      expect(run.status, run.stderr).to.equal(0);
      const match =
        /^snapshot (\S+): (\d+) bytes \([\d.]+ MiB\), indexed height (\d+) \(([0-9a-f]{64})\), written in [\d.]+ s\n$/.exec(
          run.stdout,
        );
      expect(match, run.stdout).to.not.equal(null);
      expect(match![1]).to.equal(snapshot);
      expect(Number(match![2])).to.equal(fs.statSync(snapshot).size);
      expect(Number(match![3])).to.equal(FIRST_BLOCKS - 1);
      expect(match![4]).to.equal(committed.status.indexedHash);
    } finally {
      writer.exec("ROLLBACK");
    }

    // Row for row the committed index (meta included: nothing of the open transaction).
    const reader = openIndexReader(snapshot);
    try {
      expect(dumpDatabase(reader, [])).to.deep.equal(committedRows);
      expect(answers(reader, addresses, txids)).to.deep.equal(committed);
    } finally {
      reader.close();
    }
    // No temporary file is left beside it.
    expect(fs.readdirSync(dir).filter((name) => name.includes("partial"))).to.deep.equal([]);
  });

  it("the indexer writes on; the snapshot keeps its height and a second snapshot has the new tip", async () => {
    const indexer = new Indexer({
      store: new IndexerStore(writer),
      source: new MemoryChainSource(chain.hashes, chain.raws),
      network: NETWORKS.regtest,
    });
    await indexer.syncOnce();
    const later = snapshotIndex(indexFile, path.join(dir, "later.sqlite"));
    expect(later.indexedHeight).to.equal(chain.hashes.length - 1);
    expect(later.indexedHash).to.equal(chain.hashes[chain.hashes.length - 1]);
    const first = openIndexReader(path.join(dir, "snapshot.sqlite"));
    const second = openIndexReader(later.out);
    try {
      expect(new IndexQueries(first).status().indexedHeight).to.equal(FIRST_BLOCKS - 1);
      expect(answers(second, addresses, txids)).to.deep.equal(answers(writer, addresses, txids));
    } finally {
      first.close();
      second.close();
    }
  });

  it("refuses an existing --out (left as it was), a missing index, and a PostgreSQL URL (naming pg_dump, pg_restore and pg_basebackup)", () => {
    const existing = path.join(dir, "existing.sqlite");
    fs.writeFileSync(existing, "not a snapshot");
    const run = dogeos(["indexer", "snapshot", "--db", indexFile, "--out", existing]);
    expect(run.status).to.equal(1);
    expect(run.stderr).to.equal(
      `dogeos indexer snapshot: ${existing} already exists; a snapshot never replaces a file (remove it or choose another --out)\n`,
    );
    expect(fs.readFileSync(existing, "utf8")).to.equal("not a snapshot");

    const missing = dogeos([
      "indexer",
      "snapshot",
      "--db",
      path.join(dir, "none.sqlite"),
      "--out",
      path.join(dir, "none-copy.sqlite"),
    ]);
    expect(missing.status).to.equal(1);
    expect(missing.stderr).to.match(
      /^dogeos indexer snapshot: index \S+none\.sqlite cannot be read: the file does not exist/,
    );
    expect(fs.existsSync(path.join(dir, "none-copy.sqlite"))).to.equal(false);

    const pg = dogeos([
      "indexer",
      "snapshot",
      "--db",
      "postgres://indexer:secret@db.example:5432/index",
      "--out",
      path.join(dir, "pg.sqlite"),
    ]);
    expect(pg.status).to.equal(1);
    const lines = pg.stderr.trimEnd().split("\n");
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include("pg_dump -Fc").and.include("pg_restore").and.include("pg_basebackup -R");
    expect(lines[0]).to.include("'postgres://indexer@db.example:5432/index'");
    expect(pg.stderr).to.not.include("secret");
    expect(() => snapshotIndex("postgresql://h/db", path.join(dir, "pg.sqlite"))).to.throw(SnapshotError, /pg_dump/);

    const usage = dogeos(["indexer", "snapshot", "--db", indexFile]);
    expect(usage.status).to.equal(2);
    expect(usage.stderr).to.match(/^dogeos indexer snapshot: missing out \(--out\)/);
  });
});

describe("a PostgreSQL index copied with pg_dump -Fc / pg_restore", function () {
  this.timeout(180_000);
  const FIRST_BLOCKS = 115;
  const databases: Awaited<ReturnType<typeof createTestDatabase>>[] = [];
  const handles: SqlDatabase[] = [];
  let dir: string;

  after(async () => {
    for (const handle of handles) handle.close();
    for (const database of databases) await database.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("is continued by an indexer on the restored database to the same index as the original's", async () => {
    const chain = generateChain({ blocks: 130, transactions: 600, seed: 21 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "indexer-pg-dump-"));
    const [source, target] = [await createTestDatabase(), await createTestDatabase()];
    databases.push(source, target);
    const original = openIndexerDatabase(source.url);
    handles.push(original);
    const index = (db: SqlDatabase, blocks: number) =>
      new Indexer({
        store: new IndexerStore(db),
        source: new MemoryChainSource(chain.hashes.slice(0, blocks), chain.raws.slice(0, blocks)),
        network: NETWORKS.regtest,
        batchBlocks: 20,
      }).syncOnce();
    await index(original, FIRST_BLOCKS);

    // Taken while the indexer holds its database (and its writer lock).
    const dump = path.join(dir, "index.dump");
    const run = (tool: string, args: string[]) => {
      const result = spawnSync(path.join(pgBinDir(), tool), args, { encoding: "utf8", timeout: 120_000 });
      expect(result.status, `${tool}: ${result.stderr}`).to.equal(0);
    };
    run("pg_dump", ["-Fc", "-f", dump, "-d", source.url]);
    run("pg_restore", ["--no-owner", "-d", target.url, dump]);

    // Row for row the original (meta aside: it also holds when each indexer last saw its node).
    const restored = openIndexerDatabase(target.url);
    handles.push(restored);
    const tip = (db: SqlDatabase) => {
      const { indexedHeight, indexedHash, startHeight, network } = new IndexQueries(db).status();
      return { indexedHeight, indexedHash, startHeight, network };
    };
    expect(tip(restored)).to.deep.equal({ ...tip(original), indexedHeight: FIRST_BLOCKS - 1 });
    expect(dumpDatabase(restored)).to.deep.equal(dumpDatabase(original));

    await index(original, chain.hashes.length);
    await index(restored, chain.hashes.length);
    expect(tip(restored)).to.deep.equal({ ...tip(original), indexedHash: chain.hashes[chain.hashes.length - 1] });
    expect(dumpDatabase(restored)).to.deep.equal(dumpDatabase(original));
  });
});
