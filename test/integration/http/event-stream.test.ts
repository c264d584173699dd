// Saved queries as Server-Sent Events through the real server with real
// clients (curl -N, a fetch stream reader, node:http2 with prior knowledge):
// the first event is the current result, its id the ETag of a JSON GET; rows
// posted to the import route arrive as the next event (the tail's new rows
// only, for logs.all); a reconnect naming the current tag is not sent it
// again; the key, parameters and watch bounds are checked as for a GET; idle
// streams get heartbeats, a client that stops reading is stopped by the
// unsent-bytes bounds, and a shutdown ends streams with `unavailable`.
import { type ChildProcess, spawn } from "node:child_process";
import { connect } from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const apiCounts = "/api/endpoints/usage.api-counts?project=rpc&interval=hourly";
const logsAll = "/api/endpoints/logs.all?project=rpc";
const perCaller = 3;
const heartbeatMs = 300;

let warehouse: Warehouse;
let server: TestServer;

beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  server = await startTestServer(warehouse, NOW, {
    watch: { tailPollMs: 100, heartbeatMs, bounds: { maxStreams: 100, perCaller, perAddress: 100 } },
  });
});
afterAll(async () => {
  await server?.close();
  await warehouse?.close();
});

interface ServerSentEvent {
  event: string;
  id?: string;
  data: string;
}

/** The events and comments of a text/event-stream body, read as its chunks come. */
class EventReader {
  readonly comments: string[] = [];
  private readonly events: ServerSentEvent[] = [];
  private buffered = "";
  private done = false;
  private wake = () => {};

  constructor(chunks: AsyncIterable<string>) {
    void (async () => {
      for await (const chunk of chunks) this.take(chunk);
      this.done = true;
      this.wake();
    })().catch(() => {
      this.done = true;
      this.wake();
    });
  }

  /** The next event, or undefined when none comes within `timeoutMs` or the body ended. */
  async next(timeoutMs = 5_000): Promise<ServerSentEvent | undefined> {
    const until = Date.now() + timeoutMs;
    while (this.events.length === 0 && !this.done && Date.now() < until) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, until - Date.now());
      });
    }
    return this.events.shift();
  }

  get ended(): boolean {
    return this.done;
  }

  private take(chunk: string) {
    this.buffered += chunk;
    let at = this.buffered.indexOf("\n\n");
    while (at >= 0) {
      const block = this.buffered.slice(0, at);
      this.buffered = this.buffered.slice(at + 2);
      const lines = block.split("\n");
      if (lines.every((line) => line.startsWith(":"))) this.comments.push(...lines);
      else {
        const event: ServerSentEvent = { event: "message", data: "" };
        for (const line of lines) {
          const [field, ...rest] = line.split(": ");
          const value = rest.join(": ");
          if (field === "event") event.event = value;
          else if (field === "id") event.id = value;
          else if (field === "data") event.data = value;
        }
        this.events.push(event);
      }
      at = this.buffered.indexOf("\n\n");
    }
    this.wake();
  }
}

