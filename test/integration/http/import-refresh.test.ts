// The refresh after an import, through the real server: with many cached
// results of a saved query reading the table that nobody asked for within
// their warming period, the import answers at once, those results are
// dropped (the next call computes them), and the one still asked for is
// computed again with the new row.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const idleProjects = 150;
/** usage.api-counts is warmed every 300 s and lives 900 s: 400 s later an unasked result is idle but live. */
const laterMs = 400_000;

let warehouse: Warehouse;
let server: TestServer;

beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  server = await startTestServer(warehouse, NOW);
});
afterAll(async () => {
  await server?.close();
  await warehouse?.close();
});
afterEach(() => vi.useRealTimers());

async function apiCounts(project: string) {
  const response = await fetch(`${server.url}/api/endpoints/usage.api-counts?project=${project}&interval=hourly`, {
    headers: { authorization: `Bearer ${TEST_API_KEY}` },
  });
  const body = (await response.json()) as { result: { total_rest_requests: number }[] };
  return { cache: response.headers.get("x-cache"), rest: body.result.reduce((n, r) => n + r.total_rest_requests, 0) };
}

describe("an import with many idle cached results", () => {
  it("answers at once, drops the idle results and computes again the one asked for", async () => {
    for (let i = 0; i < idleProjects; i++) await apiCounts(`idle${i}`);
    const before = await apiCounts("rpc");
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + laterMs });
    expect((await apiCounts("rpc")).cache).toBe("HIT");
    const entries = server.app.cache.size.entries;
    expect(entries).toBeGreaterThanOrEqual(idleProjects + 1);

    const line = JSON.stringify({
      id: "7e0c1a52-9d4b-4f3e-8a61-5c2b0f9e4d17",
      timestamp: new Date(NOW - 5 * 60_000).toISOString(),
      event_message: "GET | 200 | /rest/v1/refreshed",
      project: "rpc",
      metadata: [
        {
          request: [{ method: "GET", path: "/rest/v1/refreshed", url: "https://rpc.supabase.co/rest/v1/refreshed" }],
          response: [{ status_code: 200 }],
        },
      ],
    });
    const started = performance.now();
    const answer = await fetch(`${server.url}/api/import/edge_logs`, {
      method: "POST",
      headers: { "x-api-key": TEST_API_KEY, "content-type": "application/x-ndjson" },
      body: `${line}\n`,
    });
    expect(answer.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1500);
    expect(server.app.cache.size.entries).toBe(entries - idleProjects);
    expect(await apiCounts("rpc")).toEqual({ cache: "HIT", rest: before.rest + 1 });
    expect((await apiCounts("idle0")).cache).toBe("MISS");
  });
});
