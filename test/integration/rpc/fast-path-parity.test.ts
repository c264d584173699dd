// The fast paths of cache hits against the paths they skip: the same call
// sent to a server with them and to one without (every RPC call through the
// Connect router, every HTTP/2 stream through Node's compatibility layer)
// gets the same answer, field for field and byte for byte: status, headers
// in order (the date's value aside), trailers and body, for each protocol,
// encoding and compression; the same call log lines and metrics.
import { gzipSync } from "node:zlib";
import { create, toBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FunctionsService, GetInvocationStatsRequestSchema } from "../../../src/gen/functions/v1/functions_pb.js";
import { createLogger } from "../../../src/observability/index.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { functionEdgeRow, insertRows, openTestWarehouse, ts } from "../../support/embedded-warehouse.js";
import { envelope, exchangeHttp1, exchangeHttp2, type RawAnswer, type RawRequest } from "../../support/raw-exchange.js";
import { NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const path = `/${FunctionsService.typeName}/${FunctionsService.method.getInvocationStats.name}`;
const key = { "x-api-key": TEST_API_KEY, "x-request-id": "parity-1" };

type Form = (project: string) => RawRequest;
const json = (project: string, extra: object = {}) =>
  Buffer.from(JSON.stringify({ project, interval: "1hr", ...extra }));
const binary = (project: string) =>
  Buffer.from(
    toBinary(GetInvocationStatsRequestSchema, create(GetInvocationStatsRequestSchema, { project, interval: "1hr" })),
  );
const post =
  (contentType: string, body: (p: string) => Buffer, headers: Record<string, string> = {}): Form =>
  (p) => ({
    method: "POST",
    path,
    headers: { "content-type": contentType, ...key, ...headers },
    body: body(p),
  });
const connectJson = (headers: Record<string, string> = {}) =>
  post("application/json", (p) => json(p), { "connect-protocol-version": "1", ...headers });
const grpc = (type: string, headers: Record<string, string> = {}) =>
  post(`application/${type}`, (p) => envelope(type.endsWith("json") ? json(p) : binary(p)), {
    te: "trailers",
    ...headers,
  });

const invocationStatsId = "1f3a6c2e-5b7d-4e8f-9a0b-2c4d6e8f0a1b";
const get =
  (headers: Record<string, string> = {}, at = "/api/endpoints/functions.invocation-stats"): Form =>
  (p) => ({ method: "GET", path: `${at}?project=${p}&interval=1hr`, headers: { ...key, ...headers } });

/** [name, HTTP version, form of the call, whether its second call is a cache hit, whether its result is long] */
const cases: [string, 1 | 2, Form, boolean, boolean][] = [
  ["Connect JSON", 1, connectJson(), true, false],
  ["Connect JSON over h2c", 2, connectJson(), true, false],
  ["Connect JSON with a charset", 1, post("application/json; charset=utf-8", (p) => json(p)), true, false],
  ["Connect binary", 1, post("application/proto", binary), true, false],
  [
    "Connect GET, JSON",
    1,
    (p) => ({
      method: "GET",
      path: `${path}?connect=v1&encoding=json&message=${encodeURIComponent(json(p).toString())}`,
      headers: key,
    }),
    true,
    false,
  ],
  [
    "Connect GET, binary in base64 over h2c",
    2,
    (p) => ({
      method: "GET",
      path: `${path}?connect=v1&encoding=proto&base64=1&message=${binary(p).toString("base64url")}`,
      headers: key,
    }),
    true,
    false,
  ],
  // Warmed with no deadline (a miss past its deadline caches nothing), then asked with one already over.
  ["Connect JSON, a deadline already over", 1, connectJson({ "connect-timeout-ms": "0" }), true, false],
  ["gRPC, a deadline already over", 2, grpc("grpc", { "grpc-timeout": "0m" }), true, false],
  ["Connect JSON, gzip accepted, long", 1, connectJson({ "accept-encoding": "gzip, deflate, br" }), true, true],
  [
    "Connect binary, br accepted, long, h2c",
    2,
    post("application/proto", binary, { "accept-encoding": "br" }),
    true,
    true,
  ],
  ["gRPC", 2, grpc("grpc"), true, false],
  ["gRPC+proto with a deadline", 2, grpc("grpc+proto", { "grpc-timeout": "5S" }), true, false],
  ["gRPC JSON", 2, grpc("grpc+json"), true, false],
  ["gRPC, gzip accepted, short", 2, grpc("grpc", { "grpc-accept-encoding": "gzip" }), true, false],
  ["gRPC, gzip accepted, long", 2, grpc("grpc", { "grpc-accept-encoding": "identity, gzip" }), true, true],
  ["gRPC, br accepted, long", 2, grpc("grpc", { "grpc-accept-encoding": "br" }), true, true],
  ["gRPC-Web", 1, grpc("grpc-web"), true, false],
  ["gRPC-Web over h2c", 2, grpc("grpc-web+proto"), true, false],
  ["gRPC-Web JSON", 1, grpc("grpc-web+json"), true, false],
  ["gRPC-Web, gzip accepted, long", 1, grpc("grpc-web", { "grpc-accept-encoding": "gzip" }), true, true],
  // Refused: no hit.
  [
    "Connect JSON missing its project",
    1,
    post("application/json", () => Buffer.from('{"interval":"1hr"}')),
    false,
    false,
  ],
  [
    "Connect JSON with a key that is no parameter",
    1,
    post("application/json", (p) => json(p, { sql: "1" })),
    false,
    false,
  ],
  ["Connect JSON with a malformed deadline", 1, connectJson({ "connect-timeout-ms": "soon" }), false, false],
  [
    "gRPC JSON whose interval is a number",
    2,
    (p) => ({ ...grpc("grpc+json")(p), body: envelope(Buffer.from(JSON.stringify({ project: p, interval: 7 }))) }),
    false,
    false,
  ],
  [
    "gRPC with a compressed request",
    2,
    post(
      "application/grpc",
      (p) => {
        const packed = gzipSync(binary(p));
        const frame = envelope(packed);
        frame[0] = 1;
        return frame;
      },
      { "grpc-encoding": "gzip", te: "trailers" },
    ),
    false,
    false,
  ],
  [
    "gRPC-Web text",
    1,
    post("application/grpc-web-text", (p) => Buffer.from(envelope(binary(p)).toString("base64"))),
    false,
    false,
  ],
  ["gRPC over HTTP/1.1", 1, grpc("grpc"), false, false],
  // GET hits: on bare HTTP/2 streams, through Node's compatibility layer on the other server.
  ["GET over h2c", 2, get(), true, false],
  ["GET by id over h2c", 2, get({}, `/api/endpoints/query/${invocationStatsId}`), true, false],
  ["HEAD over h2c", 2, (p) => ({ ...get()(p), method: "HEAD" }), true, false],
  ["GET over h2c, gzip accepted, long", 2, get({ "accept-encoding": "gzip" }), true, true],
  ["GET over h2c as CSV", 2, get({ accept: "text/csv" }), true, false],
  ["GET over h2c without a key", 2, get({ "x-api-key": "wrong" }), false, false],
  ["GET", 1, get(), true, false],
];

let warehouse: Warehouse;
let fast: TestServer;
let router: TestServer;
const logs = { fast: [] as string[], router: [] as string[] };

const loggerInto = (lines: string[]) => createLogger({ level: "debug", write: (line) => void lines.push(line) });

beforeAll(async () => {
  warehouse = await openTestWarehouse();
  // One project per case, so that each hit is the first of its result; long results have a row a minute.
  const rows = cases.flatMap(([, , , , long], i) =>
    Array.from({ length: long ? 50 : 1 }, (_, m) =>
      functionEdgeRow({
        project: `case-${i}`,
        functionId: "f",
        timestamp: ts(NOW - (m + 1) * 60_000),
        executionTimeMs: m,
      }),
    ),
  );
  await insertRows(warehouse, "function_edge_logs", rows);
  fast = await startTestServer(warehouse, NOW, { logger: loggerInto(logs.fast) });
  // Every RPC call through the router, every HTTP/2 stream through Node's compatibility layer.
  router = await startTestServer(
    warehouse,
    NOW,
    { logger: loggerInto(logs.router), rpcFastPath: false },
    { streams: undefined },
  );
});
afterAll(async () => {
  await fast?.close();
  await router?.close();
  await warehouse?.close();
});

/** Server-Timing's durations (which differ from call to call) masked in a header or trailer. */
const timed = ([name, value]: [string, string]): [string, string] => [
  name,
  name === "server-timing" ? value.replace(/dur=[\d.]+/g, "dur=(ms)") : value,
];

/** The answer, with Server-Timing's durations masked, in gRPC-Web's trailer frame (and its length) too. */
const exchange = async (server: TestServer, version: 1 | 2, request: RawRequest): Promise<RawAnswer> => {
  const answer = await (version === 1 ? exchangeHttp1(server.url, request) : exchangeHttp2(server.url, request));
  const text = answer.body.toString("latin1");
  const frame = text.indexOf("\x80", Math.max(0, text.indexOf("grpc-status: ") - 5));
  const body =
    frame >= 0 && text.slice(frame + 5).startsWith("grpc-status: ")
      ? Buffer.from(
          `${text.slice(0, frame)}(trailer frame)${text.slice(frame + 5).replace(/dur=[\d.]+/g, "dur=(ms)")}`,
          "latin1",
        )
      : answer.body;
  return { ...answer, headers: answer.headers.map(timed), trailers: answer.trailers.map(timed), body };
};

/** The call lines of a log, without what differs from one run to the next. */
const callLines = (lines: string[]) =>
  lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => record.msg === "call" || record.msg === "call failed")
    .map(({ time: _time, durationMs: _duration, cause: _cause, ...rest }) => rest);

