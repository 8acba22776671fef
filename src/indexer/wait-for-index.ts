/**
 * A reader's start when the index may not exist yet: under `npm start` the services start beside
 * the indexer, which creates the index on its first run. openIndexReader refuses an index that does
 * not exist or has no schema yet; this retries it until the indexer has created it. Any other
 * refusal (another schema, another version) is final: retrying would not change it.
 */
import { abortableSleep } from "../chain/dogecoin-rpc";
import { SqlDatabase, printableLocation } from "../db/sql";
import { IndexUnreadableError, openIndexReader } from "./database";
import type { IndexProfile } from "./profile";

export interface WaitForIndexOptions {
  /** The daemon's stop signal: waiting ends (with the signal's reason thrown) when it fires. */
  signal?: AbortSignal;
  /** Told once, on the first refusal that will be retried (a daemon passes its logger's info). */
  log?: (fields: { event: "index_waiting"; location: string; reason: string }) => void;
  cacheMb?: number;
  /** The index profiles this reader takes (openIndexReader's; default full only). */
  profiles?: readonly IndexProfile[];
  /** Between attempts (default 250 ms). */
  intervalMs?: number;
}

/** The refusals that mean "the indexer has not created the index yet". */
export function indexNotCreatedYet(error: unknown): error is IndexUnreadableError {
  return (
    error instanceof IndexUnreadableError &&
    /does not exist|has no meta table|holds a "\(none\)" schema/.test(error.message)
  );
}

/** openIndexReader(location), retried every `intervalMs` while the index is not created yet. */
export async function waitForIndex(location: string, options: WaitForIndexOptions = {}): Promise<SqlDatabase> {
  let told = false;
  for (;;) {
    if (options.signal?.aborted)
      throw options.signal.reason instanceof Error
        ? options.signal.reason
        : new Error("stopped while waiting for the index");
    try {
      return openIndexReader(location, { cacheMb: options.cacheMb, profiles: options.profiles });
    } catch (error) {
      if (!indexNotCreatedYet(error)) throw error;
      if (!told) {
        told = true;
        options.log?.({ event: "index_waiting", location: printableLocation(location), reason: error.message });
      }
    }
    await abortableSleep(options.intervalMs ?? 250, options.signal);
  }
}
