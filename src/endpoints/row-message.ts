// Turns warehouse rows into row messages, field by field from the row
// schema: timestamps, 64-bit counts, doubles and JSON metadata.
import { create, type DescField, type DescMessage, type Message, ScalarType } from "@bufbuild/protobuf";
import { StructSchema, type Timestamp, TimestampSchema } from "@bufbuild/protobuf/wkt";
import type { WarehouseRow } from "../executor/index.js";

/**
 * Builds a `schema` message from `row`, reading each field by its proto name.
 * Throws on a column whose value does not fit the field: that is a mismatch
 * between `sql/` and `proto/`, a bug rather than bad input.
 */
export function rowMessageFromWarehouse(schema: DescMessage, row: WarehouseRow): Message {
  const init: Record<string, unknown> = {};
  for (const field of schema.fields) {
    const value = row[field.name];
    if (value === undefined || value === null) continue;
    init[field.localName] = convert(field, value);
  }
  return create(schema, init);
}

function convert(field: DescField, value: unknown): unknown {
  switch (rowFieldKind(field)) {
    case "string":
      return String(value);
    case "double":
      return Number(value);
    case "integer":
      return is64Bit(field) ? BigInt(value as number | string) : Number(value);
    case "bool":
      return value === true || value === 1 || value === "1" || value === "true";
    case "Timestamp":
      return timestampFromIso(String(value));
    case "JSON objects":
      return readJsonObjects(field, value);
    case undefined:
      throw new Error(`cannot read column ${field.name} into ${field.parent.typeName}`);
  }
}

function is64Bit(field: DescField): boolean {
  return field.fieldKind === "scalar" && (field.scalar === ScalarType.INT64 || field.scalar === ScalarType.UINT64);
}

/** What a row field is read as, for the start-up check of column types (column-type-fit.ts). */
export type RowFieldKind = "string" | "integer" | "double" | "bool" | "Timestamp" | "JSON objects";

/** The kind `convert` reads `field` as; undefined for a field it cannot read. */
export function rowFieldKind(field: DescField): RowFieldKind | undefined {
  switch (field.fieldKind) {
    case "scalar":
      switch (field.scalar) {
        case ScalarType.STRING:
          return "string";
        case ScalarType.DOUBLE:
        case ScalarType.FLOAT:
          return "double";
        case ScalarType.INT32:
        case ScalarType.UINT32:
        case ScalarType.INT64:
        case ScalarType.UINT64:
          return "integer";
        case ScalarType.BOOL:
          return "bool";
        default:
          return undefined;
      }
    case "message":
      return field.message.typeName === TimestampSchema.typeName ? "Timestamp" : undefined;
    case "list":
      // protobuf-es represents google.protobuf.Struct as a plain JSON object.
      return field.listKind === "message" && field.message.typeName === StructSchema.typeName
        ? "JSON objects"
        : undefined;
    default:
      return undefined;
  }
}

/**
 * `2026-11-20T21:59:00.123456Z` (ClickHouse `date_time_output_format=iso`)
 * to a Timestamp, keeping the sub-millisecond digits a Date would drop.
 */
export function timestampFromIso(text: string): Timestamp {
  const match = /^(.*?)(?:\.(\d{1,9}))?Z$/.exec(text);
  const ms = match ? Date.parse(`${match[1]}Z`) : Number.NaN;
  if (match === null || Number.isNaN(ms)) throw new Error(`not an ISO timestamp: ${text}`);
  const nanos = Number((match[2] ?? "").padEnd(9, "0"));
  return create(TimestampSchema, { seconds: BigInt(Math.floor(ms / 1000)), nanos });
}

/** A column holding a JSON array of objects (text or parsed), as the objects; throws on anything else. */
export function readJsonObjects(field: DescField, value: unknown): unknown[] {
  const items = typeof value === "string" ? (JSON.parse(value) as unknown) : value;
  if (Array.isArray(items) && items.every(isJsonObject)) return items;
  throw new Error(`cannot read column ${field.name} into ${field.parent.typeName}`);
}

function isJsonObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
