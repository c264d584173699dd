// A token bucket per API key: `perSecond` calls a second on average, bursts
// of up to `burst`. Beyond it a call is RESOURCE_EXHAUSTED with Retry-After
// and RateLimit headers (draft-ietf-httpapi-ratelimit-headers).
import { Code, ConnectError } from "@connectrpc/connect";
import type { Clock } from "../observability/index.js";
import { createTokenBuckets } from "./token-buckets.js";

export interface RateLimitOptions {
  /** Sustained calls per second per key; 0 disables the limit. Default 100. */
  perSecond?: number;
  /** Calls a key may make at once after being idle. Default 200. */
  burst?: number;
  /** Default: the system clock. */
  clock?: Clock;
  /** Most keys tracked; the longest idle are forgotten first. Default 10,000. */
  maxKeys?: number;
}

/** Takes one call from the bucket of `keyId`, or throws RESOURCE_EXHAUSTED. */
export type RateLimiter = (keyId: string) => void;

export function createRateLimiter(options: RateLimitOptions = {}): RateLimiter {
  const perSecond = options.perSecond ?? 100;
  const burst = Math.max(1, options.burst ?? 200);
  if (perSecond <= 0) return () => {};
  const buckets = createTokenBuckets({ perSecond, burst, clock: options.clock, maxKeys: options.maxKeys });

  return (keyId) => {
    const retryAfter = buckets.take(keyId);
    if (retryAfter === 0) return;
    const error = new ConnectError("rate limit exceeded for this API key", Code.ResourceExhausted);
    error.metadata.set("retry-after", String(retryAfter));
    error.metadata.set("ratelimit", `limit=${burst}, remaining=0, reset=${retryAfter}`);
    error.metadata.set("ratelimit-policy", `${burst};w=${Math.ceil(burst / perSecond)}`);
    throw error;
  };
}
