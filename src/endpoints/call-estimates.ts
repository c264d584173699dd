// The estimates of calls (`EXPLAIN ESTIMATE`, executor/query-estimator.ts),
// kept under their result's cache key for the result's lifetime, so a miss
// refused by its estimate, asked again, and a dry run of a cached call ask the
// warehouse once per lifetime. A call without a cache entry (logs.all, a
// page) is estimated each time.
import type { QueryEstimate, QueryEstimator } from "../executor/index.js";
import type { Clock } from "../observability/index.js";
import type { PreparedCall } from "./call-types.js";

export interface CallEstimatesOptions {
  estimator: QueryEstimator;
  clock: Clock;
  /** The most estimates kept; past it the oldest goes. Default 10,000. */
  maxEntries?: number;
}

export interface CallEstimates {
  /** The estimate of `call`: the one kept under its cache key while live, else the warehouse's. */
  of(call: PreparedCall, requestId?: string): Promise<QueryEstimate>;
}

interface KeptEstimate {
  estimate: QueryEstimate;
  expiresAt: number;
}

export function createCallEstimates(options: CallEstimatesOptions): CallEstimates {
  const { estimator, clock } = options;
  const maxEntries = options.maxEntries ?? 10_000;
  // A Map keeps insertion order: the first key is the oldest estimate.
  const kept = new Map<string, KeptEstimate>();

  function keep(key: string, estimate: QueryEstimate, ttlMs: number): void {
    kept.delete(key);
    if (kept.size >= maxEntries) kept.delete(kept.keys().next().value as string);
    kept.set(key, { estimate, expiresAt: clock() + ttlMs });
  }

  return {
    async of(call, requestId) {
      const { endpoint, queryParams, cacheEntry } = call;
      const query =
        call.readLimits === undefined ? endpoint.savedQuery : { ...endpoint.savedQuery, readLimits: call.readLimits };
      if (cacheEntry === undefined) return estimator.estimate(query, queryParams, requestId);
      const found = kept.get(cacheEntry.key);
      if (found !== undefined && found.expiresAt > clock()) return found.estimate;
      const estimate = await estimator.estimate(query, queryParams, requestId);
      keep(cacheEntry.key, estimate, cacheEntry.policy.ttlMs);
      return estimate;
    },
  };
}

/** A dry run's answer, the same on every transport: `{"estimate": {"rows", "parts", "marks"}}`. */
export function dryRunAnswer(estimate: QueryEstimate): { estimate: QueryEstimate } {
  return { estimate: { rows: estimate.rows, parts: estimate.parts, marks: estimate.marks } };
}
