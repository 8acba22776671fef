/**
 * A daemon's life cycle, the same for every service process: `runDaemon` runs its main and turns a
 * startup failure into one line on stderr and exit 1; `stopOnSignals` runs its stop once on
 * SIGTERM or SIGINT (a second signal while stopping is ignored) and exits 0, or 1 if stopping fails.
 */

export interface StopLogger {
  info(fields: Record<string, unknown>): void;
  error(fields: Record<string, unknown>): void;
}

export function stopOnSignals(logger: StopLogger, stop: () => Promise<void> | void): void {
  let stopping = false;
  const onSignal = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ event: "stopping", reason });
    Promise.resolve().then(stop).then(
      () => process.exit(0),
      (error) => {
        logger.error({ event: "stop_failed", err: (error as Error).message });
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));
}

export function runDaemon(name: string, main: () => Promise<void>): void {
  main().catch((error) => {
    process.stderr.write(`${name}: fatal: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
