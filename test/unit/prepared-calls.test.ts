// The memory of prepared calls by request (a GET target, an RPC procedure and message): bounded, the
// first remembered forgotten first.
import { describe, expect, it } from "vitest";
import type { PreparedCall } from "../../src/endpoints/index.js";
import { createPreparedCalls } from "../../src/transport/call/prepared-calls.js";

const call = (n: number) => ({ queryParams: { n } }) as unknown as PreparedCall;

describe("createPreparedCalls", () => {
  it("finds what it remembered, and nothing else", () => {
    const calls = createPreparedCalls();
    const a = call(1);
    calls.remember("/api/endpoints/x?a=1", a);
    expect(calls.find("/api/endpoints/x?a=1")).toBe(a);
    expect(calls.find("/api/endpoints/x?a=2")).toBeUndefined();
  });

  it("holds at most maxEntries, forgetting the first remembered first", () => {
    const calls = createPreparedCalls(3);
    for (let i = 1; i <= 4; i++) calls.remember(`/t${i}`, call(i));
    expect(["/t1", "/t2", "/t3", "/t4"].map((t) => calls.find(t) !== undefined)).toEqual([false, true, true, true]);
    // Remembering a held target again forgets nothing.
    calls.remember("/t2", call(2));
    expect(["/t2", "/t3", "/t4"].map((t) => calls.find(t) !== undefined)).toEqual([true, true, true]);
  });
});

describe("createPreparedCalls bounded by characters", () => {
  it("forgets the first remembered while the keys hold more than maxChars, and never keeps a longer key", () => {
    const calls = createPreparedCalls(100, 10);
    calls.remember("aaaa", call(1));
    calls.remember("bbbb", call(2));
    calls.remember("cccc", call(3)); // 12 characters: "aaaa" goes
    expect(["aaaa", "bbbb", "cccc"].map((k) => calls.find(k) !== undefined)).toEqual([false, true, true]);
    calls.remember("x".repeat(11), call(4));
    expect(calls.find("x".repeat(11))).toBeUndefined();
    expect(["bbbb", "cccc"].map((k) => calls.find(k) !== undefined)).toEqual([true, true]);
  });
});

describe("createPreparedCalls with groups", () => {
  it("keeps the same key apart in each group, and bounds all groups together", () => {
    const calls = createPreparedCalls(3);
    calls.remember("{}", call(1), "/a j");
    calls.remember("{}", call(2), "/b j");
    calls.remember("{}", call(3));
    expect([calls.find("{}", "/a j"), calls.find("{}", "/b j"), calls.find("{}")]).toEqual([call(1), call(2), call(3)]);
    expect(calls.find("{}", "/c j")).toBeUndefined();
    calls.remember("x", call(4), "/b j"); // the fourth: "{}" of "/a j", remembered first, goes
    expect([calls.find("{}", "/a j"), calls.find("{}", "/b j"), calls.find("x", "/b j")]).toEqual([
      undefined,
      call(2),
      call(4),
    ]);
    calls.remember("x", call(5), "/b j"); // held: replaced, nothing forgotten
    expect([calls.find("x", "/b j"), calls.find("{}", "/b j"), calls.find("{}")]).toEqual([call(5), call(2), call(3)]);
  });
});
