// Estimates in the endpoint service, with a fake estimator and executor: a
// miss under a rows limit refused before the executor is asked, its estimate
// kept under the result's key for the result's lifetime, a dry run answered
// from it, and the sums of EXPLAIN ESTIMATE's rows.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { createResultCache } from "../../src/cache/index.js";
import {
  createEndpointRegistry,
  createEndpointService,
  dryRunAnswer,
  savedQueryServices,
  type ComputedResponse,
} from "../../src/endpoints/index.js";
import { estimateOf, estimatePastReadLimit, type QueryEstimate, type QueryExecutor } from "../../src/executor/index.js";
import { fixedClock } from "../../src/observability/index.js";

const registry = createEndpointRegistry({ services: savedQueryServices });
const apiCounts = registry.find("usage.api-counts")!;
const logsAll = registry.find("logs.all")!;
const ttlMs = apiCounts.definition.cacheTtlSeconds * 1000;

function setup(estimate: QueryEstimate, maxRowsToRead = 1000) {
  const clock = fixedClock(Date.UTC(2026, 10, 20));
  const estimated: string[] = [];
  const executed: string[] = [];
  const refused: string[] = [];
  const executor: QueryExecutor = {
    async execute(query) {
      executed.push(query.name);
      return { rows: [], queryId: "q", durationMs: 1 };
    },
  };
  const service = createEndpointService({
    executor,
    cache: createResultCache<ComputedResponse>({ sweepIntervalMs: 0, jitter: 0 }),
    clock,
    defaultReadLimits: { maxRowsToRead },
    estimator: {
      async estimate(query) {
        estimated.push(query.name);
        return estimate;
      },
    },
    onEstimateRefusal: (endpoint) => refused.push(endpoint),
  });
  const prepare = (fields: Record<string, string>, endpoint = apiCounts) =>
    service.prepare(endpoint, create(endpoint.method.input, fields as never));
  return { clock, service, prepare, estimated, executed, refused };
}

const daily = { project: "p", interval: "daily" };

describe("a miss under a rows limit", () => {
  it("is refused before the executor is asked when the estimate passes the limit, the estimate in the message", async () => {
    const { service, prepare, executed, refused } = setup({ rows: 1001, parts: 3, marks: 5 });
    const error = await service.execute(prepare(daily)).catch((e: unknown) => ConnectError.from(e));
    expect(error).toMatchObject({
      code: Code.ResourceExhausted,
      rawMessage:
        "rows to read past the limit of 1000 set by the service's default (estimated 1001 rows in 3 parts, 5 marks)",
    });
    expect(executed).toEqual([]);
    expect(refused).toEqual(["usage.api-counts"]);
  });

  it("runs when the estimate is at the limit", async () => {
    const { service, prepare, executed } = setup({ rows: 1000, parts: 3, marks: 5 });
    await service.execute(prepare(daily));
    expect(executed).toEqual(["usage.api-counts"]);
  });

  it("asks for the estimate once per result lifetime under the result's key, and again after it", async () => {
    const { service, prepare, clock, estimated } = setup({ rows: 5000, parts: 1, marks: 1 });
    const refusal = () => service.execute(prepare(daily)).catch(() => "refused");
    expect(await refusal()).toBe("refused");
    clock.advance(ttlMs - 1);
    expect(await refusal()).toBe("refused");
    expect(await service.estimate(prepare(daily))).toEqual({ rows: 5000, parts: 1, marks: 1 });
    expect(estimated).toHaveLength(1);
    // Another key is estimated on its own.
    await service.estimate(prepare({ project: "p", interval: "hourly" }));
    expect(estimated).toHaveLength(2);
    clock.advance(1);
    expect(await refusal()).toBe("refused");
    expect(estimated).toHaveLength(3);
  });

  it("estimates a call without a cache entry (logs.all) each time", async () => {
    const { service, prepare, estimated } = setup({ rows: 10, parts: 1, marks: 1 });
    const call = prepare({ project: "p", project_tier: "FREE" }, logsAll);
    expect(call.cacheEntry).toBeUndefined();
    await service.estimate(call);
    await service.estimate(call);
    expect(estimated).toEqual(["logs.all", "logs.all"]);
  });
});

describe("a dry run", () => {
  it("answers the estimate past the limit too, never running the query", async () => {
    const { service, prepare, executed } = setup({ rows: 99_999, parts: 7, marks: 12 });
    const estimate = await service.estimate(prepare(daily));
    expect(dryRunAnswer(estimate)).toEqual({ estimate: { rows: 99_999, parts: 7, marks: 12 } });
    expect(executed).toEqual([]);
  });

  it("is unimplemented without an estimator", async () => {
    const service = createEndpointService({
      executor: { execute: async () => ({ rows: [], queryId: "", durationMs: 0 }) },
      // Before usage.api-counts' sunset, whatever the date the test runs on.
      clock: fixedClock(Date.UTC(2026, 10, 20)),
    });
    const call = service.prepare(apiCounts, create(apiCounts.method.input, daily as never));
    await expect(service.estimate(call)).rejects.toMatchObject({ code: Code.Unimplemented });
  });
});

describe("estimateOf", () => {
  it("sums the rows, parts and marks of every table read", () => {
    const rows = [
      { database: "default", table: "edge_logs", parts: 3, rows: 120, marks: 4 },
      { database: "default", table: "function_edge_logs", parts: "2", rows: "30", marks: "2" },
    ];
    expect(estimateOf(rows)).toEqual({ rows: 150, parts: 5, marks: 6 });
    expect(estimateOf([])).toEqual({ rows: 0, parts: 0, marks: 0 });
  });
});

describe("estimatePastReadLimit", () => {
  it("refuses nothing without a rows limit, whatever the bytes limit", () => {
    const estimate = { rows: 10 ** 9, parts: 1, marks: 1 };
    expect(estimatePastReadLimit(estimate, undefined)).toBeUndefined();
    expect(estimatePastReadLimit(estimate, { max_bytes_to_read: { value: 1, source: "default" } })).toBeUndefined();
  });

  it("names the limit and whose it is", () => {
    const limits = { max_rows_to_read: { value: 10, source: "credential" as const } };
    expect(estimatePastReadLimit({ rows: 11, parts: 2, marks: 3 }, limits)?.rawMessage).toBe(
      "rows to read past the limit of 10 set by the credential (estimated 11 rows in 2 parts, 3 marks)",
    );
  });
});
