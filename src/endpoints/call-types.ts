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
}

export interface EndpointResult extends ComputedResponse {
  /** Set for endpoints with a cache lifetime. */
  cache?: { status: "HIT" | "MISS"; ageSeconds: number };
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
