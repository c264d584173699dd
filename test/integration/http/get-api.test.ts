// The GET API with fetch against the real server: each endpoint by name and
// by id, every row of the error table, the listing, the OpenAPI document,
// health and metrics, and hostile input.
import { ClickHouseLogLevel, createClient } from "@clickhouse/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSavedQuerySql, type Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { withSlowQuery } from "../../support/slow-sql.js";
import {
  expectedApiCounts,
  expectedInvocationStats,
  expectedLogIds,
  insertScenario,
  NOW,
} from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const INVOCATION_STATS_ID = "1f3a6c2e-5b7d-4e8f-9a0b-2c4d6e8f0a1b";
const API_COUNTS_ID = "6b2d9e4f-8a1c-4f3e-b5d7-9e1f3a5c7b9d";
const LOGS_ID = "c4e8a2b6-3d5f-4a7c-8e9b-1d3f5a7c9e2b";

let warehouse: Warehouse;
let server: TestServer;
let slowServer: TestServer;
let brokenServer: TestServer;
let downServer: TestServer;

beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  server = await startTestServer(warehouse, NOW);
  slowServer = await startTestServer(warehouse, NOW, {
    defaultTimeoutMs: 300,
    readSql: withSlowQuery("logs.all"),
  });
  brokenServer = await startTestServer(warehouse, NOW, {
    readSql: (name) =>
      name === "logs.all"
        ? "SELECT * FROM secret_missing_table WHERE project = {project:String} AND {project_tier:String} IN ('FREE', 'PRO', 'PAYG', 'ENTERPRISE')" +
          " AND {iso_timestamp_start:Nullable(String)} IS NULL AND {iso_timestamp_end:Nullable(String)} IS NULL AND {cursor_timestamp:Nullable(String)} IS NULL AND {cursor_id:Nullable(String)} IS NULL"
        : readSavedQuerySql(name),
  });
  // A server whose warehouse is a ClickHouse URL where nothing listens.
  const unreachable = createClient({ url: "http://127.0.0.1:9", log: { level: ClickHouseLogLevel.OFF } });
  downServer = await startTestServer(
    { client: unreachable, kind: "server", location: "", close: () => unreachable.close() },
    NOW,
  );
});
afterAll(async () => {
  await Promise.all([server, slowServer, brokenServer, downServer].map((s) => s?.close()));
  await warehouse?.close();
});

const withKey = { "x-api-key": TEST_API_KEY };
async function get(base: TestServer, path: string, headers: Record<string, string> = withKey) {
  const response = await fetch(`${base.url}${path}`, { headers });
  const text = await response.text();
  const json = response.headers.get("content-type")?.startsWith("application/json") ? JSON.parse(text) : undefined;
  return { status: response.status, headers: response.headers, text, json };
}

