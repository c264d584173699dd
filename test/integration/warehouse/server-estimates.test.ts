// Estimates on a ClickHouse server through the real service: `dry_run=1`
// answers EXPLAIN ESTIMATE's figures, and a call whose estimate passes the
// rows limit is refused before it runs. Runs only when CLICKHOUSE_URL is set
// (docs/commands.md, "Testing against a ClickHouse server"); otherwise
// reported as skipped. The log table is merged to one part a day and its
// merges stopped, so the parts the estimate counts stay put.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, openWarehouse, seedDemoData, type Warehouse } from "../../../src/warehouse/index.js";
import { serverCredentials } from "../../support/server-credentials.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const url = process.env.CLICKHOUSE_URL;
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);

describe.skipIf(url === undefined)("estimates on a ClickHouse server (skipped: CLICKHOUSE_URL is not set)", () => {
  const database = `sqe_test_${randomUUID().replaceAll("-", "")}`;
  let admin: Warehouse;
  let warehouse: Warehouse;
  let server: TestServer;

  beforeAll(async () => {
    admin = await openWarehouse({ kind: "server", url: url!, ...serverCredentials, database: "default" });
    await admin.client.command({ query: "CREATE DATABASE {db:Identifier}", query_params: { db: database } });
    warehouse = await openWarehouse({ kind: "server", url: url!, ...serverCredentials, database });
    await migrate(warehouse.client);
    await seedDemoData(warehouse.client, { now: NOW });
    await warehouse.client.command({ query: "OPTIMIZE TABLE edge_logs FINAL" });
    await warehouse.client.command({ query: "SYSTEM STOP MERGES edge_logs" });
    server = await startTestServer(warehouse, NOW, { readLimits: { maxRowsToRead: 30_000 } });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await warehouse?.close();
    await admin?.client.command({ query: "DROP DATABASE IF EXISTS {db:Identifier}", query_params: { db: database } });
    await admin?.close();
  });

  /** Rows and count of the parts of edge_logs whose latest row is at `start` or later. */
  async function partsFrom(start: string): Promise<{ rows: number; parts: number }> {
    const result = await warehouse.client.query({
      query: `SELECT toUInt64(sum(part_rows)) AS rows, toUInt64(count()) AS parts
              FROM (SELECT _part, count() AS part_rows, max(timestamp) AS latest FROM edge_logs GROUP BY _part)
              WHERE latest >= {start:DateTime64(6, 'UTC')}`,
      query_params: { start },
      format: "JSONEachRow",
    });
    const [row] = await result.json<{ rows: number | string; parts: number | string }>();
    return { rows: Number(row!.rows), parts: Number(row!.parts) };
  }

  const get = (query: string) =>
    fetch(`${server.url}/api/endpoints/usage.api-counts?project=supabase&${query}`, {
      headers: { "x-api-key": TEST_API_KEY },
    });

  it("answers a dry run with the rows and parts of the parts the window reads", async () => {
    const expected = await partsFrom("2026-11-13 12:00:00");
    const response = await get("interval=daily&dry_run=1");
    expect(response.status).toBe(200);
    const { estimate } = (await response.json()) as { estimate: { rows: number; parts: number; marks: number } };
    expect(estimate).toMatchObject(expected);
    expect(estimate.marks).toBeGreaterThanOrEqual(expected.parts);
  });

  it("refuses a call whose estimate passes the limit, the estimate in the message", async () => {
    const { rows, parts } = await partsFrom("2026-11-13 12:00:00");
    const response = await get("interval=daily");
    expect(response.status).toBe(429);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("resource_exhausted");
    expect(error.message).toMatch(
      new RegExp(
        `^rows to read past the limit of 30000 set by the service's default \\(estimated ${rows} rows in ${parts} parts, \\d+ marks\\)$`,
      ),
    );
  });
});
