/**
 * The live "X / Y minted" counter behind `GET /api/collections/:slug/events`: one watcher per
 * collection shared by all of its open streams. MintService calls `changed(slug)` when it adds a
 * minted item in this process; a slow poll of the database catches mints recorded by another
 * process. Listeners hear a count only when it differs from the last one they were given.
 */
import type { CollectionStore } from "./collections";

export interface MintedCount {
  minted: number;
  max: number;
}

export type MintedListener = (count: MintedCount) => void;

export interface MintedFeedOptions {
  /** The fallback poll of each watched collection (default 2,000 ms). */
  pollMs?: number;
  /** Open streams allowed in this process (default 1,000). */
  maxStreams?: number;
  /** Open streams allowed per client (its IP key; default 8; 0 = no cap per client). */
  maxStreamsPerClient?: number;
}

interface Watcher {
  last: MintedCount;
  listeners: Set<MintedListener>;
  timer: NodeJS.Timeout;
}

export class MintedFeed {
  readonly maxStreams: number;
  readonly maxStreamsPerClient: number;
  private readonly pollMs: number;
  private readonly watchers = new Map<string, Watcher>();
  private streams = 0;
  /** Open streams per client key; a key leaves the map with its last stream, so it holds only clients with a stream open. */
  private readonly perClient = new Map<string, number>();

  constructor(
    private readonly collections: CollectionStore,
    options: MintedFeedOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 2_000;
    this.maxStreams = options.maxStreams ?? 1_000;
    this.maxStreamsPerClient = options.maxStreamsPerClient ?? 8;
  }

  /** Streams open now, over all collections. */
  get openStreams(): number {
    return this.streams;
  }

  /** Whether another stream may open (false at the cap). */
  hasRoom(): boolean {
    return this.streams < this.maxStreams;
  }

  /** Whether `clientKey` may open another stream (false at the per-client cap). */
  clientHasRoom(clientKey: string): boolean {
    return this.maxStreamsPerClient <= 0 || (this.perClient.get(clientKey) ?? 0) < this.maxStreamsPerClient;
  }

  /**
   * Adds a listener on `slug` (a listed collection) and answers the current count and the function
   * that removes the listener (idempotent). The first listener of a collection starts its watcher,
   * the last one to leave stops it.
   */
  subscribe(slug: string, listener: MintedListener, clientKey = ""): { current: MintedCount; unsubscribe: () => void } {
    let watcher = this.watchers.get(slug);
    if (!watcher) {
      const timer = setInterval(() => this.changed(slug), this.pollMs);
      timer.unref();
      watcher = { last: this.read(slug), listeners: new Set(), timer };
      this.watchers.set(slug, watcher);
    }
    watcher.listeners.add(listener);
    this.streams++;
    this.perClient.set(clientKey, (this.perClient.get(clientKey) ?? 0) + 1);
    let open = true;
    return {
      current: watcher.last,
      unsubscribe: () => {
        if (!open) return;
        open = false;
        this.streams--;
        const left = (this.perClient.get(clientKey) ?? 1) - 1;
        if (left > 0) this.perClient.set(clientKey, left);
        else this.perClient.delete(clientKey);
        const w = this.watchers.get(slug);
        if (!w) return;
        w.listeners.delete(listener);
        if (w.listeners.size === 0) {
          clearInterval(w.timer);
          this.watchers.delete(slug);
        }
      },
    };
  }

  /** Reads `slug`'s count again and tells its listeners when it moved (MintService calls it after a mint). */
  changed(slug: string): void {
    const watcher = this.watchers.get(slug);
    if (!watcher) return;
    const count = this.read(slug);
    if (count.minted === watcher.last.minted && count.max === watcher.last.max) return;
    watcher.last = count;
    for (const listener of [...watcher.listeners]) listener(count);
  }

  /** Stops every watcher (the streams themselves are closed by their connections). */
  close(): void {
    for (const watcher of this.watchers.values()) clearInterval(watcher.timer);
    this.watchers.clear();
  }

  private read(slug: string): MintedCount {
    const collection = this.collections.get(slug);
    return { minted: collection?.minted ?? 0, max: collection?.maxSupply ?? 0 };
  }
}
