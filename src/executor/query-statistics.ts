// What a query read, as the warehouse reports it. A ClickHouse server sends
// the `X-ClickHouse-Summary` response header (JSON with `read_rows` and
// `read_bytes` as decimal strings); with `wait_end_of_query` it holds the
// final figures. The embedded engine's connection sends no headers, so there
// the figures are unknown, never guessed.

export interface QueryStatistics {
  rowsRead: number;
  bytesRead: number;
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
