// Scoped credentials through the real server, over GET and every RPC client:
// a scoped key and a token read their own project only, another project,
// another endpoint or another value of a fixed parameter is PERMISSION_DENIED,
// bad tokens are UNAUTHENTICATED, tenants never share a cache entry computed
// for another's parameters, and the key file is read again without a restart.
import { writeFileSync } from "node:fs";
import { connect as connectHttp2, constants } from "node:http2";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueToken, keyDigest } from "../../../src/auth/index.js";
import { LogsService } from "../../../src/gen/logs/v1/logs_pb.js";
import { UsageService } from "../../../src/gen/usage/v1/usage_pb.js";
import { readSavedQuerySql, type Warehouse } from "../../../src/warehouse/index.js";
import { edgeRow, insertRows, openTestWarehouse, ts } from "../../support/embedded-warehouse.js";
import { allClients, type RpcClient } from "../../support/rpc-clients.js";
import { expectedLogIds, insertScenario, NOW } from "../../support/scenario.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";
import { startTestServer, type TestServer } from "../../support/test-server.js";

const secret = "scoped-access-test-secret-0123456789";
const rpcKey = "tenant-rpc-key-0123456789";
const throttledKey = "tenant-slow-key-0123456789";
const MINUTE = 60_000;
const keyFile = (entries: object[]) => JSON.stringify({ keys: entries });
const rpcEntry = {
  id: "tenant-rpc",
  sha256: keyDigest(rpcKey),
  endpoints: ["logs.all", "functions.invocation-stats"],
  fixed: { project: "rpc" },
};
const throttledEntry = {
  id: "tenant-slow",
  sha256: keyDigest(throttledKey),
  rate_limit_per_second: 1,
  rate_limit_burst: 1,
};

let warehouse: Warehouse;
let directory: string;
let keysPath: string;
let server: TestServer;
let clients: RpcClient[];
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  // Another tenant's edge logs: o1 (rest) and o2 (storage), 5 and 15 minutes old.
  await insertRows(warehouse, "edge_logs", [
    edgeRow({ project: "other", id: "o1", path: "/rest/v1/x", timestamp: ts(NOW - 5 * MINUTE) }),
    edgeRow({ project: "other", id: "o2", path: "/storage/v1/y", timestamp: ts(NOW - 15 * MINUTE) }),
  ]);
  directory = makeTemporaryDirectory("sqe-keys-");
  keysPath = join(directory, "keys.json");
  writeFileSync(keysPath, keyFile([rpcEntry, throttledEntry]));
  server = await startTestServer(warehouse, NOW, { keyFile: { path: keysPath, pollMs: 0 }, tokens: { secret } });
  clients = allClients(server.url, server.address);
});
afterAll(async () => {
  for (const client of clients ?? []) client.close();
  await server?.close();
  await warehouse?.close();
  removeTemporaryDirectory(directory);
});

const token = (claims: Parameters<typeof issueToken>[0], ttlSeconds = 3600, now = NOW) =>
  issueToken(claims, { secret, ttlSeconds, now });

