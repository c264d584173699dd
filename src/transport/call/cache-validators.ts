// The validators and cache headers of a saved query's successful answer on every transport: weak ETag per form,
// Last-Modified, Cache-Control, Cache-Status (RFC 9211).
import type { EndpointResult } from "../../endpoints/index.js";

type Computation = EndpointResult["computation"];

/** The form an answer's body has: each has its own entity tag for the same rows. */
export type EntityForm = "json" | "csv" | "ndjson" | "proto" | "proto-json";

/** The first member of Cache-Status: the cache that speaks. */
const cacheName = "saved-query-endpoints";

/** What every keyed answer varies by besides its format and coding: the credential. */
export const varyCredential = "X-API-KEY, Authorization";

/** The headers of the cache and validators an answer carries, by lowercase name. */
export interface CacheHeaders {
  etag: string;
  "last-modified": string;
  "cache-control": string;
  "cache-status": string;
  age?: string;
  "x-cache"?: string;
}

/** The parts of a result's validators that do not change from one answer to the next. */
interface Validators {
  lastModified: string;
  etags: Partial<Record<EntityForm, string>>;
}

// Keyed by the computation, which every answer of one cached result shares: no per-hit hashing or date formatting.
const validatorsOf = new WeakMap<Computation, Validators>();

function validators(result: EndpointResult): Validators {
  let found = validatorsOf.get(result.computation);
  if (found === undefined) {
    found = { lastModified: new Date(result.computation.computedAt).toUTCString(), etags: {} };
    validatorsOf.set(result.computation, found);
  }
  return found;
}

/**
 * The cache headers of `result` in `form`: cached, `private, max-age=<lifetime>` (and `stale-if-error` above 0), Age
 * and X-Cache; uncached, `private, no-cache` and Cache-Status `fwd=uri-miss`.
 */
export function cacheHeaders(result: EndpointResult, form: EntityForm, staleIfErrorSeconds: number): CacheHeaders {
  const headers: Record<string, string> = {};
  setCacheHeaders(headers, result, form, staleIfErrorSeconds);
  return headers as unknown as CacheHeaders;
}

/** Adds the cache headers of `result` in `form` (as cacheHeaders has them) to `headers`; returns its ETag. */
export function setCacheHeaders(
  headers: Record<string, string>,
  result: EndpointResult,
  form: EntityForm,
  staleIfErrorSeconds: number,
): string {
  const kept = validators(result);
  // The same rows in the same form have the same tag, whatever the compression.
  const etag = (kept.etags[form] ??= `W/"${result.rowsTag()}-${form}"`);
  headers.etag = etag;
  headers["last-modified"] = kept.lastModified;
  const cache = result.cache;
  if (cache === undefined) {
    headers["cache-control"] = "private, no-cache";
    headers["cache-status"] = `${cacheName}; fwd=uri-miss`;
    return etag;
  }
  const ttl = cache.ttlSeconds - cache.ageSeconds;
  const status =
    cache.status === "HIT"
      ? `hit; ttl=${ttl}`
      : cache.status === "STALE"
        ? `fwd=stale; ttl=${ttl}`
        : `${cache.forced === true ? "fwd=request" : "fwd=miss"}; stored; ttl=${ttl}`;
  headers["cache-control"] =
    staleIfErrorSeconds > 0
      ? `private, max-age=${cache.ttlSeconds}, stale-if-error=${staleIfErrorSeconds}`
      : `private, max-age=${cache.ttlSeconds}`;
  headers["cache-status"] = `${cacheName}; ${status}`;
  headers.age = String(cache.ageSeconds);
  headers["x-cache"] = cache.status;
  return etag;
}
