// Overload and an unreachable warehouse through the real server: the per-key
// rate limit, the bounds on warehouse queries, capped deadlines that count
// the wait for a turn, a noisy key beside a quiet one, and fast UNAVAILABLE
// answers.
import { createServer, type Server, type Socket } from "node:net";
import { create } from "@bufbuild/protobuf";
import { ClickHouseLogLevel, createClient as createClickHouseClient } from "@clickhouse/client";
import { Code, type ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FunctionsService } from "../../../src/gen/functions/v1/functions_pb.js";
import { LogsService } from "../../../src/gen/logs/v1/logs_pb.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { withSlowQuery } from "../../support/slow-sql.js";
import { readSavedQuerySql } from "../../../src/warehouse/index.js";
import { expectedLogIds, insertScenario, NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const headers = { "x-api-key": TEST_API_KEY };
let warehouse: Warehouse;
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
});
afterAll(async () => warehouse?.close());

describe("per-key rate limit", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(warehouse, NOW, { rateLimit: { perSecond: 1, burst: 2 } });
  });
  afterAll(() => server?.close());

  it("answers 429 with Retry-After and RateLimit once a key's burst is spent, and refills with time", async () => {
    const call = () => fetch(`${server.url}/api/endpoints/logs.all?project=rpc`, { headers });
    const statuses = [(await call()).status, (await call()).status];
    const refused = await call();
    expect(statuses).toEqual([200, 200]);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("ratelimit")).toBe("limit=2, remaining=0, reset=1");
    expect(await refused.json()).toEqual({
      error: { code: "resource_exhausted", message: "rate limit exceeded for this API key", details: [] },
    });
    server.clock.advance(1000);
    expect((await call()).status).toBe(200);
    // Counted under its own code, not as a wrong key.
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toContain('sqe_requests_total{endpoint="",protocol="http",code="resource_exhausted"} 1\n');
    expect(metrics).not.toContain('code="unauthenticated"');
  });

  it("answers RESOURCE_EXHAUSTED over gRPC with retry-after metadata", async () => {
    server.clock.advance(10_000);
    const client = createClient(LogsService, createGrpcTransport({ baseUrl: server.url }));
    const request = create(LogsService.method.getAllLogs.input, { project: "rpc" });
    await client.getAllLogs(request, { headers });
    await client.getAllLogs(request, { headers });
    const error = (await client.getAllLogs(request, { headers }).catch((e: unknown) => e)) as ConnectError;
    expect(error.code).toBe(Code.ResourceExhausted);
    expect(error.metadata.get("retry-after")).toBe("1");
  });
});

describe("bounded warehouse queries", () => {
  let server: TestServer;
  beforeAll(async () => {
    // logs.all made slow on purpose; one query may run and one wait.
    server = await startTestServer(warehouse, NOW, {
      admission: { maxConcurrent: 1, maxQueued: 1 },
      defaultTimeoutMs: 700,
      readSql: withSlowQuery("logs.all"),
    });
  });
  afterAll(() => server?.close());

  it("refuses a query past the running and queued bounds at once with 429, and counts the wait in the deadline", async () => {
    const started = Date.now();
    const responses = await Promise.all(
      ["a", "b", "c"].map((project) => fetch(`${server.url}/api/endpoints/logs.all?project=${project}`, { headers })),
    );
    const elapsed = Date.now() - started;
    const statuses = responses.map((r) => r.status).sort();
    // One runs to its deadline; one waits its turn until its own deadline, which the wait counts in; one is refused.
    expect(statuses).toEqual([429, 504, 504]);
    const refused = responses.find((r) => r.status === 429)!;
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("resource_exhausted");
    // Both 504s come at the 700 ms deadline; had the wait not counted, the queued one would end at 1,400 ms.
    expect(elapsed).toBeGreaterThanOrEqual(700);
    expect(elapsed).toBeLessThan(1400);
  });
});

describe("capped deadlines", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(warehouse, NOW, { maxQueryMs: 500, readSql: withSlowQuery("logs.all") });
  });
  afterAll(() => server?.close());

  it.each(["grpc", "connect"] as const)(
    "cuts a %s client's ten-minute deadline to MAX_QUERY_SECONDS",
    async (protocol) => {
      const transport =
        protocol === "grpc"
          ? createGrpcTransport({ baseUrl: server.url })
          : createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" });
      const client = createClient(LogsService, transport);
      const started = Date.now();
      const error = (await client
        .getAllLogs(create(LogsService.method.getAllLogs.input, { project: "rpc" }), { headers, timeoutMs: 600_000 })
        .catch((e: unknown) => e)) as ConnectError;
      expect(error.code).toBe(Code.DeadlineExceeded);
      // The 500 ms cap, not ten minutes (nor the 30 s default).
      expect(Date.now() - started).toBeLessThan(5_000);
    },
  );
});

