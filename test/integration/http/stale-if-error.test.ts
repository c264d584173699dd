// Serving through an outage on the embedded engine, caused for real: one
// warehouse query at a time and none waiting, a slow saved query holding the
// only place, so that computing another result anew is refused as overload.
// Within STALE_IF_ERROR_SECONDS past its lifetime the last good result
// answers as STALE; past the window the caller gets the error.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readSavedQuerySql } from "../../../src/warehouse/index.js";
import { TEST_API_KEY, useScenarioServer, type TestServer } from "../../support/test-server.js";

// functions.invocation-stats made to take 1.5 s (three rows, 500 ms each).
const sleepySql = `SELECT count() AS count FROM numbers(3) WHERE sleepEachRow(0.5) = 0
  AND {project:String} != '' AND {function_id:String} = '' AND {interval:String} IN ('5min', '15min', '1hr', '1day', '7day') AND {now:DateTime64(6, 'UTC')} IS NOT NULL`;

const scenario = useScenarioServer({
  staleIfErrorMs: 60_000,
  admission: { maxConcurrent: 1, maxQueued: 0 },
  readSql: (name) => (name === "functions.invocation-stats" ? sleepySql : readSavedQuerySql(name)),
});
let server: TestServer;
beforeAll(() => {
  server = scenario.server();
  // The result cache counts lifetimes in Date.now() time, Age on the service's clock: both move together.
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
});
afterAll(() => void vi.useRealTimers());

const headers = { "x-api-key": TEST_API_KEY };
const path = "/api/endpoints/usage.api-counts?project=rpc&interval=hourly";
const advance = (ms: number) => {
  server.clock.advance(ms);
  vi.setSystemTime(Date.now() + ms);
};

let busyCalls = 0;

/** Runs `during` while the slow saved query holds the warehouse's only place. */
async function whileBusy<T>(during: () => Promise<T>): Promise<T> {
  // A project not asked before: a result of its own would answer from the cache at once.
  const busy = fetch(
    `${server.url}/api/endpoints/functions.invocation-stats?project=busy-${++busyCalls}&interval=1hr`,
    {
      headers,
    },
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  try {
    return await during();
  } finally {
    await (await busy).arrayBuffer();
  }
}

describe("stale-if-error", () => {
  it("answers the last good result as STALE within the window, and the error after it", async () => {
    const good = await fetch(`${server.url}${path}`, { headers });
    const goodBody = await good.text();
    expect(good.headers.get("x-cache")).toBe("MISS");

    advance(910_000); // 10 s past the 900 s lifetime
    const stale = await whileBusy(() => fetch(`${server.url}${path}`, { headers }));
    expect(stale.status).toBe(200);
    expect(await stale.text()).toBe(goodBody);
    expect([stale.headers.get("x-cache"), stale.headers.get("age")]).toEqual(["STALE", "910"]);
    expect(stale.headers.get("cache-status")).toBe("saved-query-endpoints; fwd=stale; ttl=-10");
    expect(stale.headers.get("cache-control")).toBe("private, max-age=900, stale-if-error=60");
    expect(stale.headers.get("etag")).toBe(good.headers.get("etag"));

    advance(60_000); // 70 s past the lifetime: outside the 60 s window
    const failed = await whileBusy(() => fetch(`${server.url}${path}`, { headers }));
    expect(failed.status).toBe(429);
    expect(failed.headers.get("cache-control")).toBe("no-store");
    expect(failed.headers.get("x-cache")).toBeNull();
  });
});
