// Keyless RPC calls from one address, through the real server: gRPC health
// Check, server reflection and an unknown procedure are each refused with
// RESOURCE_EXHAUSTED past that address's bound, while a keyed cache hit and
// the health checks of another address keep answering; and one address
// holding its share of health Watch streams leaves room for another's.
// Two addresses: 127.0.0.1 and 127.0.0.2, both loopback on Linux, the client
// socket bound to one of them.
import { connect as connectHttp2 } from "node:http2";
import { connect as connectTcp } from "node:net";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Health, HealthCheckResponse_ServingStatus as Status } from "../../../src/gen/grpc/health/v1/health_pb.js";
import { ServerReflection } from "../../../src/gen/grpc/reflection/v1/reflection_pb.js";
import { UsageService } from "../../../src/gen/usage/v1/usage_pb.js";
import { trustedProxies } from "../../../src/transport/index.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

const burst = 5;
let warehouse: Warehouse;
let limited: TestServer;
let watched: TestServer;
let grouped: TestServer;

beforeAll(async () => {
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  // The pinned clock never refills a bucket: `burst` calls of each kind is all an address gets.
  limited = await startTestServer(warehouse, NOW, { keylessRateLimit: { perSecond: 1, burst } });
  watched = await startTestServer(warehouse, NOW, {
    healthPollMs: 20,
    maxHealthWatches: 8,
    maxHealthWatchesPerAddress: 2,
  });
  // The default share, 64 / 32 = 2 a client; clients named by the trusted proxy's X-Forwarded-For.
  grouped = await startTestServer(warehouse, NOW, {
    healthPollMs: 20,
    maxHealthWatches: 64,
    trustedProxies: trustedProxies(["127.0.0.1"]),
  });
});
afterAll(async () => {
  await limited?.close();
  await watched?.close();
  await grouped?.close();
  await warehouse?.close();
});

/** HTTP/2 session options whose connections to `server` leave from `localAddress`. */
function from(server: TestServer, localAddress: string) {
  const port = Number(new URL(server.url).port);
  return { createConnection: () => connectTcp({ host: "127.0.0.1", port, localAddress }) };
}

/** A gRPC transport whose connections leave from `localAddress`. */
const transportFrom = (server: TestServer, localAddress: string) =>
  createGrpcTransport({ baseUrl: server.url, nodeOptions: from(server, localAddress) });

/** The code a call ended with: `ok`, or its error code. */
async function outcome(call: () => Promise<unknown>): Promise<Code | "ok"> {
  try {
    await call();
    return "ok";
  } catch (error) {
    return ConnectError.from(error).code;
  }
}

/** A gRPC call of a procedure nobody serves, over raw HTTP/2 from `localAddress`: its grpc-status. */
function unknownCall(server: TestServer, localAddress: string): Promise<Code | "ok"> {
  const session = connectHttp2(server.url, from(server, localAddress));
  const stream = session.request({
    ":method": "POST",
    ":path": "/nope.v1.Nope/Call",
    "content-type": "application/grpc",
    te: "trailers",
  });
  let status: string | undefined;
  const take = (headers: Record<string, unknown>) => {
    if (headers["grpc-status"] !== undefined) status = String(headers["grpc-status"]);
  };
  stream.on("response", take);
  stream.on("trailers", take);
  stream.end(Buffer.alloc(5));
  stream.resume();
  return new Promise((resolve, reject) => {
    stream.on("error", reject);
    stream.on("close", () => {
      session.close();
      resolve(status === "0" ? "ok" : (Number(status) as Code));
    });
  });
}

