// Identical first queries of concurrent watches share one run: a hundred
// tails of one logs.all call, opened at once over @grpc/grpc-js, cost one
// warehouse query (counted in /metrics) and all get their first result,
// where each used to run its own and those past the key's in-flight bound
// ended RESOURCE_EXHAUSTED.
import { create } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GetAllLogsRequestSchema, LogsService } from "../../../src/gen/logs/v1/logs_pb.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";
import { grpcJsWatch, type WatchReader } from "../../support/watch-clients.js";

const tails = 100;
let warehouse: Warehouse;
let server: TestServer;
let client: grpc.Client;

beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  // No poll while the tails open: what they cost is their first results alone.
  server = await startTestServer(
    warehouse,
    NOW,
    { watch: { tailPollMs: 600_000 }, admission: { maxPerKey: 16 } },
    { maxConcurrentStreams: 1_000, maxStreamsPerAddress: 1_000 },
  );
  client = new grpc.Client(server.address, grpc.credentials.createInsecure());
});
afterAll(async () => {
  client?.close();
  await server?.close();
  await warehouse?.close();
});

/** The count of warehouse queries of `endpoint` in /metrics. */
async function warehouseQueries(endpoint: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text
    .split("\n")
    .find((l) => l.startsWith("sqe_warehouse_query_duration_seconds_count{") && l.includes(`endpoint="${endpoint}"`));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1));
}

describe("first results of concurrent tails", () => {
  it("answers a hundred tails of one call from one warehouse query", async () => {
    const before = await warehouseQueries("logs.all");
    const request = create(GetAllLogsRequestSchema, { project: "rpc" });
    const streams: WatchReader[] = [];
    for (let i = 0; i < tails; i++) {
      streams.push(
        grpcJsWatch(client, LogsService, LogsService.method.watchAllLogs, request, {
          headers: { "x-api-key": TEST_API_KEY },
        }),
      );
    }
    const firsts = await Promise.all(streams.map((s) => s.until(1, 20_000)));
    // The scenario's rows of project rpc: e1 (10 minutes ago) before e2 (20 minutes ago), newest first.
    for (const [first] of firsts) {
      expect((first as unknown as { result: { id: string }[] }).result.map((r) => r.id).slice(0, 2)).toEqual([
        "e1",
        "e2",
      ]);
    }
    expect((await warehouseQueries("logs.all")) - before).toBe(1);
    for (const stream of streams) stream.cancel();
  }, 60_000);
});
