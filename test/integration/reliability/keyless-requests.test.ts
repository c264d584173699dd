// Requests that need no key, through the real server: one address past its
// bound of scrapes and misses gets 429 with Retry-After, while its health
// probes and other addresses' requests are answered; keyed calls are not
// counted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

let warehouse: Warehouse;
let server: TestServer;
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  // The pinned clock never refills a bucket: 5 of each kind is all an address gets.
  server = await startTestServer(warehouse, NOW, { keylessRateLimit: { perSecond: 1, burst: 5 } });
});
afterAll(async () => {
  await server?.close();
  await warehouse?.close();
});

describe("keyless requests", () => {
  it("answers 429 past an address's bound of scrapes and misses, and keeps answering its probes and keyed calls", async () => {
    const statuses: number[] = [];
    for (const path of ["/metrics", "/openapi.json", "/no-such-path", "/metrics", "/metrics", "/metrics", "/nope"])
      statuses.push((await fetch(`${server.url}${path}`)).status);
    expect(statuses).toEqual([200, 200, 404, 200, 200, 429, 429]);
    const refused = await fetch(`${server.url}/metrics`);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toEqual({
      error: {
        code: "resource_exhausted",
        message: "too many requests from this address, try again later",
        details: [],
      },
    });
    // Probes have their own bucket: five of them still pass.
    for (let i = 0; i < 5; i++) expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    // Keyed calls are not keyless: served as ever.
    const keyed = await fetch(`${server.url}/api/endpoints/logs.all?project=x`, {
      headers: { "x-api-key": TEST_API_KEY },
    });
    expect(keyed.status).toBe(200);
  });
});
