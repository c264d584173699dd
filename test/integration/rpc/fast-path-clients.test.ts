// The fast path of RPC cache hits as real clients see it: the generated
// Connect client on its Connect, gRPC and gRPC-Web transports, @grpc/grpc-js
// and `buf curl` get the same message, headers and trailers from a server
// with the fast path as from one whose every call goes through the router.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { create, fromBinary, toBinary, toJson, type DescMessage, type Message } from "@bufbuild/protobuf";
import { createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FunctionsService, GetInvocationStatsRequestSchema } from "../../../src/gen/functions/v1/functions_pb.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const method = FunctionsService.method.getInvocationStats;
const headers = { "x-api-key": TEST_API_KEY, "x-request-id": "clients-1" };

let warehouse: Warehouse;
let fast: TestServer;
let router: TestServer;

beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  fast = await startTestServer(warehouse, NOW);
  router = await startTestServer(warehouse, NOW, { rpcFastPath: false });
});
afterAll(async () => {
  await fast?.close();
  await router?.close();
  await warehouse?.close();
});

/** Header fields as a sorted list, without the date. */
const fieldsOf = (h: Headers) => [...h.entries()].filter(([name]) => name !== "date").sort();

const transports: [string, (url: string) => Transport][] = [
  ["Connect JSON", (url) => createConnectTransport({ baseUrl: url, httpVersion: "1.1" })],
  [
    "Connect binary over h2c",
    (url) => createConnectTransport({ baseUrl: url, httpVersion: "2", useBinaryFormat: true }),
  ],
  ["Connect GET", (url) => createConnectTransport({ baseUrl: url, httpVersion: "1.1", useHttpGet: true })],
  ["gRPC", (url) => createGrpcTransport({ baseUrl: url })],
  ["gRPC-Web", (url) => createGrpcWebTransport({ baseUrl: url, httpVersion: "1.1" })],
];

/** `value` with Server-Timing's durations masked: each server's own computation took its own time. */
const timed = <T>(value: T): T => JSON.parse(JSON.stringify(value).replace(/dur=[\d.]+/g, "dur=(ms)")) as T;

describe.each(transports)("the generated Connect client over %s", (_name, transportFor) => {
  async function hit(server: TestServer, project: string) {
    const client = createClient(FunctionsService, transportFor(server.url));
    const request = { project, interval: "1day" };
    await client.getInvocationStats(request, { headers }); // the miss that caches it
    let header = new Headers();
    let trailer = new Headers();
    const message = await client.getInvocationStats(request, {
      headers,
      onHeader: (h) => void (header = h),
      onTrailer: (t) => void (trailer = t),
    });
    return { message: toJson(method.output, message), header: fieldsOf(header), trailer: fieldsOf(trailer) };
  }

  it("reads the same message, headers and trailers from a hit", async () => {
    const project = `rpc`;
    const fromFast = await hit(fast, project);
    expect(fromFast.header).toContainEqual(["x-cache", "HIT"]);
    expect(timed(fromFast)).toEqual(timed(await hit(router, project)));
  });
});

describe("@grpc/grpc-js", () => {
  function hit(server: TestServer): Promise<{ message: unknown; metadata: unknown; status: unknown }> {
    const client = new grpc.Client(server.address, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    for (const [k, v] of Object.entries(headers)) metadata.set(k, v);
    const call = () =>
      new Promise<{ message: unknown; metadata: unknown; status: unknown }>((resolve, reject) => {
        let received: unknown;
        let status: unknown;
        const unary = client.makeUnaryRequest(
          `/${FunctionsService.typeName}/${method.name}`,
          (m: Message) => Buffer.from(toBinary(method.input as DescMessage, m)),
          (b: Buffer) => fromBinary(method.output as DescMessage, b),
          create(GetInvocationStatsRequestSchema, { project: "rpc", interval: "1hr" }),
          metadata,
          (error, message) => {
            if (error) return reject(error);
            // The status (and its trailers) arrives after the message: wait for it.
            setImmediate(() =>
              resolve({ message: toJson(method.output, message as never), metadata: received, status }),
            );
          },
        );
        unary.on("metadata", (m) => {
          const map = m.getMap();
          delete map.date;
          received = map;
        });
        unary.on("status", (s) => void (status = { code: s.code, details: s.details, trailers: s.metadata.getMap() }));
      });
    return call()
      .then(call)
      .finally(() => client.close());
  }

  it("reads the same message, metadata and status from a hit", async () => {
    const fromFast = await hit(fast);
    expect(fromFast.metadata).toMatchObject({ "x-cache": "HIT" });
    expect(timed(fromFast)).toEqual(timed(await hit(router)));
  });
});

describe.each(["grpc", "grpcweb", "connect"])("buf curl --protocol %s", (protocol) => {
  const run = promisify(execFile);
  /** The project's buf, run directly: npx would resolve it again for every call. */
  const buf = join(import.meta.dirname, "../../../node_modules/.bin/buf");
  async function hit(server: TestServer) {
    const args = [
      "curl",
      "--protocol",
      protocol,
      "--http2-prior-knowledge",
      "--schema",
      "proto",
      "-v",
      "-H",
      `x-api-key: ${TEST_API_KEY}`,
      "-H",
      "x-request-id: curl-1",
      "-d",
      '{"project":"rpc","interval":"1hr"}',
      `${server.url}/${FunctionsService.typeName}/${method.name}`,
    ];
    await run(buf, args);
    const { stdout, stderr } = await run(buf, args);
    // Verbose lines show the response in order: headers and trailers ("buf: < (#1) Name: value"), data
    // ("buf: { (#1) [n bytes data]"); the date varies.
    const received = stderr
      .split("\n")
      .filter((line) => /^buf: [<{] /.test(line) && !/^buf: < \(#1\) date:/i.test(line));
    // gRPC-Web's trailer frame, the last data, holds Server-Timing: its length varies with the durations' digits.
    const last = received.length - 1;
    if (protocol === "grpcweb") received[last] = received[last]!.replace(/\[\d+ bytes data\]/, "[(n) bytes data]");
    return { stdout, received };
  }

  it("prints the same message and the same headers and trailers for a hit", async () => {
    const fromFast = await hit(fast);
    expect(fromFast.received.join("\n")).toMatch(/x-cache: HIT/i);
    expect(timed(fromFast)).toEqual(timed(await hit(router)));
  }, 60_000);
});
