// The call log: the calls of saved queries counted in memory per minute,
// caller, saved query, protocol, code and cache outcome (call-aggregates.ts),
// the aggregates written to `service_call_aggregates` (migration 0007) every
// period, so that recording a call never waits for the warehouse nor fails
// because of it (docs/usage-accounting.md, The call log).
import { randomUUID } from "node:crypto";
import { silentLogger, systemClock, type Clock, type Logger } from "../observability/index.js";
import { type CallAggregate, createCallAggregates } from "./call-aggregates.js";
import type { CallLogRow } from "./call-log-row.js";
import { toDateTime64Param } from "./datetime-param.js";
import { createFailureStreak } from "./failure-streak.js";
import type { WarehouseClient } from "./reopening-client.js";

/** The defaults of CALL_LOG_FLUSH_SECONDS, CALL_LOG_MAX_ROWS and CALL_LOG_RETENTION_DAYS. */
export const defaultCallLog = { flushMs: 5_000, maxRows: 100_000, retentionDays: 30 } as const;

/** The length of the call log's time buckets: one minute. */
export const callLogBucketMs = 60_000;

export type { CacheOutcome, CallLogRow, CallProtocol } from "./call-log-row.js";

export interface CallLog {
  /**
   * Counts `row` in its aggregate (ended at `at`, default now); the row is
   * not kept. Never throws, never waits; a no-op when the log is off.
   */
  record(row: CallLogRow): void;
  /** Writes the aggregates held now, unless a write is under way: then resolves when that one ends. Never rejects. */
  flush(): Promise<void>;
  /**
   * Stops the periodic writes and writes what is held, once, giving up after
   * `deadlineMs` (default the flush period); calls recorded later are ignored.
   */
  close(deadlineMs?: number): Promise<void>;
}

export interface CallLogOptions {
  /** `CALL_LOG`: false makes every method a no-op. Default true. */
  enabled?: boolean;
  /** `CALL_LOG_FLUSH_SECONDS`, in ms: the period of the writes. Default 5000. */
  flushMs?: number;
  /**
   * `CALL_LOG_MAX_ROWS`: aggregates held at most, the batch being written
   * included; past it the oldest bucket's are dropped. Default 100,000.
   */
  maxRows?: number;
  /** Counts the calls of the aggregates dropped, by caller (Metrics.countCallLogDrops). Default: not counted. */
  droppedRows?: (caller: string, rows: number) => void;
  /** Times calls recorded without `at`. Default: the system clock. */
  clock?: Clock;
  /** Default: silent. */
  logger?: Logger;
}

/** The table the aggregates go to. */
export const callLogTable = "service_call_aggregates";

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
  const buffer = createCallAggregates({
    maxEntries: options.maxRows ?? defaultCallLog.maxRows,
    bucketMs: callLogBucketMs,
    onDropped: (caller, calls) => options.droppedRows?.(caller, calls),
  });
  // A batch written again after a failure keeps its token, so that a server that took it the first time drops it.
  let batchToken = "";
  let writing: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  /** One insert of the aggregates held, aborted after `timeoutMs`. */
  const write = async (timeoutMs: number): Promise<void> => {
    const taken = buffer.takeBatch();
    if (taken === undefined) return;
    const batch = taken.aggregates;
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
      // The calls recorded while the failed batch waited follow it at once.
      if (taken.retry) return write(timeoutMs);
    } catch (error) {
      buffer.notWritten();
      streak.failed(error, {
        msg: "call log not written; its aggregates are kept for the next try",
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
        buffer.add(row, row.at ?? clock());
      } catch (error) {
        logger.error("call log could not count a call", { error });
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

/** The aggregate as JSONEachRow takes it, in the columns of `service_call_aggregates`. */
function rowOf(aggregate: CallAggregate): Record<string, unknown> {
  return {
    timestamp: toDateTimeParam(aggregate.bucketStart),
    caller: aggregate.caller,
    endpoint: aggregate.endpoint,
    protocol: aggregate.protocol,
    code: aggregate.code,
    cache: aggregate.cache,
    calls: aggregate.calls,
    rows_read: aggregate.rowsRead,
    bytes_read: aggregate.bytesRead,
    response_bytes: aggregate.responseBytes,
    latency_buckets: aggregate.latencyBuckets,
    latency_counts: aggregate.latencyCounts,
    latency_sums: aggregate.latencySums,
  };
}

/** `2026-11-20 21:59:00` for `ms` milliseconds after the epoch, whole seconds. */
function toDateTimeParam(ms: number): string {
  return toDateTime64Param(ms).slice(0, 19);
}
