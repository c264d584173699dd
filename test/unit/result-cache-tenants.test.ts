// The result cache between tenants, against fake timers: each caller's share
// of a full cache, and warming in turns by caller, beside a noisy tenant
// keeping 10,000 entries alive.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createResultCache, type CacheEvent, type CachePolicy, type Compute } from "../../src/cache/index.js";
import { fakeClock } from "../support/fake-time.js";

const SECOND = 1000;
const policy: CachePolicy = { ttlMs: 900 * SECOND, warmMs: 300 * SECOND };

afterEach(() => vi.useRealTimers());

function setup(options: Parameters<typeof createResultCache>[0] = {}) {
  const clock = fakeClock(0, ["Date", "performance", "setTimeout", "clearTimeout", "setInterval", "clearInterval"]);
  const events: CacheEvent[] = [];
  const cache = createResultCache<string>({
    sweepIntervalMs: 0,
    jitter: 0,
    entryOverheadBytes: 0,
    onEvent: (event) => events.push(event),
    ...options,
  });
  const computed: string[] = [];
  /** A computation of `key` (10 bytes), recording that it ran. */
  const compute =
    (key: string): Compute<string> =>
    async () => {
      computed.push(key);
      return { value: key, bytes: 10 };
    };
  /** `key` asked by `tenant`: its status. */
  const ask = async (key: string, tenant: string) => (await cache.get(key, policy, compute(key), { tenant })).status;
  const evictions = () => events.filter((e) => e === "eviction").length;
  return { clock, cache, compute, computed, ask, evictions };
}

describe("result cache share per caller", () => {
  it("keeps another tenant's idle entry after a flood of one tenant's distinct misses", async () => {
    const { cache, ask, evictions } = setup({ maxEntries: 10 });
    await ask("quiet", "b");
    for (let i = 0; i < 100; i++) await ask(`flood-${i}`, "a");
    // Nine floods fill the cache; each of the other 91 evicts one of a's own (a holds 9 > 5).
    expect(evictions()).toBe(91);
    expect(cache.size.entries).toBe(10);
    expect(await ask("quiet", "b")).toBe("HIT");
    expect(await ask("flood-99", "a")).toBe("HIT");
    expect(await ask("flood-90", "a")).toBe("MISS");
  });

  it("keeps another tenant's entry under a flood past the byte bound", async () => {
    // Entries of 10 bytes and keys of 7 ("quiet-0", "flood-0" ... "flood-9"): 17 bytes, and a few of 18.
    const { cache, ask } = setup({ maxBytes: 200 });
    for (let i = 0; i < 3; i++) await ask(`quiet-${i}`, "b");
    for (let i = 0; i < 50; i++) await ask(`flood-${i}`, "a");
    expect(cache.size.bytes).toBeLessThanOrEqual(200);
    for (let i = 0; i < 3; i++) expect(await ask(`quiet-${i}`, "b")).toBe("HIT");
  });

  it("lets a tenant alone fill the whole cache", async () => {
    const { cache, ask, evictions } = setup({ maxEntries: 10 });
    for (let i = 0; i < 10; i++) await ask(`k${i}`, "a");
    expect([cache.size.entries, evictions()]).toEqual([10, 0]);
  });

  it("takes room for a tenant within its share from one past its share, not from the least recently used", async () => {
    const { ask } = setup({ maxEntries: 10 });
    await ask("b-0", "b"); // the least recently used of all
    for (let i = 0; i < 9; i++) await ask(`a-${i}`, "a"); // full: a holds 9, past its share of 5
    await ask("c-0", "c");
    expect(await ask("b-0", "b")).toBe("HIT");
    expect(await ask("a-0", "a")).toBe("MISS");
  });

  it("counts an entry for the tenant whose call stored it, whoever reads it", async () => {
    const { ask } = setup({ maxEntries: 10 });
    await ask("shared", "a");
    expect(await ask("shared", "b")).toBe("HIT"); // still a's
    // a's own misses cost a first: its least recently used, the shared entry among them.
    for (let i = 0; i < 20; i++) await ask(`flood-${i}`, "a");
    expect(await ask("shared", "b")).toBe("MISS");
  });

  it("never lets a reader's misses evict another tenant's entry it read", async () => {
    const { ask } = setup({ maxEntries: 10 });
    await ask("hot", "a");
    await ask("other", "a");
    expect(await ask("hot", "b")).toBe("HIT");
    for (let i = 0; i < 20; i++) await ask(`flood-${i}`, "b");
    // b (8 of 10 held, past its share of 5) gave up its own entries, never a's.
    expect(await ask("hot", "a")).toBe("HIT");
    expect(await ask("other", "a")).toBe("HIT");
  });

  it("keeps an entry with the tenant that stored it when another's call recomputes it", async () => {
    const { cache, compute, ask } = setup({ maxEntries: 10 });
    await ask("hot", "a");
    const forced = await cache.get("hot", policy, compute("hot"), { tenant: "b", freshness: { force: true } });
    expect(forced.status).toBe("MISS");
    for (let i = 0; i < 20; i++) await ask(`flood-${i}`, "b");
    expect(await ask("hot", "a")).toBe("HIT");
  });

  it("turns the share off at 1: the least recently used goes, whoever asked for it", async () => {
    const { ask } = setup({ maxEntries: 10, sharePerCaller: 1 });
    await ask("quiet", "b");
    for (let i = 0; i < 10; i++) await ask(`flood-${i}`, "a");
    expect(await ask("quiet", "b")).toBe("MISS");
  });

  it("with the share off, keeps an entry asked again over newer ones asked once, whoever asked", async () => {
    const { ask } = setup({ maxEntries: 10, sharePerCaller: 1 });
    await ask("quiet", "b");
    for (let i = 0; i < 9; i++) await ask(`flood-${i}`, "a"); // full
    expect(await ask("quiet", "b")).toBe("HIT"); // now the most recently used
    await ask("flood-9", "a"); // evicts flood-0, the least recently used
    expect(await ask("quiet", "b")).toBe("HIT");
    expect(await ask("flood-1", "a")).toBe("HIT");
    expect(await ask("flood-0", "a")).toBe("MISS");
  });
});

