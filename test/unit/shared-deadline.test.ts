// Whose deadline a cached computation that callers share runs to: the
// service's (a server stops a query nobody waits for) or the first caller's
// (the embedded engine runs an abandoned query on, so it must not outlive
// what its caller asked), with a joiner who still has time computing again.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { createResultCache } from "../../src/cache/index.js";
import { createEndpointRegistry, createEndpointService, savedQueryServices, type CallContext, type ComputedResponse } from "../../src/endpoints/index.js";
import type { QueryExecutor } from "../../src/executor/index.js";

const registry = createEndpointRegistry({ services: savedQueryServices });

/** An executor whose every query takes `workMs`, and fails at its deadline when that is shorter, as the engine does. */
function setup(sharedDeadline: "service" | "first caller", workMs: number) {
  const deadlines: (number | undefined)[] = [];
  const executor: QueryExecutor = {
    execute(_query, _params, options = {}) {
      deadlines.push(options.timeoutMs);
      const timeoutMs = options.timeoutMs ?? 30_000;
      return new Promise((resolve, reject) => {
        if (timeoutMs < workMs) setTimeout(() => reject(new ConnectError("query ran past its deadline", Code.DeadlineExceeded)), timeoutMs);
        else setTimeout(() => resolve({ rows: [], queryId: "q", durationMs: workMs }), workMs);
      });
    },
  };
  const cache = createResultCache<ComputedResponse>({ sweepIntervalMs: 0 });
  const service = createEndpointService({ executor, cache, sharedTimeoutMs: 30_000, sharedDeadline });
  const endpoint = registry.find("usage.api-counts")!;
  const run = (context: CallContext) => service.run(endpoint, create(endpoint.method.input, { project: "p", interval: "daily" } as never), context);
  return { deadlines, run };
}

const outcome = (call: Promise<{ cache?: { status: string } }>) =>
  call.then(
    (result) => result.cache?.status,
    (error: unknown) => (error instanceof ConnectError ? Code[error.code] : String(error)),
  );

describe("the deadline of a shared computation", () => {
  it("is the service's when the warehouse stops what nobody waits for", async () => {
    const { deadlines, run } = setup("service", 20);
    expect(await outcome(run({ timeoutMs: 5 }))).toBe("MISS");
    expect(deadlines).toEqual([30_000]);
  });

  it("is the first caller's where an abandoned query runs on", async () => {
    const { deadlines, run } = setup("first caller", 200);
    expect(await outcome(run({ timeoutMs: 50 }))).toBe("DeadlineExceeded");
    expect(deadlines).toHaveLength(1);
    expect(deadlines[0]).toBeLessThanOrEqual(50);
    expect(deadlines[0]).toBeGreaterThan(0);
  });

  it("lets a caller who joined and still has time compute again with what is left of its own", async () => {
    const { deadlines, run } = setup("first caller", 200);
    const first = outcome(run({ timeoutMs: 50 }));
    const joiner = outcome(run({ timeoutMs: 2_000 }));
    expect([await first, await joiner]).toEqual(["DeadlineExceeded", "MISS"]);
    // The first caller's computation, then the joiner's own, started once the first ran out (about 50 ms in).
    expect(deadlines).toHaveLength(2);
    expect(deadlines[1]).toBeLessThan(2_000);
    expect(deadlines[1]).toBeGreaterThan(1_000);
  });

  it("does not start again for the caller whose own deadline ran out", async () => {
    const { deadlines, run } = setup("first caller", 200);
    expect(await outcome(run({ timeoutMs: 30 }))).toBe("DeadlineExceeded");
    await new Promise((r) => setTimeout(r, 50));
    expect(deadlines).toHaveLength(1);
  });
});
