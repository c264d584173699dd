// The start-up check of result columns against row messages, asked of the
// embedded engine with DESCRIBE: every saved query's SQL in sql/ fits its row
// message (the SQL half of the contract check, docs/commands.md), and each
// kind of mismatch is named.
import { readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEndpointRegistry, resultColumnProblems, savedQueryServices } from "../../../src/endpoints/index.js";
import { readSavedQuerySql, sqlDirectory, type Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";

let warehouse: Warehouse;
beforeAll(async () => {
  warehouse = await openTestWarehouse();
});
afterAll(async () => warehouse?.close());

/** The registry with the SQL of `endpoint` replaced by `sql`. */
function registryWith(endpoint: string, sql: string) {
  return createEndpointRegistry({
    services: savedQueryServices,
    readSql: (name) => (name === endpoint ? sql : readSavedQuerySql(name)),
  });
}

/** The registry with logs.all's SQL replaced by `sql`. */
function registryWithLogsAll(sql: string) {
  return registryWith("logs.all", sql);
}

const filters = `FROM edge_logs WHERE project = {project:String} AND {project_tier:String} IN ('FREE', 'PRO', 'PAYG', 'ENTERPRISE')
  AND {iso_timestamp_start:Nullable(DateTime64(6, 'UTC'))} IS NULL AND {iso_timestamp_end:Nullable(DateTime64(6, 'UTC'))} IS NULL AND {cursor_timestamp:Nullable(String)} IS NULL AND {cursor_id:Nullable(String)} IS NULL
  AND timestamp < {now:DateTime64(6, 'UTC')}`;

const ownEndpoints = createEndpointRegistry({ services: savedQueryServices }).endpoints;

describe("the saved queries' own SQL", () => {
  it("is a file in sql/ for every saved query, and a saved query for every file", () => {
    const files = readdirSync(sqlDirectory()).filter((file) => file.endsWith(".sql"));
    expect(ownEndpoints.map((e) => `${e.definition.name}.sql`).sort()).toEqual(files.sort());
  });

  it.each(ownEndpoints.map((endpoint) => [endpoint.definition.name, endpoint] as const))(
    "of %s gives the fields of its row message, of types that fill them",
    async (_name, endpoint) => {
      expect(await resultColumnProblems([endpoint], warehouse.client)).toEqual([]);
    },
  );
});

describe("resultColumnProblems", () => {
  it("names the endpoint and a result column that is not a row field", async () => {
    const registry = registryWithLogsAll(`SELECT id, timestamp, event_message, metadata, project ${filters}`);
    expect(await resultColumnProblems(registry.endpoints, warehouse.client)).toEqual([
      "logs.all: result column project (String) is not a field of logs.v1.LogRecord (fields: id, timestamp, event_message, metadata)",
    ]);
  });

  it("names the endpoint and a row field no column fills", async () => {
    const registry = registryWithLogsAll(`SELECT id, timestamp, metadata ${filters}`);
    expect(await resultColumnProblems(registry.endpoints, warehouse.client)).toEqual([
      "logs.all: no result column fills logs.v1.LogRecord.event_message",
    ]);
  });

  it("names a text column for a Timestamp field and an array for a string field", async () => {
    const registry = registryWithLogsAll(
      `SELECT id, toString(timestamp) AS timestamp, splitByChar(' ', event_message) AS event_message, metadata ${filters}`,
    );
    expect(await resultColumnProblems(registry.endpoints, warehouse.client)).toEqual([
      "logs.all: result column timestamp (String) cannot fill logs.v1.LogRecord.timestamp (Timestamp field)",
      "logs.all: result column event_message (Array(String)) cannot fill logs.v1.LogRecord.event_message (string field)",
    ]);
  });

  it("takes any single value for a string field and a DateTime64 of any zone for a Timestamp", async () => {
    const registry = registryWithLogsAll(
      `SELECT toUUID(id) AS id, toDateTime64(timestamp, 3, 'Asia/Tokyo') AS timestamp, toNullable(length(event_message)) AS event_message, metadata ${filters}`,
    );
    expect(await resultColumnProblems(registry.endpoints, warehouse.client)).toEqual([]);
  });

  it("names a LowCardinality text column for an integer field and a date for a Timestamp", async () => {
    const registry = registryWith(
      "usage.api-counts",
      `SELECT toDate(timestamp) AS timestamp, toLowCardinality(toString(count())) AS total_rest_requests,
         count() AS total_storage_requests, count() AS total_auth_requests, count() AS total_realtime_requests
       FROM edge_logs WHERE match(project, {project:String}) AND {interval:String} IN ('hourly', 'daily', 'minutely') AND timestamp < {now:DateTime64(6, 'UTC')}
       GROUP BY timestamp`,
    );
    expect(await resultColumnProblems(registry.endpoints, warehouse.client)).toEqual([
      "usage.api-counts: result column timestamp (Date) cannot fill usage.v1.ApiCountsRow.timestamp (Timestamp field)",
      "usage.api-counts: result column total_rest_requests (LowCardinality(String)) cannot fill usage.v1.ApiCountsRow.total_rest_requests (integer field)",
    ]);
  });

  it("names a text column for a double field", async () => {
    const registry = registryWith(
      "functions.invocation-stats",
      `SELECT toStartOfHour(timestamp) AS timestamp, toString(min(execution_time_ms)) AS min_execution_time,
         max(execution_time_ms) AS max_execution_time, avg(execution_time_ms) AS avg_execution_time,
         quantile(0.95)(execution_time_ms) AS p95_execution_time, quantile(0.99)(execution_time_ms) AS p99_execution_time,
         count() AS count, countIf(status_code >= 400) AS error_count
       FROM function_edge_logs
       WHERE project = {project:String} AND {function_id:String} != '' AND {interval:String} IN ('5min', '15min', '1hr', '1day', '7day') AND timestamp < {now:DateTime64(6, 'UTC')}
       GROUP BY timestamp`,
    );
    expect(await resultColumnProblems(registry.endpoints, warehouse.client)).toEqual([
      "functions.invocation-stats: result column min_execution_time (String) cannot fill functions.v1.InvocationStatsRow.min_execution_time (double field)",
    ]);
  });

  it("looks through Nullable and LowCardinality: only the wrapped type that does not fit is named", async () => {
    const registry = registryWithLogsAll(
      `SELECT toNullable(id) AS id, toNullable(timestamp) AS timestamp, toLowCardinality(event_message) AS event_message,
         toNullable(length(metadata)) AS metadata ${filters}`,
    );
    expect(await resultColumnProblems(registry.endpoints, warehouse.client)).toEqual([
      "logs.all: result column metadata (Nullable(UInt64)) cannot fill logs.v1.LogRecord.metadata (JSON objects field)",
    ]);
  });

  it("throws when the warehouse cannot describe a query", async () => {
    const registry =
      registryWithLogsAll(`SELECT id, timestamp, event_message, metadata FROM no_such_table WHERE {project:String} != ''
      AND {project_tier:String} IN ('FREE', 'PRO', 'PAYG', 'ENTERPRISE') AND {iso_timestamp_start:Nullable(String)} IS NULL AND {iso_timestamp_end:Nullable(String)} IS NULL AND {cursor_timestamp:Nullable(String)} IS NULL AND {cursor_id:Nullable(String)} IS NULL`);
    await expect(resultColumnProblems(registry.endpoints, warehouse.client)).rejects.toThrow(/no_such_table/);
  });
});
