// The GET body written straight from warehouse rows, held to protobuf-es's
// own proto3 JSON of the row messages built from the same rows (with int64
// read as numbers), for hand-picked and for random rows.
import { create, fromJsonString, toJson, type DescMessage } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rowMessageFromWarehouse } from "../../src/endpoints/row-message.js";
import { responseJsonBytes, timestampJson, timestampJsonFromIso } from "../../src/endpoints/response-json.js";
import type { WarehouseRow } from "../../src/executor/index.js";
import { GetInvocationStatsResponseSchema, InvocationStatsRowSchema } from "../../src/gen/functions/v1/functions_pb.js";
import { GetAllLogsResponseSchema, LogRecordSchema } from "../../src/gen/logs/v1/logs_pb.js";
import { ApiCountsRowSchema, GetApiCountsResponseSchema } from "../../src/gen/usage/v1/usage_pb.js";

/** protobuf-es toJson of the messages the gRPC path builds from `rows`, 64-bit integers as numbers. */
function reference(responseSchema: DescMessage, rowSchema: DescMessage, rows: WarehouseRow[]) {
  const message = create(responseSchema, {
    result: rows.map((row) => rowMessageFromWarehouse(rowSchema, row)),
  } as never);
  const json = toJson(responseSchema, message, { useProtoFieldName: true, alwaysEmitImplicit: true }) as {
    result: Record<string, unknown>[];
  };
  const integers = rowSchema.fields
    .filter((f) => f.fieldKind === "scalar" && (f.scalar === 3 || f.scalar === 4))
    .map((f) => f.name);
  const result = json.result.map((row) =>
    Object.fromEntries(Object.entries(row).map(([k, v]) => [k, integers.includes(k) ? Number(v) : v])),
  );
  // toJson leaves an unset Timestamp out; the body writes every field, an unset Timestamp as null.
  for (const row of result) for (const f of rowSchema.fields) if (!(f.name in row)) row[f.name] = null;
  // As it reads on the wire (where -0 is 0).
  return JSON.parse(JSON.stringify({ result })) as unknown;
}

/** The body's `result`, of rows not cut short. */
const body = (rows: WarehouseRow[], rowSchema: DescMessage) => {
  const truncation = { truncated: false, rowsBeforeLimitAtLeast: rows.length };
  const { result } = JSON.parse(responseJsonBytes(rows, rowSchema, truncation).toString()) as { result: unknown };
  return { result };
};

describe("the body's truncation fields", () => {
  it("are those of the response message's proto3 JSON, the count as a number, and read back into it", () => {
    const bytes = responseJsonBytes([], ApiCountsRowSchema, { truncated: true, rowsBeforeLimitAtLeast: 1234 });
    expect(JSON.parse(bytes.toString())).toEqual({ result: [], truncated: true, rows_before_limit_at_least: 1234 });
    const message = create(GetApiCountsResponseSchema, { truncated: true, rowsBeforeLimitAtLeast: 1234n });
    expect(toJson(GetApiCountsResponseSchema, message, { useProtoFieldName: true })).toEqual({
      truncated: true,
      rows_before_limit_at_least: "1234",
    });
    expect(fromJsonString(GetApiCountsResponseSchema, bytes.toString())).toMatchObject({
      truncated: true,
      rowsBeforeLimitAtLeast: 1234n,
    });
  });

  it("put the next page's token after them", () => {
    const bytes = responseJsonBytes([], LogRecordSchema, { truncated: true, rowsBeforeLimitAtLeast: 101 }, "t");
    expect(bytes.toString()).toBe(
      '{"result":[],"truncated":true,"rows_before_limit_at_least":101,"next_page_token":"t"}',
    );
  });
});

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

