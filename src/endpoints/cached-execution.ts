// The endpoint service's peek and execute when it has a cache: a hit read
// from the result cache, or the shared computation of the key that the call
// joins or starts, run to the service's deadline (callers leaving at theirs)
// or, where an abandoned query runs on, to its callers' deadlines
// (callers-deadline.ts). The computed response is kept as its JSON body
// (cached-response.ts) with a refresh that holds nothing of the caller.
// The caller's freshness (CallContext.freshness) forces a run, bounds the
// age it accepts, or keeps it from the warehouse. A call without a cache
// entry is computed as it is.
import { randomUUID } from "node:crypto";
import type { CacheFreshness, CacheLookup, Compute, Computed, ResultCache } from "../cache/index.js";
import { abortedCallError } from "../errors/index.js";
import type { ExecuteOptions } from "../executor/index.js";
import type { Clock } from "../observability/index.js";
import { cachedResponse } from "./cached-response.js";
import type {
  CachedCall,
  CallContext,
  EndpointResult,
  Freshness,
  JoinComputation,
  PreparedCall,
} from "./call-types.js";
import { createCallersDeadline } from "./callers-deadline.js";
import type { ComputedResponse } from "./computed-response.js";
import { exactBuffer } from "./kept-bodies.js";
import { notCachedError } from "./request-freshness.js";

/** The tenant cache refreshes run as: they take their turns at the warehouse beside the callers. */
const warmingTenant = "(cache warming)";

export interface CachedExecutionOptions {
  cache: ResultCache<ComputedResponse>;
  /** For the Age of cached results. */
  clock: Clock;
  /** Computes a call's response, uncached, with the given executor options. */
  compute: (call: PreparedCall, options: ExecuteOptions) => Promise<ComputedResponse>;
  /** Deadline of a refresh, and of a computation in "service" mode. */
  sharedTimeoutMs: number;
  /** Whose deadline a computation callers share runs to (EndpointServiceOptions.sharedDeadline). */
  sharedDeadline: "service" | "callers";
}

/** What EndpointService takes as its own peek and execute, so a hit reaches the cache from the transport in one call. */
export interface CachedExecution {
  /**
   * The cached result of `call` if it has a cache entry and the cache holds
   * a live one; never asks the warehouse. For a call without freshness: one
   * with a freshness goes to `execute`. An entry stays counted for the
   * tenant whose call stored it, whoever reads it.
   */
  peek(call: PreparedCall): EndpointResult | undefined;
  /**
   * The result of `call`, from the cache or its key's shared computation,
   * computed when it has no cache entry, as `context.freshness` asks. Throws
   * only ConnectError; notCachedError for an only-if-cached call the cache
   * cannot answer.
   */
  execute(call: PreparedCall, context?: CallContext): Promise<EndpointResult>;
}

