// Reads a warehouse answer written as one JSON array of rows
// (`JSONEachRow` with `output_format_json_array_of_rows = 1`).
//
// One JSON.parse of the whole text is cheaper than ResultSet.json()'s
// row-by-row stream (docs/performance.md has the figures), and the
// array makes the answer self-delimiting, which the embedded engine needs:
// chDB 3.4 leaves the output of a query that failed midway in its session's
// buffer, in front of the next query's own output. Read as plain JSONEachRow
// those leftover rows would pass for the next query's rows, another caller's
// data among them; in front of an array they make the text invalid, so the
// executor can tell and ask again.
import type { WarehouseRow } from "./saved-query.js";

/** The rows of `text`, or undefined when it is not exactly one JSON array of objects. */
export function readResultRows(text: string): WarehouseRow[] | undefined {
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(rows)) return undefined;
  for (const row of rows) if (typeof row !== "object" || row === null || Array.isArray(row)) return undefined;
  return rows as WarehouseRow[];
}
