// Authentication from headers: the per-key rate limit applies only after a
// key is accepted (its refusal naming the caller), failed authentications are counted per client address and
// refused past their bound, and failures are summed up in at most one log
// line a second, never naming a key.
import { Code, ConnectError } from "@connectrpc/connect";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type Credential,
  createAuthenticator,
  createTokenVerifier,
  issueToken,
  rateLimitedCallerOf,
} from "../../src/auth/index.js";
import { createLogger, fixedClock } from "../../src/observability/index.js";

const goodKey = "good-key-0123456789";
const otherKey = "other-key-0123456789";
const headers = (key: string) => ({ get: (name: string) => (name === "x-api-key" ? key : null) });

function outcome(run: () => unknown): string {
  try {
    run();
    return "ok";
  } catch (error) {
    return Code[ConnectError.from(error).code];
  }
}

describe("authenticator", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("applies the rate limit to accepted keys only, one bucket per key", () => {
    const { authenticate } = createAuthenticator({
      apiKeys: [goodKey, otherKey],
      rateLimit: { perSecond: 1, burst: 2 },
      authFailures: { perSecond: 0, burst: 0 },
      clock: fixedClock(0),
    });
    const good = () => authenticate(headers(goodKey), "10.0.0.1");
    expect([outcome(good), outcome(good), outcome(good)]).toEqual(["ok", "ok", "ResourceExhausted"]);
    // Wrong keys spend nothing of any bucket; the other key has its own.
    for (let i = 0; i < 5; i++)
      expect(outcome(() => authenticate(headers("wrong-key-0123456789"), "10.0.0.1"))).toBe("Unauthenticated");
    expect(outcome(() => authenticate(headers(otherKey), "10.0.0.1"))).toBe("ok");
  });

  it("names the caller its rate limit refused, with Retry-After, and no caller for a wrong key", () => {
    const { authenticate } = createAuthenticator({
      apiKeys: [goodKey],
      rateLimit: { perSecond: 1, burst: 1 },
      authFailures: { perSecond: 0, burst: 0 },
      clock: fixedClock(0),
    });
    const refusalOf = (key: string) => {
      try {
        void authenticate(headers(key), "10.0.0.1");
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const admitted = authenticate(headers(goodKey), "10.0.0.1") as Credential;
    const refused = refusalOf(goodKey);
    expect(rateLimitedCallerOf(refused)).toBe(admitted);
    expect(ConnectError.from(refused).code).toBe(Code.ResourceExhausted);
    expect(ConnectError.from(refused).metadata.get("retry-after")).toBe("1");
    expect(rateLimitedCallerOf(refusalOf("wrong-key-0123456789"))).toBeUndefined();
  });

  it("refuses an address past its failures, even with a right key, until it earns a try back", () => {
    const clock = fixedClock(0);
    const { authenticate } = createAuthenticator({
      apiKeys: [goodKey],
      rateLimit: { perSecond: 0, burst: 0 },
      authFailures: { perSecond: 0.5, burst: 3 },
      clock,
    });
    const guess = (address: string) => outcome(() => authenticate(headers("guess-0123456789ab"), address));
    expect([guess("a"), guess("a"), guess("a")]).toEqual(["Unauthenticated", "Unauthenticated", "Unauthenticated"]);
    let refused: ConnectError | undefined;
    try {
      void authenticate(headers(goodKey), "a"); // a key is checked at once: a refusal throws here
    } catch (error) {
      refused = error as ConnectError;
    }
    expect(refused?.code).toBe(Code.ResourceExhausted);
    // One failure earns back at 0.5 a second: 2 s.
    expect(refused?.metadata.get("retry-after")).toBe("2");
    // Another address is not affected.
    expect(outcome(() => authenticate(headers(goodKey), "b"))).toBe("ok");
    clock.advance(1999);
    expect(outcome(() => authenticate(headers(goodKey), "a"))).toBe("ResourceExhausted");
    clock.advance(1);
    expect(outcome(() => authenticate(headers(goodKey), "a"))).toBe("ok");
  });

  it.each([
    ["no header at all", {}],
    ["an empty X-API-KEY", { "x-api-key": "" }],
    ["an Authorization that is not Bearer", { authorization: "Basic dXNlcjpwYXNz" }],
  ])("never counts a call with %s as a failed authentication", (_, sent: Record<string, string>) => {
    const { authenticate } = createAuthenticator({
      apiKeys: [goodKey],
      rateLimit: { perSecond: 0, burst: 0 },
      authFailures: { perSecond: 0.5, burst: 3 },
      clock: fixedClock(0),
    });
    const bare = { get: (name: string) => sent[name] ?? null };
    // Thirty times the burst: each is refused as unauthenticated, none is counted.
    for (let i = 0; i < 90; i++) expect(outcome(() => authenticate(bare, "a"))).toBe("Unauthenticated");
    expect(outcome(() => authenticate(headers(goodKey), "a"))).toBe("ok");
    // A wrong key still counts: three of them use the burst up.
    for (let i = 0; i < 3; i++) outcome(() => authenticate(headers("guess-0123456789ab"), "a"));
    expect(outcome(() => authenticate(headers(goodKey), "a"))).toBe("ResourceExhausted");
  });

  it("sums failures up in one log line a second at most, without any key", () => {
    const lines: string[] = [];
    const { authenticate, close } = createAuthenticator({
      apiKeys: [goodKey],
      authFailures: { perSecond: 1, burst: 5 },
      clock: fixedClock(0),
      logger: createLogger({ write: (line) => lines.push(line) }),
    });
    for (let i = 0; i < 200; i++)
      outcome(() => authenticate(headers(`guess-${i}-0123456789`), i < 150 ? "1.2.3.4" : "5.6.7.8"));
    expect(lines).toHaveLength(0);
    vi.advanceTimersByTime(1000);
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0]!) as Record<string, unknown>;
    // 1.2.3.4: 5 failures, then 145 refused; 5.6.7.8: 5 failures, then 45 refused.
    expect(record).toMatchObject({
      level: "warn",
      msg: "failed authentications",
      failures: 10,
      refused: 190,
      addresses: 2,
      busiest: [
        { address: "1.2.3.4", failures: 5, refused: 145 },
        { address: "5.6.7.8", failures: 5, refused: 45 },
      ],
    });
    expect(lines[0]).not.toContain("guess-");
    vi.advanceTimersByTime(5000);
    expect(lines).toHaveLength(1); // nothing new, nothing written
    close();
  });
});