describe("a noisy key beside a quiet one", () => {
  let server: TestServer;
  const noisy = "noisy-key-0123456789";
  const quiet = "quiet-key-0123456789";
  // functions.invocation-stats made to take 300 ms (three rows, 100 ms each); logs.all stays fast.
  const sleepySql = `SELECT count() AS count FROM numbers(3) WHERE sleepEachRow(0.1) = 0
    AND {project:String} != '' AND {function_id:String} = '' AND {interval:String} IN ('5min', '15min', '1hr', '1day', '7day') AND {now:DateTime64(6, 'UTC')} IS NOT NULL`;
  beforeAll(async () => {
    // One warehouse query at a time, as on the embedded engine, and at most four per key.
    server = await startTestServer(warehouse, NOW, {
      apiKeys: [noisy, quiet],
      admission: { maxConcurrent: 1, maxQueued: 64, maxPerKey: 4 },
      readSql: (name) => (name === "functions.invocation-stats" ? sleepySql : readSavedQuerySql(name)),
    });
  });
  afterAll(() => server?.close());

  it("refuses the noisy key past its own bound and serves the quiet key after at most one of its queries", async () => {
    const finished: string[] = [];
    const call = (key: string, path: string, name: string) =>
      fetch(`${server.url}${path}`, { headers: { "x-api-key": key } }).then(async (response) => {
        finished.push(name);
        await response.arrayBuffer();
        return response.status;
      });
    const noisyCalls = Array.from({ length: 6 }, (_, i) =>
      call(noisy, `/api/endpoints/functions.invocation-stats?project=p${i}`, `noisy-${i}`),
    );
    await new Promise((r) => setTimeout(r, 100)); // the noisy queue is full when the quiet call comes
    const quietStatus = await call(quiet, "/api/endpoints/logs.all?project=rpc", "quiet");
    const noisyStatuses = await Promise.all(noisyCalls);
    expect(quietStatus).toBe(200);
    // Four admitted (one running, three waiting) and answered; two refused at once.
    expect(noisyStatuses.filter((s) => s === 429)).toHaveLength(2);
    expect(noisyStatuses.filter((s) => s === 200)).toHaveLength(4);
    // In arrival order the quiet call would come after all four; it came right after the one running.
    const answeredBefore = finished.slice(0, finished.indexOf("quiet"));
    expect(answeredBefore).toHaveLength(3); // the two refusals and the query that was running
    expect(finished.slice(finished.indexOf("quiet") + 1)).toHaveLength(3); // the three that were waiting
  });

  it("lets a caller that joins another's uncached call wait for it to its own deadline, not the first caller's", async () => {
    const client = createClient(FunctionsService, createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" }));
    const request = create(FunctionsService.method.getInvocationStats.input, { project: "joined", interval: "1hr" });
    // The first caller gives up at 100 ms; the query takes 300 ms.
    const first = client
      .getInvocationStats(request, { headers: { "x-api-key": quiet }, timeoutMs: 100 })
      .catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 20));
    const second = fetch(`${server.url}/api/endpoints/functions.invocation-stats?project=joined&interval=1hr`, {
      headers: { "x-api-key": noisy },
    });
    expect(((await first) as ConnectError).code).toBe(Code.DeadlineExceeded);
    const response = await second;
    expect(response.status).toBe(200);
    expect(response.headers.get("x-cache")).toBe("MISS");
  });
});

