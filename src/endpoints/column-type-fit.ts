// Whether a result column's ClickHouse type can fill a row field of a given
// kind: true when row-message.ts reads every value of that type into the
// field whole (in the JSON the executor asks for: 64-bit integers as numbers,
// date-times as ISO text in UTC). A string field takes any single value
// (numbers, dates, UUIDs, enums as text); a double field any number; an
// integer field only integers (a Float or a Decimal would lose its fraction
// or fail); a Timestamp only a DateTime or DateTime64; JSON objects only text
// or an array of maps or JSON objects. Anything else, a text column that
// happens to hold numbers included, is a mismatch: cast it in the SQL.
// Nullable and LowCardinality wrappers are looked through; a NULL that
// reaches a row is that row's problem, answered INTERNAL (docs/reliability.md).
import type { RowFieldKind } from "./row-message.js";

type ColumnClass = "text" | "integer" | "float" | "bool" | "date-time" | "date" | "scalar-text" | "objects" | "other";

const fits: Record<RowFieldKind, readonly ColumnClass[]> = {
  string: ["text", "integer", "float", "bool", "date-time", "date", "scalar-text"],
  double: ["integer", "float"],
  integer: ["integer"],
  bool: ["bool"],
  Timestamp: ["date-time"],
  "JSON objects": ["text", "objects"],
};

/** Whether every value of a column of `clickHouseType` fills a field of `kind` whole. */
export function columnFitsField(clickHouseType: string, kind: RowFieldKind): boolean {
  return fits[kind].includes(classOf(unwrappedType(clickHouseType)));
}

/** `Nullable(LowCardinality(String))` → `String`. */
export function unwrappedType(clickHouseType: string): string {
  let type = clickHouseType.trim();
  for (;;) {
    const wrapped = /^(?:Nullable|LowCardinality)\((.*)\)$/.exec(type);
    if (wrapped === null) return type;
    type = wrapped[1]!.trim();
  }
}

function classOf(type: string): ColumnClass {
  if (/^(String|FixedString\(\d+\))$/.test(type)) return "text";
  if (/^U?Int(8|16|32|64|128|256)$/.test(type)) return "integer";
  if (/^(Float(32|64)|BFloat16|Decimal(32|64|128|256)?\(.*\))$/.test(type)) return "float";
  if (type === "Bool") return "bool";
  if (/^DateTime(64)?(\(.*\))?$/.test(type)) return "date-time";
  if (/^Date(32)?$/.test(type)) return "date";
  if (/^(UUID|IPv4|IPv6|Enum(8|16)?\(.*\))$/.test(type)) return "scalar-text";
  if (/^Array\((Map\(|JSON|Object\()/.test(type)) return "objects";
  return "other";
}
