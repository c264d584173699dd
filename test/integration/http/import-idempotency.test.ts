// All or nothing, and once, through the real server on the embedded engine:
// an import whose insert fails after its first 10,000 rows stores none; one
// sent with an Idempotency-Key and sent again after a 500 (the rows stored,
// the answer lost) or after a connection dropped once the body was sent
// stores its rows once; without a key, or with another body, it stores again.
import { request as httpRequest } from "node:http";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Warehouse, WarehouseClient } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

type InsertParams = Parameters<WarehouseClient["insert"]>[0];
/** What the next insert into a log table does besides inserting. */
let fault: "none" | "fail-after-10000-rows" | "fail-after-storing" = "none";
let warehouse: Warehouse;
let server: TestServer;

/** The rows of `values`, the stream failing once 10,000 have been read. */
async function* failingAfter10000(values: AsyncIterable<unknown>) {
  let n = 0;
  for await (const row of values) {
    if (++n > 10_000) throw new Error("injected failure after the first block");
    yield row;
  }
}

beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  const real = warehouse.client;
  const client: WarehouseClient = {
    query: (params) => real.query(params),
    command: (params) => real.command(params),
    ping: (params) => real.ping(params),
    close: () => real.close(),
    insert: (async (params: InsertParams) => {
      const injected = fault;
      fault = "none";
      if (injected === "fail-after-10000-rows")
        return real.insert({ ...params, values: Readable.from(failingAfter10000(params.values as Readable)) });
      const result = await real.insert(params);
      if (injected === "fail-after-storing") throw new Error("injected failure after the rows were stored");
      return result;
    }) as WarehouseClient["insert"],
  };
  server = await startTestServer({ ...warehouse, client }, NOW, { maxImportBytes: 16 * 1024 * 1024 });
});
afterAll(async () => {
  await server?.close();
  await warehouse?.close();
});

const MINUTE = 60_000;
let serial = 0;
function lines(project: string, count: number): string {
  return Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      id: `00000000-0000-4000-8000-${String(++serial).padStart(12, "0")}`,
      // Spread over three days, so the rows fall in three daily partitions.
      timestamp: new Date(NOW - (i % 3) * 1440 * MINUTE - MINUTE).toISOString(),
      event_message: `event ${i}`,
      metadata: [{ project }],
    }),
  ).join("\n");
}

async function post(body: string, key?: string): Promise<{ status: number; inserted?: number }> {
  const headers: Record<string, string> = { "x-api-key": TEST_API_KEY, "content-type": "application/x-ndjson" };
  if (key !== undefined) headers["idempotency-key"] = key;
  const response = await fetch(`${server.url}/api/import/realtime_logs`, { method: "POST", headers, body });
  const answer = (await response.json()) as { inserted?: number };
  return { status: response.status, inserted: answer.inserted };
}

async function stored(project: string): Promise<number> {
  const result = await warehouse.client.query({
    query: "SELECT count() AS n FROM realtime_logs WHERE project = {project:String}",
    query_params: { project },
    format: "JSONEachRow",
  });
  return Number(((await result.json()) as { n: string }[])[0]!.n);
}

/** Sends `body` whole, then drops the connection before the answer. */
function postThenDrop(body: string, key: string): Promise<void> {
  return new Promise((resolve) => {
    const req = httpRequest(`${server.url}/api/import/realtime_logs`, {
      method: "POST",
      headers: { "x-api-key": TEST_API_KEY, "content-type": "application/x-ndjson", "idempotency-key": key },
    });
    req.on("error", () => resolve());
    req.end(body, () => {
      req.destroy();
      resolve();
    });
  });
}

/** Posts until the import is no longer refused as running (the dropped one may still hold the credential's slot). */
async function postAdmitted(body: string, key: string) {
  for (;;) {
    const answer = await post(body, key);
    if (answer.status !== 429) return answer;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("an import, all or nothing and once", () => {
  it("stores none of 25,000 rows when the insert fails after the first 10,000", async () => {
    fault = "fail-after-10000-rows";
    expect((await post(lines("block", 25_000))).status).toBe(500);
    expect(await stored("block")).toBe(0);
  });

  it("stores an import sent again with its Idempotency-Key after a 500 once", async () => {
    const body = lines("after-500", 3_000);
    fault = "fail-after-storing";
    expect((await post(body, "retry-after-500")).status).toBe(500);
    expect(await stored("after-500")).toBe(3_000);
    expect(await post(body, "retry-after-500")).toEqual({ status: 200, inserted: 3_000 });
    expect(await stored("after-500")).toBe(3_000);
  });

  it("stores an import sent again after its connection dropped once", async () => {
    const body = lines("dropped", 3_000);
    await postThenDrop(body, "retry-after-drop");
    expect(await postAdmitted(body, "retry-after-drop")).toEqual({ status: 200, inserted: 3_000 });
    expect(await postAdmitted(body, "retry-after-drop")).toEqual({ status: 200, inserted: 3_000 });
    expect(await stored("dropped")).toBe(3_000);
  });

  it("stores the same rows twice without a key, and another body under a reused key", async () => {
    const body = lines("twice", 10);
    expect(await post(body)).toEqual({ status: 200, inserted: 10 });
    expect(await post(body)).toEqual({ status: 200, inserted: 10 });
    expect(await stored("twice")).toBe(20);
    expect(await post(lines("reused", 10), "reused-key")).toEqual({ status: 200, inserted: 10 });
    expect(await post(lines("reused", 10), "reused-key")).toEqual({ status: 200, inserted: 10 });
    expect(await stored("reused")).toBe(20);
  });

  it("refuses an Idempotency-Key with a space or over 255 characters, naming it", async () => {
    for (const key of ["a b", "k".repeat(256)]) {
      const response = await fetch(`${server.url}/api/import/realtime_logs`, {
        method: "POST",
        headers: { "x-api-key": TEST_API_KEY, "content-type": "application/x-ndjson", "idempotency-key": key },
        body: lines("bad-key", 1),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
        "Idempotency-Key must be 1 to 255 visible ASCII characters",
      );
    }
  });
});
