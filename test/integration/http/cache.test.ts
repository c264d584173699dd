// The shared result cache through the real server: a HIT on the second
// identical GET, on the same request over gRPC and Connect, and its Age.
import { create } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { beforeAll, describe, expect, it } from "vitest";
import { UsageService } from "../../../src/gen/usage/v1/usage_pb.js";
import { TEST_API_KEY, useScenarioServer, type TestServer } from "../../support/test-server.js";

const scenario = useScenarioServer();
let server: TestServer;
beforeAll(() => {
  server = scenario.server();
});

const get = (path: string, headers: Record<string, string> = { "x-api-key": TEST_API_KEY }) =>
  fetch(`${server.url}${path}`, { headers });

describe("result cache through the server", () => {
  it("answers the second identical GET from the cache, in any parameter order", async () => {
    const first = await get("/api/endpoints/usage.api-counts?project=rpc&interval=daily");
    server.clock.advance(7_000);
    const second = await get("/api/endpoints/usage.api-counts?interval=daily&project=rpc");
    expect([first.headers.get("x-cache"), first.headers.get("age")]).toEqual(["MISS", "0"]);
    expect([second.headers.get("x-cache"), second.headers.get("age")]).toEqual(["HIT", "7"]);
    expect(await second.text()).toBe(await first.text());
  });

  it("checks the key before the cache", async () => {
    await get("/api/endpoints/usage.api-counts?project=rpc&interval=hourly");
    const response = await get("/api/endpoints/usage.api-counts?project=rpc&interval=hourly", {});
    expect(response.status).toBe(401);
    expect(response.headers.get("x-cache")).toBeNull();
  });

  it("checks method and key again for a target it has answered before", async () => {
    const path = "/api/endpoints/usage.api-counts?project=rpc&interval=daily&";
    expect((await get(path)).status).toBe(200);
    const post = await fetch(`${server.url}${path}`, { method: "POST", headers: { "x-api-key": TEST_API_KEY } });
    const preflight = await fetch(`${server.url}${path}`, { method: "OPTIONS" });
    const wrongKey = await get(path, { "x-api-key": "not-the-key" });
    expect([post.status, post.headers.get("allow")]).toEqual([405, "GET, HEAD, OPTIONS"]);
    expect(preflight.status).toBe(204);
    expect(wrongKey.status).toBe(401);
    expect((await get(path)).headers.get("x-cache")).toBe("HIT");
  });

  it.each([
    ["gRPC", () => createGrpcTransport({ baseUrl: server.url })],
    ["Connect", () => createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" })],
  ])("serves a GET-cached result as a HIT over %s", async (_label, transport) => {
    await get("/api/endpoints/usage.api-counts?project=rpc&interval=minutely");
    const client = createClient(UsageService, transport());
    let headers: Headers | undefined;
    const response = await client.getApiCounts(
      create(UsageService.method.getApiCounts.input, { project: "rpc", interval: "minutely" }),
      {
        headers: { "x-api-key": TEST_API_KEY },
        onHeader: (h) => (headers = h),
      },
    );
    expect(headers?.get("x-cache")).toBe("HIT");
    expect(headers?.get("age")).toBe("0");
    const body = (await (await get("/api/endpoints/usage.api-counts?project=rpc&interval=minutely")).json()) as {
      result: unknown[];
    };
    expect(response.result).toHaveLength(body.result.length);
  });

  it("does not cache logs.all", async () => {
    const response = await get("/api/endpoints/logs.all?project=rpc");
    expect(response.status).toBe(200);
    expect(response.headers.get("x-cache")).toBeNull();
  });

  it("counts hits and misses in /metrics", async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(
      Number(/sqe_cache_events_total\{endpoint="usage.api-counts",event="hit"\} (\d+)/.exec(text)?.[1]),
    ).toBeGreaterThanOrEqual(3);
    expect(text).toMatch(/sqe_cache_entries \d+/);
  });
});
