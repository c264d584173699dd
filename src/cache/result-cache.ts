// The TTL result cache with warming (docs/endpoints.md, Caching and warming), shared by every
// transport. node-cache holds the entries; lifetimes, recency, warming and
// single-flight are kept here against an injected clock, so tests move time
// instead of sleeping.
import NodeCache from "node-cache";
import { Code, ConnectError } from "@connectrpc/connect";
import { type Clock, type Logger, silentLogger, systemClock } from "../observability/index.js";

/** How long a result lives and how often a wanted one is recomputed. */
export interface CachePolicy {
  /** A result is served for at most this long after it was computed. */
  ttlMs: number;
  /** While the key keeps being asked for, recompute it this often; 0 disables warming. */
  warmMs: number;
  /** Names the entries of this policy in events, e.g. the endpoint. Default "". */
  label?: string;
}

/** What a computation yields: the value and its size in bytes, for the byte bound. */
export interface Computed<V> {
  value: V;
  bytes: number;
}

/** Runs the query behind a key; the signal aborts it when no caller waits any more. */
export type Compute<V> = (signal: AbortSignal) => Promise<Computed<V>>;

export interface CacheLookup<V> {
  value: V;
  status: "HIT" | "MISS";
  /** When the value was computed (clock milliseconds). */
  computedAt: number;
}

export type CacheEvent = "hit" | "miss" | "refresh" | "refresh_failure" | "eviction";

export interface ResultCacheOptions {
  /** Default: the system clock. */
  clock?: Clock;
  /** Most entries held; the least recently used goes first. Default 10,000. */
  maxEntries?: number;
  /** Most bytes held: each entry's reported bytes, its key and `entryOverheadBytes`. Default 256 MiB. */
  maxBytes?: number;
  /**
   * What an entry costs besides its value and key: the entry, its slots in the
   * store and the recency map, its refresh closure and the prepared call it
   * keeps. Default 2,048 bytes, from a measurement (docs/reliability.md).
   */
  entryOverheadBytes?: number;
  /** Most refreshes running at once. Default 1. */
  warmConcurrency?: number;
  /**
   * The largest share of the time refreshes may keep a warehouse query
   * running: after a refresh that took d ms (real time) the next waits
   * d * (1 / share - 1) ms. Default 0.25.
   */
  warmShare?: number;
  /** A refresh is due up to this fraction of the warming period early, at random. Default 0.1. */
  jitter?: number;
  /** Default: Math.random. */
  random?: () => number;
  /** How often warming looks for due entries; 0 leaves it to runWarming(). Default 1000 ms. */
  sweepIntervalMs?: number;
  /** After a failed refresh, the next try waits this long. Default 30,000 ms. */
  retryAfterFailureMs?: number;
  /** Counts events by the label of the entry's policy, for metrics. Default: nothing. */
  onEvent?: (event: CacheEvent, label: string) => void;
  /** Reports the held entries and bytes after each change. Default: nothing. */
  onSize?: (entries: number, bytes: number) => void;
  /** Default: silent. */
  logger?: Logger;
}

interface Entry<V> {
  value: V;
  bytes: number;
  computedAt: number;
  lastAskedAt: number;
  /** Whether a caller was served this value after it was computed: only then is it refreshed. */
  askedSinceComputed: boolean;
  refreshDueAt: number;
  policy: CachePolicy;
  refresh: Compute<V>;
  refreshing: boolean;
}

interface Flight<V> {
  promise: Promise<Computed<V>>;
  waiters: number;
  abort: AbortController;
}

