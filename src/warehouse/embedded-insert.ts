// Inserts on the embedded engine that leave the event loop free: the rows are
// written as NDJSON bytes a slice at a time, then handed to chDB's raw insert
// as one Buffer, one INSERT statement that chDB parses and stores on a libuv
// thread. The client's own insert would join the rows into one string and
// pass it to chDB in one synchronous call (docs/log-tables.md, Importing).
import { randomUUID } from "node:crypto";
import { setImmediate as nextTurn } from "node:timers/promises";
import { type ClickHouseClient, type InsertResult, parseError } from "@clickhouse/client";

/** What chDB's raw passthrough insert takes (`connection.chdb.rawInsert` of chdb/connection). */
export interface RawInsert {
  table: string;
  values: Buffer;
  format: "JSONEachRow";
  settings?: Record<string, string | number | boolean>;
  signal?: AbortSignal;
}

export interface EmbeddedInsertOptions {
  /** chDB's raw insert on the engine's one connection, which runs one statement at a time. */
  rawInsert: (params: RawInsert) => Promise<{ rowsWritten: number; bytesWritten: number; elapsed: number }>;
  /** The client's own insert, for what the raw insert does not take: other formats, column lists, JSON documents. */
  fallback: ClickHouseClient["insert"];
  /** A monotonic clock in milliseconds, to cut the encoding into slices. Default `performance.now`. */
  now?: () => number;
  /** The longest the encoding runs before it lets other work run. Default 10 ms. */
  sliceMs?: number;
}

type InsertParams = Parameters<ClickHouseClient["insert"]>[0];

/**
 * The table an insert names, as log-insert.ts writes it: a name, with its
 * insert_deduplication_token in the statement or not.
 */
const target = /^([A-Za-z_][A-Za-z0-9_]*)(?: SETTINGS insert_deduplication_token = '([0-9A-Za-z-]+)')?$/;

/** Bytes of NDJSON gathered as a string before they become a Buffer. */
const pieceChars = 1 << 20;

/**
 * An insert with the client's signature. A JSONEachRow insert of rows (an
 * array or an object-mode stream) into a table named as `target` allows goes
 * in one raw insert, its settings (the token, `clickhouse_settings`) in the
 * statement so none stays on the session; a source that fails, or a signal
 * aborted before the rows are encoded, sends nothing. Anything else goes to
 * `fallback`.
 */
export function createEmbeddedInsert(options: EmbeddedInsertOptions): ClickHouseClient["insert"] {
  const now = options.now ?? (() => performance.now());
  const sliceMs = options.sliceMs ?? 10;

  async function insert(params: InsertParams): Promise<InsertResult> {
    const named = target.exec(params.table);
    const rows = rowSource(params.values);
    const settings = plainSettings(params.clickhouse_settings);
    if ((params.format ?? "JSONCompactEachRow") !== "JSONEachRow" || params.columns !== undefined)
      return options.fallback(params);
    if (named === null || rows === undefined || settings === undefined) return options.fallback(params);
    if (named[2] !== undefined) settings.insert_deduplication_token = named[2];

    const values = await ndjson(rows, now, sliceMs);
    params.abort_signal?.throwIfAborted();
    const query_id = params.query_id ?? randomUUID();
    if (values.byteLength === 0) return { executed: false, query_id: "", response_headers: {} };
    const written = await options
      .rawInsert({ table: named[1]!, values, format: "JSONEachRow", settings, signal: params.abort_signal })
      .catch((error: unknown) => {
        throw asClickHouseError(error);
      });
    const rowsWritten = String(written.rowsWritten);
    const bytesWritten = String(written.bytesWritten);
    return {
      executed: true,
      query_id,
      response_headers: {},
      http_status_code: 200,
      summary: {
        read_rows: rowsWritten,
        read_bytes: bytesWritten,
        written_rows: rowsWritten,
        written_bytes: bytesWritten,
        total_rows_to_read: "0",
        result_rows: "0",
        result_bytes: "0",
        elapsed_ns: String(Math.round(written.elapsed * 1e9)),
      },
    };
  }
  return insert as ClickHouseClient["insert"];
}

/** The rows of an array or a stream; undefined for JSON documents the raw insert does not take. */
function rowSource(values: InsertParams["values"]): Iterable<unknown> | AsyncIterable<unknown> | undefined {
  if (Array.isArray(values)) return values;
  if (values !== null && typeof values === "object" && Symbol.asyncIterator in values)
    return values as AsyncIterable<unknown>;
  return undefined;
}

/** `clickhouse_settings` as statement settings; undefined when one is not a string, number or boolean. */
function plainSettings(
  settings: InsertParams["clickhouse_settings"],
): Record<string, string | number | boolean> | undefined {
  const plain: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(settings ?? {})) {
    if (value === undefined) continue;
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") return undefined;
    plain[name] = value;
  }
  return plain;
}

/** Each row as one line of JSON, in one Buffer, the event loop given back every `sliceMs`. */
async function ndjson(rows: Iterable<unknown> | AsyncIterable<unknown>, now: () => number, sliceMs: number) {
  const pieces: Buffer[] = [];
  let text = "";
  let sliceStart = now();
  const giveWay = async () => {
    if (now() - sliceStart <= sliceMs) return;
    await nextTurn();
    sliceStart = now();
  };
  for await (const row of rows) {
    text += `${JSON.stringify(row)}\n`;
    if (text.length >= pieceChars) {
      pieces.push(Buffer.from(text));
      text = "";
    }
    await giveWay();
  }
  if (text !== "") pieces.push(Buffer.from(text));
  // Copied a piece at a time: one Buffer.concat of 16 MiB held the loop for tens of milliseconds.
  const whole = Buffer.allocUnsafeSlow(pieces.reduce((sum, piece) => sum + piece.byteLength, 0));
  let offset = 0;
  for (const piece of pieces) {
    offset += piece.copy(whole, offset);
    await giveWay();
  }
  return whole;
}

/** chDB's error as the client's ClickHouseError (code and type read from the message), chDB's kept as its cause. */
function asClickHouseError(error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  const mapped = parseError(message);
  if (mapped !== error) mapped.cause = error;
  return mapped;
}
