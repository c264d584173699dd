// One check of the three saved queries on a fresh schema, shared by the
// tests of the server and cluster paths: inserts a few rows, then runs each
// query through the data path and compares with values worked out by hand.
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { expect } from "vitest";
import type { InvocationStatsRow } from "../../src/gen/functions/v1/functions_pb.js";
import type { LogRecord } from "../../src/gen/logs/v1/logs_pb.js";
import type { ApiCountsRow } from "../../src/gen/usage/v1/usage_pb.js";
import type { LogTable } from "../../src/warehouse/index.js";
import { edgeRow, functionEdgeRow, ts } from "./embedded-warehouse.js";
import type { createQueryStack } from "./query-stack.js";

const HOUR = 3_600_000;

/** Inserts rows of project `srv` at `now` with `insert`, then checks the three saved queries' answers. */
export async function expectThreeSavedQueries(
  stack: ReturnType<typeof createQueryStack>,
  now: number,
  insert: (table: LogTable, rows: object[]) => Promise<void>,
): Promise<void> {
  await insert("function_edge_logs", [
    functionEdgeRow({ project: "srv", functionId: "f", timestamp: ts(now - HOUR), executionTimeMs: 4, status: 500 }),
    functionEdgeRow({ project: "srv", functionId: "f", timestamp: ts(now - HOUR), executionTimeMs: 8 }),
  ]);
  await insert("edge_logs", [edgeRow({ project: "srv", path: "/rest/v1/rpc/auth", timestamp: ts(now - 60_000) })]);

  const stats = await stack.run<InvocationStatsRow>("functions.invocation-stats", { project: "srv" });
  expect(stats.map((r) => [timestampMs(r.timestamp!), r.count, r.errorCount, r.avgExecutionTime])).toEqual([
    [Math.floor((now - HOUR) / HOUR) * HOUR, 2n, 1n, 6],
  ]);
  const usage = await stack.run<ApiCountsRow>("usage.api-counts", { project: "srv\\.supabase", interval: "hourly" });
  expect(usage.map((r) => [r.totalRestRequests, r.totalAuthRequests, r.totalStorageRequests])).toEqual([[1n, 1n, 0n]]);
  const logs = await stack.run<LogRecord>("logs.all", { project: "srv" });
  expect(logs).toHaveLength(1);
}
