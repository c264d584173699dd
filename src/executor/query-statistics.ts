// What a query read, as the warehouse reports it. Both engines write a
// `statistics` block (`elapsed` in seconds, `rows_read`, `bytes_read`) at the
// end of the JSON output format; a ClickHouse server also sends the
// `X-ClickHouse-Summary` response header (`read_rows` and `read_bytes` as
// decimal strings), whose figures are final with `wait_end_of_query`. chDB's
// own rowsRead and bytesRead count the result's rows, not the rows scanned,
// and are not used.

export interface QueryStatistics {
  rowsRead: number;
  bytesRead: number;
  /** The warehouse's own time of the query, in milliseconds, when it says. */
  elapsedMs?: number;
}

/** The figures of a JSON output format's `statistics` block; undefined when it does not hold them. */
export function statisticsFromBlock(block: unknown): QueryStatistics | undefined {
  if (typeof block !== "object" || block === null) return undefined;
  const { rows_read: rows, bytes_read: bytes, elapsed } = block as Record<string, unknown>;
  const rowsRead = count(rows);
  const bytesRead = count(bytes);
  if (rowsRead === undefined || bytesRead === undefined) return undefined;
  return typeof elapsed === "number" && Number.isFinite(elapsed) && elapsed >= 0
    ? { rowsRead, bytesRead, elapsedMs: elapsed * 1000 }
    : { rowsRead, bytesRead };
}

/** The server's summary header's rows and bytes, which are final, with the body's elapsed time. */
export function mergedStatistics(
  fromHeaders: QueryStatistics | undefined,
  fromBody: QueryStatistics | undefined,
): QueryStatistics | undefined {
  if (fromHeaders === undefined) return fromBody;
  return fromBody?.elapsedMs === undefined ? fromHeaders : { ...fromHeaders, elapsedMs: fromBody.elapsedMs };
}

/** The rows and bytes read from the response headers; undefined when they do not say. */
export function statisticsFromHeaders(
  headers: Record<string, string | string[] | undefined> | undefined,
): QueryStatistics | undefined {
  const raw = headers?.["x-clickhouse-summary"];
  const text = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  if (text === undefined) return undefined;
  let summary: unknown;
  try {
    summary = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof summary !== "object" || summary === null) return undefined;
  const { read_rows: rows, read_bytes: bytes } = summary as Record<string, unknown>;
  const rowsRead = count(rows);
  const bytesRead = count(bytes);
  return rowsRead === undefined || bytesRead === undefined ? undefined : { rowsRead, bytesRead };
}

function count(value: unknown): number | undefined {
  const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : typeof value === "number" ? value : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}
