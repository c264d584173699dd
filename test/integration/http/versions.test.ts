// Two versions of usage.api-counts through the real server: the first,
// deprecated, answers with Deprecation and Sunset on GET; the second takes a
// weekly interval (weeks from Monday, worked out by hand: 2026-11-19, -12
// and -05 are Thursdays of the weeks of 2026-11-16, -09 and -02) and carries
// neither; past the sunset the first answers 410 over GET and UNIMPLEMENTED
// over RPC, naming the second.
import { create, type Message } from "@bufbuild/protobuf";
import { Code, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UsageService } from "../../../src/gen/usage/v1/usage_pb.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { edgeRow, insertRows, openTestWarehouse, ts } from "../../support/embedded-warehouse.js";
import { allClients, type RpcClient } from "../../support/rpc-clients.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const NOW = Date.UTC(2026, 11, 5, 12);
const AFTER_SUNSET = Date.UTC(2028, 0, 1);
const project = "versions";
const days = [19, 12, 5];

let warehouse: Warehouse;
let server: TestServer;
let retired: TestServer;
let clients: RpcClient[];
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertRows(
    warehouse,
    "edge_logs",
    days.map((day) => edgeRow({ project, timestamp: ts(Date.UTC(2026, 10, day, 10)) })),
  );
  server = await startTestServer(warehouse, NOW);
  retired = await startTestServer(warehouse, AFTER_SUNSET);
  clients = allClients(retired.url, retired.address).filter((c) => c.name === "connect" || c.name === "@grpc/grpc-js");
});
afterAll(async () => {
  for (const client of clients ?? []) client.close();
  await retired?.close();
  await server?.close();
  await warehouse?.close();
});

const headers = { "x-api-key": TEST_API_KEY };
const get = (on: TestServer, path: string) =>
  fetch(`${on.url}/api/endpoints/${path}`, {
    headers: { "x-api-key": TEST_API_KEY, origin: "https://elsewhere.example" },
  });

describe("before the sunset", () => {
  it("answers the deprecated version with Deprecation and Sunset, readable across origins", async () => {
    for (const path of [
      `usage.api-counts?project=${project}&interval=daily`,
      `usage.api-counts?project=${project}&interval=daily&dry_run=1`,
    ]) {
      const response = await get(server, path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("deprecation")).toBe("@1796083200"); // 2026-12-01T00:00:00Z
      expect(response.headers.get("sunset")).toBe("Fri, 31 Dec 2027 00:00:00 GMT");
    }
    const exposed = (await get(server, `usage.api-counts?project=${project}&interval=daily`)).headers.get(
      "access-control-expose-headers",
    );
    expect(exposed).toContain("Deprecation");
    expect(exposed).toContain("Sunset");
  });

  it("answers the new version by week, without the headers", async () => {
    const response = await get(server, `usage.api-counts.v2?project=${project}&interval=weekly`);
    expect(response.status).toBe(200);
    expect(response.headers.get("deprecation")).toBeNull();
    expect(response.headers.get("sunset")).toBeNull();
    const body = (await response.json()) as { result: { timestamp: string; total_rest_requests: number }[] };
    expect(body.result.map((r) => [r.timestamp, r.total_rest_requests])).toEqual([
      ["2026-11-02T00:00:00Z", 1],
      ["2026-11-09T00:00:00Z", 1],
      ["2026-11-16T00:00:00Z", 1],
    ]);
  });

  it("answers the deprecated version's RPC calls, hits included, with Deprecation and Sunset metadata", async () => {
    const transport = createConnectTransport({ baseUrl: server.url, httpVersion: "2" });
    const usage = createClient(UsageService, transport);
    for (const [name, call] of [
      [
        "v1",
        (onHeader: (h: Headers) => void) => usage.getApiCounts({ project, interval: "daily" }, { headers, onHeader }),
      ],
      [
        "v1 again (a hit)",
        (onHeader: (h: Headers) => void) => usage.getApiCounts({ project, interval: "daily" }, { headers, onHeader }),
      ],
      [
        "v2",
        (onHeader: (h: Headers) => void) => usage.getApiCountsV2({ project, interval: "daily" }, { headers, onHeader }),
      ],
    ] as const) {
      let received = new Headers();
      await call((h) => (received = h));
      const expected = name === "v2" ? [null, null] : ["@1796083200", "Fri, 31 Dec 2027 00:00:00 GMT"];
      expect([received.get("deprecation"), received.get("sunset")], name).toEqual(expected);
    }
  });

  it("refuses a weekly interval on the old version", async () => {
    const response = await get(server, `usage.api-counts?project=${project}&interval=weekly`);
    expect(response.status).toBe(400);
  });
});

describe("past the sunset", () => {
  it("answers the old version 410 over GET, naming the new one, and still serves the new one", async () => {
    const response = await get(retired, `usage.api-counts?project=${project}&interval=daily`);
    expect(response.status).toBe(410);
    expect(((await response.json()) as { error: unknown }).error).toMatchObject({
      code: "unimplemented",
      message: "usage.api-counts was retired on 2027-12-31; call usage.api-counts.v2 instead",
    });
    expect((await get(retired, `usage.api-counts.v2?project=${project}&interval=daily`)).status).toBe(200);
  });

  it("answers it UNIMPLEMENTED over Connect and grpc-js", async () => {
    const method = UsageService.method.getApiCounts;
    const request = create(method.input, { project, interval: "daily" }) as Message;
    for (const client of clients) {
      const outcome = await client.call(UsageService, method, request, { headers: { "x-api-key": TEST_API_KEY } });
      expect(outcome, client.name).toMatchObject({
        ok: false,
        code: Code.Unimplemented,
        message: "usage.api-counts was retired on 2027-12-31; call usage.api-counts.v2 instead",
      });
    }
  });
});
