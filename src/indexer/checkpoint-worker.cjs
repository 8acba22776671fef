/**
 * The worker thread behind src/indexer/checkpointer.ts: holds a second connection on the index's
 * SQLite file and copies the write-ahead log into the database file when asked, while the
 * indexer's own thread goes on with the next batch. A PASSIVE checkpoint takes no lock a writer
 * or a reader needs (https://www.sqlite.org/c3ref/wal_checkpoint_v2.html), so it runs beside both.
 * Plain CommonJS so that it loads without the TypeScript loader in any process that starts it.
 *
 * Once the connection is open it posts { id: 0, ready: true } ({ id: 0, error } when it cannot open).
 * Requests: { op: "checkpoint", id } answers { id, log, checkpointed, busy, ms } (the frames in
 * the log, those now in the database file, and SQLite's busy flag); { op: "close" } closes the
 * connection and ends the thread. A failure answers { id, error }.
 */
"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const Database = require("better-sqlite3");

const messageOf = (error) => String(error && error.message ? error.message : error);

let db = null;
try {
  db = new Database(workerData.file, { fileMustExist: true });
  // The checkpoint reads frames and writes pages: it needs no page cache of its own to speak of.
  db.pragma("cache_size = -2048");
  parentPort.postMessage({ id: 0, ready: true });
} catch (error) {
  parentPort.postMessage({ id: 0, error: messageOf(error) });
}

parentPort.on("message", (request) => {
  if (request.op === "close") {
    if (db !== null) db.close();
    db = null;
    parentPort.close();
    return;
  }
  if (db === null) {
    parentPort.postMessage({ id: request.id, error: "the checkpoint connection is not open" });
    return;
  }
  const started = Date.now();
  try {
    const [row] = db.pragma("wal_checkpoint(PASSIVE)");
    parentPort.postMessage({
      id: request.id,
      busy: row.busy,
      log: row.log,
      checkpointed: row.checkpointed,
      ms: Date.now() - started,
    });
  } catch (error) {
    parentPort.postMessage({ id: request.id, error: messageOf(error) });
  }
});
