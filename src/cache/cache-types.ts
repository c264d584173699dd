// What the result cache deals in: a policy per endpoint, computations and
// what they yield, lookups, the events counted for metrics, and the cache
// itself as its callers use it (ResultCache).

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

/** What an entry keeps of the miss that made it, for its whole life, and who asked. */
export interface EntryOrigin<V> {
  /**
   * Recomputes the entry when warming finds it due. Default: the miss's
   * `compute`. It must hold nothing of the caller (its deadline, request id
   * or response), since the entry keeps it.
   */
  refresh?: Compute<V>;
  /**
   * Whose call this is (a credential id). An entry counts for the tenant whose
   * call first stored it: its refreshes take that tenant's turns and it counts
   * in that tenant's share of the cache, whoever reads or recomputes it later,
   * so that one tenant's reads never expose another's entry to its own
   * misses. Default "".
   */
  tenant?: string;
}

/** What a caller accepts of a stored value (RFC 9111 request directives, in the cache's terms). */
export interface CacheFreshness {
  /** Computes now, joining the key's computation if one runs, and stores the result, whatever is stored. */
  force?: boolean;
  /** Accepts a stored value at most this many milliseconds old (the store's clock); an older one is computed anew. */
  maxAgeMs?: number;
}

/** Who asks for a key: what an entry its miss makes keeps, and how the caller stops waiting. */
export interface CacheCaller<V> extends EntryOrigin<V> {
  /** Lets this caller stop waiting, rejected with the signal's reason; the query runs on while others wait. */
  signal?: AbortSignal;
  /**
   * What this caller accepts of a stored value. Default: any live one. A
   * caller that gives one is never answered a stale value: it asked for a
   * fresher one than the store holds.
   */
  freshness?: CacheFreshness;
}

export interface CacheLookup<V> {
  value: V;
  /**
   * HIT: a live stored value; MISS: computed for this call (or the one it
   * joined); STALE: computing failed as an outage and a value past its
   * lifetime, within the stale-if-error window, answers instead.
   */
  status: "HIT" | "MISS" | "STALE";
  /** When the value was computed (Date.now() milliseconds: the store's clock, entry-store.ts). */
  computedAt: number;
  /** Set on a MISS the caller forced (CacheFreshness.force). */
  forced?: true;
}

export type CacheEvent = "hit" | "miss" | "stale" | "refresh" | "refresh_failure" | "eviction";

export interface ResultCache<V> {
  /**
   * The value of `key`: a HIT while the stored result is younger than
   * `policy.ttlMs` (and `caller.freshness` accepts it), else a MISS that runs
   * `compute` once for all concurrent callers of the key (`forced` when the
   * caller forced it). Errors are thrown to the callers, never stored; but
   * when the computation fails as an outage, a caller without freshness is
   * answered the key's stale entry, if one is held, as STALE.
   * `caller.signal` lets one caller stop waiting (rejected with the signal's
   * reason); the query is aborted only when no caller waits any more. The
   * entry keeps `caller.refresh` for its whole life, and counts for the
   * tenant whose call first stored the key.
   */
  get(key: string, policy: CachePolicy, compute: Compute<V>, caller?: CacheCaller<V>): Promise<CacheLookup<V>>;
  /**
   * The HIT that `get` would answer, without computing anything on a miss
   * (and without counting it): a live entry at most `maxAgeMs` old when
   * given. Never a stale entry.
   */
  peek(key: string, policy: CachePolicy, maxAgeMs?: number): CacheLookup<V> | undefined;
  /**
   * Counts `bytes` more for `key` while it still holds `value` (a body made
   * later from the value, kept with it), evicting other entries if the bounds
   * are passed; nothing when the entry was replaced or dropped meanwhile.
   */
  grow(key: string, value: V, bytes: number): void;
  /**
   * Recomputes now every live entry whose key and policy `matches` and that
   * was asked for within its warming period (its lifetime when not warmed),
   * each with the refresh it keeps, a few at a time, and resolves when all
   * have ended (a failed one is dropped and logged): after data under them
   * changed. The other matching entries are dropped, for the next call to compute.
   * Misses of such a key meanwhile join its refresh; a computation already
   * running is waited for first, and a refresh by warming still running
   * finds its entry replaced and keeps nothing.
   */
  refreshWhere(matches: (key: string, policy: CachePolicy) => boolean): Promise<void>;
  /** Refreshes due entries and drops idle or expired ones; resolves when the refreshes end. */
  runWarming(): Promise<void>;
  readonly size: { entries: number; bytes: number };
  /**
   * Tells `listener` each time a key's value is stored anew (a miss, a
   * forced run, warming's refresh, refreshWhere), after it is stored; the
   * returned function stops it. Nothing is done per store while none listens.
   */
  onRenew(listener: RenewListener<V>): () => void;
  /**
   * Marks `key` asked for now, as a hit does but without counting one, so
   * that warming keeps refreshing it; false when no live entry holds it.
   */
  markAsked(key: string): boolean;
  /** Stops the warming and expiry timers. */
  close(): void;
}

/** Told a key's new value, with when it was computed (the store's clock). */
export type RenewListener<V> = (key: string, value: V, computedAt: number) => void;
