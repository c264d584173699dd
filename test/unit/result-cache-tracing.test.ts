// The result cache's spans, with a recording Tracing: a computation is a span
// of the call that started it, a call that joins it has a span linked to
// it, and a refresh by warming is a root span of its own, whatever call is
// current when warming runs.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createResultCache, type CachePolicy, type Compute } from "../../src/cache/index.js";
import { fakeClock } from "../support/fake-time.js";
import { recordingTracing, type RecordedSpan } from "../support/recording-tracing.js";

const SECOND = 1000;
const policy: CachePolicy = { ttlMs: 900 * SECOND, warmMs: 300 * SECOND, label: "usage.api-counts" };

afterEach(() => vi.useRealTimers());

function setup() {
  // The cache's time is Date.now() (node-cache's); refresh pacing is performance.now() and timers.
  const clock = fakeClock(0, ["Date", "performance", "setTimeout", "clearTimeout"]);
  const tracing = recordingTracing();
  const cache = createResultCache<string>({ sweepIntervalMs: 0, jitter: 0, tracing });
  /** The span current when each computation started. */
  const startedIn: (RecordedSpan | undefined)[] = [];
  let release!: () => void;
  let gate = Promise.resolve();
  const compute: Compute<string> = async () => {
    startedIn.push(tracing.current());
    await gate;
    return { value: "rows", bytes: 4 };
  };
  const hold = () => (gate = new Promise<void>((resolve) => (release = resolve)));
  return { clock, tracing, cache, compute, startedIn, hold, release: () => release() };
}

describe("result cache spans", () => {
  it("computes a miss in a child span of the calling call, and a hit makes no span", async () => {
    const { tracing, cache, compute, startedIn } = setup();
    const call = tracing.startCall("usage.api-counts", () => undefined, {});
    await tracing.within(call, () => cache.get("k", policy, compute));
    const computation = tracing.spans.find((s) => s.name === "computation")!;
    expect(computation).toMatchObject({ parent: call, kind: "child", ends: 1, failure: undefined });
    expect(computation.attributes["sqe.endpoint"]).toBe("usage.api-counts");
    expect(startedIn).toEqual([computation]);
    const second = tracing.startCall("usage.api-counts", () => undefined, {});
    await tracing.within(second, () => cache.get("k", policy, compute));
    expect(tracing.spans.filter((s) => s.parent === second)).toEqual([]);
  });

  it("gives a call that joins a running computation a span of its own, linked to the computation", async () => {
    const { tracing, cache, compute, startedIn, hold, release } = setup();
    hold();
    const first = tracing.startCall("usage.api-counts", () => undefined, {});
    const second = tracing.startCall("usage.api-counts", () => undefined, {});
    const answers = [
      tracing.within(first, () => cache.get("k", policy, compute)),
      tracing.within(second, () => cache.get("k", policy, compute)),
    ];
    release();
    await Promise.all(answers);
    expect(startedIn).toHaveLength(1);
    const computation = tracing.spans.find((s) => s.name === "computation")!;
    const joined = tracing.spans.find((s) => s.name === "join computation")!;
    expect(computation.parent).toBe(first);
    expect(joined).toMatchObject({ parent: second, links: [computation], ends: 1 });
    expect(joined.attributes["sqe.computation.joined"]).toBe(true);
  });

  it("refreshes by warming in a root span, not in the call that happens to be current", async () => {
    const { clock, tracing, cache, compute, startedIn } = setup();
    const call = tracing.startCall("usage.api-counts", () => undefined, {});
    await tracing.within(call, () => cache.get("k", policy, compute));
    clock.set(1 * SECOND);
    cache.peek("k", policy);
    clock.set(300 * SECOND);
    const other = tracing.startCall("usage.api-counts", () => undefined, {});
    await tracing.within(other, () => cache.runWarming());
    const refresh = tracing.spans.find((s) => s.name === "refresh usage.api-counts")!;
    expect(refresh).toMatchObject({ kind: "root", parent: undefined, links: [], ends: 1, failure: undefined });
    expect(refresh.attributes).toMatchObject({ "sqe.endpoint": "usage.api-counts", "sqe.cache": "refresh" });
    expect(startedIn.at(-1)).toBe(refresh);
  });

  it("marks a failed refresh's span failed", async () => {
    const { clock, tracing, cache, compute } = setup();
    await cache.get("k", policy, compute, {
      refresh: async () => {
        throw new Error("warehouse unreachable");
      },
    });
    cache.peek("k", policy);
    clock.set(300 * SECOND);
    await cache.runWarming();
    expect(tracing.spans.find((s) => s.kind === "root")).toMatchObject({ failure: "warehouse unreachable", ends: 1 });
  });
});
