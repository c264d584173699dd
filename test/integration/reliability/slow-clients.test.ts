// Server limits: a connection that sends nothing is closed after the
// first-request timeout, one whose headers never end after the header
// timeout, while other callers are served; header blocks and HTTP/2 streams
// are bounded.
import { connect as connectHttp2 } from "node:http2";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

let warehouse: Warehouse;
let server: TestServer;
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  // The same bound for both, so that each close is checked against it.
  server = await startTestServer(warehouse, NOW, {}, { headersTimeoutMs, firstRequestTimeoutMs: headersTimeoutMs });
});
afterAll(async () => {
  await server?.close();
  await warehouse?.close();
});

function openSocket(): Promise<Socket> {
  const [host, port] = server.address.split(":");
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), host!, () => resolve(socket));
    socket.on("error", reject);
  });
}

/** The header timeout the server runs with; the default is 10 000 ms. */
const headersTimeoutMs = 500;

/** Resolves with what the server sent before it closed the connection, and how long after the call that was. */
function closedByServer(socket: Socket): Promise<{ received: string; afterMs: number }> {
  const started = performance.now();
  let received = "";
  socket.on("data", (d: Buffer) => (received += d.toString()));
  return new Promise((resolve) =>
    socket.once("close", () => resolve({ received, afterMs: performance.now() - started })),
  );
}

/**
 * Closed by the header timeout: not before it (a few ms of timer slack
 * aside), and long before the 10 s default, so the setting is what closed it.
 */
function expectClosedByHeaderTimeout(afterMs: number) {
  expect(afterMs).toBeGreaterThanOrEqual(headersTimeoutMs - 20);
  expect(afterMs).toBeLessThan(5_000);
}

describe("slow clients", () => {
  it("closes a connection that sends nothing", async () => {
    const socket = await openSocket();
    const { afterMs } = await closedByServer(socket);
    expect(socket.destroyed).toBe(true);
    expectClosedByHeaderTimeout(afterMs);
  });

  it("closes a connection whose headers never end, and keeps serving others meanwhile", async () => {
    const stalled = await openSocket();
    stalled.write("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ");
    const closed = closedByServer(stalled);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const { received, afterMs } = await closed;
    // Node answers 408 before closing, or just closes.
    expect(received === "" || received.startsWith("HTTP/1.1 408")).toBe(true);
    expectClosedByHeaderTimeout(afterMs);
  });

  it("refuses a header block over 16 KiB with 431", async () => {
    const response = await fetch(`${server.url}/healthz`, { headers: { "x-big": "a".repeat(20_000) } });
    expect(response.status).toBe(431);
  });
});

describe("HTTP/2 limits", () => {
  it("announces 100 concurrent streams and answers all of 150 opened at once", async () => {
    const session = connectHttp2(server.url);
    await new Promise((resolve) => session.once("remoteSettings", resolve));
    expect(session.remoteSettings.maxConcurrentStreams).toBe(100);
    const statuses = await Promise.all(
      Array.from(
        { length: 150 },
        (_, i) =>
          new Promise<number | string>((resolve) => {
            const stream = session.request({
              ":path": `/api/endpoints/logs.all?project=p${i}`,
              "x-api-key": TEST_API_KEY,
            });
            stream.on("response", (headers) => resolve(Number(headers[":status"])));
            stream.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
            stream.resume();
            stream.end();
          }),
      ),
    );
    session.close();
    // Every stream is answered: 200, or 429 past the bound on one key's warehouse queries (16 running
    // and waiting); at least those 16 are answered 200.
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(16);
  });
});
