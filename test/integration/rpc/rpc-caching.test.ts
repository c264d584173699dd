// HTTP caching over RPC with real clients: the generated Connect client's
// GET (useHttpGet) and POST, gRPC-Web and @grpc/grpc-js read the validators
// and Cache-Status; `cache-control` metadata forces a run or asks only for
// what is cached; a Connect GET revalidated with If-None-Match gets a 304.
import { create, fromBinary, toBinary, type DescMessage, type Message } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import { get } from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { FunctionsService, GetInvocationStatsRequestSchema } from "../../../src/gen/functions/v1/functions_pb.js";
import { GetAllLogsRequestSchema, LogsService } from "../../../src/gen/logs/v1/logs_pb.js";
import { TEST_API_KEY, useScenarioServer, type TestServer } from "../../support/test-server.js";

const scenario = useScenarioServer({ staleIfErrorMs: 60_000 });
let server: TestServer;
beforeAll(() => {
  server = scenario.server();
});

const method = FunctionsService.method.getInvocationStats;
const request = (project: string) => create(GetInvocationStatsRequestSchema, { project, interval: "1hr" });

/** The response headers of one call of `project` over `transport`, with `extra` request headers. */
async function headersOf(transport: Transport, project: string, extra: Record<string, string> = {}): Promise<Headers> {
  let headers: Headers | undefined;
  await createClient(FunctionsService, transport).getInvocationStats(request(project), {
    headers: { "x-api-key": TEST_API_KEY, ...extra },
    onHeader: (h) => (headers = h),
  });
  return headers!;
}

const transports: [string, string, () => Transport][] = [
  [
    "Connect GET",
    "proto",
    () => createConnectTransport({ baseUrl: server.url, httpVersion: "1.1", useHttpGet: true, useBinaryFormat: true }),
  ],
  [
    "Connect POST JSON",
    "proto-json",
    () => createConnectTransport({ baseUrl: server.url, httpVersion: "1.1", useBinaryFormat: false }),
  ],
  ["gRPC-Web", "proto", () => createGrpcWebTransport({ baseUrl: server.url, httpVersion: "1.1" })],
  ["gRPC", "proto", () => createGrpcTransport({ baseUrl: server.url })],
];

describe("validators in RPC answers", () => {
  it.each(transports)(
    "%s reads ETag, Last-Modified, Cache-Control and Cache-Status",
    async (label, form, transport) => {
      const project = `validators-${label}`;
      const miss = await headersOf(transport(), project);
      const hit = await headersOf(transport(), project);
      expect(miss.get("etag")).toMatch(new RegExp(`^W/"[A-Za-z0-9_-]{22}-${form}"$`));
      expect(hit.get("etag")).toBe(miss.get("etag"));
      expect(hit.get("last-modified")).toBe(new Date(server.clock()).toUTCString());
      expect(hit.get("cache-control")).toBe("private, max-age=900, stale-if-error=60");
      expect(miss.get("cache-status")).toBe("saved-query-endpoints; fwd=miss; stored; ttl=900");
      expect(hit.get("cache-status")).toBe("saved-query-endpoints; hit; ttl=900");
      expect(hit.get("vary")).toBe("Accept-Encoding, X-API-KEY, Authorization");
    },
  );

  it.each(transports)("%s forces a run with cache-control no-cache", async (_label, _form, transport) => {
    await headersOf(transport(), "rpc");
    const forced = await headersOf(transport(), "rpc", { "cache-control": "no-cache" });
    expect(forced.get("x-cache")).toBe("MISS");
    expect(forced.get("cache-status")).toBe("saved-query-endpoints; fwd=request; stored; ttl=900");
  });

  it.each(transports)(
    "%s answers only-if-cached with nothing cached as unavailable",
    async (_label, form, transport) => {
      const error = await headersOf(transport(), `absent-${form}`, { "cache-control": "only-if-cached" }).catch(
        (e: unknown) => ConnectError.from(e),
      );
      expect(error).toBeInstanceOf(ConnectError);
      expect([(error as ConnectError).code, (error as ConnectError).rawMessage]).toEqual([
        Code.Unavailable,
        "result not cached (only-if-cached)",
      ]);
      expect((error as ConnectError).metadata.get("cache-control")).toBe("no-store");
    },
  );
});

