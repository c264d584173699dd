// Whether a result column's ClickHouse type can fill a row field of a given
// kind, judged only where the answer is certain from the type alone: text
// where a number or a Timestamp is read, a number where text is read, and
// anything but a date-time where a Timestamp is read (row-message.ts reads
// timestamps as ISO date-times). Nullable and LowCardinality wrappers are
// looked through.
import type { RowFieldKind } from "./row-message.js";

type ColumnClass = "text" | "number" | "date-time" | "date" | "other";

/** False when a column of `clickHouseType` certainly cannot fill a field of `kind`. */
export function columnFitsField(clickHouseType: string, kind: RowFieldKind): boolean {
  const column = classOf(clickHouseType);
  switch (kind) {
    case "string":
      return column !== "number";
    case "integer":
    case "double":
      return column !== "text" && column !== "date-time" && column !== "date";
    case "Timestamp":
      return column === "date-time" || column === "other";
    case "JSON objects":
      return column !== "number" && column !== "date-time" && column !== "date";
    case "bool":
      return true;
  }
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

function classOf(clickHouseType: string): ColumnClass {
  const type = unwrappedType(clickHouseType);
  if (/^(String|FixedString\(\d+\))$/.test(type)) return "text";
  if (/^(U?Int(8|16|32|64|128|256)|Float(32|64)|BFloat16|Decimal(32|64|128|256)?\(.*\))$/.test(type)) return "number";
  if (/^DateTime(64)?(\(.*\))?$/.test(type)) return "date-time";
  if (/^Date(32)?$/.test(type)) return "date";
  return "other";
}
