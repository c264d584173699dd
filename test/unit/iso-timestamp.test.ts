// ISO 8601 bounds of logs.all: accepted forms, zones, microseconds, refusals,
// and a well-formed instant outside the range told apart from malformed text.
import { describe, expect, it } from "vitest";
import { readIsoTimestamp } from "../../src/warehouse/index.js";

const malformed = { problem: "must be an ISO 8601 date or date-time, e.g. 2026-11-20T21:59:00Z" };
const outOfRange = { problem: "must be between 1900-01-01 and 2299-12-31" };

describe("readIsoTimestamp", () => {
  it.each([
    ["2026-11-20", "2026-11-20 00:00:00.000000"],
    ["2026-11-20T21:59", "2026-11-20 21:59:00.000000"],
    ["2026-11-20T21:59:00", "2026-11-20 21:59:00.000000"],
    ["2026-11-20 21:59:00", "2026-11-20 21:59:00.000000"],
    ["2026-11-20T21:59:00Z", "2026-11-20 21:59:00.000000"],
    ["2026-11-20T21:59:00.5Z", "2026-11-20 21:59:00.500000"],
    ["2026-11-20T21:59:00.123456Z", "2026-11-20 21:59:00.123456"],
    ["2026-11-20T21:59:00.123456789Z", "2026-11-20 21:59:00.123456"],
    ["2026-11-20T21:59:00.123456+01:00", "2026-11-20 20:59:00.123456"],
    ["2026-11-20T00:30:00-0230", "2026-11-20 03:00:00.000000"],
    ["2026-11-20T23:30:00+05", "2026-11-20 18:30:00.000000"],
    ["2024-02-29T00:00:00Z", "2024-02-29 00:00:00.000000"],
    ["1900-01-01T00:00:00Z", "1900-01-01 00:00:00.000000"],
    ["2299-12-31T23:59:59Z", "2299-12-31 23:59:59.000000"],
  ])("reads %s as %s UTC", (text, instant) => {
    expect(readIsoTimestamp(text)).toEqual({ instant });
  });

  it.each([
    "",
    "yesterday",
    "2026-13-01",
    "2026-02-30",
    "2025-02-29",
    "2026-11-20T24:00:00Z",
    "2026-11-20T21:60",
    "20261120",
    "2026-11-20T21:59:00+25:00",
    "1e3",
    "12026-01-01",
    "0050-02-30",
  ])("refuses %j as not ISO 8601", (text) => {
    expect(readIsoTimestamp(text)).toEqual(malformed);
  });

  it.each([
    "0000-01-01",
    "0050-01-01T00:00:00Z",
    "0050-06-15T12:00:00Z",
    "0099-12-31T23:59:59Z",
    "1899-12-31T23:59:59Z",
    "2300-01-01",
    "9999-12-31T23:59:59Z",
    // Well-formed, and in range as written, but outside it in UTC.
    "1900-01-01T00:30:00+01:00",
    "2299-12-31T23:30:00-01:00",
  ])("refuses %j as out of range", (text) => {
    expect(readIsoTimestamp(text)).toEqual(outOfRange);
  });
});
