// A call's wait signal: aborted at the deadline with the deadline's reason,
// or by the caller with the caller's, and quiet once disposed. Fake timers.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { deadlineSignal } from "../../src/executor/deadline-signal.js";

const deadline = new Error("deadline");
const reason = () => deadline;

describe("deadlineSignal", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("aborts at the deadline, not a millisecond before, with the deadline's reason", () => {
    const { signal } = deadlineSignal(100, undefined, reason);
    vi.advanceTimersByTime(99);
    expect(signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(deadline);
  });

  it("asks for the deadline's reason only when the deadline passes", () => {
    const made = vi.fn(reason);
    deadlineSignal(100, undefined, made);
    expect(made).not.toHaveBeenCalled();
    vi.advanceTimersByTime(100);
    expect(made).toHaveBeenCalledTimes(1);
  });

  it("treats a deadline already past as one due now", () => {
    const { signal } = deadlineSignal(-50, undefined, reason);
    expect(signal.aborted).toBe(false); // a timer, not a synchronous abort
    vi.advanceTimersByTime(0);
    expect(signal.reason).toBe(deadline);
  });

  it("aborts with the caller's reason when the caller aborts first", () => {
    const caller = new AbortController();
    const { signal } = deadlineSignal(100, caller.signal, reason);
    const gone = new Error("caller gone");
    caller.abort(gone);
    expect(signal.reason).toBe(gone);
    vi.advanceTimersByTime(100);
    expect(signal.reason).toBe(gone);
  });

  it("is aborted at once for a caller already gone", () => {
    const gone = new Error("caller gone");
    const { signal } = deadlineSignal(100, AbortSignal.abort(gone), reason);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(gone);
  });

  it("stays quiet after dispose, whatever the deadline or the caller does", () => {
    const caller = new AbortController();
    const { signal, dispose } = deadlineSignal(100, caller.signal, reason);
    dispose();
    vi.advanceTimersByTime(1000);
    caller.abort(new Error("late"));
    expect(signal.aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});