describe("keyless RPC calls from one address", () => {
  it("refuse health Check, reflection and an unknown procedure past their bound, and keep answering others", async () => {
    const flooding = transportFrom(limited, "127.0.0.2");
    const other = transportFrom(limited, "127.0.0.1");
    const health = createClient(Health, flooding);
    const reflection = createClient(ServerReflection, flooding);
    const usage = createClient(UsageService, other);
    const keyed = () =>
      usage.getApiCounts({ project: "rpc", interval: "hourly" }, { headers: { "x-api-key": TEST_API_KEY } });
    await keyed();

    const checks: (Code | "ok")[] = [];
    const reflections: (Code | "ok")[] = [];
    const unknowns: (Code | "ok")[] = [];
    for (let i = 0; i < burst + 3; i++) {
      checks.push(await outcome(() => health.check({ service: "" })));
      reflections.push(
        await outcome(async () => {
          const answers = reflection.serverReflectionInfo(
            (async function* () {
              yield { host: "", messageRequest: { case: "listServices", value: "" } };
            })(),
          );
          for await (const _ of answers) break;
        }),
      );
      unknowns.push(await unknownCall(limited, "127.0.0.2"));
      // A keyed cache hit from another address is answered all along.
      expect((await keyed()).result.length).toBeGreaterThan(0);
    }
    const past = Array(3).fill(Code.ResourceExhausted);
    expect(checks).toEqual([...Array(burst).fill("ok"), ...past]);
    expect(reflections).toEqual([...Array(burst).fill("ok"), ...past]);
    expect(unknowns).toEqual([...Array(burst).fill(Code.Unimplemented), ...past]);
    // Another address has buckets of its own.
    expect((await createClient(Health, other).check({ service: "" })).status).toBe(Status.SERVING);
  });
});

describe("one reflection stream of many requests", () => {
  it("takes a token per request and is ended past its address's bound", async () => {
    const reflection = createClient(ServerReflection, transportFrom(limited, "127.0.0.3"));
    const answered: string[] = [];
    const code = await outcome(async () => {
      const answers = reflection.serverReflectionInfo(
        (async function* () {
          for (let i = 0; i < 50; i++) yield { host: "", messageRequest: { case: "listServices", value: "" } };
        })(),
      );
      for await (const answer of answers) answered.push(answer.messageResponse.case ?? "");
    });
    // The stream's first message was counted at its opening, the next `burst - 1` each take one more.
    expect(code).toBe(Code.ResourceExhausted);
    expect(answered).toEqual(Array(burst).fill("listServicesResponse"));
  });
});

describe("health Watch streams of one address", () => {
  it("are held to its share while another address still opens one", async () => {
    const open = (localAddress: string) => {
      const health = createClient(Health, transportFrom(watched, localAddress));
      const abort = new AbortController();
      const seen: Status[] = [];
      const done = (async () => {
        for await (const answer of health.watch({ service: "" }, { signal: abort.signal })) seen.push(answer.status);
      })().catch((error: unknown) => ConnectError.from(error).code);
      return { seen, done, stop: () => abort.abort() };
    };
    const until = async (predicate: () => boolean) => {
      while (!predicate()) await new Promise((r) => setTimeout(r, 10));
    };
    const first = open("127.0.0.2");
    const second = open("127.0.0.2");
    await until(() => first.seen.length > 0 && second.seen.length > 0);
    const third = open("127.0.0.2");
    expect(await third.done).toBe(Code.ResourceExhausted);
    const elsewhere = open("127.0.0.1");
    await until(() => elsewhere.seen.length > 0);
    expect(elsewhere.seen).toEqual([Status.SERVING]);
    for (const watch of [first, second, elsewhere]) watch.stop();
    await Promise.all([first.done, second.done, elsewhere.done]);
  });
});

describe("health Watch streams of one IPv6 /64", () => {
  it("share the default share of the cap, while another /64 still opens one", async () => {
    const health = createClient(Health, createGrpcTransport({ baseUrl: grouped.url }));
    const open = (client: string) => {
      const abort = new AbortController();
      const seen: Status[] = [];
      const done = (async () => {
        const answers = health.watch({ service: "" }, { signal: abort.signal, headers: { "x-forwarded-for": client } });
        for await (const answer of answers) seen.push(answer.status);
      })().catch((error: unknown) => ConnectError.from(error).code);
      return { seen, done, stop: () => abort.abort() };
    };
    const until = async (predicate: () => boolean) => {
      while (!predicate()) await new Promise((r) => setTimeout(r, 10));
    };
    const first = open("2001:db8:0:1::1");
    const second = open("2001:db8:0:1::2");
    await until(() => first.seen.length > 0 && second.seen.length > 0);
    expect(await open("2001:db8:0:1:ffff::3").done).toBe(Code.ResourceExhausted);
    const elsewhere = open("2001:db8:0:2::1");
    await until(() => elsewhere.seen.length > 0);
    expect(elsewhere.seen).toEqual([Status.SERVING]);
    for (const watch of [first, second, elsewhere]) watch.stop();
    await Promise.all([first.done, second.done, elsewhere.done]);
  });
});
