// The call log's aggregates in memory: per time bucket, caller, saved query,
// protocol, code and cache outcome, the calls' count, reads, response bytes
// and latency histogram. Recording a call is three map lookups by strings and
// numbers the call already holds and a few additions, or none when the call
// is of the same aggregate as the one before. At most `maxEntries`
// aggregates are held, the batch being written included; past it the oldest
// bucket loses an aggregate of the caller holding the most there.
import type { CallLogRow, CallProtocol } from "./call-log-row.js";
import { addLatency, type LatencyHistogram } from "./latency-histogram.js";

/** The calls of one key in one time bucket. */
export interface CallAggregate extends LatencyHistogram {
  /** The bucket's start, in ms since the epoch. */
  bucketStart: number;
  caller: string;
  endpoint: string;
  protocol: CallProtocol;
  code: string;
  cache: CallLogRow["cache"];
  calls: number;
  rowsRead: number;
  bytesRead: number;
  responseBytes: number;
}

export interface CallAggregates {
  /** Aggregates held, the batch being written included. */
  readonly size: number;
  /** Counts `row`, ended at `at` (ms since the epoch), in its aggregate. */
  add(row: CallLogRow, at: number): void;
  /** The batch to write, undefined when none or one is out: the failed batch again if any (`retry`), else every aggregate held. */
  takeBatch(): { aggregates: CallAggregate[]; retry: boolean } | undefined;
  /** The batch was written: it leaves. */
  written(): void;
  /** The batch was not written: it stays, to be written as the next batch, oldest bucket first to go when full. */
  notWritten(): void;
}

export interface CallAggregatesOptions {
  /** `CALL_LOG_MAX_ROWS`: aggregates held at most. */
  maxEntries: number;
  /** The length of a time bucket, in ms. */
  bucketMs: number;
  /** Hears of the calls of an aggregate dropped (Metrics.countCallLogDrops). */
  onDropped: (caller: string, calls: number) => void;
}

/** key of protocol, code and cache in a (caller, endpoint) map: small integers, no string made per call. */
const protocolIndex: Record<CallProtocol, number> = { get: 0, connect: 1, grpc: 2, "grpc-web": 3, watch: 4 };
const cacheIndex: Record<CallLogRow["cache"], number> = { hit: 0, miss: 1, stale: 2, none: 3 };

type ByEndpoint = Map<string, Map<number, CallAggregate>>;
interface Bucket {
  start: number;
  callers: Map<string, { byEndpoint: ByEndpoint; size: number }>;
}

