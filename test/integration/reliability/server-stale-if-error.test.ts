// Serving through an outage of a real ClickHouse server: the service reaches
// it through a TCP proxy the test shuts after a first good answer. Within
// STALE_IF_ERROR_SECONDS past its lifetime the last good result answers as
// STALE; past the window the caller gets the outage error. Needs a real
// server: runs only when CLICKHOUSE_URL is set, and is reported as skipped otherwise.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { edgeRow, insertRows, ts } from "../../support/embedded-warehouse.js";
import { NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";
import { openProxiedDatabase, type ProxiedDatabase, type WarehouseProxy } from "../../support/warehouse-proxy.js";

const url = process.env.CLICKHOUSE_URL;

describe.skipIf(url === undefined)(
  "stale-if-error over a ClickHouse server that stops (skipped: CLICKHOUSE_URL is not set)",
  () => {
    let database: ProxiedDatabase;
    let proxy: WarehouseProxy;
    let warehouse: Warehouse;
    let server: TestServer;

    beforeAll(async () => {
      ({ proxy, warehouse } = database = await openProxiedDatabase(url!, "sqe_stale_"));
      await insertRows(warehouse, "edge_logs", [edgeRow({ project: "stale", timestamp: ts(NOW - 60_000) })]);
      server = await startTestServer(warehouse, NOW, { staleIfErrorMs: 60_000 });
      // The result cache counts lifetimes in Date.now() time, Age on the service's clock: both move together.
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    });
    afterAll(async () => {
      vi.useRealTimers();
      proxy?.start();
      await server?.close();
      await database?.close();
    });

    const path = "/api/endpoints/usage.api-counts?project=stale&interval=hourly";
    const get = () => fetch(`${server.url}${path}`, { headers: { "x-api-key": TEST_API_KEY } });
    const advance = (ms: number) => {
      server.clock.advance(ms);
      vi.setSystemTime(Date.now() + ms);
    };

    it("answers the last good result as STALE within the window, and the outage error after it", async () => {
      const good = await get();
      const goodBody = await good.text();
      expect([good.status, good.headers.get("x-cache")]).toEqual([200, "MISS"]);

      advance(910_000); // 10 s past the 900 s lifetime
      proxy.stop();
      const stale = await get();
      expect(stale.status).toBe(200);
      expect(await stale.text()).toBe(goodBody);
      expect([stale.headers.get("x-cache"), stale.headers.get("age")]).toEqual(["STALE", "910"]);
      expect(stale.headers.get("cache-status")).toBe("saved-query-endpoints; fwd=stale; ttl=-10");
      expect(stale.headers.get("cache-control")).toBe("private, max-age=900, stale-if-error=60");
      expect(stale.headers.get("etag")).toBe(good.headers.get("etag"));

      advance(60_000); // 70 s past the lifetime: outside the 60 s window
      const failed = await get();
      expect(failed.status).toBe(503);
      expect(((await failed.json()) as { error: { code: string } }).error.code).toBe("unavailable");
      expect(failed.headers.get("cache-control")).toBe("no-store");
      expect(failed.headers.get("x-cache")).toBeNull();
    });
  },
);
