// The CSV body of a GET answer, from its JSON body.
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