export function createCallAggregates({ maxEntries, bucketMs, onDropped }: CallAggregatesOptions): CallAggregates {
  const codeIndex = new Map<string, number>();
  let buckets = new Map<number, Bucket>();
  let current: Bucket | undefined;
  let liveSize = 0;
  // The batch out or failed, oldest bucket first; `head` skips those dropped while it waits.
  let batch: CallAggregate[] = [];
  let head = 0;
  let state: "idle" | "out" | "pending" = "idle";
  // The aggregate of the call before: a run of calls of one caller and query skips the lookups.
  let last: CallAggregate | undefined;

  const keyOf = (row: CallLogRow): number => {
    let code = codeIndex.get(row.code);
    if (code === undefined) codeIndex.set(row.code, (code = codeIndex.size));
    return (code * 4 + cacheIndex[row.cache]) * 5 + protocolIndex[row.protocol];
  };

  /**
   * Drops one aggregate to make room for one of `caller` in `room`: from a
   * failed batch first, else from the oldest bucket held, of its caller
   * holding the most there (the newcomer counted).
   */
  const dropOldest = (caller: string, room: Bucket): boolean => {
    last = undefined;
    if (state === "pending" && head < batch.length) {
      const dropped = batch[head]!;
      batch[head++] = undefined as never;
      onDropped(dropped.caller, dropped.calls);
      return true;
    }
    let oldest: Bucket | undefined;
    for (const bucket of buckets.values())
      if (bucket.callers.size > 0 && (oldest === undefined || bucket.start < oldest.start)) oldest = bucket;
    if (oldest === undefined) return false;
    let largest: [string, { byEndpoint: ByEndpoint; size: number }] | undefined;
    let most = -1;
    for (const entry of oldest.callers) {
      const size = entry[1].size + (oldest === room && entry[0] === caller ? 1 : 0);
      if (size > most) [largest, most] = [entry, size];
    }
    const [loser, held] = largest!;
    const [endpoint, byKey] = held.byEndpoint.entries().next().value!;
    const [key, aggregate] = byKey.entries().next().value!;
    byKey.delete(key);
    if (byKey.size === 0) held.byEndpoint.delete(endpoint);
    held.size -= 1;
    if (held.size === 0) oldest.callers.delete(loser);
    if (oldest.callers.size === 0) {
      buckets.delete(oldest.start);
      if (current === oldest) current = undefined;
    }
    liveSize -= 1;
    onDropped(loser, aggregate.calls);
    return true;
  };

  const create = (row: CallLogRow, room: Bucket): CallAggregate | undefined => {
    if (liveSize + batch.length - head >= maxEntries && !dropOldest(row.caller, room)) return undefined;
    liveSize += 1;
    return {
      bucketStart: room.start,
      caller: row.caller,
      endpoint: row.endpoint,
      protocol: row.protocol,
      code: row.code,
      cache: row.cache,
      calls: 0,
      rowsRead: 0,
      bytesRead: 0,
      responseBytes: 0,
      latencyBuckets: [],
      latencyCounts: [],
      latencySums: [],
    };
  };

  const bucketAt = (at: number): Bucket => {
    if (current !== undefined && at >= current.start && at < current.start + bucketMs) return current;
    const start = at - (at % bucketMs);
    let bucket = buckets.get(start);
    if (bucket === undefined) buckets.set(start, (bucket = { start, callers: new Map() }));
    return (current = bucket);
  };

  return {
    get size() {
      return liveSize + batch.length - head;
    },
    add(row, at) {
      // A call of no known time could never be written: it counts as dropped.
      if (!Number.isFinite(at)) return onDropped(row.caller, 1);
      if (last !== undefined && isOf(last, row) && at >= last.bucketStart && at < last.bucketStart + bucketMs)
        return count(last, row);
      const key = keyOf(row);
      const bucket = bucketAt(at);
      let held = bucket.callers.get(row.caller);
      let byKey = held?.byEndpoint.get(row.endpoint);
      let aggregate = byKey?.get(key);
      if (aggregate === undefined) {
        aggregate = create(row, bucket);
        if (aggregate === undefined) return onDropped(row.caller, 1);
        // Making room may have emptied this bucket (when it was the oldest): look its place up again.
        const room = bucketAt(at);
        held = room.callers.get(row.caller);
        if (held === undefined) room.callers.set(row.caller, (held = { byEndpoint: new Map(), size: 0 }));
        byKey = held.byEndpoint.get(row.endpoint);
        if (byKey === undefined) held.byEndpoint.set(row.endpoint, (byKey = new Map()));
        byKey.set(key, aggregate);
        held.size += 1;
      }
      last = aggregate;
      count(aggregate, row);
    },
    takeBatch() {
      if (state === "out") return undefined;
      if (state === "pending") {
        batch = batch.slice(head);
        head = 0;
        if (batch.length > 0) {
          state = "out";
          return { aggregates: batch, retry: true };
        }
      }
      if (liveSize === 0) {
        state = "idle";
        return undefined;
      }
      const taken: CallAggregate[] = [];
      const ordered = [...buckets.values()].sort((a, b) => a.start - b.start);
      for (const bucket of ordered)
        for (const held of bucket.callers.values())
          for (const byKey of held.byEndpoint.values()) for (const aggregate of byKey.values()) taken.push(aggregate);
      buckets = new Map();
      current = undefined;
      last = undefined;
      liveSize = 0;
      batch = taken;
      head = 0;
      state = "out";
      return { aggregates: taken, retry: false };
    },
    written() {
      batch = [];
      head = 0;
      state = "idle";
    },
    notWritten() {
      state = "pending";
    },
  };
}

/** Whether `row` is a call of `aggregate`'s key (its time aside). */
function isOf(aggregate: CallAggregate, row: CallLogRow): boolean {
  return (
    aggregate.caller === row.caller &&
    aggregate.endpoint === row.endpoint &&
    aggregate.code === row.code &&
    aggregate.cache === row.cache &&
    aggregate.protocol === row.protocol
  );
}

/** Adds `row`'s call to `aggregate`. */
function count(aggregate: CallAggregate, row: CallLogRow): void {
  aggregate.calls += 1;
  aggregate.rowsRead += row.rowsRead;
  aggregate.bytesRead += row.bytesRead;
  aggregate.responseBytes += row.responseBytes;
  addLatency(aggregate, row.durationMs);
}
