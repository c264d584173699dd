// Cache warming: recomputes the entries callers keep asking for before their
// lifetime ends, drops the ones nobody asked for during a whole lifetime, and
// keeps refreshes to their share of the warehouse's time.
import type { Logger } from "../observability/index.js";
import type { CacheEvent, CachePolicy, Computed } from "./cache-types.js";
import { storeNow, type Entry, type EntryStore } from "./entry-store.js";

export interface WarmingOptions<V> {
  store: EntryStore<V>;
  /** Puts a refreshed value in place of `entry`, which it renews. */
  renew: (key: string, entry: Entry<V>, computed: Computed<V>) => void;
  /** Most refreshes running at once. */
  warmConcurrency: number;
  /** The largest share of the (real) time refreshes may keep a warehouse query running. */
  warmShare: number;
  /** A refresh is due up to this fraction of the warming period early, at random. */
  jitter: number;
  random: () => number;
  /** How often to look for due entries; 0 leaves it to run(). */
  sweepIntervalMs: number;
  /** After a failed refresh, the next try waits this long. */
  retryAfterFailureMs: number;
  onEvent: (event: CacheEvent, label: string) => void;
  logger: Logger;
}

export interface Warming {
  /** When an entry of `policy` computed at `now` is next due; never without warming. */
  dueAfter(now: number, policy: CachePolicy): number;
  /** Refreshes due entries and drops idle ones; resolves when the refreshes end. */
  run(): Promise<void>;
  /** Stops the timer; refreshes waiting for their turn are not started. */
  close(): void;
}

export function createWarming<V>(options: WarmingOptions<V>): Warming {
  const { store, renew, warmConcurrency, warmShare, jitter, random, retryAfterFailureMs, onEvent, logger } = options;
  let closed = false;
  let sweeping: Promise<void> | undefined;
  /**
   * performance.now() before which no refresh starts: keeps refreshes within
   * their share of the warehouse's time (real time, whatever the clock says).
   */
  let nextRefreshAt = 0;

  /** Recomputes one entry; a failure keeps the previous result until its own lifetime ends. */
  async function refresh(key: string, entry: Entry<V>) {
    entry.refreshing = true;
    try {
      const computed = await entry.refresh(new AbortController().signal);
      if (store.get(key) === entry) renew(key, entry, computed);
      onEvent("refresh", entry.policy.label ?? "");
    } catch (error) {
      entry.refreshDueAt = storeNow() + retryAfterFailureMs;
      onEvent("refresh_failure", entry.policy.label ?? "");
      logger.warn("cache refresh failed", { key, error });
    } finally {
      entry.refreshing = false;
    }
  }

  /** The entries due for a refresh; idle ones are dropped on the way (expired ones node-cache drops). */
  function dueEntries(): [string, Entry<V>][] {
    const now = storeNow();
    const due: [string, Entry<V>][] = [];
    for (const key of [...store.keys()]) {
      const entry = store.get(key);
      if (entry === undefined) continue;
      if (now - entry.lastAskedAt >= entry.policy.ttlMs) {
        store.delete(key);
      } else if (!entry.refreshing && entry.refreshDueAt <= now && entry.askedSinceComputed) {
        // Only a result asked for since it was computed is worth computing again;
        // the rest are served until their lifetime ends.
        due.push([key, entry]);
      }
    }
    return due;
  }

  async function sweep() {
    const due = dueEntries();
    // A fixed number of workers share the due list: at most warmConcurrency
    // queries at once, each started only when the share allows, waiting for
    // that rather than leaving the rest to the next sweep.
    const workers = Array.from({ length: Math.min(warmConcurrency, due.length) }, async () => {
      for (let next = due.shift(); next !== undefined; next = due.shift()) {
        const wait = nextRefreshAt - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
        if (closed) return;
        const started = performance.now();
        await refresh(...next);
        const ended = performance.now();
        nextRefreshAt = Math.max(nextRefreshAt, ended + (ended - started) * (1 / warmShare - 1));
      }
    });
    await Promise.all(workers);
  }

  const run = () => (sweeping ??= sweep().finally(() => (sweeping = undefined)));
  const timer = options.sweepIntervalMs > 0 ? setInterval(() => void run(), options.sweepIntervalMs) : undefined;
  timer?.unref();

  return {
    dueAfter: (now, policy) =>
      policy.warmMs > 0 ? now + policy.warmMs * (1 - jitter * random()) : Number.POSITIVE_INFINITY,
    run,
    close() {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
    },
  };
}
