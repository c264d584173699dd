// The result cache with a caller's freshness and through an outage, against
// fake timers: forced runs joining one computation, max-age, stale entries
// answering warehouse failures within the window (never past it, never a
// caller's error), evicted first, and warming retrying with backoff.
import { Code, ConnectError } from "@connectrpc/connect";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createResultCache, type CacheEvent, type CachePolicy, type Compute } from "../../src/cache/index.js";
import { overloadError } from "../../src/errors/index.js";
import { fakeClock } from "../support/fake-time.js";

const SECOND = 1000;
const policy: CachePolicy = { ttlMs: 900 * SECOND, warmMs: 300 * SECOND };
const unavailable = () => new ConnectError("warehouse unavailable", Code.Unavailable);

afterEach(() => vi.useRealTimers());

function setup(options: Parameters<typeof createResultCache>[0] = {}) {
  const clock = fakeClock(0, ["Date", "performance", "setTimeout", "clearTimeout"]);
  const events: CacheEvent[] = [];
  const cache = createResultCache<string>({
    sweepIntervalMs: 0,
    jitter: 0,
    entryOverheadBytes: 0,
    staleIfErrorMs: 3600 * SECOND,
    onEvent: (event) => events.push(event),
    ...options,
  });
  let version = 0;
  /** What the next computations throw; none while undefined. */
  let failure: (() => unknown) | undefined;
  const calls: number[] = [];
  const compute: Compute<string> = async () => {
    calls.push(clock());
    if (failure !== undefined) throw failure();
    version += 1;
    return { value: `v${version}`, bytes: 10 };
  };
  const fail = (with_: (() => unknown) | undefined) => (failure = with_);
  return { clock, cache, compute, calls, events, fail };
}

describe("result cache freshness", () => {
  it("runs a forced call now, stores its result and counts it a miss", async () => {
    const { clock, cache, compute, events } = setup();
    await cache.get("k", policy, compute);
    clock.set(10 * SECOND);
    const forced = await cache.get("k", policy, compute, { freshness: { force: true } });
    expect(forced).toEqual({ value: "v2", status: "MISS", computedAt: 10 * SECOND, forced: true });
    expect(await cache.get("k", policy, compute)).toMatchObject({ value: "v2", status: "HIT" });
    expect(events.filter((e) => e === "miss")).toHaveLength(2);
  });

  it("joins forced calls to the key's computation already running", async () => {
    const { cache } = setup();
    let runs = 0;
    const slow: Compute<string> = async () => {
      runs += 1;
      await new Promise((r) => setTimeout(r, 100));
      return { value: `run-${runs}`, bytes: 1 };
    };
    const plain = cache.get("k", policy, slow);
    const forced = Array.from({ length: 5 }, () => cache.get("k", policy, slow, { freshness: { force: true } }));
    await vi.advanceTimersByTimeAsync(100);
    const values = (await Promise.all([plain, ...forced])).map((lookup) => lookup.value);
    expect([runs, new Set(values).size]).toEqual([1, 1]);
  });

  it.each([
    [59_999, 60_000, "HIT"],
    [60_000, 60_000, "HIT"],
    [60_001, 60_000, "MISS"],
    [0, 0, "HIT"],
  ])("at age %d ms, a caller accepting %d ms gets a %s", async (age, maxAgeMs, status) => {
    const { clock, cache, compute } = setup();
    await cache.get("k", policy, compute);
    clock.set(age);
    expect((await cache.get("k", policy, compute, { freshness: { maxAgeMs } })).status).toBe(status);
  });

  it("peeks only at a live entry young enough", async () => {
    const { clock, cache, compute } = setup();
    await cache.get("k", policy, compute);
    clock.set(61 * SECOND);
    expect(cache.peek("k", policy, 60 * SECOND)).toBeUndefined();
    expect(cache.peek("k", policy)?.status).toBe("HIT");
  });
});

