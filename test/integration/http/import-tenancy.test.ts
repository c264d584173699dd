// What an import may hold, through the real server with fetch: a key-file key
// and a token with a fixed project import only that project's rows (the
// project column, the project in metadata, the host of an edge_logs URL), any
// other row refusing the whole import with 403; a full-access key imports any
// project's; rows dated past now + IMPORT_MAX_FUTURE_SECONDS, bytes that are
// not UTF-8 and escaped lone surrogates are bad lines, the last one after
// 25,000 good lines leaving nothing stored.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueToken, keyDigest } from "../../../src/auth/index.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const tenantKey = "tenant-a-import-key-0123456789";
const secret = "import-tenancy-test-secret-0123456789";
const MINUTE = 60_000;
let directory: string;
let warehouse: Warehouse;
let server: TestServer;

beforeAll(async () => {
  directory = makeTemporaryDirectory("sqe-import-tenancy-");
  const keysPath = join(directory, "keys.json");
  const tenant = { id: "tenant-a", sha256: keyDigest(tenantKey), import: true, fixed: { project: "aaa" } };
  writeFileSync(keysPath, JSON.stringify({ keys: [tenant] }));
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  server = await startTestServer(warehouse, NOW, {
    keyFile: { path: keysPath, pollMs: 0 },
    tokens: { secret },
    maxImportBytes: 16 * 1024 * 1024,
  });
});
afterAll(async () => {
  await server?.close();
  await warehouse?.close();
  removeTemporaryDirectory(directory);
});

let serial = 0;
const uuid = () => `00000000-0000-4000-8000-${String(++serial).padStart(12, "0")}`;
const at = (msAgo: number) => new Date(NOW - msAgo).toISOString();

function edgeLine(project: string, host = project, timestamp = at(MINUTE)): string {
  const url = `https://${host}.supabase.co/rest/v1/t`;
  return JSON.stringify({
    id: uuid(),
    timestamp,
    event_message: "GET | 200 | /rest/v1/t",
    project,
    metadata: [{ request: [{ method: "GET", path: "/rest/v1/t", url }], response: [{ status_code: 200 }] }],
  });
}

function functionLine(project: string): string {
  return JSON.stringify({
    id: uuid(),
    timestamp: at(MINUTE),
    event_message: "POST | 200",
    metadata: [{ project_ref: project, function_id: "f9", execution_time_ms: 5 }],
  });
}

interface Answer {
  status: number;
  body: {
    inserted?: number;
    error?: { code: string; message: string; details?: { field: string; description: string }[] };
  };
}

async function post(table: string, body: string | Uint8Array, key: string): Promise<Answer> {
  const response = await fetch(`${server.url}/api/import/${table}`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/x-ndjson" },
    body: typeof body === "string" ? body : new Uint8Array(body),
  });
  return { status: response.status, body: await response.json() };
}

async function count(table: string, where: string): Promise<number> {
  const result = await warehouse.client.query({
    query: `SELECT count() AS n FROM ${table} WHERE ${where}`,
    format: "JSONEachRow",
  });
  return Number(((await result.json()) as { n: string }[])[0]!.n);
}

