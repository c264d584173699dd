// What the result cache deals in: a policy per endpoint, computations and
// what they yield, lookups and the events counted for metrics.

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
   * Whose call this is (a credential id). An entry counts for the tenant that
   * last asked for it: its refreshes take that tenant's turns and it counts in
   * that tenant's share of the cache. Default "".
   */
  tenant?: string;
}

/** Who asks for a key: what an entry its miss makes keeps, and how the caller stops waiting. */
export interface CacheCaller<V> extends EntryOrigin<V> {
  /** Lets this caller stop waiting, rejected with the signal's reason; the query runs on while others wait. */
  signal?: AbortSignal;
}

export interface CacheLookup<V> {
  value: V;
  status: "HIT" | "MISS";
  /** When the value was computed (Date.now() milliseconds: the store's clock, entry-store.ts). */
  computedAt: number;
}

export type CacheEvent = "hit" | "miss" | "refresh" | "refresh_failure" | "eviction";
