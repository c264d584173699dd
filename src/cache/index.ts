// The result cache: TTL, warming, single-flight and bounds, keyed by endpoint
// and normalised parameters.
export { createResultCache } from "./result-cache.js";
export type {
  CacheCaller,
  CacheEvent,
  CacheFreshness,
  CacheLookup,
  CachePolicy,
  Compute,
  Computed,
  RenewListener,
  ResultCache,
} from "./cache-types.js";
export { cacheKey } from "./cache-key.js";
