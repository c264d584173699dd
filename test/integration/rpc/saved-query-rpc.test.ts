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
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { withSlowQuery } from "../../support/slow-sql.js";
import {
  expectedApiCounts,
  expectedInvocationStats,
  expectedLogIds,
  insertScenario,
  NOW,
} from "../../support/scenario.js";
import { allClients, type CallOutcome, type RpcClient } from "../../support/rpc-clients.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const key = { "x-api-key": TEST_API_KEY };

let warehouse: Warehouse;
let server: TestServer;
let slowServer: TestServer;
let clients: RpcClient[];

beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  server = await startTestServer(warehouse, NOW);
  // The same service, with invocation-stats made slow on purpose (it scans 10^11 numbers).
  slowServer = await startTestServer(warehouse, NOW, {
    defaultTimeoutMs: 500,
    readSql: withSlowQuery("functions.invocation-stats"),
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

describe.each(["connect", "connect over h2c", "grpc", "grpc-web", "@grpc/grpc-js"])("over %s", (clientName) => {
  const client = () => clients.find((c) => c.name === clientName)!;

  it("returns invocation stats per hour bucket", async () => {
    const response = ok<GetInvocationStatsResponse>(
      await call(client(), invocationStats({ project: "rpc" }), { headers: key }),
    );
    expect(
      response.result.map((r) => [
        timestampMs(r.timestamp!),
        r.count,
        r.errorCount,
        r.minExecutionTime,
        r.maxExecutionTime,
        r.avgExecutionTime,
      ]),
    ).toEqual(expectedInvocationStats.map(([t, n, e, ...times]) => [t, BigInt(n), BigInt(e), ...times]));
    expect(response.result[0]?.p95ExecutionTime).toBe(20); // a single value is its own percentile
  });

  it("returns api counts per hour within the last hour", async () => {
    const response = ok<GetApiCountsResponse>(
      await call(client(), apiCounts({ project: "//rpc\\.", interval: "hourly" }), { headers: key }),
    );
    expect(
      response.result.map((r) => [
        timestampMs(r.timestamp!),
        r.totalRestRequests,
        r.totalStorageRequests,
        r.totalAuthRequests,
        r.totalRealtimeRequests,
      ]),
    ).toEqual(expectedApiCounts.map(([t, ...counts]) => [t, ...counts.map(BigInt)]));
  });

  it("returns the project's logs newest first", async () => {
    const response = ok<GetAllLogsResponse>(await call(client(), allLogs({ project: "rpc" }), { headers: key }));
    expect(response.result.map((r) => r.id)).toEqual(expectedLogIds);
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
    if (clientName !== "@grpc/grpc-js")
      expect((outcome as { fields: string[] }).fields).toEqual(["project", "interval"]);
  });

  it("refuses a value longer than 1,024 characters and a Unicode class in a pattern, naming the field", async () => {
    const long = await call(client(), apiCounts({ project: "x".repeat(1025), interval: "daily" }), { headers: key });
    expect(long).toMatchObject({
      ok: false,
      code: Code.InvalidArgument,
      message: "project is longer than 1024 characters",
    });
    const unicode = await call(client(), apiCounts({ project: "\\P{Nd}{100}", interval: "daily" }), { headers: key });
    expect(unicode).toMatchObject({ ok: false, code: Code.InvalidArgument });
    expect((unicode as { message: string }).message).toMatch(/^project must not use Unicode classes/);
  });

  it("answers DEADLINE_EXCEEDED when the client's deadline is shorter than the query", async () => {
    const slowClients = allClients(slowServer.url, slowServer.address);
    const slow = slowClients.find((c) => c.name === clientName)!;
    const outcome = await call(slow, invocationStats({ project: "rpc" }), { headers: key, timeoutMs: 300 });
    for (const c of slowClients) c.close();
    expect(outcome).toMatchObject({ ok: false, code: Code.DeadlineExceeded });
  });
});

describe("a deadline already over when the call arrives", () => {
  it("is answered DEADLINE_EXCEEDED on a cache miss, starts no query, and leaves the process serving", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const response = await fetch(`${server.url}/functions.v1.FunctionsService/GetInvocationStats`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "connect-protocol-version": "1",
          "connect-timeout-ms": "0",
          ...key,
        },
        body: JSON.stringify({ project: "already-over" }),
      });
      expect(((await response.json()) as { code: string }).code).toBe("deadline_exceeded");
      // Before the fix the cache started a computation nobody waited for, whose failure ended the process.
      await new Promise((r) => setTimeout(r, 200));
      expect(unhandled).toEqual([]);
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(metrics).not.toMatch(
        /sqe_warehouse_query_errors_total\{endpoint="functions\.invocation-stats",code="deadline_exceeded"\}/,
      );
      const again = await call(clients[0]!, invocationStats({ project: "rpc" }), { headers: key });
      expect(again.ok).toBe(true);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});

describe("a deadline longer than a timer can hold", () => {
  it("is cut to the service's longest, not taken as over at once", async () => {
    const response = await fetch(`${server.url}/functions.v1.FunctionsService/GetInvocationStats`, {
      method: "POST",
      // 2^31 ms, some 25 days: Node would fire a timer of it at once.
      headers: {
        "content-type": "application/json",
        "connect-protocol-version": "1",
        "connect-timeout-ms": "2147483648",
        ...key,
      },
      body: JSON.stringify({ project: "rpc", interval: "1day" }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { count: string }[] };
    expect(body.result.map((row) => Number(row.count))).toEqual(expectedInvocationStats.map(([, n]) => n));
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
