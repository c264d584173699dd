// Calls refused by their caller's rate limit through the real server: each
// of a key-file key with a rate of one call makes two calls of a saved query
// over one transport, the second answered 429 (resource_exhausted) with
// Retry-After, and service.call-stats shows both within one flush, one of
// them an error; the refused call's aggregate names its caller, saved query,
// protocol, code and no cache outcome.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyDigest } from "../../../src/auth/index.js";
import { UsageService } from "../../../src/gen/usage/v1/usage_pb.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const FLUSH_MS = 200;
const callers = [
  "limited-get-known",
  "limited-get-new",
  "limited-connect",
  "limited-grpc",
  "limited-grpc-web",
] as const;
type Caller = (typeof callers)[number];
const keyOf = (caller: Caller) => `${caller}-key-0123456789`;

let warehouse: Warehouse;
let directory: string;
let server: TestServer;
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  directory = makeTemporaryDirectory("sqe-rate-limited-");
  const keysPath = join(directory, "keys.json");
  // One call, and the test server's fixed clock never refills the bucket: every later call is over the rate.
  const entries = callers.map((id) => ({
    id,
    sha256: keyDigest(keyOf(id)),
    rate_limit_per_second: 1,
    rate_limit_burst: 1,
  }));
  writeFileSync(keysPath, JSON.stringify({ keys: entries }));
  server = await startTestServer(warehouse, NOW, {
    keyFile: { path: keysPath, pollMs: 0 },
    callLog: { flushMs: FLUSH_MS },
  });
}, 120_000);
afterAll(async () => {
  await server?.close();
  await warehouse?.close();
  if (directory !== undefined) removeTemporaryDirectory(directory);
});

const getApiCounts = (key: string, interval: string) =>
  fetch(`${server.url}/api/endpoints/usage.api-counts?project=rpc&interval=${interval}`, {
    headers: { "x-api-key": key },
  });

/** The code of an RPC call of usage.api-counts over `transport`: `ok`, or the refusal's. */
async function rpcCall(transport: Transport, key: string): Promise<Code | "ok"> {
  try {
    await createClient(UsageService, transport).getApiCounts(
      { project: "rpc", interval: "hourly" },
      { headers: { "x-api-key": key } },
    );
    return "ok";
  } catch (error) {
    return ConnectError.from(error).code;
  }
}

/** Two calls of `caller` over its transport: the first answered, the second refused by its rate limit. */
const twoCalls: Record<Caller, (key: string) => Promise<void>> = {
  "limited-get-known": async (key) => {
    expect((await getApiCounts(key, "hourly")).status).toBe(200);
    const refused = await getApiCounts(key, "hourly");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
  },
  "limited-get-new": async (key) => {
    expect((await getApiCounts(key, "daily")).status).toBe(200);
    // A target no call asked before: its saved query is found from the path.
    expect((await getApiCounts(key, "minutely")).status).toBe(429);
  },
  "limited-connect": async (key) => {
    const transport = createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" });
    expect([await rpcCall(transport, key), await rpcCall(transport, key)]).toEqual(["ok", Code.ResourceExhausted]);
  },
  "limited-grpc": async (key) => {
    const transport = createGrpcTransport({ baseUrl: server.url });
    expect([await rpcCall(transport, key), await rpcCall(transport, key)]).toEqual(["ok", Code.ResourceExhausted]);
  },
  "limited-grpc-web": async (key) => {
    const transport = createGrpcWebTransport({ baseUrl: server.url, httpVersion: "1.1" });
    expect([await rpcCall(transport, key), await rpcCall(transport, key)]).toEqual(["ok", Code.ResourceExhausted]);
  },
};

const protocolOf: Record<Caller, string> = {
  "limited-get-known": "get",
  "limited-get-new": "get",
  "limited-connect": "connect",
  "limited-grpc": "grpc",
  "limited-grpc-web": "grpc-web",
};

describe("calls refused by the caller's rate limit", () => {
  beforeAll(async () => {
    for (const caller of callers) await twoCalls[caller](keyOf(caller));
    await sleep(FLUSH_MS + 250);
  });

  it.each(callers)("are in service.call-stats as errors of their caller (%s)", async (caller) => {
    const recorded = await warehouse.client.query({
      query: `SELECT endpoint, protocol, code, cache, toUInt8(sum(calls)) AS calls FROM service_call_aggregates
              WHERE caller = {caller:String} AND code != 'ok' GROUP BY endpoint, protocol, code, cache`,
      query_params: { caller },
      format: "JSONEachRow",
    });
    expect(await recorded.json()).toEqual([
      {
        endpoint: "usage.api-counts",
        protocol: protocolOf[caller],
        code: "resource_exhausted",
        cache: "none",
        calls: 1,
      },
    ]);
    // Asked with the full-access key: the caller's own bucket is spent.
    const stats = await fetch(
      `${server.url}/api/endpoints/service.call-stats?interval=minutely&endpoint=usage.api-counts&caller=${caller}`,
      { headers: { "x-api-key": TEST_API_KEY } },
    );
    expect(stats.status).toBe(200);
    const rows = ((await stats.json()) as { result: Record<string, unknown>[] }).result;
    expect(rows.map((r) => ({ endpoint: r.endpoint, calls: Number(r.calls), errors: Number(r.errors) }))).toEqual([
      { endpoint: "usage.api-counts", calls: 2, errors: 1 },
    ]);
  });
});
