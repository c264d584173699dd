// Watch streams at scale and at their ends, with @grpc/grpc-js: a thousand
// watchers of one key over one HTTP/2 connection cost one warehouse query
// per refresh; one past a caller's bound is RESOURCE_EXHAUSTED; a key the
// key file drops ends its streams UNAUTHENTICATED; a shutdown ends every
// stream UNAVAILABLE.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyDigest } from "../../../src/auth/index.js";
import { GetApiCountsRequestSchema, UsageService } from "../../../src/gen/usage/v1/usage_pb.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";
import { edgeLogRow, grpcJsWatch, importRows, type WatchReader } from "../../support/watch-clients.js";

const watchers = 1_000;
const fileKey = "file-watcher-key-0123456789";
const watchApiCounts = UsageService.method.watchApiCounts;
const request = create(GetApiCountsRequestSchema, { project: "rpc", interval: "hourly" });

let directory: string;
let keysPath: string;
let warehouse: Warehouse;
let server: TestServer;
let client: grpc.Client;

beforeAll(async () => {
  directory = makeTemporaryDirectory("sqe-watch-bounds-");
  keysPath = join(directory, "keys.json");
  writeFileSync(keysPath, JSON.stringify({ keys: [{ id: "watcher", sha256: keyDigest(fileKey) }] }));
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  server = await startTestServer(
    warehouse,
    NOW,
    {
      keyFile: { path: keysPath, pollMs: 50 },
      watch: { bounds: { maxStreams: 5_000, perCaller: watchers, perAddress: 5_000 } },
    },
    { maxConcurrentStreams: 5_000, maxStreamsPerAddress: 5_000 },
  );
  client = new grpc.Client(server.address, grpc.credentials.createInsecure());
});
afterAll(async () => {
  client?.close();
  await server?.close();
  await warehouse?.close();
  removeTemporaryDirectory(directory);
});

/** The count of warehouse queries of `endpoint` in /metrics. */
async function warehouseQueries(endpoint: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text
    .split("\n")
    .find((l) => l.startsWith("sqe_warehouse_query_duration_seconds_count{") && l.includes(`endpoint="${endpoint}"`));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1));
}

const open = (key: string, timeoutMs?: number): WatchReader =>
  grpcJsWatch(client, UsageService, watchApiCounts, request, { headers: { "x-api-key": key }, timeoutMs });

describe("watch stream bounds and ends", () => {
  const streams: WatchReader[] = [];

  it("feeds a thousand watchers of one key from one warehouse query per refresh", async () => {
    for (let i = 0; i < watchers; i++) streams.push(open(TEST_API_KEY));
    await Promise.all(streams.map((s) => s.until(1, 20_000)));
    const before = await warehouseQueries("usage.api-counts");
    await importRows(server.url, TEST_API_KEY, "edge_logs", [edgeLogRow(1, NOW - 5 * 60_000)]);
    await Promise.all(streams.map((s) => s.until(2, 20_000)));
    expect((await warehouseQueries("usage.api-counts")) - before).toBe(1);
  }, 60_000);

  it("refuses one stream past the caller's bound with RESOURCE_EXHAUSTED", async () => {
    const refused = await open(TEST_API_KEY).ended;
    expect(refused.code).toBe(Code.ResourceExhausted);
    expect(refused.message).toContain("watch streams");
    for (const stream of streams.splice(0)) stream.cancel();
  });

  it("ends a key-file key's stream with UNAUTHENTICATED once the file drops the key", async () => {
    const stream = open(fileKey);
    await stream.until(1);
    writeFileSync(keysPath, JSON.stringify({ keys: [] }));
    const ended = await Promise.race([stream.ended, new Promise<undefined>((resolve) => setTimeout(resolve, 2_000))]);
    expect(ended?.code).toBe(Code.Unauthenticated);
  });

  it("ends every stream with UNAVAILABLE at shutdown", async () => {
    const stream = open(TEST_API_KEY);
    await stream.until(1);
    server.app.endStreams();
    expect((await stream.ended).code).toBe(Code.Unavailable);
  });
});

describe("watch streams of one address", () => {
  const otherKey = "other-watcher-key-0123456789";
  let boundedDirectory: string;
  let bounded: TestServer;
  let boundedClient: grpc.Client;

  beforeAll(async () => {
    boundedDirectory = makeTemporaryDirectory("sqe-watch-address-");
    const path = join(boundedDirectory, "keys.json");
    writeFileSync(path, JSON.stringify({ keys: [{ id: "other-watcher", sha256: keyDigest(otherKey) }] }));
    bounded = await startTestServer(warehouse, NOW, {
      keyFile: { path },
      watch: { bounds: { maxStreams: 100, perCaller: 100, perAddress: 2 } },
    });
    boundedClient = new grpc.Client(bounded.address, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    boundedClient?.close();
    await bounded?.close();
    removeTemporaryDirectory(boundedDirectory);
  });

  it("refuses a third stream from the address, whatever its key, with RESOURCE_EXHAUSTED naming the bound", async () => {
    const watch = (key: string) =>
      grpcJsWatch(boundedClient, UsageService, watchApiCounts, request, { headers: { "x-api-key": key } });
    const first = watch(TEST_API_KEY);
    const second = watch(TEST_API_KEY);
    await Promise.all([first.until(1), second.until(1)]);
    const refused = await watch(otherKey).ended;
    expect(refused.code).toBe(Code.ResourceExhausted);
    expect(refused.message).toContain("MAX_WATCH_STREAMS_PER_ADDRESS");
    first.cancel();
    second.cancel();
  });
});
