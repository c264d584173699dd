// A ClickHouse server that goes away and comes back, through a TCP proxy the
// test opens and shuts. Needs a real server: runs only when CLICKHOUSE_URL is
// set, and is reported as skipped otherwise.
import { randomUUID } from "node:crypto";
import { connect, createServer, type Server, type Socket } from "node:net";
import { ClickHouseLogLevel, createClient } from "@clickhouse/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, type Warehouse } from "../../../src/warehouse/index.js";
import { edgeRow, insertRows, ts } from "../../support/embedded-warehouse.js";
import { NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";
import { serverCredentials } from "../../support/server-credentials.js";

const url = process.env.CLICKHOUSE_URL;

describe.skipIf(url === undefined)(
  "a warehouse that goes away and comes back (skipped: CLICKHOUSE_URL is not set)",
  () => {
    const target = new URL(url ?? "http://127.0.0.1:8123");
    const database = `sqe_outage_${randomUUID().replaceAll("-", "")}`;
    let forwarding = true;
    const sockets = new Set<Socket>();
    let proxy: Server;
    let warehouse: Warehouse;
    let server: TestServer;

    beforeAll(async () => {
      proxy = createServer((client) => {
        if (!forwarding) return void client.destroy();
        const upstream = connect(Number(target.port || 8123), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("error", () => s.destroy());
          s.on("close", () => sockets.delete(s));
        }
        client.pipe(upstream).pipe(client);
      });
      await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
      const port = (proxy.address() as { port: number }).port;
      const admin = createClient({ url, ...serverCredentials, log: { level: ClickHouseLogLevel.OFF } });
      await admin.command({ query: "CREATE DATABASE {db:Identifier}", query_params: { db: database } });
      await admin.close();
      const client = createClient({
        url: `http://127.0.0.1:${port}`,
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
      forwarding = true;
      await server?.close();
      await warehouse?.client.command({
        query: "DROP DATABASE IF EXISTS {db:Identifier}",
        query_params: { db: database },
      });
      await warehouse?.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => proxy.close(() => r()));
    });

    const get = (path: string) => fetch(`${server.url}${path}`, { headers: { "x-api-key": TEST_API_KEY } });

    it("serves cached results and 503 while it is away, and recovers by itself", async () => {
      const cachedPath = "/api/endpoints/usage.api-counts?project=outage&interval=hourly";
      expect((await get(cachedPath)).status).toBe(200);

      forwarding = false;
      for (const s of sockets) s.destroy();
      const cached = await get(cachedPath);
      expect([cached.status, cached.headers.get("x-cache")]).toEqual([200, "HIT"]);
      const uncached = await get("/api/endpoints/logs.all?project=outage");
      expect(uncached.status).toBe(503);
      expect(uncached.headers.get("retry-after")).not.toBeNull();
      expect((await fetch(`${server.url}/readyz`)).status).toBe(503);

      forwarding = true;
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
