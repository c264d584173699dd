// gRPC server reflection (v1 and v1alpha) on the real server, with the
// generated Connect client over gRPC, with @grpc/grpc-js, and with the
// npm-shipped `buf curl`, which finds every schema through reflection.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { create, createFileRegistry, fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, FileDescriptorSetSchema, type FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import {
  ServerReflection,
  ServerReflectionRequestSchema,
  ServerReflectionResponseSchema,
  type ServerReflectionResponse,
} from "../../../src/gen/grpc/reflection/v1/reflection_pb.js";
import {
  ServerReflection as ServerReflectionV1Alpha,
  ServerReflectionRequestSchema as RequestV1AlphaSchema,
  ServerReflectionResponseSchema as ResponseV1AlphaSchema,
} from "../../../src/gen/grpc/reflection/v1alpha/reflection_pb.js";
import { expectedLogIds } from "../../support/scenario.js";
import { TEST_API_KEY, useScenarioServer } from "../../support/test-server.js";

const { server } = useScenarioServer();

type RequestInit = Parameters<typeof create<typeof ServerReflectionRequestSchema>>[1];

/** One reflection stream over the generated client (gRPC, HTTP/2): the requests in order, their answers. */
async function reflect(version: "v1" | "v1alpha", requests: RequestInit[]): Promise<ServerReflectionResponse[]> {
  const transport = createGrpcTransport({ baseUrl: server().url });
  const answers: ServerReflectionResponse[] = [];
  if (version === "v1") {
    const client = createClient(ServerReflection, transport);
    const input = (async function* () {
      yield* requests.map((r) => create(ServerReflectionRequestSchema, r));
    })();
    for await (const answer of client.serverReflectionInfo(input)) answers.push(answer);
  } else {
    // The same bytes as v1 on the wire; read back as v1 to compare alike.
    const client = createClient(ServerReflectionV1Alpha, transport);
    const input = (async function* () {
      yield* requests.map((r) =>
        fromBinary(
          RequestV1AlphaSchema,
          toBinary(ServerReflectionRequestSchema, create(ServerReflectionRequestSchema, r)),
        ),
      );
    })();
    for await (const answer of client.serverReflectionInfo(input)) {
      answers.push(fromBinary(ServerReflectionResponseSchema, toBinary(ResponseV1AlphaSchema, answer)));
    }
  }
  return answers;
}

function filesOf(answer: ServerReflectionResponse | undefined): FileDescriptorProto[] {
  if (answer?.messageResponse.case !== "fileDescriptorResponse")
    throw new Error(`expected files, got ${answer?.messageResponse.case}`);
  return answer.messageResponse.value.fileDescriptorProto.map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes));
}

const servedServices = [
  "functions.v1.FunctionsService",
  "usage.v1.UsageService",
  "logs.v1.LogsService",
  "calls.v1.CallsService",
  "grpc.health.v1.Health",
  "grpc.reflection.v1.ServerReflection",
  "grpc.reflection.v1alpha.ServerReflection",
];

describe.each(["v1", "v1alpha"] as const)("reflection %s", (version) => {
  it("lists the saved-query services, health and both reflection versions, without a key", async () => {
    const [answer] = await reflect(version, [{ host: "h", messageRequest: { case: "listServices", value: "" } }]);
    expect(answer?.validHost).toBe("h");
    expect(answer?.messageResponse.case).toBe("listServicesResponse");
    const names =
      answer?.messageResponse.case === "listServicesResponse"
        ? answer.messageResponse.value.service.map((s) => s.name)
        : [];
    expect(names).toEqual(servedServices);
  });

  it("answers a service symbol with its file and every dependency, which parse back into the service", async () => {
    const [answer] = await reflect(version, [
      { messageRequest: { case: "fileContainingSymbol", value: "functions.v1.FunctionsService" } },
    ]);
    const files = filesOf(answer);
    expect(files.map((f) => f.name)).toEqual([
      "functions/v1/functions.proto",
      "endpoints/v1/endpoint_options.proto",
      "google/protobuf/descriptor.proto",
      "google/protobuf/timestamp.proto",
    ]);
    // A descriptor set lists dependencies before the files importing them.
    const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: [...files].reverse() }));
    const service = registry.getService("functions.v1.FunctionsService")!;
    expect(service.methods.map((m) => [m.name, m.methodKind, m.input.typeName])).toEqual([
      ["GetInvocationStats", "unary", "functions.v1.GetInvocationStatsRequest"],
      ["WatchInvocationStats", "server_streaming", "functions.v1.GetInvocationStatsRequest"],
    ]);
    expect((service.methods[0]!.input as DescMessage).fields.map((f) => f.name)).toEqual([
      "project",
      "function_id",
      "interval",
    ]);
  });

  it("answers a file name, a method symbol and an extension with the file that declares it", async () => {
    const answers = await reflect(version, [
      { messageRequest: { case: "fileByFilename", value: "logs/v1/logs.proto" } },
      { messageRequest: { case: "fileContainingSymbol", value: "usage.v1.UsageService.GetApiCounts" } },
      {
        messageRequest: {
          case: "fileContainingExtension",
          value: { containingType: "google.protobuf.MethodOptions", extensionNumber: 51001 },
        },
      },
    ]);
    // Files already sent on the stream are not sent again; the asked file always is.
    expect(answers.map((a) => filesOf(a).map((f) => f.name))).toEqual([
      [
        "logs/v1/logs.proto",
        "endpoints/v1/endpoint_options.proto",
        "google/protobuf/descriptor.proto",
        "google/protobuf/struct.proto",
        "google/protobuf/timestamp.proto",
      ],
      ["usage/v1/usage.proto"],
      ["endpoints/v1/endpoint_options.proto"],
    ]);
  });

  it("lists the extension numbers of a type", async () => {
    const [answer] = await reflect(version, [
      { messageRequest: { case: "allExtensionNumbersOfType", value: "google.protobuf.FieldOptions" } },
    ]);
    expect(answer?.messageResponse).toEqual(
      expect.objectContaining({
        case: "allExtensionNumbersResponse",
        // The parameter rules (51001) and the personal-data mark (51002).
        value: expect.objectContaining({
          baseTypeName: "google.protobuf.FieldOptions",
          extensionNumber: [51001, 51002],
        }),
      }),
    );
  });

  it("answers an unknown symbol with a NOT_FOUND error response and keeps the stream open", async () => {
    const answers = await reflect(version, [
      { messageRequest: { case: "fileContainingSymbol", value: "nope.v1.Nothing" } },
      { messageRequest: { case: "fileByFilename", value: "nope.proto" } },
      { messageRequest: { case: "listServices", value: "" } },
    ]);
    expect(answers.map((a) => a.messageResponse.case)).toEqual([
      "errorResponse",
      "errorResponse",
      "listServicesResponse",
    ]);
    expect(answers[0]?.messageResponse.value).toEqual(
      expect.objectContaining({
        errorCode: 5,
        errorMessage: "file_containing_symbol: no symbol named nope.v1.Nothing",
      }),
    );
    expect(answers[1]?.messageResponse.value).toEqual(
      expect.objectContaining({ errorCode: 5, errorMessage: "file_by_filename: no file named nope.proto" }),
    );
  });
});