describe("timestampJsonFromIso", () => {
  it.each([
    ["2026-11-20T21:59:00Z", "2026-11-20T21:59:00Z"],
    ["2026-11-20T21:59:00.000000Z", "2026-11-20T21:59:00Z"],
    ["2026-11-20T21:59:00.120000Z", "2026-11-20T21:59:00.120Z"],
    ["2026-11-20T21:59:00.123400Z", "2026-11-20T21:59:00.123400Z"],
    ["2026-11-20T21:59:00.1234567Z", "2026-11-20T21:59:00.123456700Z"],
  ])("writes %s as %s", (iso, expected) => {
    expect(timestampJsonFromIso(iso)).toBe(expected);
  });

  it("agrees with the Timestamp of the same text for random instants and precisions", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4_102_444_799 }),
        fc.integer({ min: 0, max: 999_999_999 }),
        fc.integer({ min: 0, max: 9 }),
        (seconds, nanos, digits) => {
          const fraction = digits === 0 ? "" : `.${String(nanos).padStart(9, "0").slice(0, digits)}`;
          const iso = `${new Date(seconds * 1000).toISOString().slice(0, 19)}${fraction}Z`;
          const [, frac = ""] = /\.(\d+)Z$/.exec(iso) ?? [];
          const timestamp = create(TimestampSchema, { seconds: BigInt(seconds), nanos: Number(frac.padEnd(9, "0")) });
          expect(timestampJsonFromIso(iso)).toBe(toJson(TimestampSchema, timestamp));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("responseJsonBytes", () => {
  it("writes invocation stats as proto3 JSON with numbers for counts, zeros and nulls included", () => {
    const rows: WarehouseRow[] = [
      {
        timestamp: "2026-11-20T21:00:00Z",
        min_execution_time: 1.5,
        max_execution_time: 9,
        avg_execution_time: 2.25,
        p95_execution_time: 8,
        p99_execution_time: 8.9,
        count: 12,
        error_count: 0,
      },
      { timestamp: "2026-11-20T22:00:00.000000Z", min_execution_time: null, count: "7" },
      { timestamp: null, avg_execution_time: Number.NaN },
    ];
    const json = body(rows, InvocationStatsRowSchema) as { result: Record<string, unknown>[] };
    expect(json).toEqual(reference(GetInvocationStatsResponseSchema, InvocationStatsRowSchema, rows));
    expect(json.result[1]!.count).toBe(7);
    expect(json.result[2]!.timestamp).toBeNull();
    expect(json.result[2]!.avg_execution_time).toBe("NaN");
  });

  it("writes api counts with every count a number", () => {
    const rows: WarehouseRow[] = [
      {
        timestamp: "2026-11-20T00:00:00Z",
        total_rest_requests: 160,
        total_storage_requests: 103,
        total_auth_requests: 1,
        total_realtime_requests: 0,
      },
      { timestamp: "2026-11-21T00:00:00Z" },
    ];
    expect(body(rows, ApiCountsRowSchema)).toEqual(reference(GetApiCountsResponseSchema, ApiCountsRowSchema, rows));
  });

  it("writes metadata as the stored JSON and microsecond timestamps", () => {
    const metadata = [{ request: [{ path: "/rest/v1/a", method: "GET" }], response: [{ status_code: 200 }] }];
    const rows: WarehouseRow[] = [
      { id: "e1", timestamp: "2026-11-20T21:59:00.789123Z", event_message: "GET", metadata: JSON.stringify(metadata) },
      { id: "e2", timestamp: "2026-11-20T21:59:01.500000Z", event_message: "POST | 201", metadata: "[]" },
      { id: "e3", timestamp: "2026-11-20T21:59:02Z", event_message: null, metadata: null },
    ];
    const json = body(rows, LogRecordSchema) as { result: Record<string, unknown>[] };
    expect(json).toEqual(reference(GetAllLogsResponseSchema, LogRecordSchema, rows));
    expect(json.result[0]!.metadata).toEqual(metadata);
    expect(json.result[2]).toEqual({ id: "e3", timestamp: "2026-11-20T21:59:02Z", event_message: "", metadata: [] });
  });

  it("refuses metadata that is not a JSON array of objects, as the message does", () => {
    const rows: WarehouseRow[] = [
      { id: "e1", timestamp: "2026-11-20T21:59:00Z", event_message: "GET", metadata: '{"not":"an array"}' },
    ];
    expect(() => body(rows, LogRecordSchema)).toThrow(/metadata/);
    expect(() => rowMessageFromWarehouse(LogRecordSchema, rows[0]!)).toThrow(/metadata/);
  });

  it("agrees with the messages for random rows", () => {
    const count = fc.oneof(fc.nat({ max: 2 ** 40 }), fc.constant(null));
    const double = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null));
    const instant = fc
      .integer({ min: 0, max: 4_102_444_799 })
      .chain((s) =>
        fc
          .integer({ min: 0, max: 999_999 })
          .map((micros) => `${new Date(s * 1000).toISOString().slice(0, 19)}.${String(micros).padStart(6, "0")}Z`),
      );
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            timestamp: instant,
            count,
            error_count: count,
            min_execution_time: double,
            p99_execution_time: double,
          }),
          { maxLength: 20 },
        ),
        (rows) => {
          expect(body(rows, InvocationStatsRowSchema)).toEqual(
            reference(GetInvocationStatsResponseSchema, InvocationStatsRowSchema, rows),
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});
