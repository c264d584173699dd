// The NDJSON body of a GET answer, from its JSON body: each row as the JSON
// body writes it, one a line, each line ended by LF; no rows, no lines.

/** `json` is `{"result": [rows]}`. */
export function ndjsonFromJsonBody(json: Buffer): Buffer {
  const { result } = JSON.parse(json.toString()) as { result: unknown[] };
  let text = "";
  for (const row of result) text += `${JSON.stringify(row)}\n`;
  return Buffer.from(text);
}
