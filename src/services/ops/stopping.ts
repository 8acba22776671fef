/**
 * A daemon's bound on stopping: `stopSignal` returns an AbortSignal aborted by the first SIGTERM or
 * SIGINT (hand it to the RPC clients and loops, so nothing waits for a node that does not answer)
 * and arms the process's stop deadline (src/config/daemon.ts armStopDeadline, shared with
 * stopOnSignals): `graceMs` after the signal the process exits 1, with one line on stderr, whatever
 * its stop still waits on. A signal that arrives while the daemon is still starting (no other
 * SIGTERM/SIGINT listener installed yet) exits at once, as Node's default would.
 */
import { armStopDeadline, stopDeadlineMs } from "../../config/daemon";

export function stopSignal(name: string, options: { graceMs?: number } = {}): AbortSignal {
  const controller = new AbortController();
  const graceMs = options.graceMs ?? stopDeadlineMs();
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) return;
    controller.abort(new Error(`stopping on ${signal}`));
    // Only this listener: the daemon has not installed its own stop yet.
    if (process.listenerCount(signal) <= 1) process.exit(0);
    armStopDeadline(graceMs, () =>
      process.stderr.write(`${name}: still stopping ${graceMs} ms after ${signal}; exiting now\n`),
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  return controller.signal;
}
