// Cache warming: recomputes the entries callers keep asking for before their
// lifetime ends (and, through an outage, after it, backing off), drops the
// ones nobody asked for during a whole lifetime unless stale ones are kept, and
// keeps refreshes to their share of the warehouse's time, taking due entries
// in turns by tenant (warming-turns.ts) as they fall due.
import { traceAttribute, type Logger, type Tracing } from "../observability/index.js";
import type { CacheEvent, CachePolicy, Computed } from "./cache-types.js";
import { storeNow, type Entry, type EntryStore } from "./entry-store.js";
import type { RefreshShare } from "./refresh-share.js";
import { createWarmingTurns } from "./warming-turns.js";

export interface WarmingOptions<V> {
  store: EntryStore<V>;
  /** Puts a refreshed value in place of `entry`, which it renews. */
  renew: (key: string, entry: Entry<V>, computed: Computed<V>) => void;
  /** Most refreshes running at once. */
  warmConcurrency: number;
  /** The largest share of the (real) time refreshes may keep a warehouse query running, shared with refreshWhere. */
  share: RefreshShare;
  /** A refresh is due up to this fraction of the warming period early, at random. */
  jitter: number;
  random: () => number;
  /** How often to look for due entries, also while refreshes run; 0 leaves it to run(). */
  sweepIntervalMs: number;
  /** After a failed refresh, the next try waits this long, doubled after each further failure in a row. */
  retryAfterFailureMs: number;
  /** The longest wait between tries of a key whose refreshes keep failing. */
  maxRetryAfterFailureMs: number;
  /** Keeps entries nobody asks for (unwarmed) until the store ends them, to answer outages; else drops them. */
  keepsIdle: boolean;
  onEvent: (event: CacheEvent, label: string) => void;
  logger: Logger;
  /** Each refresh a root span (docs/observability.md). Default: none. */
  tracing?: Tracing;
}

export interface Warming<V> {
  /** When an entry of `policy` computed at `now` is next due; never without warming. */
  dueAfter(now: number, policy: CachePolicy): number;
  /**
   * Drops idle entries and hands the due ones to the refreshes, joining the
   * pass under way if any; resolves when no refresh is left to run.
   */
  run(): Promise<void>;
  /** Tells the turns that `key` was just asked for (its entry's lastAskedAt and tenant are the ask's). */
  asked(key: string, entry: Entry<V>): void;
  /** Stops the timer; refreshes waiting for their turn are not started. */
  close(): void;
}

export function createWarming<V>(options: WarmingOptions<V>): Warming<V> {
  const { store, renew, warmConcurrency, share, jitter, random, onEvent, logger } = options;
  const { retryAfterFailureMs, maxRetryAfterFailureMs, keepsIdle } = options;
  let closed = false;
  const turns = createWarmingTurns();
  let working = 0;
  /** The pass under way: ends when no refresh is left to start or running. */
  let pass: { done: Promise<void>; end: () => void } | undefined;

  /** Recomputes one entry; a failure keeps the previous result, and the next try waits longer. */
  async function refresh(key: string, entry: Entry<V>) {
    entry.refreshing = true;
    // A trace of its own: what a refresh computes was asked for by callers, but none of them waits for it.
    const label = entry.policy.label ?? "";
    const span = options.tracing?.startRoot(`refresh ${label}`, {
      [traceAttribute.endpoint]: label,
      [traceAttribute.cache]: "refresh",
    });
    try {
      const signal = new AbortController().signal;
      const computed = await (span === undefined
        ? entry.refresh(signal)
        : options.tracing!.within(span, () => entry.refresh(signal)));
      if (store.find(key) === entry) renew(key, entry, computed);
      onEvent("refresh", entry.policy.label ?? "");
    } catch (error) {
      const wait = Math.min(maxRetryAfterFailureMs, retryAfterFailureMs * 2 ** entry.failures);
      entry.failures += 1;
      entry.refreshDueAt = storeNow() + wait;
      onEvent("refresh_failure", entry.policy.label ?? "");
      span?.fail(error instanceof Error ? error.message : String(error));
      logger.warn("cache refresh failed", { key, error });
    } finally {
      entry.refreshing = false;
      span?.end();
    }
  }

  /**
   * Whether `entry` is due. Only a result asked for since it was computed is
   * worth computing again; the rest are served until their lifetime ends. A
   * stale entry still asked for is due too: its key's outage may be over.
   */
  const isDue = (entry: Entry<V>, now: number) =>
    !entry.refreshing &&
    entry.askedSinceComputed &&
    entry.refreshDueAt <= now &&
    now - entry.lastAskedAt < entry.policy.ttlMs;

  /**
   * Queues the entries that fell due since the last sweep; idle ones are
   * dropped on the way unless kept for outages (expired ones node-cache
   * drops). Reads every entry but sorts only the new ones.
   */
  function scan() {
    const now = storeNow();
    const due: [string, Entry<V>][] = [];
    for (const [key, entry] of store.entries()) {
      if (now - entry.lastAskedAt >= entry.policy.ttlMs) {
        if (!keepsIdle) store.delete(key);
      } else if (isDue(entry, now) && !turns.has(key)) due.push([key, entry]);
    }
    turns.add(due);
    // Keys asked again while queued, and dropped from the cache meanwhile, leave items behind.
    if (turns.size > 2 * store.size.entries + 64) turns.prune((key) => store.find(key) !== undefined);
  }

  /**
   * One of at most warmConcurrency workers: takes the next turn's entry and
   * refreshes it, each start only when the share allows, waiting for that
   * rather than leaving the rest for later.
   */
  async function work() {
    working += 1;
    if (pass === undefined) {
      let end!: () => void;
      const done = new Promise<void>((resolve) => (end = resolve));
      pass = {
        done,
        end: () => {
          pass = undefined;
          end();
        },
      };
    }
    try {
      while (!closed) {
        await share.turn();
        if (closed) return;
        // Taken after the wait, so that what fell due meanwhile has its turn.
        const next = turns.take((key) => {
          const entry = store.find(key);
          return entry !== undefined && isDue(entry, storeNow()) ? entry : undefined;
        });
        if (next === undefined) return;
        const started = performance.now();
        await refresh(...next);
        share.spent(started, performance.now());
      }
    } finally {
      working -= 1;
      if (working === 0) pass?.end();
    }
  }

  /** Looks for due entries, also while a pass runs, and starts workers for them. */
  function run(): Promise<void> {
    scan();
    const wanted = closed ? 0 : Math.min(warmConcurrency, working + turns.size);
    while (working < wanted) void work();
    return pass?.done ?? Promise.resolve();
  }

  const timer = options.sweepIntervalMs > 0 ? setInterval(() => void run(), options.sweepIntervalMs) : undefined;
  timer?.unref();

  return {
    dueAfter: (now, policy) =>
      policy.warmMs > 0 ? now + policy.warmMs * (1 - jitter * random()) : Number.POSITIVE_INFINITY,
    run,
    asked: (key, entry) => turns.asked(key, entry),
    close() {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
    },
  };
}
