// With traces on, calls take the same path as without: a gRPC cache hit is
// answered by the fast path (it keeps the bytes it wrote with the cached
// result), HTTP/2 streams are still taken bare, and each call still gets its
// server span, ended once with its code, cache outcome and status.
import { create, toBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FunctionsService, GetInvocationStatsRequestSchema } from "../../../src/gen/functions/v1/functions_pb.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { functionEdgeRow, insertRows, openTestWarehouse, ts } from "../../support/embedded-warehouse.js";
import { envelope, exchangeHttp2 } from "../../support/raw-exchange.js";
import { type RecordingTracing, recordingTracing } from "../../support/recording-tracing.js";
import { NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

let warehouse: Warehouse;
let server: TestServer;
let tracing: RecordingTracing;

beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertRows(warehouse, "function_edge_logs", [
    functionEdgeRow({ project: "traced", functionId: "f", timestamp: ts(NOW - 60_000), executionTimeMs: 5 }),
  ]);
  tracing = recordingTracing();
  server = await startTestServer(warehouse, NOW, { tracing });
});
afterAll(async () => {
  await server?.close();
  await warehouse?.close();
});

const key = { "x-api-key": TEST_API_KEY };

/** The call spans recorded since `from`, as their name and the attributes a reader checks. */
function callSpans(from: number) {
  return tracing.spans
    .slice(from)
    .filter((span) => span.kind === "call")
    .map((span) => ({
      name: span.name,
      protocol: span.attributes["sqe.protocol"],
      code: span.attributes["sqe.code"],
      cache: span.attributes["sqe.cache"],
      status: span.attributes["http.response.status_code"],
      ends: span.ends,
    }));
}

/** Waits for the spans' ends, which come when each stream closes. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 50));

describe("with traces on", () => {
  it("answers a gRPC hit on the fast path, in a span of its own", async () => {
    const message = toBinary(
      GetInvocationStatsRequestSchema,
      create(GetInvocationStatsRequestSchema, { project: "traced", interval: "1hr" }),
    );
    const call = {
      method: "POST" as const,
      path: `/${FunctionsService.typeName}/${FunctionsService.method.getInvocationStats.name}`,
      headers: { ...key, "content-type": "application/grpc", te: "trailers" },
      body: envelope(Buffer.from(message)),
    };
    const miss = await exchangeHttp2(server.url, call);
    expect(miss.trailers).toContainEqual(["grpc-status", "0"]);
    await settled();
    const from = tracing.spans.length;
    const before = server.app.cache.size.bytes;
    const hit = await exchangeHttp2(server.url, call);
    await settled();
    expect(hit.headers).toContainEqual(["x-cache", "HIT"]);
    // Only the fast path keeps the message it wrote with the cached result: the router makes it anew each time.
    expect(server.app.cache.size.bytes - before).toBeGreaterThanOrEqual(hit.body.length);
    expect(callSpans(from)).toEqual([
      { name: "functions.invocation-stats", protocol: "grpc", code: "ok", cache: "hit", status: 200, ends: 1 },
    ]);
  });

  it("keeps taking HTTP/2 streams bare, and answers a GET hit over h2c in a span of its own", async () => {
    expect(server.app.streams).toBeDefined();
    const call = {
      method: "GET" as const,
      path: "/api/endpoints/functions.invocation-stats?project=traced&interval=1day",
      headers: key,
    };
    await exchangeHttp2(server.url, call);
    await settled();
    const from = tracing.spans.length;
    const hit = await exchangeHttp2(server.url, call);
    await settled();
    expect([hit.status, hit.headers.find(([name]) => name === "x-cache")?.[1]]).toEqual([200, "HIT"]);
    expect(callSpans(from)).toEqual([
      { name: "functions.invocation-stats", protocol: "http", code: "ok", cache: "hit", status: 200, ends: 1 },
    ]);
  });
});