describe("a Connect GET revalidated", () => {
  it("answers If-None-Match of a cached result with 304 and no body", async () => {
    const bytes = Buffer.from(toBinary(GetInvocationStatsRequestSchema, request("rpc"))).toString("base64url");
    const url = `${server.url}/${FunctionsService.typeName}/${method.name}?connect=v1&encoding=proto&base64=1&message=${bytes}`;
    const first = await fetch(url, { headers: { "x-api-key": TEST_API_KEY } });
    await first.arrayBuffer();
    const etag = first.headers.get("etag")!;
    // fetch adds Cache-Control: no-cache to a request with If-None-Match: a forced run, still 304.
    const again = await fetch(url, { headers: { "x-api-key": TEST_API_KEY, "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect((await again.arrayBuffer()).byteLength).toBe(0);
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.headers.get("cache-status")).toBe("saved-query-endpoints; fwd=request; stored; ttl=900");
    const wrongKey = await fetch(url, { headers: { "x-api-key": "not-the-key", "if-none-match": etag } });
    expect(wrongKey.status).toBe(401);
  });
});

describe("a conditional Connect GET that is no cache hit", () => {
  const getTransport = () =>
    createConnectTransport({ baseUrl: server.url, httpVersion: "1.1", useHttpGet: true, useBinaryFormat: true });
  const logsUrl = () => {
    const bytes = toBinary(GetAllLogsRequestSchema, create(GetAllLogsRequestSchema, { project: "rpc" }));
    return `${server.url}/${LogsService.typeName}/GetAllLogs?connect=v1&encoding=proto&base64=1&message=${Buffer.from(bytes).toString("base64url")}`;
  };
  /** The generated client's GET of logs.all with `headers`: its response headers, or the error it threw. */
  async function logsCall(
    headers: Record<string, string>,
  ): Promise<{ headers?: Headers; rows?: number; error?: ConnectError }> {
    let received: Headers | undefined;
    try {
      const response = await createClient(LogsService, getTransport()).getAllLogs(
        { project: "rpc" },
        { headers: { "x-api-key": TEST_API_KEY, ...headers }, onHeader: (h) => (received = h) },
      );
      return { headers: received, rows: response.result.length };
    } catch (error) {
      return { error: ConnectError.from(error) };
    }
  }

  it("answers logs.all with 304 over fetch when its tag matches, and 200 when it does not", async () => {
    const first = await fetch(logsUrl(), { headers: { "x-api-key": TEST_API_KEY } });
    const body = await first.arrayBuffer();
    expect([first.status, body.byteLength > 0]).toEqual([200, true]);
    const etag = first.headers.get("etag")!;
    expect(first.headers.get("cache-control")).toBe("private, no-cache");
    for (const tag of [etag, "*", `"other", ${etag.slice(2)}`]) {
      const again = await fetch(logsUrl(), { headers: { "x-api-key": TEST_API_KEY, "if-none-match": tag } });
      expect([again.status, (await again.arrayBuffer()).byteLength]).toEqual([304, 0]);
      expect(again.headers.get("etag")).toBe(etag);
      expect(again.headers.get("cache-status")).toBe("saved-query-endpoints; fwd=uri-miss");
    }
    const other = await fetch(logsUrl(), { headers: { "x-api-key": TEST_API_KEY, "if-none-match": '"other"' } });
    expect(other.status).toBe(200);
    expect(Buffer.from(await other.arrayBuffer())).toEqual(Buffer.from(body));
  });

  it("answers logs.all to the generated client's GET: rows when the tag differs, 304 when it matches", async () => {
    const plain = await logsCall({});
    const etag = plain.headers!.get("etag")!;
    const differs = await logsCall({ "if-none-match": '"other"' });
    expect([differs.headers?.get("etag"), differs.rows]).toEqual([etag, plain.rows]);
    const matches = await logsCall({ "if-none-match": etag });
    // The client keeps no copy of its own: a 304 it asked for reaches it as an error naming the status.
    expect([matches.error?.code, matches.error?.rawMessage]).toEqual([Code.Unknown, "HTTP 304"]);
  });

  it("answers a cached saved query on a miss with 304 when the computed result's tag matches", async () => {
    // Two projects without rows have the same (empty) rows, so the same tag: the second is a miss that matches.
    const etag = (await headersOf(getTransport(), "no-rows-first")).get("etag")!;
    const bytes = Buffer.from(toBinary(GetInvocationStatsRequestSchema, request("no-rows-second"))).toString(
      "base64url",
    );
    const url = `${server.url}/${FunctionsService.typeName}/${method.name}?connect=v1&encoding=proto&base64=1&message=${bytes}`;
    // node:http adds no directive of its own, as fetch does.
    const { status, headers } = await new Promise<{ status: number; headers: Record<string, unknown> }>(
      (resolve, reject) =>
        get(url, { headers: { "x-api-key": TEST_API_KEY, "if-none-match": etag } }, (response) => {
          response.resume();
          response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers }));
        }).on("error", reject),
    );
    expect(status).toBe(304);
    expect([headers.etag, headers["x-cache"]]).toEqual([etag, "MISS"]);
    expect(headers["cache-status"]).toBe("saved-query-endpoints; fwd=miss; stored; ttl=900");
    const hit = await headersOf(getTransport(), "no-rows-second");
    expect([hit.get("etag"), hit.get("x-cache")]).toEqual([etag, "HIT"]);
  });
});

describe("@grpc/grpc-js", () => {
  it("reads ETag and Cache-Status from the response metadata", async () => {
    const client = new grpc.Client(server.address, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    metadata.set("x-api-key", TEST_API_KEY);
    const received = await new Promise<Record<string, unknown>>((resolve, reject) => {
      let map: Record<string, unknown> = {};
      const call = client.makeUnaryRequest(
        `/${FunctionsService.typeName}/${method.name}`,
        (m: Message) => Buffer.from(toBinary(method.input as DescMessage, m)),
        (b: Buffer) => fromBinary(method.output as DescMessage, b),
        request("grpc-js"),
        metadata,
        (error) => (error ? reject(error) : resolve(map)),
      );
      call.on("metadata", (m) => void (map = m.getMap()));
    }).finally(() => client.close());
    expect(received.etag).toMatch(/^W\/"[A-Za-z0-9_-]{22}-proto"$/);
    expect(received["cache-status"]).toBe("saved-query-endpoints; fwd=miss; stored; ttl=900");
    expect(received["cache-control"]).toBe("private, max-age=900, stale-if-error=60");
  });
});