describe("result cache warming between tenants", () => {
  it("takes due entries round-robin by tenant, the most recently asked first within one", async () => {
    const { clock, cache, ask, computed } = setup();
    const keys = { a: ["a1", "a2", "a3"], b: ["b1", "b2"], c: ["c1"] };
    for (const [tenant, own] of Object.entries(keys)) for (const key of own) await ask(key, tenant);
    // Asked again one a second, in this order: least recently used first a1, then b1, a2, c1, a3, b2.
    for (const [i, key] of ["a1", "b1", "a2", "c1", "a3", "b2"].entries()) {
      clock.set((i + 1) * SECOND);
      await ask(key, key[0]!);
    }
    computed.length = 0;
    clock.set(300 * SECOND);
    await cache.runWarming();
    // Tenants in the order their first due entry was met (a, b, c); a3 asked at 5 s before a2 at 3 s.
    expect(computed).toEqual(["a3", "b2", "c1", "a2", "b1", "a1"]);
  });

  it("refreshes an entry that falls due while a pass runs before the rest of that pass", async () => {
    const { clock, cache } = setup({ sweepIntervalMs: 1000 });
    const started: [string, number][] = [];
    // 100 ms of warehouse time each: with the default share, one refresh starts every 400 ms.
    const slow =
      (key: string): Compute<string> =>
      async () => {
        started.push([key, Date.now()]);
        await new Promise((r) => setTimeout(r, 100));
        return { value: key, bytes: 1 };
      };
    const ask = (key: string, tenant: string) => cache.get(key, policy, slow(key), { tenant });
    const noisy = Array.from({ length: 20 }, (_, i) => `noisy-${i}`);
    const misses = Promise.all(noisy.map((key) => ask(key, "a")));
    await vi.advanceTimersByTimeAsync(100);
    await misses;
    for (const key of noisy) await ask(key, "a");
    // Computed at 2.1 s: due at 302.1 s, while the noisy pass due at 300.1 s runs for 8 s.
    clock.set(2 * SECOND);
    const quiet = ask("quiet", "b");
    await vi.advanceTimersByTimeAsync(100);
    await quiet;
    await ask("quiet", "b");
    started.length = 0;
    await vi.advanceTimersByTimeAsync(310 * SECOND);
    expect(started).toHaveLength(21);
    // Found by the first sweep after it fell due, and refreshed at the next turn.
    const [, quietAt] = started.find(([key]) => key === "quiet")!;
    expect(quietAt).toBeGreaterThanOrEqual(302_100);
    expect(quietAt).toBeLessThanOrEqual(302_100 + 1000 + 400);
    expect(started.at(-1)![0]).toMatch(/^noisy-/);
  });

  it("refreshes a quiet tenant's hot entry on time beside a noisy tenant keeping 10,000 entries alive", async () => {
    const { cache } = setup({ maxEntries: 20_000, sweepIntervalMs: 1000 });
    // 35 ms a query: with the default share a refresh starts every 140 ms, so
    // a pass over the noisy tenant's due entries lasts longer than a lifetime.
    const refreshes: Record<string, number[]> = {};
    const compute =
      (key: string): Compute<string> =>
      async () => {
        (refreshes[key] ??= []).push(Date.now());
        if (filled) await new Promise((r) => setTimeout(r, 35));
        return { value: key, bytes: 1 };
      };
    let filled = false;
    const statuses: string[] = [];
    const ask = (key: string, tenant: string) =>
      cache.get(key, policy, compute(key), { tenant }).then((lookup) => {
        if (tenant === "quiet") statuses.push(lookup.status);
      });
    const noisy = Array.from({ length: 10_000 }, (_, i) => `noisy-${i}`);
    // The first misses at once, at 0 s (35 ms each afterwards).
    await ask("hot", "quiet");
    for (const key of noisy) await ask(key, "noisy");
    filled = true;
    // Three lifetimes: the noisy tenant asks 26 of its keys a second, in turn
    // (each every 385 s), the quiet one its one key every minute.
    for (let second = 1; second <= 2700; second++) {
      for (let i = 0; i < 26; i++) void ask(noisy[(second * 26 + i) % noisy.length]!, "noisy");
      if (second % 60 === 0) void ask("hot", "quiet");
      await vi.advanceTimersByTimeAsync(SECOND);
    }
    expect(statuses).toHaveLength(1 + 45);
    expect(statuses.filter((s) => s === "MISS")).toHaveLength(1);
    // Each refresh of the hot key starts within a sweep and two turns of its due time.
    const starts = refreshes.hot!;
    expect(starts.length).toBe(9);
    for (let i = 1; i < starts.length; i++) {
      const due = starts[i - 1]! + 35 + policy.warmMs;
      expect(starts[i]! - due).toBeLessThanOrEqual(SECOND + 2 * 140);
    }
    // The noisy tenant's refreshes go on meanwhile.
    const noisyRefreshes = noisy.reduce((sum, key) => sum + refreshes[key]!.length - 1, 0);
    expect(noisyRefreshes).toBeGreaterThan(2700 * (SECOND / 140) * 0.5);
  }, 120_000);
});
