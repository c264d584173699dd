// The GET routes' memory of prepared calls by request target: bounded, the
// first remembered forgotten first.
import { describe, expect, it } from "vitest";
import type { PreparedCall } from "../../src/endpoints/index.js";
import { createPreparedCalls } from "../../src/transport/http/prepared-calls.js";

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
