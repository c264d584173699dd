// CORS on every transport, seen from outside as a browser would: preflights
// of RPC and GET paths answered before any key check, the headers every
// answer (errors included) lets a page read, and CORS_ORIGINS narrowing the
// origins. The browser's own view is in test/integration/browser/.
import { connect as http2Connect } from "node:http2";
import { cors } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const RPC_PATH = "/logs.v1.LogsService/GetAllLogs";
const STATS_PATH = "/functions.v1.FunctionsService/GetInvocationStats";
const PAGE = "https://page.example.com";

let warehouse: Warehouse;
let server: TestServer;
let narrow: TestServer;
let throttled: TestServer;

beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  server = await startTestServer(warehouse, NOW);
  narrow = await startTestServer(warehouse, NOW, { corsOrigins: [PAGE, "http://localhost:3000"] });
  // Two failed authentications per address, and the pinned clock never gives one back.
  throttled = await startTestServer(warehouse, NOW, { authFailures: { perSecond: 1, burst: 2 } });
});
afterAll(async () => {
  await Promise.all([server, narrow, throttled].map((s) => s?.close()));
  await warehouse?.close();
});

const lower = (list: readonly string[]) => list.map((h) => h.toLowerCase());
const listOf = (value: string | null) => lower((value ?? "").split(",").map((h) => h.trim()));

function preflight(base: TestServer, path: string, origin: string, method = "POST", headers = "content-type") {
  return fetch(`${base.url}${path}`, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": method, "access-control-request-headers": headers },
  });
}

