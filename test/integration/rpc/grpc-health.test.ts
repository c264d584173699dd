// The gRPC health protocol on the real server across a warehouse outage: the
// embedded engine's directory is held by another process at first, so the
// service is not ready; the holder then lets go and the engine opens.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { ClickHouseClient } from "@clickhouse/client";
import { Code, type ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Health,
  HealthCheckRequestSchema,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus as Status,
  type HealthCheckResponse,
  type HealthListResponse,
} from "../../../src/gen/grpc/health/v1/health_pb.js";
import { silentLogger } from "../../../src/observability/index.js";
import { createReopeningClient, openWarehouse, type Warehouse } from "../../../src/warehouse/index.js";
import { allClients, type RpcClient } from "../../support/rpc-clients.js";
import { NOW } from "../../support/scenario.js";
import { startTestServer, type TestServer } from "../../support/test-server.js";

const dataDir = mkdtempSync(join(tmpdir(), "sqe-health-"));
let holder: ChildProcess | undefined;
let warehouse: Warehouse;
let server: TestServer;
let clients: RpcClient[];

beforeAll(async () => {
  holder = spawn(process.execPath, [join(import.meta.dirname, "../../support/hold-data-directory.mjs"), dataDir], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  await new Promise<void>((resolve) => holder!.stdout!.once("data", () => resolve()));
  const client = createReopeningClient({
    open: async () =>
      (await openWarehouse({ kind: "embedded", path: dataDir, database: "default" })).client as ClickHouseClient,
    logger: silentLogger,
    retryMs: 100,
  });
  warehouse = { client, kind: "embedded", location: dataDir, close: () => client.close() };
  server = await startTestServer(warehouse, NOW, { healthPollMs: 20, readinessReuseMs: 0 });
  clients = allClients(server.url, server.address);
});
afterAll(async () => {
  for (const client of clients ?? []) client.close();
  await server?.close();
  await warehouse?.close();
  if (holder !== undefined && holder.exitCode === null) {
    holder.kill("SIGTERM");
    await new Promise((resolve) => holder!.once("exit", resolve));
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const check = (service: string) => ({
  service: Health,
  method: Health.method.check,
  request: create(HealthCheckRequestSchema, { service }),
});

async function statusOver(client: RpcClient, service: string): Promise<Status | Code> {
  const c = check(service);
  const outcome = await client.call(c.service, c.method, c.request); // no key
  return outcome.ok ? (outcome.message as HealthCheckResponse).status : outcome.code;
}

/** A Watch over the generated client on gRPC: every status it streams, until `stop`. */
function watchOverConnect(service: string) {
  const abort = new AbortController();
  const seen: Status[] = [];
  const health = createClient(Health, createGrpcTransport({ baseUrl: server.url }));
  const done = (async () => {
    for await (const answer of health.watch({ service }, { signal: abort.signal })) seen.push(answer.status);
  })().catch((error: unknown) => (abort.signal.aborted ? undefined : Promise.reject(error)));
  return { seen, stop: () => abort.abort(), done };
}

/** A Watch over @grpc/grpc-js: every status it streams, until `stop`. */
function watchOverGrpcJs(service: string) {
  const client = new grpc.Client(server.address, grpc.credentials.createInsecure());
  const seen: Status[] = [];
  const call = client.makeServerStreamRequest(
    "/grpc.health.v1.Health/Watch",
    (m: ReturnType<typeof create<typeof HealthCheckRequestSchema>>) =>
      Buffer.from(toBinary(HealthCheckRequestSchema, m)),
    (b: Buffer) => fromBinary(HealthCheckResponseSchema, b),
    create(HealthCheckRequestSchema, { service }),
  );
  call.on("data", (answer: HealthCheckResponse) => seen.push(answer.status));
  const ended = new Promise<void>((resolve) => call.on("close", resolve));
  call.on("error", () => {});
  return {
    seen,
    ended,
    stop: () => {
      call.cancel();
      client.close();
    },
  };
}

async function until(predicate: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const clientNames = ["connect", "connect over h2c", "grpc", "grpc-web", "@grpc/grpc-js"];

describe("while the warehouse is down", () => {
  it.each(clientNames)("answers NOT_SERVING to Check over %s, as /readyz answers 503", async (name) => {
    expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
    expect(await statusOver(clients.find((c) => c.name === name)!, "")).toBe(Status.NOT_SERVING);
  });
});

describe("across the warehouse coming back", () => {
  it("streams NOT_SERVING then SERVING to every Watch, once each", async () => {
    const connectWatch = watchOverConnect("");
    const grpcJsWatch = watchOverGrpcJs("functions.v1.FunctionsService");
    await until(() => connectWatch.seen.length > 0 && grpcJsWatch.seen.length > 0, "the first status");
    // Some polls while nothing changes: none of them is streamed.
    await new Promise((r) => setTimeout(r, 200));
    expect([connectWatch.seen, grpcJsWatch.seen]).toEqual([[Status.NOT_SERVING], [Status.NOT_SERVING]]);

    holder!.kill("SIGTERM");
    await new Promise((resolve) => holder!.once("exit", resolve));
    await until(() => connectWatch.seen.length > 1 && grpcJsWatch.seen.length > 1, "SERVING");
    await new Promise((r) => setTimeout(r, 200));
    expect([connectWatch.seen, grpcJsWatch.seen]).toEqual([
      [Status.NOT_SERVING, Status.SERVING],
      [Status.NOT_SERVING, Status.SERVING],
    ]);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    connectWatch.stop();
    grpcJsWatch.stop();
    await Promise.all([connectWatch.done, grpcJsWatch.ended]);
  });
});

describe("once the warehouse answers", () => {
  it.each(clientNames)(
    "answers Check over %s for the server and each saved-query service, NOT_FOUND for others, without a key",
    async (name) => {
      const client = clients.find((c) => c.name === name)!;
      const statuses = [];
      for (const service of [
        "",
        "functions.v1.FunctionsService",
        "usage.v1.UsageService",
        "logs.v1.LogsService",
        "nope.v1.Nope",
      ]) {
        statuses.push(await statusOver(client, service));
      }
      expect(statuses).toEqual([Status.SERVING, Status.SERVING, Status.SERVING, Status.SERVING, Code.NotFound]);
    },
  );

  it("lists the status of every service it knows", async () => {
    const health = createClient(Health, createGrpcTransport({ baseUrl: server.url }));
    const list: HealthListResponse = await health.list({});
    expect(Object.fromEntries(Object.entries(list.statuses).map(([name, r]) => [name, r.status]))).toEqual({
      "": Status.SERVING,
      "functions.v1.FunctionsService": Status.SERVING,
      "usage.v1.UsageService": Status.SERVING,
      "logs.v1.LogsService": Status.SERVING,
      "calls.v1.CallsService": Status.SERVING,
    });
  });

  it("sends SERVICE_UNKNOWN to a Watch of an unknown service and keeps the call open", async () => {
    const watch = watchOverGrpcJs("nope.v1.Nope");
    await until(() => watch.seen.length > 0, "the first status");
    let ended = false;
    void watch.ended.then(() => (ended = true));
    await new Promise((r) => setTimeout(r, 100));
    expect([watch.seen, ended]).toEqual([[Status.SERVICE_UNKNOWN], false]);
    watch.stop();
  });

  it("sends NOT_SERVING and ends every Watch when the service shuts down", async () => {
    const watch = watchOverConnect("");
    await until(() => watch.seen.length > 0, "the first status");
    server.app.endStreams();
    await watch.done;
    expect(watch.seen).toEqual([Status.SERVING, Status.NOT_SERVING]);
  });
});

describe("the bound on open Watch calls", () => {
  let bounded: TestServer;
  beforeAll(async () => {
    bounded = await startTestServer(warehouse, NOW, {
      healthPollMs: 20,
      maxHealthWatches: 2,
      maxHealthWatchesPerAddress: 2,
    });
  });
  afterAll(() => bounded?.close());

  it("refuses a third Watch while two are open, and admits one again once one ends", async () => {
    const health = createClient(Health, createGrpcTransport({ baseUrl: bounded.url }));
    const open = () => {
      const abort = new AbortController();
      const seen: Status[] = [];
      const done = (async () => {
        for await (const answer of health.watch({ service: "" }, { signal: abort.signal })) seen.push(answer.status);
      })().catch(() => {});
      return { seen, done, stop: () => abort.abort() };
    };
    const first = open();
    const second = open();
    await until(() => first.seen.length > 0 && second.seen.length > 0, "two open watches");
    const third = await (async () => {
      for await (const answer of health.watch({ service: "" })) return answer;
      return "ended";
    })().catch((error: unknown) => error);
    expect((third as ConnectError).code).toBe(Code.ResourceExhausted);
    first.stop();
    await first.done;
    await new Promise((r) => setTimeout(r, 50));
    const fourth = open();
    await until(() => fourth.seen.length > 0, "a watch after one ended");
    second.stop();
    fourth.stop();
    await Promise.all([second.done, fourth.done]);
  });
});
