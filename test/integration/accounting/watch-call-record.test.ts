// Watch streams as calls through the real server: an event stream and an
// RPC watch stream are each counted in the call metrics and recorded in the
// call log once, when they end (cache `none`, the first result's figures);
// the RPC stream's headers carry its first result's validators; and a
// key-file key's event stream ends with `event: error` (unauthenticated)
// once the file drops the key.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { keyDigest } from "../../../src/auth/index.js";
import { UsageService } from "../../../src/gen/usage/v1/usage_pb.js";
import type { CallLogRow, Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const apiCounts = "/api/endpoints/usage.api-counts?project=rpc&interval=hourly";
const fileKey = "watch-file-key-0123456789";

let directory: string;
let keysPath: string;
let warehouse: Warehouse;
let server: TestServer;
const rows: CallLogRow[] = [];

beforeAll(async () => {
  directory = makeTemporaryDirectory("sqe-watch-record-");
  keysPath = join(directory, "keys.json");
  writeFileSync(keysPath, JSON.stringify({ keys: [{ id: "file-watcher", sha256: keyDigest(fileKey) }] }));
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  server = await startTestServer(warehouse, NOW, {
    keyFile: { path: keysPath, pollMs: 50 },
    callLog: { flushMs: 60_000 },
  });
  // The recorder lends one row it reuses: keep a copy.
  vi.spyOn(server.app.callLog, "record").mockImplementation((row) => void rows.push({ ...row }));
});
afterAll(async () => {
  await server?.close();
  await warehouse?.close();
  if (directory !== undefined) removeTemporaryDirectory(directory);
});

/** An event stream read as text by fetch: its text so far, a wait for some text, and how to leave. */
async function eventStream(key: string, requestId: string) {
  const abort = new AbortController();
  const response = await fetch(`${server.url}${apiCounts}`, {
    headers: { accept: "text/event-stream", "x-api-key": key, "x-request-id": requestId },
    signal: abort.signal,
  });
  const state = { text: "", done: false };
  const reader = response.body!.getReader();
  void (async () => {
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      state.text += decoder.decode(value, { stream: true });
    }
    state.done = true;
  })().catch(() => (state.done = true));
  return { state, until: (predicate: () => boolean) => waitFor(predicate), close: () => abort.abort() };
}

async function waitFor(predicate: () => boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > until) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function requestsTotal(protocol: string, code: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text
    .split("\n")
    .find(
      (l) =>
        l.startsWith("sqe_requests_total{") &&
        l.includes('endpoint="usage.api-counts"') &&
        l.includes(`protocol="${protocol}"`) &&
        l.includes(`code="${code}"`),
    );
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1));
}

describe("watch streams as calls", () => {
  it("records an event stream once, when its client leaves, and counts it", async () => {
    const before = await requestsTotal("http", "ok");
    const stream = await eventStream(TEST_API_KEY, "sse-ok");
    await stream.until(() => stream.state.text.includes("event: result"));
    expect(rows.filter((r) => r.requestId === "sse-ok")).toEqual([]);
    stream.close();
    await waitFor(() => rows.some((r) => r.requestId === "sse-ok"));
    const [row, ...more] = rows.filter((r) => r.requestId === "sse-ok");
    expect(more).toEqual([]);
    expect(row).toMatchObject({ endpoint: "usage.api-counts", protocol: "get", code: "ok", cache: "none" });
    expect(row!.responseBytes).toBeGreaterThanOrEqual(Buffer.byteLength(stream.state.text));
    expect(await requestsTotal("http", "ok")).toBe(before + 1);
  });

  it("sends the first result's validators as the RPC stream's headers, and records it when cancelled", async () => {
    const before = await requestsTotal("connect", "ok");
    const client = createClient(UsageService, createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" }));
    const abort = new AbortController();
    let headers: Headers | undefined;
    const messages = client.watchApiCounts(
      { project: "rpc", interval: "hourly" },
      {
        headers: { "x-api-key": TEST_API_KEY, "x-request-id": "rpc-ok" },
        signal: abort.signal,
        onHeader: (h) => void (headers = h),
      },
    );
    for await (const _ of messages) break;
    abort.abort();
    expect(headers?.get("etag")).toMatch(/^W\/".+-proto"$/);
    expect(headers?.get("cache-status")).toContain("saved-query-endpoints");
    await waitFor(() => rows.some((r) => r.requestId === "rpc-ok"));
    expect(rows.filter((r) => r.requestId === "rpc-ok")).toEqual([
      expect.objectContaining({ endpoint: "usage.api-counts", protocol: "connect", code: "ok", cache: "none" }),
    ]);
    expect(await requestsTotal("connect", "ok")).toBe(before + 1);
  });

  it("ends a key-file key's event stream with an unauthenticated error once the file drops the key", async () => {
    const stream = await eventStream(fileKey, "sse-revoked");
    await stream.until(() => stream.state.text.includes("event: result"));
    writeFileSync(keysPath, JSON.stringify({ keys: [] }));
    await waitFor(() => stream.state.done, 2_000);
    expect(stream.state.text).toMatch(/event: error\ndata: .*unauthenticated/);
    await waitFor(() => rows.some((r) => r.requestId === "sse-revoked"));
    expect(rows.find((r) => r.requestId === "sse-revoked")).toMatchObject({
      caller: "file-watcher",
      code: "unauthenticated",
      protocol: "get",
    });
  });
});
