// The result cache against fake timers, no sleeping: lifetime, warming,
// idle keys, single-flight, errors, failed refreshes, bounds and concurrency.
import { Code, ConnectError } from "@connectrpc/connect";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createResultCache, type CacheEvent, type CachePolicy, type Compute } from "../../src/cache/index.js";
import { fakeClock, settled } from "../support/fake-time.js";

const SECOND = 1000;
const policy: CachePolicy = { ttlMs: 900 * SECOND, warmMs: 300 * SECOND };

afterEach(() => vi.useRealTimers());

function setup(options: Parameters<typeof createResultCache>[0] = {}) {
  // The cache's time is Date.now() (node-cache's); refresh pacing is performance.now() and timers.
  const clock = fakeClock(0, ["Date", "performance", "setTimeout", "clearTimeout"]);
  const events: CacheEvent[] = [];
  const cache = createResultCache<string>({
    sweepIntervalMs: 0,
    jitter: 0,
    entryOverheadBytes: 0,
    onEvent: (event) => events.push(event),
    ...options,
  });
  let version = 0;
  const calls: number[] = [];
  /** A computation that yields `v<n>` for its n-th run, recording when it ran. */
  const compute: Compute<string> = async () => {
    calls.push(clock());
    version += 1;
    return { value: `v${version}`, bytes: 10 };
  };
  return { clock, cache, compute, calls, events };
}

describe("result cache lifetime", () => {
  it("serves a result until its lifetime ends, then computes it again", async () => {
    const { clock, cache, compute } = setup();
    expect(await cache.get("k", policy, compute)).toEqual({ value: "v1", status: "MISS", computedAt: 0 });
    clock.set(900 * SECOND - 1);
    expect(await cache.get("k", policy, compute)).toEqual({ value: "v1", status: "HIT", computedAt: 0 });
    clock.set(900 * SECOND);
    expect(await cache.get("k", policy, compute)).toEqual({ value: "v2", status: "MISS", computedAt: 900 * SECOND });
  });

  it("recomputes a key asked for again at the warming period", async () => {
    const { clock, cache, compute, calls } = setup();
    await cache.get("k", policy, compute);
    clock.set(1 * SECOND);
    await cache.get("k", policy, compute);
    clock.set(300 * SECOND - 1);
    await cache.runWarming();
    expect(calls).toEqual([0]);
    clock.set(300 * SECOND);
    await cache.runWarming();
    expect(calls).toEqual([0, 300 * SECOND]);
    expect(await cache.get("k", policy, compute)).toEqual({ value: "v2", status: "HIT", computedAt: 300 * SECOND });
  });

  it("never misses on a key asked for every minute while warming runs", async () => {
    const { clock, cache, compute, events } = setup();
    for (let t = 0; t <= 3 * 3600; t += 10) {
      clock.set(t * SECOND);
      await cache.runWarming();
      if (t % 60 === 0) await cache.get("k", policy, compute);
    }
    expect(events.filter((e) => e === "miss")).toHaveLength(1);
    expect(events.filter((e) => e === "refresh")).toHaveLength(Math.floor((3 * 3600) / 300));
  });

  it("drops a key nobody asked for during a whole lifetime and stops warming it", async () => {
    const { clock, cache, compute, calls } = setup();
    await cache.get("k", policy, compute);
    clock.set(10 * SECOND);
    await cache.get("k", policy, compute);
    for (const t of [300, 600, 900, 1200, 1500]) {
      clock.set(t * SECOND);
      await cache.runWarming();
    }
    // Refreshed at 300 s (asked at 10 s); not at 600 s (nobody asked since 300 s); dropped at 910 s.
    expect(calls).toEqual([0, 300 * SECOND]);
    expect(cache.size).toEqual({ entries: 0, bytes: 0 });
  });

  it("never refreshes a key that nobody asked for again after it was computed", async () => {
    const { clock, cache, compute, calls } = setup();
    // One-off keys: each asked once.
    for (let i = 0; i < 100; i++) await cache.get(`once-${i}`, policy, compute);
    for (let t = 10; t <= 900; t += 10) {
      clock.set(t * SECOND);
      await cache.runWarming();
    }
    expect(calls).toHaveLength(100); // the 100 misses, no refresh
    expect(cache.size.entries).toBe(0);
  });

  it("keeps refreshes to their share of the time, waiting between them rather than leaving them for later", async () => {
    const { clock, cache } = setup({ warmShare: 0.25 });
    const started: number[] = [];
    const ended: number[] = [];
    // Each computation takes 40 ms of the timers' time: the pace is measured on it, not on Date.
    const slow: Compute<string> = async () => {
      started.push(performance.now());
      await new Promise((r) => setTimeout(r, 40));
      ended.push(performance.now());
      return { value: "x", bytes: 1 };
    };
    for (const key of ["a", "b", "c"]) await settled(cache.get(key, policy, slow));
    for (const key of ["a", "b", "c"]) await cache.get(key, policy, slow);
    started.length = 0;
    ended.length = 0;
    // A warming period after the misses, which moved the clock on by their 3 * 40 ms.
    clock.advance(300 * SECOND);
    await settled(cache.runWarming());
    // All three refreshed in one sweep, each after a pause of three times the last one's length.
    expect(started).toHaveLength(3);
    for (let i = 1; i < 3; i++) {
      const took = ended[i - 1]! - started[i - 1]!;
      expect(started[i]! - ended[i - 1]!).toBeGreaterThanOrEqual(3 * took - 5);
    }
    const busy = ended.reduce((sum, end, i) => sum + (end - started[i]!), 0);
    // Three refreshes of d and the two pauses of 3d between them: busy 3d of 9d.
    expect(busy / (ended[2]! - started[0]!)).toBeLessThanOrEqual(3 / 9 + 0.05);
  });
});

