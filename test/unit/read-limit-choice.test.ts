// Which read limit a call runs under: the smallest of the saved query's, the
// credential's and the defaults, named by its source; 0 or absent is none.
import { describe, expect, it } from "vitest";
import { chooseReadLimits, setByCredential } from "../../src/endpoints/read-limit-choice.js";
import type { ReadLimitValues } from "../../src/executor/index.js";

const rows = (maxRowsToRead: number): ReadLimitValues => ({ maxRowsToRead });

describe("chooseReadLimits", () => {
  it.each([
    ["no source", {}, undefined],
    ["only zeros", { savedQuery: rows(0), credential: rows(0), defaults: rows(0) }, undefined],
    ["the saved query alone", { savedQuery: rows(500) }, { value: 500, source: "saved query" }],
    ["the credential alone", { credential: rows(700) }, { value: 700, source: "credential" }],
    ["the default alone", { defaults: rows(900) }, { value: 900, source: "default" }],
    [
      "the credential below the others",
      { savedQuery: rows(500), credential: rows(100), defaults: rows(900) },
      { value: 100, source: "credential" },
    ],
    [
      "the default below the others",
      { savedQuery: rows(500), credential: rows(700), defaults: rows(50) },
      { value: 50, source: "default" },
    ],
    [
      "the saved query below the others, the credential's 0 ignored",
      { savedQuery: rows(10), credential: rows(0), defaults: rows(900) },
      { value: 10, source: "saved query" },
    ],
    [
      "a tie of saved query and credential, named the saved query",
      { savedQuery: rows(100), credential: rows(100) },
      { value: 100, source: "saved query" },
    ],
    [
      "a tie of credential and default, named the credential",
      { credential: rows(100), defaults: rows(100) },
      { value: 100, source: "credential" },
    ],
  ])("with %s: the row limit is %j", (_label, sources, expected) => {
    expect(chooseReadLimits(sources)?.max_rows_to_read).toEqual(expected);
  });

  it("chooses rows and bytes each on its own", () => {
    expect(
      chooseReadLimits({
        savedQuery: { maxRowsToRead: 1000, maxBytesToRead: 0 },
        credential: { maxBytesToRead: 4096 },
        defaults: { maxRowsToRead: 5000, maxBytesToRead: 8192 },
      }),
    ).toEqual({
      max_rows_to_read: { value: 1000, source: "saved query" },
      max_bytes_to_read: { value: 4096, source: "credential" },
    });
  });

  it("tells when the credential's limit is among those chosen", () => {
    expect(setByCredential(chooseReadLimits({ credential: rows(5), defaults: rows(9) }))).toBe(true);
    expect(setByCredential(chooseReadLimits({ credential: rows(9), defaults: rows(5) }))).toBe(false);
    expect(setByCredential(undefined)).toBe(false);
  });
});