describe("tokens checked at once", () => {
  it("counts each new token's check against the address as it starts, so a burst of bogus tokens gets 429 past the bound", async () => {
    const secret = "authenticate-test-secret-0123456789";
    const verifyToken = createTokenVerifier({
      secret,
      knownEndpoints: new Set(),
      knownParameters: new Set(),
      clock: fixedClock(Date.UTC(2026, 10, 20)),
    });
    const { authenticate } = createAuthenticator({
      apiKeys: [],
      verifyToken,
      authFailures: { perSecond: 0.001, burst: 20 },
      clock: fixedClock(0),
    });
    const bogus = (i: number) => `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIke2l9In0.bogus-signature-${i}`;
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        try {
          await authenticate(headers(bogus(i)), "10.0.0.9");
          return "ok";
        } catch (error) {
          return Code[ConnectError.from(error).code];
        }
      }),
    );
    // Worked out: the first 20 checks take the 20 places and fail; the other 10 are refused before any check.
    expect(outcomes.filter((o) => o === "Unauthenticated")).toHaveLength(20);
    expect(outcomes.filter((o) => o === "ResourceExhausted")).toHaveLength(10);
  });

  it("gives the place back when the token is good", async () => {
    const secret = "authenticate-test-secret-0123456789";
    const now = Date.UTC(2026, 10, 20);
    const verifyToken = createTokenVerifier({
      secret,
      knownEndpoints: new Set(),
      knownParameters: new Set(),
      clock: fixedClock(now),
    });
    const { authenticate } = createAuthenticator({
      apiKeys: [],
      verifyToken,
      authFailures: { perSecond: 0.001, burst: 2 },
      clock: fixedClock(0),
    });
    for (let i = 0; i < 5; i++) {
      const token = await issueToken({ sub: `t${i}` }, { secret, ttlSeconds: 60, now });
      expect((await authenticate(headers(token), "10.0.0.8")).id).toBe(`token:t${i}`);
    }
  });
});
