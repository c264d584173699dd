// Traces, end to end: the service as a process of its own, configured only
// by the standard OTEL_* variables, exporting to a real OTLP/HTTP receiver in
// this test (http/json and http/protobuf). A GET and a gRPC call that send a
// `traceparent` give spans of that trace, the server span a child of the
// caller's, named after the saved query, with its protocol, caller, code and
// cache outcome, and below it the computation, the wait for a turn and the
// warehouse query with its query id; a call without one starts a new trace;
// a receiver that is not there costs the callers nothing.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FunctionsService } from "../../../src/gen/functions/v1/functions_pb.js";
import { freePort } from "../../support/nginx-process.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../../support/otlp-receiver.js";
import { startServiceProcess, type ServiceProcess } from "../../support/service-process.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";

const key = "traces-test-key-0123456789";
/** How logs and metrics name the key: the first 12 hex digits of its SHA-256 (worked out with sha256sum). */
const keyId = "api-key:530e37116540";
const project = "tracestestprojectabc";
const callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736";

/** A fresh W3C parent: the caller's trace, a span id of our own, sampled. */
function traceparent(spanId: string, trace = callerTrace): string {
  return `00-${trace}-${spanId}-01`;
}

async function startService(
  env: Record<string, string>,
): Promise<{ service: ServiceProcess; url: string; dir: string }> {
  const dir = makeTemporaryDirectory("sqe-traces-");
  const service = startServiceProcess({
    PORT: "0",
    CHDB_PATH: `${dir}/data`,
    DEMO_DATA: "0",
    API_KEYS: key,
    OTEL_SERVICE_NAME: "sqe-under-test",
    OTEL_BSP_SCHEDULE_DELAY: "50",
    ...env,
  });
  return { service, url: await service.listening(), dir };
}

const spansOf = (spans: ReceivedSpan[], traceId: string) => spans.filter((s) => s.traceId === traceId);
const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) =>
  spans.filter((s) => s.parentSpanId === parent.spanId);

