// The readiness poller health Watch shares: one question per interval for all
// listeners, and none while nobody listens.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createReadinessPoller } from "../../src/transport/index.js";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("readiness poller", () => {
  it("asks once per interval however many listen, and hands every answer to each", async () => {
    const answers = [false, true, true];
    let asked = 0;
    const poller = createReadinessPoller({ ready: async () => answers[asked++]!, intervalMs: 100 });
    const heard: boolean[][] = [[], [], []];
    const stops = heard.map((list) => poller.subscribe((ready) => list.push(ready)));
    await vi.advanceTimersByTimeAsync(300);
    expect(asked).toBe(3);
    expect(heard).toEqual([answers, answers, answers]);
    for (const stop of stops) stop();
  });

  it("stops asking when the last listener leaves and starts again with the next", async () => {
    let asked = 0;
    const poller = createReadinessPoller({
      ready: async () => {
        asked++;
        return true;
      },
      intervalMs: 100,
    });
    const first = poller.subscribe(() => {});
    const second = poller.subscribe(() => {});
    await vi.advanceTimersByTimeAsync(100);
    first();
    await vi.advanceTimersByTimeAsync(100);
    second();
    await vi.advanceTimersByTimeAsync(1000);
    expect([asked, poller.listeners]).toEqual([2, 0]);
    const third = poller.subscribe(() => {});
    await vi.advanceTimersByTimeAsync(100);
    expect(asked).toBe(3);
    third();
  });

  it("counts a rejected readiness check as not ready and does not ask again before it settles", async () => {
    let asked = 0;
    let settle: (() => void) | undefined;
    const poller = createReadinessPoller({
      ready: () => {
        asked++;
        return new Promise<boolean>((_, reject) => (settle = () => reject(new Error("down"))));
      },
      intervalMs: 100,
    });
    const heard: boolean[] = [];
    const stop = poller.subscribe((ready) => heard.push(ready));
    await vi.advanceTimersByTimeAsync(500);
    expect([asked, heard]).toEqual([1, []]);
    settle!();
    await vi.advanceTimersByTimeAsync(0);
    expect(heard).toEqual([false]);
    stop();
  });
});
