// Property-based tests (fast-check) against the real server: random query
// strings, headers and gRPC messages never cause a 5xx or a crash, and every
// 4xx carries a JSON error that says what was wrong.
import * as http2 from "node:http2";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { UsageService } from "../../../src/gen/usage/v1/usage_pb.js";
import { TEST_API_KEY, useScenarioServer, type TestServer } from "../../support/test-server.js";

const scenario = useScenarioServer();
let server: TestServer;
beforeAll(() => {
  server = scenario.server();
});

const names = [
  "project",
  "interval",
  "function_id",
  "project_tier",
  "iso_timestamp_start",
  "iso_timestamp_end",
  "sql",
  "x",
];
const endpoints = [
  "functions.invocation-stats",
  "usage.api-counts",
  "logs.all",
  "query/6b2d9e4f-8a1c-4f3e-b5d7-9e1f3a5c7b9d",
  "nope",
  "..%2f",
  "%E0%A4%A",
];
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    "(",
    "[z-a]",
    ".*",
    "1day",
    "hourly",
    "PRO",
    "2026-11-20",
    "2026-13-40",
    "%",
    "%zz",
    "%E0%A4%A",
    "\u0000",
    "é",
  ),
);
const rawPair = fc.tuple(fc.constantFrom(...names), text).map(([k, v]) => `${k}=${encodeURIComponent(v)}`);
const brokenPair = fc.constantFrom("project=%", "%=x", "project", "=", "&&", "project=a%2", "interval=%ZZ");
const queryString = fc.array(fc.oneof(rawPair, brokenPair), { maxLength: 6 }).map((pairs) => pairs.join("&"));

interface ErrorBody {
  error: { code: string; message: string; details: { field: string; description: string }[] };
}

describe("hostile input, property-based", () => {
  it("answers random GET query strings without a 5xx, every 4xx with a JSON error", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...endpoints), queryString, fc.boolean(), async (endpoint, query, withKey) => {
        const response = await fetch(`${server.url}/api/endpoints/${endpoint}?${query}`, {
          headers: withKey ? { "x-api-key": TEST_API_KEY } : {},
        });
        expect(response.status).toBeLessThan(500);
        if (response.status >= 400) {
          const body = (await response.json()) as ErrorBody;
          expect(body.error.code).toMatch(/^[a-z_]+$/);
          expect(body.error.message.length).toBeGreaterThan(0);
          if (body.error.code === "invalid_argument" && body.error.details.length > 0) {
            // Each problem names its field first: a parameter, or "query" for the query string itself.
            for (const detail of body.error.details) {
              expect(detail.field).toMatch(/^[a-z_]+$/);
              expect(detail.description.startsWith(`${detail.field} `)).toBe(true);
            }
          }
        } else {
          expect(Array.isArray(((await response.json()) as { result: unknown[] }).result)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("answers random header values without a 5xx", async () => {
    const headerValue = fc.string({ maxLength: 60 }).filter((v) => /^[\t\x20-\x7e]*$/.test(v));
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          { "x-api-key": headerValue, authorization: headerValue, "x-request-id": headerValue },
          { requiredKeys: [] },
        ),
        async (headers) => {
          const response = await fetch(`${server.url}/api/endpoints/logs.all?project=rpc`, { headers });
          expect(response.status).toBeLessThan(500);
          if (response.status !== 200)
            expect(((await response.json()) as ErrorBody).error.code).toBe("unauthenticated");
        },
      ),
      { numRuns: 200 },
    );
  });

  it("answers random gRPC request messages without INTERNAL or UNKNOWN", async () => {
    const client = createClient(UsageService, createGrpcTransport({ baseUrl: server.url }));
    const input = UsageService.method.getApiCounts.input;
    await fc.assert(
      fc.asyncProperty(text, text, fc.uint8Array({ maxLength: 40 }), async (project, interval, junk) => {
        // A valid message with random values, and the same bytes with random bytes appended.
        for (const bytes of [toBinary(input, { $typeName: input.typeName, project, interval } as never), junk]) {
          let request: ReturnType<typeof fromBinary<typeof input>>;
          try {
            request = fromBinary(input, bytes);
          } catch {
            continue; // not a message at all: the client cannot send it
          }
          const outcome = await client.getApiCounts(request, { headers: { "x-api-key": TEST_API_KEY } }).then(
            () => Code.Unknown - Code.Unknown, // 0: success
            (e: unknown) => ConnectError.from(e).code,
          );
          expect([0, Code.InvalidArgument]).toContain(outcome);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("answers an RPC call whose :authority is no host (an IPv6 address without brackets) with an error", async () => {
    const session = http2.connect(server.url);
    try {
      const stream = session.request({
        ":method": "POST",
        ":path": `/${UsageService.typeName}/GetApiCounts`,
        ":authority": "fd00::1:80",
        "content-type": "application/json",
        "x-api-key": TEST_API_KEY,
      });
      stream.end('{"project":"p","interval":"hourly"}');
      const [status] = await new Promise<[number]>((resolve) =>
        stream.once("response", (headers) => resolve([Number(headers[":status"])])),
      );
      stream.resume();
      expect(status).toBe(400);
    } finally {
      session.close();
    }
  });

  it("is still serving after all of it", async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
