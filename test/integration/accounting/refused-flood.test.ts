// A flood of calls refused by the caller's rate limit through the real
// server: 300 GET calls of one key-file key with a rate of one call, 1
// answered and 299 refused with 429, become two aggregates of the call log
// (one per outcome), not a row a call, and service.call-stats counts all 300.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyDigest } from "../../../src/auth/index.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const CALLS = 300;
const caller = "flooder";
const key = "flooder-key-0123456789";

let warehouse: Warehouse;
let directory: string;
let server: TestServer;
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  directory = makeTemporaryDirectory("sqe-refused-flood-");
  const keysPath = join(directory, "keys.json");
  // One call, and the test server's fixed clock never refills the bucket: every later call is over the rate.
  const entries = [{ id: caller, sha256: keyDigest(key), rate_limit_per_second: 1, rate_limit_burst: 1 }];
  writeFileSync(keysPath, JSON.stringify({ keys: entries }));
  // No periodic write during the flood: the test writes once, after it.
  server = await startTestServer(warehouse, NOW, {
    keyFile: { path: keysPath, pollMs: 0 },
    callLog: { flushMs: 600_000 },
  });
}, 120_000);
afterAll(async () => {
  await server?.close();
  await warehouse?.close();
  if (directory !== undefined) removeTemporaryDirectory(directory);
});

describe("a flood of rate-limited calls of one key", () => {
  it("adds one aggregate per outcome to the call log, counting every call", async () => {
    const statuses = new Map<number, number>();
    for (let i = 0; i < CALLS; i++) {
      const response = await fetch(`${server.url}/api/endpoints/usage.api-counts?project=rpc&interval=hourly`, {
        headers: { "x-api-key": key },
      });
      await response.arrayBuffer();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: 1, 429: CALLS - 1 });
    await server.app.callLog.flush();

    const recorded = await warehouse.client.query({
      query: `SELECT protocol, code, cache, calls FROM service_call_aggregates
              WHERE caller = {caller:String} ORDER BY code`,
      query_params: { caller },
      format: "JSONEachRow",
    });
    const rows = (await recorded.json()) as Record<string, unknown>[];
    expect(rows.map((r) => ({ ...r, calls: Number(r.calls) }))).toEqual([
      { protocol: "get", code: "ok", cache: "miss", calls: 1 },
      { protocol: "get", code: "resource_exhausted", cache: "none", calls: CALLS - 1 },
    ]);

    const stats = await fetch(
      `${server.url}/api/endpoints/service.call-stats?interval=minutely&endpoint=usage.api-counts&caller=${caller}`,
      { headers: { "x-api-key": TEST_API_KEY } },
    );
    expect(stats.status).toBe(200);
    const result = ((await stats.json()) as { result: Record<string, unknown>[] }).result;
    expect(result.map((r) => ({ calls: Number(r.calls), errors: Number(r.errors) }))).toEqual([
      { calls: CALLS, errors: CALLS - 1 },
    ]);
  });
});
