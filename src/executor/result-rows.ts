// Reads a warehouse answer written in the JSON output format (`{"meta",
// "data", "rows", "statistics"}`), or as one JSON array of rows
// (`JSONEachRow` with `output_format_json_array_of_rows = 1`).
//
// One JSON.parse of the whole text is cheaper than ResultSet.json()'s
// row-by-row stream (docs/performance.md has the figures), and the
// array makes the answer self-delimiting, which the embedded engine needs:
// chDB 3.4 leaves the output of a query that failed midway in its session's
// buffer, in front of the next query's own output. Read as plain JSONEachRow
// those leftover rows would pass for the next query's rows, another caller's
// data among them; in front of an array they make the text invalid, so the
// executor can tell and ask again. The JSON format's one object is
// self-delimiting in the same way.
import { statisticsFromBlock, type QueryStatistics } from "./query-statistics.js";
import type { WarehouseRow } from "./saved-query.js";

/** The rows of an answer and, from the JSON format's `statistics` block, what the query read. */
export interface ReadAnswer {
  rows: WarehouseRow[];
  statistics?: QueryStatistics;
  /** The JSON format's `rows_before_limit_at_least`: rows before the result was cut, when the warehouse says. */
  rowsBeforeLimit?: number;
}

/** The rows and statistics of `text`, or undefined when it is not exactly one JSON document or array of rows. */
export function readWarehouseAnswer(text: string): ReadAnswer | undefined {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (Array.isArray(document)) {
    const rows = rowsOf(document);
    return rows === undefined ? undefined : { rows };
  }
  if (typeof document !== "object" || document === null) return undefined;
  const { data, statistics: block, rows_before_limit_at_least: beforeLimit } = document as Record<string, unknown>;
  const rows = Array.isArray(data) ? rowsOf(data) : undefined;
  if (rows === undefined) return undefined;
  const statistics = statisticsFromBlock(block);
  const rowsBeforeLimit = Number(beforeLimit);
  return {
    rows,
    ...(statistics === undefined ? {} : { statistics }),
    ...(Number.isSafeInteger(rowsBeforeLimit) && rowsBeforeLimit >= 0 ? { rowsBeforeLimit } : {}),
  };
}

/** The rows of `text`, or undefined when it is not exactly one JSON array of objects. */
export function readResultRows(text: string): WarehouseRow[] | undefined {
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch {
    return undefined;
  }
  return Array.isArray(rows) ? rowsOf(rows) : undefined;
}

function rowsOf(items: unknown[]): WarehouseRow[] | undefined {
  for (const row of items) if (typeof row !== "object" || row === null || Array.isArray(row)) return undefined;
  return items as WarehouseRow[];
}
