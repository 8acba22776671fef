/**
 * PostgreSQL for tests: throwaway clusters made with the server's own tools (initdb, pg_ctl,
 * pg_basebackup), and a fresh database per test suite.
 *
 * - `testPostgresUrl()`, called in a describe body, gives the suite an empty database of its own:
 *   created in a before hook, dropped (WITH (FORCE)) in an after hook. On CI, `.ci/run` starts one
 *   server and exports DOGEOS_TEST_POSTGRES_URL (a database the suites' databases are created
 *   from); without it (a developer's machine) one cluster is started for the whole test process
 *   and stopped when it exits. `createTestDatabase()` is the same outside Mocha's hooks.
 * - `startCluster()` / `startReplica(primary)` / `waitForReplay(primary, replica)`: a primary and
 *   a hot-standby replica streaming from it on loopback, for the replica tests.
 *
 * The binaries come from DOGEOS_PG_BIN, else the newest /usr/lib/postgresql/<version>/bin (Debian's
 * layout). initdb refuses to run as root: as root, every server command runs as the `postgres` OS
 * user (runuser) in a data directory it owns. Every cluster started here is stopped and its
 * directory removed when it is stopped, and in any case when the test process exits or is
 * interrupted (SIGINT/SIGTERM), whether its tests passed or not.
 */
import { execFileSync, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";

export class PostgresUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PostgresUnavailableError";
  }
}

/** The directory of initdb, pg_ctl, pg_basebackup: DOGEOS_PG_BIN, else the newest Debian install. */
export function pgBinDir(): string {
  const configured = process.env.DOGEOS_PG_BIN;
  if (configured) {
    if (!fs.existsSync(path.join(configured, "initdb")))
      throw new PostgresUnavailableError(`DOGEOS_PG_BIN=${configured} holds no initdb`);
    return configured;
  }
  const root = "/usr/lib/postgresql";
  const versions = fs.existsSync(root)
    ? fs.readdirSync(root).filter((v) => /^\d+$/.test(v) && fs.existsSync(path.join(root, v, "bin", "initdb")))
    : [];
  if (versions.length === 0) {
    throw new PostgresUnavailableError(
      "PostgreSQL is not installed (no /usr/lib/postgresql/<version>/bin/initdb): `apt-get install postgresql`, or set DOGEOS_PG_BIN to its bin directory",
    );
  }
  versions.sort((a, b) => Number(b) - Number(a));
  return path.join(root, versions[0], "bin");
}

const IS_ROOT = typeof process.getuid === "function" && process.getuid() === 0;

/** Runs a server tool (as the postgres OS user when this process is root); throws with its output on failure. */
function runTool(tool: string, args: string[], timeoutMs = 120_000): string {
  const binary = path.join(pgBinDir(), tool);
  const [command, argv] = IS_ROOT ? ["runuser", ["-u", "postgres", "--", binary, ...args]] : [binary, args];
  const result = spawnSync(command, argv, { encoding: "utf8", timeout: timeoutMs, cwd: os.tmpdir() });
  if (result.error) throw new Error(`${tool} could not run: ${result.error.message}`);
  if (result.status !== 0)
    throw new Error(
      `${tool} ${args.join(" ")} exited with ${result.status ?? result.signal}: ${(result.stderr || result.stdout).trim()}`,
    );
  return result.stdout;
}

/** A directory under the temporary directory that the server's user owns. */
function serverDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (IS_ROOT) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    fs.chownSync(dir, uid, gid);
  }
  return dir;
}

/** A loopback TCP port nothing listens on now (bound, then released). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Runs `fn` with a connected client of `url`; the client is always closed. */
export async function withClient<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** One query on `url`: its rows. */
export async function pgQuery<Row extends Record<string, unknown> = Record<string, unknown>>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<Row[]> {
  return withClient(url, async (client) => (await client.query(sql, params)).rows as Row[]);
}

export interface PgCluster {
  readonly port: number;
  /** Holds the data directory (`data`), the server log (`server.log`) and the unix socket. */
  readonly dir: string;
  readonly dataDir: string;
  /** postgres://postgres@127.0.0.1:<port>/<database> (trust authentication: no password). */
  url(database?: string): string;
  query<Row extends Record<string, unknown> = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
    database?: string,
  ): Promise<Row[]>;
  /** The end of the server log, for failure messages. */
  log(lines?: number): string;
  /** Stops the server (fast shutdown) and removes its directory; idempotent. */
  stop(): Promise<void>;
}

const running = new Set<{ dir: string; dataDir: string }>();

