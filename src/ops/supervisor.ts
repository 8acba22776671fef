/**
 * The supervisor behind `npm start` (issue 19, items 5 and 6): it runs each service as a child
 * process, writes the child's stdout and stderr to `<logDir>/<name>.log` (appended), finds the
 * child's ready line in that log, restarts a child that exits after it was ready (back-off from
 * 1 s doubling to 30 s, back to 1 s once a run stayed up a minute), and stops every child in
 * reverse start order.
 *
 * The children write straight to their log files (no pipe through this process), so a supervisor
 * that dies leaves them no broken pipe to crash on; every child also gets
 * `--require src/ops/watch-parent.cjs` (when it is a node process) and `DOGEOS_SUPERVISED=1`, so it
 * stops by itself within about a second of the supervisor's death (src/config/daemon.ts for our
 * daemons, the preload for the others, such as the Hardhat node).
 */
import { ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** The preload that makes a node child stop when its parent is gone. */
export const WATCH_PARENT_PRELOAD = path.join(__dirname, "watch-parent.cjs");

export interface ChildSpec {
  name: string;
  /** Arguments of `node` (the preload goes first), computed at each (re)start. */
  args: () => string[];
  /** Matched against the child's output since it (re)started; group 1 is the service's URL. */
  ready: RegExp;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export type SupervisorEvent =
  | { type: "started"; name: string; pid: number; url: string; restarts: number }
  | {
      type: "exited";
      name: string;
      pid: number;
      code: number | null;
      signal: string | null;
      restarts: number;
      restartInMs: number | null;
      tail: string[];
    }
  | { type: "error"; name: string; line: string };

export interface SupervisorOptions {
  logDir: string;
  /** Supervisor events (starts, exits with the restart planned, error lines of the children). */
  onEvent?: (event: SupervisorEvent) => void;
  /** Every line a child writes (for --verbose). */
  onLine?: (name: string, line: string) => void;
  /** Back-off before a restart: initial, doubled after each crash, capped (1 s, 30 s). */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** A run that stayed up this long resets the back-off (60 s). */
  resetAfterMs?: number;
  /** How long a child may take to print its ready line (120 s). */
  readyTimeoutMs?: number;
  /** After SIGTERM, SIGKILL if the child is still there (10 s). */
  killAfterMs?: number;
  /** How often the log files are read (100 ms). */
  pollMs?: number;
}

interface Managed {
  spec: ChildSpec;
  child: ChildProcess | null;
  logFile: string;
  offset: number;
  pending: string;
  sinceStart: string;
  readyAt: number | null;
  url: string | null;
  restarts: number;
  backoffMs: number;
  restartTimer: NodeJS.Timeout | null;
  onReady: ((url: string) => void) | null;
  onFail: ((error: Error) => void) | null;
}

/** Whether a log line is a pino line of level error (50) or fatal (60). */
export function isErrorLine(line: string): boolean {
  if (!line.startsWith("{")) return false;
  try {
    const level = (JSON.parse(line) as { level?: unknown }).level;
    return typeof level === "number" && level >= 50;
  } catch {
    return false;
  }
}

export class Supervisor {
  private readonly children: Managed[] = [];
  private readonly timer: NodeJS.Timeout;
  private stopping = false;
  private readonly opts: Required<Omit<SupervisorOptions, "onEvent" | "onLine">> &
    Pick<SupervisorOptions, "onEvent" | "onLine">;

  constructor(options: SupervisorOptions) {
    this.opts = {
      initialBackoffMs: 1_000,
      maxBackoffMs: 30_000,
      resetAfterMs: 60_000,
      readyTimeoutMs: 120_000,
      killAfterMs: 10_000,
      pollMs: 100,
      ...options,
    };
    fs.mkdirSync(this.opts.logDir, { recursive: true });
    this.timer = setInterval(() => this.readLogs(), this.opts.pollMs);
    this.timer.unref();
  }

  /** Starts a child; resolves with its URL once its ready line is in its log, rejects if it exits or times out first. */
  start(spec: ChildSpec): Promise<string> {
    if (this.children.some((m) => m.spec.name === spec.name)) throw new Error(`${spec.name} is already supervised`);
    const managed: Managed = {
      spec,
      child: null,
      logFile: path.join(this.opts.logDir, `${spec.name}.log`),
      offset: 0,
      pending: "",
      sinceStart: "",
      readyAt: null,
      url: null,
      restarts: 0,
      backoffMs: this.opts.initialBackoffMs,
      restartTimer: null,
      onReady: null,
      onFail: null,
    };
    this.children.push(managed);
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          fail(
            new Error(
              `${spec.name} printed no ready line within ${this.opts.readyTimeoutMs / 1000} s (see ${managed.logFile})`,
            ),
          ),
        this.opts.readyTimeoutMs,
      );
      const fail = (error: Error) => {
        clearTimeout(timer);
        managed.onReady = managed.onFail = null;
        reject(error);
      };
      managed.onReady = (url) => {
        clearTimeout(timer);
        managed.onReady = managed.onFail = null;
        resolve(url);
      };
      managed.onFail = fail;
      this.spawn(managed);
    });
  }

  /** How many times each child was restarted. */
  restartCounts(): Record<string, number> {
    return Object.fromEntries(this.children.map((m) => [m.spec.name, m.restarts]));
  }

  pids(): Record<string, number | null> {
    return Object.fromEntries(this.children.map((m) => [m.spec.name, m.child?.pid ?? null]));
  }

  /** Stops every child, the last started first: SIGTERM, then SIGKILL after killAfterMs. */
  async stopAll(): Promise<void> {
    this.stopping = true;
    for (const managed of [...this.children].reverse()) {
      if (managed.restartTimer) clearTimeout(managed.restartTimer);
      const child = managed.child;
      if (!child || child.exitCode !== null || child.signalCode !== null) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => child.kill("SIGKILL"), this.opts.killAfterMs);
        child.once("exit", () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill("SIGTERM");
      });
    }
    this.readLogs();
    clearInterval(this.timer);
  }

  private spawn(managed: Managed): void {
    const { spec } = managed;
    const fd = fs.openSync(managed.logFile, "a");
    managed.offset = fs.fstatSync(fd).size;
    managed.pending = managed.sinceStart = "";
    managed.readyAt = null;
    const child = spawn(process.execPath, ["--require", WATCH_PARENT_PRELOAD, ...spec.args()], {
      cwd: spec.cwd,
      stdio: ["ignore", fd, fd],
      env: { ...process.env, ...spec.env, DOGEOS_SUPERVISED: "1" },
    });
    fs.closeSync(fd);
    managed.child = child;
    child.once("error", (error) => managed.onFail?.(error));
    child.once("exit", (code, signal) => this.onExit(managed, child, code, signal));
  }

  private onExit(managed: Managed, child: ChildProcess, code: number | null, signal: string | null): void {
    this.readLogs();
    if (this.stopping || managed.child !== child) return;
    const tail = this.tail(managed);
    if (managed.onFail) {
      // It never became ready on its first start: that is a failed start, not a crash to retry.
      managed.onFail(
        new Error(`${managed.spec.name} exited (${signal ?? code}) before it was ready:\n  ${tail.join("\n  ")}`),
      );
      return;
    }
    if (managed.readyAt !== null && Date.now() - managed.readyAt >= this.opts.resetAfterMs)
      managed.backoffMs = this.opts.initialBackoffMs;
    const delay = managed.backoffMs;
    managed.backoffMs = Math.min(managed.backoffMs * 2, this.opts.maxBackoffMs);
    managed.restarts += 1;
    this.opts.onEvent?.({
      type: "exited",
      name: managed.spec.name,
      pid: child.pid ?? 0,
      code,
      signal,
      restarts: managed.restarts,
      restartInMs: delay,
      tail,
    });
    managed.restartTimer = setTimeout(() => {
      managed.restartTimer = null;
      if (!this.stopping) this.spawn(managed);
    }, delay);
  }

  /** The last lines of a child's log since it (re)started. */
  private tail(managed: Managed, lines = 8): string[] {
    return (managed.sinceStart + managed.pending)
      .split("\n")
      .filter((line) => line.length > 0)
      .slice(-lines);
  }

  private readLogs(): void {
    for (const managed of this.children) {
      if (!managed.child) continue;
      let size: number;
      try {
        size = fs.statSync(managed.logFile).size;
      } catch {
        continue;
      }
      if (size <= managed.offset) continue;
      const buffer = Buffer.alloc(size - managed.offset);
      const fd = fs.openSync(managed.logFile, "r");
      try {
        fs.readSync(fd, buffer, 0, buffer.length, managed.offset);
      } finally {
        fs.closeSync(fd);
      }
      managed.offset = size;
      this.onOutput(managed, buffer.toString("utf8"));
    }
  }

  private onOutput(managed: Managed, text: string): void {
    const lines = (managed.pending + text).split("\n");
    managed.pending = lines.pop() ?? "";
    if (managed.readyAt === null) {
      // Keep what it printed since it started (bounded) for the ready line and the tail on a crash.
      managed.sinceStart = (managed.sinceStart + lines.map((l) => `${l}\n`).join("")).slice(-65_536);
      const match = managed.spec.ready.exec(managed.sinceStart);
      if (match) {
        managed.readyAt = Date.now();
        managed.url = match[1];
        managed.onReady?.(match[1]);
        if (managed.child?.pid)
          this.opts.onEvent?.({
            type: "started",
            name: managed.spec.name,
            pid: managed.child.pid,
            url: match[1],
            restarts: managed.restarts,
          });
      }
    } else {
      managed.sinceStart = (managed.sinceStart + lines.map((l) => `${l}\n`).join("")).slice(-8_192);
    }
    for (const line of lines) {
      this.opts.onLine?.(managed.spec.name, line);
      if (isErrorLine(line)) this.opts.onEvent?.({ type: "error", name: managed.spec.name, line });
    }
  }
}