export interface ResultCache<V> {
  /**
   * The value of `key`: a HIT while the stored result is younger than
   * `policy.ttlMs`, else a MISS that runs `compute` once for all concurrent
   * callers of the key. Errors are thrown to the callers, never stored.
   * `signal` lets one caller stop waiting; the query is aborted only when no
   * caller waits any more. Warming recomputes the entry with `refresh`
   * (default `compute`), which the entry keeps for its whole life: it must
   * hold nothing of the caller (its deadline, request id or response).
   */
  get(
    key: string,
    policy: CachePolicy,
    compute: Compute<V>,
    signal?: AbortSignal,
    refresh?: Compute<V>,
  ): Promise<CacheLookup<V>>;
  /** The HIT that `get` would answer, without computing anything on a miss (and without counting it). */
  peek(key: string, policy: CachePolicy): CacheLookup<V> | undefined;
  /**
   * Counts `bytes` more for `key` while it still holds `value` (a body made
   * later from the value, kept with it), evicting other entries if the bounds
   * are passed; nothing when the entry was replaced or dropped meanwhile.
   */
  grow(key: string, value: V, bytes: number): void;
  /** Refreshes due entries and drops idle or expired ones; resolves when the refreshes end. */
  runWarming(): Promise<void>;
  readonly size: { entries: number; bytes: number };
  /** Stops the warming timer. */
  close(): void;
}

