// Personal data through the real server on the embedded engine: rows holding
// IPv4 and IPv6 addresses and marked metadata values reach a masked caller
// masked on GET JSON, CSV, NDJSON, the event stream, every RPC client and a
// gRPC watch stream, and an unmasked key-file key, an unmasked token and an
// API_KEYS key as stored; a caller cannot set the masking itself; masked and
// unmasked callers of the same parameters never share a prepared call, a
// body or an ETag, in either order; a key whose unmasked the key file
// withdraws has its streams ended. Expected values are written out by hand
// from the inserted rows.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { Code, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueToken, keyDigest } from "../../../src/auth/index.js";
import { GetAllLogsRequestSchema, type LogRecord, LogsService } from "../../../src/gen/logs/v1/logs_pb.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { readCsv } from "../../support/csv-reader.js";
import { insertRows, openTestWarehouse, ts } from "../../support/embedded-warehouse.js";
import { allClients, type RpcClient } from "../../support/rpc-clients.js";
import { NOW } from "../../support/scenario.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";
import { connectWatch } from "../../support/watch-clients.js";

const MINUTE = 60_000;
const secret = "personal-data-test-secret-0123456789";
const scopedKey = "masked-scoped-key-0123456789";
const unscopedKey = "masked-unscoped-key-0123456789";
const unmaskedKey = "unmasked-key-0123456789";

// Two records of project `people`, newest first: m1 with IPv4 addresses, m2 with IPv6 ones.
const stored = [
  {
    id: "m1",
    event_message: "GET | 200 | /rest/v1/todos from 203.0.113.7",
    metadata: [
      {
        request: [
          {
            method: "GET",
            headers: [{ x_forwarded_for: "203.0.113.7, 198.51.100.23", user_agent: "Mozilla/5.0 (X11; Linux)" }],
          },
        ],
        client: "198.51.100.23:51234",
      },
    ],
  },
  {
    id: "m2",
    event_message: "POST | 201 | /auth/v1/token from 2001:db8:85a3::8a2e:370:7334",
    metadata: [
      {
        request: [{ headers: [{ cf_connecting_ip: "2001:db8::1" }], cf: [{ city: "Lisbon", latitude: 38.72 }] }],
        peer: "[2001:db8::42]:443",
        note: "retried at 21:59:00",
      },
    ],
  },
];

// The same records as a masked caller reads them: each address as 0.0.0.0 or ::,
// each value of a marked key (x_forwarded_for, user_agent, cf_connecting_ip, city, latitude) as "[masked]".
const masked = [
  {
    id: "m1",
    event_message: "GET | 200 | /rest/v1/todos from 0.0.0.0",
    metadata: [
      {
        request: [{ method: "GET", headers: [{ x_forwarded_for: "[masked]", user_agent: "[masked]" }] }],
        client: "0.0.0.0:51234",
      },
    ],
  },
  {
    id: "m2",
    event_message: "POST | 201 | /auth/v1/token from ::",
    metadata: [
      {
        request: [{ headers: [{ cf_connecting_ip: "[masked]" }], cf: [{ city: "[masked]", latitude: "[masked]" }] }],
        peer: "[::]:443",
        note: "retried at 21:59:00",
      },
    ],
  },
];

let warehouse: Warehouse;
let directory: string;
let keysPath: string;
let server: TestServer;
let clients: RpcClient[];
let maskedToken: string;
let unmaskedToken: string;
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertRows(warehouse, "edge_logs", [
    ...stored.map((record, i) => ({
      id: record.id,
      timestamp: ts(NOW - (i + 1) * MINUTE),
      event_message: record.event_message,
      project: "people",
      metadata: JSON.stringify(record.metadata),
    })),
    // A record with nothing personal: masked and unmasked bodies are the same.
    { id: "p1", timestamp: ts(NOW - MINUTE), event_message: "GET | 200 | /", project: "plain", metadata: "[{}]" },
  ]);
  directory = makeTemporaryDirectory("sqe-personal-");
  keysPath = join(directory, "keys.json");
  writeKeys(true);
  server = await startTestServer(warehouse, NOW, { keyFile: { path: keysPath, pollMs: 0 }, tokens: { secret } });
  clients = allClients(server.url, server.address);
  maskedToken = await issueToken({ sub: "reader" }, { secret, ttlSeconds: 3600, now: NOW });
  unmaskedToken = await issueToken({ sub: "auditor", unmasked: true }, { secret, ttlSeconds: 3600, now: NOW });
});
afterAll(async () => {
  for (const client of clients ?? []) client.close();
  await server?.close();
  await warehouse?.close();
  removeTemporaryDirectory(directory);
});

/** The key file, its unmasked key with `unmasked` as given. */
function writeKeys(unmasked: boolean) {
  const keys = [
    { id: "scoped", sha256: keyDigest(scopedKey), endpoints: ["logs.all"], fixed: { project: "people" } },
    { id: "unscoped", sha256: keyDigest(unscopedKey) },
    { id: "unmasked", sha256: keyDigest(unmaskedKey), fixed: { project: "people" }, unmasked },
  ];
  writeFileSync(keysPath, JSON.stringify({ keys }));
}

