// Time for tests of parts that read Date.now() (the result cache: node-cache
// counts lifetimes in it) and wait with timers: vitest's fake timers, with a
// clock set and moved like fixedClock. Call vi.useRealTimers() after each test.
import { vi } from "vitest";
import type { Clock } from "../../src/observability/index.js";

type Faked = "Date" | "performance" | "setTimeout" | "clearTimeout" | "setInterval" | "clearInterval";

/** Fakes `faked` (Date alone by default) and answers a clock on the faked Date.now(), standing at `at`. */
export function fakeClock(
  at: number,
  faked: Faked[] = ["Date"],
): Clock & { set(to: number): void; advance(ms: number): void } {
  vi.useFakeTimers({ now: at, toFake: faked });
  const clock = () => Date.now();
  clock.set = (to: number) => vi.setSystemTime(to);
  clock.advance = (ms: number) => vi.setSystemTime(Date.now() + ms);
  return clock;
}

/** `promise`'s outcome, moving the fake timers on a millisecond at a time until it settles. */
export async function settled<T>(promise: Promise<T>): Promise<T> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  while (!done) await vi.advanceTimersByTimeAsync(1);
  return promise;
}
