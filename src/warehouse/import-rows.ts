// Imports NDJSON into a log table, all or nothing: every line is checked
// as it arrives, line by line in slices that give the event loop back (each
// bad one named by its number, with the messages `npm run import` gives,
// reading stopping at the hundredth), then every row goes in one insert. What the import
// route calls; the command checks its lines with the same checkSourceLine.
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { BadRequestSchema, BadRequest_FieldViolationSchema } from "../gen/google/rpc/error_details_pb.js";
import { createLineSplitter, type SourceLine } from "./bounded-lines.js";
import type { ShippedRow } from "./demo-data.js";
import { foreignRowProblem } from "./import-project.js";
import { deduplicationToken, insertLogRows } from "./log-insert.js";
import { checkLogLine, defaultMaxDepth, type LineBounds, type LogLineCheck } from "./log-line.js";
import { type LogTable, logTables } from "./log-tables.js";
import type { WarehouseClient } from "./reopening-client.js";

/** Rows per insert of `npm run import` into the warehouse it opened. */
export const defaultImportBatchSize = 10_000;
/** Longest line in bytes when the caller does not say; a longer one is a bad line. */
export const defaultMaxLineBytes = 1024 * 1024;
/** `MAX_IMPORT_BYTES` when unset: room for tens of thousands of rows a post. */
export const defaultMaxImportBytes = 16 * 1024 * 1024;
/** The most bad lines `npm run import` names one by one; the rest are counted. */
export const maxReportedLines = 20;
/** Bad lines (or rows of another project) after which an import stops reading, each named. */
export const defaultMaxRefusedLines = 100;
/** The longest an import checks lines before it lets other work run. */
const sliceMs = 10;

export interface ImportRowsOptions {
  /** The warehouse the rows go into. */
  client: Pick<WarehouseClient, "insert">;
  /** The log table, as the caller named it; one not in logTables is INVALID_ARGUMENT naming `table`. */
  table: string;
  /** NDJSON in the columns a shipper inserts: the whole body, or its chunks as they arrive. */
  body: Buffer | string | AsyncIterable<Uint8Array>;
  /** `MAX_IMPORT_BYTES`: a larger body is RESOURCE_EXHAUSTED, and nothing is inserted. */
  maxBytes: number;
  /** Longest line in bytes; a longer one is a bad line. Default 1 MiB. */
  maxLineBytes?: number;
  /** Deepest nesting and latest timestamp of a line (log-line.ts). Default: 32 levels, no bound but the type's. */
  bounds?: LineBounds;
  /** The one project the caller may import rows of (its fixed `project`). Default: any. */
  project?: string;
  /** The caller's `Idempotency-Key` and who the caller is: the same import sent again stores nothing twice. Default: none. */
  idempotency?: { key: string; caller: string };
  /** Bad lines, or rows of another project, at which reading stops. Default 100. */
  maxRefusedLines?: number;
  /** Ends the insert with the caller. Default: none. */
  signal?: AbortSignal;
  /** A monotonic clock in milliseconds, to cut the work into slices. Default `performance.now`. */
  now?: () => number;
}

interface Refusal {
  field: string;
  description: string;
}

/**
 * Checks every line of `body`, then inserts its rows in one statement. With
 * any bad line nothing is inserted: INVALID_ARGUMENT whose field violations
 * name each bad line (`line 3`) with its problems; with a row of another
 * project than `project`, PERMISSION_DENIED naming those rows. Reading stops
 * at `maxRefusedLines` of either. Blank lines are skipped; a body of none but
 * blank lines inserts nothing.
 */
