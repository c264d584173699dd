// collections/bounded-memo.ts: answers read once per value, undefined ones too,
// and only for the first `max` distinct values.
import { describe, expect, it } from "vitest";
import { createBoundedMemo } from "../../src/collections/index.js";

describe("createBoundedMemo", () => {
  it("reads each value once, remembering an undefined answer as any other", () => {
    const reads: string[] = [];
    const read = createBoundedMemo((value: string) => {
      reads.push(value);
      return value === "none" ? undefined : value.length;
    }, 4);
    expect([read("abc"), read("none"), read("abc"), read("none")]).toEqual([3, undefined, 3, undefined]);
    expect(reads).toEqual(["abc", "none"]);
  });

  it("past `max` distinct values, reads each new one every time and keeps the first ones", () => {
    const reads: string[] = [];
    const read = createBoundedMemo((value: string) => reads.push(value), 2);
    for (const value of ["a", "b", "c", "c", "a", "b"]) read(value);
    expect(reads).toEqual(["a", "b", "c", "c"]);
  });
});
