// A ClickHouse server that goes away and comes back, through a TCP proxy the
// test opens and shuts. Needs a real server: runs only when CLICKHOUSE_URL is
// set, and is reported as skipped otherwise.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { edgeRow, insertRows, ts } from "../../support/embedded-warehouse.js";
import { NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";
import { openProxiedDatabase, type ProxiedDatabase, type WarehouseProxy } from "../../support/warehouse-proxy.js";

const url = process.env.CLICKHOUSE_URL;

describe.skipIf(url === undefined)(
  "a warehouse that goes away and comes back (skipped: CLICKHOUSE_URL is not set)",
  () => {
    let database: ProxiedDatabase;
    let proxy: WarehouseProxy;
    let warehouse: Warehouse;
    let server: TestServer;

    beforeAll(async () => {
      ({ proxy, warehouse } = database = await openProxiedDatabase(url!, "sqe_outage_"));
      await insertRows(warehouse, "edge_logs", [edgeRow({ project: "outage", timestamp: ts(NOW - 60_000) })]);
      server = await startTestServer(warehouse, NOW);
    });
    afterAll(async () => {
      proxy?.start();
      await server?.close();
      await database?.close();
    });

    const get = (path: string) => fetch(`${server.url}${path}`, { headers: { "x-api-key": TEST_API_KEY } });

    it("serves cached results and 503 while it is away, and recovers by itself", async () => {
      const cachedPath = "/api/endpoints/usage.api-counts?project=outage&interval=hourly";
      expect((await get(cachedPath)).status).toBe(200);

      proxy.stop();
      const cached = await get(cachedPath);
      expect([cached.status, cached.headers.get("x-cache")]).toEqual([200, "HIT"]);
      const uncached = await get("/api/endpoints/logs.all?project=outage");
      expect(uncached.status).toBe(503);
      expect(uncached.headers.get("retry-after")).not.toBeNull();
      expect((await fetch(`${server.url}/readyz`)).status).toBe(503);

      proxy.start();
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 200));
        status = (await get("/api/endpoints/logs.all?project=outage")).status;
      }
      expect(status).toBe(200);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    });
  },
);
