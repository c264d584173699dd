// What a client can hold or make the server read, through real sockets: a
// connection must send its first request in time, idle connections are
// closed (HTTP/2 with GOAWAY), an HTTP/2 stream whose body never ends is
// cancelled, connections past the bound are refused while open ones keep
// working, and request bodies are bounded and never read before the key.
import { connect as connectHttp2, constants, type ClientHttp2Session } from "node:http2";
import { connect, type Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { create } from "@bufbuild/protobuf";
import { Code, type ConnectError, createClient } from "@connectrpc/connect";
import { compressionGzip, createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LogsService } from "../../../src/gen/logs/v1/logs_pb.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
let warehouse: Warehouse;
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
});
afterAll(async () => warehouse?.close());

function openSocket(server: TestServer): Promise<Socket> {
  const [host, port] = server.address.split(":");
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), host!, () => resolve(socket));
    socket.on("error", reject);
  });
}

/** Milliseconds until the server closes `socket`, and what it sent before. */
function closedAfter(socket: Socket): Promise<{ ms: number; received: string }> {
  const started = Date.now();
  let received = "";
  socket.on("data", (d: Buffer) => (received += d.toString("latin1")));
  socket.on("error", () => {});
  return new Promise((resolve) => socket.once("close", () => resolve({ ms: Date.now() - started, received })));
}

/** The status of a GET /healthz on `session`. */
function healthStatus(session: ClientHttp2Session): Promise<number> {
  return new Promise((resolve) => {
    const stream = session.request({ ":path": "/healthz" });
    stream.on("response", (headers) => resolve(Number(headers[":status"])));
    stream.resume();
    stream.end();
  });
}

describe("connection timeouts", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(
      warehouse,
      NOW,
      {},
      { headersTimeoutMs: 300, firstRequestTimeoutMs: 300, idleTimeoutMs: 500, requestTimeoutMs: 700 },
    );
  });
  afterAll(() => server?.close());

  it("closes a connection that sends only the HTTP/2 preface at the first-request bound", async () => {
    const socket = await openSocket(server);
    socket.write(preface);
    const { ms } = await closedAfter(socket);
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(3000);
  });

  it("closes an HTTP/2 session with GOAWAY once it has had no request for the idle bound", async () => {
    const session = connectHttp2(server.url);
    expect(await healthStatus(session)).toBe(200);
    const started = Date.now();
    const goaway = await new Promise<number>((resolve) => session.once("goaway", (code) => resolve(code)));
    expect(goaway).toBe(constants.NGHTTP2_NO_ERROR);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    await new Promise((resolve) => session.once("close", resolve));
  });

  it("keeps an HTTP/2 session whose requests keep coming past the idle bound, and closes it the bound after the last", async () => {
    const session = connectHttp2(server.url);
    let goawayAt: number | undefined;
    session.once("goaway", () => {
      goawayAt = Date.now();
    });
    // Five requests 250 ms apart: 1 s in all, twice the idle bound of 500 ms, never 500 ms without one.
    for (let i = 0; i < 5; i++) {
      expect(await healthStatus(session)).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(goawayAt).toBeUndefined();
    const last = Date.now() - 250;
    await new Promise((resolve) => session.once("close", resolve));
    expect(goawayAt! - last).toBeGreaterThanOrEqual(400);
  });

  it("keeps an HTTP/2 session open past the idle bound while a stream is open, and closes it the bound after", async () => {
    const session = connectHttp2(server.url);
    let goawayAt: number | undefined;
    session.once("goaway", () => {
      goawayAt = Date.now();
    });
    // A request that ends at once starts the idle bound (500 ms); then a body that never ends keeps a stream open
    // until the request timeout (700 ms) cancels it, past that bound.
    expect(await healthStatus(session)).toBe(200);
    const stream = session.request({
      ":method": "POST",
      ":path": "/logs.v1.LogsService/GetAllLogs",
      "content-type": "application/json",
      "x-api-key": TEST_API_KEY,
    });
    stream.on("error", () => {});
    stream.write('{"project":');
    await new Promise((resolve) => stream.once("close", resolve));
    const closedAt = Date.now();
    expect(goawayAt).toBeUndefined();
    await new Promise((resolve) => session.once("close", resolve));
    expect(goawayAt! - closedAt).toBeGreaterThanOrEqual(400);
  });

  it("closes an idle HTTP/1.1 keep-alive connection at the idle bound", async () => {
    const socket = await openSocket(server);
    const closed = closedAfter(socket);
    socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n");
    const { ms, received } = await closed;
    expect(received.startsWith("HTTP/1.1 200")).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(450);
    expect(ms).toBeLessThan(3000);
  });

  it("cancels an HTTP/2 stream whose request body never ends at the request timeout", async () => {
    const session = connectHttp2(server.url);
    const stream = session.request({
      ":method": "POST",
      ":path": "/logs.v1.LogsService/GetAllLogs",
      "content-type": "application/json",
      "x-api-key": TEST_API_KEY,
    });
    stream.write('{"project":'); // and never the rest
    const started = Date.now();
    const code = await new Promise<number>((resolve) => {
      stream.on("error", () => {});
      stream.once("close", () => resolve(stream.rstCode ?? -1));
    });
    expect(code).toBe(constants.NGHTTP2_CANCEL);
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    session.destroy();
  });
});

