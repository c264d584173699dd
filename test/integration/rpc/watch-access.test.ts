// Watch streams end when their credential may no longer open them, on every
// transport (gRPC with grpc-js, gRPC-Web and Connect with the generated
// client, Server-Sent Events with fetch): at a token's expiry
// UNAUTHENTICATED, and when the key file narrows a key's endpoints or fixed
// parameters PERMISSION_DENIED, within a second; a change that leaves the
// stream's call as it was ends nothing.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueToken, keyDigest } from "../../../src/auth/index.js";
import { GetApiCountsRequestSchema, UsageService } from "../../../src/gen/usage/v1/usage_pb.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";
import { startTestServer, type TestServer } from "../../support/test-server.js";
import { connectWatch, grpcJsWatch, type WatchReader } from "../../support/watch-clients.js";

const secret = "watch-access-secret-0123456789abcdef";
const keys = { wide: "wide-watcher-key-0123456789", fixed: "fixed-watcher-key-0123456789" };
const watchApiCounts = UsageService.method.watchApiCounts;
const request = create(GetApiCountsRequestSchema, { project: "rpc", interval: "hourly" });

let directory: string;
let keysPath: string;
let warehouse: Warehouse;
let server: TestServer;
let client: grpc.Client;

/** The key file: `wide` may call the saved queries named, `fixed` has `project` fixed to `project`. */
function writeKeys(wideEndpoints: string[], project: string): void {
  const file = {
    keys: [
      { id: "wide", sha256: keyDigest(keys.wide), endpoints: wideEndpoints },
      { id: "fixed", sha256: keyDigest(keys.fixed), fixed: { project } },
    ],
  };
  writeFileSync(keysPath, JSON.stringify(file));
}

beforeAll(async () => {
  directory = makeTemporaryDirectory("sqe-watch-access-");
  keysPath = join(directory, "keys.json");
  writeKeys(["usage.api-counts", "logs.all"], "rpc");
  warehouse = await openTestWarehouse();
  await insertScenario(warehouse);
  server = await startTestServer(warehouse, NOW, { keyFile: { path: keysPath, pollMs: 50 }, tokens: { secret } });
  client = new grpc.Client(server.address, grpc.credentials.createInsecure());
});
afterAll(async () => {
  client?.close();
  await server?.close();
  await warehouse?.close();
  removeTemporaryDirectory(directory);
});

/** One stream of WatchApiCounts per transport, with `credential`: the RPC ones and an event stream. */
function openAll(credential: string): { name: string; reader: WatchReader }[] {
  const headers = { "x-api-key": credential };
  return [
    { name: "gRPC", reader: grpcJsWatch(client, UsageService, watchApiCounts, request, { headers }) },
    {
      name: "gRPC-Web",
      reader: connectWatch(
        createGrpcWebTransport({ baseUrl: server.url, httpVersion: "1.1" }),
        UsageService,
        watchApiCounts,
        request,
        { headers },
      ),
    },
    {
      name: "Connect",
      reader: connectWatch(
        createConnectTransport({ baseUrl: server.url, httpVersion: "2" }),
        UsageService,
        watchApiCounts,
        request,
        { headers },
      ),
    },
    { name: "SSE", reader: eventStream(credential) },
  ];
}

/** An event stream of usage.api-counts read with fetch: each `event: result` a message, `event: error` its end. */
function eventStream(credential: string): WatchReader {
  const messages: object[] = [];
  const abort = new AbortController();
  let finish!: (end: { code: Code | 0; message: string }) => void;
  const ended = new Promise<{ code: Code | 0; message: string }>((resolve) => (finish = resolve));
  const codes: Record<string, Code> = {
    unauthenticated: Code.Unauthenticated,
    permission_denied: Code.PermissionDenied,
  };
  void (async () => {
    try {
      const response = await fetch(`${server.url}/api/endpoints/usage.api-counts?project=rpc&interval=hourly`, {
        headers: { "x-api-key": credential, accept: "text/event-stream" },
        signal: abort.signal,
      });
      const decoder = new TextDecoder();
      let text = "";
      const body = response.body!.getReader();
      for (let read = await body.read(); !read.done; read = await body.read()) {
        text += decoder.decode(read.value, { stream: true });
        for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n")) {
          const event = text.slice(0, end);
          text = text.slice(end + 2);
          if (event.startsWith("event: result")) messages.push({});
          if (event.startsWith("event: error")) {
            const error = JSON.parse(event.slice(event.indexOf("data: ") + 6)).error;
            finish({ code: codes[error.code] ?? Code.Unknown, message: error.message });
          }
        }
      }
      finish({ code: 0, message: "" });
    } catch {
      finish({ code: Code.Canceled, message: "" });
    }
  })();
  return {
    messages: messages as never,
    until: async (count, timeoutMs = 5_000) => {
      const until = Date.now() + timeoutMs;
      while (messages.length < count && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      if (messages.length < count) throw new Error(`${messages.length} of ${count} events`);
      return [];
    },
    ended,
    cancel: () => abort.abort(),
  };
}

/** How each stream ended within `ms`: its code, or undefined while it is still open. */
async function endsWithin(streams: { name: string; reader: WatchReader }[], ms: number) {
  const outcome = await Promise.all(
    streams.map(async ({ name, reader }) => {
      const ended = await Promise.race([reader.ended, new Promise<undefined>((r) => setTimeout(r, ms))]);
      return [name, ended?.code] as const;
    }),
  );
  return Object.fromEntries(outcome);
}

const cancelAll = (streams: { reader: WatchReader }[]) => {
  for (const { reader } of streams) reader.cancel();
};

const everyTransport = (code: Code | undefined) => ({ gRPC: code, "gRPC-Web": code, Connect: code, SSE: code });

describe("a watch stream whose credential changes", () => {
  it("ends PERMISSION_DENIED once the key file takes the saved query from the key", async () => {
    const streams = openAll(keys.wide);
    await Promise.all(streams.map(({ reader }) => reader.until(1)));
    writeKeys(["logs.all"], "rpc");
    expect(await endsWithin(streams, 1_000)).toEqual(everyTransport(Code.PermissionDenied));
    cancelAll(streams);
  });

  it("goes on through a change that leaves its call as it was, and ends once its fixed project changes", async () => {
    const streams = openAll(keys.fixed);
    await Promise.all(streams.map(({ reader }) => reader.until(1)));
    writeKeys(["usage.api-counts", "logs.all"], "rpc");
    expect(await endsWithin(streams, 500)).toEqual(everyTransport(undefined));
    writeKeys(["usage.api-counts", "logs.all"], "other");
    expect(await endsWithin(streams, 1_000)).toEqual(everyTransport(Code.PermissionDenied));
    cancelAll(streams);
  });

  it("ends UNAUTHENTICATED at its token's expiry", async () => {
    // The service's clock is pinned at NOW: the token runs out 1.5 s after it, in real time too.
    const token = await issueToken(
      { sub: "watcher", endpoints: ["usage.api-counts"] },
      { secret, ttlSeconds: 2, now: NOW - 500 },
    );
    const streams = openAll(token);
    await Promise.all(streams.map(({ reader }) => reader.until(1)));
    expect(await endsWithin(streams, 2_500)).toEqual(everyTransport(Code.Unauthenticated));
    cancelAll(streams);
  });
});
