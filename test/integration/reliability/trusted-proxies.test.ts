// Behind a proxy the operator trusts (TRUSTED_PROXIES), the per-address
// bounds count the client the proxy names in X-Forwarded-For, not the proxy:
// one client guessing keys does not lock out the others, and the proxy's
// many connections are not cut at one address's bound. Without trust the
// header is the client's own words and is ignored. Real sockets; the test
// process is the proxy, on 127.0.0.1.
import { connect, type Socket } from "node:net";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LogsService } from "../../../src/gen/logs/v1/logs_pb.js";
import { trustedProxies } from "../../../src/transport/index.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

let warehouse: Warehouse;
beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
});
afterAll(async () => warehouse?.close());

// Two failed authentications per address, and the pinned clock never gives one back.
const authFailures = { perSecond: 1, burst: 2 };

async function status(server: TestServer, key: string, forwardedFor?: string): Promise<number> {
  const headers: Record<string, string> = { "x-api-key": key };
  if (forwardedFor !== undefined) headers["x-forwarded-for"] = forwardedFor;
  const response = await fetch(`${server.url}/api/endpoints/logs.all?project=rpc`, { headers });
  await response.arrayBuffer();
  return response.status;
}

describe("failed authentications behind a trusted proxy", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(warehouse, NOW, { authFailures, trustedProxies: trustedProxies(["127.0.0.1"]) });
  });
  afterAll(() => server?.close());

  it("are counted per client the proxy names, whatever the client wrote before its own address", async () => {
    const guesser = "198.51.100.1";
    expect([await status(server, "guess-1", guesser), await status(server, "guess-2", guesser)]).toEqual([401, 401]);
    expect(await status(server, TEST_API_KEY, guesser)).toBe(429);
    // Naming someone else first changes nothing: the proxy appended the address it saw.
    expect(await status(server, TEST_API_KEY, `198.51.100.2, ${guesser}`)).toBe(429);
    // Another client behind the same proxy is not locked out, nor is the proxy's own traffic.
    expect(await status(server, TEST_API_KEY, "198.51.100.2")).toBe(200);
    expect(await status(server, "guess-3", "198.51.100.2")).toBe(401);
    expect(await status(server, TEST_API_KEY)).toBe(200);
  });

  it("are counted the same way for gRPC calls", async () => {
    const client = createClient(LogsService, createGrpcTransport({ baseUrl: server.url }));
    const call = (key: string, forwardedFor: string) =>
      client
        .getAllLogs(create(LogsService.method.getAllLogs.input, { project: "rpc" }), {
          headers: { "x-api-key": key, "x-forwarded-for": forwardedFor },
        })
        .then(
          () => "ok",
          (error: unknown) => Code[ConnectError.from(error).code],
        );
    const guesser = "203.0.113.50";
    expect([await call("guess-1", guesser), await call("guess-2", guesser), await call(TEST_API_KEY, guesser)]).toEqual(
      ["Unauthenticated", "Unauthenticated", "ResourceExhausted"],
    );
    expect(await call(TEST_API_KEY, "203.0.113.51")).toBe("ok");
  });
});

describe("failed authentications with no proxy trusted", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(warehouse, NOW, { authFailures });
  });
  afterAll(() => server?.close());

  it("ignore X-Forwarded-For: a client cannot spread its guesses over addresses it makes up", async () => {
    expect([await status(server, "guess-1", "198.51.100.1"), await status(server, "guess-2", "198.51.100.2")]).toEqual([
      401, 401,
    ]);
    expect(await status(server, TEST_API_KEY, "198.51.100.3")).toBe(429);
  });
});

describe("the open-connection bound per address, behind a trusted proxy", () => {
  let server: TestServer;
  const opened: Socket[] = [];
  beforeAll(async () => {
    server = await startTestServer(
      warehouse,
      NOW,
      {},
      { maxConnectionsPerAddress: 2, firstRequestTimeoutMs: 10_000, trustedProxies: trustedProxies(["127.0.0.1"]) },
    );
  });
  afterAll(async () => {
    for (const socket of opened) socket.destroy();
    await server?.close();
  });

  /** A connection from `localAddress`, and what the server answers a health check on it (empty if it closes first). */
  async function healthOver(localAddress: string): Promise<string> {
    const [host, port] = server.address.split(":");
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect({ port: Number(port), host: host!, localAddress }, () => resolve(s));
      s.on("error", reject);
    });
    opened.push(socket);
    socket.on("error", () => {});
    // The first bytes of the answer, or nothing when the server closes the connection first. It stays open (keep-alive).
    const answer = new Promise<string>((resolve) => {
      socket.once("data", (d: Buffer) => resolve(d.toString("latin1").slice(0, 15)));
      socket.once("close", () => resolve(""));
    });
    socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    return answer;
  }

  it("does not cut the trusted proxy's connections, and still cuts an untrusted address's", async () => {
    const fromProxy = [];
    for (let i = 0; i < 4; i++) fromProxy.push(await healthOver("127.0.0.1"));
    expect(fromProxy).toEqual(Array(4).fill("HTTP/1.1 200 OK"));
    // 127.0.0.2 is another address on the loopback interface, not trusted: its third connection is refused.
    const fromOther = [await healthOver("127.0.0.2"), await healthOver("127.0.0.2"), await healthOver("127.0.0.2")];
    expect(fromOther).toEqual(["HTTP/1.1 200 OK", "HTTP/1.1 200 OK", ""]);
  });
});