/** Stops a server at once and removes its directory; synchronous, so it can run at process exit. */
function destroy(entry: { dir: string; dataDir: string }, mode: "fast" | "immediate"): void {
  running.delete(entry);
  if (fs.existsSync(path.join(entry.dataDir, "postmaster.pid"))) {
    try {
      runTool("pg_ctl", ["stop", "-D", entry.dataDir, "-m", mode, "-w", "-t", "30"], 40_000);
    } catch {
      // Not running after all (or already stopping): the directory goes anyway.
    }
  }
  fs.rmSync(entry.dir, { recursive: true, force: true });
}

function destroyAll(): void {
  for (const entry of [...running]) destroy(entry, "immediate");
}
process.once("exit", destroyAll);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    destroyAll();
    // Then what the signal would have done without this handler.
    process.kill(process.pid, signal);
  });
}

export interface ClusterOptions {
  /** Configured to serve streaming replicas: wal_level=replica, WAL senders, replication from 127.0.0.1 trusted. */
  primary?: boolean;
  /** Extra postgresql.conf lines. */
  settings?: Record<string, string | number>;
}

function confLines(settings: Record<string, string | number>): string {
  return Object.entries(settings)
    .map(([key, value]) => `${key} = ${typeof value === "number" ? value : `'${value.replace(/'/g, "''")}'`}\n`)
    .join("");
}

/** Starts the server of `dataDir` on a free port (a few tries, in case another process takes the port first). */
async function startServer(
  entry: { dir: string; dataDir: string },
  settings: Record<string, string | number>,
): Promise<number> {
  const conf = path.join(entry.dataDir, "postgresql.conf");
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    // Later lines win: each try's port replaces the last.
    fs.appendFileSync(
      conf,
      confLines({ ...settings, port, listen_addresses: "127.0.0.1", unix_socket_directories: entry.dir }),
    );
    try {
      runTool(
        "pg_ctl",
        ["start", "-D", entry.dataDir, "-l", path.join(entry.dir, "server.log"), "-w", "-t", "60"],
        90_000,
      );
      return port;
    } catch (error) {
      lastError = error;
    }
  }
  throw new Error(
    `the PostgreSQL server did not start: ${(lastError as Error).message}\n${tail(path.join(entry.dir, "server.log"), 20)}`,
  );
}

function tail(file: string, lines: number): string {
  try {
    return fs.readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no server log)";
  }
}

function clusterHandle(entry: { dir: string; dataDir: string }, port: number): PgCluster {
  const url = (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(database)}`;
  return {
    port,
    dir: entry.dir,
    dataDir: entry.dataDir,
    url,
    query: (sql, params = [], database) => pgQuery(url(database), sql, params),
    log: (lines = 30) => tail(path.join(entry.dir, "server.log"), lines),
    async stop() {
      if (running.has(entry)) destroy(entry, "fast");
    },
  };
}

/** A new cluster (initdb --locale=C -E UTF8 --auth=trust, superuser `postgres`) serving 127.0.0.1 on a free port. */
export async function startCluster(options: ClusterOptions = {}): Promise<PgCluster> {
  const dir = serverDir("dogeos-pg-");
  const entry = { dir, dataDir: path.join(dir, "data") };
  running.add(entry);
  try {
    runTool("initdb", ["-D", entry.dataDir, "-U", "postgres", "--locale=C", "-E", "UTF8", "--auth=trust", "--no-sync"]);
    const settings: Record<string, string | number> = {
      // A throwaway server: durability across an OS crash does not matter, speed does. (Full-page
      // writes stay on: a base backup of a primary needs them.)
      fsync: "off",
      ...options.settings,
    };
    if (options.primary) {
      Object.assign(settings, {
        wal_level: "replica",
        max_wal_senders: 10,
        max_replication_slots: 10,
        hot_standby: "on",
        wal_keep_size: "256MB",
      });
      fs.appendFileSync(path.join(entry.dataDir, "pg_hba.conf"), "host replication all 127.0.0.1/32 trust\n");
    }
    const port = await startServer(entry, settings);
    return clusterHandle(entry, port);
  } catch (error) {
    destroy(entry, "immediate");
    throw error;
  }
}

/**
 * A hot-standby replica of `primary` (started with `primary: true`): `pg_basebackup -R` over
 * loopback (standby.signal and primary_conninfo written by -R), then started on its own port. It
 * answers reads and refuses writes.
 */
export async function startReplica(primary: PgCluster): Promise<PgCluster> {
  const dir = serverDir("dogeos-pg-replica-");
  const entry = { dir, dataDir: path.join(dir, "data") };
  running.add(entry);
  try {
    runTool("pg_basebackup", [
      "-h",
      "127.0.0.1",
      "-p",
      String(primary.port),
      "-U",
      "postgres",
      "-D",
      entry.dataDir,
      "-R",
      "-X",
      "stream",
      "-c",
      "fast",
      "--no-sync",
    ]);
    // The copy carries the primary's postgresql.conf (its port and socket directory): overridden by
    // the lines startServer appends.
    const port = await startServer(entry, { hot_standby: "on" });
    const replica = clusterHandle(entry, port);
    const [{ in_recovery: inRecovery }] = await replica.query<{ in_recovery: boolean }>(
      "SELECT pg_is_in_recovery() AS in_recovery",
    );
    if (!inRecovery) throw new Error(`the replica at port ${port} is not in recovery (no standby.signal?)`);
    return replica;
  } catch (error) {
    destroy(entry, "immediate");
    throw error;
  }
}

/**
 * Waits until the replica has replayed everything the primary had written when it was called
 * (pg_current_wal_lsn() on the primary against pg_last_wal_replay_lsn() on the replica). Returns
 * that position.
 */
export async function waitForReplay(primary: PgCluster, replica: PgCluster, timeoutMs = 60_000): Promise<string> {
  const [{ lsn }] = await primary.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn");
  const deadline = Date.now() + timeoutMs;
  return withClient(replica.url(), async (client) => {
    for (;;) {
      const {
        rows: [row],
      } = await client.query<{ replayed: string | null; caught_up: boolean | null }>(
        "SELECT pg_last_wal_replay_lsn()::text AS replayed, pg_last_wal_replay_lsn() >= $1::pg_lsn AS caught_up",
        [lsn],
      );
      if (row.caught_up) return lsn;
      if (Date.now() > deadline) {
        throw new Error(
          `the replica replayed up to ${row.replayed ?? "(nothing)"} but not the primary's ${lsn} within ${timeoutMs} ms\n${replica.log(10)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  });
}