describe.each([["http/json"], ["http/protobuf"]])("traces over OTLP %s", (protocol) => {
  let receiver: OtlpReceiver;
  let service: ServiceProcess | undefined;
  let url: string;
  let dir: string;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    ({ service, url, dir } = await startService({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    }));
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
    removeTemporaryDirectory(dir);
  });

  it("are sent in the protocol asked for, by the service named in OTEL_SERVICE_NAME", async () => {
    const get = await fetch(`${url}/api/endpoints/logs.all?project=${project}`, {
      headers: { "x-api-key": key, traceparent: traceparent("00f067aa0ba902b1") },
    });
    expect(get.status).toBe(200);
    const [server] = await receiver.waitFor((spans) => spans.some((s) => s.parentSpanId === "00f067aa0ba902b1"));
    expect(receiver.contentTypes[0]).toBe(protocol === "http/json" ? "application/json" : "application/x-protobuf");
    expect(server!.resource["service.name"]).toBe("sqe-under-test");
  });

  it("make a GET with a traceparent a child of the caller's span, with the cache's and the warehouse's spans below", async () => {
    const parent = "a1b2c3d4e5f60718";
    const path = `/api/endpoints/functions.invocation-stats?project=${project}&interval=1hr`;
    const answer = await fetch(`${url}${path}`, { headers: { "x-api-key": key, traceparent: traceparent(parent) } });
    expect(answer.status).toBe(200);
    const spans = await receiver.waitFor((all) => {
      const server = all.find((s) => s.parentSpanId === parent);
      return server !== undefined && all.some((s) => s.name === "warehouse query" && s.traceId === callerTrace);
    });
    const trace = spansOf(spans, callerTrace);
    const server = trace.find((s) => s.parentSpanId === parent)!;
    expect(server).toMatchObject({
      name: "functions.invocation-stats",
      kind: 2,
      attributes: {
        "sqe.endpoint": "functions.invocation-stats",
        "sqe.protocol": "http",
        "sqe.caller": keyId,
        "sqe.code": "ok",
        "sqe.cache": "miss",
        "http.response.status_code": 200,
      },
      status: { code: 0 },
    });
    // The key itself is never an attribute.
    expect(
      JSON.stringify(trace, (_name, value: unknown) => (typeof value === "bigint" ? String(value) : value)),
    ).not.toContain(key);
    const [computation] = childrenOf(trace, server);
    expect(computation).toMatchObject({ name: "computation", kind: 1 });
    const below = childrenOf(trace, computation!).map((s) => s.name);
    expect(below.sort()).toEqual(["admission wait", "warehouse query"]);
    const query = trace.find((s) => s.name === "warehouse query")!;
    expect(query.attributes["db.system.name"]).toBe("clickhouse");
    expect(String(query.attributes["clickhouse.query_id"])).toMatch(/^[0-9a-f-]{36}$/);

    // Asked again: a hit, no computation.
    const again = "0badc0ffee000001";
    await fetch(`${url}${path}`, { headers: { "x-api-key": key, traceparent: traceparent(again) } });
    const hit = (await receiver.waitFor((all) => all.some((s) => s.parentSpanId === again))).find(
      (s) => s.parentSpanId === again,
    )!;
    expect(hit.attributes["sqe.cache"]).toBe("hit");
    expect(childrenOf(receiver.spans, hit)).toEqual([]);
  });

  it("make a gRPC call with a traceparent a child of the caller's span, with its protocol and code", async () => {
    const parent = "1111222233334444";
    const client = createClient(FunctionsService, createGrpcTransport({ baseUrl: url }));
    const request = create(FunctionsService.method.getInvocationStats.input, { project, interval: "1day" });
    await client.getInvocationStats(request, { headers: { "x-api-key": key, traceparent: traceparent(parent) } });
    // A wrong key: the span says so, and is not marked failed (the caller's mistake).
    const refusedParent = "5555666677778888";
    const refused = await client
      .getInvocationStats(request, {
        headers: { "x-api-key": "wrong-key-0123456789", traceparent: traceparent(refusedParent) },
      })
      .then(
        () => "answered",
        (error: unknown) => ConnectError.from(error).code,
      );
    expect(refused).toBe(Code.Unauthenticated);
    const spans = await receiver.waitFor(
      (all) => all.some((s) => s.parentSpanId === parent) && all.some((s) => s.parentSpanId === refusedParent),
    );
    expect(spans.find((s) => s.parentSpanId === parent)).toMatchObject({
      traceId: callerTrace,
      name: "functions.invocation-stats",
      kind: 2,
      attributes: { "sqe.protocol": "grpc", "sqe.caller": keyId, "sqe.code": "ok", "sqe.cache": "miss" },
    });
    const refusedSpan = spans.find((s) => s.parentSpanId === refusedParent)!;
    expect(refusedSpan.attributes).toMatchObject({ "sqe.protocol": "grpc", "sqe.code": "unauthenticated" });
    expect(refusedSpan.attributes["sqe.caller"]).toBeUndefined();
    expect(refusedSpan.status.code).toBe(0);
  });

  it("start a new trace for a call without a traceparent, and leave other routes untraced", async () => {
    const before = new Set(receiver.spans.map((s) => s.traceId));
    await (await fetch(`${url}/healthz`)).arrayBuffer();
    // v2: a service process runs on the real clock, and v1 answers 410 past its sunset.
    const answer = await fetch(`${url}/api/endpoints/usage.api-counts.v2?project=${project}&interval=daily`, {
      headers: { "x-api-key": key },
    });
    expect(answer.status).toBe(200);
    const spans = await receiver.waitFor((all) =>
      all.some((s) => s.name === "usage.api-counts.v2" && s.attributes["sqe.protocol"] === "http"),
    );
    const server = spans.find((s) => s.name === "usage.api-counts.v2")!;
    expect(server.parentSpanId).toBe("");
    expect(before.has(server.traceId)).toBe(false);
    expect(server.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(spans.filter((s) => s.name.includes("healthz"))).toEqual([]);
  });
});

describe("traces with a receiver that is not there", () => {
  let service: ServiceProcess | undefined;
  let url: string;
  let dir: string;
  beforeAll(async () => {
    const port = await freePort(); // nothing listens on it
    ({ service, url, dir } = await startService({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` }));
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    removeTemporaryDirectory(dir);
  });

  it("cost the callers nothing: every call is answered, and the service stops cleanly", async () => {
    for (let i = 0; i < 5; i += 1) {
      const answer = await fetch(`${url}/api/endpoints/functions.invocation-stats?project=${project}&interval=5min`, {
        headers: { "x-api-key": key, traceparent: traceparent(`00000000000000a${i}`) },
      });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({
        result: expect.any(Array),
        truncated: false,
        rows_before_limit_at_least: expect.any(Number),
      });
      // Past a schedule delay, so that exports are tried (and fail) between the calls.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await service!.stop();
    expect(await service!.exited).toBe(0);
    // The failed exports are said in the log, not once a batch.
    const problems = service!
      .output()
      .split("\n")
      .filter((line) => line.includes("trace export problem"));
    expect(problems.length).toBeLessThanOrEqual(1);
  });
});
