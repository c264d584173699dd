// POST /api/import/<table> through the real server with curl (and node:http2
// for a refusal over HTTP/2): good NDJSON is
// inserted and the cached result of a saved query reading that table shows
// it at the next GET; a bad line is a 400 naming it; a body past
// MAX_IMPORT_BYTES is 413 (declared or streamed); a key without the import
// scope is 403, a wrong one 401, an unknown table 404; preflights allow POST.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { connect } from "node:http2";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyDigest } from "../../../src/auth/index.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const readOnlyKey = "read-only-key-0123456789";
const MINUTE = 60_000;
const maxImportBytes = 4096;

/** An edge_logs line of project `rpc`, `minutesAgo` before the scenario's time. */
function edgeLine(n: number, minutesAgo: number, path = "/rest/v1/imported"): string {
  return JSON.stringify({
    id: uuid(n),
    timestamp: new Date(NOW - minutesAgo * MINUTE).toISOString(),
    event_message: `GET | 200 | ${path}`,
    project: "rpc",
    metadata: [
      { request: [{ method: "GET", path, url: `https://rpc.supabase.co${path}` }], response: [{ status_code: 200 }] },
    ],
  });
}

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

let directory: string;
let warehouse: Warehouse;
let server: TestServer;

beforeAll(async () => {
  directory = makeTemporaryDirectory("sqe-import-route-");
  const keysPath = join(directory, "keys.json");
  writeFileSync(keysPath, JSON.stringify({ keys: [{ id: "reader", sha256: keyDigest(readOnlyKey) }] }));
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  server = await startTestServer(warehouse, NOW, { keyFile: { path: keysPath, pollMs: 0 }, maxImportBytes });
});
afterAll(async () => {
  await server?.close();
  await warehouse?.close();
  removeTemporaryDirectory(directory);
});

/** curl's answer: status and parsed body. */
interface CurlAnswer {
  status: number;
  body: { inserted?: number; result?: { id: string }[]; error?: { code: string; details: { field: string }[] } };
}

