// The three saved queries over the real server with real clients: the
// buf-generated Connect client on the Connect, gRPC and gRPC-Web transports,
// and @grpc/grpc-js. Rows, keys, invalid arguments and deadlines.
import { create, type DescMethod, type DescService, type Message } from "@bufbuild/protobuf";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FunctionsService, type GetInvocationStatsResponse } from "../../../src/gen/functions/v1/functions_pb.js";
import { LogsService, type GetAllLogsResponse } from "../../../src/gen/logs/v1/logs_pb.js";
import { UsageService, type GetApiCountsResponse } from "../../../src/gen/usage/v1/usage_pb.js";
import { readSavedQuerySql, type Warehouse } from "../../../src/warehouse/index.js";
import { edgeRow, functionEdgeRow, insertRows, openTestWarehouse, ts } from "../../support/embedded-warehouse.js";
import { allClients, type CallOutcome, type RpcClient } from "../../support/rpc-clients.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const NOW = Date.UTC(2026, 10, 20, 12, 34, 56, 789);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const key = { "x-api-key": TEST_API_KEY };

let warehouse: Warehouse;
let server: TestServer;
let slowServer: TestServer;
let clients: RpcClient[];

beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertRows(warehouse, "function_edge_logs", [
    functionEdgeRow({ project: "rpc", functionId: "f1", timestamp: ts(NOW - 30 * MINUTE), executionTimeMs: 10 }),
    functionEdgeRow({ project: "rpc", functionId: "f1", timestamp: ts(NOW - 30 * MINUTE), executionTimeMs: 30, status: 500 }),
    functionEdgeRow({ project: "rpc", functionId: "f2", timestamp: ts(NOW - 3 * HOUR), executionTimeMs: 20 }),
  ]);
  await insertRows(warehouse, "edge_logs", [
    edgeRow({ project: "rpc", id: "e1", path: "/rest/v1/a", timestamp: ts(NOW - 10 * MINUTE) }),
    edgeRow({ project: "rpc", id: "e2", path: "/auth/v1/token", timestamp: ts(NOW - 20 * MINUTE) }),
    edgeRow({ project: "rpc", id: "e3", path: "/rest/v1/rpc/auth", timestamp: ts(NOW - 70 * MINUTE) }),
  ]);
  server = await startTestServer(warehouse, NOW);
  // The same service, with invocation-stats made slow on purpose (it scans 10^11 numbers).
  slowServer = await startTestServer(warehouse, NOW, {
    defaultTimeoutMs: 500,
    readSql: (name) =>
      name === "functions.invocation-stats"
        ? `SELECT count() AS count FROM numbers(100000000000)
           WHERE sipHash64(number) = 0 AND {project:String} != '' AND {function_id:String} = ''
             AND {interval:String} != '' AND {now:DateTime64(6, 'UTC')} IS NOT NULL`
        : readSavedQuerySql(name),
  });
  clients = allClients(server.url, server.address);
});
afterAll(async () => {
  for (const client of clients ?? []) client.close();
  await server?.close();
  await slowServer?.close();
  await warehouse?.close();
});

function request(service: DescService, methodName: string, fields: Record<string, string>) {
  const method = service.methods.find((m) => m.name === methodName)!;
  return { service, method, message: create(method.input, fields as never) as Message };
}
const invocationStats = (fields: Record<string, string>) => request(FunctionsService, "GetInvocationStats", fields);
const apiCounts = (fields: Record<string, string>) => request(UsageService, "GetApiCounts", fields);
const allLogs = (fields: Record<string, string>) => request(LogsService, "GetAllLogs", fields);

async function call(
  client: RpcClient,
  r: { service: DescService; method: DescMethod; message: Message },
  options = {},
): Promise<CallOutcome> {
  return client.call(r.service, r.method, r.message, options);
}
function ok<T>(outcome: CallOutcome): T {
  if (!outcome.ok) throw new Error(`expected success, got ${Code[outcome.code]}: ${outcome.message}`);
  return outcome.message as T;
}
const hour = (ms: number) => Math.floor(ms / HOUR) * HOUR;

