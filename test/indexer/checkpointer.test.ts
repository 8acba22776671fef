/**
 * WAL checkpoints on a worker thread (src/indexer/checkpointer.ts). A writer that commits batch
 * after batch with the checkpointer beside it keeps its write-ahead log bounded (the log starts over
 * once every frame is copied, and a batch waits for that once the log is past the limit), where the
 * same writer without checkpoints holds every batch in its log; a process with nothing else to do
 * stays alive while it waits for the worker and while the worker closes; a worker that cannot open
 * the file reports the failure and stands aside. The indexer's catch-up with the checkpointer is
 * held to the same rows in write-path.test.ts.
 */
import { expect } from "chai";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { WalCheckpointer } from "../../src/indexer/checkpointer";

const FRAME_BYTES = 4096 + 24;

/**
 * Commits `batches` batches of about 260 WAL frames each, with a checkpointer beside the writer or
 * (limit null) none; one turn of the event loop between batches, as a catch-up's block reads give.
 * Answers the largest WAL file seen.
 */
async function writeBatches(file: string, maxLogFrames: number | null, batches: number) {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("wal_autocheckpoint = 0");
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB NOT NULL)");
  const checkpointer =
    maxLogFrames === null
      ? null
      : new WalCheckpointer(file, maxLogFrames, (error) => {
          throw new Error(`checkpointer failed: ${error}`);
        });
  await checkpointer?.ready;
  const insert = db.prepare("INSERT INTO t (body) VALUES (?)");
  const batch = db.transaction(() => {
    for (let i = 0; i < 250; i++) insert.run(Buffer.alloc(4000, i));
  });
  let largestWal = 0;
  for (let i = 0; i < batches; i++) {
    await checkpointer?.beforeBatch();
    batch();
    checkpointer?.afterCommit();
    largestWal = Math.max(largestWal, fs.statSync(`${file}-wal`).size);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await checkpointer?.close();
  const rows = (db.prepare("SELECT COUNT(*) AS n FROM t").get() as { n: number }).n;
  db.close();
  return { largestWal, rows, totals: checkpointer?.totals, failed: checkpointer?.failed };
}

describe("indexer: WAL checkpoints on a worker thread", function () {
  this.timeout(120_000);
  let dir: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "dogeos-checkpointer-"));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("keeps the log bounded: a batch waits for the copy once the log is past the limit, and the log starts over", async () => {
    const bounded = await writeBatches(path.join(dir, "bounded.sqlite"), 300, 24);
    expect(bounded.failed).to.equal(false);
    expect(bounded.rows).to.equal(24 * 250);
    expect(bounded.totals!.checkpoints).to.be.greaterThan(0);
    // About 260 frames a batch. A wait decides on the last report, which can be a checkpoint or two
    // old: the limit and four batches at most.
    expect(bounded.largestWal).to.be.lessThan((300 + 4 * 260) * FRAME_BYTES);

    // The same writer with no checkpoints: the log holds every batch.
    const none = await writeBatches(path.join(dir, "none.sqlite"), null, 24);
    expect(none.largestWal).to.be.greaterThan(24 * 250 * FRAME_BYTES);
  });

  it("keeps a process alive while it waits for the worker and while the worker closes", () => {
    const child = spawnSync(
      process.execPath,
      ["--import", "tsx", path.join(__dirname, "fixtures", "checkpointer-exit.ts"), path.join(dir, "exit.sqlite")],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(child.stderr).to.equal("");
    const [word, rows, waits] = child.stdout.trim().split(" ");
    expect(word).to.equal("closed");
    expect(Number(rows)).to.equal(200);
    expect(Number(waits)).to.be.greaterThan(0);
  });

  it("reports a worker that cannot open the file and stands aside", async () => {
    const failures: string[] = [];
    const checkpointer = new WalCheckpointer(path.join(dir, "missing", "index.sqlite"), 1, (error) =>
      failures.push(error),
    );
    checkpointer.afterCommit();
    await checkpointer.beforeBatch();
    await checkpointer.close();
    expect(checkpointer.failed).to.equal(true);
    expect(failures).to.have.length(1);
    expect(checkpointer.totals.checkpoints).to.equal(0);
  });
});