export function createResultCache<V>(options: ResultCacheOptions = {}): ResultCache<V> {
  const clock = options.clock ?? systemClock;
  const maxEntries = options.maxEntries ?? 10_000;
  const maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
  const entryOverheadBytes = options.entryOverheadBytes ?? 2048;
  const warmConcurrency = options.warmConcurrency ?? 1;
  const warmShare = options.warmShare ?? 0.25;
  const jitter = options.jitter ?? 0.1;
  const random = options.random ?? Math.random;
  const retryAfterFailureMs = options.retryAfterFailureMs ?? 30_000;
  const onEvent = options.onEvent ?? (() => {});
  const onSize = options.onSize ?? (() => {});
  const logger = options.logger ?? silentLogger;

  // No expiry and no cloning in the store: lifetimes follow the injected clock here.
  const store = new NodeCache({ stdTTL: 0, checkperiod: 0, useClones: false });
  /** Keys from least to most recently used (a Map keeps insertion order). */
  const recency = new Map<string, true>();
  const flights = new Map<string, Flight<V>>();
  let bytes = 0;

  const entryOf = (key: string) => store.get<Entry<V>>(key);
  const touch = (key: string) => {
    recency.delete(key);
    recency.set(key, true);
  };
  const remove = (key: string) => {
    const entry = entryOf(key);
    if (entry === undefined) return;
    bytes -= entry.bytes;
    store.del(key);
    recency.delete(key);
  };
  const dueAfter = (now: number, policy: CachePolicy) =>
    policy.warmMs > 0 ? now + policy.warmMs * (1 - jitter * random()) : Number.POSITIVE_INFINITY;

  function put(key: string, computed: Computed<V>, policy: CachePolicy, refresh: Compute<V>, lastAskedAt: number) {
    remove(key);
    const now = clock();
    const size = computed.bytes + key.length + entryOverheadBytes;
    store.set<Entry<V>>(key, {
      value: computed.value,
      bytes: size,
      computedAt: now,
      lastAskedAt,
      askedSinceComputed: false,
      refreshDueAt: dueAfter(now, policy),
      policy,
      refresh,
      refreshing: false,
    });
    bytes += size;
    touch(key);
    evictOverBounds(key);
  }

  /** Drops the least recently used entries but `keep` until both bounds hold. */
  function evictOverBounds(keep: string) {
    for (const oldest of recency.keys()) {
      if (recency.size <= maxEntries && bytes <= maxBytes) break;
      if (oldest === keep) continue; // never evict what a caller is being served
      const evicted = entryOf(oldest);
      remove(oldest);
      onEvent("eviction", evicted?.policy.label ?? "");
    }
    onSize(recency.size, bytes);
  }

  function flight(key: string, policy: CachePolicy, compute: Compute<V>, refresh: Compute<V>): Flight<V> {
    const running = flights.get(key);
    if (running !== undefined) return running;
    const abort = new AbortController();
    const started = flights.set(key, {
      abort,
      waiters: 0,
      promise: compute(abort.signal)
        .then((computed) => {
          put(key, computed, policy, refresh, clock());
          return computed;
        })
        .finally(() => flights.delete(key)),
    });
    const current = started.get(key)!;
    // Its callers may all have left by the time it fails: nobody is left to be told, which is no error of the process.
    current.promise.catch(() => {});
    return current;
  }

  async function waitFor(current: Flight<V>, signal: AbortSignal | undefined): Promise<Computed<V>> {
    current.waiters += 1;
    if (signal === undefined) return current.promise.finally(() => (current.waiters -= 1));
    let leave!: () => void;
    const left = new Promise<never>((_, reject) => {
      leave = () => reject(abortError(signal));
      signal.addEventListener("abort", leave, { once: true });
    });
    try {
      return await Promise.race([current.promise, left]);
    } finally {
      signal.removeEventListener("abort", leave);
      current.waiters -= 1;
      if (current.waiters === 0 && signal.aborted) current.abort.abort(signal.reason);
    }
  }

  async function refresh(key: string, entry: Entry<V>) {
    entry.refreshing = true;
    try {
      const controller = new AbortController();
      const computed = await entry.refresh(controller.signal);
      if (entryOf(key) === entry) put(key, computed, entry.policy, entry.refresh, entry.lastAskedAt);
      onEvent("refresh", entry.policy.label ?? "");
    } catch (error) {
      // The previous result stays until its own lifetime ends.
      entry.refreshDueAt = clock() + retryAfterFailureMs;
      onEvent("refresh_failure", entry.policy.label ?? "");
      logger.warn("cache refresh failed", { key, error });
    } finally {
      entry.refreshing = false;
    }
  }

  function peek(key: string, policy: CachePolicy): CacheLookup<V> | undefined {
    const now = clock();
    const entry = entryOf(key);
    if (entry === undefined || now - entry.computedAt >= policy.ttlMs) return undefined;
    entry.lastAskedAt = now;
    entry.askedSinceComputed = true;
    touch(key);
    onEvent("hit", policy.label ?? "");
    return { value: entry.value, status: "HIT", computedAt: entry.computedAt };
  }

  let sweeping: Promise<void> | undefined;
  /**
   * performance.now() before which no refresh starts: keeps refreshes within
   * their share of the warehouse's time (real time, whatever the clock says).
   */
  let nextRefreshAt = 0;
  async function sweep() {
    const now = clock();
    const due: [string, Entry<V>][] = [];
    for (const key of [...recency.keys()]) {
      const entry = entryOf(key);
      if (entry === undefined) continue;
      const idle = now - entry.lastAskedAt >= entry.policy.ttlMs;
      const expired = now - entry.computedAt >= entry.policy.ttlMs;
      if (idle || expired) {
        remove(key);
      } else if (!entry.refreshing && entry.refreshDueAt <= now && entry.askedSinceComputed) {
        // Only a result asked for since it was computed is worth computing again;
        // the rest are served until their lifetime ends.
        due.push([key, entry]);
      }
    }
    onSize(recency.size, bytes);
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

  let closed = false;
  const timer =
    (options.sweepIntervalMs ?? 1000) > 0
      ? setInterval(
          () => void (sweeping ??= sweep().finally(() => (sweeping = undefined))),
          options.sweepIntervalMs ?? 1000,
        )
      : undefined;
  timer?.unref();

  return {
    peek,
    async get(key, policy, compute, signal, refresh = compute) {
      const hit = peek(key, policy);
      if (hit !== undefined) return hit;
      // A caller already gone starts nothing and joins nothing.
      if (signal?.aborted) throw abortError(signal);
      onEvent("miss", policy.label ?? "");
      const computed = await waitFor(flight(key, policy, compute, refresh), signal);
      return { value: computed.value, status: "MISS", computedAt: entryOf(key)?.computedAt ?? clock() };
    },
    grow(key, value, more) {
      const entry = entryOf(key);
      if (entry === undefined || entry.value !== value) return;
      entry.bytes += more;
      bytes += more;
      evictOverBounds(key);
    },
    async runWarming() {
      await (sweeping ??= sweep().finally(() => (sweeping = undefined)));
    },
    get size() {
      return { entries: recency.size, bytes };
    },
    close() {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
    },
  };
}

function abortError(signal: AbortSignal): ConnectError {
  return signal.reason instanceof ConnectError
    ? signal.reason
    : new ConnectError("the caller went away", Code.Canceled);
}
