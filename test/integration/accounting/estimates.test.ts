// Estimates through the real server over the demo data, on the embedded
// engine: with the default rows limit of 30,000, a daily usage.api-counts
// call is refused before it runs, its estimate in the message, while an
// hourly one runs; `dry_run=1` answers the estimate after the usual checks,
// without a warehouse query. The expected figures are the whole parts of
// edge_logs holding a row of the window, counted from the rows themselves
// (the parts' time ranges are what lets the engine skip the others).
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UsageService } from "../../../src/gen/usage/v1/usage_pb.js";
import { seedDemoData, type Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);

let warehouse: Warehouse;
let server: TestServer;
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await seedDemoData(warehouse.client, { now: NOW });
  server = await startTestServer(warehouse, NOW, { readLimits: { maxRowsToRead: 30_000 } });
}, 120_000);
afterAll(async () => {
  await server?.close();
  await warehouse?.close();
});

/** Rows and count of the parts of edge_logs whose latest row is at `start` or later: those a window from `start` reads. */
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

const get = (query: string, key = TEST_API_KEY) =>
  fetch(`${server.url}/api/endpoints/usage.api-counts?${query}`, { headers: { "x-api-key": key } });

/** The count of warehouse queries of usage.api-counts in the metrics. */
async function warehouseQueries(): Promise<number> {
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  const line = /^sqe_warehouse_query_duration_seconds_count\{endpoint="usage\.api-counts"\} (\d+)/m.exec(metrics);
  return line === null ? 0 : Number(line[1]);
}

describe("a dry run (dry_run=1)", () => {
  it("answers the rows, parts and marks of the days the window reads, past the limit too, without a query", async () => {
    // daily: the 7 days before NOW; hourly: the hour before.
    const daily = await partsFrom("2026-11-13 12:00:00");
    const hourly = await partsFrom("2026-11-20 11:00:00");
    const before = await warehouseQueries();
    for (const [interval, expected] of [
      ["daily", daily],
      ["hourly", hourly],
    ] as const) {
      const response = await get(`project=supabase&interval=${interval}&dry_run=1`);
      expect(response.status, interval).toBe(200);
      expect(response.headers.get("cache-control")).toBe("no-store");
      const { estimate } = (await response.json()) as { estimate: { rows: number; parts: number; marks: number } };
      expect(estimate).toMatchObject(expected);
      // One mark a part here: each day's parts are smaller than a granule.
      expect(estimate.marks).toBe(expected.parts);
    }
    expect(await warehouseQueries()).toBe(before);
    // Nothing was cached: the first real call is a miss.
    expect((await get("project=supabase&interval=hourly")).headers.get("x-cache")).toBe("MISS");
  });

  it("answers an RPC call with x-dry-run: 1 with the same estimate as metadata and an empty message", async () => {
    const daily = await partsFrom("2026-11-13 12:00:00");
    const before = await warehouseQueries();
    const transport = createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" });
    let received = new Headers();
    const response = await createClient(UsageService, transport).getApiCounts(
      { project: "supabase", interval: "daily" },
      { headers: { "x-api-key": TEST_API_KEY, "x-dry-run": "1" }, onHeader: (h) => (received = h) },
    );
    expect(response.result).toEqual([]);
    expect([
      received.get("x-estimate-rows"),
      received.get("x-estimate-parts"),
      received.get("x-estimate-marks"),
    ]).toEqual([String(daily.rows), String(daily.parts), String(daily.parts)]);
    expect(await warehouseQueries()).toBe(before);
  });

  it("checks the credential and the parameters first", async () => {
    expect((await get("project=supabase&interval=daily&dry_run=1", "wrong-key-0123456789")).status).toBe(401);
    const invalid = await get("project=supabase&interval=weekly&dry_run=1");
    expect(invalid.status).toBe(400);
    expect(JSON.stringify(await invalid.json())).toContain("interval must be one of");
  });

  it.each([
    ["dry_run=2", "dry_run must be 0 or 1"],
    ["dry_run=1&dry_run=1", "dry_run is given more than once"],
  ])("refuses %s", async (query, description) => {
    const response = await get(`project=supabase&interval=daily&${query}`);
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain(description);
  });

  it("runs the query as usual with dry_run=0", async () => {
    const response = await get("project=supabase&interval=minutely&dry_run=0");
    expect(response.status).toBe(200);
    expect(await response.json()).toHaveProperty("result");
  });
});

describe("a miss past the rows limit", () => {
  it("is refused before it runs, 429 resource_exhausted with the estimate, and counted as a read limit refusal", async () => {
    const { rows, parts } = await partsFrom("2026-11-13 12:00:00");
    const before = await warehouseQueries();
    const response = await get("project=supabase&interval=daily");
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBeNull();
    expect(((await response.json()) as { error: unknown }).error).toMatchObject({
      code: "resource_exhausted",
      message: `rows to read past the limit of 30000 set by the service's default (estimated ${rows} rows in ${parts} parts, ${parts} marks)`,
    });
    expect(await warehouseQueries()).toBe(before);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(
      /^sqe_read_limit_refusals_total\{endpoint="usage\.api-counts",limit="max_rows_to_read"\} [1-9]/m,
    );
  });
});
