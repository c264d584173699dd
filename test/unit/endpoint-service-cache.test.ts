// The endpoint service with the cache, counted by a spy on the executor:
// normalised keys, single-flight, logs.all never cached, errors not cached,
// a caller leaving a shared computation.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createResultCache } from "../../src/cache/index.js";
import {
  createEndpointRegistry,
  createEndpointService,
  savedQueryServices,
  type CallContext,
  type ComputedResponse,
} from "../../src/endpoints/index.js";
import type { ExecuteOptions, QueryExecutor } from "../../src/executor/index.js";
import { fixedClock } from "../../src/observability/index.js";
import { fakeClock } from "../support/fake-time.js";

const registry = createEndpointRegistry({ services: savedQueryServices });
afterEach(() => vi.useRealTimers());

function setup(rows: Record<string, unknown>[] = [], failures = 0) {
  // The cache's lifetimes and warming run on Date.now() (node-cache's): the clock moves it.
  const clock = fakeClock(Date.UTC(2026, 10, 20));
  const executed: Record<string, unknown>[] = [];
  const contexts: ExecuteOptions[] = [];
  let toFail = failures;
  const executor: QueryExecutor = {
    async execute(_query, params, options = {}) {
      executed.push(params);
      contexts.push(options);
      await new Promise((r) => setImmediate(r));
      if (toFail-- > 0) throw new ConnectError("warehouse unavailable", Code.Unavailable);
      return { rows, queryId: "q", durationMs: 7, statistics: { rowsRead: 1200, bytesRead: 34000 } };
    },
  };
  const cache = createResultCache<ComputedResponse>({ sweepIntervalMs: 0, jitter: 0 });
  const service = createEndpointService({ executor, cache, clock, sharedTimeoutMs: 30_000 });
  const run = (name: string, fields: Record<string, string>, context?: CallContext) => {
    const endpoint = registry.find(name)!;
    return service.run(endpoint, create(endpoint.method.input, fields as never), context);
  };
  return { clock, executed, contexts, cache, run };
}

