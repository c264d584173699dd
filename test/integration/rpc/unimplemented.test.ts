// Calls of a service or method the port does not serve: every RPC client gets
// UNIMPLEMENTED in its own protocol, while plain HTTP keeps the GET API's 404.
import { connect as connectHttp2, constants as http2 } from "node:http2";
import { create, createFileRegistry, type DescService, type Message } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allClients, type RpcClient } from "../../support/rpc-clients.js";
import { TEST_API_KEY, useScenarioServer } from "../../support/test-server.js";

const { server } = useScenarioServer();
let clients: RpcClient[];
beforeAll(() => {
  clients = allClients(server().url, server().address);
});
afterAll(() => {
  for (const client of clients ?? []) client.close();
});

// Services the server does not have: one unknown, and a served one with a method it lacks.
const empty = { name: "Empty" };
const nopeFile = create(FileDescriptorProtoSchema, {
  name: "nope/v1/nope.proto",
  package: "nope.v1",
  syntax: "proto3",
  messageType: [empty],
  service: [
    { name: "NopeService", method: [{ name: "Call", inputType: ".nope.v1.Empty", outputType: ".nope.v1.Empty" }] },
  ],
});
const otherFunctionsFile = create(FileDescriptorProtoSchema, {
  name: "other/functions.proto",
  package: "functions.v1",
  syntax: "proto3",
  dependency: ["nope/v1/nope.proto"],
  service: [
    { name: "FunctionsService", method: [{ name: "Nope", inputType: ".nope.v1.Empty", outputType: ".nope.v1.Empty" }] },
  ],
});
const registry = createFileRegistry(otherFunctionsFile, (name) => (name === nopeFile.name ? nopeFile : undefined));
const nopeService = registry.getService("nope.v1.NopeService")!;
const functionsWithNope = registry.getService("functions.v1.FunctionsService")!;

async function callOf(client: RpcClient, service: DescService) {
  const method = service.methods[0]!;
  return client.call(service, method, create(method.input) as Message, { headers: { "x-api-key": TEST_API_KEY } });
}

describe.each(["connect", "connect over h2c", "grpc", "grpc-web", "@grpc/grpc-js"])("over %s", (name) => {
  const client = () => clients.find((c) => c.name === name)!;

  it("answers UNIMPLEMENTED for an unknown service", async () => {
    expect(await callOf(client(), nopeService)).toEqual({
      ok: false,
      code: Code.Unimplemented,
      message: "unknown service nope.v1.NopeService",
      fields: [],
    });
  });

  it("answers UNIMPLEMENTED for an unknown method of a served service", async () => {
    expect(await callOf(client(), functionsWithNope)).toEqual({
      ok: false,
      code: Code.Unimplemented,
      message: "unknown method Nope of service functions.v1.FunctionsService",
      fields: [],
    });
  });
});

describe("on the wire", () => {
  it("answers gRPC with a trailers-only response: HTTP 200 and grpc-status 12 in headers that end the stream", async () => {
    const session = connectHttp2(server().url);
    try {
      const stream = session.request({
        ":method": "POST",
        ":path": "/nope.v1.NopeService/Call",
        "content-type": "application/grpc",
        te: "trailers",
      });
      stream.end(Buffer.alloc(5));
      const [headers, flags] = await new Promise<[Record<string, unknown>, number]>((resolve) =>
        stream.once("response", (h, f) => resolve([h as Record<string, unknown>, f])),
      );
      let body = 0;
      stream.on("data", (chunk: Buffer) => (body += chunk.length));
      await new Promise((resolve) => stream.once("close", resolve));
      expect({
        status: headers[":status"],
        grpcStatus: headers["grpc-status"],
        // Percent-encoded as gRPC asks, the way connect-node's router encodes it.
        message: decodeURIComponent(headers["grpc-message"] as string),
        endsStream: (flags & http2.NGHTTP2_FLAG_END_STREAM) !== 0,
        body,
      }).toEqual({
        status: 200,
        grpcStatus: "12",
        message: "unknown service nope.v1.NopeService",
        endsStream: true,
        body: 0,
      });
    } finally {
      session.close();
    }
  });

  it("answers gRPC-Web with HTTP 200 and grpc-status 12", async () => {
    const response = await fetch(`${server().url}/nope.v1.NopeService/Call`, {
      method: "POST",
      headers: { "content-type": "application/grpc-web+proto" },
      body: new Uint8Array(5),
    });
    expect([
      response.status,
      response.headers.get("grpc-status"),
      response.headers.get("content-type"),
      await response.text(),
    ]).toEqual([200, "12", "application/grpc-web+proto", ""]);
  });

  it.each([
    ["a Connect POST", "POST", "/nope.v1.NopeService/Call", "{}"],
    ["a Connect GET", "GET", "/nope.v1.NopeService/Call?connect=v1&encoding=json&message=%7B%7D", undefined],
  ])("answers %s with Connect's unimplemented error and HTTP 501", async (_, method, path, body) => {
    const response = await fetch(`${server().url}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body,
    });
    expect([response.status, await response.json()]).toEqual([
      501,
      { code: "unimplemented", message: "unknown service nope.v1.NopeService" },
    ]);
  });

  it("ends a Connect stream with an unimplemented end-of-stream message", async () => {
    const response = await fetch(`${server().url}/nope.v1.NopeService/Call`, {
      method: "POST",
      headers: { "content-type": "application/connect+json" },
      body: new Uint8Array(5),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    const json = '{"error":{"code":"unimplemented","message":"unknown service nope.v1.NopeService"}}';
    expect([response.status, bytes[0], bytes.readUInt32BE(1), bytes.subarray(5).toString()]).toEqual([
      200,
      0b10,
      json.length,
      json,
    ]);
  });

  it.each([
    ["GET /nope", "GET", "/nope", undefined, 404, "not_found"],
    ["POST /nope without an RPC content type", "POST", "/nope", "text/plain", 404, "not_found"],
    ["GET of an unknown endpoint", "GET", "/api/endpoints/nope", undefined, 404, "not_found"],
    ["a Connect-looking POST under /api/", "POST", "/api/endpoints/logs.all", "application/json", 405, "unimplemented"],
  ])("keeps the plain HTTP answer for %s", async (_, method, path, contentType, status, code) => {
    const response = await fetch(`${server().url}${path}`, {
      method,
      headers: { "x-api-key": TEST_API_KEY, ...(contentType === undefined ? {} : { "content-type": contentType }) },
      body: method === "POST" ? "{}" : undefined,
    });
    expect([response.status, ((await response.json()) as { error: { code: string } }).error.code]).toEqual([
      status,
      code,
    ]);
  });
});
