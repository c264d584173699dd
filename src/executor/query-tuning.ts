// What the warehouse's deployment adds to each saved query: on a cluster, the
// setting that lets a one-project query read one shard; with the server's
// query cache, its settings and a `now` that service replicas share.
import type { SavedQuery } from "./saved-query.js";

/** Additions to one saved query's run. */
export interface QueryTuning {
  /** Added to the query's SETTINGS clause. */
  settings: Readonly<Record<string, number | string>>;
  /** `now` is rounded down to a multiple of this many milliseconds; 0 leaves it as the clock says. */
  nowStepMs: number;
  /**
   * Keep the query text the same from call to call, as the server's query
   * cache keys on it: the deadline (`max_execution_time`) travels as a request
   * setting instead of in the SETTINGS clause. Server only: the embedded
   * connection would keep request settings on its one session.
   */
  stableText: boolean;
}

export interface QueryTuningOptions {
  /**
   * The log tables are Distributed over shards by a hash of `project`: every
   * query gets `optimize_skip_unused_shards = 1`, so one that filters on one
   * project reads only that project's shard. A query whose filter does not
   * fix the project (usage.api-counts matches a pattern in the URL) still
   * reads every shard. Default false.
   */
  distributed?: boolean;
  /**
   * Seconds; 0 turns it off. The queries named in `cachedQueries` use the
   * server's query cache with this lifetime, and their `now` is rounded down
   * to a multiple of it, so that every service replica asking within the
   * same step sends the same query and all but the first are answered from
   * the server's cache. Default 0.
   */
  queryCacheSeconds?: number;
  /** The saved queries whose results the service caches. Default: none. */
  cachedQueries?: ReadonlySet<string>;
}

/** The tuning of each saved query, by name; undefined when nothing is added. */
export function createQueryTuning(options: QueryTuningOptions): (query: SavedQuery) => QueryTuning | undefined {
  const queryCacheSeconds = options.queryCacheSeconds ?? 0;
  const cachedQueries = options.cachedQueries ?? new Set<string>();
  const tunings = new Map<string, QueryTuning | undefined>();

  function tune(name: string): QueryTuning | undefined {
    const settings: Record<string, number | string> = {};
    if (options.distributed) settings.optimize_skip_unused_shards = 1;
    const serverCached = queryCacheSeconds > 0 && cachedQueries.has(name);
    if (serverCached) {
      settings.use_query_cache = 1;
      settings.query_cache_ttl = queryCacheSeconds;
    }
    if (Object.keys(settings).length === 0) return undefined;
    return { settings, nowStepMs: serverCached ? queryCacheSeconds * 1000 : 0, stableText: serverCached };
  }

  return (query) => {
    if (!tunings.has(query.name)) tunings.set(query.name, tune(query.name));
    return tunings.get(query.name);
  };
}

/** `now` as a tuned query sees it. */
export function tunedNow(now: number, tuning: QueryTuning | undefined): number {
  const step = tuning?.nowStepMs ?? 0;
  return step > 0 ? Math.floor(now / step) * step : now;
}
