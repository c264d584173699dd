// The TTL result cache with warming (docs/endpoints.md, Caching and warming),
// shared by every transport: the entry store (entry-store.ts), single flight
// for concurrent misses (single-flight.ts) and warming (warming.ts), put
// together. Generic: it knows keys and values, not calls, and a caller that
// stops waiting is rejected with its signal's reason for the caller to map.
import { type Logger, type TraceSpan, type Tracing, silentLogger, traceAttribute } from "../observability/index.js";
import type { CacheCaller, CacheEvent, CacheLookup, CachePolicy, Compute, Computed } from "./cache-types.js";
import { createEntryStore, storeNow } from "./entry-store.js";
import { createSingleFlight } from "./single-flight.js";
import { createWarming } from "./warming.js";

/** Starts a key's computation, which `abort` stops. */
type Start<V> = (abort: AbortSignal) => Promise<Computed<V>>;

/** What one caller may hold of a full cache, as a fraction of each bound (ResultCacheOptions.sharePerCaller). */
export const defaultSharePerCaller = 0.5;

export interface ResultCacheOptions {
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
  /**
   * What one caller (the tenant that last asked for an entry) may hold of a
   * full cache, as a fraction of each bound: past a bound, a caller holding
   * more gives up its own least recently used entries first, so its misses
   * cannot empty the cache of other callers' entries. A caller alone may
   * still fill the cache; 1 turns the share off. Default 0.5.
   */
  sharePerCaller?: number;
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
  /**
   * Traces (docs/observability.md): a computation is a span of the call that
   * started it, a call that joins one has a span linked to it, and a refresh
   * by warming is a trace of its own. Default: none.
   */
  tracing?: Tracing;
}

export interface ResultCache<V> {
  /**
   * The value of `key`: a HIT while the stored result is younger than
   * `policy.ttlMs`, else a MISS that runs `compute` once for all concurrent
   * callers of the key. Errors are thrown to the callers, never stored.
   * `caller.signal` lets one caller stop waiting (rejected with the signal's
   * reason); the query is aborted only when no caller waits any more. The
   * entry keeps `caller.refresh` for its whole life, and counts for
   * `caller.tenant` until another tenant asks for it.
   */
  get(key: string, policy: CachePolicy, compute: Compute<V>, caller?: CacheCaller<V>): Promise<CacheLookup<V>>;
  /**
   * The HIT that `get` would answer, without computing anything on a miss
   * (and without counting it); `tenant` is the caller served, as in `origin`.
   */
  peek(key: string, policy: CachePolicy, tenant?: string): CacheLookup<V> | undefined;
  /**
   * Counts `bytes` more for `key` while it still holds `value` (a body made
   * later from the value, kept with it), evicting other entries if the bounds
   * are passed; nothing when the entry was replaced or dropped meanwhile.
   */
  grow(key: string, value: V, bytes: number): void;
  /** Refreshes due entries and drops idle or expired ones; resolves when the refreshes end. */
  runWarming(): Promise<void>;
  readonly size: { entries: number; bytes: number };
  /** Stops the warming and expiry timers. */
  close(): void;
}

export function createResultCache<V>(options: ResultCacheOptions = {}): ResultCache<V> {
  const onEvent = options.onEvent ?? (() => {});
  const maxEntries = options.maxEntries ?? 10_000;
  const maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
  const share = options.sharePerCaller ?? defaultSharePerCaller;
  const store = createEntryStore<V>({
    maxEntries,
    maxBytes,
    share: { entries: maxEntries * share, bytes: maxBytes * share },
    entryOverheadBytes: options.entryOverheadBytes ?? 2048,
    onEvent,
    onSize: options.onSize ?? (() => {}),
  });
  const flights = createSingleFlight<Computed<V>>();
  const { tracing } = options;
  /** With traces: the span of each running computation, which the calls that join it link to. */
  const computations = new Map<string, TraceSpan | undefined>();
  const warming = createWarming<V>({
    store,
    renew: (key, entry, computed) => put(key, computed, entry, entry.lastAskedAt),
    warmConcurrency: options.warmConcurrency ?? 1,
    warmShare: options.warmShare ?? 0.25,
    jitter: options.jitter ?? 0.1,
    random: options.random ?? Math.random,
    sweepIntervalMs: options.sweepIntervalMs ?? 1000,
    retryAfterFailureMs: options.retryAfterFailureMs ?? 30_000,
    onEvent,
    logger: options.logger ?? silentLogger,
    tracing,
  });

  function put(
    key: string,
    computed: Computed<V>,
    origin: { policy: CachePolicy; refresh: Compute<V>; tenant: string },
    lastAskedAt: number,
  ) {
    const now = storeNow();
    store.put(key, {
      value: computed.value,
      bytes: computed.bytes,
      computedAt: now,
      policy: origin.policy,
      refresh: origin.refresh,
      tenant: origin.tenant,
      lastAskedAt,
      refreshDueAt: warming.dueAfter(now, origin.policy),
    });
  }

  function peek(key: string, policy: CachePolicy, tenant?: string): CacheLookup<V> | undefined {
    const entry = store.get(key);
    if (entry === undefined) return undefined;
    entry.lastAskedAt = storeNow();
    entry.askedSinceComputed = true;
    store.touch(key, entry, tenant);
    warming.asked(key, entry);
    onEvent("hit", policy.label ?? "");
    return { value: entry.value, status: "HIT", computedAt: entry.computedAt };
  }

  /** `flights.join`, in a span with traces: the computation's, for the call that starts it; one linked to it, for a call that joins. */
  function join(key: string, policy: CachePolicy, start: Start<V>, signal?: AbortSignal): Promise<Computed<V>> {
    if (tracing === undefined) return flights.join(key, start, signal);
    const endpoint = { [traceAttribute.endpoint]: policy.label };
    if (computations.has(key)) {
      const running = computations.get(key);
      const links = running === undefined ? [] : [running];
      const joined = { ...endpoint, [traceAttribute.joined]: true };
      return tracing.inSpan("join computation", joined, () => flights.join(key, start, signal), links);
    }
    const traced = (abort: AbortSignal) =>
      tracing.inSpan("computation", endpoint, (span) => {
        computations.set(key, span);
        return start(abort).finally(() => computations.delete(key));
      });
    return flights.join(key, traced, signal);
  }

  return {
    peek,
    async get(key, policy, compute, caller = {}) {
      const hit = peek(key, policy, caller.tenant);
      if (hit !== undefined) return hit;
      const { signal } = caller;
      // A caller already gone starts nothing and joins nothing.
      if (signal?.aborted) throw signal.reason;
      onEvent("miss", policy.label ?? "");
      const kept = { policy, refresh: caller.refresh ?? compute, tenant: caller.tenant ?? "" };
      const start = (abort: AbortSignal) =>
        compute(abort).then((computed) => {
          put(key, computed, kept, storeNow());
          return computed;
        });
      const computed = await join(key, policy, start, signal);
      return { value: computed.value, status: "MISS", computedAt: store.get(key)?.computedAt ?? storeNow() };
    },
    grow: (key, value, more) => store.grow(key, value, more),
    runWarming: () => warming.run(),
    get size() {
      return store.size;
    },
    close() {
      warming.close();
      store.close();
    },
  };
}