export async function importRows(options: ImportRowsOptions): Promise<{ inserted: number }> {
  const { client, maxBytes, signal, project } = options;
  const now = options.now ?? (() => performance.now());
  const table = options.table as LogTable;
  if (!logTables.includes(table)) {
    throw fieldError(`table must be one of ${logTables.join(", ")}`, Code.InvalidArgument, [
      { field: "table", description: `table must be one of ${logTables.join(", ")}` },
    ]);
  }
  const maxRefused = options.maxRefusedLines ?? defaultMaxRefusedLines;
  const bounds = { maxLineBytes: options.maxLineBytes ?? defaultMaxLineBytes, ...options.bounds };
  const splitter = createLineSplitter(bounds.maxLineBytes);
  const digest = options.idempotency === undefined ? undefined : createHash("sha256");

  const rows: ShippedRow[] = [];
  const bad: Refusal[] = [];
  const foreign: Refusal[] = [];
  let stoppedAt: number | undefined;
  /** Checks one line; true once reading stops. */
  const take = (line: SourceLine): boolean => {
    const check = checkSourceLine(table, line, bounds);
    if (check === undefined) return false;
    if (!check.ok) bad.push({ field: `line ${line.number}`, description: check.problems.join("; ") });
    else {
      const problem = project === undefined ? undefined : foreignRowProblem(check.owner, project);
      if (problem !== undefined) foreign.push({ field: `line ${line.number}`, description: problem });
      else if (bad.length === 0 && foreign.length === 0) rows.push(check.row);
    }
    if (bad.length < maxRefused && foreign.length < maxRefused) return false;
    stoppedAt = line.number;
    return true;
  };
  // Line by line, so that a chunk of many lines neither holds the loop nor is split whole past the bound.
  let sliceStart = now();
  reading: for await (const chunk of boundedBody(options.body, maxBytes)) {
    digest?.update(chunk);
    for (const line of splitter.push(chunk)) {
      if (take(line)) break reading;
      if (now() - sliceStart > sliceMs) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = now();
      }
    }
  }
  if (stoppedAt === undefined) for (const line of splitter.end()) take(line);

  const stopped = stoppedAt === undefined ? "" : `, reading stopped at line ${stoppedAt}`;
  if (bad.length > 0) {
    const count = `${bad.length} bad line${bad.length === 1 ? "" : "s"}`;
    throw fieldError(`${count}${stopped}; nothing was inserted`, Code.InvalidArgument, bad);
  }
  if (foreign.length > 0) {
    const count = `${foreign.length} row${foreign.length === 1 ? "" : "s"} of another project than ${project}`;
    throw fieldError(`${count}${stopped}; nothing was inserted`, Code.PermissionDenied, foreign);
  }
  if (rows.length === 0) return { inserted: 0 };
  const token =
    options.idempotency && deduplicationToken({ ...options.idempotency, table, bodyDigest: digest!.digest("hex") });
  await insertLogRows(client, { table, values: Readable.from(slices(rows, now)), token, signal });
  return { inserted: rows.length };
}

/** The rows one by one, the event loop given back every slice: the insert stringifies each as it reads it. */
async function* slices(rows: ShippedRow[], now: () => number): AsyncGenerator<ShippedRow> {
  let sliceStart = now();
  for (const row of rows) {
    yield row;
    if (now() - sliceStart > sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = now();
    }
  }
}

/**
 * The check of one line of an import: undefined for a blank line, a bad line
 * for one longer than `maxLineBytes` or not UTF-8, else checkLogLine's answer.
 */
export function checkSourceLine(
  table: LogTable,
  line: SourceLine,
  bounds: LineBounds & { maxLineBytes: number },
): LogLineCheck | undefined {
  if ("tooLongBytes" in line)
    return { ok: false, problems: [`longer than ${bounds.maxLineBytes} bytes (${line.tooLongBytes})`] };
  if (line.badUtf8) return { ok: false, problems: ["not valid UTF-8"] };
  if (line.text.trim() === "") return undefined;
  return checkLogLine(table, line.text, { maxDepth: bounds.maxDepth ?? defaultMaxDepth, latest: bounds.latest });
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

/** `code` with `message` and the refusals as google.rpc.BadRequest field violations. */
function fieldError(message: string, code: Code, violations: Refusal[]): ConnectError {
  const detail = create(BadRequestSchema, {
    fieldViolations: violations.map((v) => create(BadRequest_FieldViolationSchema, v)),
  });
  return new ConnectError(message, code, undefined, [{ desc: BadRequestSchema, value: detail }]);
}
