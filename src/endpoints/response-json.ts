// The JSON body of a successful GET: {"result": [rows]} with the proto field
// names (snake_case), every field present, 64-bit integers as JSON numbers,
// timestamps as RFC 3339 UTC strings (as proto3 JSON writes a
// google.protobuf.Timestamp) and metadata as the stored JSON array.
//
// Written field by field from the row schema rather than through protobuf-es
// toJson plus a pass over int64 strings: the miss path serialises up to 1000
// rows per call, and reflection per value is what it would spend its time on.
import { ScalarType, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import type { Timestamp } from "@bufbuild/protobuf/wkt";

type Writer = (value: unknown) => unknown;

const writers = new WeakMap<DescMessage, [string, string, Writer][]>();

/** Serialises `response` (a `{ result: [rows] }` message of `rowSchema` rows) to the bytes of the body. */
export function responseJsonBytes(response: Message, rowSchema: DescMessage): Buffer {
  let fields = writers.get(rowSchema);
  if (fields === undefined) {
    fields = rowSchema.fields.map((f) => [f.name, f.localName, writerFor(f)]);
    writers.set(rowSchema, fields);
  }
  const rows = (response as unknown as { result: Record<string, unknown>[] }).result;
  const result = rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const [name, localName, write] of fields) out[name] = write(row[localName]);
    return out;
  });
  return Buffer.from(JSON.stringify({ result }));
}

function writerFor(field: DescField): Writer {
  if (field.fieldKind === "scalar") {
    switch (field.scalar) {
      case ScalarType.INT64:
      case ScalarType.UINT64:
      case ScalarType.SINT64:
      case ScalarType.FIXED64:
      case ScalarType.SFIXED64:
        // Counts are far below 2^53, so the number is exact.
        return (value) => Number((value as bigint | undefined) ?? 0);
      case ScalarType.DOUBLE:
      case ScalarType.FLOAT:
        // proto3 JSON writes NaN and the infinities as strings.
        return (value) => {
          const n = (value as number | undefined) ?? 0;
          return Number.isFinite(n) ? n : String(n);
        };
      default:
        return (value) => value;
    }
  }
  if (field.fieldKind === "message" && field.message.typeName === "google.protobuf.Timestamp") {
    return (value) => (value === undefined ? null : timestampJson(value as unknown as Timestamp));
  }
  if (field.fieldKind === "list" && field.listKind === "message" && field.message.typeName === "google.protobuf.Struct") {
    return (value) => value ?? []; // protobuf-es holds a Struct as its plain JSON object
  }
  throw new Error(`no JSON writer for ${field.parent.typeName}.${field.name}`);
}

/** RFC 3339 in UTC with 0, 3, 6 or 9 fractional digits, as proto3 JSON writes a Timestamp. */
export function timestampJson(timestamp: Timestamp): string {
  const base = new Date(Number(timestamp.seconds) * 1000).toISOString().slice(0, 19);
  const nanos = timestamp.nanos;
  if (nanos === 0) return `${base}Z`;
  const digits = String(nanos).padStart(9, "0");
  if (nanos % 1_000_000 === 0) return `${base}.${digits.slice(0, 3)}Z`;
  if (nanos % 1_000 === 0) return `${base}.${digits.slice(0, 6)}Z`;
  return `${base}.${digits}Z`;
}
