// Answers that say they are cut short, through the real server on the
// embedded engine: 150 edge log records of one project, one every 20
// seconds over the last 50 minutes. logs.all's first page of 100 leaves 50
// out, its second none; usage.api-counts's hourly answer leaves none out; a
// usage.api-counts capped at 10 rows (below the transport, as max_rows is a
// proto option) leaves out the rest of its minute buckets. Every figure is
// worked out from the records here.
import { create, type Message } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createEndpointRegistry,
  createEndpointService,
  savedQueryServices,
  type Endpoint,
} from "../../../src/endpoints/index.js";
import { createQueryExecutor } from "../../../src/executor/index.js";
import { LogsService } from "../../../src/gen/logs/v1/logs_pb.js";
import { UsageService } from "../../../src/gen/usage/v1/usage_pb.js";
import { fixedClock } from "../../../src/observability/index.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { edgeRow, insertRows, openTestWarehouse, ts } from "../../support/embedded-warehouse.js";
import { allClients, type RpcClient } from "../../support/rpc-clients.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const NOW = Date.UTC(2026, 10, 20, 12, 34, 56, 789);
const project = "truncation";
const times = Array.from({ length: 150 }, (_, i) => NOW - 10_000 - i * 20_000);
/** The minute buckets of the records, all within usage.api-counts's hour. */
const minuteBuckets = new Set(times.map((ms) => Math.floor(ms / 60_000))).size;
/** The hour buckets of the records. */
const hourBuckets = new Set(times.map((ms) => Math.floor(ms / 3_600_000))).size;

let warehouse: Warehouse;
let server: TestServer;
let clients: RpcClient[];
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertRows(
    warehouse,
    "edge_logs",
    times.map((ms) => edgeRow({ project, timestamp: ts(ms) })),
  );
  server = await startTestServer(warehouse, NOW);
  clients = allClients(server.url, server.address).filter((c) => c.name === "connect" || c.name === "@grpc/grpc-js");
});
afterAll(async () => {
  for (const client of clients ?? []) client.close();
  await server?.close();
  await warehouse?.close();
});

const get = (path: string) => fetch(`${server.url}${path}`, { headers: { "x-api-key": TEST_API_KEY } });
const logsAll = `/api/endpoints/logs.all?project=${project}&project_tier=FREE`;
const apiCounts = `/api/endpoints/usage.api-counts?project=${project}&interval=hourly`;
const truncationHeaders = (response: Response) => [
  response.headers.get("x-result-truncated"),
  response.headers.get("x-rows-before-limit"),
];

describe("GET", () => {
  it("says a page of logs.all left rows out, and the last page none", async () => {
    const first = await get(logsAll);
    const body = (await first.json()) as Record<string, unknown> & { result: unknown[]; next_page_token: string };
    expect(body.result).toHaveLength(100);
    expect(body).toMatchObject({ truncated: true, rows_before_limit_at_least: 150 });
    expect(truncationHeaders(first)).toEqual(["true", "150"]);
    const last = await get(`${logsAll}&page_token=${encodeURIComponent(body.next_page_token)}`);
    const lastBody = (await last.json()) as Record<string, unknown> & { result: unknown[] };
    expect(lastBody.result).toHaveLength(50);
    expect(lastBody).toMatchObject({ truncated: false, rows_before_limit_at_least: 50 });
    expect(truncationHeaders(last)).toEqual(["false", "50"]);
  });

  it.each(["csv", "ndjson"])("says it in the headers of a %s body", async (format) => {
    const response = await get(`${logsAll}&format=${format}`);
    expect(response.status).toBe(200);
    expect(truncationHeaders(response)).toEqual(["true", "150"]);
  });

  it("says nothing was left out of an answer under max_rows, on a miss and on the cached hit", async () => {
    for (const cache of ["MISS", "HIT"]) {
      const response = await get(apiCounts);
      expect(response.headers.get("x-cache")).toBe(cache);
      const body = (await response.json()) as Record<string, unknown> & { result: unknown[] };
      expect(body.result).toHaveLength(hourBuckets);
      expect(body).toMatchObject({ truncated: false, rows_before_limit_at_least: hourBuckets });
      expect(truncationHeaders(response)).toEqual(["false", String(hourBuckets)]);
    }
  });

  it("lets a page of another origin read the headers", async () => {
    const response = await fetch(`${server.url}${apiCounts}`, {
      headers: { "x-api-key": TEST_API_KEY, origin: "https://elsewhere.example" },
    });
    const exposed = response.headers.get("access-control-expose-headers") ?? "";
    expect(exposed).toContain("X-Result-Truncated");
    expect(exposed).toContain("X-Rows-Before-Limit");
  });
});

describe("RPC", () => {
  it("carries them in the response message over Connect and grpc-js", async () => {
    const logsMethod = LogsService.method.getAllLogs;
    const countsMethod = UsageService.method.getApiCounts;
    const headers = { "x-api-key": TEST_API_KEY };
    for (const client of clients) {
      const logs = create(logsMethod.input, { project, projectTier: "FREE" } as never) as Message;
      const page = await client.call(LogsService, logsMethod, logs, { headers });
      expect(page.ok && page.message, client.name).toMatchObject({ truncated: true, rowsBeforeLimitAtLeast: 150n });
      const counts = create(countsMethod.input, { project, interval: "hourly" } as never) as Message;
      const answer = await client.call(UsageService, countsMethod, counts, { headers });
      expect(answer.ok && answer.message, client.name).toMatchObject({
        truncated: false,
        rowsBeforeLimitAtLeast: BigInt(hourBuckets),
      });
    }
  });
});

describe("past max_rows", () => {
  it("says rows were left out and how many buckets there were", async () => {
    const registry = createEndpointRegistry({ services: savedQueryServices });
    const counts = registry.find("usage.api-counts")!;
    const capped: Endpoint = { ...counts, savedQuery: { ...counts.savedQuery, maxRows: 10 } };
    const executor = createQueryExecutor({ client: warehouse.client, clock: fixedClock(NOW) });
    const service = createEndpointService({ executor, clock: fixedClock(NOW) });
    const request = create(counts.method.input, { project, interval: "minutely" } as never) as Message;
    const result = await service.run(capped, request);
    const body = JSON.parse(result.json().toString()) as Record<string, unknown> & { result: unknown[] };
    expect(body.result).toHaveLength(10);
    expect(body).toMatchObject({ truncated: true, rows_before_limit_at_least: minuteBuckets });
    expect(result.message()).toMatchObject({ truncated: true, rowsBeforeLimitAtLeast: BigInt(minuteBuckets) });
  });
});
