// The body formats of a GET answer, in one list: each one's `format=` name,
// media type, the Accept ranges that choose it, how it is written from the
// JSON body and how the OpenAPI document describes it. Content negotiation,
// the body writers, the listing and the OpenAPI document all read this list.

export interface BodyFormatSpec {
  /** The `format` query-string value that asks for it. */
  name: string;
  /** The media type of an answer in it, as the OpenAPI document names it. */
  mediaType: string;
  /** The Content-Type header of an answer in it (the media type and its parameters). */
  contentType: string;
  /** The `Accept` media ranges that choose it (lowercase). */
  mediaRanges: readonly string[];
  /** The body made from the JSON body and the row fields in schema order; none for JSON, which is the JSON body. */
  fromJson?: (json: Buffer, columns: readonly string[]) => Buffer;
  /** What the OpenAPI document says of it; none for JSON, whose schema is the rows'. */
  description?: string;
}

/**
 * CSV from the JSON body `{"result": [rows]}`: a header line of `columns`
 * (written even when there are no rows), then one line per row, CRLF line
 * ends and RFC 4180 quoting (a field holding a comma, a double quote, CR or
 * LF is quoted, its quotes doubled). Numbers and booleans as JSON writes
 * them, a missing timestamp as an empty field, `metadata` (an array) as its
 * JSON text.
 */
export function csvFromJsonBody(json: Buffer, columns: readonly string[]): Buffer {
  const { result } = JSON.parse(json.toString()) as { result: Record<string, unknown>[] };
  const lines = [columns.map(csvField).join(",")];
  for (const row of result) lines.push(columns.map((column) => csvField(cellText(row[column]))).join(","));
  return Buffer.from(`${lines.join("\r\n")}\r\n`);
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

const needsQuotes = /[",\r\n]/;

function csvField(text: string): string {
  return needsQuotes.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** NDJSON from the JSON body `{"result": [rows]}`: each row as the JSON body writes it, one a line ended by LF. */
export function ndjsonFromJsonBody(json: Buffer): Buffer {
  const { result } = JSON.parse(json.toString()) as { result: unknown[] };
  let text = "";
  for (const row of result) text += `${JSON.stringify(row)}\n`;
  return Buffer.from(text);
}

/** Every body format, JSON first: its position is its number (BodyFormat), and JSON is the default. */
export const bodyFormats: readonly BodyFormatSpec[] = [
  {
    name: "json",
    mediaType: "application/json",
    contentType: "application/json; charset=utf-8",
    mediaRanges: ["application/json", "*/*", "application/*"],
  },
  {
    name: "csv",
    mediaType: "text/csv",
    contentType: "text/csv; charset=utf-8; header=present",
    mediaRanges: ["text/csv", "text/*"],
    fromJson: csvFromJsonBody,
    description:
      "RFC 4180: a header line of the field names, one line per row, CRLF line ends; metadata as its JSON text",
  },
  {
    name: "ndjson",
    mediaType: "application/x-ndjson",
    contentType: "application/x-ndjson",
    mediaRanges: ["application/x-ndjson", "application/ndjson"],
    fromJson: ndjsonFromJsonBody,
    description: "One JSON row a line",
  },
];
