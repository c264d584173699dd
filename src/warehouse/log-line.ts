// Checks one line of a log file against the log-table contract: a JSON
// object with the columns a shipper inserts into that table, each of its
// type, and `metadata` a JSON array of one object holding the fields the
// table derives its columns from; no lone surrogate in any string, no time
// past the latest allowed. Returns the row to insert with the project it
// belongs to, or every problem of the line.
import type { ShippedRow } from "./demo-data.js";
import { readIsoTimestamp } from "./iso-timestamp.js";
import { type LogTable, tablesWithProjectColumn } from "./log-tables.js";

/** Whose row it is: its project, the field that holds it, and the request URL where the table has one. */
export interface RowOwner {
  project: string;
  /** `project`, or the path in `metadata` (`metadata[0].project_ref`). */
  field: string;
  /** `metadata[0].request[0].url` of an `edge_logs` row, when given. */
  url?: string;
}

export type LogLineCheck = { ok: true; row: ShippedRow; owner: RowOwner } | { ok: false; problems: string[] };

/** What bounds a line beyond its table's columns. */
export interface LineBounds {
  /** Deepest nesting of the line, or of `metadata` given as text. Default 32. */
  maxDepth?: number;
  /** The latest timestamp allowed, as DateTime64 text (`latestTimestamp`). Default: 2299-12-31, the type's own bound. */
  latest?: string;
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type FieldCheck = [
  path: string,
  type: "string" | "number",
  read: (m: Record<string, unknown>) => unknown,
  required: boolean,
];

/** The `metadata` fields a table's materialized columns read, with their types. */
const metadataFields: Partial<Record<LogTable, FieldCheck[]>> = {
  edge_logs: [
    ["request[0].path", "string", (m) => first(m.request)?.path, false],
    ["request[0].url", "string", (m) => first(m.request)?.url, false],
    ["response[0].status_code", "number", (m) => first(m.response)?.status_code, false],
  ],
  function_edge_logs: [
    ["project_ref", "string", (m) => m.project_ref, true],
    ["function_id", "string", (m) => m.function_id, true],
    ["execution_time_ms", "number", (m) => m.execution_time_ms, true],
    ["response[0].status_code", "number", (m) => first(m.response)?.status_code, false],
  ],
  function_logs: [["project_ref", "string", (m) => m.project_ref, true]],
  realtime_logs: [["project", "string", (m) => m.project, true]],
  storage_logs: [["project", "string", (m) => m.project, true]],
};

/** The columns a shipper inserts into `table`. */
export function shippedColumns(table: LogTable): string[] {
  return tablesWithProjectColumn.has(table)
    ? ["id", "timestamp", "event_message", "project", "metadata"]
    : ["id", "timestamp", "event_message", "metadata"];
}

/** Default of `maxDepth`: far deeper than any shipper's metadata (five or six levels). */
export const defaultMaxDepth = 32;

/** `IMPORT_MAX_FUTURE_SECONDS` when unset: a shipper's clock may run five minutes fast. */
export const defaultMaxFutureSeconds = 300;

/** The latest timestamp a row may have at `nowMs`, `maxFutureSeconds` ahead, as readIsoTimestamp writes instants. */
export function latestTimestamp(nowMs: number, maxFutureSeconds: number): string {
  const iso = new Date(nowMs + maxFutureSeconds * 1000).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}000`;
}

/** Where each table keeps the project of a row: its column, or a field of its metadata. */
const projectFields: Record<LogTable, string> = {
  edge_logs: "project",
  postgres_logs: "project",
  auth_logs: "project",
  postgrest_logs: "project",
  pgbouncer_logs: "project",
  function_edge_logs: "metadata[0].project_ref",
  function_logs: "metadata[0].project_ref",
  realtime_logs: "metadata[0].project",
  storage_logs: "metadata[0].project",
};

/**
 * Checks `line` (one line of NDJSON) as a row of `table`. The line, and
 * `metadata` given as text, may nest arrays and objects `maxDepth` deep at
 * most: parsing and writing deeper values again would exhaust the stack.
 */
export function checkLogLine(table: LogTable, line: string, bounds: LineBounds = {}): LogLineCheck {
  const maxDepth = bounds.maxDepth ?? defaultMaxDepth;
  if (nestedDeeperThan(line, maxDepth)) return { ok: false, problems: [`nested deeper than ${maxDepth} levels`] };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, problems: ["not valid JSON"] };
  }
  if (!isObject(value)) return { ok: false, problems: ["not a JSON object"] };
  // A lone surrogate can only come from a \u escape: UTF-8 bytes never decode to one.
  if (line.includes("\\u") && !wellFormed(value))
    return { ok: false, problems: ["holds a lone surrogate (\\ud800 to \\udfff)"] };
  const columns = shippedColumns(table);
  const problems: string[] = [];
  for (const key of Object.keys(value)) {
    if (columns.includes(key)) continue;
    problems.push(
      key === "project"
        ? `project is not a column of ${table}: it is read from metadata`
        : `${key} is not a column of ${table} (its columns: ${columns.join(", ")})`,
    );
  }
  for (const column of columns) if (value[column] === undefined) problems.push(`${column} is missing`);

  const { id, timestamp, event_message: message, project, metadata } = value;
  if (id !== undefined && !(typeof id === "string" && uuid.test(id))) problems.push("id must be a UUID string");
  const reading = typeof timestamp === "string" ? readIsoTimestamp(timestamp) : undefined;
  const when = reading !== undefined && "instant" in reading ? reading.instant : undefined;
  if (timestamp !== undefined && when === undefined) {
    problems.push("timestamp must be an ISO 8601 date-time between 1900 and 2299, e.g. 2026-11-20T21:59:00.123456Z");
  } else if (when !== undefined && bounds.latest !== undefined && when > bounds.latest) {
    problems.push(
      `timestamp must not be later than ${bounds.latest.slice(0, 19)} UTC (IMPORT_MAX_FUTURE_SECONDS past now)`,
    );
  }
  if (message !== undefined && typeof message !== "string") problems.push("event_message must be a string");
  if (columns.includes("project") && project !== undefined && !(typeof project === "string" && project !== "")) {
    problems.push("project must be a non-empty string");
  }
  const checked = metadata === undefined ? undefined : checkMetadata(table, metadata, problems, maxDepth);

  if (problems.length > 0) return { ok: false, problems };
  const { text: metadataText, object } = checked!;
  const field = projectFields[table];
  const url = table === "edge_logs" ? first(object.request)?.url : undefined;
  const owner: RowOwner = {
    project: (field === "project"
      ? project
      : field === "metadata[0].project_ref"
        ? object.project_ref
        : object.project) as string,
    field,
    ...(typeof url === "string" ? { url } : {}),
  };
  return {
    ok: true,
    owner,
    row: {
      id: id as string,
      timestamp: when!,
      event_message: message as string,
      ...(columns.includes("project") ? { project: project as string } : {}),
      metadata: metadataText,
    },
  };
}

/** `metadata` as stored (JSON text of an array of one object) and its object; adds its problems to `problems`. */
function checkMetadata(
  table: LogTable,
  metadata: unknown,
  problems: string[],
  maxDepth: number,
): { text: string; object: Record<string, unknown> } | undefined {
  let items: unknown = metadata;
  if (typeof metadata === "string") {
    if (nestedDeeperThan(metadata, maxDepth)) {
      problems.push(`metadata is nested deeper than ${maxDepth} levels`);
      return undefined;
    }
    try {
      items = JSON.parse(metadata);
    } catch {
      problems.push("metadata must be a JSON array of one object (as text or as the array itself)");
      return undefined;
    }
  }
  const object = Array.isArray(items) && items.length === 1 ? items[0] : undefined;
  if (!isObject(object)) {
    problems.push("metadata must be a JSON array of one object (as text or as the array itself)");
    return undefined;
  }
  for (const [path, type, read, required] of metadataFields[table] ?? []) {
    const found = read(object);
    if (found === undefined) {
      if (required) problems.push(`metadata[0].${path} is missing`);
    } else if (typeof found !== type || (type === "string" && required && found === "")) {
      problems.push(
        `metadata[0].${path} must be a${type === "number" ? " number" : required ? " non-empty string" : " string"}`,
      );
    }
  }
  if (typeof metadata === "string" && metadata.includes("\\u") && !wellFormed(object)) {
    problems.push("metadata holds a lone surrogate (\\ud800 to \\udfff)");
    return undefined;
  }
  return { text: JSON.stringify(items), object };
}

/** A lone surrogate: with the `u` flag a pair is one code point, outside the class. */
const loneSurrogate = /\p{Cs}/u;

/** Whether every string of `value` (keys too) is well-formed UTF-16: no lone surrogate. */
function wellFormed(value: unknown): boolean {
  if (typeof value === "string") return !loneSurrogate.test(value);
  if (Array.isArray(value)) return value.every(wellFormed);
  if (isObject(value))
    return Object.entries(value).every(([key, item]) => !loneSurrogate.test(key) && wellFormed(item));
  return true;
}

function first(list: unknown): Record<string, unknown> | undefined {
  return Array.isArray(list) && isObject(list[0]) ? list[0] : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether the JSON text `line` nests arrays and objects deeper than `maxDepth`; strings are skipped. */
function nestedDeeperThan(line: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i += 1; // a backslash: the next character is escaped
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > maxDepth) return true;
    } else if (c === 93 || c === 125) depth -= 1;
  }
  return false;
}
