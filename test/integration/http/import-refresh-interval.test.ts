// Refreshes after imports are coalesced: with 60 usage.api-counts results
// cached (and asked for), 20 one-row imports in a row refresh each of them
// once in the refresh interval, not once per import (1,200 warehouse
// queries), counted in /metrics.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";
import { edgeLogRow, importRows } from "../../support/watch-clients.js";

const cached = 60;
const imports = 20;
let warehouse: Warehouse;
let server: TestServer;

beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  // An interval longer than the test: every import after the first joins the refresh queued after it.
  server = await startTestServer(warehouse, NOW, { importBounds: { refreshIntervalMs: 600_000, refreshWaitMs: 200 } });
});
afterAll(async () => {
  await server?.close();
  await warehouse?.close();
});

/** The count of warehouse queries of `endpoint` in /metrics. */
async function warehouseQueries(endpoint: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text
    .split("\n")
    .find((l) => l.startsWith("sqe_warehouse_query_duration_seconds_count{") && l.includes(`endpoint="${endpoint}"`));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1));
}

async function apiCounts(project: string): Promise<void> {
  const response = await fetch(`${server.url}/api/endpoints/usage.api-counts?project=${project}&interval=hourly`, {
    headers: { authorization: `Bearer ${TEST_API_KEY}` },
  });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
}

describe("refreshes after a run of imports", () => {
  it("refresh each of 60 cached results once in the interval, not once per import", async () => {
    for (let i = 0; i < cached; i++) await apiCounts(`p${i}`);
    const before = await warehouseQueries("usage.api-counts");
    for (let i = 0; i < imports; i++) {
      await importRows(server.url, TEST_API_KEY, "edge_logs", [edgeLogRow(5_000 + i, NOW - 60_000)]);
    }
    // The first import's refresh of the 60 results, however long it takes to end.
    while ((await warehouseQueries("usage.api-counts")) - before < cached) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await warehouseQueries("usage.api-counts")) - before).toBe(cached);
  }, 120_000);
});