describe("result cache stale-if-error", () => {
  it("answers an outage with the entry past its lifetime, within the window, as STALE", async () => {
    const { clock, cache, compute, fail, events } = setup();
    await cache.get("k", policy, compute);
    fail(unavailable);
    clock.set(900 * SECOND + 3600 * SECOND - 1);
    expect(await cache.get("k", policy, compute)).toEqual({ value: "v1", status: "STALE", computedAt: 0 });
    expect(events.at(-1)).toBe("stale");
  });

  it("never answers past the window", async () => {
    const { clock, cache, compute, fail } = setup();
    await cache.get("k", policy, compute);
    fail(unavailable);
    clock.set(900 * SECOND + 3600 * SECOND);
    await expect(cache.get("k", policy, compute)).rejects.toMatchObject({ code: Code.Unavailable });
  });

  it.each([
    ["unavailable", unavailable, "STALE"],
    ["deadline exceeded", () => new ConnectError("query ran past its deadline", Code.DeadlineExceeded), "STALE"],
    ["overload", () => overloadError("too many warehouse queries in flight"), "STALE"],
    ["a read limit", () => new ConnectError("read limit", Code.ResourceExhausted), "error"],
    ["invalid argument", () => new ConnectError("bad", Code.InvalidArgument), "error"],
    ["permission denied", () => new ConnectError("scope", Code.PermissionDenied), "error"],
    ["internal", () => new ConnectError("internal error", Code.Internal), "error"],
  ])("answers a failure of %s with %s", async (_name, error, outcome) => {
    const { clock, cache, compute, fail } = setup();
    await cache.get("k", policy, compute);
    fail(error);
    clock.set(1000 * SECOND);
    const got = await cache.get("k", policy, compute).then(
      (lookup) => lookup.status,
      () => "error",
    );
    expect(got).toBe(outcome);
  });

  it("answers no stale entry to a caller with a freshness, nor when the window is 0", async () => {
    const { clock, cache, compute, fail } = setup();
    await cache.get("k", policy, compute);
    fail(unavailable);
    clock.set(1000 * SECOND);
    await expect(cache.get("k", policy, compute, { freshness: { force: true } })).rejects.toThrow();
    await expect(cache.get("k", policy, compute, { freshness: { maxAgeMs: 5000 } })).rejects.toThrow();
    const off = setup({ staleIfErrorMs: 0 });
    await off.cache.get("k", policy, off.compute);
    off.fail(unavailable);
    off.clock.set(1000 * SECOND);
    await expect(off.cache.get("k", policy, off.compute)).rejects.toMatchObject({ code: Code.Unavailable });
  });

  it("never peeks at a stale entry", async () => {
    const { clock, cache, compute } = setup();
    await cache.get("k", policy, compute);
    clock.set(900 * SECOND);
    expect(cache.peek("k", policy)).toBeUndefined();
    expect(cache.size.entries).toBe(1);
  });

  it("keeps an entry nobody asks for until the window ends, then drops it", async () => {
    const { clock, cache, compute } = setup();
    await cache.get("k", policy, compute);
    clock.set(2000 * SECOND);
    await cache.runWarming();
    expect(cache.size.entries).toBe(1);
    clock.set(4500 * SECOND);
    await cache.runWarming();
    expect(cache.peek("k", policy)).toBeUndefined();
    expect(cache.size.entries).toBe(0);
  });

  it("evicts stale entries before any live one when the bounds are reached", async () => {
    const { clock, cache, compute } = setup({ maxEntries: 3 });
    await cache.get("old-1", policy, compute);
    await cache.get("old-2", policy, compute);
    clock.set(900 * SECOND); // both stale now
    await cache.get("live", policy, compute);
    await cache.get("old-1", policy, compute, { freshness: { maxAgeMs: 0 } }); // old-1 live again, most recent
    await cache.get("new", policy, compute);
    await cache.get("newer", policy, compute);
    // old-2 (stale) went first; then the least recently used live one, "live".
    expect(["old-1", "old-2", "live", "new", "newer"].map((key) => cache.peek(key, policy) !== undefined)).toEqual([
      true,
      false,
      false,
      true,
      true,
    ]);
  });

  it("keeps retrying a failing key with backoff while it is asked for, and the first good result replaces the stale one", async () => {
    const { clock, cache, compute, calls, fail } = setup({
      retryAfterFailureMs: 30 * SECOND,
      maxRetryAfterFailureMs: 120 * SECOND,
    });
    await cache.get("k", policy, compute);
    await cache.get("k", policy, compute); // asked: warmed at 300 s
    fail(unavailable);
    calls.length = 0;
    for (let t = 300; t <= 1200; t += 1) {
      clock.set(t * SECOND);
      if (t % 10 === 0 && t > 900)
        await cache.get("k", policy, compute); // STALE, and asked
      else if (t % 10 === 0) cache.peek("k", policy);
      await cache.runWarming();
    }
    // Warming's tries: 300, then 30, 60, 120, 120, ... s apart; the callers' own misses after 900 s every 10 s.
    const warming = calls.filter((at) => at % (10 * SECOND) !== 0 || at <= 900 * SECOND);
    expect(warming.slice(0, 5)).toEqual([300, 330, 390, 510, 630].map((s) => s * SECOND));
    fail(undefined);
    clock.set(1201 * SECOND);
    const after = await cache.get("k", policy, compute);
    expect(after.status).toBe("MISS");
    expect(cache.peek("k", policy)).toMatchObject({ status: "HIT", computedAt: 1201 * SECOND });
  });
});