/** A stream read by a fetch body reader: its response and events, and how to leave. */
async function fetchStream(path: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const response = await fetch(`${server.url}${path}`, {
    headers: { accept: "text/event-stream", "x-api-key": TEST_API_KEY, ...headers },
    signal: abort.signal,
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  async function* chunks() {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield decoder.decode(value, { stream: true });
    }
  }
  return { response, events: new EventReader(chunks()), close: () => abort.abort() };
}

/** A stream read by `curl -N`. */
function curlStream(path: string) {
  const child: ChildProcess = spawn("curl", [
    "-N",
    "-s",
    "-H",
    "accept: text/event-stream",
    "-H",
    `x-api-key: ${TEST_API_KEY}`,
    `${server.url}${path}`,
  ]);
  child.stdout!.setEncoding("utf8");
  return { events: new EventReader(child.stdout! as AsyncIterable<string>), close: () => child.kill() };
}

/** A plain JSON GET: its ETag and body text. */
async function plainGet(path: string) {
  const response = await fetch(`${server.url}${path}`, { headers: { "x-api-key": TEST_API_KEY } });
  return { etag: response.headers.get("etag"), body: await response.text() };
}

let imported = 0;
/** Posts `count` new edge_logs rows of project rpc, each newer than any before; returns their ids. */
async function importRows(count: number): Promise<string[]> {
  const ids: string[] = [];
  const lines: string[] = [];
  for (let i = 0; i < count; i += 1) {
    imported += 1;
    const id = `00000000-0000-4000-8000-${String(imported).padStart(12, "0")}`;
    ids.push(id);
    lines.push(
      JSON.stringify({
        id,
        timestamp: new Date(NOW - 120_000 + imported * 1000).toISOString(),
        event_message: "GET | 200 | /rest/v1/watched",
        project: "rpc",
        metadata: [
          {
            request: [{ method: "GET", path: "/rest/v1/watched", url: "https://rpc.supabase.co/rest/v1/watched" }],
            response: [{ status_code: 200 }],
          },
        ],
      }),
    );
  }
  const response = await fetch(`${server.url}/api/import/edge_logs`, {
    method: "POST",
    headers: { "x-api-key": TEST_API_KEY, "content-type": "application/x-ndjson" },
    body: `${lines.join("\n")}\n`,
  });
  expect(await response.json()).toEqual({ inserted: count });
  return ids;
}

/** Waits until `on` counts no open watch stream (the last test's clients gone). */
async function noStreamsOpen(on: TestServer = server) {
  for (let i = 0; i < 100; i += 1) {
    const gauge = await on.app.metrics.watchStreams.get();
    if ((gauge.values[0]?.value ?? 0) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("watch streams still open");
}

describe("GET with Accept: text/event-stream", () => {
  it("answers 200 with the event-stream headers, and the first event is the JSON GET's ETag and body", async () => {
    await noStreamsOpen();
    const get = await plainGet(apiCounts);
    const stream = await fetchStream(apiCounts);
    try {
      expect(stream.response.status).toBe(200);
      expect(stream.response.headers.get("content-type")).toBe("text/event-stream");
      expect(stream.response.headers.get("cache-control")).toBe("no-store");
      expect(stream.response.headers.get("x-accel-buffering")).toBe("no");
      expect(stream.response.headers.get("access-control-allow-origin")).toBe("*");
      const first = await stream.events.next();
      expect(first).toEqual({ event: "result", id: get.etag, data: get.body });
      expect(get.etag).toMatch(/^W\/".+-json"$/);
    } finally {
      stream.close();
    }
  });

  it("sends the changed result to curl -N and a fetch reader once rows are imported", async () => {
    await noStreamsOpen();
    const curl = curlStream(apiCounts);
    const reader = await fetchStream(apiCounts);
    try {
      const before = await plainGet(apiCounts);
      expect((await curl.events.next())?.id).toBe(before.etag);
      expect((await reader.events.next())?.id).toBe(before.etag);
      await importRows(2);
      const after = await plainGet(apiCounts);
      expect(after.etag).not.toBe(before.etag);
      const expected = { event: "result", id: after.etag, data: after.body };
      expect(await curl.events.next()).toEqual(expected);
      expect(await reader.events.next()).toEqual(expected);
    } finally {
      curl.close();
      reader.close();
    }
  });

  it("tails logs.all: after the current page, exactly the imported rows, oldest first", async () => {
    await noStreamsOpen();
    const stream = await fetchStream(logsAll);
    try {
      const first = await stream.events.next();
      expect(first?.event).toBe("result");
      expect(JSON.parse(first!.data).result.length).toBeGreaterThan(0);
      const ids = await importRows(3);
      const next = await stream.events.next();
      expect(next?.event).toBe("result");
      expect(JSON.parse(next!.data).result.map((row: { id: string }) => row.id)).toEqual(ids);
    } finally {
      stream.close();
    }
  });

  it("does not repeat the current result to a reconnect naming its tag in Last-Event-ID, and sends the next", async () => {
    await noStreamsOpen();
    const { etag } = await plainGet(apiCounts);
    const stream = await fetchStream(apiCounts, { "last-event-id": etag! });
    try {
      expect(await stream.events.next(heartbeatMs * 2)).toBeUndefined();
      await importRows(1);
      const after = await plainGet(apiCounts);
      expect(await stream.events.next()).toEqual({ event: "result", id: after.etag, data: after.body });
    } finally {
      stream.close();
    }
  });

  it("sends a heartbeat comment while nothing changes", async () => {
    await noStreamsOpen();
    const stream = await fetchStream(apiCounts);
    try {
      await stream.events.next();
      await new Promise((resolve) => setTimeout(resolve, heartbeatMs * 2));
      expect(stream.events.comments).toContain(": heartbeat");
    } finally {
      stream.close();
    }
  });

  it.each([
    ["a wrong key", apiCounts, "wrong-key-0123456789", 401, "unauthenticated"],
    [
      "bad parameters",
      "/api/endpoints/usage.api-counts?project=rpc&interval=weekly",
      TEST_API_KEY,
      400,
      "invalid_argument",
    ],
  ])("answers %s as a GET does: a JSON error", async (_, path, key, status, code) => {
    const response = await fetch(`${server.url}${path}`, {
      headers: { accept: "text/event-stream", "x-api-key": key },
    });
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect((await response.json()).error.code).toBe(code);
  });

  it("answers 429 past MAX_WATCH_STREAMS_PER_CALLER", async () => {
    await noStreamsOpen();
    const streams = await Promise.all(Array.from({ length: perCaller }, () => fetchStream(apiCounts)));
    try {
      for (const stream of streams) expect(stream.response.status).toBe(200);
      const response = await fetch(`${server.url}${apiCounts}`, {
        headers: { accept: "text/event-stream", "x-api-key": TEST_API_KEY },
      });
      expect(response.status).toBe(429);
      const body = await response.json();
      expect(body.error).toMatchObject({ code: "resource_exhausted" });
      expect(body.error.message).toContain("MAX_WATCH_STREAMS_PER_CALLER");
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it("serves the same events over HTTP/2 with prior knowledge", async () => {
    await noStreamsOpen();
    const before = await plainGet(apiCounts);
    const session = connect(server.url);
    try {
      const request = session.request({
        ":path": apiCounts,
        accept: "text/event-stream",
        "x-api-key": TEST_API_KEY,
      });
      const headers = await new Promise<Record<string, unknown>>((resolve) => request.once("response", resolve));
      expect(headers[":status"]).toBe(200);
      expect(headers["content-type"]).toBe("text/event-stream");
      request.setEncoding("utf8");
      const events = new EventReader(request as AsyncIterable<string>);
      expect(await events.next()).toEqual({ event: "result", id: before.etag, data: before.body });
      await importRows(1);
      const after = await plainGet(apiCounts);
      expect(await events.next()).toEqual({ event: "result", id: after.etag, data: after.body });
      request.close();
    } finally {
      session.close();
    }
  });

  it("ends its streams with an unavailable error event when the service shuts down", async () => {
    // No wait for the earlier tests' streams: it asserts on its own stream only.
    const stream = await fetchStream(apiCounts);
    await stream.events.next();
    server.app.endStreams();
    const last = await stream.events.next();
    expect(last?.event).toBe("error");
    expect(JSON.parse(last!.data).error.code).toBe("unavailable");
    await stream.events.next(1_000);
    expect(stream.events.ended).toBe(true);
  });
});

describe("an event stream whose client stops reading", () => {
  let stalled: TestServer;
  beforeAll(async () => {
    stalled = await startTestServer(warehouse, NOW, {}, { unsentBytes: { stallTimeoutMs: 200 } });
  });
  afterAll(async () => {
    await stalled?.close();
  });

  it("is stopped by the unsent-bytes bounds, and its watch closed", async () => {
    // A 16-byte window the client never opens: the first event stays queued on the server.
    const session = connect(stalled.url, { settings: { initialWindowSize: 16 } });
    try {
      const request = session.request({ ":path": apiCounts, accept: "text/event-stream", "x-api-key": TEST_API_KEY });
      request.pause();
      const closed = new Promise<number>((resolve) => request.once("close", () => resolve(request.rstCode)));
      request.on("error", () => {});
      expect(await closed).not.toBe(0);
      await noStreamsOpen(stalled);
    } finally {
      session.destroy();
    }
  });
});
