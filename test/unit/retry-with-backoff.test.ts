// Retrying a warehouse step: the waits double up to the bound, each failure
// is told with its wait, and stop() ends the tries. Fake timers.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { retryWithBackoff } from "../../src/warehouse/retry-with-backoff.js";

/** A step failing its first `failures` tries, recording when each try ran. */
function flaky(failures: number) {
  const tries: number[] = [];
  const step = vi.fn(async () => {
    tries.push(Date.now());
    if (tries.length <= failures) throw new Error(`try ${tries.length}`);
  });
  return { step, tries };
}

describe("retryWithBackoff", () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it("tries once, at once, when the step succeeds", async () => {
    const { step } = flaky(0);
    const failed = vi.fn();
    retryWithBackoff(step, failed);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(step).toHaveBeenCalledTimes(1);
    expect(failed).not.toHaveBeenCalled();
  });

  it.each([
    // options, failures, the waits told, the times of the tries
    [{ retryMs: 100, maxRetryMs: 500 }, 4, [100, 200, 400, 500], [0, 100, 300, 700, 1200]],
    [{}, 5, [1000, 2000, 4000, 5000, 5000], [0, 1000, 3000, 7000, 12000, 17000]],
    [{ retryMs: 3000, maxRetryMs: 1000 }, 2, [1000, 1000], [0, 1000, 2000]],
  ])("with %o and %i failures, waits %o", async (options, failures, waits, times) => {
    const { step, tries } = flaky(failures);
    const told: number[] = [];
    retryWithBackoff(step, (_error, retryInMs) => told.push(retryInMs), options);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(told).toEqual(waits);
    expect(tries).toEqual(times);
  });

  it("tells each failure with its error", async () => {
    const { step } = flaky(2);
    const errors: string[] = [];
    retryWithBackoff(step, (error) => errors.push((error as Error).message), { retryMs: 10 });
    await vi.advanceTimersByTimeAsync(1000);
    expect(errors).toEqual(["try 1", "try 2"]);
  });

  it("tries no more after stop() during a wait", async () => {
    const { step } = flaky(10);
    const retrying = retryWithBackoff(step, () => {}, { retryMs: 100 });
    await vi.advanceTimersByTimeAsync(150); // tries at 0 and 100
    retrying.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(step).toHaveBeenCalledTimes(2);
  });

  it("lets a try under way finish after stop(), then tries no more", async () => {
    let fail!: (error: Error) => void;
    const step = vi.fn(() => new Promise<void>((_resolve, reject) => (fail = reject)));
    const failed = vi.fn();
    const retrying = retryWithBackoff(step, failed, { retryMs: 100 });
    retrying.stop();
    fail(new Error("late"));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(failed).toHaveBeenCalledTimes(1);
    expect(step).toHaveBeenCalledTimes(1);
  });
});
