// The per-key token bucket against a pinned clock.
import { Code, type ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { createRateLimiter } from "../../src/auth/index.js";
import { fixedClock } from "../../src/observability/index.js";

function refusal(take: () => void): ConnectError | undefined {
  try {
    take();
    return undefined;
  } catch (error) {
    return error as ConnectError;
  }
}

describe("rate limiter", () => {
  it("allows a burst, then refuses with Retry-After and RateLimit headers", () => {
    const clock = fixedClock(0);
    const limit = createRateLimiter({ perSecond: 2, burst: 3, clock });
    expect([1, 2, 3].map(() => refusal(() => limit("a")))).toEqual([undefined, undefined, undefined]);
    const error = refusal(() => limit("a"))!;
    expect(error.code).toBe(Code.ResourceExhausted);
    expect(error.metadata.get("retry-after")).toBe("1");
    expect(error.metadata.get("ratelimit")).toBe("limit=3, remaining=0, reset=1");
  });

  it("refills at the sustained rate", () => {
    const clock = fixedClock(0);
    const limit = createRateLimiter({ perSecond: 2, burst: 1, clock });
    limit("a");
    clock.advance(499);
    expect(refusal(() => limit("a"))?.code).toBe(Code.ResourceExhausted);
    clock.advance(1); // 500 ms at 2 a second is one token
    expect(refusal(() => limit("a"))).toBeUndefined();
  });

  it("keeps a bucket per key", () => {
    const limit = createRateLimiter({ perSecond: 1, burst: 1, clock: fixedClock(0) });
    limit("a");
    expect(refusal(() => limit("b"))).toBeUndefined();
    expect(refusal(() => limit("a"))?.code).toBe(Code.ResourceExhausted);
  });

  it("is off at 0 per second", () => {
    const limit = createRateLimiter({ perSecond: 0, burst: 1, clock: fixedClock(0) });
    for (let i = 0; i < 1000; i++) limit("a");
  });
});