describe.each(["connect", "connect over h2c", "grpc", "grpc-web", "@grpc/grpc-js"])("over %s", (clientName) => {
  const client = () => clients.find((c) => c.name === clientName)!;

  it("returns invocation stats per hour bucket", async () => {
    const response = ok<GetInvocationStatsResponse>(await call(client(), invocationStats({ project: "rpc" }), { headers: key }));
    expect(
      response.result.map((r) => [timestampMs(r.timestamp!), r.count, r.errorCount, r.minExecutionTime, r.maxExecutionTime, r.avgExecutionTime]),
    ).toEqual([
      [hour(NOW - 3 * HOUR), 1n, 0n, 20, 20, 20],
      [hour(NOW - 30 * MINUTE), 2n, 1n, 10, 30, 20],
    ]);
    expect(response.result[0]?.p95ExecutionTime).toBe(20); // a single value is its own percentile
  });

  it("returns api counts per hour within the last hour", async () => {
    const response = ok<GetApiCountsResponse>(await call(client(), apiCounts({ project: "//rpc\\.", interval: "hourly" }), { headers: key }));
    // e3 is 70 minutes old: outside the window. e1 counts as rest, e2 as auth.
    expect(
      response.result.map((r) => [timestampMs(r.timestamp!), r.totalRestRequests, r.totalStorageRequests, r.totalAuthRequests, r.totalRealtimeRequests]),
    ).toEqual([[hour(NOW - 10 * MINUTE), 1n, 0n, 1n, 0n]]);
  });

  it("returns the project's logs newest first", async () => {
    const response = ok<GetAllLogsResponse>(await call(client(), allLogs({ project: "rpc" }), { headers: key }));
    expect(response.result.map((r) => r.id)).toEqual(["e1", "e2", "e3"]);
    expect(response.result[0]?.metadata[0]).toMatchObject({ request: [{ path: "/rest/v1/a" }] });
  });

  it.each([
    ["a missing key", {}],
    ["a wrong key", { "x-api-key": "not-the-key" }],
    ["a wrong bearer token", { authorization: "Bearer not-the-key" }],
  ])("refuses %s as UNAUTHENTICATED", async (_label, headers) => {
    const outcome = await call(client(), logsRequest(), { headers });
    expect(outcome).toMatchObject({ ok: false, code: Code.Unauthenticated, message: "missing or invalid API key" });
  });

  it("accepts the key as a bearer token", async () => {
    const outcome = await call(client(), logsRequest(), { headers: { authorization: `Bearer ${TEST_API_KEY}` } });
    expect(outcome.ok).toBe(true);
  });

  it("lists every invalid argument at once", async () => {
    const outcome = await call(client(), apiCounts({ interval: "weekly" }), { headers: key });
    expect(outcome).toMatchObject({
      ok: false,
      code: Code.InvalidArgument,
      message: "project is required; interval must be one of hourly, daily, minutely",
    });
    // Field violations travel as google.rpc.BadRequest details; grpc-js does not decode details.
    if (clientName !== "@grpc/grpc-js") expect((outcome as { fields: string[] }).fields).toEqual(["project", "interval"]);
  });

  it("answers DEADLINE_EXCEEDED when the client's deadline is shorter than the query", async () => {
    const slowClients = allClients(slowServer.url, slowServer.address);
    const slow = slowClients.find((c) => c.name === clientName)!;
    const outcome = await call(slow, invocationStats({ project: "rpc" }), { headers: key, timeoutMs: 300 });
    for (const c of slowClients) c.close();
    expect(outcome).toMatchObject({ ok: false, code: Code.DeadlineExceeded });
  });
});

describe("server default deadline", () => {
  it("ends a call whose client set no deadline after the server's default", async () => {
    const slowClients = allClients(slowServer.url, slowServer.address);
    const outcome = await call(slowClients[0]!, invocationStats({ project: "rpc" }), { headers: key });
    for (const c of slowClients) c.close();
    expect(outcome).toMatchObject({ ok: false, code: Code.DeadlineExceeded });
  });
});

function logsRequest() {
  return allLogs({ project: "rpc" });
}
