// The body formats of a GET answer, in one list: each one's `format=` name,
// media type, the Accept ranges that choose it, how it is written from the
// JSON body and how the OpenAPI document describes it. Content negotiation,
// the body writers, the listing and the OpenAPI document all read this list.
import { csvFromJsonBody } from "./csv-body.js";

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
