// The TTL result cache with warming (docs/endpoints.md, Caching and warming),
// shared by every transport: the entry store (entry-store.ts), single flight
// for concurrent misses (single-flight.ts) and warming (warming.ts), put
// together, with stale results answering outages (stale-if-error). Generic:
// it knows keys and values, not calls, and a caller that stops waiting is
// rejected with its signal's reason for the caller to map.
import { isWarehouseOutage } from "../errors/index.js";
import { type Logger, type Tracing, silentLogger } from "../observability/index.js";
import type {
  CacheEvent,
  CacheLookup,
  CachePolicy,
  Compute,
  Computed,
  RenewListener,
  ResultCache,
} from "./cache-types.js";
import { createEntryStore, type Entry, isLive, storeNow } from "./entry-store.js";
import { createComputationJoin } from "./computation-join.js";
import { createRefreshWhere } from "./refresh-where.js";
import { createRefreshShare } from "./refresh-share.js";
import { createSingleFlight } from "./single-flight.js";
import { createWarming } from "./warming.js";

/** What one caller may hold of a full cache, as a fraction of each bound (ResultCacheOptions.sharePerCaller). */
export const defaultSharePerCaller = 0.5;

export interface ResultCacheOptions {
  /** Most entries held; the least recently used goes first. Default 10,000. */
  maxEntries?: number;
  /** Most bytes held: each entry's reported bytes, its key and `entryOverheadBytes`. Default 256 MiB. */
  maxBytes?: number;
  /**
   * What an entry costs besides its value and key: the entry, its slots in the
   * store, the recency order and its tenant's share, its refresh closure and
   * the prepared call it keeps (its request and parameters as strings).
   * Default 4,096 bytes, what the bench's memory section finds an entry holds.
   */
  entryOverheadBytes?: number;
  /**
   * What one caller (the tenant whose call stored an entry) may hold of a
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
  /** After a failed refresh, the next try waits this long, doubled after each further failure in a row. Default 30,000 ms. */
  retryAfterFailureMs?: number;
  /** The longest wait between tries of a key whose refreshes keep failing. Default 300,000 ms. */
  maxRetryAfterFailureMs?: number;
  /**
   * How long past its lifetime an entry is kept to answer its key when
   * computing it fails as an outage (`isOutage`), as a STALE lookup; stale
   * entries count in the bounds and go first when they are reached. 0 keeps
   * none. Default 0.
   */
  staleIfErrorMs?: number;
  /** Which failures a stale entry may answer. Default: the warehouse's (errors/warehouse-outage.ts). */
  isOutage?: (error: unknown) => boolean;
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

export function createResultCache<V>(options: ResultCacheOptions = {}): ResultCache<V> {
  const onEvent = options.onEvent ?? (() => {});
  const maxEntries = options.maxEntries ?? 10_000;
  const maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
  const share = options.sharePerCaller ?? defaultSharePerCaller;
  const staleIfErrorMs = options.staleIfErrorMs ?? 0;
  const isOutage = options.isOutage ?? isWarehouseOutage;
  const store = createEntryStore<V>({
    staleIfErrorMs,
    maxEntries,
    maxBytes,
    share: { entries: maxEntries * share, bytes: maxBytes * share },
    entryOverheadBytes: options.entryOverheadBytes ?? 4096,
    onEvent,
    onSize: options.onSize ?? (() => {}),
  });
  const flights = createSingleFlight<Computed<V>>();
  const { tracing } = options;
  const logger = options.logger ?? silentLogger;
  const join = createComputationJoin(flights, tracing);
  // One share of the warehouse's time for warming and the refreshes after imports.
  const refreshShare = createRefreshShare(options.warmShare ?? 0.25);
  const warming = createWarming<V>({
    store,
    renew: (key, entry, computed) => put(key, computed, entry, entry.lastAskedAt),
    warmConcurrency: options.warmConcurrency ?? 1,
    share: refreshShare,
    jitter: options.jitter ?? 0.1,
    random: options.random ?? Math.random,
    sweepIntervalMs: options.sweepIntervalMs ?? 1000,
    retryAfterFailureMs: options.retryAfterFailureMs ?? 30_000,
    maxRetryAfterFailureMs: options.maxRetryAfterFailureMs ?? 300_000,
    keepsIdle: staleIfErrorMs > 0,
    onEvent,
    logger,
    tracing,
  });

  const renewListeners = new Set<RenewListener<V>>();
  const refreshWhere = createRefreshWhere<V>({
    store,
    flights,
    join,
    renew: (key, computed, entry) => put(key, computed, entry, entry.lastAskedAt),
    share: refreshShare,
    onEvent,
    logger,
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
    if (renewListeners.size > 0) for (const listener of renewListeners) listener(key, computed.value, now);
  }

  /** Marks `entry` of `key` just asked for: the most recently used, and worth warming. */
  function asked(key: string, entry: Entry<V>, now: number) {
    entry.lastAskedAt = now;
    entry.askedSinceComputed = true;
    store.touch(key, entry);
    warming.asked(key, entry);
  }

  function peek(key: string, policy: CachePolicy, maxAgeMs?: number): CacheLookup<V> | undefined {
    const entry = store.find(key);
    if (entry === undefined) return undefined;
    const now = storeNow();
    if (!isLive(entry, now) || (maxAgeMs !== undefined && now - entry.computedAt > maxAgeMs)) return undefined;
    asked(key, entry, now);
    onEvent("hit", policy.label ?? "");
    return { value: entry.value, status: "HIT", computedAt: entry.computedAt };
  }

  /**
   * The STALE answer to a failed computation of `key`: its entry when past
   * its lifetime by less than the window and `error` is an outage. The ask
   * keeps warming retrying it.
   */
  function stale(key: string, policy: CachePolicy, error: unknown): CacheLookup<V> | undefined {
    const entry = store.find(key);
    if (entry === undefined || staleIfErrorMs === 0 || !isOutage(error)) return undefined;
    const now = storeNow();
    const endedAt = entry.computedAt + entry.policy.ttlMs;
    if (now < endedAt || now - endedAt >= staleIfErrorMs) return undefined;
    asked(key, entry, now);
    onEvent("stale", policy.label ?? "");
    return { value: entry.value, status: "STALE", computedAt: entry.computedAt };
  }

  return {
    peek,
    async get(key, policy, compute, caller = {}) {
      const { signal, freshness } = caller;
      const forced = freshness?.force === true;
      const hit = forced ? undefined : peek(key, policy, freshness?.maxAgeMs);
      if (hit !== undefined) return hit;
      // A caller already gone starts nothing and joins nothing.
      if (signal?.aborted) throw signal.reason;
      onEvent("miss", policy.label ?? "");
      const kept = { policy, refresh: caller.refresh ?? compute, tenant: caller.tenant ?? "" };
      const start = (abort: AbortSignal) =>
        compute(abort).then((computed) => {
          put(key, computed, kept, storeNow());
          return computed;
        });
      let computed: Computed<V>;
      try {
        computed = await join(key, policy, start, signal);
      } catch (error) {
        const answer = freshness === undefined ? stale(key, policy, error) : undefined;
        if (answer === undefined) throw error;
        return answer;
      }
      const computedAt = store.get(key)?.computedAt ?? storeNow();
      return forced
        ? { value: computed.value, status: "MISS", computedAt, forced }
        : { value: computed.value, status: "MISS", computedAt };
    },
    grow: (key, value, more) => store.grow(key, value, more),
    refreshWhere,
    runWarming: () => warming.run(),
    onRenew(listener) {
      renewListeners.add(listener);
      return () => void renewListeners.delete(listener);
    },
    markAsked(key) {
      const entry = store.find(key);
      const now = storeNow();
      if (entry === undefined || !isLive(entry, now)) return false;
      asked(key, entry, now);
      return true;
    },
    get size() {
      return store.size;
    },
    close() {
      warming.close();
      store.close();
    },
  };
}
