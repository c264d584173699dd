// Preparing a call: the caller's scope applied, the parameters bound and
// checked, and where its result is cached (the endpoint and its normalised
// parameters), all from the request alone.
import type { Message } from "@bufbuild/protobuf";
import { cacheKey, type CachePolicy } from "../cache/index.js";
import type { PreparedCall } from "./call-types.js";
import { bindParameters } from "./parameters.js";
import type { Endpoint } from "./registry.js";
import { applyScope, type Scope } from "./scope.js";

export type PrepareCall = (endpoint: Endpoint, request: Message, scope?: Scope) => PreparedCall;

/**
 * Prepares calls; with `cached` false (no cache) no call gets a cache entry.
 * Throws PERMISSION_DENIED (scope) or INVALID_ARGUMENT (every problem listed).
 */
export function createCallPreparer(cached: boolean): PrepareCall {
  /** One policy per endpoint, so entries of an endpoint share it. */
  const policies = new Map<Endpoint, CachePolicy>();

  function policyOf(endpoint: Endpoint): CachePolicy {
    let policy = policies.get(endpoint);
    if (policy === undefined) {
      policy = {
        ttlMs: endpoint.definition.cacheTtlSeconds * 1000,
        warmMs: endpoint.definition.cacheWarmingSeconds * 1000,
        label: endpoint.definition.name,
      };
      policies.set(endpoint, policy);
    }
    return policy;
  }

  return (endpoint, request, scope) => {
    const effective = scope === undefined ? request : applyScope(endpoint, request, scope);
    const bound = bindParameters(endpoint, effective);
    const { normalized, page } = bound;
    if (page !== undefined)
      return { endpoint, queryParams: { ...bound.queryParams, ...page.queryParams }, page: page.request };
    const { queryParams } = bound;
    const policy = policyOf(endpoint);
    if (!cached || policy.ttlMs === 0) return { endpoint, queryParams };
    return { endpoint, queryParams, cacheEntry: { key: cacheKey(endpoint.definition.name, normalized), policy } };
  };
}
