// Every poll a live tail runs is a call-log record of its own, against the
// caller it ran as, with the rows and bytes its queries read (protocol
// `watch`), through the real server; polls are driven by the test.
import { create } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GetAllLogsRequestSchema, LogsService } from "../../../src/gen/logs/v1/logs_pb.js";
import type { CallLogRow, Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";
import { grpcJsWatch } from "../../support/watch-clients.js";

let warehouse: Warehouse;
let server: TestServer;
let client: grpc.Client;
const rows: CallLogRow[] = [];

beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  server = await startTestServer(warehouse, NOW, { callLog: { flushMs: 60_000 }, watch: { tailPollMs: 600_000 } });
  vi.spyOn(server.app.callLog, "record").mockImplementation((row) => void rows.push(row));
  client = new grpc.Client(server.address, grpc.credentials.createInsecure());
});
afterAll(async () => {
  client?.close();
  await server?.close();
  await warehouse?.close();
});

describe("the cost of a tail's polls", () => {
  it("records each poll with the rows it read, against the tail's caller", async () => {
    const request = create(GetAllLogsRequestSchema, { project: "rpc" });
    const tail = grpcJsWatch(client, LogsService, LogsService.method.watchAllLogs, request, {
      headers: { "x-api-key": TEST_API_KEY },
    });
    await tail.until(1);
    await server.app.watchHub.pollNow();
    await server.app.watchHub.pollNow();
    const polls = rows.filter((row) => row.protocol === "watch");
    expect(polls).toHaveLength(2);
    for (const poll of polls) {
      expect(poll).toMatchObject({ endpoint: "logs.all", code: "ok", cache: "none", responseBytes: 0 });
      // The poll read the project's part of edge_logs: at least its rows of the scenario (e1, e2, e3).
      expect(poll.rowsRead).toBeGreaterThanOrEqual(3);
      expect(poll.bytesRead).toBeGreaterThan(0);
      expect(poll.requestId).toMatch(/^watch-/);
    }
    // The caller the poll ran as is the one the stream's own record names.
    tail.cancel();
    await vi.waitFor(() => expect(rows.some((row) => row.protocol === "grpc")).toBe(true));
    const stream = rows.find((row) => row.protocol === "grpc")!;
    expect(new Set(polls.map((poll) => poll.caller))).toEqual(new Set([stream.caller]));
  });
});
