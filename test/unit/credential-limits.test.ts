// Limits a credential carries, checked when the key file or the token is
// read: rates a bucket can refill at, bursts, and whole-number read limits.
import { describe, expect, it } from "vitest";
import { createTokenVerifier, issueToken, keyDigest, parseKeyFile } from "../../src/auth/index.js";
import { createTokenBuckets } from "../../src/auth/token-buckets.js";
import { fixedClock } from "../../src/observability/index.js";

const known = { knownEndpoints: new Set(["logs.all"]), knownParameters: new Set(["project"]) };
const digest = keyDigest("studio-key-0123456789");
const secret = "a-secret-of-at-least-32-characters!";
const now = Date.UTC(2026, 10, 20, 12, 0, 0);

/** A key file of one entry with `fields`, as JSON text (1e400 parses as Infinity, as a file could say). */
const keyFile = (fields: string) => `{"keys": [{"id": "a", "sha256": "${digest}"${fields}}]}`;

describe("a key file's limits", () => {
  it("reads max_rows_to_read and max_bytes_to_read", () => {
    const keys = parseKeyFile(keyFile(', "max_rows_to_read": 1000, "max_bytes_to_read": 1048576'), known);
    expect(keys.get(digest)?.readLimits).toEqual({ maxRowsToRead: 1000, maxBytesToRead: 1048576 });
  });

  it.each([
    [', "rate_limit_per_second": 1e-300', "keys[0].rate_limit_per_second must be at least"],
    [', "rate_limit_per_second": 1e400', "keys[0].rate_limit_per_second must be a number"],
    [
      ', "rate_limit_per_second": 5, "rate_limit_burst": 1e400',
      "keys[0].rate_limit_burst must be a number of at least 1",
    ],
    [
      ', "rate_limit_per_second": 5, "rate_limit_burst": 0.5',
      "keys[0].rate_limit_burst must be a number of at least 1",
    ],
    [', "rate_limit_per_second": 1e308', "keys[0].rate_limit_per_second must be at most 1000000"],
    [', "rate_limit_per_second": 5, "rate_limit_burst": 1e308', "keys[0].rate_limit_burst must be at most 2000000"],
    [', "rate_limit_burst": 10', "keys[0].rate_limit_burst needs rate_limit_per_second"],
    [', "max_rows_to_read": 10.5', "keys[0].max_rows_to_read must be a whole number of at least 1"],
    [', "max_rows_to_read": -1', "keys[0].max_rows_to_read must be a whole number of at least 1"],
    [', "max_bytes_to_read": 0', "keys[0].max_bytes_to_read must be a whole number of at least 1"],
    [', "max_bytes_to_read": "1000"', "keys[0].max_bytes_to_read must be a whole number of at least 1"],
    [', "max_bytes_to_read": 1e400', "keys[0].max_bytes_to_read must be a whole number of at least 1"],
  ])("refuses an entry with %s", (fields, problem) => {
    expect(() => parseKeyFile(keyFile(fields), known)).toThrow(problem);
  });

  it("still takes a rate of 0 (no limit for the key) and a rate of one call a day", () => {
    expect(parseKeyFile(keyFile(', "rate_limit_per_second": 0'), known).get(digest)?.rateLimit?.perSecond).toBe(0);
    const daily = 1 / 86_400;
    expect(parseKeyFile(keyFile(`, "rate_limit_per_second": ${daily}`), known).get(digest)?.rateLimit?.perSecond).toBe(
      daily,
    );
  });
});

describe("a token's limits", () => {
  const verify = () => createTokenVerifier({ secret, ...known, clock: fixedClock(now) });
  const verified = async (claims: Parameters<typeof issueToken>[0]) => {
    const token = await issueToken(claims, { secret, ttlSeconds: 60, now });
    try {
      return await verify()(token);
    } catch (error) {
      return (error as Error).message;
    }
  };

  it("reads the claims max_rows_to_read and max_bytes_to_read", async () => {
    expect(await verified({ sub: "t", max_rows_to_read: 1000, max_bytes_to_read: 2048 })).toEqual({
      id: "token:t",
      readLimits: { maxRowsToRead: 1000, maxBytesToRead: 2048 },
    });
  });

  it.each([
    [{ rps: 1e-300 }, "claim rps must be at least"],
    [{ rps: 1e308 }, "claim rps must be at most 1000000"],
    [{ max_rows_to_read: 0.5 }, "claim max_rows_to_read must be a whole number of at least 1"],
    [{ max_bytes_to_read: -5 }, "claim max_bytes_to_read must be a whole number of at least 1"],
    [{ max_bytes_to_read: 2 ** 60 }, "claim max_bytes_to_read must be a whole number of at least 1"],
  ])("refuses a token claiming %j", async (claims, problem) => {
    expect(await verified({ sub: "t", ...claims })).toContain(problem);
  });
});

describe("token buckets' waits", () => {
  it("tell whole seconds, at most a day, however slow the rate", () => {
    const buckets = createTokenBuckets({ perSecond: 1e-12, burst: 1, clock: fixedClock(now) });
    expect(buckets.take("k")).toBe(0);
    const wait = buckets.take("k");
    expect(wait).toBe(86_400);
    expect(String(wait)).toMatch(/^\d+$/);
  });
});
