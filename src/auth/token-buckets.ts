// Token buckets by key (an API key id, a client address): `perSecond` tokens
// a second up to `burst`, the least recently used keys forgotten past
// `maxKeys` so that many keys cannot grow the map without bound. A bucket
// keeps its place in the order of use, so that a call moves it there without
// re-inserting it in the map (collections/linked-list.ts says why).
import { type Link, LinkedList } from "../collections/index.js";
import { type Clock, systemClock } from "../observability/index.js";

export interface TokenBucketsOptions {
  /** Tokens added a second. */
  perSecond: number;
  /** Most tokens a bucket holds; a new or long-idle key starts full. */
  burst: number;
  /** Default: the system clock. */
  clock?: Clock;
  /** Most keys tracked; the longest idle are forgotten first. Default 10,000. */
  maxKeys?: number;
}

export interface TokenBuckets {
  /** Takes a token from `key`'s bucket: 0 when one was there, else the whole seconds until one is (at most a day). */
  take(key: string): number;
  /** Like `take`, without taking anything. */
  peek(key: string): number;
  /** Whether `key` has a bucket: it took a token and has not been forgotten since. */
  has(key: string): boolean;
  /** Gives back a token taken from `key`'s bucket (never past `burst`). */
  giveBack(key: string): void;
}

/** The longest wait a bucket tells: a day, the wait of the slowest rate a credential may have. */
const maxWaitSeconds = 86_400;

export function createTokenBuckets(options: TokenBucketsOptions): TokenBuckets {
  const { perSecond } = options;
  const burst = Math.max(1, options.burst);
  const clock = options.clock ?? systemClock;
  const maxKeys = options.maxKeys ?? 10_000;
  const buckets = new Map<string, { tokens: number; at: number; used: Link<string> }>();
  /** The keys, least recently used first. */
  const used = new LinkedList<string>();

  function refill(key: string) {
    const now = clock();
    let bucket = buckets.get(key);
    if (bucket === undefined) {
      buckets.set(key, (bucket = { tokens: burst, at: now, used: used.push(key) }));
      if (used.size > maxKeys) buckets.delete(used.shift()!);
    } else {
      used.moveToEnd(bucket.used);
    }
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    return bucket;
  }

  // Whole seconds, and at most a day, so that Retry-After is a plain integer however slow the rate.
  const wait = (tokens: number) => Math.min(maxWaitSeconds, Math.max(1, Math.ceil((1 - tokens) / perSecond)));

  return {
    take(key) {
      const bucket = refill(key);
      if (bucket.tokens < 1) return wait(bucket.tokens);
      bucket.tokens -= 1;
      return 0;
    },
    peek(key) {
      const bucket = refill(key);
      return bucket.tokens < 1 ? wait(bucket.tokens) : 0;
    },
    has: (key) => buckets.has(key),
    giveBack(key) {
      const bucket = buckets.get(key);
      if (bucket !== undefined) bucket.tokens = Math.min(burst, bucket.tokens + 1);
    },
  };
}