describe.each(cases.map((c, i) => [c[0], i] as const))("%s", (_name, i) => {
  const [, version, form, answeredFast, long] = cases[i]!;
  // (For GET, whether the stream was answered bare is not visible to a client: the answers are the same.)
  const request = form(`case-${i}`);

  it("is answered as the router answers it, the miss and then the hit", async () => {
    const { "connect-timeout-ms": _connect, "grpc-timeout": _grpc, ...untimed } = request.headers;
    const warm = _connect === "0" || _grpc === "0m" ? { ...request, headers: untimed } : request;
    const missFast = await exchange(fast, version, warm);
    const missRouter = await exchange(router, version, warm);
    expect(missFast).toEqual(missRouter);
    logs.fast.length = 0;
    logs.router.length = 0;
    const hitFast = await exchange(fast, version, request);
    const hitRouter = await exchange(router, version, request);
    expect(hitFast).toEqual(hitRouter);
    expect(callLines(logs.fast)).toEqual(callLines(logs.router));
    if (answeredFast) expect(hitFast.headers).toContainEqual(["x-cache", "HIT"]);
    if (long && answeredFast) {
      // Long enough to be compressed (connect-node compresses 1,024 bytes or more).
      const encoding = hitFast.headers.find(([n]) => n === "content-encoding" || n === "grpc-encoding");
      expect(encoding).toBeDefined();
    }
  });
});