describe("result cache failures and concurrency", () => {
  it("runs one computation for many concurrent misses of a key", async () => {
    const { cache } = setup();
    let release!: () => void;
    let runs = 0;
    const slow: Compute<string> = async () => {
      runs += 1;
      await new Promise<void>((r) => (release = r));
      return { value: "shared", bytes: 1 };
    };
    const lookups = Array.from({ length: 50 }, () => cache.get("k", policy, slow));
    await Promise.resolve();
    release();
    const results = await Promise.all(lookups);
    expect(runs).toBe(1);
    expect(new Set(results.map((r) => r.value))).toEqual(new Set(["shared"]));
  });

  it("never stores an error", async () => {
    const { cache } = setup();
    let runs = 0;
    const failing: Compute<string> = async () => {
      runs += 1;
      throw new ConnectError("warehouse unavailable", Code.Unavailable);
    };
    await expect(cache.get("k", policy, failing)).rejects.toMatchObject({ code: Code.Unavailable });
    await expect(cache.get("k", policy, failing)).rejects.toMatchObject({ code: Code.Unavailable });
    expect(runs).toBe(2);
    expect(cache.size.entries).toBe(0);
  });

  it("keeps serving the previous result after a failed refresh until its lifetime ends", async () => {
    const { clock, cache, events } = setup();
    let fail = false;
    let version = 0;
    const compute: Compute<string> = async () => {
      if (fail) throw new Error("down");
      version += 1;
      return { value: `v${version}`, bytes: 1 };
    };
    await cache.get("k", policy, compute);
    clock.set(1 * SECOND);
    await cache.get("k", policy, compute);
    fail = true;
    clock.set(300 * SECOND);
    await cache.runWarming();
    expect(events).toContain("refresh_failure");
    clock.set(899 * SECOND);
    expect(await cache.get("k", policy, compute)).toMatchObject({ value: "v1", status: "HIT" });
    clock.set(900 * SECOND);
    await expect(cache.get("k", policy, compute)).rejects.toThrow("down");
  });

  it("rejects a caller that stops waiting with its signal's reason, for the caller to map", async () => {
    const { cache } = setup();
    const hanging: Compute<string> = () => new Promise(() => {});
    const caller = new AbortController();
    const reason = new Error("the caller's own reason");
    const lookup = cache.get("k", policy, hanging, { signal: caller.signal }).catch((e: unknown) => e);
    caller.abort(reason);
    expect(await lookup).toBe(reason);
  });

  it("starts nothing for a caller already gone, and serves it no error of another's", async () => {
    const { cache, calls, compute } = setup();
    const gone = new AbortController();
    gone.abort(new ConnectError("the call ran past its deadline", Code.DeadlineExceeded));
    const error = (await cache
      .get("k", policy, compute, { signal: gone.signal })
      .catch((e: unknown) => e)) as ConnectError;
    expect(error.code).toBe(Code.DeadlineExceeded);
    expect(calls).toEqual([]);
    // The next caller starts the computation itself, alone.
    expect((await cache.get("k", policy, compute)).status).toBe("MISS");
    expect(calls).toHaveLength(1);
  });
});

