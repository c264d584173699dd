// Which ClickHouse column types fill which row fields: the row converter
// must read every value of the type into the field whole. The expected
// answers are worked out from what the converter does with each JSON value
// (String(), Number(), BigInt(), an ISO date-time ending in Z, a JSON array
// of objects).
import { describe, expect, it } from "vitest";
import { columnFitsField, unwrappedType } from "../../src/endpoints/column-type-fit.js";
import type { RowFieldKind } from "../../src/endpoints/row-message.js";

const cases: [string, RowFieldKind, boolean][] = [
  // string fields: any single value, as text
  ["String", "string", true],
  ["UInt64", "string", true],
  ["Float64", "string", true],
  ["Date", "string", true],
  ["UUID", "string", true],
  ["Enum8('a' = 1, 'b' = 2)", "string", true],
  ["Nullable(LowCardinality(String))", "string", true],
  ["Array(String)", "string", false],
  ["Map(String, String)", "string", false],
  // double fields: numbers only
  ["Float64", "double", true],
  ["UInt64", "double", true],
  ["Decimal(18, 2)", "double", true],
  ["String", "double", false],
  ["DateTime", "double", false],
  // integer fields: integers only (BigInt(1.5) throws, Number would keep a fraction)
  ["UInt64", "integer", true],
  ["Int32", "integer", true],
  ["Nullable(UInt8)", "integer", true],
  ["Float64", "integer", false],
  ["Decimal(18, 2)", "integer", false],
  ["Enum8('a' = 1)", "integer", false],
  ["LowCardinality(String)", "integer", false],
  // bool fields: Bool only (a UInt8 of 2 would read as false)
  ["Bool", "bool", true],
  ["UInt8", "bool", false],
  // Timestamp fields: date-times, which the executor asks for as ISO text in UTC
  ["DateTime64(6, 'UTC')", "Timestamp", true],
  ["DateTime64(3, 'Asia/Tokyo')", "Timestamp", true],
  ["DateTime", "Timestamp", true],
  ["Date", "Timestamp", false],
  ["String", "Timestamp", false],
  ["UUID", "Timestamp", false],
  ["UInt32", "Timestamp", false],
  // JSON objects: JSON text, or an array of maps or JSON objects
  ["String", "JSON objects", true],
  ["Array(Map(String, String))", "JSON objects", true],
  ["Array(JSON)", "JSON objects", true],
  ["Array(String)", "JSON objects", false],
  ["UInt64", "JSON objects", false],
];

describe("columnFitsField", () => {
  it.each(cases)("%s for a %s field: %s", (type, kind, expected) => {
    expect(columnFitsField(type, kind)).toBe(expected);
  });
});

describe("unwrappedType", () => {
  it("looks through Nullable and LowCardinality, nested or not, and nothing else", () => {
    expect(unwrappedType("Nullable(LowCardinality(String))")).toBe("String");
    expect(unwrappedType("LowCardinality(Nullable(String))")).toBe("String");
    expect(unwrappedType("Array(Nullable(String))")).toBe("Array(Nullable(String))");
  });
});
