// The call log through the real server: calls of two key-file keys over GET,
// Connect, gRPC and gRPC-Web (hits on the fast paths included) appear in
// service.call-stats within one flush, each key seeing its own calls only and
// the full-access key both; with the table gone (an insert that fails for
// real), calls are answered as fast as ever and the log keeps at most its
// bound of aggregates, the oldest dropped and their calls counted.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyDigest } from "../../../src/auth/index.js";
import { UsageService } from "../../../src/gen/usage/v1/usage_pb.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const FLUSH_MS = 200;
const keys = { "tenant-a": "tenant-a-key-0123456789", "tenant-b": "tenant-b-key-0123456789" } as const;

let warehouse: Warehouse;
let directory: string;
let keysPath: string;
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  directory = makeTemporaryDirectory("sqe-call-log-");
  keysPath = join(directory, "keys.json");
  const entries = Object.entries(keys).map(([id, key]) => ({ id, sha256: keyDigest(key) }));
  writeFileSync(keysPath, JSON.stringify({ keys: entries }));
});
afterAll(async () => {
  await warehouse?.close();
  if (directory !== undefined) removeTemporaryDirectory(directory);
});

const getApiCounts = (server: TestServer, key: string, requestId: string) =>
  fetch(`${server.url}/api/endpoints/usage.api-counts?project=rpc&interval=hourly`, {
    headers: { "x-api-key": key, "x-request-id": requestId },
  });

/** Two GET calls (a miss or a hit, then a hit) and one call over each RPC protocol, hits of the fast path. */
async function callEveryWay(server: TestServer, key: string): Promise<void> {
  expect((await getApiCounts(server, key, "get-1")).status).toBe(200);
  expect((await getApiCounts(server, key, "get-2")).status).toBe(200);
  const transports = [
    createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" }),
    createGrpcTransport({ baseUrl: server.url }),
    createGrpcWebTransport({ baseUrl: server.url, httpVersion: "1.1" }),
  ];
  for (const transport of transports) {
    await createClient(UsageService, transport).getApiCounts(
      { project: "rpc", interval: "hourly" },
      { headers: { "x-api-key": key } },
    );
  }
}

async function callStats(server: TestServer, key: string): Promise<{ endpoint: string; calls: number }[]> {
  const response = await fetch(
    `${server.url}/api/endpoints/service.call-stats?interval=minutely&endpoint=usage.api-counts`,
    { headers: { "x-api-key": key } },
  );
  expect(response.status).toBe(200);
  const body = (await response.json()) as { result: { endpoint: string; calls: number | string }[] };
  return body.result.map((r) => ({ endpoint: r.endpoint, calls: Number(r.calls) }));
}

describe("calls of two scoped keys over every transport", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(warehouse, NOW, {
      keyFile: { path: keysPath, pollMs: 0 },
      callLog: { flushMs: FLUSH_MS },
    });
  });
  afterAll(async () => server?.close());

  it("appear in service.call-stats within one flush, each key seeing its own, the full-access key both", async () => {
    await callEveryWay(server, keys["tenant-a"]);
    await callEveryWay(server, keys["tenant-b"]);
    // A miss over gRPC, answered by the Connect router rather than the fast path.
    await createClient(UsageService, createGrpcTransport({ baseUrl: server.url })).getApiCounts(
      { project: "rpc", interval: "minutely" },
      { headers: { "x-api-key": keys["tenant-a"] } },
    );
    await sleep(FLUSH_MS + 250);
    const recorded = await warehouse.client.query({
      query: `SELECT caller, protocol, code, cache, sum(calls) AS calls, sum(rows_read) > 0 AS read,
                     sum(response_bytes) > 0 AS sent
              FROM service_call_aggregates GROUP BY caller, protocol, code, cache ORDER BY caller, protocol, cache`,
      format: "JSONEachRow",
    });
    const rows = (await recorded.json()) as Record<string, unknown>[];
    const expectedOf = (caller: string, firstGet: string, rpcMiss = false) => [
      { caller, protocol: "connect", code: "ok", cache: "hit", calls: 1, read: 1, sent: 1 },
      { caller, protocol: "get", code: "ok", cache: "hit", calls: firstGet === "hit" ? 2 : 1, read: 1, sent: 1 },
      ...(firstGet === "miss"
        ? [{ caller, protocol: "get", code: "ok", cache: "miss", calls: 1, read: 1, sent: 1 }]
        : []),
      { caller, protocol: "grpc", code: "ok", cache: "hit", calls: 1, read: 1, sent: 1 },
      ...(rpcMiss ? [{ caller, protocol: "grpc", code: "ok", cache: "miss", calls: 1, read: 1, sent: 1 }] : []),
      { caller, protocol: "grpc-web", code: "ok", cache: "hit", calls: 1, read: 1, sent: 1 },
    ];
    // The keys share the cached result: tenant-a's first call computes it, every other call is a hit of it.
    expect(rows.map((r) => ({ ...r, calls: Number(r.calls), read: Number(r.read), sent: Number(r.sent) }))).toEqual([
      ...expectedOf("tenant-a", "miss", true),
      ...expectedOf("tenant-b", "hit"),
    ]);

    expect(await callStats(server, keys["tenant-a"])).toEqual([{ endpoint: "usage.api-counts", calls: 6 }]);
    expect(await callStats(server, keys["tenant-b"])).toEqual([{ endpoint: "usage.api-counts", calls: 5 }]);
    expect(await callStats(server, TEST_API_KEY)).toEqual([{ endpoint: "usage.api-counts", calls: 11 }]);
  });
});

