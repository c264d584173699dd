// A small data set shared by the transport tests, with its expected results
// worked out by hand (see the comments), at a pinned time.
import type { Warehouse } from "../../src/warehouse/index.js";
import { edgeRow, functionEdgeRow, insertRows, ts } from "./embedded-warehouse.js";

export const NOW = Date.UTC(2026, 10, 20, 12, 34, 56, 789);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const hour = (ms: number) => Math.floor(ms / HOUR) * HOUR;

export async function insertScenario(warehouse: Warehouse): Promise<void> {
  await insertRows(warehouse, "function_edge_logs", [
    functionEdgeRow({ project: "rpc", functionId: "f1", timestamp: ts(NOW - 30 * MINUTE), executionTimeMs: 10 }),
    functionEdgeRow({
      project: "rpc",
      functionId: "f1",
      timestamp: ts(NOW - 30 * MINUTE),
      executionTimeMs: 30,
      status: 500,
    }),
    functionEdgeRow({ project: "rpc", functionId: "f2", timestamp: ts(NOW - 3 * HOUR), executionTimeMs: 20 }),
  ]);
  await insertRows(warehouse, "edge_logs", [
    edgeRow({ project: "rpc", id: "e1", path: "/rest/v1/a", timestamp: ts(NOW - 10 * MINUTE) }),
    edgeRow({ project: "rpc", id: "e2", path: "/auth/v1/token", timestamp: ts(NOW - 20 * MINUTE) }),
    edgeRow({ project: "rpc", id: "e3", path: "/rest/v1/rpc/auth", timestamp: ts(NOW - 70 * MINUTE) }),
  ]);
}

/**
 * functions.invocation-stats for project rpc, interval 1day (hour buckets):
 * [bucket ms, count, error_count, min, max, avg]. f2's call 3 h ago alone in
 * its hour; f1's two calls (10 ms, 30 ms with status 500) 30 min ago.
 */
export const expectedInvocationStats = [
  [hour(NOW - 3 * HOUR), 1, 0, 20, 20, 20],
  [hour(NOW - 30 * MINUTE), 2, 1, 10, 30, 20],
] as const;

/**
 * usage.api-counts for URLs matching `//rpc\.`, hourly: e3 is 70 min old and
 * outside the hour; e1 counts as rest, e2 as auth. [bucket ms, rest, storage, auth, realtime].
 */
export const expectedApiCounts = [[hour(NOW - 10 * MINUTE), 1, 0, 1, 0]] as const;

/** logs.all for project rpc: all three edge records, newest first. */
export const expectedLogIds = ["e1", "e2", "e3"] as const;
