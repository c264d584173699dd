// What a call to a saved query is on its way through the endpoint service:
// the caller's context, the call once prepared, and the result it gets.
import type { CachePolicy, Compute } from "../cache/index.js";
import type { QueryParamValue, ReadLimits } from "../executor/index.js";
import type { ComputedResponse } from "./computed-response.js";
import type { Endpoint } from "./registry.js";
import type { PageRequest } from "./result-page.js";

export interface CallContext {
  /**
   * Aborts when the caller goes away. Read only when the warehouse is asked,
   * so a transport may make it lazily (a getter) and spare cache hits the cost.
   */
  signal?: AbortSignal;
  /** Remaining time the caller allows, in milliseconds. */
  timeoutMs?: number;
  requestId?: string;
  /** Whose call this is (a credential id): the warehouse is shared fairly between them. */
  tenant?: string;
  /** What the caller accepts of a cached result (request-freshness.ts reads it from the request). Default: any live one. */
  freshness?: Freshness;
}

/**
 * The caller's freshness: RFC 9111 request directives. Only cached saved
 * queries read `noCache` and `maxAgeSeconds`; `onlyIfCached` holds for all.
 */
export interface Freshness {
  /**
   * Runs the query now (joining the key's computation if one runs), stores
   * its result and answers it: a MISS with `forced`. Also `maxAgeSeconds: 0`.
   */
  noCache?: boolean;
  /** Accepts a cached result at most this many whole seconds old (its Age); else computes it as a miss. */
  maxAgeSeconds?: number;
  /**
   * Answers from the cache (within `maxAgeSeconds`; nothing when `noCache`)
   * or throws notCachedError at once; never reaches the warehouse.
   */
  onlyIfCached?: boolean;
}

/** Where a call's result is cached, and for how long. */
export interface CacheEntry {
  key: string;
  policy: CachePolicy;
}

/**
 * A call with its parameters bound and checked: what `execute` needs besides
 * the caller's context. It depends on the request alone, so a transport may
 * keep it for requests that repeat (the GET routes do, by request target).
 */
export interface PreparedCall {
  endpoint: Endpoint;
  /** The values handed to the SQL's placeholders. */
  queryParams: Record<string, QueryParamValue>;
  /** Where the result is cached; undefined when it is not (no cache, or no lifetime). */
  cacheEntry?: CacheEntry;
  /** The read limits the query runs under (read-limit-choice.ts); undefined: none. */
  readLimits?: ReadLimits;
  /** Its paging, for an endpoint with a page token; its token is checked against the caller when it runs. */
  page?: PageRequest;
  /**
   * Set when its saved query masks personal data and the caller may see it
   * as stored: `{unmasked}` is 1, and the result has a cache entry and an
   * entity tag of its own.
   */
  unmasked?: true;
}

export interface EndpointResult extends ComputedResponse {
  /** Set for endpoints with a cache lifetime. */
  cache?: CacheOutcome;
}

/** What a cached result says about itself, for X-Cache, Age, Cache-Status and the validators. */
export interface CacheOutcome {
  /**
   * HIT: served from the cache within its lifetime. MISS: computed for this
   * call or one it joined. STALE: computing failed as an outage (unavailable,
   * deadline exceeded, overload) and the result past its lifetime, within
   * the stale-if-error window, answers instead.
   */
  status: "HIT" | "MISS" | "STALE";
  /** Set on a MISS the caller forced (Freshness.noCache, or maxAgeSeconds 0): Cache-Status `fwd=request`. */
  forced?: true;
  /** Whole seconds since it was computed, by the service's clock: its true Age, past its lifetime when STALE. */
  ageSeconds: number;
  /** When it was computed (milliseconds since the epoch, the service's clock): Last-Modified. */
  computedAt: number;
  /** Its lifetime in seconds: Cache-Control max-age, Cache-Status ttl (ttlSeconds − ageSeconds). */
  ttlSeconds: number;
}

/** A prepared call that has a cache entry. */
export type CachedCall = PreparedCall & { cacheEntry: CacheEntry };

/**
 * Joins the shared computation of a call's key: its cached result, or the one
 * `compute` (started by this call or by another) makes for it and the callers
 * beside it. `signal` lets this caller stop waiting. Throws only ConnectError.
 */
export type JoinComputation = (
  call: CachedCall,
  context: CallContext,
  compute: Compute<ComputedResponse>,
  signal: AbortSignal | undefined,
) => Promise<EndpointResult>;
