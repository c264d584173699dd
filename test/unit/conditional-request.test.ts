// If-Modified-Since read as RFC 9110 says: only the three HTTP-date forms,
// and a date later than now ignored; If-None-Match compared weakly.
import { describe, expect, it } from "vitest";
import { notModified } from "../../src/transport/call/index.js";

const now = Date.UTC(2026, 10, 26, 19, 30, 0);
const etag = 'W/"abc-json"';

describe("If-Modified-Since", () => {
  const computedAt = Date.UTC(2026, 10, 26, 19, 0, 0, 400);
  it.each([
    ["an IMF-fixdate at the computation", "Thu, 26 Nov 2026 19:00:00 GMT", true],
    ["an IMF-fixdate after it", "Thu, 26 Nov 2026 19:15:00 GMT", true],
    ["an IMF-fixdate equal to now", "Thu, 26 Nov 2026 19:30:00 GMT", true],
    ["an IMF-fixdate a second before it", "Thu, 26 Nov 2026 18:59:59 GMT", false],
    ["an RFC 850 date after it", "Thursday, 26-Nov-26 19:15:00 GMT", true],
    ["an RFC 850 date a century back", "Thursday, 26-Nov-76 19:15:00 GMT", false],
    ["an asctime date after it", "Thu Nov 26 19:15:00 2026", true],
    ["an asctime date with a one-digit day", "Wed Dec  2 19:15:00 2026", false],
    ["a date later than now", "Thu, 26 Nov 2026 19:30:01 GMT", false],
    ["a date years ahead", "Fri, 01 Jan 2100 00:00:00 GMT", false],
    ["an ISO 8601 timestamp", "2026-11-26T19:15:00Z", false],
    ["a date in another zone", "Thu, 26 Nov 2026 19:15:00 +0000", false],
    ["a date without its day name", "26 Nov 2026 19:15:00 GMT", false],
    ["a day the month lacks", "Mon, 31 Nov 2026 19:15:00 GMT", false],
    ["an hour out of range", "Thu, 26 Nov 2026 24:15:00 GMT", false],
    ["a number", "1795633200000", false],
    ["an empty value", "", false],
  ])("with %s (%s) answers 304: %s", (_, value, expected) => {
    expect(notModified({ "if-modified-since": value }, etag, computedAt, now)).toBe(expected);
  });

  it("reads the asctime date with a one-digit day as that day", () => {
    const early = Date.UTC(2026, 10, 2, 19, 0, 0);
    expect(notModified({ "if-modified-since": "Mon Nov  2 19:15:00 2026" }, etag, early, now)).toBe(true);
    expect(notModified({ "if-modified-since": "Mon Nov  2 18:15:00 2026" }, etag, early, now)).toBe(false);
  });

  it("is ignored beside If-None-Match", () => {
    expect(
      notModified(
        { "if-none-match": '"other-json"', "if-modified-since": "Thu, 26 Nov 2026 19:15:00 GMT" },
        etag,
        computedAt,
        now,
      ),
    ).toBe(false);
  });
});

describe("If-None-Match", () => {
  it.each([
    ['W/"abc-json"', true],
    ['"abc-json"', true],
    ['"x", W/"abc-json"', true],
    ["*", true],
    ['"abc-csv"', false],
    ['"abc"', false],
  ])("%s answers 304: %s", (value, expected) => {
    expect(notModified({ "if-none-match": value }, etag, 0, now)).toBe(expected);
  });
});
