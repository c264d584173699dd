// Keyless requests are limited per client address, probes apart: an
// address's scrapes or misses never refuse its health checks.
import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { fixedClock } from "../../src/observability/index.js";
import { createKeylessLimit, trustedProxies } from "../../src/transport/index.js";

const none = { get: () => null };
function outcome(run: () => void): string {
  try {
    run();
    return "ok";
  } catch (error) {
    const e = ConnectError.from(error);
    return `${Code[e.code]} retry-after ${e.metadata.get("retry-after")}`;
  }
}

describe("keyless limit", () => {
  it("refuses an address past its burst with Retry-After, refills with time, and never touches its probes", () => {
    const clock = fixedClock(0);
    const limit = createKeylessLimit({ perSecond: 2, burst: 3, clock });
    const other = () => outcome(() => limit("other", none, "10.0.0.1"));
    expect([other(), other(), other(), other()]).toEqual(["ok", "ok", "ok", "ResourceExhausted retry-after 1"]);
    // A probe a second, for a minute, while the same address keeps scraping past its bound: never refused.
    for (let second = 0; second < 60; second++) {
      expect(outcome(() => limit("probe", none, "10.0.0.1"))).toBe("ok");
      for (let i = 0; i < 10; i++) other();
      clock.advance(1000);
    }
    // Another address has its own buckets.
    expect(outcome(() => limit("other", none, "10.0.0.2"))).toBe("ok");
    // Half a second earns one back at 2 a second.
    for (let i = 0; i < 5; i++) other();
    clock.advance(500);
    expect(other()).toBe("ok");
  });

  it("counts an IPv6 client by its /64, and a trusted proxy's clients by X-Forwarded-For", () => {
    const limit = createKeylessLimit({
      perSecond: 1,
      burst: 1,
      clock: fixedClock(0),
      trustedProxies: trustedProxies(["10.0.0.9"]),
    });
    expect(outcome(() => limit("other", none, "2001:db8:1:2::1"))).toBe("ok");
    expect(outcome(() => limit("other", none, "2001:db8:1:2::ffff"))).toMatch(/^ResourceExhausted/);
    const via = (client: string) => ({ get: (name: string) => (name === "x-forwarded-for" ? client : null) });
    expect(outcome(() => limit("other", via("192.0.2.1"), "10.0.0.9"))).toBe("ok");
    expect(outcome(() => limit("other", via("192.0.2.2"), "10.0.0.9"))).toBe("ok");
    expect(outcome(() => limit("other", via("192.0.2.1"), "10.0.0.9"))).toMatch(/^ResourceExhausted/);
  });

  it("is off with perSecond 0", () => {
    const limit = createKeylessLimit({ perSecond: 0, clock: fixedClock(0) });
    expect(() => {
      for (let i = 0; i < 1000; i++) limit("other", none, "10.0.0.1");
    }).not.toThrow();
  });
});
