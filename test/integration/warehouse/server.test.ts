// The same schema and saved queries on a real ClickHouse server. Runs only
// when CLICKHOUSE_URL is set (see README, "Testing against a ClickHouse
// server"); otherwise reported as skipped.
import { randomUUID } from "node:crypto";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createQueryExecutor } from "../../../src/executor/index.js";
import type { InvocationStatsRow } from "../../../src/gen/functions/v1/functions_pb.js";
import type { LogRecord } from "../../../src/gen/logs/v1/logs_pb.js";
import type { ApiCountsRow } from "../../../src/gen/usage/v1/usage_pb.js";
import { migrate, openWarehouse, type Warehouse } from "../../../src/warehouse/index.js";
import { edgeRow, functionEdgeRow, insertRows, ts } from "../../support/embedded-warehouse.js";
import { createQueryStack } from "../../support/query-stack.js";

const url = process.env.CLICKHOUSE_URL;
const NOW = Date.UTC(2026, 10, 20, 12, 34, 56, 789);
const HOUR = 3_600_000;

describe.skipIf(url === undefined)("on a ClickHouse server (skipped: CLICKHOUSE_URL is not set)", () => {
  const database = `sqe_test_${randomUUID().replaceAll("-", "")}`;
  const credentials = {
    username: process.env.CLICKHOUSE_USER ?? "default",
    password: process.env.CLICKHOUSE_PASSWORD ?? "",
  };
  let admin: Warehouse;
  let warehouse: Warehouse;
  let stack: ReturnType<typeof createQueryStack>;

  beforeAll(async () => {
    admin = await openWarehouse({ kind: "server", url: url!, ...credentials, database: "default" });
    await admin.client.command({ query: "CREATE DATABASE {db:Identifier}", query_params: { db: database } });
    warehouse = await openWarehouse({ kind: "server", url: url!, ...credentials, database });
    stack = createQueryStack(warehouse, NOW);
  });
  afterAll(async () => {
    await warehouse?.close();
    await admin?.client.command({ query: "DROP DATABASE IF EXISTS {db:Identifier}", query_params: { db: database } });
    await admin?.close();
  });

  it("applies the migrations once", async () => {
    const first = await migrate(warehouse.client);
    const second = await migrate(warehouse.client);
    expect(first.applied.length).toBeGreaterThan(0);
    expect(second.applied).toEqual([]);
  });

  it("runs the three saved queries", async () => {
    await insertRows(warehouse, "function_edge_logs", [
      functionEdgeRow({ project: "srv", functionId: "f", timestamp: ts(NOW - HOUR), executionTimeMs: 4, status: 500 }),
      functionEdgeRow({ project: "srv", functionId: "f", timestamp: ts(NOW - HOUR), executionTimeMs: 8 }),
    ]);
    await insertRows(warehouse, "edge_logs", [
      edgeRow({ project: "srv", path: "/rest/v1/rpc/auth", timestamp: ts(NOW - 60_000) }),
    ]);

    const stats = await stack.run<InvocationStatsRow>("functions.invocation-stats", { project: "srv" });
    expect(stats.map((r) => [timestampMs(r.timestamp!), r.count, r.errorCount, r.avgExecutionTime])).toEqual([
      [Math.floor((NOW - HOUR) / HOUR) * HOUR, 2n, 1n, 6],
    ]);
    const usage = await stack.run<ApiCountsRow>("usage.api-counts", { project: "srv\\.supabase", interval: "hourly" });
    expect(usage.map((r) => [r.totalRestRequests, r.totalAuthRequests, r.totalStorageRequests])).toEqual([[1n, 1n, 0n]]);
    const logs = await stack.run<LogRecord>("logs.all", { project: "srv" });
    expect(logs).toHaveLength(1);
  });
});

describe.skipIf(url === undefined)("aborted queries on a ClickHouse server (skipped: CLICKHOUSE_URL is not set)", () => {
  it("stops a query past its deadline with KILL QUERY", async () => {
    const credentials = { username: process.env.CLICKHOUSE_USER ?? "default", password: process.env.CLICKHOUSE_PASSWORD ?? "" };
    const warehouse = await openWarehouse({ kind: "server", url: url!, ...credentials, database: "default" });
    const executor = createQueryExecutor({ client: warehouse.client, killAbortedQueries: true });
    const slow = { name: "test.slow", sql: "SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) = 0", maxRows: 1 };
    const error = await executor.execute(slow, {}, { timeoutMs: 500 }).catch((e: unknown) => e);
    expect((error as { code: unknown }).code).toBe(Code.DeadlineExceeded);
    // The kill is asynchronous: give the server a moment, then no such query may run.
    let running = 1;
    for (let i = 0; i < 50 && running > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const result = await warehouse.client.query({
        query: "SELECT count() AS n FROM system.processes WHERE query LIKE '%numbers(100000000000)%' AND query NOT LIKE '%system.processes%'",
        format: "JSONEachRow",
      });
      running = Number((await result.json<{ n: number | string }>())[0]?.n);
    }
    expect(running).toBe(0);
    await warehouse.close();
  });
});
