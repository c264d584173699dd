// The JSON body of a successful GET: {"result": [rows]} with the proto field
// names (snake_case), every field present, 64-bit integers as JSON numbers,
// timestamps as RFC 3339 UTC strings and metadata as the stored JSON array.
import { ScalarType, toJson, type DescMessage, type JsonObject, type Message } from "@bufbuild/protobuf";

/** Serialises `response` (a `{ result: [rows] }` message) to the bytes of the body. */
export function responseJsonBytes(schema: DescMessage, response: Message, rowSchema: DescMessage): Buffer {
  const json = toJson(schema, response, { useProtoFieldName: true, alwaysEmitImplicit: true }) as JsonObject;
  const integers = rowSchema.fields
    .filter((f) => f.fieldKind === "scalar" && int64Types.has(f.scalar))
    .map((f) => f.name);
  const rows = (json.result ?? []) as JsonObject[];
  if (integers.length > 0) {
    for (const row of rows) {
      // proto3 JSON writes int64 as strings; counts are far below 2^53, so numbers are exact.
      for (const name of integers) row[name] = Number(row[name]);
    }
  }
  return Buffer.from(JSON.stringify({ result: rows }));
}

const int64Types = new Set([ScalarType.INT64, ScalarType.UINT64, ScalarType.SINT64, ScalarType.FIXED64, ScalarType.SFIXED64]);
