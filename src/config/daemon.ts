/**
 * A daemon's life cycle, the same for every service process: `runDaemon` runs its main and turns a
 * startup failure into one line on stderr and exit 1; `stopOnSignals` runs its stop once on
 * SIGTERM or SIGINT (a second signal while stopping is ignored) and exits 0, or 1 if stopping fails.
 *
 * Two guarantees for whoever runs the daemon (issue 19, "a supervisor that behaves"):
 * - A hard deadline: a stop that has not finished `STOP_DEADLINE_MS` after the signal (a node that
 *   does not answer, a handle that never closes) ends in exit 1 anyway, so a daemon is gone within
 *   5 s of SIGTERM whatever it was waiting on.
 * - A parent watch when supervised (`DOGEOS_SUPERVISED=1`, set by src/ops/supervisor.ts): once a
 *   second the daemon compares `process.ppid` with the parent it started under; when the parent
 *   is gone (killed, even with SIGKILL, the daemon is re-parented and its ppid changes) it runs the
 *   same stop as on SIGTERM, so no daemon outlives `npm start` holding its ports.
 */

export interface StopLogger {
  info(fields: Record<string, unknown>): void;
  error(fields: Record<string, unknown>): void;
}

/** Stop must be done by then: 4 s, leaving margin under the 5 s that operators are promised (docs/operations.md, "Stopping"). */
export const STOP_DEADLINE_MS = 4_000;
/** How often a supervised daemon looks at its parent. */
export const PARENT_POLL_MS = 1_000;

export interface StopOptions {
  /** Overrides STOP_DEADLINE_MS (tests); the env DOGEOS_STOP_DEADLINE_MS does the same. */
  deadlineMs?: number;
  /** Watch the parent process; defaults to env DOGEOS_SUPERVISED === "1". */
  watchParent?: boolean;
}

export function stopOnSignals(logger: StopLogger, stop: () => Promise<void> | void, options: StopOptions = {}): void {
  const deadlineMs = options.deadlineMs ?? stopDeadlineMs();
  let stopping = false;
  const onSignal = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ event: "stopping", reason });
    armStopDeadline(deadlineMs, () =>
      logger.error({
        event: "stop_deadline",
        reason,
        deadlineMs,
        msg: `stop did not finish within ${deadlineMs} ms; exiting anyway`,
      }),
    );
    Promise.resolve()
      .then(stop)
      .then(
        () => process.exit(0),
        (error) => {
          logger.error({ event: "stop_failed", err: (error as Error).message });
          process.exit(1);
        },
      );
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));
  if (options.watchParent ?? process.env.DOGEOS_SUPERVISED === "1") watchParent(() => onSignal("parent_exited"));
}

let deadlineArmed = false;

/**
 * The one stop deadline of a process (stopOnSignals and src/services/ops/stopping.ts's stopSignal
 * both arm it; the first call wins): `deadlineMs` later the process exits 1 after `report`,
 * whatever its stop still waits on (the timer holds the process open: a stop that hangs on a promise
 * with nothing else pending still ends in exit 1, not in a silent exit 0).
 */
export function armStopDeadline(deadlineMs: number, report: () => void): void {
  if (deadlineArmed) return;
  deadlineArmed = true;
  setTimeout(() => {
    report();
    process.exit(1);
  }, deadlineMs);
}

/** STOP_DEADLINE_MS, or DOGEOS_STOP_DEADLINE_MS when set (tests). */
export function stopDeadlineMs(): number {
  return Number(process.env.DOGEOS_STOP_DEADLINE_MS) || STOP_DEADLINE_MS;
}

/**
 * Calls `onGone` once when this process's parent is gone: its ppid is no longer the one it had at
 * the call (a re-parented orphan gets init's or a subreaper's pid). Polls; the timer is unref'd so
 * that it never keeps a process alive by itself.
 */
export function watchParent(onGone: () => void, pollMs = PARENT_POLL_MS): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(timer);
      onGone();
    }
  }, pollMs);
  timer.unref();
  return () => clearInterval(timer);
}

export function runDaemon(name: string, main: () => Promise<void>): void {
  main().catch((error) => {
    process.stderr.write(`${name}: fatal: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