const logsPath = "/api/endpoints/logs.all?project=people";

async function getJson(path: string, key: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}${path}`, { headers: { "x-api-key": key, ...headers } });
  const text = await response.text();
  return { status: response.status, etag: response.headers.get("etag"), text, json: JSON.parse(text) };
}

/** The records of a GET JSON body as the tests write them. */
const recordsOf = (json: { result: { id: string; event_message: string; metadata: unknown }[] }) =>
  json.result.map(({ id, event_message, metadata }) => ({ id, event_message, metadata }));

/** The records of an RPC answer as the tests write them. */
const rpcRecordsOf = (records: LogRecord[]) =>
  records.map((r) => ({
    id: r.id,
    event_message: r.eventMessage,
    metadata: r.metadata,
  }));

describe("a masked caller", () => {
  it("reads addresses and marked values masked in GET JSON", async () => {
    const { status, json } = await getJson(logsPath, scopedKey);
    expect(status).toBe(200);
    expect(recordsOf(json)).toEqual(masked);
  });

  it("reads them masked in CSV, metadata as its JSON text", async () => {
    const response = await fetch(`${server.url}${logsPath}&format=csv`, { headers: { "x-api-key": scopedKey } });
    const [header, ...rows] = readCsv(await response.text());
    expect(header).toEqual(["id", "timestamp", "event_message", "metadata"]);
    expect(
      rows.map(([id, , message, metadata]) => ({ id, event_message: message, metadata: JSON.parse(metadata!) })),
    ).toEqual(masked);
  });

  it("reads them masked in NDJSON, one record a line", async () => {
    const response = await fetch(`${server.url}${logsPath}`, {
      headers: { accept: "application/x-ndjson", "x-api-key": scopedKey },
    });
    expect(response.headers.get("content-type")).toBe("application/x-ndjson");
    const lines = (await response.text()).trim().split("\n");
    expect(recordsOf({ result: lines.map((line) => JSON.parse(line)) })).toEqual(masked);
  });

  it("reads them masked in a gRPC watch stream's first message", async () => {
    const abort = new AbortController();
    const client = createClient(LogsService, createGrpcTransport({ baseUrl: server.url }));
    const stream = client.watchAllLogs(request("people"), {
      headers: { "x-api-key": scopedKey },
      signal: abort.signal,
    });
    let first: LogRecord[] = [];
    for await (const message of stream) {
      first = message.result;
      break;
    }
    abort.abort();
    expect(rpcRecordsOf(first)).toEqual(masked);
  });

  it("reads them masked in the event stream's first result", async () => {
    const abort = new AbortController();
    const response = await fetch(`${server.url}${logsPath}`, {
      headers: { accept: "text/event-stream", "x-api-key": scopedKey },
      signal: abort.signal,
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const data = await firstResultData(response.body!);
    abort.abort();
    expect(recordsOf(JSON.parse(data))).toEqual(masked);
  });

  it("reads them masked over every RPC client", async () => {
    for (const client of clients) {
      const outcome = await client.call(LogsService, LogsService.method.getAllLogs, request("people"), {
        headers: { "x-api-key": scopedKey },
      });
      expect(outcome.ok, client.name).toBe(true);
      if (outcome.ok)
        expect(rpcRecordsOf((outcome.message as never as { result: LogRecord[] }).result)).toEqual(masked);
    }
  });

  it("is a token without the unmasked claim", async () => {
    expect(recordsOf((await getJson(logsPath, maskedToken)).json)).toEqual(masked);
  });
});

describe("a caller who may see personal data", () => {
  it.each([
    ["an API_KEYS key", TEST_API_KEY],
    ["a key-file key with unmasked: true", unmaskedKey],
  ])("reads the records as stored over GET JSON and gRPC: %s", async (_label, key) => {
    expect(recordsOf((await getJson(logsPath, key)).json)).toEqual(stored);
    const grpc = clients.find((c) => c.name === "grpc")!;
    const outcome = await grpc.call(LogsService, LogsService.method.getAllLogs, request("people"), {
      headers: { "x-api-key": key },
    });
    expect(outcome.ok && rpcRecordsOf((outcome.message as never as { result: LogRecord[] }).result)).toEqual(stored);
  });

  it("is a token with the claim unmasked: true", async () => {
    expect(recordsOf((await getJson(logsPath, unmaskedToken)).json)).toEqual(stored);
  });
});

describe("the masking is the service's", () => {
  it.each([
    ["a masked key", scopedKey],
    ["an API_KEYS key", TEST_API_KEY],
  ])("refuses unmasked=1 on the query string as an undeclared parameter: %s", async (_label, key) => {
    const { status, json } = await getJson(`${logsPath}&unmasked=1`, key);
    expect(status).toBe(400);
    expect(json.error.code).toBe("invalid_argument");
    expect(json.error.details).toEqual([
      {
        field: "unmasked",
        description:
          "unmasked is not a parameter of logs.all (it takes project, project_tier, iso_timestamp_start, iso_timestamp_end, page_token)",
      },
    ]);
  });
});

describe("masked and unmasked callers of the same parameters", () => {
  // The unscoped key-file key differs from an API_KEYS key in its masking alone,
  // so a prepared call or an answer of one handed to the other would show here.
  it.each([
    ["unmasked first", [TEST_API_KEY, unscopedKey]],
    ["masked first", [unscopedKey, TEST_API_KEY]],
  ])("never share a GET body or ETag: %s", async (_label, keys) => {
    const tier = keys[0] === TEST_API_KEY ? "PRO" : "PAYG";
    const path = `${logsPath}&project_tier=${tier}`;
    const answers = new Map<string, Awaited<ReturnType<typeof getJson>>>();
    for (const key of keys) answers.set(key, await getJson(path, key));
    const full = answers.get(TEST_API_KEY)!;
    const limited = answers.get(unscopedKey)!;
    expect(recordsOf(full.json)).toEqual(stored);
    expect(recordsOf(limited.json)).toEqual(masked);
    expect(full.etag).not.toBe(limited.etag);
    // Asked again, each still gets its own.
    expect(recordsOf((await getJson(path, unscopedKey)).json)).toEqual(masked);
    expect(recordsOf((await getJson(path, TEST_API_KEY)).json)).toEqual(stored);
  });

  it("have ETags of their own even for the same body, and one's ETag does not revalidate the other's", async () => {
    const path = "/api/endpoints/logs.all?project=plain";
    const full = await getJson(path, TEST_API_KEY);
    const limited = await getJson(path, unscopedKey);
    expect(limited.text).toBe(full.text);
    expect(limited.etag).not.toBe(full.etag);
    const revalidated = await getJson(path, unscopedKey, { "if-none-match": full.etag! });
    expect(revalidated.status).toBe(200);
    expect(revalidated.etag).toBe(limited.etag);
  });

  it.each([
    ["unmasked first", [TEST_API_KEY, unscopedKey]],
    ["masked first", [unscopedKey, TEST_API_KEY]],
  ])("never share a Connect answer or ETag: %s", async (_label, keys) => {
    const tier = keys[0] === TEST_API_KEY ? "ENTERPRISE" : "FREE";
    const transport = createConnectTransport({ baseUrl: server.url, httpVersion: "1.1", useBinaryFormat: true });
    const answers = new Map<string, { records: ReturnType<typeof rpcRecordsOf>; etag: string | null }>();
    for (const key of keys) answers.set(key, await connectCall(transport, key, request("people", tier)));
    expect(answers.get(TEST_API_KEY)!.records).toEqual(stored);
    expect(answers.get(unscopedKey)!.records).toEqual(masked);
    expect(answers.get(TEST_API_KEY)!.etag).not.toBe(answers.get(unscopedKey)!.etag);
    const grpc = createGrpcTransport({ baseUrl: server.url });
    expect((await connectCall(grpc, unscopedKey, request("people", tier))).records).toEqual(masked);
  });
});

describe("a watch stream of a key whose unmasked is withdrawn", () => {
  it("ends PERMISSION_DENIED once the key file no longer says unmasked", async () => {
    const transport = createGrpcTransport({ baseUrl: server.url });
    const watch = connectWatch(transport, LogsService, LogsService.method.watchAllLogs, request("people"), {
      headers: { "x-api-key": unmaskedKey },
    });
    const [first] = await watch.until(1);
    expect(rpcRecordsOf((first as never as { result: LogRecord[] }).result)).toEqual(stored);
    writeKeys(false);
    try {
      expect(server.app.reloadCredentials()).toBe(true);
      expect((await watch.ended).code).toBe(Code.PermissionDenied);
      // The key now reads masked data.
      expect(recordsOf((await getJson(logsPath, unmaskedKey)).json)).toEqual(masked);
    } finally {
      watch.cancel();
      writeKeys(true);
      server.app.reloadCredentials();
    }
  });
});

function request(project: string, tier = "") {
  return create(GetAllLogsRequestSchema, { project, projectTier: tier });
}

async function connectCall(transport: Transport, key: string, message: ReturnType<typeof request>) {
  let etag: string | null = null;
  const response = await createClient(LogsService, transport).getAllLogs(message, {
    headers: { "x-api-key": key },
    onHeader: (headers) => {
      etag = headers.get("etag");
    },
  });
  return { records: rpcRecordsOf(response.result), etag };
}

/** The data of the first `event: result` of an event stream. */
async function firstResultData(body: ReadableStream<Uint8Array>): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended before a result: ${text}`);
    text += decoder.decode(value, { stream: true });
    for (const block of text.split("\n\n").slice(0, -1)) {
      const lines = block.split("\n");
      if (lines.includes("event: result")) {
        await reader.cancel();
        return lines.find((line) => line.startsWith("data: "))!.slice("data: ".length);
      }
    }
  }
}
