// The result cache: TTL, warming, single-flight and bounds, keyed by endpoint
// and normalised parameters.
export { createResultCache } from "./result-cache.js";
export type {
  ResultCache,
  ResultCacheOptions,
  CachePolicy,
  Computed,
  Compute,
  CacheLookup,
  CacheEvent,
} from "./result-cache.js";
export { cacheKey } from "./cache-key.js";
