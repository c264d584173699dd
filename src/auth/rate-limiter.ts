// A token bucket per caller: `perSecond` calls a second on average, bursts
// of up to `burst`, the service's limits unless the caller's credential
// carries its own. Beyond it a call is RESOURCE_EXHAUSTED with Retry-After
// and RateLimit headers (draft-ietf-httpapi-ratelimit-headers).
import { Code, ConnectError } from "@connectrpc/connect";
import type { Clock } from "../observability/index.js";
import { createTokenBuckets, type TokenBuckets } from "./token-buckets.js";

export interface RateLimitOptions {
  /** Sustained calls per second per caller; 0 disables the limit. Default 100. */
  perSecond?: number;
  /** Calls a caller may make at once after being idle. Default 200. */
  burst?: number;
  /** Default: the system clock. */
  clock?: Clock;
  /** Most callers tracked per limit; the longest idle are forgotten first. Default 10,000. */
  maxKeys?: number;
}

/** Takes one call from the bucket of `id`, under `own` limits when given, or throws RESOURCE_EXHAUSTED. */
export type RateLimiter = (id: string, own?: { perSecond: number; burst: number }) => void;

/** The service's limit per key when the options do not say: calls a second, and at once. */
export const defaultRateLimit = { perSecond: 100, burst: 200 } as const;

export function createRateLimiter(options: RateLimitOptions = {}): RateLimiter {
  const service = {
    perSecond: options.perSecond ?? defaultRateLimit.perSecond,
    burst: Math.max(1, options.burst ?? defaultRateLimit.burst),
  };
  /** Buckets by limit: callers with the same limits share a map, each caller its own bucket. */
  const byLimit = new Map<string, TokenBuckets>();
  const bucketsFor = (limit: { perSecond: number; burst: number }) => {
    const name = `${limit.perSecond}/${limit.burst}`;
    let buckets = byLimit.get(name);
    if (buckets === undefined) {
      buckets = createTokenBuckets({ ...limit, clock: options.clock, maxKeys: options.maxKeys });
      byLimit.set(name, buckets);
    }
    return buckets;
  };

  return (id, own) => {
    const limit = own ?? service;
    if (limit.perSecond <= 0) return;
    const retryAfter = bucketsFor(limit).take(id);
    if (retryAfter === 0) return;
    const burst = Math.max(1, limit.burst);
    const error = new ConnectError("rate limit exceeded for this API key", Code.ResourceExhausted);
    error.metadata.set("retry-after", String(retryAfter));
    error.metadata.set("ratelimit", `limit=${burst}, remaining=0, reset=${retryAfter}`);
    error.metadata.set("ratelimit-policy", `${burst};w=${Math.ceil(burst / limit.perSecond)}`);
    throw error;
  };
}
