// The same schema and saved queries on a real ClickHouse server. Runs only
// when CLICKHOUSE_URL is set (see docs/commands.md, "Testing against a ClickHouse
// server"); otherwise reported as skipped.
import { randomUUID } from "node:crypto";
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createQueryExecutor } from "../../../src/executor/index.js";
import { migrate, openWarehouse, type Warehouse } from "../../../src/warehouse/index.js";
import { insertRows } from "../../support/embedded-warehouse.js";
import { createQueryStack } from "../../support/query-stack.js";
import { expectThreeSavedQueries } from "../../support/three-saved-queries.js";
import { serverCredentials } from "../../support/server-credentials.js";

const url = process.env.CLICKHOUSE_URL;
const NOW = Date.UTC(2026, 10, 20, 12, 34, 56, 789);

describe.skipIf(url === undefined)("on a ClickHouse server (skipped: CLICKHOUSE_URL is not set)", () => {
  const database = `sqe_test_${randomUUID().replaceAll("-", "")}`;
  let admin: Warehouse;
  let warehouse: Warehouse;
  let stack: ReturnType<typeof createQueryStack>;

  beforeAll(async () => {
    admin = await openWarehouse({ kind: "server", url: url!, ...serverCredentials, database: "default" });
    await admin.client.command({ query: "CREATE DATABASE {db:Identifier}", query_params: { db: database } });
    warehouse = await openWarehouse({ kind: "server", url: url!, ...serverCredentials, database });
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
    await expectThreeSavedQueries(stack, NOW, (table, rows) => insertRows(warehouse, table, rows));
  });
});

describe.skipIf(url === undefined)(
  "query statistics on a ClickHouse server (skipped: CLICKHOUSE_URL is not set)",
  () => {
    it("reports the rows and bytes a query read", async () => {
      const warehouse = await openWarehouse({ kind: "server", url: url!, ...serverCredentials, database: "default" });
      try {
        const executor = createQueryExecutor({ client: warehouse.client });
        const result = await executor.execute(
          { name: "test.count", sql: "SELECT sum(number) AS n FROM numbers(1000)", maxRows: 1 },
          {},
        );
        // numbers(1000): 1000 rows of one UInt64 column, 8 bytes each.
        // The summary header's rows and bytes, with the warehouse's elapsed time from the JSON format.
        expect(result.statistics).toMatchObject({ rowsRead: 1000, bytesRead: 8000 });
        expect(result.statistics?.elapsedMs).toBeGreaterThanOrEqual(0);
      } finally {
        await warehouse.close();
      }
    });
  },
);

describe.skipIf(url === undefined)(
  "aborted queries on a ClickHouse server (skipped: CLICKHOUSE_URL is not set)",
  () => {
    it("stops a query past its deadline with KILL QUERY", async () => {
      const warehouse = await openWarehouse({ kind: "server", url: url!, ...serverCredentials, database: "default" });
      const executor = createQueryExecutor({ client: warehouse.client, killAbortedQueries: true });
      const slow = {
        name: "test.slow",
        sql: "SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) = 0",
        maxRows: 1,
      };
      const error = await executor.execute(slow, {}, { timeoutMs: 500 }).catch((e: unknown) => e);
      expect((error as { code: unknown }).code).toBe(Code.DeadlineExceeded);
      // The kill is asynchronous: give the server a moment, then no such query may run.
      let running = 1;
      for (let i = 0; i < 50 && running > 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const result = await warehouse.client.query({
          query:
            "SELECT count() AS n FROM system.processes WHERE query LIKE '%numbers(100000000000)%' AND query NOT LIKE '%system.processes%'",
          format: "JSONEachRow",
        });
        running = Number((await result.json<{ n: number | string }>())[0]?.n);
      }
      expect(running).toBe(0);
      await warehouse.close();
    });
  },
);
