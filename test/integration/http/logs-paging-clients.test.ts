// Paging logs.all through the real server with real clients: fetch following
// next_page_token in the JSON body and the Link header (the only way a CSV
// body pages), the Connect client on the gRPC transport and @grpc/grpc-js
// following the response field; altered and foreign tokens refused.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyDigest } from "../../../src/auth/index.js";
import { type GetAllLogsResponse, GetAllLogsRequestSchema, LogsService } from "../../../src/gen/logs/v1/logs_pb.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { readCsv } from "../../support/csv-reader.js";
import { edgeRow, insertRows, openTestWarehouse, ts } from "../../support/embedded-warehouse.js";
import { allClients, type RpcClient } from "../../support/rpc-clients.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const NOW = Date.UTC(2026, 10, 20, 12, 34, 56, 789);
const project = "paging";
const otherKey = "paging-other-key-0123456789";
const logsAll = `/api/endpoints/logs.all?project=${project}`;

/** Ids whose order is not the order of insertion. */
const idOf = (i: number) => `${((i * 7919) % 1000).toString(16).padStart(3, "0")}-${i}`;

// 250 records a second apart, but for indexes 98, 99 and 100, which share one
// microsecond: the first page of 100 ends between two of them.
const records = Array.from({ length: 250 }, (_, i) => {
  const ms = NOW - 60_000 - (i >= 98 && i <= 100 ? 98 : i) * 1000;
  return { id: idOf(i), micros: ms * 1000 + 500, timestamp: ts(ms, 500) };
});

/** The order every client must see, worked out here: timestamp, then id, both descending. */
const expectedIds = [...records]
  .sort((a, b) => b.micros - a.micros || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
  .map((r) => r.id);

let warehouse: Warehouse;
let directory: string;
let server: TestServer;
let clients: RpcClient[];
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertRows(
    warehouse,
    "edge_logs",
    records.map((r) => edgeRow({ project, id: r.id, timestamp: r.timestamp })),
  );
  await insertRows(warehouse, "edge_logs", [edgeRow({ project: "paging-short", timestamp: ts(NOW - 1000) })]);
  directory = makeTemporaryDirectory("sqe-paging-keys-");
  const keysPath = join(directory, "keys.json");
  writeFileSync(keysPath, JSON.stringify({ keys: [{ id: "paging-other", sha256: keyDigest(otherKey) }] }));
  server = await startTestServer(warehouse, NOW, { keyFile: { path: keysPath, pollMs: 0 } });
  clients = allClients(server.url, server.address).filter((c) => c.name === "grpc" || c.name === "@grpc/grpc-js");
});
afterAll(async () => {
  for (const client of clients ?? []) client.close();
  await server?.close();
  await warehouse?.close();
  removeTemporaryDirectory(directory);
});

function get(target: string, key = TEST_API_KEY, headers: Record<string, string> = {}) {
  return fetch(`${server.url}${target}`, { headers: { "x-api-key": key, ...headers } });
}

/** The target of a `Link: <target>; rel="next"` header; undefined when there is none. */
function nextLink(response: Response): string | undefined {
  const link = response.headers.get("link");
  if (link === null) return undefined;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  expect(match, link).not.toBeNull();
  return match![1];
}

async function firstToken(key = TEST_API_KEY): Promise<string> {
  const body = (await (await get(logsAll, key)).json()) as { next_page_token: string };
  return body.next_page_token;
}

async function refusal(response: Response) {
  const body = (await response.json()) as { error: { code: string; details: { field: string }[] } };
  return { status: response.status, code: body.error.code, fields: body.error.details.map((d) => d.field) };
}

