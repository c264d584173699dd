// Many watchers of one key over a ClickHouse server cost one warehouse query
// per refresh: counted by the service's metric of warehouse queries and by
// system.query_log, where the refresh's log_comment names the saved query
// and a request id starting `refresh-`. Needs a real server: runs only when
// CLICKHOUSE_URL is set, and is reported as skipped otherwise.
import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { ClickHouseLogLevel, createClient } from "@clickhouse/client";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GetApiCountsRequestSchema, UsageService } from "../../../src/gen/usage/v1/usage_pb.js";
import { migrate, type Warehouse } from "../../../src/warehouse/index.js";
import { NOW } from "../../support/scenario.js";
import { serverCredentials } from "../../support/server-credentials.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";
import { edgeLogRow, grpcJsWatch, importRows, type WatchReader } from "../../support/watch-clients.js";

const url = process.env.CLICKHOUSE_URL;
const watchers = 200;
const request = create(GetApiCountsRequestSchema, { project: "rpc", interval: "hourly" });

describe.skipIf(url === undefined)(
  "watchers of one key on a ClickHouse server (skipped: CLICKHOUSE_URL is not set)",
  () => {
    const database = `sqe_watch_${randomUUID().replaceAll("-", "")}`;
    let warehouse: Warehouse;
    let server: TestServer;
    let client: grpc.Client;

    beforeAll(async () => {
      const admin = createClient({ url, ...serverCredentials, log: { level: ClickHouseLogLevel.OFF } });
      await admin.command({ query: "CREATE DATABASE {db:Identifier}", query_params: { db: database } });
      await admin.close();
      const chClient = createClient({ url, ...serverCredentials, database, log: { level: ClickHouseLogLevel.OFF } });
      warehouse = { client: chClient, kind: "server", location: url!, close: () => chClient.close() };
      await migrate(chClient);
      server = await startTestServer(
        warehouse,
        NOW,
        { watch: { bounds: { maxStreams: 1_000, perCaller: watchers, perAddress: 1_000 } } },
        { maxConcurrentStreams: 1_000, maxStreamsPerAddress: 1_000 },
      );
      client = new grpc.Client(server.address, grpc.credentials.createInsecure());
    });
    afterAll(async () => {
      client?.close();
      await server?.close();
      await warehouse?.client.command({
        query: "DROP DATABASE IF EXISTS {db:Identifier}",
        query_params: { db: database },
      });
      await warehouse?.close();
    });

    /** The count of warehouse queries of `endpoint` in /metrics. */
    async function warehouseQueries(endpoint: string): Promise<number> {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      const line = text
        .split("\n")
        .find(
          (l) => l.startsWith("sqe_warehouse_query_duration_seconds_count{") && l.includes(`endpoint="${endpoint}"`),
        );
      return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1));
    }

    /** The refresh queries of `endpoint` in this database that system.query_log has seen since `since` (server time). */
    async function loggedRefreshes(endpoint: string, since: string): Promise<number> {
      await warehouse.client.command({ query: "SYSTEM FLUSH LOGS" });
      const result = await warehouse.client.query({
        query: `SELECT uniqExact(query_id) AS queries FROM system.query_log
                WHERE current_database = {db:String} AND event_time_microseconds >= {since:DateTime64(6)}
                  AND JSONExtractString(log_comment, 'endpoint') = {endpoint:String}
                  AND startsWith(JSONExtractString(log_comment, 'request_id'), 'refresh-')`,
        query_params: { db: database, since, endpoint },
        format: "JSONEachRow",
      });
      const [row] = (await result.json()) as { queries: string }[];
      return Number(row!.queries);
    }

    it("feeds them all from one warehouse query per refresh", async () => {
      const streams: WatchReader[] = [];
      for (let i = 0; i < watchers; i++)
        streams.push(
          grpcJsWatch(client, UsageService, UsageService.method.watchApiCounts, request, {
            headers: { "x-api-key": TEST_API_KEY },
          }),
        );
      await Promise.all(streams.map((s) => s.until(1, 20_000)));
      const before = await warehouseQueries("usage.api-counts");
      const clock = await warehouse.client.query({ query: "SELECT now64(6) AS now", format: "JSONEachRow" });
      const [{ now: since }] = (await clock.json()) as [{ now: string }];

      await importRows(server.url, TEST_API_KEY, "edge_logs", [edgeLogRow(1, NOW - 5 * 60_000)]);
      await Promise.all(streams.map((s) => s.until(2, 20_000)));
      for (const s of streams) s.cancel();

      expect((await warehouseQueries("usage.api-counts")) - before).toBe(1);
      expect(await loggedRefreshes("usage.api-counts", since)).toBe(1);
    }, 60_000);
  },
);