export function createCachedExecution(options: CachedExecutionOptions): CachedExecution {
  const { cache, clock, compute, sharedTimeoutMs } = options;

  /**
   * A result to cache: kept as its JSON bytes alone (see cachedResponse),
   * counted twice for the message a Connect caller may add later.
   */
  async function computeCached(call: CachedCall, options: ExecuteOptions): Promise<Computed<ComputedResponse>> {
    const value = await compute(call, options);
    const started = performance.now();
    // Its own buffer: Buffer.from keeps a small body in a slice of a shared pool.
    const json = exactBuffer(value.json());
    const computation = { ...value.computation, serializeMs: performance.now() - started };
    // Bodies in other formats and encodings are counted as they are made.
    // (The closure sees the prepared call only: nothing of the caller's `options`.)
    const key = call.cacheEntry.key;
    const kept = { json, rowsTag: value.rowsTag() };
    const response = cachedResponse(call.endpoint, kept, computation, (self, bytes) => cache.grow(key, self, bytes));
    return { value: response, bytes: 2 * json.buffer.byteLength };
  }

  /**
   * The refresh the cache keeps with an entry: made here, away from any
   * caller's context, because closures made in one scope share what they
   * capture, so a refresh made beside the caller's computation would keep
   * that caller (its deadline, its response) alive with the entry.
   */
  function refreshOf(call: CachedCall): Compute<ComputedResponse> {
    return (signal) =>
      computeCached(call, {
        timeoutMs: sharedTimeoutMs,
        requestId: `refresh-${randomUUID()}`,
        tenant: warmingTenant,
        signal,
      });
  }

  function fromCache(call: CachedCall, lookup: CacheLookup<ComputedResponse>): EndpointResult {
    const { message, json, body, keepBody, rowsTag, computation } = lookup.value;
    const { computedAt } = computation;
    const ageSeconds = Math.max(0, Math.floor((clock() - computedAt) / 1000));
    const ttlSeconds = call.cacheEntry.policy.ttlMs / 1000;
    const cache =
      lookup.forced === true
        ? { status: lookup.status, forced: lookup.forced, ageSeconds, computedAt, ttlSeconds }
        : { status: lookup.status, ageSeconds, computedAt, ttlSeconds };
    return { message, json, body, keepBody, rowsTag, computation, cache };
  }

  /**
   * The shared computation a call joins: the cache's hit, or the miss it
   * starts or waits for. A caller that stops waiting (its `signal`) gets its
   * signal's reason as a ConnectError: its deadline's, or CANCELED.
   */
  const joinComputation: JoinComputation = async (call, context, computeIt, signal) => {
    const { key, policy } = call.cacheEntry;
    try {
      const freshness = cacheFreshness(context.freshness);
      const caller = { refresh: refreshOf(call), tenant: context.tenant ?? "", signal, freshness };
      return fromCache(call, await cache.get(key, policy, computeIt, caller));
    } catch (error) {
      throw signal?.aborted && error === signal.reason ? abortedCallError(error) : error;
    }
  };

  const callersDeadline =
    options.sharedDeadline === "callers"
      ? createCallersDeadline({ sharedTimeoutMs, join: joinComputation, computeCached })
      : undefined;

  /** The hit `freshness` accepts (none when it forces a run); any live one without a freshness. */
  function lookUp(call: CachedCall, freshness: CacheFreshness | undefined): EndpointResult | undefined {
    if (freshness?.force === true) return undefined;
    const lookup = cache.peek(call.cacheEntry.key, call.cacheEntry.policy, freshness?.maxAgeMs);
    return lookup === undefined ? undefined : fromCache(call, lookup);
  }

  const peek = (call: PreparedCall) => (isCached(call) ? lookUp(call, undefined) : undefined);

  return {
    peek,
    async execute(call, context = {}) {
      if (context.freshness?.onlyIfCached === true) {
        const hit = isCached(call) ? lookUp(call, cacheFreshness(context.freshness)) : undefined;
        if (hit === undefined) throw notCachedError();
        return hit;
      }
      if (!isCached(call)) return compute(call, context);
      if (callersDeadline === undefined) {
        // Other callers may join this computation: it runs to the service's own
        // deadline, each caller leaving at its own (its signal), and stops
        // only when none waits any more.
        const shared = { timeoutMs: sharedTimeoutMs, requestId: context.requestId, tenant: context.tenant };
        return joinComputation(call, context, (signal) => computeCached(call, { ...shared, signal }), context.signal);
      }
      return lookUp(call, cacheFreshness(context.freshness)) ?? callersDeadline.wait(call, context);
    },
  };
}

/**
 * The caller's freshness in the cache's terms: `noCache` or max-age 0 force
 * a run; max-age N accepts an Age (whole seconds) of at most N, so anything
 * less than N + 1 seconds old.
 */
function cacheFreshness(freshness: Freshness | undefined): CacheFreshness | undefined {
  if (freshness === undefined) return undefined;
  const { noCache, maxAgeSeconds } = freshness;
  if (noCache === true || maxAgeSeconds === 0) return { force: true };
  if (maxAgeSeconds !== undefined) return { maxAgeMs: (maxAgeSeconds + 1) * 1000 - 1 };
  // only-if-cached alone accepts any live result, and a computation never follows it.
  return undefined;
}

const isCached = (call: PreparedCall): call is CachedCall => call.cacheEntry !== undefined;
