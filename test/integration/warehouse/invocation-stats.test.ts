// functions.invocation-stats over the embedded warehouse with a pinned clock:
// buckets, interval units, the function filter, error counts and percentiles.
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { beforeAll, describe, expect, it } from "vitest";
import type { InvocationStatsRow } from "../../../src/gen/functions/v1/functions_pb.js";
import { functionEdgeRow, insertRows, ts } from "../../support/embedded-warehouse.js";
import { useQueryStack } from "../../support/query-stack.js";
import { DAY, HOUR, MINUTE, SECOND, trunc } from "../../support/time.js";

const NOW = Date.UTC(2026, 10, 20, 12, 34, 56, 789);

const setup = useQueryStack(NOW);

const run = (params: Record<string, string>) =>
  setup.stack().run<InvocationStatsRow>("functions.invocation-stats", params);

describe("functions.invocation-stats buckets", () => {
  // interval (undefined = absent), window, truncation unit
  const cases: [string | undefined, number, number][] = [
    ["5min", 5 * MINUTE, SECOND],
    ["15min", 15 * MINUTE, MINUTE],
    ["1hr", HOUR, MINUTE],
    ["1day", DAY, HOUR],
    ["7day", 7 * DAY, DAY],
    ["weekly", DAY, HOUR],
    [undefined, DAY, HOUR],
  ];

  it.each(cases)(
    "interval %s counts from trunc(now - window) to the end of trunc(now) in its unit",
    async (interval, window, unit) => {
      const project = `buckets_${interval ?? "absent"}`;
      const first = trunc(NOW - window, unit);
      const last = trunc(NOW, unit);
      const at = (ms: number, micros = 0, executionTimeMs = 10) =>
        functionEdgeRow({ project, functionId: "f1", timestamp: ts(ms, micros), executionTimeMs });
      await insertRows(setup.warehouse(), "function_edge_logs", [
        at(first, 0, 11), // first bucket, included
        at(first - 1, 999, 99), // one microsecond before it, excluded
        at(first + 2 * unit + unit / 2, 0, 22), // a bucket in between
        at(last + unit - 1, 999, 33), // last microsecond of the last bucket, included
        at(last + unit, 0, 99), // the next bucket is in the future, excluded
      ]);

      const rows = await run({ project, ...(interval === undefined ? {} : { interval }) });

      expect(rows.map((r) => timestampMs(r.timestamp!))).toEqual([first, first + 2 * unit, last]);
      expect(rows.map((r) => r.minExecutionTime)).toEqual([11, 22, 33]);
      expect(rows.map((r) => r.count)).toEqual([1n, 1n, 1n]);
    },
  );

  it("leaves out buckets with no record of the project", async () => {
    const project = "sparse";
    await insertRows(setup.warehouse(), "function_edge_logs", [
      functionEdgeRow({ project, functionId: "f1", timestamp: ts(NOW - 3 * HOUR), executionTimeMs: 5 }),
      functionEdgeRow({ project: "someone_else", functionId: "f1", timestamp: ts(NOW - 2 * HOUR), executionTimeMs: 5 }),
    ]);
    const rows = await run({ project, interval: "1day" });
    expect(rows.map((r) => timestampMs(r.timestamp!))).toEqual([trunc(NOW - 3 * HOUR, HOUR)]);
  });
});

describe("functions.invocation-stats filters and aggregates", () => {
  beforeAll(async () => {
    const rows = [];
    for (const [functionId, n] of [
      ["f1", 2],
      ["f2", 3],
    ] as const) {
      for (let i = 0; i < n; i++) {
        rows.push(
          functionEdgeRow({ project: "filtered", functionId, timestamp: ts(NOW - 10 * MINUTE), executionTimeMs: 1 }),
        );
      }
    }
    await insertRows(setup.warehouse(), "function_edge_logs", rows);
  });

  it.each([
    ["given", { function_id: "f1" }, [2n]],
    ["empty", { function_id: "" }, [5n]],
    ["absent", {}, [5n]],
    ["of no record", { function_id: "f9" }, []],
  ] as const)("with function_id %s counts the matching records", async (_label, filter, counts) => {
    const rows = await run({ project: "filtered", interval: "1hr", ...filter });
    expect(rows.map((r) => r.count)).toEqual(counts);
  });

  it("counts status codes of 400 and above as errors", async () => {
    const statuses = [200, 204, 399, 400, 404, 500, 503];
    await insertRows(
      setup.warehouse(),
      "function_edge_logs",
      statuses.map((status) =>
        functionEdgeRow({
          project: "errors",
          functionId: "f1",
          timestamp: ts(NOW - MINUTE),
          executionTimeMs: 1,
          status,
        }),
      ),
    );
    const [row] = await run({ project: "errors", interval: "1hr" });
    expect(row?.count).toBe(BigInt(statuses.length));
    expect(row?.errorCount).toBe(BigInt(statuses.filter((s) => s >= 400).length));
  });

  it("gives min, max, average and percentiles of execution time near the exact values", async () => {
    // A long-tailed sample: 1000 values, deterministic.
    const times = Array.from({ length: 1000 }, (_, i) => Math.round(Math.exp(2 + (4 * i) / 1000) * 100) / 100);
    const shuffled = [...times].sort((a, b) => Math.sin(a) - Math.sin(b));
    await insertRows(
      setup.warehouse(),
      "function_edge_logs",
      shuffled.map((executionTimeMs, i) =>
        functionEdgeRow({ project: "percentiles", functionId: "f1", timestamp: ts(NOW - HOUR + i), executionTimeMs }),
      ),
    );
    const sorted = [...times].sort((a, b) => a - b);
    const exactQuantile = (q: number) => sorted[Math.ceil(q * sorted.length) - 1]!;
    const mean = times.reduce((a, b) => a + b, 0) / times.length;

    const [row] = await run({ project: "percentiles", interval: "1day" });

    expect(row?.count).toBe(1000n);
    expect(row?.minExecutionTime).toBe(sorted[0]);
    expect(row?.maxExecutionTime).toBe(sorted[999]);
    expect(row?.avgExecutionTime).toBeCloseTo(mean, 6);
    // Approximate percentiles: within 2% of the exact nearest-rank values.
    expect(Math.abs(row!.p95ExecutionTime - exactQuantile(0.95))).toBeLessThan(exactQuantile(0.95) * 0.02);
    expect(Math.abs(row!.p99ExecutionTime - exactQuantile(0.99))).toBeLessThan(exactQuantile(0.99) * 0.02);
  });

  it("orders rows by timestamp ascending", async () => {
    const offsets = [5, 1, 3];
    await insertRows(
      setup.warehouse(),
      "function_edge_logs",
      offsets.map((h) =>
        functionEdgeRow({ project: "ordered", functionId: "f1", timestamp: ts(NOW - h * HOUR), executionTimeMs: 1 }),
      ),
    );
    const rows = await run({ project: "ordered" });
    expect(rows.map((r) => timestampMs(r.timestamp!))).toEqual([5, 3, 1].map((h) => trunc(NOW - h * HOUR, HOUR)));
  });
});