describe("result cache bounds", () => {
  it("evicts the least recently used entry past the entry bound", async () => {
    const { cache, compute, events } = setup({ maxEntries: 3 });
    for (const key of ["a", "b", "c"]) await cache.get(key, policy, compute);
    await cache.get("a", policy, compute); // a is now the most recently used
    await cache.get("d", policy, compute);
    expect(events.filter((e) => e === "eviction")).toHaveLength(1);
    expect((await cache.get("a", policy, compute)).status).toBe("HIT");
    expect((await cache.get("b", policy, compute)).status).toBe("MISS");
  });

  it("evicts past the byte bound, counting each entry's value and key", async () => {
    const { cache, compute } = setup({ maxBytes: 25 }); // each entry: a 10-byte result and a 1-character key
    for (const key of ["a", "b", "c", "d"]) await cache.get(key, policy, compute);
    expect(cache.size).toEqual({ entries: 2, bytes: 22 });
  });

  it("counts what an entry grows by and evicts other entries when the growth passes the byte bound", async () => {
    const { cache, compute, events } = setup({ maxBytes: 40 }); // 11 bytes an entry: three fit
    for (const key of ["a", "b", "c"]) await cache.get(key, policy, compute);
    cache.grow("c", "v3", 5);
    expect(cache.size).toEqual({ entries: 3, bytes: 38 });
    // 38 + 5 = 43 passes 40: the least recently used (a) goes, the growing entry stays.
    cache.grow("c", "v3", 5);
    expect(cache.size).toEqual({ entries: 2, bytes: 32 });
    expect(events.filter((e) => e === "eviction")).toHaveLength(1);
    expect((await cache.get("c", policy, compute)).status).toBe("HIT");
  });

  it("ignores growth reported for a value the entry no longer holds", async () => {
    const { clock, cache, compute } = setup();
    await cache.get("k", policy, compute); // v1
    cache.grow("k", "v0", 100);
    cache.grow("gone", "v1", 100);
    expect(cache.size).toEqual({ entries: 1, bytes: 11 });
    clock.set(900 * SECOND);
    await cache.get("k", policy, compute); // v2 replaces v1
    cache.grow("k", "v1", 100);
    expect(cache.size).toEqual({ entries: 1, bytes: 11 });
  });

  it("counts each entry's overhead towards the byte bound", async () => {
    const { cache, compute } = setup({ maxBytes: 300, entryOverheadBytes: 100 });
    for (const key of ["key-1", "key-2", "key-3"]) await cache.get(key, policy, compute);
    // 10 + 5 + 100 = 115 bytes an entry: two fit in 300.
    expect(cache.size).toEqual({ entries: 2, bytes: 230 });
  });

  it("refreshes at most warmConcurrency keys at once", async () => {
    const { clock, cache } = setup({ warmConcurrency: 3 });
    let running = 0;
    let most = 0;
    const compute: Compute<string> = async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((r) => setImmediate(r));
      running -= 1;
      return { value: "x", bytes: 1 };
    };
    for (let i = 0; i < 20; i++) await cache.get(`k${i}`, policy, compute);
    for (let i = 0; i < 20; i++) await cache.get(`k${i}`, policy, compute);
    most = 0;
    clock.set(300 * SECOND);
    await cache.runWarming();
    expect(most).toBe(3);
  });

  it("spreads refreshes over the last tenth of the warming period", async () => {
    const randoms = [0, 0.5, 1];
    const { clock, cache, compute, calls } = setup({ jitter: 0.1, random: () => randoms.shift() ?? 0 });
    for (const key of ["a", "b", "c"]) await cache.get(key, policy, compute);
    for (const key of ["a", "b", "c"]) await cache.get(key, policy, compute);
    // Due at 300 s, 285 s and 270 s.
    clock.set(270 * SECOND);
    await cache.runWarming();
    clock.set(285 * SECOND);
    await cache.runWarming();
    clock.set(300 * SECOND);
    await cache.runWarming();
    expect(calls.slice(3)).toEqual([270 * SECOND, 285 * SECOND, 300 * SECOND]);
  });
});
