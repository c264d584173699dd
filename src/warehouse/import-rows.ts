// Imports NDJSON into a log table, all or nothing: every line is checked
// first (each bad one named by its number, with the messages `npm run import`
// gives), then the good rows are inserted in batches. What the import route
// calls; the command checks its lines with the same checkSourceLine.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { BadRequestSchema, BadRequest_FieldViolationSchema } from "../gen/google/rpc/error_details_pb.js";
import { boundedLines, type SourceLine } from "./bounded-lines.js";
import type { ShippedRow } from "./demo-data.js";
import { checkLogLine, defaultMaxDepth, type LogLineCheck } from "./log-line.js";
import { type LogTable, logTables } from "./log-tables.js";
import type { WarehouseClient } from "./reopening-client.js";

/** Rows per insert when the caller does not say. */
export const defaultImportBatchSize = 10_000;
/** Longest line in bytes when the caller does not say; a longer one is a bad line. */
export const defaultMaxLineBytes = 1024 * 1024;
/** `MAX_IMPORT_BYTES` when unset: room for tens of thousands of rows a post. */
export const defaultMaxImportBytes = 16 * 1024 * 1024;
/** The most bad lines named one by one; the rest are counted. */
export const maxReportedLines = 20;

export interface ImportRowsOptions {
  /** The warehouse the rows go into. */
  client: Pick<WarehouseClient, "insert">;
  /** The log table, as the caller named it; one not in logTables is INVALID_ARGUMENT naming `table`. */
  table: string;
  /** NDJSON in the columns a shipper inserts: the whole body, or its chunks as they arrive. */
  body: Buffer | string | AsyncIterable<Uint8Array>;
  /** `MAX_IMPORT_BYTES`: a larger body is RESOURCE_EXHAUSTED, and nothing is inserted. */
  maxBytes: number;
  /** Rows per insert. Default 10,000. */
  batchSize?: number;
  /** Longest line in bytes; a longer one is a bad line. Default 1 MiB. */
  maxLineBytes?: number;
  /** Deepest nesting of a line or its metadata text; a deeper one is a bad line. Default 32. */
  maxDepth?: number;
  /** Ends the inserts with the caller. Default: none. */
  signal?: AbortSignal;
}

/**
 * Checks every line of `body`, then inserts its rows in batches. With any bad
 * line nothing is inserted: throws INVALID_ARGUMENT whose field violations
 * name each bad line (`line 3`, up to 20) with its problems. Blank lines are
 * skipped; a body of none but blank lines inserts nothing.
 */
export async function importRows(options: ImportRowsOptions): Promise<{ inserted: number }> {
  const { client, maxBytes, signal } = options;
  const table = options.table as LogTable;
  if (!logTables.includes(table)) {
    throw fieldError(`table must be one of ${logTables.join(", ")}`, [
      { field: "table", description: `table must be one of ${logTables.join(", ")}` },
    ]);
  }
  const batchSize = options.batchSize ?? defaultImportBatchSize;
  const bounds = {
    maxLineBytes: options.maxLineBytes ?? defaultMaxLineBytes,
    maxDepth: options.maxDepth ?? defaultMaxDepth,
  };

  const rows: ShippedRow[] = [];
  const bad: { field: string; description: string }[] = [];
  let badCount = 0;
  for await (const line of boundedLines(boundedBody(options.body, maxBytes), bounds.maxLineBytes)) {
    const check = checkSourceLine(table, line, bounds);
    if (check === undefined) continue;
    if (check.ok) {
      if (badCount === 0) rows.push(check.row);
      continue;
    }
    badCount += 1;
    if (badCount <= maxReportedLines)
      bad.push({ field: `line ${line.number}`, description: check.problems.join("; ") });
  }
  if (badCount > 0) {
    if (badCount > maxReportedLines)
      bad.push({ field: "body", description: `... and ${badCount - maxReportedLines} more bad lines` });
    throw fieldError(`${badCount} bad line${badCount === 1 ? "" : "s"}; nothing was inserted`, bad);
  }

  let inserted = 0;
  for (let i = 0; i < rows.length; i += batchSize) {
    const values = rows.slice(i, i + batchSize);
    await client.insert({ table, values, format: "JSONEachRow", abort_signal: signal });
    inserted += values.length;
  }
  return { inserted };
}

/**
 * The check of one line of an import: undefined for a blank line, a bad line
 * for one longer than `maxLineBytes`, else checkLogLine's answer.
 */
export function checkSourceLine(
  table: LogTable,
  line: SourceLine,
  bounds: { maxLineBytes: number; maxDepth: number },
): LogLineCheck | undefined {
  if ("tooLongBytes" in line)
    return { ok: false, problems: [`longer than ${bounds.maxLineBytes} bytes (${line.tooLongBytes})`] };
  if (line.text.trim() === "") return undefined;
  return checkLogLine(table, line.text, bounds.maxDepth);
}

/** `body` as chunks, refused with RESOURCE_EXHAUSTED once past `maxBytes`. */
async function* boundedBody(body: ImportRowsOptions["body"], maxBytes: number): AsyncGenerator<Buffer> {
  const chunks = typeof body === "string" ? [Buffer.from(body)] : Buffer.isBuffer(body) ? [body] : body;
  let total = 0;
  for await (const chunk of chunks) {
    total += chunk.byteLength;
    if (total > maxBytes)
      throw new ConnectError(`the body is larger than ${maxBytes} bytes (MAX_IMPORT_BYTES)`, Code.ResourceExhausted);
    yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  }
}

/** INVALID_ARGUMENT with `message` and the violations as google.rpc.BadRequest field violations. */
function fieldError(message: string, violations: { field: string; description: string }[]): ConnectError {
  const detail = create(BadRequestSchema, {
    fieldViolations: violations.map((v) => create(BadRequest_FieldViolationSchema, v)),
  });
  return new ConnectError(message, Code.InvalidArgument, undefined, [{ desc: BadRequestSchema, value: detail }]);
}