describe("a call log whose table is gone", () => {
  const MAX_ROWS = 2;
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(warehouse, NOW, { callLog: { flushMs: FLUSH_MS, maxRows: MAX_ROWS } });
    // Warm the cache, so that every later call is a hit whose time is the transport's alone.
    expect((await getApiCounts(server, TEST_API_KEY, "warm")).status).toBe(200);
    await sleep(FLUSH_MS + 250);
  });
  afterAll(async () => server?.close());

  it("never delays a call, keeps at most its bound of aggregates and writes them once the table is back", async () => {
    await warehouse.client.command({ query: "RENAME TABLE service_call_aggregates TO service_call_aggregates_away" });
    const call = { project: "rpc", interval: "hourly" } as const;
    const headers = { "x-api-key": TEST_API_KEY };
    try {
      for (let i = 1; i <= 7; i++) {
        const started = performance.now();
        expect((await getApiCounts(server, TEST_API_KEY, `outage-${i}`)).status).toBe(200);
        expect(performance.now() - started).toBeLessThan(250);
        // Let a write fail between calls.
        if (i === 3) await sleep(FLUSH_MS + 100);
      }
      // Two more aggregates for a bound of two: one held before them is dropped.
      const connect = createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" });
      await createClient(UsageService, connect).getApiCounts(call, { headers });
      const grpcWeb = createGrpcWebTransport({ baseUrl: server.url, httpVersion: "1.1" });
      await createClient(UsageService, grpcWeb).getApiCounts(call, { headers });
      await sleep(FLUSH_MS + 100);
    } finally {
      await warehouse.client.command({ query: "RENAME TABLE service_call_aggregates_away TO service_call_aggregates" });
    }
    await sleep(FLUSH_MS + 250);
    // Which aggregates went depends on whether a write was out when the bound was reached; the sums do not.
    const written = await warehouse.client.query({
      query: `SELECT count() AS aggregates, sum(calls) AS calls FROM service_call_aggregates
              WHERE caller NOT IN ('tenant-a', 'tenant-b') AND cache = 'hit'`,
      format: "JSONEachRow",
    });
    const [held] = (await written.json()) as { aggregates: string; calls: string }[];
    const dropped = (await server.app.metrics.callLogDroppedRows.get()).values[0]?.value ?? 0;
    expect(Number(held!.aggregates)).toBeLessThanOrEqual(MAX_ROWS);
    expect(dropped).toBeGreaterThan(0);
    // Seven GET hits, one Connect and one gRPC-Web call: each written or counted as dropped, once.
    expect(Number(held!.calls) + dropped).toBe(9);
  });
});

describe("a server with the call log off, over a table holding calls", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(warehouse, NOW, { callLog: { enabled: false } });
  });
  afterAll(async () => server?.close());

  it("answers service.call-stats with no rows", async () => {
    await warehouse.client.insert({
      table: "service_call_aggregates",
      values: [
        {
          timestamp: "2026-11-20 12:20:00",
          caller: "tenant-a",
          endpoint: "usage.api-counts",
          protocol: "get",
          code: "ok",
          cache: "miss",
          calls: 1,
          rows_read: 10,
          bytes_read: 100,
          response_bytes: 50,
          latency_buckets: [185],
          latency_counts: [1],
          latency_sums: [3],
        },
      ],
      format: "JSONEachRow",
    });
    const held = await warehouse.client.query({
      query: "SELECT count() AS n FROM service_call_aggregates",
      format: "JSONEachRow",
    });
    expect(Number(((await held.json()) as { n: string }[])[0]!.n)).toBeGreaterThan(0);
    expect(await callStats(server, TEST_API_KEY)).toEqual([]);
  });
});
