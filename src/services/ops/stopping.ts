/**
 * A daemon's bound on stopping: `stopSignal` returns an AbortSignal aborted by the first SIGTERM or
 * SIGINT (hand it to the RPC clients and loops, so nothing waits for a node that does not answer)
 * and arms a deadline: `graceMs` after the signal the process exits whatever its stop still waits
 * on (status 1, one line on stderr). A signal that arrives while the daemon is still starting (no
 * other SIGTERM/SIGINT listener installed yet) exits at once, as Node's default would.
 */

export const DEFAULT_STOP_GRACE_MS = 4_000;

export function stopSignal(name: string, options: { graceMs?: number } = {}): AbortSignal {
  const controller = new AbortController();
  const graceMs = options.graceMs ?? DEFAULT_STOP_GRACE_MS;
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) return;
    controller.abort(new Error(`stopping on ${signal}`));
    // Only this listener: the daemon has not installed its own stop yet.
    if (process.listenerCount(signal) <= 1) process.exit(0);
    const timer = setTimeout(() => {
      process.stderr.write(`${name}: still stopping ${graceMs} ms after ${signal}; exiting now\n`);
      process.exit(1);
    }, graceMs);
    timer.unref();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  return controller.signal;
}