describe("paging logs.all over GET", () => {
  it("follows next_page_token in the JSON body through 250 records, each once and in order", async () => {
    const pages: string[][] = [];
    let target: string | undefined = logsAll;
    while (target !== undefined && pages.length < 10) {
      const response = await get(target);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { result: { id: string }[]; next_page_token?: string };
      pages.push(body.result.map((r) => r.id));
      const token = body.next_page_token;
      // The Link header names the same token, after the parameters as sent.
      expect(nextLink(response)).toBe(token === undefined ? undefined : `${logsAll}&page_token=${token}`);
      target = token === undefined ? undefined : `${logsAll}&page_token=${encodeURIComponent(token)}`;
    }
    expect(pages.map((p) => p.length)).toEqual([100, 100, 50]);
    expect(new Set(pages.flat()).size).toBe(250);
    expect(pages.flat()).toEqual(expectedIds);
  });

  it("pages a CSV body by its Link header alone, keeping the path and the other parameters", async () => {
    const ids: string[] = [];
    const links: string[] = [];
    let target: string | undefined = `/api/endpoints/logs.all?format=csv&project=${project}`;
    while (target !== undefined && links.length < 10) {
      const response = await get(target);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/csv/);
      const text = await response.text();
      expect(text).not.toContain("page_token");
      const [header, ...rows] = readCsv(text);
      ids.push(...rows.map((row) => row[header!.indexOf("id")]!));
      target = nextLink(response);
      if (target !== undefined) links.push(target);
    }
    expect(links).toHaveLength(2);
    for (const link of links)
      expect(link).toMatch(/^\/api\/endpoints\/logs\.all\?format=csv&project=paging&page_token=/);
    expect(ids).toEqual(expectedIds);
  });

  it("sends the Link header with NDJSON and replaces the page_token the caller sent", async () => {
    const first = await get(`${logsAll}&format=ndjson`);
    const second = await get(nextLink(first)!);
    expect(second.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
    const link = nextLink(second)!;
    expect(link.match(/page_token=/g)).toHaveLength(1);
    expect(link).toMatch(/^\/api\/endpoints\/logs\.all\?project=paging&format=ndjson&page_token=[\w-]+$/);
    const ids = (await second.text())
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { id: string }).id);
    expect(ids).toEqual(expectedIds.slice(100, 200));
  });

  it("lets a browser page read the Link header", async () => {
    const response = await get(logsAll, TEST_API_KEY, { origin: "https://app.example" });
    const exposed = (response.headers.get("access-control-expose-headers") ?? "").split(", ");
    expect(exposed).toContain("Link");
    expect(nextLink(response)).toBeDefined();
  });

  it("answers without page_token only {result} and its truncation when the records fit one page, with no Link", async () => {
    const response = await get("/api/endpoints/logs.all?project=paging-short");
    expect(response.headers.get("link")).toBeNull();
    const text = await response.text();
    const { result } = JSON.parse(text) as { result: { id: string }[] };
    expect(result).toHaveLength(1);
    // Nothing left out: one row of one (docs/endpoints.md, Truncation), and no next_page_token.
    expect(text).toBe(JSON.stringify({ result, truncated: false, rows_before_limit_at_least: 1 }));
  });

  it("refuses an altered token with 400 invalid_argument naming page_token", async () => {
    const bytes = Buffer.from(await firstToken(), "base64url");
    bytes[9] = bytes[9]! ^ 1; // a letter of the cursor's id
    const response = await get(`${logsAll}&page_token=${bytes.toString("base64url")}`);
    expect(await refusal(response)).toEqual({ status: 400, code: "invalid_argument", fields: ["page_token"] });
  });

  it("refuses another caller's token with 400 invalid_argument naming page_token", async () => {
    const token = await firstToken(otherKey);
    expect((await get(`${logsAll}&page_token=${token}`, otherKey)).status).toBe(200);
    const response = await get(`${logsAll}&page_token=${token}`);
    expect(await refusal(response)).toEqual({ status: 400, code: "invalid_argument", fields: ["page_token"] });
  });
});

describe("paging logs.all over gRPC", () => {
  const headers = { "x-api-key": TEST_API_KEY };
  const method = LogsService.method.getAllLogs;
  const request = (pageToken = "") => create(GetAllLogsRequestSchema, { project, pageToken });

  it.each(["grpc", "@grpc/grpc-js"])("follows next_page_token through 250 records with %s", async (name) => {
    const client = clients.find((c) => c.name === name)!;
    const pages: string[][] = [];
    let pageToken = "";
    do {
      const outcome = await client.call(LogsService, method, request(pageToken), { headers });
      if (!outcome.ok) throw new Error(`${outcome.code}: ${outcome.message}`);
      const message = outcome.message as GetAllLogsResponse;
      pages.push(message.result.map((r) => r.id));
      pageToken = message.nextPageToken;
    } while (pageToken !== "" && pages.length < 10);
    expect(pages.map((p) => p.length)).toEqual([100, 100, 50]);
    expect(new Set(pages.flat()).size).toBe(250);
    expect(pages.flat()).toEqual(expectedIds);
  });

  it("refuses an altered token and another caller's with INVALID_ARGUMENT naming page_token", async () => {
    const client = clients.find((c) => c.name === "grpc")!;
    const bytes = Buffer.from(await firstToken(), "base64url");
    bytes[9] = bytes[9]! ^ 1;
    const foreign = await firstToken(otherKey);
    for (const token of [bytes.toString("base64url"), foreign]) {
      const outcome = await client.call(LogsService, method, request(token), { headers });
      expect(outcome).toMatchObject({ ok: false, code: Code.InvalidArgument, fields: ["page_token"] });
    }
  });
});
