// Each warehouse query says whose call it serves: a GET call through the
// real server over a ClickHouse server, then its query found in
// system.query_log by the log_comment JSON of its saved query, caller and
// request id. Needs a real server: runs only when CLICKHOUSE_URL is set.
import { createHash, randomUUID } from "node:crypto";
import { ClickHouseLogLevel, createClient } from "@clickhouse/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, type Warehouse } from "../../../src/warehouse/index.js";
import { edgeRow, insertRows, ts } from "../../support/embedded-warehouse.js";
import { NOW } from "../../support/scenario.js";
import { serverCredentials } from "../../support/server-credentials.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const url = process.env.CLICKHOUSE_URL;
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe.skipIf(url === undefined)("log_comment in system.query_log (skipped: CLICKHOUSE_URL is not set)", () => {
  const database = `sqe_comment_${randomUUID().replaceAll("-", "")}`;
  let warehouse: Warehouse;
  let server: TestServer;
  beforeAll(async () => {
    const admin = createClient({ url, ...serverCredentials, log: { level: ClickHouseLogLevel.OFF } });
    await admin.command({ query: "CREATE DATABASE {db:Identifier}", query_params: { db: database } });
    await admin.close();
    const client = createClient({ url, ...serverCredentials, database, log: { level: ClickHouseLogLevel.OFF } });
    warehouse = { client, kind: "server", location: url!, close: () => client.close() };
    await migrate(client);
    await insertRows(warehouse, "edge_logs", [edgeRow({ project: "comment", timestamp: ts(NOW - 60_000) })]);
    server = await startTestServer(warehouse, NOW);
  });
  afterAll(async () => {
    await server?.close();
    await warehouse?.client.command({
      query: "DROP DATABASE IF EXISTS {db:Identifier}",
      query_params: { db: database },
    });
    await warehouse?.close();
  });

  it("ties the query of a call to its saved query, caller and request id", async () => {
    const requestId = `comment-${randomUUID()}`;
    const response = await fetch(`${server.url}/api/endpoints/usage.api-counts?project=comment&interval=hourly`, {
      headers: { "x-api-key": TEST_API_KEY, "x-request-id": requestId },
    });
    expect(response.status).toBe(200);
    await warehouse.client.command({ query: "SYSTEM FLUSH LOGS" });
    const found = await warehouse.client.query({
      query: `SELECT log_comment FROM system.query_log
              WHERE type = 'QueryFinish' AND current_database = {db:String} AND position(log_comment, {id:String}) > 0`,
      query_params: { db: database, id: requestId },
      format: "JSONEachRow",
    });
    const rows = (await found.json()) as { log_comment: string }[];
    expect(rows.map((r) => JSON.parse(r.log_comment))).toEqual([
      // A full-access key is named by the start of its SHA-256, never by itself.
      { endpoint: "usage.api-counts", caller: `api-key:${sha256(TEST_API_KEY).slice(0, 12)}`, request_id: requestId },
    ]);
  });
});
