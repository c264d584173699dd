// A call refused at the gate, before its body is read (a caller past its
// rate limit), is answered with the status, message and metadata that
// connect-node's own router writes for the same error: the refusal is
// replayed through a bare connect-node router whose handler throws it, and
// the two answers' status fields are compared on gRPC, gRPC-Web and Connect.
import { createServer, type Http2Server } from "node:http2";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GetApiCountsRequestSchema, UsageService } from "../../../src/gen/usage/v1/usage_pb.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { envelope, exchangeHttp2, type RawAnswer, type RawRequest } from "../../support/raw-exchange.js";
import { NOW } from "../../support/scenario.js";
import { startTestServer, TEST_API_KEY, type TestServer } from "../../support/test-server.js";

let warehouse: Warehouse;
let service: TestServer;
let reference: Http2Server;
let referenceUrl: string;
/** The error the reference router's handler throws: set by each test before its call. */
let thrown: ConnectError = new ConnectError("unset", Code.Internal);

beforeAll(async () => {
  warehouse = await openTestWarehouse();
  // One call a second, a burst of one: the second call in a row is refused from its headers.
  service = await startTestServer(warehouse, NOW, { rateLimit: { perSecond: 0.001, burst: 1 } });
  const routes = (router: ConnectRouter) =>
    router.service(UsageService, {
      getApiCounts: () => {
        throw thrown;
      },
    } as never);
  reference = createServer(connectNodeAdapter({ routes }));
  await new Promise<void>((resolve) => reference.listen(0, "127.0.0.1", resolve));
  const address = reference.address() as { port: number };
  referenceUrl = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  reference?.close();
  await service?.close();
  await warehouse?.close();
});

const path = `/${UsageService.typeName}/${UsageService.method.getApiCounts.name}`;
const message = toBinary(
  GetApiCountsRequestSchema,
  create(GetApiCountsRequestSchema, { project: "p", interval: "hourly" }),
);
const forms: [string, RawRequest][] = [
  [
    "gRPC",
    {
      method: "POST",
      path,
      headers: { "content-type": "application/grpc", te: "trailers" },
      body: envelope(Buffer.from(message)),
    },
  ],
  [
    "gRPC-Web",
    {
      method: "POST",
      path,
      headers: { "content-type": "application/grpc-web+proto" },
      body: envelope(Buffer.from(message)),
    },
  ],
  ["Connect", { method: "POST", path, headers: { "content-type": "application/proto" }, body: Buffer.from(message) }],
];

/** The status fields of an answer, wherever its protocol put them: headers, trailers, gRPC-Web's trailer frame, Connect's JSON. */
function statusOf(answer: RawAnswer): Record<string, string> {
  const fields = new Map([...answer.headers, ...answer.trailers]);
  const frame = answer.body.indexOf(0x80) === 0 ? answer.body.subarray(5).toString() : "";
  for (const line of frame.split("\r\n").filter(Boolean)) {
    const colon = line.indexOf(":");
    fields.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  const pick = [
    "grpc-status",
    "grpc-message",
    "grpc-status-details-bin",
    "retry-after",
    "ratelimit",
    "ratelimit-policy",
  ];
  const status: Record<string, string> = { http: String(answer.status) };
  for (const name of pick) if (fields.has(name)) status[name] = fields.get(name)!;
  if (fields.get("content-type") === "application/json") status.body = answer.body.toString();
  return status;
}

const connectCodes: Record<string, Code> = { resource_exhausted: Code.ResourceExhausted };

/** The ConnectError a refusal's answer names: its code, message and the metadata beside them. */
function errorOf(status: Record<string, string>): ConnectError {
  const json = status.body === undefined ? undefined : (JSON.parse(status.body) as { code: string; message: string });
  // Connect names the code in its JSON; a refusal at the gate here is always resource_exhausted.
  const code = json === undefined ? (Number(status["grpc-status"]) as Code) : connectCodes[json.code]!;
  const text = json?.message ?? decodeURIComponent(status["grpc-message"] ?? "");
  const metadata: Record<string, string> = {};
  for (const name of ["retry-after", "ratelimit", "ratelimit-policy"])
    if (status[name] !== undefined) metadata[name] = status[name]!;
  return new ConnectError(text, code, metadata);
}

describe("a call refused at the gate", () => {
  it.each(forms)("is answered over %s as connect-node's router answers the same error", async (_name, form) => {
    const call = { ...form, headers: { ...form.headers, "x-api-key": TEST_API_KEY } };
    await exchangeHttp2(service.url, call);
    const refused = statusOf(await exchangeHttp2(service.url, call));
    expect(refused["retry-after"]).toBeDefined();
    thrown = errorOf(refused);
    expect(thrown.code).toBe(Code.ResourceExhausted);
    expect(refused).toEqual(statusOf(await exchangeHttp2(referenceUrl, form)));
  });
});