describe("GET /api/endpoints/<name> and /api/endpoints/query/<id>", () => {
  const cases = [
    ["functions.invocation-stats", INVOCATION_STATS_ID, "project=rpc"],
    ["usage.api-counts", API_COUNTS_ID, "project=%2F%2Frpc%5C.&interval=hourly"],
    ["logs.all", LOGS_ID, "project=rpc"],
  ] as const;

  it.each(cases)("%s answers the same rows by name, by id and by name under query/", async (name, id, query) => {
    const byName = await get(server, `/api/endpoints/${name}?${query}`);
    const byId = await get(server, `/api/endpoints/query/${id}?${query}`);
    const byNameUnderQuery = await get(server, `/api/endpoints/query/${name}?${query}`);
    expect(byName.status).toBe(200);
    expect(byName.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(byId.text).toBe(byName.text);
    expect(byNameUnderQuery.text).toBe(byName.text);
  });

  it("returns invocation stats with snake_case names, numbers and RFC 3339 timestamps", async () => {
    const { json } = await get(server, "/api/endpoints/functions.invocation-stats?project=rpc");
    expect(json).toEqual({
      result: expectedInvocationStats.map(([t, count, errors, min, max, avg]) => ({
        timestamp: new Date(t).toISOString().replace(".000Z", "Z"),
        min_execution_time: min,
        max_execution_time: max,
        avg_execution_time: avg,
        p95_execution_time: expect.any(Number),
        p99_execution_time: expect.any(Number),
        count,
        error_count: errors,
      })),
      truncated: false,
      rows_before_limit_at_least: expectedInvocationStats.length,
    });
  });

  it("returns api counts with every total present, 0 included", async () => {
    const { json } = await get(server, "/api/endpoints/usage.api-counts?project=%2F%2Frpc%5C.&interval=hourly");
    expect(json).toEqual({
      result: expectedApiCounts.map(([t, rest, storage, auth, realtime]) => ({
        timestamp: new Date(t).toISOString().replace(".000Z", "Z"),
        total_rest_requests: rest,
        total_storage_requests: storage,
        total_auth_requests: auth,
        total_realtime_requests: realtime,
      })),
      truncated: false,
      rows_before_limit_at_least: expectedApiCounts.length,
    });
  });

  it("returns log records with metadata as the stored JSON array", async () => {
    const { json } = await get(server, "/api/endpoints/logs.all?project=rpc&project_tier=PRO");
    expect(json.result.map((r: { id: string }) => r.id)).toEqual(expectedLogIds);
    expect(json.result[0]).toEqual({
      id: "e1",
      timestamp: expect.stringMatching(/^2026-11-20T12:24:56\.789\d*Z$/),
      event_message: "GET | 200 | /rest/v1/a",
      metadata: [
        {
          request: [{ method: "GET", path: "/rest/v1/a", url: "https://rpc.supabase.co/rest/v1/a" }],
          response: [{ status_code: 200 }],
        },
      ],
    });
  });

  it("accepts a value of exactly 1,024 characters", async () => {
    const { status, json } = await get(server, `/api/endpoints/logs.all?project=${"p".repeat(1024)}`);
    expect(status).toBe(200);
    expect(json.result).toEqual([]);
  });

  it("answers HEAD with the headers of GET and no body", async () => {
    const response = await fetch(`${server.url}/api/endpoints/logs.all?project=rpc`, {
      method: "HEAD",
      headers: withKey,
    });
    expect(response.status).toBe(200);
    expect(Number(response.headers.get("content-length"))).toBeGreaterThan(0);
    expect(await response.text()).toBe("");
  });
});

describe("GET API errors", () => {
  const error = (code: string, fields: string[] = []) => ({
    error: {
      code,
      message: expect.any(String),
      details: fields.map((field) => ({ field, description: expect.stringContaining(field) })),
    },
  });

  it.each([
    [
      "a missing key",
      (s: TestServer) => get(s, "/api/endpoints/logs.all?project=rpc", {}),
      401,
      error("unauthenticated"),
    ],
    [
      "a wrong key",
      (s: TestServer) => get(s, "/api/endpoints/logs.all?project=rpc", { "x-api-key": "wrong" }),
      401,
      error("unauthenticated"),
    ],
    ["an unknown name", (s: TestServer) => get(s, "/api/endpoints/logs.none?project=rpc"), 404, error("not_found")],
    [
      "an unknown id",
      (s: TestServer) => get(s, "/api/endpoints/query/00000000-0000-4000-8000-000000000000"),
      404,
      error("not_found"),
    ],
    [
      "several invalid parameters",
      (s: TestServer) => get(s, "/api/endpoints/usage.api-counts?interval=weekly"),
      400,
      error("invalid_argument", ["project", "interval"]),
    ],
    [
      "an undeclared parameter",
      (s: TestServer) => get(s, "/api/endpoints/logs.all?project=rpc&limit=5"),
      400,
      error("invalid_argument", ["limit"]),
    ],
    [
      "sql, as sandboxing is disabled",
      (s: TestServer) => get(s, "/api/endpoints/logs.all?project=rpc&sql=select%201"),
      400,
      error("invalid_argument", ["sql"]),
    ],
    [
      "a repeated parameter",
      (s: TestServer) => get(s, "/api/endpoints/logs.all?project=a&project=b"),
      400,
      error("invalid_argument", ["project"]),
    ],
    [
      "an undeclared parameter beside an invalid value",
      (s: TestServer) => get(s, "/api/endpoints/usage.api-counts?project=p&interval=weekly&sql=1"),
      400,
      error("invalid_argument", ["sql", "interval"]),
    ],
    [
      "a repeated parameter beside a missing one, each named once",
      (s: TestServer) => get(s, "/api/endpoints/usage.api-counts?interval=daily&interval=hourly"),
      400,
      error("invalid_argument", ["interval", "project"]),
    ],
    [
      "an invalid regular expression",
      (s: TestServer) => get(s, "/api/endpoints/usage.api-counts?project=(&interval=daily"),
      400,
      error("invalid_argument", ["project"]),
    ],
    [
      "a value longer than 1,024 characters",
      (s: TestServer) => get(s, `/api/endpoints/logs.all?project=${"p".repeat(1025)}&project_tier=${"T".repeat(2000)}`),
      400,
      error("invalid_argument", ["project", "project_tier"]),
    ],
    [
      "a pattern with a Unicode class, which RE2 runs slowly",
      (s: TestServer) =>
        get(s, `/api/endpoints/usage.api-counts?project=${encodeURIComponent("\\pL{30}")}&interval=daily`),
      400,
      error("invalid_argument", ["project"]),
    ],
  ] as const)("%s", async (_label, call, status, body) => {
    const response = await call(server);
    expect(response.status).toBe(status);
    expect(response.json).toEqual(body);
  });

  it("answers 503 when the warehouse is unreachable", async () => {
    const response = await get(downServer, "/api/endpoints/logs.all?project=rpc");
    expect(response.status).toBe(503);
    expect(response.json).toEqual(error("unavailable"));
  });

  it("answers 504 when the query runs past its deadline", async () => {
    const response = await get(slowServer, "/api/endpoints/logs.all?project=rpc");
    expect(response.status).toBe(504);
    expect(response.json).toEqual(error("deadline_exceeded"));
  });

  it("answers 500 without SQL or warehouse text", async () => {
    const response = await get(brokenServer, "/api/endpoints/logs.all?project=rpc");
    expect(response.status).toBe(500);
    expect(response.json).toEqual({ error: { code: "internal", message: "internal error", details: [] } });
    expect(response.text).not.toMatch(/secret_missing_table|SELECT|Exception/i);
  });
});

describe("hostile input", () => {
  it("refuses malformed percent-encoding with a 400 naming the parameter", async () => {
    const response = await get(server, "/api/endpoints/logs.all?project=%E0%A4%A");
    expect(response.status).toBe(400);
    expect(response.json.error.details.map((d: { field: string }) => d.field)).toEqual(["project"]);
  });

  it("refuses a parameter with no name with a 400 about the query string", async () => {
    const response = await get(server, "/api/endpoints/logs.all?project=rpc&=x");
    expect(response.status).toBe(400);
    expect(response.json.error.details).toEqual([
      { field: "query", description: "query string has a parameter with no name" },
    ]);
  });

  it("refuses a malformed endpoint name in the path with a 400", async () => {
    expect((await get(server, "/api/endpoints/%E0%A4%A?project=x")).status).toBe(400);
  });

  it("answers path traversal with 404", async () => {
    const response = await get(server, "/api/endpoints/..%2f..%2fetc%2fpasswd?project=x");
    expect(response.status).toBe(404);
  });

  it("refuses a 200 KB parameter with a 4xx, not a 5xx", async () => {
    const response = await fetch(`${server.url}/api/endpoints/logs.all?project=${"a".repeat(200_000)}`, {
      headers: withKey,
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  });

  it("refuses a 10 KB URL with 414 and a JSON error", async () => {
    const response = await get(server, `/api/endpoints/logs.all?project=${"a".repeat(10_000)}`);
    expect(response.status).toBe(414);
    expect(response.json.error.code).toBe("invalid_argument");
  });

  it.each(["POST", "PUT", "DELETE", "PATCH"])("answers %s with 405 and Allow", async (method) => {
    const response = await fetch(`${server.url}/api/endpoints/logs.all?project=rpc`, { method, headers: withKey });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toContain(method);
  });

  it("answers a browser's CORS preflight for GET with X-API-KEY", async () => {
    const response = await fetch(`${server.url}/api/endpoints/logs.all`, {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example.com",
        "access-control-request-method": "GET",
        "access-control-request-headers": "x-api-key",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")).toContain("GET");
    expect(response.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("x-api-key");
  });
});

describe("listing, OpenAPI, health and metrics", () => {
  it("lists the definitions from the proto options", async () => {
    const { status, json } = await get(server, "/api/endpoints");
    expect(status).toBe(200);
    expect(json.result).toEqual([
      expect.objectContaining({
        name: "functions.invocation-stats",
        id: INVOCATION_STATS_ID,
        max_rows: 1000,
        cache_ttl_seconds: 900,
        cache_warming_seconds: 300,
        sandboxed: false,
        grpc_method: "functions.v1.FunctionsService/GetInvocationStats",
        parameters: [
          { name: "project", required: true, allowed_values: [], default: null, max_length: 1024 },
          { name: "function_id", required: false, allowed_values: [], default: null, max_length: 1024 },
          {
            name: "interval",
            required: false,
            allowed_values: ["5min", "15min", "1hr", "1day", "7day"],
            default: "1day",
            max_length: 1024,
          },
        ],
      }),
      expect.objectContaining({
        name: "usage.api-counts",
        id: API_COUNTS_ID,
        cache_ttl_seconds: 900,
        grpc_method: "usage.v1.UsageService/GetApiCounts",
        parameters: [
          { name: "project", required: true, allowed_values: [], default: null, max_length: 1024 },
          {
            name: "interval",
            required: true,
            allowed_values: ["hourly", "daily", "minutely"],
            default: null,
            max_length: 1024,
          },
        ],
        deprecated: { since: "2026-12-01", sunset: "2027-12-31", successor: "usage.api-counts.v2" },
      }),
      expect.objectContaining({
        name: "usage.api-counts.v2",
        grpc_method: "usage.v1.UsageService/GetApiCountsV2",
        cache_ttl_seconds: 900,
      }),
      expect.objectContaining({
        name: "logs.all",
        id: LOGS_ID,
        max_rows: 1000,
        cache_ttl_seconds: 0,
        cache_warming_seconds: 0,
      }),
      expect.objectContaining({
        name: "service.call-stats",
        grpc_method: "calls.v1.CallsService/GetCallStats",
        cache_ttl_seconds: 60,
        cache_warming_seconds: 0,
      }),
    ]);
  });

  it("requires the key for the listing", async () => {
    expect((await get(server, "/api/endpoints", {})).status).toBe(401);
  });

  it("describes every route in an OpenAPI 3.1 document that the server answers", async () => {
    const { json: doc } = await get(server, "/openapi.json", {});
    const { json: listing } = await get(server, "/api/endpoints");
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.components.securitySchemes).toEqual({
      ApiKey: { type: "apiKey", in: "header", name: "X-API-KEY", description: "An API key, or a signed token (JWT)" },
      Bearer: {
        type: "http",
        scheme: "bearer",
        bearerFormat: "JWT",
        description: "A signed token (JWT), or an API key",
      },
    });
    expect(doc.security).toEqual([{ ApiKey: [] }, { Bearer: [] }]);
    const expectedPaths = listing.result.flatMap((e: { name: string; id: string }) => [
      `/api/endpoints/${e.name}`,
      `/api/endpoints/query/${e.id}`,
    ]);
    expect(Object.keys(doc.paths).sort()).toEqual([...expectedPaths, "/api/endpoints"].sort());
    for (const [path, item] of Object.entries(doc.paths) as [
      string,
      {
        get: {
          parameters?: { name: string; required: boolean; schema: { enum?: string[] } }[];
          responses: Record<string, unknown>;
        };
      },
    ][]) {
      // Call each path with its required parameters at their first allowed value (or "rpc").
      const query = (item.get.parameters ?? [])
        .filter((p) => p.required)
        .map((p) => `${p.name}=${p.schema.enum?.[0] ?? "rpc"}`)
        .join("&");
      const response = await get(server, `${path}?${query}`);
      expect(response.status, path).toBe(200);
      for (const parameter of item.get.parameters ?? [])
        expect((parameter.schema as { maxLength?: number }).maxLength).toBe(1024);
      if (path !== "/api/endpoints") {
        expect(Object.keys(item.get.responses)).toEqual(
          expect.arrayContaining(["200", "400", "401", "403", "404", "500", "503", "504"]),
        );
        const rowRef = (
          item.get.responses["200"] as {
            content: { "application/json": { schema: { properties: { result: { items: { $ref: string } } } } } };
          }
        ).content["application/json"].schema.properties.result.items.$ref;
        const rowSchema = doc.components.schemas[rowRef.split("/").at(-1)!];
        for (const row of response.json.result)
          expect(Object.keys(row).sort()).toEqual(Object.keys(rowSchema.properties).sort());
      }
    }
  });

  it("answers /healthz and /readyz without a key", async () => {
    expect((await get(server, "/healthz", {})).json).toEqual({ status: "ok" });
    expect((await get(server, "/readyz", {})).status).toBe(200);
  });

  it("answers /readyz with 503 when the warehouse does not answer", async () => {
    expect((await get(downServer, "/readyz", {})).status).toBe(503);
  });

  it("counts requests by endpoint, protocol and code in /metrics", async () => {
    const before = await get(server, "/metrics", {});
    const count = (text: string) =>
      Number(/sqe_requests_total\{endpoint="logs.all",protocol="http",code="ok"\} (\d+)/.exec(text)?.[1] ?? 0);
    await get(server, "/api/endpoints/logs.all?project=rpc");
    await get(server, "/api/endpoints/logs.all?project=rpc");
    const after = await get(server, "/metrics", {});
    expect(count(after.text) - count(before.text)).toBe(2);
    expect(after.text).toContain("sqe_request_duration_seconds_bucket");
    expect(after.text).toContain('sqe_warehouse_query_duration_seconds_count{endpoint="logs.all"}');
  });
});
