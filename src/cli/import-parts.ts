// A file larger than the service's MAX_IMPORT_BYTES, sent through the service
// in parts: every line checked here first, with the service's bounds (all or
// nothing for bad lines), then the file cut at line ends into bodies under
// the bound, posted one after another.
import {
  boundedLines,
  checkSourceLine,
  defaultMaxDepth,
  defaultMaxLineBytes,
  type LogTable,
  maxReportedLines,
} from "../warehouse/index.js";
import { type ImportFile, readFromStart } from "./import-source.js";

const bounds = { maxLineBytes: defaultMaxLineBytes, maxDepth: defaultMaxDepth };

/** Each bad line of `file` (`line N: problems`, the first 20, then a count); none when every line is good. */
export async function badLinesOf(file: ImportFile, table: LogTable): Promise<string[]> {
  const bad: string[] = [];
  let count = 0;
  for await (const line of boundedLines(readFromStart(file), bounds.maxLineBytes)) {
    const check = checkSourceLine(table, line, bounds);
    if (check === undefined || check.ok) continue;
    count += 1;
    if (count <= maxReportedLines) bad.push(`line ${line.number}: ${check.problems.join("; ")}`);
  }
  if (count > maxReportedLines) bad.push(`... and ${count - maxReportedLines} more bad lines`);
  return bad;
}

/** The non-blank lines of `file` in bodies of at most `maxBytes`, each cut at a line end. */
export async function* importParts(file: ImportFile, maxBytes: number): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let length = 0;
  for await (const line of boundedLines(readFromStart(file), bounds.maxLineBytes)) {
    if (!("text" in line) || line.text.trim() === "") continue;
    const bytes = Buffer.from(`${line.text}\n`);
    if (bytes.length > maxBytes)
      throw new Error(`line ${line.number} is longer than the service's MAX_IMPORT_BYTES (${maxBytes})`);
    if (length + bytes.length > maxBytes) {
      yield Buffer.concat(parts);
      parts = [];
      length = 0;
    }
    parts.push(bytes);
    length += bytes.length;
  }
  if (length > 0) yield Buffer.concat(parts);
}