describe("the GET API's documents", () => {
  it("leave reflection and health out of the listing and the OpenAPI document", async () => {
    const listing = (await (
      await fetch(`${server().url}/api/endpoints`, { headers: { "x-api-key": TEST_API_KEY } })
    ).json()) as {
      result: { grpc_method: string }[];
    };
    expect(listing.result.map((e) => e.grpc_method).sort()).toEqual([
      "calls.v1.CallsService/GetCallStats",
      "functions.v1.FunctionsService/GetInvocationStats",
      "logs.v1.LogsService/GetAllLogs",
      "usage.v1.UsageService/GetApiCounts",
      "usage.v1.UsageService/GetApiCountsV2",
    ]);
    const openapi = await (await fetch(`${server().url}/openapi.json`)).text();
    expect(openapi).not.toMatch(/grpc\.(health|reflection)|ServerReflection/);
  });
});

describe("reflection over @grpc/grpc-js", () => {
  it("lists the services on a bidirectional stream", async () => {
    const client = new grpc.Client(server().address, grpc.credentials.createInsecure());
    try {
      const call = client.makeBidiStreamRequest(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        (m: ReturnType<typeof create<typeof ServerReflectionRequestSchema>>) =>
          Buffer.from(toBinary(ServerReflectionRequestSchema, m)),
        (b: Buffer) => fromBinary(ServerReflectionResponseSchema, b),
      );
      const answers: ServerReflectionResponse[] = [];
      call.on("data", (answer: ServerReflectionResponse) => answers.push(answer));
      const ended = new Promise<void>((resolve, reject) => {
        call.on("end", resolve);
        call.on("error", reject);
      });
      call.write(create(ServerReflectionRequestSchema, { messageRequest: { case: "listServices", value: "*" } }));
      call.end();
      await ended;
      expect(
        answers.map((a) =>
          a.messageResponse.case === "listServicesResponse" ? a.messageResponse.value.service.map((s) => s.name) : [],
        ),
      ).toEqual([servedServices]);
    } finally {
      client.close();
    }
  });
});

describe("buf curl without --schema", () => {
  const buf = join(import.meta.dirname, "../../../node_modules/.bin/buf");
  const run = promisify(execFile);
  const curl = async (...args: string[]) =>
    (await run(buf, ["curl", "--protocol", "grpc", "--http2-prior-knowledge", ...args], { timeout: 60_000 })).stdout;

  it("lists the services and the methods of one", async () => {
    expect((await curl("--list-services", server().url)).trim().split("\n")).toEqual([...servedServices].sort());
    const methods = (await curl("--list-methods", server().url)).trim().split("\n");
    expect(methods.sort()).toEqual(
      [
        "functions.v1.FunctionsService/GetInvocationStats",
        "usage.v1.UsageService/GetApiCounts",
        "usage.v1.UsageService/GetApiCountsV2",
        "logs.v1.LogsService/GetAllLogs",
        "calls.v1.CallsService/GetCallStats",
        "functions.v1.FunctionsService/WatchInvocationStats",
        "usage.v1.UsageService/WatchApiCounts",
        "usage.v1.UsageService/WatchApiCountsV2",
        "logs.v1.LogsService/WatchAllLogs",
        "calls.v1.CallsService/WatchCallStats",
        "grpc.health.v1.Health/Check",
        "grpc.health.v1.Health/List",
        "grpc.health.v1.Health/Watch",
        "grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        "grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
      ].sort(),
    );
  });

  it("calls a saved query with a key and gets its rows", async () => {
    const out = await curl(
      "-H",
      `x-api-key: ${TEST_API_KEY}`,
      "-d",
      '{"project":"rpc"}',
      `${server().url}/logs.v1.LogsService/GetAllLogs`,
    );
    expect((JSON.parse(out) as { result: { id: string }[] }).result.map((r) => r.id)).toEqual([...expectedLogIds]);
  });

  it("checks health without a key", async () => {
    expect(JSON.parse(await curl("-d", '{"service":""}', `${server().url}/grpc.health.v1.Health/Check`))).toEqual({
      status: "SERVING",
    });
  });
});
