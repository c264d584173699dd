// Readiness shared between callers: one question at a time, its answer reused for a while.
import { describe, expect, it } from "vitest";
import { sharedReadiness } from "../../src/app/shared-readiness.js";

describe("sharedReadiness", () => {
  it("asks once for many concurrent callers, reuses the answer, and asks again once it is old", async () => {
    let asked = 0;
    let answer = true;
    const ready = sharedReadiness(async () => {
      asked += 1;
      await new Promise((r) => setTimeout(r, 10));
      return answer;
    }, 50);
    expect(await Promise.all(Array.from({ length: 100 }, () => ready()))).toEqual(Array(100).fill(true));
    expect(asked).toBe(1);
    answer = false;
    expect(await ready()).toBe(true); // reused within 50 ms
    expect(asked).toBe(1);
    await new Promise((r) => setTimeout(r, 60));
    expect(await ready()).toBe(false);
    expect(asked).toBe(2);
  });

  it("counts a failed question as not ready", async () => {
    const ready = sharedReadiness(() => Promise.reject(new Error("down")), 0);
    expect(await ready()).toBe(false);
  });
});
