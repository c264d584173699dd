// What each deployment adds to a saved query: nothing on one node, shard
// skipping on a cluster, the server's query cache for cached endpoints.
import { describe, expect, it } from "vitest";
import { createQueryTuning, tunedNow } from "../../src/executor/query-tuning.js";
import type { SavedQuery } from "../../src/executor/index.js";

const stats: SavedQuery = { name: "functions.invocation-stats", sql: "SELECT 1", maxRows: 1000 };
const logs: SavedQuery = { name: "logs.all", sql: "SELECT 1", maxRows: 1000 };
const cachedQueries = new Set(["functions.invocation-stats", "usage.api-counts"]);

describe("createQueryTuning", () => {
  it("adds nothing on a single node without the server cache", () => {
    const tune = createQueryTuning({ cachedQueries });
    expect(tune(stats)).toBeUndefined();
    expect(tune(logs)).toBeUndefined();
  });

  it("lets every query skip unused shards on a cluster, with now and the text as they are", () => {
    const tune = createQueryTuning({ distributed: true, cachedQueries });
    const expected = { settings: { optimize_skip_unused_shards: 1 }, nowStepMs: 0, stableText: false };
    expect(tune(stats)).toEqual(expected);
    expect(tune(logs)).toEqual(expected);
  });

  it("puts the cached endpoints on the server's query cache with a now rounded to its lifetime", () => {
    const tune = createQueryTuning({ queryCacheSeconds: 60, cachedQueries });
    expect(tune(stats)).toEqual({
      settings: { use_query_cache: 1, query_cache_ttl: 60 },
      nowStepMs: 60_000,
      stableText: true,
    });
    expect(tune(logs)).toBeUndefined();
  });

  it("combines both on a cluster with the server cache", () => {
    const tune = createQueryTuning({ distributed: true, queryCacheSeconds: 300, cachedQueries });
    expect(tune(stats)).toEqual({
      settings: { optimize_skip_unused_shards: 1, use_query_cache: 1, query_cache_ttl: 300 },
      nowStepMs: 300_000,
      stableText: true,
    });
    expect(tune(logs)).toEqual({ settings: { optimize_skip_unused_shards: 1 }, nowStepMs: 0, stableText: false });
  });
});

describe("tunedNow", () => {
  const at = Date.UTC(2026, 10, 20, 12, 34, 56, 789);
  it.each([
    [0, at],
    [60_000, Date.UTC(2026, 10, 20, 12, 34)],
    [300_000, Date.UTC(2026, 10, 20, 12, 30)],
  ])("rounds now down to a step of %i ms", (nowStepMs, expected) => {
    expect(tunedNow(at, { settings: {}, nowStepMs, stableText: nowStepMs > 0 })).toBe(expected);
  });

  it("leaves now alone without tuning", () => {
    expect(tunedNow(at, undefined)).toBe(at);
  });
});