async function get(path: string, credential: string) {
  const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${credential}` } });
  // biome-ignore lint/suspicious/noExplicitAny: the tests read fields of many response shapes
  return { status: response.status, cache: response.headers.get("x-cache"), json: (await response.json()) as any };
}

describe("a scoped key over GET", () => {
  it("reads its own project, with the fixed value filled in when absent", async () => {
    for (const path of ["/api/endpoints/logs.all", "/api/endpoints/logs.all?project=rpc"]) {
      const { status, json } = await get(path, rpcKey);
      expect(status).toBe(200);
      expect(json.result.map((r: { id: string }) => r.id)).toEqual(expectedLogIds);
    }
  });

  it.each([
    ["another project", "/api/endpoints/logs.all?project=other", ["project"]],
    ["another endpoint", "/api/endpoints/usage.api-counts?project=rpc&interval=hourly", []],
  ])("is refused %s with 403 permission_denied", async (_label, path, fields) => {
    const { status, json } = await get(path, rpcKey);
    expect(status).toBe(403);
    expect(json.error.code).toBe("permission_denied");
    expect(json.error.details.map((d: { field: string }) => d.field)).toEqual(fields);
  });

  it("lists only the endpoints it may call, with its fixed parameters", async () => {
    const { json } = await get("/api/endpoints", rpcKey);
    expect(json.result.map((e: { name: string }) => e.name)).toEqual(["functions.invocation-stats", "logs.all"]);
    expect(json.result.map((e: { fixed_parameters: unknown }) => e.fixed_parameters)).toEqual([
      { project: "rpc" },
      { project: "rpc" },
    ]);
  });

  it("is counted by its id in the metrics, never by its key", async () => {
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/^sqe_caller_requests_total\{caller="tenant-rpc",code="ok"\} [1-9]/m);
    expect(metrics).toMatch(/^sqe_caller_requests_total\{caller="tenant-rpc",code="permission_denied"\} [1-9]/m);
    expect(metrics).not.toContain(rpcKey);
  });

  it("has its own rate limit", async () => {
    expect((await get("/api/endpoints/logs.all?project=rpc", throttledKey)).status).toBe(200);
    const refused = await get("/api/endpoints/logs.all?project=rpc", throttledKey);
    expect(refused.status).toBe(429);
    expect((await get("/api/endpoints/logs.all", rpcKey)).status).toBe(200); // another caller, another bucket
  });
});

describe("a scoped key and a token over every RPC client", () => {
  const logs = (project?: string) =>
    create(LogsService.method.getAllLogs.input, project === undefined ? {} : { project });
  const ids = (message: unknown) => (message as { result: { id: string }[] }).result.map((r) => r.id);

  it("reads its own project and is refused another, another endpoint, and anything with a bad token", async () => {
    const otherToken = await token({ sub: "tenant-other", endpoints: ["logs.all"], fixed: { project: "other" } });
    const expired = await token({ sub: "tenant-other" }, 60, NOW - 120_000);
    const tampered = otherToken.slice(0, -2) + (otherToken.endsWith("AA") ? "BB" : "AA");
    for (const client of clients) {
      const as = (credential: string) => ({ headers: { "x-api-key": credential } });
      const own = await client.call(LogsService, LogsService.method.getAllLogs, logs(), as(rpcKey));
      expect(own.ok && ids(own.message), client.name).toEqual([...expectedLogIds]);
      const theirs = await client.call(LogsService, LogsService.method.getAllLogs, logs(), as(otherToken));
      expect(theirs.ok && ids(theirs.message), client.name).toEqual(["o1", "o2"]);
      const apiCounts = create(UsageService.method.getApiCounts.input, { project: "rpc", interval: "hourly" });
      const outcomes = [
        await client.call(LogsService, LogsService.method.getAllLogs, logs("other"), as(rpcKey)),
        await client.call(LogsService, LogsService.method.getAllLogs, logs("rpc"), as(otherToken)),
        await client.call(UsageService, UsageService.method.getApiCounts, apiCounts, as(otherToken)),
        await client.call(LogsService, LogsService.method.getAllLogs, logs(), as(expired)),
        await client.call(LogsService, LogsService.method.getAllLogs, logs(), as(tampered)),
      ].map((o) => (o.ok ? "ok" : Code[o.code]));
      expect(outcomes, client.name).toEqual([
        "PermissionDenied",
        "PermissionDenied",
        "PermissionDenied",
        "Unauthenticated",
        "Unauthenticated",
      ]);
    }
  });
});

describe("the cache between tenants", () => {
  it("never gives one tenant an entry computed for another's parameters", async () => {
    // Both ask the same URL; their fixed patterns make different effective parameters.
    const rpcUsage = await token({
      sub: "usage-rpc",
      endpoints: ["usage.api-counts"],
      fixed: { project: "^https://rpc\\." },
    });
    const otherUsage = await token({
      sub: "usage-other",
      endpoints: ["usage.api-counts"],
      fixed: { project: "^https://other\\." },
    });
    const path = "/api/endpoints/usage.api-counts?interval=hourly";
    const first = await get(path, rpcUsage);
    const second = await get(path, otherUsage);
    const again = await get(path, rpcUsage);
    // Worked out by hand from the rows: rpc has e1 (rest) and e2 (auth) in the last hour; other has o1 (rest) and o2 (storage).
    const hour = Math.floor(NOW / 3_600_000) * 3_600_000;
    const bucket = new Date(hour).toISOString().replace(".000Z", "Z");
    expect([first.cache, second.cache, again.cache]).toEqual(["MISS", "MISS", "HIT"]);
    expect(first.json.result).toEqual([
      {
        timestamp: bucket,
        total_rest_requests: 1,
        total_storage_requests: 0,
        total_auth_requests: 1,
        total_realtime_requests: 0,
      },
    ]);
    expect(second.json.result).toEqual([
      {
        timestamp: bucket,
        total_rest_requests: 1,
        total_storage_requests: 1,
        total_auth_requests: 0,
        total_realtime_requests: 0,
      },
    ]);
    expect(again.json).toEqual(first.json);
  });
});

describe("the key file, read again", () => {
  let slow: TestServer;
  let slowKeys: string;
  // functions.invocation-stats made to take 300 ms, so a call can be in flight.
  const sleepySql = `SELECT count() AS count FROM numbers(3) WHERE sleepEachRow(0.1) = 0
    AND {project:String} != '' AND {function_id:String} = '' AND {interval:String} IN ('5min', '15min', '1hr', '1day', '7day') AND {now:DateTime64(6, 'UTC')} IS NOT NULL`;
  beforeAll(async () => {
    slowKeys = join(directory, "slow-keys.json");
    writeFileSync(slowKeys, keyFile([rpcEntry]));
    slow = await startTestServer(warehouse, NOW, {
      keyFile: { path: slowKeys, pollMs: 0 },
      readSql: (name) => (name === "functions.invocation-stats" ? sleepySql : readSavedQuerySql(name)),
    });
  });
  afterAll(() => slow?.close());
  const call = (path: string) =>
    fetch(`${slow.url}${path}`, { headers: { "x-api-key": rpcKey } }).then((r) => r.status);

  it("keeps the keys in force when the file does not read", async () => {
    writeFileSync(slowKeys, "{ not json");
    expect(slow.app.reloadCredentials()).toBe(false);
    expect(await call("/api/endpoints/logs.all")).toBe(200);
  });

  it("stops a removed key at once, while its call in flight finishes", async () => {
    const inFlight = call("/api/endpoints/functions.invocation-stats");
    await new Promise((r) => setTimeout(r, 100));
    writeFileSync(slowKeys, keyFile([]));
    expect(slow.app.reloadCredentials()).toBe(true);
    expect(await call("/api/endpoints/logs.all")).toBe(401);
    expect(await inFlight).toBe(200);
  });
});

describe("a caller that resets its stream while its token is first checked", () => {
  it.each(["application/grpc", "application/grpc-web+proto"])(
    "over %s is answered nothing, and the process goes on",
    async (contentType) => {
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on("unhandledRejection", onUnhandled);
      const session = connectHttp2(server.url);
      session.on("error", () => {});
      try {
        // Looks like a token, is signed with another secret: refused once its check ends, by when the stream is gone.
        const forged = await issueToken(
          { sub: "forger" },
          { secret: "another-secret-0123456789-0123456789", ttlSeconds: 600, now: NOW },
        );
        const stream = session.request(
          {
            ":method": "POST",
            ":path": "/logs.v1.LogsService/GetAllLogs",
            "content-type": contentType,
            te: "trailers",
            authorization: `Bearer ${forged}`,
          },
          { endStream: false },
        );
        stream.on("error", () => {});
        stream.close(constants.NGHTTP2_CANCEL);
        await new Promise((resolve) => stream.once("close", resolve));
        await new Promise((r) => setTimeout(r, 200));
        expect(unhandled).toEqual([]);
        expect((await get("/api/endpoints/logs.all", rpcKey)).status).toBe(200);
      } finally {
        session.close();
        process.off("unhandledRejection", onUnhandled);
      }
    },
  );
});
