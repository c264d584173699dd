// The GET body written from row messages: checked against protobuf-es's own
// proto3 JSON for the same messages, with int64 read as numbers.
import { create, toJson, type DescMessage } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { responseJsonBytes, timestampJson } from "../../src/endpoints/response-json.js";
import { GetInvocationStatsResponseSchema, InvocationStatsRowSchema } from "../../src/gen/functions/v1/functions_pb.js";
import { GetAllLogsResponseSchema, LogRecordSchema } from "../../src/gen/logs/v1/logs_pb.js";

describe("timestampJson", () => {
  it.each([
    [1_795_091_696n, 0],
    [1_795_091_696n, 789_000_000],
    [1_795_091_696n, 789_123_000],
    [1_795_091_696n, 789_123_456],
    [0n, 1],
  ])("writes %s s + %i ns as protobuf-es toJson does", (seconds, nanos) => {
    const timestamp = create(TimestampSchema, { seconds, nanos });
    expect(timestampJson(timestamp)).toBe(toJson(TimestampSchema, timestamp));
  });
});

describe("responseJsonBytes", () => {
  function reference(schema: DescMessage, rowSchema: DescMessage, message: never) {
    const json = toJson(schema, message, { useProtoFieldName: true, alwaysEmitImplicit: true }) as { result: Record<string, unknown>[] };
    const integers = rowSchema.fields.filter((f) => f.fieldKind === "scalar" && (f.scalar === 3 || f.scalar === 4)).map((f) => f.name);
    return { result: json.result.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, integers.includes(k) ? Number(v) : v]))) };
  }

  it("matches proto3 JSON with numbers for counts, zeros included", () => {
    const message = create(GetInvocationStatsResponseSchema, {
      result: [
        { timestamp: { seconds: 1_795_089_600n, nanos: 0 }, minExecutionTime: 1.5, avgExecutionTime: 2.25, count: 12n, errorCount: 0n },
        { timestamp: { seconds: 1_795_093_200n, nanos: 0 } },
      ],
    });
    const body = JSON.parse(responseJsonBytes(message, InvocationStatsRowSchema).toString());
    expect(body).toEqual(reference(GetInvocationStatsResponseSchema, InvocationStatsRowSchema, message as never));
    expect(body.result[1].count).toBe(0);
  });

  it("writes metadata as the stored JSON and microsecond timestamps", () => {
    const metadata = [{ request: [{ path: "/rest/v1/a", method: "GET" }], response: [{ status_code: 200 }] }];
    const message = create(GetAllLogsResponseSchema, {
      result: [{ id: "e1", eventMessage: "GET", timestamp: { seconds: 1_795_091_696n, nanos: 789_123_000 }, metadata }],
    });
    const body = JSON.parse(responseJsonBytes(message, LogRecordSchema).toString());
    expect(body).toEqual(reference(GetAllLogsResponseSchema, LogRecordSchema, message as never));
    expect(body.result[0].metadata).toEqual(metadata);
  });
});
