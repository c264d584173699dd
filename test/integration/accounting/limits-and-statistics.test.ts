// Read limits and warehouse statistics through the real server over the
// demo data (usage.api-counts daily reads about 40,000 rows, hourly about
// 4,700): a credential's and the default limit refusing a call over GET,
// Connect and grpc-js while a call under them succeeds, and one cached
// result's statistics equal on GET's headers and gRPC's trailers. A saved
// query's own limit is a proto option, not settable in a test server; its
// refusal is covered below the transport (warehouse/read-limits.test.ts).
// The daily calls are refused by their estimate, before they run, so each
// message ends with it (accounting/estimates.test.ts checks its figures).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { create, type Message } from "@bufbuild/protobuf";
import { Code, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyDigest } from "../../../src/auth/index.js";
import { UsageService } from "../../../src/gen/usage/v1/usage_pb.js";
import { seedDemoData, type Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { allClients, type RpcClient } from "../../support/rpc-clients.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const limitedKey = "tenant-limited-key-0123456789";
const method = UsageService.method.getApiCounts;

let warehouse: Warehouse;
let directory: string;
let server: TestServer;
let clients: RpcClient[];
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await seedDemoData(warehouse.client, { now: NOW });
  directory = makeTemporaryDirectory("sqe-limits-");
  const keysPath = join(directory, "keys.json");
  const entry = { id: "tenant-limited", sha256: keyDigest(limitedKey), max_rows_to_read: 10_000 };
  writeFileSync(keysPath, JSON.stringify({ keys: [entry] }));
  server = await startTestServer(warehouse, NOW, {
    keyFile: { path: keysPath, pollMs: 0 },
    readLimits: { maxRowsToRead: 30_000 },
  });
  clients = allClients(server.url, server.address).filter((c) => c.name === "connect" || c.name === "@grpc/grpc-js");
}, 120_000);
afterAll(async () => {
  for (const client of clients ?? []) client.close();
  await server?.close();
  await warehouse?.close();
  if (directory !== undefined) removeTemporaryDirectory(directory);
});

const params = (interval: string) => ({ project: "supabase", interval });
/** The refusal's message: the limit, then the estimate. */
const refusalMessage = (limit: string) =>
  expect.stringMatching(
    new RegExp(`^${limit.replace(/[()]/g, "\\$&")} \\(estimated \\d+ rows in \\d+ parts, \\d+ marks\\)$`),
  );
const getCall = (key: string, interval: string) =>
  fetch(`${server.url}/api/endpoints/usage.api-counts?project=supabase&interval=${interval}`, {
    headers: { "x-api-key": key },
  });

describe.each([
  ["the default", TEST_API_KEY, "rows to read past the limit of 30000 set by the service's default"],
  ["the credential's", limitedKey, "rows to read past the limit of 10000 set by the credential"],
])("%s read limit", (_source, key, message) => {
  it("refuses a daily call over GET with 429, no Retry-After, naming the limit, and answers an hourly one", async () => {
    const refused = await getCall(key, "daily");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeNull();
    expect(((await refused.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "resource_exhausted",
      message: refusalMessage(message),
    });
    const answered = await getCall(key, "hourly");
    expect(answered.status).toBe(200);
    expect(Number(answered.headers.get("x-rows-read"))).toBeLessThan(10_000);
  });

  it("refuses it over Connect and grpc-js as resource_exhausted, and answers an hourly one", async () => {
    const headers = { "x-api-key": key };
    for (const client of clients) {
      const daily = create(method.input, params("daily")) as Message;
      expect(await client.call(UsageService, method, daily, { headers }), client.name).toEqual({
        ok: false,
        code: Code.ResourceExhausted,
        message: refusalMessage(message),
        fields: [],
      });
      const hourly = create(method.input, params("hourly")) as Message;
      expect((await client.call(UsageService, method, hourly, { headers })).ok, client.name).toBe(true);
    }
  });
});

/** Server-Timing's `warehouse` entry of an answer. */
const warehouseTimingOf = (headers: Headers) => /warehouse;dur=[\d.]+/.exec(headers.get("server-timing") ?? "")?.[0];

describe("statistics of one cached result", () => {
  it("are the same on GET's headers, Connect's headers, gRPC's trailers and a GET hit's headers", async () => {
    // An interval no other test asks for: the GET call computes the result, the RPC calls are hits of it.
    const request = { project: "supabase", interval: "minutely" };
    const computed = await getCall(TEST_API_KEY, "minutely");
    expect(computed.headers.get("x-cache")).toBe("MISS");
    const rowsRead = computed.headers.get("x-rows-read");
    const bytesRead = computed.headers.get("x-bytes-read");
    const warehouseTiming = warehouseTimingOf(computed.headers);
    expect(Number(rowsRead)).toBeGreaterThan(0);
    expect(Number(bytesRead)).toBeGreaterThan(Number(rowsRead));
    expect(warehouseTiming).toBeDefined();

    const figures = (fields: Headers) => [
      fields.get("x-rows-read"),
      fields.get("x-bytes-read"),
      fields.get("server-timing"),
    ];
    const expected = [rowsRead, bytesRead, warehouseTiming];
    const callOptions = { headers: { "x-api-key": TEST_API_KEY } };
    let grpcTrailers: Headers | undefined;
    let grpcHeaders: Headers | undefined;
    await createClient(UsageService, createGrpcTransport({ baseUrl: server.url })).getApiCounts(request, {
      ...callOptions,
      onHeader: (h) => (grpcHeaders = h),
      onTrailer: (t) => (grpcTrailers = t),
    });
    expect(grpcHeaders?.get("x-cache")).toBe("HIT");
    expect(figures(grpcTrailers!)).toEqual(expected);
    let connectHeaders: Headers | undefined;
    await createClient(UsageService, createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" })).getApiCounts(
      request,
      { ...callOptions, onHeader: (h) => (connectHeaders = h) },
    );
    expect(connectHeaders?.get("x-cache")).toBe("HIT");
    expect(figures(connectHeaders!)).toEqual(expected);
    const hit = await getCall(TEST_API_KEY, "minutely");
    expect(hit.headers.get("x-cache")).toBe("HIT");
    expect(hit.headers.get("server-timing")).toMatch(/^cache;desc="hit";dur=[\d.]+, warehouse;dur=[\d.]+$/);
    expect([hit.headers.get("x-rows-read"), hit.headers.get("x-bytes-read"), warehouseTimingOf(hit.headers)]).toEqual(
      expected,
    );
  });
});