/**
 * Stops (true) or resumes (false) a replica's WAL replay: it keeps receiving WAL from its primary
 * and applies none of it, which is a replica lagging behind, on demand.
 */
export async function pauseReplay(replica: PgCluster, paused = true): Promise<void> {
  await replica.query(paused ? "SELECT pg_wal_replay_pause()" : "SELECT pg_wal_replay_resume()");
  if (!paused) return;
  // The pause takes effect at the next record: wait until it has.
  const deadline = Date.now() + 10_000;
  for (;;) {
    const [{ state }] = await replica.query<{ state: string }>("SELECT pg_get_wal_replay_pause_state() AS state");
    if (state === "paused") return;
    if (Date.now() > deadline) throw new Error(`the replica's replay did not pause (state ${state})`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

// ------------------------------------------------------------------------------ suite databases

let ownCluster: Promise<PgCluster> | null = null;

/** The server suites' databases are made on: CI's (DOGEOS_TEST_POSTGRES_URL) or this process's own cluster. */
async function adminUrl(): Promise<string> {
  const configured = process.env.DOGEOS_TEST_POSTGRES_URL;
  if (configured) return configured;
  ownCluster ??= startCluster();
  // A failed start is not cached: the next suite tries again and fails with its own message.
  ownCluster.catch(() => {
    ownCluster = null;
  });
  return (await ownCluster).url();
}

let databaseCount = 0;

/** A new empty database (UTF8, C collation); `drop()` removes it even while connections are open. */
export async function createTestDatabase(): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const admin = await adminUrl();
  const name = `dogeos_t${process.pid}_${++databaseCount}_${crypto.randomBytes(3).toString("hex")}`;
  // Template0: a clean copy whatever the admin database holds; the C collation as in initdb above.
  await pgQuery(admin, `CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => pgQuery(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).then(() => undefined),
  };
}

/**
 * Call in a describe body: the suite gets an empty database of its own, created in a before hook
 * (registered now, so it runs before the suite's own before hooks registered later) and dropped in
 * an after hook. Returns the database's URL, readable from that before hook on.
 */
export function testPostgresUrl(): () => string {
  let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null;
  before(async function () {
    this.timeout(180_000);
    database = await createTestDatabase();
  });
  after(async () => {
    await database?.drop();
    database = null;
  });
  return () => {
    if (!database)
      throw new Error("testPostgresUrl(): the suite's database exists only from its before hook to its after hook");
    return database.url;
  };
}
