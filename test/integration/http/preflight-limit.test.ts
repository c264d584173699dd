// CORS preflights are requests needing no key: counted per client address in
// the keyless buckets (KEYLESS_RATE_LIMIT_*), on HTTP/1.1 and HTTP/2 alike,
// and refused past them with 429 resource_exhausted; another address and the
// address's health probes are not affected.
import { request as http1Request } from "node:http";
import { connect as http2Connect } from "node:http2";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { startTestServer, type TestServer } from "../../support/test-server.js";

const PAGE = "https://page.example.com";
const preflightHeaders = { origin: PAGE, "access-control-request-method": "POST" };
const path = "/logs.v1.LogsService/GetAllLogs";

let warehouse: Warehouse;
let server: TestServer;
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  // Four keyless requests of a kind per address, and the pinned clock never gives one back.
  server = await startTestServer(warehouse, Date.UTC(2026, 0, 1), { keylessRateLimit: { perSecond: 1, burst: 4 } });
});
afterAll(async () => {
  await server?.close();
  await warehouse?.close();
});

interface Answer {
  status: number;
  retryAfter?: string;
  code?: string;
}

/** An HTTP/1.1 OPTIONS of `target` from `localAddress` on a connection of its own. */
function http1Options(target: string, localAddress: string, headers: Record<string, string> = preflightHeaders) {
  const { port } = new URL(server.url);
  return new Promise<Answer>((resolve, reject) => {
    const req = http1Request(
      { host: "127.0.0.1", port, path: target, method: "OPTIONS", headers, localAddress, agent: false },
      (response) => {
        let body = "";
        response.on("data", (chunk: Buffer) => (body += chunk.toString()));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            retryAfter: (response.headers["retry-after"] as string | undefined) ?? undefined,
            code: body === "" ? undefined : (JSON.parse(body) as { error: { code: string } }).error.code,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** The same preflight on one HTTP/2 connection from 127.0.0.3. */
async function http2Options(): Promise<number> {
  const { port } = new URL(server.url);
  const session = http2Connect(server.url, {
    createConnection: () => connect({ host: "127.0.0.1", port: Number(port), localAddress: "127.0.0.3" }),
  });
  session.on("error", () => {});
  try {
    const stream = session.request({ ":method": "OPTIONS", ":path": path, ...preflightHeaders });
    stream.resume();
    return await new Promise((resolve) => stream.once("response", (h) => resolve(Number(h[":status"]))));
  } finally {
    session.close();
  }
}

describe("preflights from one address", () => {
  it("are answered 204 up to the keyless burst, then 429 resource_exhausted with Retry-After", async () => {
    const answers: Answer[] = [];
    for (let i = 0; i < 6; i++) answers.push(await http1Options(path, "127.0.0.2"));
    expect(answers.map((a) => a.status)).toEqual([204, 204, 204, 204, 429, 429]);
    expect(answers[4]).toMatchObject({ code: "resource_exhausted" });
    expect(Number(answers[4]!.retryAfter)).toBeGreaterThan(0);
  });

  it("leave another address and the address's health probes alone", async () => {
    expect((await http1Options(path, "127.0.0.4")).status).toBe(204);
    const { port } = new URL(server.url);
    const probe = await new Promise<number>((resolve, reject) => {
      const req = http1Request(
        { host: "127.0.0.1", port, path: "/healthz", localAddress: "127.0.0.2", agent: false },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(probe).toBe(200);
  });

  it("are counted on HTTP/2 as on HTTP/1.1", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push(await http2Options());
    expect(statuses).toEqual([204, 204, 204, 204, 429]);
  });
});
