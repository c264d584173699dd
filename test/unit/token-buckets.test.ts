// Token buckets by key against a pinned clock: burst, refill, waits in whole
// seconds, giving back, and forgetting the least recently used keys.
import { describe, expect, it } from "vitest";
import { createTokenBuckets } from "../../src/auth/token-buckets.js";
import { fixedClock } from "../../src/observability/index.js";

describe("token buckets", () => {
  it("starts full: a burst of takes, then the wait until the next token", () => {
    const buckets = createTokenBuckets({ perSecond: 1, burst: 3, clock: fixedClock(0) });
    expect([1, 2, 3, 4].map(() => buckets.take("a"))).toEqual([0, 0, 0, 1]);
  });

  it.each([
    // perSecond, ms after the bucket emptied, whole seconds to wait
    [0.5, 0, 2], // a token takes 2 s
    [0.5, 1000, 1], // half a token there: 1 s more
    [0.25, 1000, 3], // a quarter there: 3 s more
    [10, 0, 1], // 0.1 s is rounded up to one whole second
    [0.5, 2000, 0], // a whole token: taken
  ])("at %f a second, %i ms after emptying the wait is %i s", (perSecond, after, wait) => {
    const clock = fixedClock(0);
    const buckets = createTokenBuckets({ perSecond, burst: 1, clock });
    expect(buckets.take("a")).toBe(0);
    clock.advance(after);
    expect(buckets.take("a")).toBe(wait);
  });

  it("refills no further than the burst however long a key is idle", () => {
    const clock = fixedClock(0);
    const buckets = createTokenBuckets({ perSecond: 1, burst: 2, clock });
    buckets.take("a");
    buckets.take("a");
    clock.advance(60_000);
    expect([1, 2, 3].map(() => buckets.take("a"))).toEqual([0, 0, 1]);
  });

  it("keeps one bucket per key", () => {
    const buckets = createTokenBuckets({ perSecond: 1, burst: 1, clock: fixedClock(0) });
    expect(buckets.take("a")).toBe(0);
    expect(buckets.take("b")).toBe(0);
    expect(buckets.take("a")).toBe(1);
  });

  it("peeks without taking", () => {
    const buckets = createTokenBuckets({ perSecond: 1, burst: 1, clock: fixedClock(0) });
    expect([buckets.peek("a"), buckets.peek("a"), buckets.take("a"), buckets.peek("a")]).toEqual([0, 0, 0, 1]);
  });

  it("gives a token back, never past the burst", () => {
    const buckets = createTokenBuckets({ perSecond: 1, burst: 1, clock: fixedClock(0) });
    buckets.take("a");
    buckets.giveBack("a");
    buckets.giveBack("a"); // already full: no second token
    expect([buckets.take("a"), buckets.take("a")]).toEqual([0, 1]);
  });

  it("gives nothing back to a key it does not hold", () => {
    const buckets = createTokenBuckets({ perSecond: 1, burst: 1, clock: fixedClock(0) });
    buckets.giveBack("a");
    expect(buckets.has("a")).toBe(false);
  });

  it("treats a burst below one as one", () => {
    const buckets = createTokenBuckets({ perSecond: 1, burst: 0, clock: fixedClock(0) });
    expect([buckets.take("a"), buckets.take("a")]).toEqual([0, 1]);
  });

  it("forgets the least recently used key past maxKeys, which then starts full", () => {
    const buckets = createTokenBuckets({ perSecond: 1, burst: 1, clock: fixedClock(0), maxKeys: 2 });
    buckets.take("a");
    buckets.take("b");
    buckets.take("a"); // refused, but a is now the most recently used
    buckets.take("c");
    expect(["a", "b", "c"].map((key) => buckets.has(key))).toEqual([true, false, true]);
    expect(buckets.take("b")).toBe(0);
  });
});
