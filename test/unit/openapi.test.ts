// GET /openapi.json: the OpenAPI 3.1 document derived from the saved
// queries' descriptors, checked against what the proto files state.
import { describe, expect, it } from "vitest";
import { createEndpointRegistry, savedQueryServices } from "../../src/endpoints/index.js";
import { openApiDocument } from "../../src/transport/http/openapi.js";

// biome-ignore lint/suspicious/noExplicitAny: a JSON document read by path
type Json = Record<string, any>;
const document = openApiDocument(createEndpointRegistry({ services: savedQueryServices })) as Json;
const paths = document.paths as Json;
const byName = (name: string) => paths[`/api/endpoints/${name}`].get as Json;
const parameter = (name: string, field: string) =>
  (byName(name).parameters as Json[]).find((p) => p.name === field)!.schema as Json;

describe("openApiDocument", () => {
  it("is OpenAPI 3.1 with both credentials' schemes", () => {
    expect(document.openapi).toBe("3.1.0");
    expect(document.security).toEqual([{ ApiKey: [] }, { Bearer: [] }]);
    expect(document.components.securitySchemes.ApiKey).toMatchObject({ in: "header", name: "X-API-KEY" });
  });

  it("has a path by name and by id for each saved query, and the listing", () => {
    expect(Object.keys(paths).sort()).toEqual(
      [
        "/api/endpoints",
        "/api/endpoints/functions.invocation-stats",
        "/api/endpoints/query/1f3a6c2e-5b7d-4e8f-9a0b-2c4d6e8f0a1b",
        "/api/endpoints/logs.all",
        "/api/endpoints/query/c4e8a2b6-3d5f-4a7c-8e9b-1d3f5a7c9e2b",
        "/api/endpoints/usage.api-counts",
        "/api/endpoints/query/6b2d9e4f-8a1c-4f3e-b5d7-9e1f3a5c7b9d",
        "/api/endpoints/usage.api-counts.v2",
        "/api/endpoints/query/3f8a2c1d-5b7e-4d9a-8c6f-2e4b6d8f0a1c",
        "/api/endpoints/service.call-stats",
        "/api/endpoints/query/1d36b8df-50a5-4f41-ba2e-fa4ed9458c33",
      ].sort(),
    );
  });

  it.each([
    ["/api/endpoints/functions.invocation-stats", "functionsInvocationStatsByName"],
    ["/api/endpoints/query/1f3a6c2e-5b7d-4e8f-9a0b-2c4d6e8f0a1b", "functionsInvocationStatsById"],
    ["/api/endpoints/usage.api-counts", "usageApiCountsByName"],
    ["/api/endpoints/query/c4e8a2b6-3d5f-4a7c-8e9b-1d3f5a7c9e2b", "logsAllById"],
    ["/api/endpoints", "listEndpoints"],
  ])("names the operation of %s %s", (path, operationId) => {
    expect(paths[path].get.operationId).toBe(operationId);
  });

  it.each([
    ["functions.invocation-stats", "functions.v1.FunctionsService/GetInvocationStats", 900],
    ["usage.api-counts", "usage.v1.UsageService/GetApiCounts", 900],
    ["logs.all", "logs.v1.LogsService/GetAllLogs", 0],
  ])("gives %s its gRPC method %s and cache lifetime %i", (name, method, ttl) => {
    expect([byName(name)["x-grpc-method"], byName(name)["x-cache-ttl-seconds"]]).toEqual([method, ttl]);
  });

  it.each([
    // endpoint, parameter, its schema worked out from the proto's parameter option
    ["functions.invocation-stats", "project", { type: "string", maxLength: 1024 }],
    // unknown values behave like the default: examples, not an enum
    [
      "functions.invocation-stats",
      "interval",
      { type: "string", maxLength: 1024, examples: ["5min", "15min", "1hr", "1day", "7day"], default: "1day" },
    ],
    ["usage.api-counts", "interval", { type: "string", maxLength: 1024, enum: ["hourly", "daily", "minutely"] }],
    ["usage.api-counts", "project", { type: "string", maxLength: 1024, format: "regex" }],
    ["logs.all", "iso_timestamp_end", { type: "string", maxLength: 1024, format: "date-time" }],
  ])("describes %s's %s", (name, field, schema) => {
    expect(parameter(name, field)).toEqual(schema);
  });

  it.each([
    ["functions.invocation-stats", ["project", "function_id", "interval"], [true, false, false]],
    ["usage.api-counts", ["project", "interval"], [true, true]],
  ])("lists %s's parameters in the query string, required as declared", (name, fields, required) => {
    const parameters = byName(name).parameters as Json[];
    expect(parameters.map((p) => [p.name, p.in, p.required])).toEqual(fields.map((f, i) => [f, "query", required[i]]));
  });

  it("documents the cache headers only on cached endpoints", () => {
    const headers = (name: string) => Object.keys(byName(name).responses["200"].headers);
    expect(headers("usage.api-counts")).toEqual(expect.arrayContaining(["X-Cache", "Age"]));
    expect(headers("logs.all")).not.toContain("X-Cache");
    expect(headers("logs.all")).not.toContain("Age");
  });

  it("documents next_page_token and the Link header only on paged endpoints, the truncation fields on all", () => {
    const ok = (name: string) => byName(name).responses["200"];
    const properties = (name: string) => Object.keys(ok(name).content["application/json"].schema.properties);
    const truncation = ["truncated", "rows_before_limit_at_least"];
    expect(properties("logs.all")).toEqual(["result", ...truncation, "next_page_token"]);
    expect(Object.keys(ok("logs.all").headers)).toContain("Link");
    expect(properties("usage.api-counts")).toEqual(["result", ...truncation]);
    expect(Object.keys(ok("usage.api-counts").headers)).toEqual(
      expect.arrayContaining(["X-Result-Truncated", "X-Rows-Before-Limit"]),
    );
    expect(Object.keys(ok("usage.api-counts").headers)).not.toContain("Link");
  });

  it("marks a deprecated version deprecated, naming its successor, and no other", () => {
    const deprecated = Object.entries(paths)
      .filter(([, item]) => (item as Json).get?.deprecated === true)
      .map(([path]) => path);
    expect(deprecated.sort()).toEqual(
      ["/api/endpoints/usage.api-counts", "/api/endpoints/query/6b2d9e4f-8a1c-4f3e-b5d7-9e1f3a5c7b9d"].sort(),
    );
    expect(byName("usage.api-counts").description).toContain("call usage.api-counts.v2");
  });

  it("answers every error status with the Error schema", () => {
    const responses = byName("logs.all").responses as Json;
    expect(Object.keys(responses).sort()).toEqual(["200", "400", "401", "403", "404", "429", "500", "503", "504"]);
    for (const status of Object.keys(responses).filter((s) => s !== "200")) {
      expect(responses[status].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
    }
    expect(responses["200"].description).toBe("At most 1000 rows");
  });

  it.each([
    ["InvocationStatsRow", "timestamp", { type: "string", format: "date-time" }],
    ["InvocationStatsRow", "p95_execution_time", { type: "number" }],
    ["InvocationStatsRow", "error_count", { type: "integer" }],
    ["ApiCountsRow", "total_rest_requests", { type: "integer" }],
    ["LogRecord", "id", { type: "string" }],
    ["LogRecord", "metadata", { type: "array", items: { type: "object" } }],
  ])("types %s.%s from its proto field", (row, field, schema) => {
    expect(document.components.schemas[row].properties[field]).toEqual(schema);
  });

  it("requires every field of a row, by its proto name", () => {
    expect(document.components.schemas.LogRecord.required).toEqual(["id", "timestamp", "event_message", "metadata"]);
    expect(byName("logs.all").responses["200"].content["application/json"].schema.properties.result.items).toEqual({
      $ref: "#/components/schemas/LogRecord",
    });
  });
});