describe("preflights", () => {
  it.each([
    ["Connect", RPC_PATH, "POST", "content-type,connect-protocol-version,connect-timeout-ms,x-api-key"],
    ["gRPC-Web", RPC_PATH, "POST", "content-type,x-grpc-web,x-user-agent,grpc-timeout,authorization"],
    ["Connect GET", STATS_PATH, "GET", "connect-protocol-version,x-api-key,traceparent,x-request-id"],
    ["the GET API", "/api/endpoints/logs.all", "GET", "x-api-key,accept"],
  ])(
    "answers a %s preflight with 204 and every method and header its protocol uses",
    async (_, path, method, asked) => {
      const response = await preflight(server, path, PAGE, method, asked);
      expect(response.status).toBe(204);
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(response.headers.get("access-control-allow-credentials")).toBeNull();
      const methods = listOf(response.headers.get("access-control-allow-methods"));
      expect(methods).toEqual(expect.arrayContaining(["get", "post"]));
      const allowed = listOf(response.headers.get("access-control-allow-headers"));
      const needed = [...cors.allowedHeaders, "x-api-key", "authorization", "x-request-id", "traceparent"];
      expect(allowed).toEqual(expect.arrayContaining(lower(needed)));
      expect(allowed).toEqual(expect.arrayContaining(asked.split(",")));
      expect(await response.text()).toBe("");
    },
  );

  it("reads no body sent with a preflight, closing its HTTP/1.1 connection instead", async () => {
    const response = await fetch(`${server.url}${RPC_PATH}`, {
      method: "OPTIONS",
      headers: { origin: PAGE, "access-control-request-method": "POST" },
      body: "x".repeat(100_000),
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("connection")).toBe("close");
  });

  it("never counts a preflight as a failed authentication", async () => {
    for (let i = 0; i < 6; i++) {
      expect((await preflight(throttled, RPC_PATH, PAGE)).status).toBe(204);
      expect((await preflight(throttled, "/api/endpoints/logs.all", PAGE, "GET")).status).toBe(204);
    }
    // The address still has both of its failures: two wrong keys are told 401, the third is throttled.
    const wrong = () => fetch(`${throttled.url}/api/endpoints`, { headers: { "x-api-key": "wrong-key-0123456789" } });
    expect((await wrong()).status).toBe(401);
    expect((await wrong()).status).toBe(401);
    expect((await wrong()).status).toBe(429);
  });
});

describe("what a page may read", () => {
  const exposedNeeded = [
    "grpc-status",
    "grpc-message",
    "grpc-status-details-bin",
    "x-cache",
    "age",
    "x-request-id",
    "retry-after",
    "ratelimit",
    "ratelimit-policy",
    "server-timing",
  ];

  it("exposes the gRPC status, cache, request id and rate-limit headers on a Connect error", async () => {
    const response = await fetch(`${server.url}${RPC_PATH}`, {
      method: "POST",
      headers: { origin: PAGE, "content-type": "application/json", "x-api-key": "wrong-key-0123456789" },
      body: "{}",
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(listOf(response.headers.get("access-control-expose-headers"))).toEqual(
      expect.arrayContaining(exposedNeeded),
    );
  });

  it("exposes them on a Connect success and on a GET error too", async () => {
    const ok = await fetch(`${server.url}${STATS_PATH}`, {
      method: "POST",
      headers: { origin: PAGE, "content-type": "application/json", "x-api-key": TEST_API_KEY },
      body: JSON.stringify({ project: "rpc" }),
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-cache")).toMatch(/^(HIT|MISS)$/);
    expect(ok.headers.get("access-control-allow-origin")).toBe("*");
    expect(listOf(ok.headers.get("access-control-expose-headers"))).toEqual(expect.arrayContaining(exposedNeeded));
    const bad = await fetch(`${server.url}/api/endpoints/usage.api-counts`, {
      headers: { origin: PAGE, "x-api-key": TEST_API_KEY },
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("access-control-allow-origin")).toBe("*");
    expect(listOf(bad.headers.get("access-control-expose-headers"))).toEqual(expect.arrayContaining(exposedNeeded));
  });

  it("sends the CORS headers with a gRPC-Web refusal over HTTP/2, which is written without the router", async () => {
    const session = http2Connect(server.url);
    try {
      const headers = await new Promise<Record<string, unknown>>((resolve, reject) => {
        const stream = session.request({
          ":method": "POST",
          ":path": RPC_PATH,
          origin: PAGE,
          "content-type": "application/grpc-web+proto",
          "x-grpc-web": "1",
        });
        stream.on("response", (h) => resolve(h));
        stream.on("error", reject);
        stream.end();
        stream.resume();
      });
      expect(headers["grpc-status"]).toBe("16");
      expect(headers["access-control-allow-origin"]).toBe("*");
      expect(listOf(String(headers["access-control-expose-headers"]))).toEqual(expect.arrayContaining(exposedNeeded));
    } finally {
      session.close();
    }
  });
});

describe("CORS_ORIGINS", () => {
  it("names an allowed origin back, with Vary: Origin, and never allows credentials", async () => {
    const pre = await preflight(narrow, RPC_PATH, PAGE);
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe(PAGE);
    expect(pre.headers.get("vary")).toContain("Origin");
    expect(pre.headers.get("access-control-allow-credentials")).toBeNull();
    const ok = await fetch(`${narrow.url}/api/endpoints/logs.all?project=rpc`, {
      headers: { origin: "http://localhost:3000", "x-api-key": TEST_API_KEY },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe("http://localhost:3000");
    expect(ok.headers.get("vary")).toBe("Origin, Accept, Accept-Encoding, X-API-KEY, Authorization");
    expect(ok.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("writes the same CORS headers on a cache hit, in one head with its own, as on the miss before it", async () => {
    const corsHeaders = (response: Response) =>
      ["vary", "access-control-allow-origin", "access-control-expose-headers", "timing-allow-origin"].map((name) =>
        response.headers.get(name),
      );
    const calls: Record<string, (origin: string, project: string) => Promise<Response>> = {
      GET: (origin, project) =>
        fetch(`${narrow.url}/api/endpoints/functions.invocation-stats?project=${project}`, {
          headers: { origin, "x-api-key": TEST_API_KEY },
        }),
      Connect: (origin, project) =>
        fetch(`${narrow.url}${STATS_PATH}`, {
          method: "POST",
          headers: { origin, "content-type": "application/json", "x-api-key": TEST_API_KEY },
          body: JSON.stringify({ project }),
        }),
    };
    for (const [name, call] of Object.entries(calls)) {
      for (const [origin, allowed] of [
        [PAGE, true],
        ["https://evil.example.net", false],
      ] as const) {
        const project = `cors-${name}-${allowed}`;
        const miss = await call(origin, project);
        const hit = await call(origin, project);
        const seen = { name, allowed, cache: [miss.headers.get("x-cache"), hit.headers.get("x-cache")] };
        expect(seen).toEqual({ name, allowed, cache: ["MISS", "HIT"] });
        const [vary, allowOrigin, exposed, timing] = corsHeaders(hit);
        expect(vary?.split(", ")[0]).toBe("Origin");
        expect([allowOrigin, timing]).toEqual(allowed ? [PAGE, PAGE] : [null, null]);
        expect(listOf(exposed ?? null).includes("x-cache")).toBe(allowed);
        expect(corsHeaders(hit)).toEqual(corsHeaders(miss));
      }
    }
  });

  it("gives another origin no CORS header, on a preflight or an answer, so its browser reads nothing", async () => {
    const pre = await preflight(narrow, RPC_PATH, "https://evil.example.net");
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
    expect(pre.headers.get("access-control-allow-methods")).toBeNull();
    const answer = await fetch(`${narrow.url}/api/endpoints/logs.all?project=rpc`, {
      headers: { origin: "https://evil.example.net", "x-api-key": TEST_API_KEY },
    });
    expect(answer.headers.get("access-control-allow-origin")).toBeNull();
    expect(answer.headers.get("access-control-expose-headers")).toBeNull();
    expect(answer.headers.get("vary")).toBe("Origin, Accept, Accept-Encoding, X-API-KEY, Authorization");
  });
});
