// The watch hub over a cached saved query, with a counting fake executor:
// the first message at once, no repeat of the same rows, one computation per
// refresh for a thousand watchers, conflation for a slow reader, the bounds
// and shutdown.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
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

function setup(bounds?: { maxStreams: number; perCaller: number; perAddress: number }) {
  const clock = fakeClock(Date.UTC(2026, 10, 20));
  const state = { total: 1, queries: 0 };
  const executor: QueryExecutor = {
    async execute() {
      state.queries += 1;
      await new Promise((r) => setImmediate(r));
      return {
        rows: [{ timestamp: "2026-11-20T00:00:00Z", total_rest_requests: state.total }],
        queryId: "q",
        durationMs: 1,
      };
    },
  };
  const cache = createResultCache<ComputedResponse>({ sweepIntervalMs: 0, jitter: 0 });
  const service = createEndpointService({ executor, cache, clock });
  const hub = createWatchHub({ service, cache, executor, clock, bounds });
  const call = service.prepare(apiCounts, create(apiCounts.method.input, { project: "p", interval: "daily" }));
  const refresh = () => cache.refreshWhere(() => true);
  return { clock, state, cache, service, hub, call, refresh };
}

/** A listener that records the totals it is sent and how it ended; `room` false makes its writer full. */
function recorder(room = true) {
  const totals: number[] = [];
  const ends: ConnectError[] = [];
  const listener: WatchListener = {
    next(result: EndpointResult) {
      const rows = (result.message() as unknown as { result: { totalRestRequests: bigint }[] }).result;
      totals.push(Number(rows[0]?.totalRestRequests ?? -1));
      return room;
    },
    end: (error) => void ends.push(error),
  };
  return { totals, ends, listener };
}

const settle = () => new Promise((r) => setImmediate(r)).then(() => new Promise((r) => setImmediate(r)));

describe("watch hub", () => {
  it("sends the current result at once, from the cache when it holds one", async () => {
    const { service, hub, call, state } = setup();
    await service.execute(call);
    const seen = recorder();
    hub.watch(call, { tenant: "a" }, seen.listener);
    await settle();
    expect(seen.totals).toEqual([1]);
    expect(state.queries).toBe(1);
  });

  it("sends a refresh only when its rows differ from the last sent", async () => {
    const { hub, call, state, refresh } = setup();
    const seen = recorder();
    hub.watch(call, {}, seen.listener);
    await settle();
    await refresh();
    state.total = 2;
    await refresh();
    await refresh();
    expect(seen.totals).toEqual([1, 2]);
  });

  it("computes once per refresh for a thousand watchers of one key", async () => {
    const { hub, call, state, refresh } = setup();
    const watchers = Array.from({ length: 1000 }, () => recorder());
    for (const [i, w] of watchers.entries()) hub.watch(call, { tenant: `t${i % 10}` }, w.listener);
    await settle();
    expect(state.queries).toBe(1);
    state.total = 5;
    await refresh();
    expect(state.queries).toBe(2);
    expect(watchers.every((w) => w.totals.join() === "1,5")).toBe(true);
  });

  it("holds only the newest result for a reader whose writer is full, until it drains", async () => {
    const { hub, call, state, refresh } = setup();
    const seen = recorder(false);
    const stream = hub.watch(call, {}, seen.listener);
    await settle();
    for (const total of [2, 3, 4]) {
      state.total = total;
      await refresh();
    }
    expect(seen.totals).toEqual([1]);
    stream.drained();
    expect(seen.totals).toEqual([1, 4]);
    stream.drained();
    expect(seen.totals).toEqual([1, 4]);
  });

  it("drops a held result when the rows return to those last sent", async () => {
    const { hub, call, state, refresh } = setup();
    const seen = recorder(false);
    const stream = hub.watch(call, {}, seen.listener);
    await settle();
    state.total = 2;
    await refresh();
    state.total = 1;
    await refresh();
    stream.drained();
    expect(seen.totals).toEqual([1]);
  });

  it("keeps a watched key asked, so warming refreshes it", async () => {
    const { hub, call, state, cache, clock } = setup();
    const seen = recorder();
    hub.watch(call, {}, seen.listener);
    await settle();
    state.total = 7;
    // usage.api-counts warms every 300 s and lives 900 s: with no caller but the watcher, warming refreshes it twice.
    for (const step of [301_000, 301_000]) {
      clock.advance(step);
      await cache.runWarming();
    }
    expect(state.queries).toBe(3);
    expect(seen.totals).toEqual([1, 7]);
  });

  it.each([
    [{ maxStreams: 2, perCaller: 5, perAddress: 5 }, {}, "MAX_WATCH_STREAMS"],
    [{ maxStreams: 5, perCaller: 2, perAddress: 5 }, { address: "b" }, "MAX_WATCH_STREAMS_PER_CALLER"],
    [{ maxStreams: 5, perCaller: 5, perAddress: 2 }, { tenant: "b" }, "MAX_WATCH_STREAMS_PER_ADDRESS"],
  ])("refuses a stream past %o with resource_exhausted naming the bound", async (bounds, third, name) => {
    const { hub, call } = setup(bounds);
    hub.watch(call, { tenant: "a", address: "x" }, recorder().listener);
    const second = hub.watch(call, { tenant: "a", address: "x" }, recorder().listener);
    let error: unknown;
    try {
      hub.watch(call, { tenant: "a", address: "x", ...third }, recorder().listener);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.ResourceExhausted);
    expect((error as ConnectError).rawMessage).toContain(name);
    second.close();
    expect(() => hub.watch(call, { tenant: "a", address: "x" }, recorder().listener)).not.toThrow();
    expect(hub.open).toBe(2);
    await settle();
  });

  it("ends every stream with unavailable at shutdown and refuses new ones", async () => {
    const { hub, call, refresh, state } = setup();
    const seen = recorder();
    hub.watch(call, {}, seen.listener);
    await settle();
    hub.close();
    expect(seen.ends.map((e) => e.code)).toEqual([Code.Unavailable]);
    state.total = 9;
    await refresh();
    expect(seen.totals).toEqual([1]);
    expect(hub.open).toBe(0);
    expect(() => hub.watch(call, {}, recorder().listener)).toThrow(/shutting down/);
  });

  it("sends nothing more to a stream the transport closed, and frees its place", async () => {
    const { hub, call, refresh, state } = setup();
    const seen = recorder();
    const stream = hub.watch(call, {}, seen.listener);
    await settle();
    stream.close();
    state.total = 3;
    await refresh();
    expect(seen.totals).toEqual([1]);
    expect(seen.ends).toEqual([]);
    expect(hub.open).toBe(0);
  });
});
