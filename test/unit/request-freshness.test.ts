// The caller's freshness read from Cache-Control and Pragma (RFC 9111
// §5.2.1, §5.4), and the only-if-cached error, as a table.
import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { freshnessFrom, isNotCachedError, notCachedError } from "../../src/endpoints/index.js";

describe("freshnessFrom", () => {
  it.each([
    [undefined, undefined, undefined],
    ["", undefined, undefined],
    ["no-cache", undefined, { noCache: true }],
    ["No-Cache", undefined, { noCache: true }],
    ["max-age=0", undefined, { maxAgeSeconds: 0 }],
    ["max-age=60", undefined, { maxAgeSeconds: 60 }],
    ['max-age="60"', undefined, { maxAgeSeconds: 60 }],
    ["max-age=60, max-age=30", undefined, { maxAgeSeconds: 30 }],
    ["max-age=99999999999", undefined, { maxAgeSeconds: 2_147_483_648 }],
    ["max-age=-1", undefined, undefined],
    ["max-age=1.5", undefined, undefined],
    ["max-age", undefined, undefined],
    ["only-if-cached", undefined, { onlyIfCached: true }],
    ["only-if-cached, max-age=300", undefined, { onlyIfCached: true, maxAgeSeconds: 300 }],
    [" no-cache ,only-if-cached ", undefined, { noCache: true, onlyIfCached: true }],
    ['foo="a, no-cache", max-age=5', undefined, { maxAgeSeconds: 5 }],
    ["no-store", undefined, undefined],
    ["no-store, no-cache", undefined, { noCache: true }],
    ["max-stale=100, min-fresh=10, no-transform", undefined, undefined],
    [",,max-age=7,,", undefined, { maxAgeSeconds: 7 }],
    [undefined, "no-cache", { noCache: true }],
    [undefined, "NO-CACHE", { noCache: true }],
    [undefined, "x-foo, no-cache", { noCache: true }],
    [undefined, "x-foo", undefined],
    ["", "no-cache", { noCache: true }],
    ["max-age=60", "no-cache", { maxAgeSeconds: 60 }],
    ["no-store", "no-cache", undefined],
  ])("Cache-Control %j with Pragma %j asks %j", (cacheControl, pragma, expected) => {
    expect(freshnessFrom(cacheControl, pragma)).toEqual(expected);
  });
});

describe("notCachedError", () => {
  it("is UNAVAILABLE saying the result is not cached, told apart from an outage", () => {
    const error = notCachedError();
    expect([error.code, error.rawMessage]).toEqual([Code.Unavailable, "result not cached (only-if-cached)"]);
    expect(isNotCachedError(error)).toBe(true);
    expect(isNotCachedError(new ConnectError("warehouse unavailable", Code.Unavailable))).toBe(false);
  });
});
