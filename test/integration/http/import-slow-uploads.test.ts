// Slow uploads against the import slots, through the real server: two slow
// uploads from one client address hold one slot, not both, so an import
// from another address still runs; an upload slower than
// IMPORT_MIN_BYTES_PER_SECOND past its grace is answered 408
// deadline_exceeded, nothing stored, and its slot is free again.
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const keys = [TEST_API_KEY, "second-full-key-0123456789", "third-full-key-0123456789"] as const;
let warehouse: Warehouse;
let server: TestServer;

beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  server = await startTestServer(warehouse, NOW, {
    apiKeys: [...keys],
    maxImportsRunning: 2,
    importBounds: { minBytesPerSecond: 1000, uploadGraceMs: 3000 },
  });
});
afterAll(async () => {
  await server?.close();
  await warehouse?.close();
});

let serial = 0;
const line = (project: string) =>
  JSON.stringify({
    id: `00000000-0000-4000-8000-${String(++serial).padStart(12, "0")}`,
    timestamp: new Date(NOW - 60_000).toISOString(),
    event_message: "joined",
    metadata: [{ project }],
  });

interface Answer {
  status: number;
  body: { inserted?: number; error?: { code: string } };
}

/** An import from `localAddress` whose body is one line and then nothing: it trickles. */
function slowImport(key: string, localAddress: string, project: string) {
  const req = httpRequest(`${server.url}/api/import/realtime_logs`, {
    method: "POST",
    localAddress,
    headers: { "x-api-key": key, "content-type": "application/x-ndjson" },
  });
  const answered = new Promise<Answer>((resolve, reject) => {
    req.on("error", reject);
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
  });
  req.write(`${line(project)}\n`);
  const finish = () => {
    req.end();
    return answered;
  };
  return { answered, finish };
}

/** A whole import from `localAddress`, with its answer. */
function wholeImport(key: string, localAddress: string, project: string): Promise<Answer> {
  const { finish } = slowImport(key, localAddress, project);
  return finish();
}

async function stored(project: string): Promise<number> {
  const result = await warehouse.client.query({
    query: "SELECT count() AS n FROM realtime_logs WHERE project = {project:String}",
    query_params: { project },
    format: "JSONEachRow",
  });
  return Number(((await result.json()) as { n: string }[])[0]!.n);
}

describe("slow uploads", () => {
  it("lets two slow uploads of one address hold one slot, another address importing meanwhile", async () => {
    const first = slowImport(keys[0], "127.0.0.1", "slow-a");
    // The first is admitted once its headers are in: wait until a second of the address is refused.
    let second = await wholeImport(keys[1], "127.0.0.1", "slow-b");
    for (let i = 0; i < 50 && second.status !== 429; i++) second = await wholeImport(keys[1], "127.0.0.1", "slow-b");
    expect(second.status).toBe(429);
    expect(second.body.error!.code).toBe("resource_exhausted");
    expect(await wholeImport(keys[2], "127.0.0.2", "other-address")).toEqual({ status: 200, body: { inserted: 1 } });
    expect(await first.finish()).toEqual({ status: 200, body: { inserted: 1 } });
  });

  it("cuts an upload slower than the floor past its grace with 408, storing nothing, and frees its slot", async () => {
    const trickle = slowImport(keys[0], "127.0.0.1", "trickle");
    const answer = await trickle.answered;
    expect(answer.status).toBe(408);
    expect(answer.body.error!.code).toBe("deadline_exceeded");
    expect(await stored("trickle")).toBe(0);
    expect(await wholeImport(keys[0], "127.0.0.1", "after-cut")).toEqual({ status: 200, body: { inserted: 1 } });
  });
});
