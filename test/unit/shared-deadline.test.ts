// Whose deadline a cached computation that callers share runs to: the
// service's (a server stops a query nobody waits for), or, where an abandoned
// query runs on (the embedded engine), the latest deadline of the callers
// waiting when it gets its turn, with its result kept once it has run.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createResultCache } from "../../src/cache/index.js";
import {
  createEndpointRegistry,
  createEndpointService,
  savedQueryServices,
  type CallContext,
  type ComputedResponse,
} from "../../src/endpoints/index.js";
import type { QueryExecutor } from "../../src/executor/index.js";
import { fakeClock, settled } from "../support/fake-time.js";

const registry = createEndpointRegistry({ services: savedQueryServices });
// Fake timers: deadlines are performance.now() and setTimeout, moved on by the test, never slept.
beforeEach(() => fakeClock(0, ["Date", "performance", "setTimeout", "clearTimeout"]));
afterEach(() => vi.useRealTimers());
const sleep = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/**
 * An executor whose queries get their turn after `turnMs` and take `workMs`,
 * failing at the engine's deadline when that is shorter, as the engine does;
 * once a query has its turn the engine goes on with it whatever happens.
 */
function setup(
  sharedDeadline: "service" | "callers",
  { turnMs = 0, workMs, sharedTimeoutMs = 30_000 }: { turnMs?: number; workMs: number; sharedTimeoutMs?: number },
) {
  const timeouts: (number | undefined)[] = [];
  const engineDeadlines: number[] = [];
  const executor: QueryExecutor = {
    execute(_query, _params, options = {}) {
      timeouts.push(options.timeoutMs);
      const timeoutMs = options.timeoutMs ?? 30_000;
      return new Promise((resolve, reject) => {
        setTimeout(() => {
          if (options.signal?.aborted) return reject(new ConnectError("the caller went away", Code.Canceled));
          const engineMs = Math.min(options.engineTimeoutMs?.() ?? timeoutMs, timeoutMs);
          engineDeadlines.push(engineMs);
          // A caller's query is answered when it leaves; a shared one asked to finish is not.
          if (!options.finishOnceStarted)
            options.signal?.addEventListener("abort", () =>
              reject(new ConnectError("the caller went away", Code.Canceled)),
            );
          if (engineMs < workMs)
            setTimeout(
              () => reject(new ConnectError("query ran past its deadline", Code.DeadlineExceeded)),
              Math.max(0, engineMs),
            );
          else setTimeout(() => resolve({ rows: [], queryId: "q", durationMs: workMs }), workMs);
        }, turnMs);
      });
    },
  };
  const cache = createResultCache<ComputedResponse>({ sweepIntervalMs: 0 });
  const service = createEndpointService({ executor, cache, sharedTimeoutMs, sharedDeadline });
  const endpoint = registry.find("usage.api-counts")!;
  const run = (context: CallContext) =>
    outcome(
      service.run(endpoint, create(endpoint.method.input, { project: "p", interval: "daily" } as never), context),
    );
  return { timeouts, engineDeadlines, run };
}

const outcome = (call: Promise<{ cache?: { status: string } }>) =>
  call.then(
    (result) => result.cache?.status,
    (error: unknown) => (error instanceof ConnectError ? Code[error.code] : String(error)),
  );

describe("the deadline of a shared computation", () => {
  it("is the service's when the warehouse stops what nobody waits for", async () => {
    const { timeouts, run } = setup("service", { workMs: 20 });
    expect(await settled(run({ timeoutMs: 5 }))).toBe("MISS");
    expect(timeouts).toEqual([30_000]);
  });

  it("is its one caller's where an abandoned query runs on, and is not started again for it", async () => {
    const { engineDeadlines, run } = setup("callers", { workMs: 200 });
    expect(await settled(run({ timeoutMs: 50 }))).toBe("DeadlineExceeded");
    await sleep(250);
    expect(engineDeadlines).toHaveLength(1);
    expect(engineDeadlines[0]).toBeLessThanOrEqual(50);
    expect(engineDeadlines[0]).toBeGreaterThan(0);
  });

  it("is the latest of the callers of the starter's key waiting when it gets its turn", async () => {
    const { engineDeadlines, run } = setup("callers", { turnMs: 30, workMs: 200 });
    const first = run({ timeoutMs: 50 });
    await sleep(5);
    const joiner = run({ timeoutMs: 2_000 });
    expect([await settled(first), await settled(joiner)]).toEqual(["DeadlineExceeded", "MISS"]);
    // One query, given the joiner's time (less the 30 ms before the turn), not the first caller's 50 ms.
    expect(engineDeadlines).toHaveLength(1);
    expect(engineDeadlines[0]).toBeGreaterThan(1_000);
    expect(engineDeadlines[0]).toBeLessThan(2_000);
  });

  it("is not stretched by another key's caller: that one asks again, on its own key's turn", async () => {
    const { engineDeadlines, run } = setup("callers", { turnMs: 30, workMs: 200 });
    const first = run({ timeoutMs: 50, tenant: "a" });
    await sleep(5);
    const joiner = run({ timeoutMs: 2_000, tenant: "b" });
    expect([await settled(first), await settled(joiner)]).toEqual(["DeadlineExceeded", "MISS"]);
    expect(engineDeadlines).toHaveLength(2);
    expect(engineDeadlines[0]).toBeLessThanOrEqual(50);
    expect(engineDeadlines[1]).toBeGreaterThan(1_000);
  });

  it("counts a caller's deadline as at most the service's longest, whatever the caller asks", async () => {
    const { engineDeadlines, run } = setup("callers", { workMs: 2_000, sharedTimeoutMs: 400 });
    const first = run({ timeoutMs: 60_000 });
    await sleep(200);
    const joiner = run({ timeoutMs: 60_000 });
    expect([await settled(first), await settled(joiner)]).toEqual(["DeadlineExceeded", "DeadlineExceeded"]);
    // The joiner asks again at 400 ms with what is left of its 400 ms from 200 ms in: about 200 ms, not another 400.
    expect(engineDeadlines).toHaveLength(2);
    expect(engineDeadlines[0]).toBeLessThanOrEqual(400);
    expect(engineDeadlines[1]).toBeLessThan(300);
  });

  it("lets a caller who joined a running one and still has time when it runs out ask again with what is left of its own", async () => {
    const { engineDeadlines, run } = setup("callers", { workMs: 200 });
    const first = run({ timeoutMs: 50 });
    await sleep(10);
    const joiner = run({ timeoutMs: 2_000 });
    expect([await settled(first), await settled(joiner)]).toEqual(["DeadlineExceeded", "MISS"]);
    expect(engineDeadlines).toHaveLength(2);
    expect(engineDeadlines[0]).toBeLessThanOrEqual(50);
    expect(engineDeadlines[1]).toBeGreaterThan(1_000);
    expect(engineDeadlines[1]).toBeLessThan(2_000);
  });

  it("keeps the result of a query whose callers all left once it ran, for the next caller", async () => {
    const { engineDeadlines, run } = setup("callers", { workMs: 100 });
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 20);
    expect(await settled(run({ timeoutMs: 1_000, signal: caller.signal }))).toBe("Canceled");
    await sleep(150);
    expect(await settled(run({ timeoutMs: 1_000 }))).toBe("HIT");
    expect(engineDeadlines).toHaveLength(1);
  });
});
