// Imports running at once, through the real server: while one import's body
// is still arriving, a second of the same key is refused with 429 and
// Retry-After, as is one of another key past MAX_IMPORTS_RUNNING; the first
// is then answered as usual, and the key may import again.
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const otherKey = "another-full-key-0123456789";
let warehouse: Warehouse;
let server: TestServer;

beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  server = await startTestServer(warehouse, NOW, { apiKeys: [TEST_API_KEY, otherKey], maxImportsRunning: 1 });
});
afterAll(async () => {
  await server?.close();
  await warehouse?.close();
});

const line = JSON.stringify({
  id: "00000000-0000-4000-8000-000000000421",
  timestamp: new Date(NOW - 60_000).toISOString(),
  event_message: "GET | 200 | /rest/v1/held",
  project: "rpc",
  metadata: [{ request: [{ method: "GET", path: "/rest/v1/held" }], response: [{ status_code: 200 }] }],
});

interface Answer {
  status: number;
  retryAfter?: string;
  body: string;
}

/** An import whose body is sent in two parts; `finish` sends the second and resolves with the answer. */
function startImport(key: string): { finish: () => Promise<Answer>; answered: Promise<Answer> } {
  const req = httpRequest(`${server.url}/api/import/edge_logs`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/x-ndjson" },
  });
  const answered = new Promise<Answer>((resolve, reject) => {
    req.on("error", reject);
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, retryAfter: res.headers["retry-after"], body }));
    });
  });
  req.write(`${line}\n`);
  return {
    answered,
    finish: () => {
      req.end();
      return answered;
    },
  };
}

async function importWhole(key: string): Promise<Answer> {
  const response = await fetch(`${server.url}/api/import/edge_logs`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/x-ndjson" },
    body: `${line}\n`,
  });
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after") ?? undefined,
    body: await response.text(),
  };
}

describe("imports running at once", () => {
  it("refuses a second import of the same key, and one past MAX_IMPORTS_RUNNING, with 429 and Retry-After", async () => {
    const held = startImport(TEST_API_KEY);
    // The held import is admitted once its headers are in: wait until a second one is refused.
    let same = await importWhole(TEST_API_KEY);
    for (let i = 0; i < 50 && same.status !== 429; i++) {
      await new Promise((r) => setTimeout(r, 20));
      same = await importWhole(TEST_API_KEY);
    }
    expect(same.status).toBe(429);
    expect(same.retryAfter).toBe("1");
    expect(JSON.parse(same.body).error.code).toBe("resource_exhausted");
    const other = await importWhole(otherKey);
    expect(other.status).toBe(429);
    expect(other.retryAfter).toBe("1");

    const first = await held.finish();
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toEqual({ inserted: 1 });
    expect((await importWhole(TEST_API_KEY)).status).toBe(200);
  });
});
