// One key's share of the result cache through the real server: a key
// flooding distinct misses past its share evicts its own results, and
// another key's result stays a HIT.
import { beforeAll, describe, expect, it } from "vitest";
import { TEST_API_KEY, useScenarioServer, type TestServer } from "../../support/test-server.js";

const OTHER_KEY = "other-key-0123456789";
// Eight entries: each key may hold four of a full cache.
const scenario = useScenarioServer({ apiKeys: [TEST_API_KEY, OTHER_KEY], cacheLimits: { maxEntries: 8 } });
let server: TestServer;
beforeAll(() => {
  server = scenario.server();
});

const get = async (key: string, project: string) => {
  const response = await fetch(`${server.url}/api/endpoints/usage.api-counts?project=${project}&interval=daily`, {
    headers: { "x-api-key": key },
  });
  await response.arrayBuffer();
  expect(response.status).toBe(200);
  return response.headers.get("x-cache");
};

describe("result cache share per key through the server", () => {
  it("keeps another key's result a HIT after one key floods distinct misses past its share", async () => {
    expect(await get(OTHER_KEY, "rpc")).toBe("MISS");
    // Twenty distinct parameter values: seven fill the cache, each of the other thirteen evicts one.
    for (let i = 0; i < 20; i++) expect(await get(TEST_API_KEY, `flood-${i}`)).toBe("MISS");
    expect(await get(OTHER_KEY, "rpc")).toBe("HIT");
    // The flooding key lost its own oldest results, and kept its latest.
    expect(await get(TEST_API_KEY, "flood-19")).toBe("HIT");
    expect(await get(TEST_API_KEY, "flood-0")).toBe("MISS");
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    const evictions = /sqe_cache_events_total\{endpoint="usage.api-counts",event="eviction"\} (\d+)/.exec(metrics);
    // Thirteen by the flood, and one more for the MISS of flood-0 just now.
    expect(Number(evictions?.[1])).toBe(14);
  });
});
