// The start-up check of result columns against row messages, asked of the
// embedded engine with DESCRIBE.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEndpointRegistry, resultColumnProblems, savedQueryServices } from "../../../src/endpoints/index.js";
import { readSavedQuerySql, type Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";

let warehouse: Warehouse;
beforeAll(async () => {
  warehouse = await openTestWarehouse();
});
afterAll(async () => warehouse?.close());

/** The registry with logs.all's SQL replaced by `sql`. */
function registryWithLogsAll(sql: string) {
  return createEndpointRegistry({ services: savedQueryServices, readSql: (name) => (name === "logs.all" ? sql : readSavedQuerySql(name)) });
}

const filters = `FROM edge_logs WHERE project = {project:String} AND {project_tier:String} != ''
  AND {iso_timestamp_start:Nullable(DateTime64(6, 'UTC'))} IS NULL AND {iso_timestamp_end:Nullable(DateTime64(6, 'UTC'))} IS NULL
  AND timestamp < {now:DateTime64(6, 'UTC')}`;

describe("resultColumnProblems", () => {
  it("finds none in the project's own saved queries", async () => {
    const registry = createEndpointRegistry({ services: savedQueryServices });
    expect(await resultColumnProblems(registry.endpoints, warehouse.client)).toEqual([]);
  });

  it("names the endpoint and a result column that is not a row field", async () => {
    const registry = registryWithLogsAll(`SELECT id, timestamp, event_message, metadata, project ${filters}`);
    expect(await resultColumnProblems(registry.endpoints, warehouse.client)).toEqual([
      "logs.all: result column project (String) is not a field of logs.v1.LogRecord (fields: id, timestamp, event_message, metadata)",
    ]);
  });

  it("names the endpoint and a row field no column fills", async () => {
    const registry = registryWithLogsAll(`SELECT id, timestamp, metadata ${filters}`);
    expect(await resultColumnProblems(registry.endpoints, warehouse.client)).toEqual(["logs.all: no result column fills logs.v1.LogRecord.event_message"]);
  });

  it("throws when the warehouse cannot describe a query", async () => {
    const registry = registryWithLogsAll(`SELECT id, timestamp, event_message, metadata FROM no_such_table WHERE {project:String} != ''
      AND {project_tier:String} != '' AND {iso_timestamp_start:Nullable(String)} IS NULL AND {iso_timestamp_end:Nullable(String)} IS NULL`);
    await expect(resultColumnProblems(registry.endpoints, warehouse.client)).rejects.toThrow(/no_such_table/);
  });
});
