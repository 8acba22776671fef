/**
 * The worker thread behind src/db/postgres.ts: holds one PostgreSQL connection (node-postgres)
 * and runs the requests the main thread sends, one at a time, in order. The main thread blocks
 * on a shared Int32Array until the answer is posted, which is what makes the index's SQL surface
 * synchronous on PostgreSQL as it is on SQLite. Plain CommonJS so that it loads without the
 * TypeScript loader in any process that starts it.
 *
 * Requests: { op: "query", text, values, name? } and { op: "exec", text } and { op: "copy", text,
 * data } (a `COPY ... FROM STDIN` statement and the bytes it reads, sent through pg-copy-streams;
 * answers the rows copied as rowCount) and { op: "close" }, each with the caller's `id`, which its
 * answer carries back;
 * a "query" answers { rows (arrays), fields: [[name, typeId]], rowCount }; a "send" (same shape
 * as query) answers nothing: its error, if any, is reported with the next answer.
 * Any failure answers { error: { message, code } }.
 */
"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const { Client, types } = require("pg");
const { from: copyFrom } = require("pg-copy-streams");

const signal = new Int32Array(workerData.signal);
// Values go to the main thread as PostgreSQL's text for 64-bit integers and numerics: it alone
// knows whether a statement wants bigint or number (SqlStatement.safeIntegers). Dates stay text.
const asText = (value) => value;
for (const oid of [20, 1700, 1082, 1114, 1184]) types.setTypeParser(oid, asText);

let client = null;
let connecting = null;
let deferredError = null;
const prepared = new Set();

async function connection() {
  if (client) return client;
  if (!connecting) {
    connecting = (async () => {
      const c = new Client({
        connectionString: workerData.url,
        application_name: workerData.applicationName,
        statement_timeout: workerData.statementTimeoutMs,
        options: workerData.readOnly ? "-c default_transaction_read_only=on" : undefined,
      });
      // A dropped connection is replaced at the next request (a restarted server or replica).
      c.on("error", () => {
        if (client === c) {
          client = null;
          prepared.clear();
        }
      });
      await c.connect();
      client = c;
      return c;
    })().finally(() => {
      connecting = null;
    });
  }
  return connecting;
}

// Buffers arrive as plain Uint8Arrays (structured clone); node-postgres sends only Buffers as bytea.
function prepareValue(v) {
  if (v instanceof Uint8Array && !Buffer.isBuffer(v)) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  if (Array.isArray(v)) return v.map(prepareValue);
  return v;
}

function prepareValues(values) {
  return values.map(prepareValue);
}

// Answers go through the port the main thread reads synchronously (receiveMessageOnPort).
const answers = workerData.port;

function reply(request, message) {
  // The request's id goes back with its answer: the main thread drops answers it stopped waiting for.
  answers.postMessage({ ...message, id: request.id });
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
}

function failure(error) {
  return {
    error: {
      message: String(error && error.message ? error.message : error),
      code: error && error.code ? String(error.code) : undefined,
    },
  };
}

async function run(request) {
  const c = await connection();
  if (request.op === "exec") {
    await c.query(request.text);
    return { rows: [], fields: [], rowCount: 0 };
  }
  if (request.op === "copy") {
    const stream = c.query(copyFrom(request.text));
    const data = request.data;
    await new Promise((resolve, reject) => {
      // 'finish' comes once the server has answered ReadyForQuery; a refused row answers 'error'.
      stream.on("finish", resolve);
      stream.on("error", reject);
      stream.end(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    });
    return { rows: [], fields: [], rowCount: stream.rowCount };
  }
  const query = { text: request.text, values: prepareValues(request.values), rowMode: "array" };
  // Named statements are parsed and planned once per connection.
  if (request.name) query.name = request.name;
  const result = await c.query(query);
  if (request.name) prepared.add(request.name);
  return {
    rows: result.rows,
    fields: result.fields.map((f) => [f.name, f.dataTypeID]),
    rowCount: result.rowCount ?? 0,
  };
}

// Requests are handled strictly in order: a chain of promises.
let queue = Promise.resolve();
parentPort.on("message", (request) => {
  queue = queue.then(async () => {
    if (request.op === "close") {
      if (client) await client.end().catch(() => undefined);
      client = null;
      reply(request, { rows: [], fields: [], rowCount: 0 });
      return;
    }
    if (request.op === "send") {
      if (deferredError) return;
      try {
        await run({ ...request, op: "query" });
      } catch (error) {
        deferredError = failure(error);
      }
      return;
    }
    if (deferredError) {
      const error = deferredError;
      deferredError = null;
      reply(request, error);
      return;
    }
    try {
      reply(request, await run(request));
    } catch (error) {
      reply(request, failure(error));
    }
  });
});
