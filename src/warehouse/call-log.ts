// The call log: one row per call of a saved query, written to `service_calls`
// (migration 0005) in batches, so that recording a call never waits for the
// warehouse nor fails because of it (docs/usage-accounting.md, The call log).
import { randomUUID } from "node:crypto";
import { silentLogger, systemClock, type Clock, type Logger } from "../observability/index.js";
import { createCallLogBuffer } from "./call-log-buffer.js";
import { toDateTime64Param } from "./datetime-param.js";
import { createFailureStreak } from "./failure-streak.js";
import type { WarehouseClient } from "./reopening-client.js";

/** The defaults of CALL_LOG_FLUSH_SECONDS, CALL_LOG_MAX_ROWS and CALL_LOG_RETENTION_DAYS. */
export const defaultCallLog = { flushMs: 5_000, maxRows: 100_000, retentionDays: 30 } as const;

/**
 * How a call reached the service: GET (and HEAD), Connect, gRPC or gRPC-Web;
 * `watch` is a poll a watch stream ran, recorded on its own.
 */
export type CallProtocol = "get" | "connect" | "grpc" | "grpc-web" | "watch";

/** What the result cache did for a call: served it, computed it, served it while refreshing, or nothing. */
export type CacheOutcome = "hit" | "miss" | "stale" | "none";

/** One call, as a transport hands it over when the call has ended. */
export interface CallLogRow {
  requestId: string;
  /** The saved query's name, e.g. `usage.api-counts`. */
  endpoint: string;
  /** The credential's id, never its secret. */
  caller: string;
  protocol: CallProtocol;
  /** The Connect code name (`invalid_argument`), `ok` on success. */
  code: string;
  cache: CacheOutcome;
  /** Rows and bytes the warehouse read for the result (on a hit, for the query that computed it); 0 when none ran. */
  rowsRead: number;
  bytesRead: number;
  /** From the call's arrival to its last byte handed to the connection. */
  durationMs: number;
  /** Bytes of the answer's body (or messages), as sent, compression included. */
  responseBytes: number;
  /** When the call ended, in ms since the epoch, fractions for µs; default: the clock's now when recorded. */
  at?: number;
}

export interface CallLog {
  /**
   * Keeps `row` for the next batch, as it is (stamping `at` when unset): the
   * caller hands it over and does not change it. Never throws, never waits; a
   * no-op when the log is off.
   */
  record(row: CallLogRow): void;
  /** Writes the rows held now, unless a write is under way: then resolves when that one ends. Never rejects. */
  flush(): Promise<void>;
  /**
   * Stops the periodic writes and writes what is held, once, giving up after
   * `deadlineMs` (default the flush period); rows recorded later are ignored.
   */
  close(deadlineMs?: number): Promise<void>;
}

export interface CallLogOptions {
  /** `CALL_LOG`: false makes every method a no-op. Default true. */
  enabled?: boolean;
  /** `CALL_LOG_FLUSH_SECONDS`, in ms: the period of the writes. Default 5000. */
  flushMs?: number;
  /** `CALL_LOG_MAX_ROWS`: rows held at most; past it the oldest of the caller holding the most are dropped. Default 100,000. */
  maxRows?: number;
  /** Counts the rows dropped, by caller (Metrics.countCallLogDrops). Default: not counted. */
  droppedRows?: (caller: string, rows: number) => void;
  /** Stamps rows recorded without `at`. Default: the system clock. */
  clock?: Clock;
  /** Default: silent. */
  logger?: Logger;
}

/** The table the rows go to. */
export const callLogTable = "service_calls";

/** The saved query that reads the table. */
export const callStatsEndpoint = "service.call-stats";

/** Creates the call log writing through `client`; the first write is one period after creation. */
export function createCallLog(client: WarehouseClient, options: CallLogOptions = {}): CallLog {
  if (options.enabled === false) {
    return { record() {}, flush: () => Promise.resolve(), close: () => Promise.resolve() };
  }
  const flushMs = options.flushMs ?? defaultCallLog.flushMs;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const streak = createFailureStreak(logger);
  const buffer = createCallLogBuffer<CallLogRow>(
    options.maxRows ?? defaultCallLog.maxRows,
    (row) => row.caller,
    (caller, rows) => options.droppedRows?.(caller, rows),
  );
  // A batch written again after a failure keeps its token, so that a server that took it the first time drops it.
  let batchToken = "";
  let writing: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  /** One insert of the rows held, aborted after `timeoutMs`. */
  const write = async (timeoutMs: number): Promise<void> => {
    const taken = buffer.takeBatch();
    if (taken === undefined) return;
    const batch = taken.rows;
    if (!taken.retry) batchToken = randomUUID();
    const abort = new AbortController();
    const deadline = setTimeout(() => abort.abort(), timeoutMs);
    try {
      await client.insert({
        table: callLogTable,
        values: batch.map(rowOf),
        format: "JSONEachRow",
        abort_signal: abort.signal,
        clickhouse_settings: { insert_deduplication_token: batchToken },
      });
      buffer.written();
      const failedTries = streak.end();
      if (failedTries > 0) logger.info("call log written again", { failedTries, rows: batch.length });
      // The rows recorded while the failed batch waited follow it at once.
      if (taken.retry) return write(timeoutMs);
    } catch (error) {
      buffer.notWritten();
      streak.failed(error, {
        msg: "call log not written; its rows are kept for the next try",
        fields: { rows: batch.length },
      });
    } finally {
      clearTimeout(deadline);
    }
  };

  const flush = (timeoutMs = Math.max(flushMs, 1_000)): Promise<void> => {
    writing ??= write(timeoutMs).finally(() => (writing = undefined));
    return writing;
  };

  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => void flush().then(schedule), flushMs);
    timer.unref();
  };
  schedule();

  return {
    record(row) {
      if (closed) return;
      try {
        // The row is kept as handed over; it is formatted when written.
        if (row.at === undefined) row.at = clock();
        buffer.push(row);
      } catch (error) {
        logger.error("call log could not keep a row", { error });
      }
    },
    flush: () => flush(),
    async close(deadlineMs = flushMs) {
      closed = true;
      clearTimeout(timer);
      let expired!: () => void;
      const deadline = setTimeout(() => expired(), deadlineMs);
      const last = (async () => {
        await writing;
        await flush(deadlineMs);
      })();
      await Promise.race([last, new Promise<void>((resolve) => (expired = resolve))]);
      clearTimeout(deadline);
    },
  };
}

/** The row as JSONEachRow takes it, in the columns of `service_calls`. */
function rowOf(row: CallLogRow): Record<string, unknown> {
  return {
    timestamp: toDateTime64Micros(row.at!),
    request_id: row.requestId,
    endpoint: row.endpoint,
    caller: row.caller,
    protocol: row.protocol,
    code: row.code,
    cache: row.cache,
    rows_read: row.rowsRead,
    bytes_read: row.bytesRead,
    duration_ms: row.durationMs,
    response_bytes: row.responseBytes,
  };
}

/** `2026-11-20 21:59:00.123456` for `ms` milliseconds after the epoch, fractions of a millisecond kept. */
function toDateTime64Micros(ms: number): string {
  const whole = Math.floor(ms);
  const micros = Math.min(999, Math.round((ms - whole) * 1000));
  return toDateTime64Param(whole).slice(0, -3) + String(micros).padStart(3, "0");
}
