// A live tail of logs.all that rows dated in the future cannot freeze nor
// hide: a row of 2299 (a full-access key may import it) and a burst of them
// stored before the tail opens, then a row of now, which the next poll sends.
// Polls are driven by the test (watchHub.pollNow), not by the timer.
import { create, type Message } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { afterAll, describe, expect, it } from "vitest";
import { GetAllLogsRequestSchema, LogsService } from "../../../src/gen/logs/v1/logs_pb.js";
import { NOW } from "../../support/scenario.js";
import { TEST_API_KEY, useScenarioServer } from "../../support/test-server.js";
import { edgeLogRow, grpcJsWatch, importRows, type WatchReader } from "../../support/watch-clients.js";

const year = 365 * 24 * 3600;
const { server } = useScenarioServer({
  watch: { tailPollMs: 600_000 },
  // Rows up to 2299 pass the import's check, as they would from a shipper whose clock says so.
  importBounds: { maxFutureSeconds: 300 * year },
});
const headers = { "x-api-key": TEST_API_KEY };
const clients: grpc.Client[] = [];
afterAll(() => {
  for (const client of clients) client.close();
});

const at2299 = Date.UTC(2299, 5, 1);

function openTail(project: string): WatchReader {
  const client = new grpc.Client(server().address, grpc.credentials.createInsecure());
  clients.push(client);
  const request = create(GetAllLogsRequestSchema, { project });
  return grpcJsWatch(client, LogsService, LogsService.method.watchAllLogs, request, { headers });
}

const idsOf = (message: Message) => (message as unknown as { result: { id: string }[] }).result.map((r) => r.id);

/** An edge_logs row of `project` at `ms`, id number `n`. */
function row(n: number, ms: number, project: string): { id: string; project: string } {
  return { ...(edgeLogRow(n, ms) as { id: string }), project };
}

describe("a live tail and rows dated in the future", () => {
  it("sends a row of now after a row of 2299 was imported into the open tail", async () => {
    const tail = openTail("rpc");
    await tail.until(1);
    const future = row(1, at2299, "rpc");
    await importRows(server().url, TEST_API_KEY, "edge_logs", [future]);
    await server().app.watchHub.pollNow();
    const now = row(2, NOW - 1_000, "rpc");
    await importRows(server().url, TEST_API_KEY, "edge_logs", [now]);
    await server().app.watchHub.pollNow();
    const messages = await tail.until(2);
    // The row of 2299 waits for its time; the row of now is the next message.
    expect(idsOf(messages[1]!)).toEqual([now.id]);
    expect(tail.messages.flatMap(idsOf).slice(idsOf(messages[0]!).length)).not.toContain(future.id);
    tail.cancel();
  });

  it("sends a row of now to a tail opened under 600 stored rows of 2299", async () => {
    const project = "future";
    const burst = Array.from({ length: 600 }, (_, i) => row(1_000 + i, at2299 + i, project));
    await importRows(server().url, TEST_API_KEY, "edge_logs", burst);
    const tail = openTail(project);
    const [first] = await tail.until(1);
    // The unary answer is the newest page: a hundred rows of 2299.
    expect(idsOf(first!)).toHaveLength(100);
    const now = row(2_000, NOW - 1_000, project);
    await importRows(server().url, TEST_API_KEY, "edge_logs", [now]);
    await server().app.watchHub.pollNow();
    const [, second] = await tail.until(2);
    expect(idsOf(second!)).toEqual([now.id]);
    tail.cancel();
  });
});
