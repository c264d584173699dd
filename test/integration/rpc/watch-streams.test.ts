// Watch methods over real clients: the Connect client over Connect, gRPC-Web
// and gRPC, and @grpc/grpc-js, get the current result at once and then the
// result with the rows posted to the import route; the live tail of logs.all
// sends the new rows within one poll; buf curl reads a first message; a
// client's deadline ends a stream with DEADLINE_EXCEEDED; the listing names
// each watch method.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { create, type Message } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import { afterAll, describe, expect, it } from "vitest";
import { GetAllLogsRequestSchema, LogsService } from "../../../src/gen/logs/v1/logs_pb.js";
import { GetApiCountsRequestSchema, UsageService } from "../../../src/gen/usage/v1/usage_pb.js";
import { NOW } from "../../support/scenario.js";
import { TEST_API_KEY, useScenarioServer } from "../../support/test-server.js";
import { connectWatch, edgeLogRow, grpcJsWatch, importRows, type WatchReader } from "../../support/watch-clients.js";

const { server } = useScenarioServer({ watch: { tailPollMs: 100 } });
const headers = { "x-api-key": TEST_API_KEY };
const watchApiCounts = UsageService.method.watchApiCounts;
const apiCountsRequest = create(GetApiCountsRequestSchema, { project: "rpc", interval: "hourly" });
const grpcClients: grpc.Client[] = [];
afterAll(() => {
  for (const client of grpcClients) client.close();
});

function grpcJsClient(): grpc.Client {
  const client = new grpc.Client(server().address, grpc.credentials.createInsecure());
  grpcClients.push(client);
  return client;
}

/** Requests to REST paths counted in a usage.api-counts message, all buckets together. */
function restRequests(message: Message): number {
  const rows = (message as unknown as { result: { totalRestRequests: bigint }[] }).result;
  return rows.reduce((sum, row) => sum + Number(row.totalRestRequests), 0);
}

let nextRow = 1;

describe("watch streams", () => {
  it("sends the current result at once, then the rows imported, on every transport", async () => {
    const url = server().url;
    const watches: [string, WatchReader][] = [
      [
        "connect",
        connectWatch(
          createConnectTransport({ baseUrl: url, httpVersion: "1.1" }),
          UsageService,
          watchApiCounts,
          apiCountsRequest,
          { headers },
        ),
      ],
      [
        "grpc-web",
        connectWatch(
          createGrpcWebTransport({ baseUrl: url, httpVersion: "1.1" }),
          UsageService,
          watchApiCounts,
          apiCountsRequest,
          { headers },
        ),
      ],
      [
        "grpc",
        connectWatch(createGrpcTransport({ baseUrl: url }), UsageService, watchApiCounts, apiCountsRequest, {
          headers,
        }),
      ],
      ["@grpc/grpc-js", grpcJsWatch(grpcJsClient(), UsageService, watchApiCounts, apiCountsRequest, { headers })],
    ];
    const firsts = await Promise.all(watches.map(([, watch]) => watch.until(1)));
    const before = restRequests(firsts[0]![0]!);
    for (const [first] of firsts) expect(restRequests(first!)).toBe(before);
    await importRows(url, TEST_API_KEY, "edge_logs", [
      edgeLogRow(nextRow++, NOW - 5 * 60_000),
      edgeLogRow(nextRow++, NOW - 6 * 60_000),
    ]);
    const seconds = await Promise.all(watches.map(([, watch]) => watch.until(2)));
    expect(seconds.map((messages) => restRequests(messages[1]!))).toEqual(watches.map(() => before + 2));
    for (const [, watch] of watches) watch.cancel();
  });

  it("tails logs.all: the current page, then only the rows imported, within one poll", async () => {
    const request = create(GetAllLogsRequestSchema, { project: "rpc" });
    const watch = grpcJsWatch(grpcJsClient(), LogsService, LogsService.method.watchAllLogs, request, { headers });
    const [first] = await watch.until(1);
    const firstIds = (first as unknown as { result: { id: string }[] }).result.map((row) => row.id);
    const row = edgeLogRow(nextRow++, NOW - 60_000) as { id: string };
    await importRows(server().url, TEST_API_KEY, "edge_logs", [row]);
    const [, second] = await watch.until(2, 3_000);
    expect(firstIds).not.toContain(row.id);
    expect((second as unknown as { result: { id: string }[] }).result.map((r) => r.id)).toEqual([row.id]);
    watch.cancel();
  });

  it("ends a stream at the client's deadline with DEADLINE_EXCEEDED", async () => {
    const watch = grpcJsWatch(grpcJsClient(), UsageService, watchApiCounts, apiCountsRequest, {
      headers,
      timeoutMs: 1_000,
    });
    await watch.until(1);
    expect((await watch.ended).code).toBe(Code.DeadlineExceeded);
  });

  it("refuses a stream without a key, and one whose parameters do not validate, when it opens", async () => {
    const client = grpcJsClient();
    const keyless = grpcJsWatch(client, UsageService, watchApiCounts, apiCountsRequest);
    expect((await keyless.ended).code).toBe(Code.Unauthenticated);
    const bad = create(GetApiCountsRequestSchema, { project: "rpc", interval: "weekly" });
    const invalid = grpcJsWatch(client, UsageService, watchApiCounts, bad, { headers });
    expect((await invalid.ended).code).toBe(Code.InvalidArgument);
  });

  it("streams to buf curl over gRPC", async () => {
    const child = spawn(
      join(import.meta.dirname, "../../../node_modules/.bin/buf"),
      [
        "curl",
        "--protocol",
        "grpc",
        "--http2-prior-knowledge",
        "--schema",
        "proto",
        "-H",
        `x-api-key: ${TEST_API_KEY}`,
        "-d",
        '{"project":"rpc","interval":"hourly"}',
        `${server().url}/${UsageService.typeName}/${watchApiCounts.name}`,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    const first = await new Promise<{ result: object[] }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no message from buf curl: ${stdout}`)), 30_000);
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        // buf curl prints each message as indented JSON; the first ends with a closing brace at line start.
        const end = stdout.indexOf("\n}");
        if (end < 0) return;
        clearTimeout(timer);
        resolve(JSON.parse(stdout.slice(0, end + 2)));
      });
      child.on("exit", () => reject(new Error(`buf curl ended: ${stdout}`)));
    });
    child.kill();
    expect(first.result.length).toBeGreaterThan(0);
    expect(first.result[0]).toHaveProperty("timestamp");
  });

  it("lists each saved query's watch method in GET /api/endpoints", async () => {
    const response = await fetch(`${server().url}/api/endpoints`, { headers });
    const listing = (await response.json()) as { result: { grpc_method: string; grpc_watch_method?: string }[] };
    expect(listing.result.map((e) => [e.grpc_method, e.grpc_watch_method])).toEqual(
      listing.result.map((e) => [e.grpc_method, e.grpc_method.replace("/Get", "/Watch")]),
    );
  });
});