describe("imports under a fixed project", () => {
  it("refuses a key-file key's edge_logs import holding another project's row, whole, naming the line and field", async () => {
    const answer = await post("edge_logs", [edgeLine("aaa"), edgeLine("bbb"), edgeLine("aaa")].join("\n"), tenantKey);
    expect(answer.status).toBe(403);
    expect(answer.body.error!.code).toBe("permission_denied");
    expect(answer.body.error!.details).toEqual([
      { field: "line 2", description: "project must be aaa, the project the credential fixes (not bbb)" },
    ]);
    expect(await count("edge_logs", "project IN ('aaa', 'bbb')")).toBe(0);
  });

  it("refuses an edge_logs row of its own project whose URL names another project's host", async () => {
    const answer = await post("edge_logs", edgeLine("aaa", "bbb"), tenantKey);
    expect(answer.status).toBe(403);
    expect(answer.body.error!.details![0]!.description).toBe(
      "metadata[0].request[0].url must be on the project's own host (https://aaa.…), the project the credential fixes",
    );
    expect(await count("edge_logs", "project = 'aaa'")).toBe(0);
  });

  it("refuses function_edge_logs rows whose metadata names another project", async () => {
    const answer = await post("function_edge_logs", `${functionLine("aaa")}\n${functionLine("rpc")}\n`, tenantKey);
    expect(answer.status).toBe(403);
    expect(answer.body.error!.details).toEqual([
      {
        field: "line 2",
        description: "metadata[0].project_ref must be aaa, the project the credential fixes (not rpc)",
      },
    ]);
    expect(await count("function_edge_logs", "function_id = 'f9'")).toBe(0);
  });

  it("refuses a token fixed to a project importing another's rows, and takes its own", async () => {
    const token = await issueToken(
      { sub: "tenant-t", import: true, fixed: { project: "ttt" } },
      { secret, ttlSeconds: 600, now: Date.now() },
    );
    const refused = await post("realtime_logs", realtimeLine("uuu"), token);
    expect(refused.status).toBe(403);
    expect(refused.body.error!.details![0]!.field).toBe("line 1");
    expect(await count("realtime_logs", "project = 'uuu'")).toBe(0);
    expect(await post("realtime_logs", realtimeLine("ttt"), token)).toEqual({ status: 200, body: { inserted: 1 } });
    expect(await count("realtime_logs", "project = 'ttt'")).toBe(1);
  });

  it("takes the key's own project's rows, and any project's from a full-access key", async () => {
    expect(await post("edge_logs", `${edgeLine("aaa")}\n${edgeLine("aaa")}`, tenantKey)).toEqual({
      status: 200,
      body: { inserted: 2 },
    });
    expect(await post("edge_logs", `${edgeLine("ccc")}\n${edgeLine("ddd", "x")}`, TEST_API_KEY)).toEqual({
      status: 200,
      body: { inserted: 2 },
    });
    expect(await count("edge_logs", "project IN ('aaa', 'ccc', 'ddd')")).toBe(4);
  });
});

function realtimeLine(project: string, event = "joined"): string {
  return JSON.stringify({ id: uuid(), timestamp: at(MINUTE), event_message: event, metadata: [{ project }] });
}

describe("lines an import refuses", () => {
  it("refuses a row dated 2299 and one six minutes ahead, and takes one four minutes ahead", async () => {
    const lines = [
      edgeLine("fut", "fut", "2299-01-01T00:00:00Z"),
      edgeLine("fut", "fut", at(-6 * MINUTE)),
      edgeLine("fut", "fut", at(-4 * MINUTE)),
    ];
    const answer = await post("edge_logs", lines.join("\n"), TEST_API_KEY);
    expect(answer.status).toBe(400);
    // NOW + 300 s, to the second, as the message writes it.
    const latest = new Date(NOW + 300_000).toISOString().slice(0, 19).replace("T", " ");
    const description = `timestamp must not be later than ${latest} UTC (IMPORT_MAX_FUTURE_SECONDS past now)`;
    expect(answer.body.error!.details).toEqual([
      { field: "line 1", description },
      { field: "line 2", description },
    ]);
    expect(await post("edge_logs", lines[2]!, TEST_API_KEY)).toEqual({ status: 200, body: { inserted: 1 } });
  });

  it("refuses a line whose bytes are not UTF-8 rather than storing U+FFFD", async () => {
    const good = Buffer.from(`${realtimeLine("utf", "ok")}\n`);
    const bad = Buffer.from(realtimeLine("utf", "caf?")).map((byte) => (byte === 0x3f ? 0xe9 : byte));
    const answer = await post("realtime_logs", Buffer.concat([good, bad]), TEST_API_KEY);
    expect(answer.status).toBe(400);
    expect(answer.body.error!.details).toEqual([{ field: "line 2", description: "not valid UTF-8" }]);
    expect(await count("realtime_logs", "project = 'utf'")).toBe(0);
  });

  it("refuses an escaped lone surrogate after 25,000 good lines, storing none of them", async () => {
    const good = Array.from({ length: 25_000 }, () => realtimeLine("sur"));
    const lone = realtimeLine("sur", "LONE").replace("LONE", "\\udc00");
    const answer = await post("realtime_logs", [...good, lone].join("\n"), TEST_API_KEY);
    expect(answer.status).toBe(400);
    expect(answer.body.error!.details).toEqual([
      { field: "line 25001", description: "holds a lone surrogate (\\ud800 to \\udfff)" },
    ]);
    expect(await count("realtime_logs", "project = 'sur'")).toBe(0);
  });
});
