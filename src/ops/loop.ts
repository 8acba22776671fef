/**
 * The one periodic loop of the daemons: a pass every `ms`, one at a time, until `stop()`.
 *
 * - The first pass starts at once; the next starts `ms` after the previous one ended (passes never
 *   overlap, a slow pass delays the next rather than piling up).
 * - A failed pass is logged once per failure streak (`<name>_failed`, with the loop's name and the
 *   error), and the end of a streak once (`<name>_recovered`, with how many passes failed).
 * - With back-off (the default), each failure in a row doubles the delay up to `backoff.maxMs`
 *   (default 30 s); a success resets it to `ms`.
 * - Every timer is unref'd: a loop never keeps a process alive on its own (the daemons' servers
 *   and signal handlers do).
 * - `stop()` cancels the next pass and resolves once the pass in flight (if any) has ended; it
 *   never throws and may be called more than once.
 */

/** The log the loop writes to: an event name and its fields (the daemons' pino adapters). */
export type LoopLog = (event: string, fields: Record<string, unknown>) => void;

export interface LoopOptions {
  log?: LoopLog;
  /** Doubling back-off on failure up to `maxMs` (default 30 s); `false` keeps `ms` after a failure. */
  backoff?: { maxMs?: number } | false;
}

export interface Loop {
  /** Ends the loop: no new pass starts; resolves when the pass in flight has ended. */
  stop(): Promise<void>;
}

/** Default cap of the back-off delay. */
export const DEFAULT_LOOP_BACKOFF_MAX_MS = 30_000;

export function runEvery(name: string, ms: number, pass: () => unknown, options: LoopOptions = {}): Loop {
  if (!Number.isFinite(ms) || ms < 0)
    throw new RangeError(`runEvery(${name}): the interval must be a number of ms >= 0, not ${ms}`);
  const log = options.log ?? (() => undefined);
  const maxMs = options.backoff === false ? ms : Math.max(ms, options.backoff?.maxMs ?? DEFAULT_LOOP_BACKOFF_MAX_MS);
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let inFlight: Promise<void> | null = null;
  let delay = ms;
  let failures = 0;

  const schedule = (after: number) => {
    timer = setTimeout(tick, after);
    timer.unref?.();
  };

  const runPass = async () => {
    try {
      await pass();
      if (failures > 0) log(`${name}_recovered`, { loop: name, failures });
      failures = 0;
      delay = ms;
    } catch (error) {
      if (failures === 0)
        log(`${name}_failed`, { loop: name, err: messageOf(error), retry_ms: Math.min(delay * 2, maxMs) });
      failures++;
      delay = Math.min(delay * 2, maxMs);
    }
  };

  function tick(): void {
    timer = null;
    if (stopped) return;
    inFlight = runPass().finally(() => {
      inFlight = null;
      if (!stopped) schedule(delay);
    });
  }

  tick();

  return {
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await inFlight;
    },
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