describe("a cached query its caller left once it ran", () => {
  let server: TestServer;
  // functions.invocation-stats made to take 300 ms (three rows, 100 ms each).
  const sleepySql = `SELECT count() AS count FROM numbers(3) WHERE sleepEachRow(0.1) = 0
    AND {project:String} != '' AND {function_id:String} = '' AND {interval:String} IN ('5min', '15min', '1hr', '1day', '7day') AND {now:DateTime64(6, 'UTC')} IS NOT NULL`;
  beforeAll(async () => {
    server = await startTestServer(warehouse, NOW, {
      readSql: (name) => (name === "functions.invocation-stats" ? sleepySql : readSavedQuerySql(name)),
    });
  });
  afterAll(() => server?.close());

  it("is finished and kept, since the embedded engine does the work anyway: the next caller gets it from the cache", async () => {
    const client = createClient(FunctionsService, createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" }));
    const request = create(FunctionsService.method.getInvocationStats.input, { project: "left", interval: "1hr" });
    const error = (await client
      .getInvocationStats(request, { headers, timeoutMs: 10_000, signal: AbortSignal.timeout(100) })
      .catch((e: unknown) => e)) as ConnectError;
    expect(error.code).toBe(Code.Canceled);
    // The engine answers the abandoned query 300 ms in; nothing else asks the warehouse meanwhile. Up to 20 s: on a
    // machine busy with other test files, the 300 ms can take several seconds.
    const ranOnce = /sqe_warehouse_query_duration_seconds_count\{endpoint="functions\.invocation-stats"\} 1\n/;
    let metrics = "";
    for (let i = 0; i < 200 && !ranOnce.test(metrics); i++) {
      await new Promise((r) => setTimeout(r, 100));
      metrics = await (await fetch(`${server.url}/metrics`)).text();
    }
    expect(metrics).toMatch(ranOnce);
    // Its result was kept: the first GET is a hit.
    const response = await fetch(`${server.url}/api/endpoints/functions.invocation-stats?project=left&interval=1hr`, {
      headers,
    });
    expect(response.headers.get("x-cache")).toBe("HIT");
    expect(((await response.json()) as { result: { count: number }[] }).result.map((row) => row.count)).toEqual([3]);
  });
});

describe("calls abandoned one after another", () => {
  let server: TestServer;
  const abandoning = "abandoning-key-0123456789";
  const other = "other-key-0123456789";
  beforeAll(async () => {
    // The embedded engine's one turn (createApp's default on it), and a 30 s longest deadline.
    server = await startTestServer(warehouse, NOW, {
      apiKeys: [abandoning, other],
      maxQueryMs: 30_000,
      readSql: withSlowQuery("functions.invocation-stats"),
    });
  });
  afterAll(() => server?.close());

  it("leave the engine no longer busy than each caller asked to wait, so another key is served", async () => {
    const client = createClient(FunctionsService, createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" }));
    // Five costly queries, each a cache miss of its own, each given up after 100 ms.
    for (const project of ["a1", "a2", "a3", "a4", "a5"]) {
      const request = create(FunctionsService.method.getInvocationStats.input, { project });
      const error = (await client
        .getInvocationStats(request, { headers: { "x-api-key": abandoning }, timeoutMs: 100 })
        .catch((e: unknown) => e)) as ConnectError;
      expect(error.code).toBe(Code.DeadlineExceeded);
    }
    // Had each run on to the service's 30 s, the engine would be busy for minutes and this call would miss its 5 s.
    const logs = createClient(LogsService, createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" }));
    const response = await logs.getAllLogs(create(LogsService.method.getAllLogs.input, { project: "rpc" }), {
      headers: { "x-api-key": other },
      timeoutMs: 5_000,
    });
    expect(response.result.map((row) => row.id)).toEqual(expectedLogIds);
  });
});

describe("unreachable warehouse", () => {
  let server: TestServer;
  let listener: Server;
  let connections = 0;
  beforeAll(async () => {
    // A port that accepts and at once drops every connection: the warehouse is gone.
    const sockets: Socket[] = [];
    listener = createServer((socket) => {
      connections += 1;
      sockets.push(socket);
      socket.destroy();
    });
    await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r));
    const port = (listener.address() as { port: number }).port;
    const client = createClickHouseClient({ url: `http://127.0.0.1:${port}`, log: { level: ClickHouseLogLevel.OFF } });
    server = await startTestServer({ client, kind: "server", location: "", close: () => client.close() }, NOW);
  });
  afterAll(async () => {
    await server?.close();
    await new Promise<void>((r) => listener.close(() => r()));
  });

  it("answers 503 with Retry-After, then answers at once without trying the warehouse again", async () => {
    const first = await fetch(`${server.url}/api/endpoints/logs.all?project=rpc`, { headers });
    expect(first.status).toBe(503);
    expect(first.headers.get("retry-after")).toBe("2");
    const tried = connections;
    expect(tried).toBeGreaterThan(0);
    const second = await fetch(`${server.url}/api/endpoints/logs.all?project=x`, { headers });
    expect(second.status).toBe(503);
    expect(connections).toBe(tried); // within the cooldown nothing was sent
  });

  it("says 503 on /readyz", async () => {
    expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
  });
});
