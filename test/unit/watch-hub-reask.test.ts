// The watch hub asks again for a watched cached key whose entry is gone (its
// refresh failed, or it was dropped): at the next poll tick, one computation
// for all its watchers, on fake time.
import { create } from "@bufbuild/protobuf";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createResultCache } from "../../src/cache/index.js";
import {
  createEndpointRegistry,
  createEndpointService,
  createWatchHub,
  savedQueryServices,
  type ComputedResponse,
  type EndpointResult,
  type WatchListener,
} from "../../src/endpoints/index.js";
import type { QueryExecutor } from "../../src/executor/index.js";
import { fakeClock } from "../support/fake-time.js";

const registry = createEndpointRegistry({ services: savedQueryServices });
const apiCounts = registry.find("usage.api-counts")!;
afterEach(() => vi.useRealTimers());

function setup() {
  const clock = fakeClock(Date.UTC(2026, 10, 20), ["Date", "setTimeout", "clearTimeout"]);
  const state = { total: 1, queries: 0, failing: false };
  const executor: QueryExecutor = {
    async execute() {
      state.queries += 1;
      if (state.failing) throw new Error("warehouse down");
      return {
        rows: [{ timestamp: "2026-11-20T00:00:00Z", total_rest_requests: state.total }],
        queryId: "q",
        durationMs: 1,
      };
    },
  };
  const cache = createResultCache<ComputedResponse>({ sweepIntervalMs: 0, jitter: 0 });
  const service = createEndpointService({ executor, cache, clock });
  const hub = createWatchHub({ service, cache, executor, clock, tailPollMs: 2000 });
  const call = service.prepare(apiCounts, create(apiCounts.method.input, { project: "p", interval: "daily" }));
  return { state, cache, hub, call };
}

function recorder() {
  const totals: number[] = [];
  const listener: WatchListener = {
    next(result: EndpointResult) {
      const rows = (result.message() as unknown as { result: { totalRestRequests: bigint }[] }).result;
      totals.push(Number(rows[0]?.totalRestRequests ?? -1));
      return true;
    },
    end() {},
  };
  return { totals, listener };
}

describe("watch hub, a watched key whose entry is gone", () => {
  it("computes it again once for all its watchers at the next poll tick", async () => {
    const { state, cache, hub, call } = setup();
    const watchers = [recorder(), recorder(), recorder()];
    for (const w of watchers) hub.watch(call, { tenant: "a" }, w.listener);
    await vi.advanceTimersByTimeAsync(0);
    expect(state.queries).toBe(1);
    // A failed refresh drops the entry: no store follows, so no renewal reaches the watchers.
    state.failing = true;
    await cache.refreshWhere(() => true);
    expect(state.queries).toBe(2);
    state.failing = false;
    state.total = 7;
    await vi.advanceTimersByTimeAsync(2000);
    expect(state.queries).toBe(3);
    expect(watchers.map((w) => w.totals.join())).toEqual(["1,7", "1,7", "1,7"]);
    // The entry is back: later ticks ask nothing.
    await vi.advanceTimersByTimeAsync(6000);
    expect(state.queries).toBe(3);
    hub.close();
  });

  it("asks again at each tick while the warehouse keeps failing", async () => {
    const { state, cache, hub, call } = setup();
    const seen = recorder();
    hub.watch(call, { tenant: "a" }, seen.listener);
    await vi.advanceTimersByTimeAsync(0);
    state.failing = true;
    await cache.refreshWhere(() => true);
    await vi.advanceTimersByTimeAsync(4000);
    expect(state.queries).toBe(4);
    state.failing = false;
    state.total = 3;
    await vi.advanceTimersByTimeAsync(2000);
    expect(seen.totals).toEqual([1, 3]);
    hub.close();
  });
});
