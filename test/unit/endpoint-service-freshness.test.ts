// The endpoint service with the caller's freshness, through an outage, and
// what a result says about itself: forced runs, max-age in whole seconds,
// only-if-cached, STALE with its true age, the rows' tag, and kept bodies
// counted with the memory they keep alive.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createResultCache } from "../../src/cache/index.js";
import {
  createEndpointRegistry,
  createEndpointService,
  savedQueryServices,
  type CallContext,
  type ComputedResponse,
} from "../../src/endpoints/index.js";
import type { QueryExecutor } from "../../src/executor/index.js";
import { fakeClock } from "../support/fake-time.js";

const registry = createEndpointRegistry({ services: savedQueryServices });
const start = Date.UTC(2026, 10, 20);
afterEach(() => vi.useRealTimers());

function setup() {
  const clock = fakeClock(start);
  let queries = 0;
  let down = false;
  let total = 1;
  const executor: QueryExecutor = {
    async execute() {
      queries += 1;
      if (down) throw new ConnectError("warehouse unavailable", Code.Unavailable);
      return { rows: [{ timestamp: "2026-11-20T00:00:00Z", total_rest_requests: total }], queryId: "q", durationMs: 1 };
    },
  };
  const cache = createResultCache<ComputedResponse>({ sweepIntervalMs: 0, jitter: 0, staleIfErrorMs: 3_600_000 });
  const service = createEndpointService({ executor, cache, clock, sharedTimeoutMs: 30_000 });
  const run = (name: string, context?: CallContext) => {
    const endpoint = registry.find(name)!;
    return service.run(endpoint, create(endpoint.method.input, { project: "p", interval: "daily" } as never), context);
  };
  return {
    clock,
    cache,
    run,
    queries: () => queries,
    setDown: (value: boolean) => (down = value),
    setTotal: (value: number) => (total = value),
  };
}

describe("endpoint service freshness", () => {
  it.each([
    [{ noCache: true }, "MISS", true, 2],
    [{ maxAgeSeconds: 0 }, "MISS", true, 2],
    [{ maxAgeSeconds: 42 }, "HIT", undefined, 1],
    [{ maxAgeSeconds: 41 }, "MISS", undefined, 2],
    [{ onlyIfCached: true }, "HIT", undefined, 1],
    [{ onlyIfCached: true, maxAgeSeconds: 42 }, "HIT", undefined, 1],
  ])("at Age 42 s, %j answers a %s (forced %s) after %d queries", async (freshness, status, forced, queries) => {
    const setup_ = setup();
    await setup_.run("usage.api-counts");
    setup_.clock.advance(42_900);
    const result = await setup_.run("usage.api-counts", { freshness });
    expect([result.cache?.status, result.cache?.forced, setup_.queries()]).toEqual([status, forced, queries]);
  });

  it.each([
    ["an only-if-cached call of a key not cached", "usage.api-counts", { onlyIfCached: true }, false],
    [
      "an only-if-cached call older than it accepts",
      "usage.api-counts",
      { onlyIfCached: true, maxAgeSeconds: 5 },
      true,
    ],
    ["an only-if-cached call that forces a run", "usage.api-counts", { onlyIfCached: true, noCache: true }, true],
    ["an only-if-cached call of logs.all, never cached", "logs.all", { onlyIfCached: true }, false],
  ])("fails %s at once, never asking the warehouse", async (_name, endpoint, freshness, storedFirst) => {
    const { clock, run, queries } = setup();
    if (storedFirst) await run("usage.api-counts");
    clock.advance(10_000);
    const before = queries();
    const error = await run(endpoint, { freshness }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectError);
    expect([(error as ConnectError).code, (error as ConnectError).rawMessage]).toEqual([
      Code.Unavailable,
      "result not cached (only-if-cached)",
    ]);
    expect(queries()).toBe(before);
  });

  it("says what a cached result is: status, age, when computed and its lifetime", async () => {
    const { clock, run } = setup();
    expect((await run("usage.api-counts")).cache).toEqual({
      status: "MISS",
      ageSeconds: 0,
      computedAt: start,
      ttlSeconds: 900,
    });
    clock.advance(10_000);
    const forced = await run("usage.api-counts", { freshness: { noCache: true } });
    expect(forced.cache).toEqual({
      status: "MISS",
      forced: true,
      ageSeconds: 0,
      computedAt: start + 10_000,
      ttlSeconds: 900,
    });
  });

  it("answers an outage with the result past its lifetime as STALE with its true age, and the error past the window", async () => {
    const { clock, run, setDown } = setup();
    await run("usage.api-counts");
    setDown(true);
    clock.advance(1_000_000);
    expect((await run("usage.api-counts")).cache).toEqual({
      status: "STALE",
      ageSeconds: 1000,
      computedAt: start,
      ttlSeconds: 900,
    });
    clock.advance(3_500_000); // 4,500 s old: ended its lifetime 3,600 s ago
    await expect(run("usage.api-counts")).rejects.toMatchObject({ code: Code.Unavailable });
  });
});

describe("rows tag", () => {
  it("is the same for the same rows, hit or miss, cached or not, and differs for other rows", async () => {
    const { run, setTotal } = setup();
    const miss = await run("usage.api-counts");
    const hit = await run("usage.api-counts");
    expect(miss.rowsTag()).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(hit.rowsTag()).toBe(miss.rowsTag());
    setTotal(2);
    const other = await run("usage.api-counts", { freshness: { noCache: true } });
    expect(other.rowsTag()).not.toBe(miss.rowsTag());
    const logs = await run("logs.all");
    expect(logs.cache).toBeUndefined();
    expect(logs.rowsTag()).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(logs.rowsTag()).toBe(logs.rowsTag());
  });
});

describe("kept bodies", () => {
  it("counts at least the memory each kept body keeps alive: compressed bodies are copied out of their larger buffers", async () => {
    const { cache, run } = setup();
    const result = await run("usage.api-counts");
    const json = result.json();
    expect(json.buffer.byteLength).toBe(json.length);
    const bodies = { "json+gzip": gzipSync(json), "json+br": brotliCompressSync(json) };
    // What the transport hands over: views into buffers far larger than themselves.
    for (const body of Object.values(bodies)) expect(body.buffer.byteLength).toBeGreaterThan(body.length);
    let counted = cache.size.bytes;
    for (const [name, body] of Object.entries(bodies)) {
      result.keepBody(name, body);
      const kept = result.body(name)!;
      expect(kept.equals(body)).toBe(true);
      expect([kept.byteOffset, kept.buffer.byteLength]).toEqual([0, kept.length]);
      expect(cache.size.bytes - counted).toBeGreaterThanOrEqual(kept.buffer.byteLength);
      counted = cache.size.bytes;
    }
    const retained =
      json.buffer.byteLength + Object.keys(bodies).reduce((sum, name) => sum + result.body(name)!.buffer.byteLength, 0);
    expect(cache.size.bytes).toBeGreaterThanOrEqual(retained);
  });
});
