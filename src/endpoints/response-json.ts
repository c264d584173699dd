// The JSON body of a successful GET: {"result": [rows], "truncated",
// "rows_before_limit_at_least"} written straight from
// the warehouse rows, field by field from the row schema, as proto3 JSON
// would write the row messages (proto field names, every field present,
// timestamps as RFC 3339 UTC strings, metadata as the stored JSON array), but
// with 64-bit integers as JSON numbers (docs/http-api.md, Success).
//
// GET callers never need the row messages, so their path builds none, which
// makes a miss cheaper (docs/performance.md has the figures).
// test/unit/response-json.test.ts holds this to protobuf-es toJson of the
// messages rowMessageFromWarehouse builds from the same rows.
import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { StructSchema, TimestampSchema } from "@bufbuild/protobuf/wkt";
import type { Truncation, WarehouseRow } from "../executor/index.js";
import { readJsonObjects, timestampFromIso } from "./row-message.js";

type Writer = (value: unknown) => unknown;

const writers = new WeakMap<DescMessage, [string, Writer][]>();

/**
 * Serialises `rows` (warehouse rows of `rowSchema` messages), whether they
 * were cut short, and a next page's token if any, to the bytes of the body.
 */
export function responseJsonBytes(
  rows: readonly WarehouseRow[],
  rowSchema: DescMessage,
  truncation: Truncation,
  nextPageToken?: string,
): Buffer {
  let fields = writers.get(rowSchema);
  if (fields === undefined) {
    fields = rowSchema.fields.map((f) => [f.name, writerFor(f)]);
    writers.set(rowSchema, fields);
  }
  const result = rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const [name, write] of fields) out[name] = write(row[name]);
    return out;
  });
  const body = {
    result,
    truncated: truncation.truncated,
    rows_before_limit_at_least: truncation.rowsBeforeLimitAtLeast,
  };
  return Buffer.from(JSON.stringify(nextPageToken === undefined ? body : { ...body, next_page_token: nextPageToken }));
}

function writerFor(field: DescField): Writer {
  if (field.fieldKind === "scalar") {
    switch (field.scalar) {
      case ScalarType.INT64:
      case ScalarType.UINT64:
        // Counts are far below 2^53, so the number is exact; BigInt refuses what the message would refuse.
        return (value) => (value == null ? 0 : Number.isSafeInteger(value) ? value : Number(BigInt(value as string)));
      case ScalarType.DOUBLE:
      case ScalarType.FLOAT:
        // proto3 JSON writes NaN and the infinities as strings.
        return (value) => {
          const n = value == null ? 0 : Number(value);
          return Number.isFinite(n) ? n : String(n);
        };
      case ScalarType.INT32:
      case ScalarType.UINT32:
        return (value) => (value == null ? 0 : Number(value));
      case ScalarType.STRING:
        return (value) => (value == null ? "" : String(value));
      case ScalarType.BOOL:
        return (value) => value === true || value === 1 || value === "1" || value === "true";
    }
  }
  if (field.fieldKind === "message" && field.message.typeName === TimestampSchema.typeName) {
    return (value) => (value == null ? null : timestampJsonFromIso(String(value)));
  }
  if (field.fieldKind === "list" && field.listKind === "message" && field.message.typeName === StructSchema.typeName) {
    return (value) => (value == null ? [] : readJsonObjects(field, value));
  }
  throw new Error(`no JSON writer for ${field.parent.typeName}.${field.name}`);
}

const isoInstant = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/;

/**
 * ClickHouse's ISO text (`2026-11-20T21:59:00.123000Z`) as proto3 JSON writes
 * the Timestamp it stands for: 0, 3, 6 or 9 fractional digits.
 */
export function timestampJsonFromIso(text: string): string {
  const match = isoInstant.exec(text);
  if (match === null) return timestampJson(timestampFromIso(text));
  const base = match[1]!;
  const digits = (match[2] ?? "").padEnd(9, "0");
  if (digits === "000000000") return `${base}Z`;
  if (digits.endsWith("000000")) return `${base}.${digits.slice(0, 3)}Z`;
  if (digits.endsWith("000")) return `${base}.${digits.slice(0, 6)}Z`;
  return `${base}.${digits}Z`;
}

/** RFC 3339 in UTC with 0, 3, 6 or 9 fractional digits, as proto3 JSON writes a Timestamp. */
export function timestampJson(timestamp: { seconds: bigint; nanos: number }): string {
  const base = new Date(Number(timestamp.seconds) * 1000).toISOString().slice(0, 19);
  const nanos = timestamp.nanos;
  if (nanos === 0) return `${base}Z`;
  const digits = String(nanos).padStart(9, "0");
  if (nanos % 1_000_000 === 0) return `${base}.${digits.slice(0, 3)}Z`;
  if (nanos % 1_000 === 0) return `${base}.${digits.slice(0, 6)}Z`;
  return `${base}.${digits}Z`;
}