describe("the metrics of both servers after the same calls", () => {
  it("count the same calls, callers and cache events", async () => {
    const counters = async (server: TestServer) =>
      (await (await fetch(`${server.url}/metrics`)).text())
        .split("\n")
        .filter((line) =>
          /^sqe_(requests_total|caller_requests_total|cache_events_total|request_duration_seconds_count)\{/.test(line),
        )
        .sort();
    const fastCounters = await counters(fast);
    expect(fastCounters.length).toBeGreaterThan(5);
    expect(fastCounters).toEqual(await counters(router));
  });
});

describe("with a list of CORS origins", () => {
  let listFast: TestServer;
  let listRouter: TestServer;
  beforeAll(async () => {
    const corsOrigins = ["https://app.example"];
    listFast = await startTestServer(warehouse, NOW, { corsOrigins });
    listRouter = await startTestServer(warehouse, NOW, { corsOrigins, rpcFastPath: false }, { streams: undefined });
  });
  afterAll(async () => {
    await listFast?.close();
    await listRouter?.close();
  });

  const forms: [string, Form][] = [
    ["GET", get()],
    ["GET, gzip accepted", get({ "accept-encoding": "gzip" })],
    ["Connect binary, br accepted", post("application/proto", binary, { "accept-encoding": "br" })],
    ["Connect JSON", connectJson()],
    ["gRPC-Web", grpc("grpc-web")],
    ["gRPC", grpc("grpc")],
  ];
  it.each(
    forms.flatMap(([name, form]) => [
      [name, "an allowed origin", form, "https://app.example"],
      [name, "another origin", form, "https://other.example"],
    ]),
  )(
    "answers a hit over h2c (%s from %s) as the router and Node's compatibility layer do",
    async (_name, _from, form, origin) => {
      // A long result, so that the compressed forms are compressed.
      const request = form(`case-${cases.findIndex((c) => c[4])}`);
      const asked = { ...request, headers: { ...request.headers, origin } };
      await exchange(listFast, 2, asked);
      await exchange(listRouter, 2, asked);
      const hit = await exchange(listFast, 2, asked);
      expect(hit.headers).toContainEqual(["vary", expect.stringMatching(/^Origin/)]);
      expect(hit).toEqual(await exchange(listRouter, 2, asked));
    },
  );
});