describe("the open-connection bound", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(warehouse, NOW, {}, { maxConnections: 10, firstRequestTimeoutMs: 10_000 });
  });
  afterAll(() => server?.close());

  it("refuses connections past the bound at once while an open connection keeps working", async () => {
    const session: ClientHttp2Session = connectHttp2(server.url);
    expect(await healthStatus(session)).toBe(200);
    // Nine more fill the bound; the server closes the rest at once.
    const held = await Promise.all(Array.from({ length: 9 }, () => openSocket(server)));
    const extra = await Promise.all(Array.from({ length: 5 }, () => openSocket(server)));
    const closes = await Promise.all(extra.map(closedAfter));
    for (const { ms } of closes) expect(ms).toBeLessThan(2000); // not the 10 s first-request bound
    expect(await healthStatus(session)).toBe(200);
    for (const socket of held) socket.destroy();
    session.close();
  });
});

describe("the open-connection bound per address", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(warehouse, NOW, {}, { maxConnectionsPerAddress: 3, firstRequestTimeoutMs: 10_000 });
  });
  afterAll(() => server?.close());

  it("refuses a fourth connection from one address at once, while another address is served", async () => {
    const held = await Promise.all(Array.from({ length: 3 }, () => openSocket(server)));
    const fourth = await openSocket(server);
    expect((await closedAfter(fourth)).ms).toBeLessThan(2000); // not the 10 s first-request bound
    // 127.0.0.2 is another client address on the loopback interface.
    const [host, port] = server.address.split(":");
    const other = await new Promise<Socket>((resolve, reject) => {
      const socket = connect({ port: Number(port), host: host!, localAddress: "127.0.0.2" }, () => resolve(socket));
      socket.on("error", reject);
    });
    const answer = closedAfter(other);
    other.write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect((await answer).received).toMatch(/^HTTP\/1\.1 200 /);
    for (const socket of held) socket.destroy();
  });
});

describe("request bodies", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(warehouse, NOW);
  });
  afterAll(() => server?.close());

  it("refuses a call without a key from its headers, before its body is sent", async () => {
    const socket = await openSocket(server);
    const closed = closedAfter(socket);
    // A gzip body that would expand to 64 MiB, announced but never sent.
    const body = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    socket.write(
      "POST /logs.v1.LogsService/GetAllLogs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        `Content-Encoding: gzip\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const { received } = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 401 /);
    expect(received).toContain("connection: close");
    expect(received).toContain('{"code":"unauthenticated","message":"missing or invalid API key"}');
  });

  it.each([
    ["a method the GET API does not take", "POST /api/endpoints/logs.all", /^HTTP\/1\.1 405 /],
    ["an unknown route", "POST /nowhere", /^HTTP\/1\.1 404 /],
  ])("answers %s without reading the body, closing the connection", async (_label, requestLine, status) => {
    const socket = await openSocket(server);
    const closed = closedAfter(socket);
    socket.write(`${requestLine} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 200000000\r\n\r\n`);
    socket.write(Buffer.alloc(64 * 1024)); // a little of the 200 MB, and never the rest
    const { received } = await closed;
    expect(received).toMatch(status);
    expect(received).toContain("connection: close");
  });

  it("answers an unknown gRPC method without reading its body, resetting the stream", async () => {
    const session = connectHttp2(server.url);
    const stream = session.request({
      ":method": "POST",
      ":path": "/nope.v1.Nope/Call",
      "content-type": "application/grpc",
      te: "trailers",
    });
    stream.write(Buffer.alloc(64 * 1024)); // and never the end
    stream.resume();
    const headers = await new Promise<Record<string, unknown>>((resolve) => stream.once("response", resolve));
    const code = await new Promise<number>((resolve) => {
      stream.on("error", () => {});
      stream.once("close", () => resolve(stream.rstCode ?? -1));
    });
    expect(headers["grpc-status"]).toBe("12");
    expect(code).toBe(constants.NGHTTP2_NO_ERROR);
    session.destroy();
  });

  it("refuses a declared body over the bound with 413 and resource_exhausted, even with a key", async () => {
    const response = await fetch(`${server.url}/logs.v1.LogsService/GetAllLogs`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": TEST_API_KEY },
      body: JSON.stringify({ project: "p".repeat(70_000) }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      code: "resource_exhausted",
      message: "request body is larger than 65536 bytes",
    });
  });

  it("stops decompressing at the bound: a small gzip body that expands past it is resource_exhausted", async () => {
    const expanding = gzipSync(Buffer.from(JSON.stringify({ project: "p".repeat(10_000_000) })));
    expect(expanding.length).toBeLessThan(65_536);
    const response = await fetch(`${server.url}/logs.v1.LogsService/GetAllLogs`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip", "x-api-key": TEST_API_KEY },
      body: expanding,
    });
    const body = (await response.json()) as { code: string; message: string };
    expect(body.code).toBe("resource_exhausted");
    expect(body.message).not.toMatch(/JSON|parse|unexpected/i);
  });

  it("refuses an oversized gRPC message, compressed or not, as RESOURCE_EXHAUSTED", async () => {
    const request = create(LogsService.method.getAllLogs.input, { project: "p".repeat(1_000_000) });
    for (const sendCompression of [undefined, compressionGzip]) {
      const client = createClient(LogsService, createGrpcTransport({ baseUrl: server.url, sendCompression }));
      const error = (await client
        .getAllLogs(request, { headers: { "x-api-key": TEST_API_KEY } })
        .catch((e: unknown) => e)) as ConnectError;
      expect(error.code).toBe(Code.ResourceExhausted);
    }
    // Without a key the same call is refused as UNAUTHENTICATED, from its headers.
    const client = createClient(
      LogsService,
      createGrpcTransport({ baseUrl: server.url, sendCompression: compressionGzip }),
    );
    const error = (await client.getAllLogs(request).catch((e: unknown) => e)) as ConnectError;
    expect(error.code).toBe(Code.Unauthenticated);
  });
});
