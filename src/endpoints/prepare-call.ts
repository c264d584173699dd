// Preparing a call: the caller's scope applied, the parameters bound and
// checked, the read limits it runs under, whether personal data is masked,
// and where its result is cached (the endpoint and its normalised
// parameters, the limits when the credential's are among them, and the
// masking), all from the request and its scope alone.
import type { Message } from "@bufbuild/protobuf";
import { cacheKey, type CachePolicy } from "../cache/index.js";
import type { ReadLimits, ReadLimitValues } from "../executor/index.js";
import type { PreparedCall } from "./call-types.js";
import { bindParameters } from "./parameters.js";
import { chooseReadLimits, setByCredential } from "./read-limit-choice.js";
import type { Endpoint } from "./registry.js";
import { applyScope, type Scope } from "./scope.js";

export type PrepareCall = (endpoint: Endpoint, request: Message, scope?: Scope) => PreparedCall;

/**
 * Prepares calls; with `cached` false (no cache) no call gets a cache entry.
 * `defaultReadLimits` apply to every call (MAX_ROWS_TO_READ, MAX_BYTES_TO_READ).
 * Throws PERMISSION_DENIED (scope) or INVALID_ARGUMENT (every problem listed).
 */
export function createCallPreparer(cached: boolean, defaultReadLimits?: ReadLimitValues): PrepareCall {
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

  /** The limits of calls without a credential's own, by endpoint. */
  const endpointLimits = new Map<Endpoint, ReadLimits | undefined>();
  function readLimitsOf(endpoint: Endpoint, scope: Scope | undefined): ReadLimits | undefined {
    if (scope?.readLimits !== undefined)
      return chooseReadLimits({
        savedQuery: endpoint.readLimits,
        credential: scope.readLimits,
        defaults: defaultReadLimits,
      });
    if (!endpointLimits.has(endpoint))
      endpointLimits.set(endpoint, chooseReadLimits({ savedQuery: endpoint.readLimits, defaults: defaultReadLimits }));
    return endpointLimits.get(endpoint);
  }

  return (endpoint, request, scope) => {
    const effective = scope === undefined ? request : applyScope(endpoint, request, scope);
    const bound = bindParameters(endpoint, effective);
    const { normalized, page } = bound;
    const readLimits = readLimitsOf(endpoint, scope);
    // The service's own {unmasked}: masked unless the credential may see personal data.
    const unmasked = endpoint.masksPersonalData && scope?.unmasked === true;
    let queryParams = page === undefined ? bound.queryParams : { ...bound.queryParams, ...page.queryParams };
    if (endpoint.masksPersonalData) queryParams = { ...queryParams, unmasked: unmasked ? 1 : 0 };
    const call: PreparedCall =
      readLimits === undefined ? { endpoint, queryParams } : { endpoint, queryParams, readLimits };
    if (unmasked) call.unmasked = true;
    if (page !== undefined) return { ...call, page: page.request };
    const policy = policyOf(endpoint);
    if (!cached || policy.ttlMs === 0) return call;
    let key = cacheKey(endpoint.definition.name, normalized);
    // A call stopped by its credential's limit must not be joined by callers without it, nor the other way round.
    if (setByCredential(readLimits)) key += `\n${JSON.stringify(readLimits)}`;
    // Nor may a masked result answer a caller who may see personal data, nor the other way round.
    if (unmasked) key += "\nunmasked";
    return { ...call, cacheEntry: { key, policy } };
  };
}
