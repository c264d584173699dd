// Refreshing the live entries a change of the data touched (an import): those
// asked for within their warming period (as warming would refresh them) are
// recomputed through their key's single flight, a few at a time within
// warming's share of the warehouse's time (refresh-share.ts), and dropped
// when their refresh fails; the idle rest are dropped, for the next call to compute.
import type { Logger } from "../observability/index.js";
import type { CacheEvent, CachePolicy, Computed } from "./cache-types.js";
import type { JoinComputation } from "./computation-join.js";
import type { RefreshShare } from "./refresh-share.js";
import { type Entry, type EntryStore, isLive, storeNow } from "./entry-store.js";
import type { SingleFlight } from "./single-flight.js";

/** Refreshes running at once: each is a warehouse query, and the warehouse's queue is bounded. */
const refreshWhereConcurrency = 4;

export interface RefreshWhereOptions<V> {
  store: EntryStore<V>;
  flights: SingleFlight<Computed<V>>;
  join: JoinComputation<V>;
  /** Stores a refreshed result of `entry`. */
  renew: (key: string, computed: Computed<V>, entry: Entry<V>) => void;
  /** Warming's share of the warehouse's time, which these refreshes take their turns in. */
  share: RefreshShare;
  onEvent: (event: CacheEvent, label: string) => void;
  logger: Logger;
}

/**
 * Whether `entry` was asked for within its warming period (its lifetime when
 * it is not warmed): computing it again is worth a query only then.
 */
export function isWanted(entry: Entry<unknown>, now: number): boolean {
  const period = entry.policy.warmMs > 0 ? entry.policy.warmMs : entry.policy.ttlMs;
  return now - entry.lastAskedAt < period;
}

/** ResultCache.refreshWhere: refreshes every live entry `matches` takes, and settles when all have. */
export function createRefreshWhere<V>(
  options: RefreshWhereOptions<V>,
): (matches: (key: string, policy: CachePolicy) => boolean) => Promise<void> {
  const { store, flights, join, renew, share, onEvent, logger } = options;

  /** The recomputation of one entry, through the key's single flight. */
  async function refreshNow(key: string, entry: Entry<V>): Promise<void> {
    // A computation begun before the change may have read the data before it: it is not this refresh.
    await flights.running(key)?.catch(() => {});
    const start = (abort: AbortSignal) =>
      entry.refresh(abort).then((computed) => {
        renew(key, computed, entry);
        return computed;
      });
    await share.turn();
    const started = performance.now();
    try {
      await join(key, entry.policy, start);
      onEvent("refresh", entry.policy.label ?? "");
    } catch (error) {
      // Its result no longer holds: the next call computes it rather than being answered what the data was.
      if (store.find(key) === entry) store.delete(key);
      onEvent("refresh_failure", entry.policy.label ?? "");
      logger.warn("cache refresh failed", { key, error });
    } finally {
      share.spent(started, performance.now());
    }
  }

  return async (matches) => {
    const now = storeNow();
    const chosen: [string, Entry<V>][] = [];
    const idle: string[] = [];
    for (const [key, entry] of store.entries()) {
      if (!isLive(entry, now) || !matches(key, entry.policy)) continue;
      if (isWanted(entry, now)) chosen.push([key, entry]);
      else idle.push(key);
    }
    // Deleted after the walk: the store's order of use is what it walks.
    for (const key of idle) store.delete(key);
    const next = chosen[Symbol.iterator]();
    const worker = async () => {
      for (const [key, entry] of next) await refreshNow(key, entry);
    };
    await Promise.all(Array.from({ length: Math.min(refreshWhereConcurrency, chosen.length) }, worker));
  };
}