async function curl(args: string[]): Promise<CurlAnswer> {
  // An answer given before the whole body was sent may end curl's upload with an error: the answer is still what counts.
  const { stdout } = await promisify(execFile)("curl", ["-s", "-w", "\n%{http_code}", ...args], {
    maxBuffer: 1 << 20,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
  const at = stdout.lastIndexOf("\n");
  const text = stdout.slice(0, at);
  return { status: Number(stdout.slice(at + 1)), body: text === "" ? undefined : JSON.parse(text) };
}

/**
 * A POST over HTTP/2 prior knowledge with node:http2, which reads an answer
 * the server sends before the whole body and then ends the stream with
 * RST_STREAM NO_ERROR, as RFC 9113 §8.1 allows (curl 7.88 may report no status).
 */
function postHttp2(table: string, body: string, key = TEST_API_KEY): Promise<CurlAnswer> {
  return new Promise((resolve, reject) => {
    const session = connect(server.url);
    session.on("error", reject);
    const stream = session.request({
      ":method": "POST",
      ":path": `/api/import/${table}`,
      "x-api-key": key,
      "content-type": "application/x-ndjson",
      "content-length": String(Buffer.byteLength(body)),
    });
    let status = 0;
    const chunks: Buffer[] = [];
    stream.on("response", (headers) => void (status = Number(headers[":status"])));
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("error", () => {}); // a reset after the whole answer: the answer counts
    stream.on("close", () => {
      session.close();
      const text = Buffer.concat(chunks).toString();
      resolve({ status, body: text === "" ? undefined : JSON.parse(text) });
    });
    stream.end(body);
  });
}

function post(table: string, body: string, key = TEST_API_KEY, extra: string[] = []) {
  const file = join(directory, `body-${Math.random().toString(36).slice(2)}.ndjson`);
  writeFileSync(file, body);
  return curl([
    "-X",
    "POST",
    "-H",
    `x-api-key: ${key}`,
    "-H",
    "content-type: application/x-ndjson",
    "--data-binary",
    `@${file}`,
    ...extra,
    `${server.url}/api/import/${table}`,
  ]);
}

/** A GET of usage.api-counts (cached, reading edge_logs): status, X-Cache and body. */
async function apiCounts() {
  const response = await fetch(`${server.url}/api/endpoints/usage.api-counts?project=rpc&interval=hourly`, {
    headers: { authorization: `Bearer ${TEST_API_KEY}` },
  });
  return { status: response.status, cache: response.headers.get("x-cache"), body: await response.json() };
}

describe("POST /api/import/<table>", () => {
  it("inserts good NDJSON, and the next GET of a cached saved query reading the table shows the rows", async () => {
    const counts = (rest: number) => ({
      timestamp: "2026-11-20T12:00:00Z",
      total_auth_requests: 1,
      total_realtime_requests: 0,
      total_rest_requests: rest,
      total_storage_requests: 0,
    });
    expect(await apiCounts()).toEqual({
      status: 200,
      cache: "MISS",
      body: { result: [counts(1)], truncated: false, rows_before_limit_at_least: 1 },
    });
    expect(await apiCounts()).toEqual({
      status: 200,
      cache: "HIT",
      body: { result: [counts(1)], truncated: false, rows_before_limit_at_least: 1 },
    });
    const answer = await post("edge_logs", `${edgeLine(1, 5)}\n\n${edgeLine(2, 6)}\n`);
    expect(answer).toEqual({ status: 200, body: { inserted: 2 } });
    // Refreshed by the import before it answered: a hit, with the two rows counted.
    expect(await apiCounts()).toEqual({
      status: 200,
      cache: "HIT",
      body: { result: [counts(3)], truncated: false, rows_before_limit_at_least: 1 },
    });
    const logs = await curl(["-H", `x-api-key: ${TEST_API_KEY}`, `${server.url}/api/endpoints/logs.all?project=rpc`]);
    expect(logs.body.result!.map((row) => row.id)).toEqual(expect.arrayContaining([uuid(1), uuid(2)]));
  });

  it("takes rows over HTTP/2 too", async () => {
    const answer = await post("edge_logs", `${edgeLine(41, 5)}\n`, TEST_API_KEY, ["--http2-prior-knowledge"]);
    expect(answer).toEqual({ status: 200, body: { inserted: 1 } });
    const tooLarge = await postHttp2("edge_logs", "x".repeat(maxImportBytes + 1));
    expect(tooLarge.status).toBe(413);
  });

  it("answers 400 naming each bad line, and inserts nothing", async () => {
    const answer = await post("edge_logs", `${edgeLine(11, 7)}\nnot json\n${edgeLine(13, 7).replace('"rpc"', "5")}\n`);
    expect(answer.status).toBe(400);
    expect(answer.body.error!.code).toBe("invalid_argument");
    expect(answer.body.error!.details.map((d) => d.field)).toEqual(["line 2", "line 3"]);
    const logs = await curl(["-H", `x-api-key: ${TEST_API_KEY}`, `${server.url}/api/endpoints/logs.all?project=rpc`]);
    expect(logs.body.result!.map((row) => row.id)).not.toContain(uuid(11));
  });

  it("answers 413 for a body past MAX_IMPORT_BYTES, declared or streamed", async () => {
    const large = `${Array.from({ length: 40 }, (_, n) => edgeLine(100 + n, 8)).join("\n")}\n`;
    expect(large.length).toBeGreaterThan(maxImportBytes);
    const declared = await post("edge_logs", large);
    expect(declared.status).toBe(413);
    expect(declared.body.error!.code).toBe("resource_exhausted");
    // Chunked: no Content-Length, so the bound is met while the body streams.
    const streamed = await post("edge_logs", large, TEST_API_KEY, ["-H", "transfer-encoding: chunked"]);
    expect(streamed.status).toBe(413);
    expect(streamed.body.error!.code).toBe("resource_exhausted");
  });

  it.each([
    ["a key without the import scope", readOnlyKey, "edge_logs", 403, "permission_denied"],
    ["a wrong key", "wrong-key-0123456789", "edge_logs", 401, "unauthenticated"],
    ["an unknown table", TEST_API_KEY, "no_such_logs", 404, "not_found"],
  ])("refuses %s", async (_name, key, table, status, code) => {
    const answer = await post(table, `${edgeLine(31, 9)}\n`, key);
    expect(answer.status).toBe(status);
    expect(answer.body.error!.code).toBe(code);
  });

  it("answers 405 to GET, and a browser's preflight allows POST", async () => {
    const get = await curl(["-H", `x-api-key: ${TEST_API_KEY}`, `${server.url}/api/import/edge_logs`]);
    expect(get.status).toBe(405);
    const { stdout } = await promisify(execFile)("curl", [
      "-s",
      "-i",
      "-X",
      "OPTIONS",
      "-H",
      "origin: https://app.example",
      "-H",
      "access-control-request-method: POST",
      "-H",
      "access-control-request-headers: content-type, x-api-key",
      `${server.url}/api/import/edge_logs`,
    ]);
    expect(stdout).toMatch(/^access-control-allow-methods:.*POST/im);
  });
});
