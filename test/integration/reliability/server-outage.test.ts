// A ClickHouse server that goes away and comes back, through a TCP proxy the
// test opens and shuts. Needs a real server: runs only when CLICKHOUSE_URL is
// set, and is reported as skipped otherwise.
import { randomUUID } from "node:crypto";
import { ClickHouseLogLevel, createClient } from "@clickhouse/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, type Warehouse } from "../../../src/warehouse/index.js";
import { edgeRow, insertRows, ts } from "../../support/embedded-warehouse.js";
import { NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";
import { serverCredentials } from "../../support/server-credentials.js";
import { startWarehouseProxy, type WarehouseProxy } from "../../support/warehouse-proxy.js";

const url = process.env.CLICKHOUSE_URL;

describe.skipIf(url === undefined)(
  "a warehouse that goes away and comes back (skipped: CLICKHOUSE_URL is not set)",
  () => {
    const target = new URL(url ?? "http://127.0.0.1:8123");
    const database = `sqe_outage_${randomUUID().replaceAll("-", "")}`;
    let proxy: WarehouseProxy;
    let warehouse: Warehouse;
    let server: TestServer;

    beforeAll(async () => {
      proxy = await startWarehouseProxy(target);
      const admin = createClient({ url, ...serverCredentials, log: { level: ClickHouseLogLevel.OFF } });
      await admin.command({ query: "CREATE DATABASE {db:Identifier}", query_params: { db: database } });
      await admin.close();
      const client = createClient({
        url: proxy.url,
        ...serverCredentials,
        database,
        log: { level: ClickHouseLogLevel.OFF },
      });
      warehouse = { client, kind: "server", location: `proxy to ${url}`, close: () => client.close() };
      await migrate(client);
      await insertRows(warehouse, "edge_logs", [edgeRow({ project: "outage", timestamp: ts(NOW - 60_000) })]);
      server = await startTestServer(warehouse, NOW);
    });
    afterAll(async () => {
      proxy?.start();
      await server?.close();
      await warehouse?.client.command({
        query: "DROP DATABASE IF EXISTS {db:Identifier}",
        query_params: { db: database },
      });
      await warehouse?.close();
      await proxy?.close();
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