describe("endpoint service cache", () => {
  it("keeps a body made later with the cached result, counting its bytes in the cache's bound", async () => {
    const { run, cache } = setup();
    const miss = await run("usage.api-counts", { project: "p", interval: "daily" });
    const before = cache.size.bytes;
    miss.keepBody("json+br", Buffer.alloc(1000));
    // The body, its name and its bookkeeping.
    const kept = cache.size.bytes;
    expect(kept).toBeGreaterThanOrEqual(before + 1000);
    const hit = await run("usage.api-counts", { project: "p", interval: "daily" });
    expect(hit.cache?.status).toBe("HIT");
    expect(hit.body("json+br")?.length).toBe(1000);
    expect(hit.body("csv")).toBeUndefined();
    // Replacing a body counts the difference only.
    hit.keepBody("json+br", Buffer.alloc(400));
    expect(cache.size.bytes).toBe(kept - 600);
  });

  it("answers a hit with the warehouse figures of the computation that made it", async () => {
    const { run } = setup();
    await run("usage.api-counts", { project: "p", interval: "daily" });
    const hit = await run("usage.api-counts", { project: "p", interval: "daily" });
    expect(hit.computation).toMatchObject({ warehouseMs: 7, statistics: { rowsRead: 1200, bytesRead: 34000 } });
  });

  it("shares one entry between an absent, an unknown and the default interval", async () => {
    const { executed, run } = setup();
    const statuses = [];
    const requests: Record<string, string>[] = [
      { project: "p" },
      { project: "p", interval: "weekly" },
      { project: "p", interval: "1day" },
    ];
    for (const fields of requests) {
      statuses.push((await run("functions.invocation-stats", fields)).cache?.status);
    }
    expect(statuses).toEqual(["MISS", "HIT", "HIT"]);
    expect(executed).toHaveLength(1);
  });

  it("keeps different parameters apart", async () => {
    const { executed, run } = setup();
    await run("usage.api-counts", { project: "p", interval: "daily" });
    await run("usage.api-counts", { project: "p", interval: "hourly" });
    await run("usage.api-counts", { project: "q", interval: "daily" });
    expect(executed).toHaveLength(3);
  });

  it("runs one warehouse query for 100 concurrent identical calls", async () => {
    const { executed, run } = setup();
    const results = await Promise.all(
      Array.from({ length: 100 }, () => run("usage.api-counts", { project: "p", interval: "daily" })),
    );
    expect(executed).toHaveLength(1);
    expect(results.every((r) => r.cache?.status === "MISS")).toBe(true);
  });

  it("never caches logs.all", async () => {
    const { executed, run } = setup();
    const first = await run("logs.all", { project: "p" });
    await run("logs.all", { project: "p" });
    expect(executed).toHaveLength(2);
    expect(first.cache).toBeUndefined();
  });

  it("does not cache an error: the next call queries again", async () => {
    const { executed, run } = setup([], 1);
    await expect(run("usage.api-counts", { project: "p", interval: "daily" })).rejects.toMatchObject({
      code: Code.Unavailable,
    });
    expect((await run("usage.api-counts", { project: "p", interval: "daily" })).cache?.status).toBe("MISS");
    expect(executed).toHaveLength(2);
  });

  it("reports the age of a hit in whole seconds and reuses its JSON bytes", async () => {
    const rows = [{ timestamp: "2026-11-20T00:00:00Z", total_rest_requests: 3 }];
    const { clock, run } = setup(rows);
    const miss = await run("usage.api-counts", { project: "p", interval: "daily" });
    clock.advance(42_900);
    const hit = await run("usage.api-counts", { project: "p", interval: "daily" });
    expect(hit.cache).toEqual({ status: "HIT", ageSeconds: 42, computedAt: Date.UTC(2026, 10, 20), ttlSeconds: 900 });
    expect(hit.json()).toBe(miss.json());
    expect(JSON.parse(hit.json().toString())).toEqual({
      result: [
        {
          timestamp: "2026-11-20T00:00:00Z",
          total_rest_requests: 3,
          total_storage_requests: 0,
          total_auth_requests: 0,
          total_realtime_requests: 0,
        },
      ],
      truncated: false,
      rows_before_limit_at_least: 1,
    });
  });

  it("keeps whether the result was cut short with it: a hit says so in its body and its message", async () => {
    const executor: QueryExecutor = {
      execute: async () => ({
        rows: [{ timestamp: "2026-11-20T00:00:00Z" }],
        queryId: "q",
        durationMs: 1,
        truncation: { truncated: true, rowsBeforeLimitAtLeast: 5000 },
      }),
    };
    const cache = createResultCache<ComputedResponse>({ sweepIntervalMs: 0, jitter: 0 });
    const service = createEndpointService({ executor, cache, clock: fakeClock(Date.UTC(2026, 10, 20)) });
    const endpoint = registry.find("usage.api-counts")!;
    const request = create(endpoint.method.input, { project: "p", interval: "daily" } as never);
    await service.run(endpoint, request);
    const hit = await service.run(endpoint, request);
    expect(hit.cache?.status).toBe("HIT");
    expect(hit.computation.truncation).toEqual({ truncated: true, rowsBeforeLimitAtLeast: 5000 });
    expect(JSON.parse(hit.json().toString())).toMatchObject({ truncated: true, rows_before_limit_at_least: 5000 });
    expect(hit.message()).toMatchObject({ truncated: true, rowsBeforeLimitAtLeast: 5000n });
  });

  it("refreshes with the service's own deadline, request id and turn, never the first caller's", async () => {
    const { clock, contexts, cache, run } = setup();
    const caller = new AbortController();
    const first = { timeoutMs: 100, requestId: "first-caller", tenant: "tenant-a", signal: caller.signal };
    await run("usage.api-counts", { project: "p", interval: "daily" }, first);
    clock.advance(1000);
    await run(
      "usage.api-counts",
      { project: "p", interval: "daily" },
      { requestId: "second-caller", tenant: "tenant-b" },
    );
    clock.advance(300_000);
    await cache.runWarming();
    expect(contexts).toHaveLength(2);
    // The miss others could join ran to the service's deadline, not the first caller's 100 ms.
    expect(contexts[0]!.timeoutMs).toBe(30_000);
    const refresh = contexts[1]!;
    expect(refresh.timeoutMs).toBe(30_000);
    expect(refresh.requestId).toMatch(/^refresh-[0-9a-f-]{36}$/);
    expect(refresh.tenant).toBe("(cache warming)");
    expect(refresh.signal).not.toBe(caller.signal);
  });

  it("keeps nothing of the first caller alive with the cached entry", async () => {
    // A real garbage collection, to see what the entry holds on to.
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const { cache, run } = setup();
    let context: CallContext | undefined = {
      timeoutMs: 100,
      requestId: "first-caller",
      tenant: "tenant-a",
      signal: new AbortController().signal,
    };
    const caller = new WeakRef(context);
    await run("usage.api-counts", { project: "p", interval: "daily" }, context);
    context = undefined;
    await new Promise((r) => setImmediate(r));
    gc();
    await new Promise((r) => setImmediate(r));
    gc();
    expect(cache.size.entries).toBe(1);
    expect(caller.deref()).toBeUndefined();
  });

  it("aborts the computation only when every waiting caller has gone", async () => {
    // Moved from result-cache.test.ts: the cache rejects a caller with its signal's reason, the service maps it.
    let seen!: AbortSignal;
    const executor: QueryExecutor = {
      execute(_query, _params, options = {}) {
        seen = options.signal!;
        return new Promise(() => {});
      },
    };
    const service = createEndpointService({
      executor,
      cache: createResultCache<ComputedResponse>({ sweepIntervalMs: 0 }),
      // Before usage.api-counts' sunset, whatever the date the test runs on.
      clock: fixedClock(Date.UTC(2026, 10, 20)),
    });
    const endpoint = registry.find("usage.api-counts")!;
    const request = create(endpoint.method.input, { project: "p", interval: "daily" } as never);
    const first = new AbortController();
    const second = new AbortController();
    const a = service.run(endpoint, request, { signal: first.signal }).catch((e: unknown) => e);
    const b = service.run(endpoint, request, { signal: second.signal }).catch((e: unknown) => e);
    await new Promise((r) => setImmediate(r));
    first.abort();
    expect(((await a) as ConnectError).code).toBe(Code.Canceled);
    expect(seen.aborted).toBe(false);
    second.abort();
    await b;
    expect(seen.aborted).toBe(true);
  });
});
