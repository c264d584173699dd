// Request headers are bounded on HTTP/2 as on HTTP/1.1 (16 KiB): a stream
// sent before the client acknowledged the server's SETTINGS is answered 431
// like an HTTP/1.1 request, one sent after is reset by Node's own check, and
// a header list within the bound is served either way.
import { request as http1Request } from "node:http";
import { type ClientHttp2Session, connect, constants } from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { startTestServer, type TestServer } from "../../support/test-server.js";

let warehouse: Warehouse;
let server: TestServer;
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  server = await startTestServer(warehouse, Date.UTC(2026, 0, 1));
});
afterAll(async () => {
  await server?.close();
  await warehouse?.close();
});

/** Ten `x-pad-<i>` headers of `size / 10` characters each: a header list of a little over `size` bytes. */
function padding(size: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`x-pad-${i}`, "a".repeat(size / 10)]));
}

/** A GET of /healthz on a new HTTP/2 connection: its status, or the code its stream was reset with. */
async function http2Get(headers: Record<string, string>, afterSettings: boolean) {
  // Node's client sends header blocks of 64 KiB at most unless told otherwise.
  const session: ClientHttp2Session = connect(server.url, { maxSendHeaderBlockLength: 1 << 20 });
  session.on("error", () => {});
  try {
    if (afterSettings) {
      await new Promise((resolve) => session.once("remoteSettings", resolve));
      // The ping's answer comes after the server has taken the acknowledgement sent before it.
      await new Promise((resolve) => session.ping(resolve));
    }
    const stream = session.request({ ":path": "/healthz", ...headers });
    stream.on("error", () => {});
    stream.resume();
    return await new Promise<{ status: number } | { reset: number }>((resolve) => {
      stream.once("response", (h) => resolve({ status: Number(h[":status"]) }));
      stream.once("close", () => resolve({ reset: stream.rstCode ?? 0 }));
    });
  } finally {
    session.destroy();
  }
}

function http1Get(headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http1Request(`${server.url}/healthz`, { headers, agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

describe("request headers past 16 KiB", () => {
  it("are 431 on HTTP/1.1", async () => {
    expect(await http1Get(padding(100_000))).toBe(431);
  });

  it("are 431 on HTTP/2 in the connection's first flight, before the client acknowledged the settings", async () => {
    expect(await http2Get(padding(100_000), false)).toEqual({ status: 431 });
    expect(await http2Get(padding(17_000), false)).toEqual({ status: 431 });
  });

  it("reset the stream (ENHANCE_YOUR_CALM) on HTTP/2 once the settings are acknowledged", async () => {
    expect(await http2Get(padding(100_000), true)).toEqual({ reset: constants.NGHTTP2_ENHANCE_YOUR_CALM });
  });

  it("within the bound are served on both protocols", async () => {
    expect(await http1Get(padding(15_000))).toBe(200);
    expect(await http2Get(padding(15_000), false)).toEqual({ status: 200 });
    expect(await http2Get(padding(15_000), true)).toEqual({ status: 200 });
  });
});
