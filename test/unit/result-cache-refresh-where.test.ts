// refreshWhere: live entries that match are computed again at once with the
// refresh they keep, others are left alone, a miss meanwhile joins the
// refresh, a computation already running is waited for first, and a failed
// refresh drops the entry.
import { afterEach, describe, expect, it, vi } from "vitest";
import { type CachePolicy, type Compute, createResultCache } from "../../src/cache/index.js";
import { tablesReadBy } from "../../src/endpoints/tables-read.js";

const logs: CachePolicy = { ttlMs: 60_000, warmMs: 0, label: "logs" };
const usage: CachePolicy = { ttlMs: 60_000, warmMs: 0, label: "usage" };

/** A computation yielding `<name><n>` for its n-th run. */
function counter(name: string): Compute<string> & { runs: number } {
  const compute = Object.assign(
    async () => {
      compute.runs += 1;
      return { value: `${name}${compute.runs}`, bytes: 1 };
    },
    { runs: 0 },
  );
  return compute;
}

describe("result cache refreshWhere", () => {
  it("computes matching live entries again before it resolves, and leaves the rest", async () => {
    const cache = createResultCache<string>({ sweepIntervalMs: 0 });
    const a = counter("a");
    const b = counter("b");
    await cache.get("logs 1", logs, a);
    await cache.get("usage 1", usage, b);
    await cache.refreshWhere((_key, policy) => policy.label === "logs");
    expect(cache.peek("logs 1", logs)?.value).toBe("a2");
    expect(cache.peek("usage 1", usage)?.value).toBe("b1");
    cache.close();
  });

  it("lets a miss of the key join the refresh under way", async () => {
    const cache = createResultCache<string>({ sweepIntervalMs: 0 });
    const a = counter("a");
    await cache.get("logs 1", logs, a);
    const refreshing = cache.refreshWhere(() => true);
    const forced = cache.get("logs 1", logs, a, { freshness: { force: true } });
    await refreshing;
    expect((await forced).value).toBe("a2");
    expect(a.runs).toBe(2);
    cache.close();
  });

  it("waits for a computation begun before it, then computes again", async () => {
    const cache = createResultCache<string>({ sweepIntervalMs: 0 });
    const a = counter("a");
    await cache.get("logs 1", logs, a);
    const forced = cache.get("logs 1", logs, a, { freshness: { force: true } });
    await cache.refreshWhere(() => true);
    expect((await forced).value).toBe("a2");
    expect(cache.peek("logs 1", logs)?.value).toBe("a3");
    cache.close();
  });

  it("drops the entry when its refresh fails, so the next call computes it", async () => {
    const cache = createResultCache<string>({ sweepIntervalMs: 0 });
    let fail = false;
    const compute: Compute<string> = async () => {
      if (fail) throw new Error("warehouse down");
      return { value: "first", bytes: 1 };
    };
    await cache.get("logs 1", logs, compute);
    fail = true;
    await cache.refreshWhere(() => true);
    expect(cache.peek("logs 1", logs)).toBeUndefined();
    cache.close();
  });
});

describe("result cache refreshWhere of idle entries", () => {
  afterEach(() => vi.useRealTimers());
  const warmed: CachePolicy = { ttlMs: 900_000, warmMs: 300_000, label: "warmed" };

  it("computes again only what was asked for within its warming period, and drops the rest", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const cache = createResultCache<string>({ sweepIntervalMs: 0 });
    const asked = counter("asked");
    const idle = counter("idle");
    const unwarmed = counter("unwarmed");
    await cache.get("idle", warmed, idle);
    await cache.get("asked", warmed, asked);
    await cache.get("logs", logs, unwarmed);
    vi.advanceTimersByTime(200_000);
    await cache.get("asked", warmed, asked); // a hit, asked within 300 s of the refresh
    vi.advanceTimersByTime(200_000);
    // idle: last asked 400 s ago, past its 300 s warming; logs: unwarmed, asked 400 s ago, past its 60 s lifetime.
    await cache.refreshWhere(() => true);
    expect(cache.peek("asked", warmed)?.value).toBe("asked2");
    expect(cache.peek("idle", warmed)).toBeUndefined();
    expect([idle.runs, asked.runs, unwarmed.runs]).toEqual([1, 2, 1]);
    expect((await cache.get("idle", warmed, idle)).value).toBe("idle2");
    cache.close();
  });
});

describe("tablesReadBy", () => {
  it.each([
    ["SELECT a FROM edge_logs WHERE x = 1", ["edge_logs"]],
    ["WITH c AS (SELECT 1 FROM function_edge_logs) SELECT * FROM c", ["function_edge_logs", "c"]],
    ["select * from default.auth_logs a join `postgres_logs` p on 1", ["auth_logs", "postgres_logs"]],
    ["SELECT 'FROM storage_logs' -- FROM realtime_logs\n/* FROM pgbouncer_logs */ FROM edge_logs", ["edge_logs"]],
  ])("reads the tables of %j", (sql, tables) => {
    expect([...tablesReadBy(sql)].sort()).toEqual([...tables].sort());
  });
});
