// The live tail of a paged saved query (logs.all): the rows newer than a
// mark and not past the poll's now, read by one poll for every watcher of a
// key, newest page first and then older pages through the cursor until the
// mark is reached, at most `maxTailPages` pages a poll; each watcher is sent
// the rows past its own mark in ascending (timestamp, id) order. A row dated
// in the future is read once its time has come, so it never moves a mark
// past now (docs/grpc.md, Watch streams).
import type { Message } from "@bufbuild/protobuf";
import type { ExecuteOptions, QueryExecutor, QueryStatistics, WarehouseRow } from "../executor/index.js";
import type { EndpointResult, PreparedCall } from "./call-types.js";
import { computedResponse } from "./computed-response.js";
import { dateTime64Of, microsOfIso } from "./result-page.js";

/**
 * Pages read by one poll at most: with pages of 100 rows, up to 500 rows
 * arriving within one poll period reach the watchers; older ones of a
 * larger burst are skipped (reachable by paging).
 */
export const maxTailPages = 5;

/** Rows held for a watcher whose writer is full; the oldest go first past it. */
export const maxHeldTailRows = 1000;

/** A row's place in (timestamp, id) order. */
export interface TailMark {
  micros: bigint;
  id: string;
}

/** Whether `a` comes after `b` in (timestamp, id) order; anything comes after no mark. */
export function isAfter(a: TailMark, b: TailMark | undefined): boolean {
  if (b === undefined) return true;
  return a.micros > b.micros || (a.micros === b.micros && a.id > b.id);
}

export function markOfRow(row: WarehouseRow): TailMark {
  return { micros: microsOfIso(String(row.timestamp)), id: String(row.id) };
}

/** Microseconds since the epoch of `ms` milliseconds. */
export const microsOfMs = (ms: number): bigint => BigInt(Math.floor(ms)) * 1000n;

/** Where a watcher's first message leaves it: its newest row not past `upTo`, and the rows it holds past it. */
export interface TailStart {
  mark?: TailMark;
  /** The ids of rows sent dated past `upTo`: a poll reaching their time does not send them again. */
  ahead: Map<string, TailMark>;
}

/**
 * The start of a tail from its first message (the unary call's answer),
 * computed at `upTo` (µs): rows dated later are not the mark, whatever
 * their date, so that a row of 2299 cannot freeze the tail.
 */
export function startOfResult(result: EndpointResult, upTo: bigint): TailStart {
  const rows = (
    result.message() as Message & { result: { id: string; timestamp?: { seconds: bigint; nanos: number } }[] }
  ).result;
  const start: TailStart = { ahead: new Map() };
  for (const row of rows) {
    const ts = row.timestamp ?? { seconds: 0n, nanos: 0 };
    const mark = { micros: ts.seconds * 1_000_000n + BigInt(Math.floor(ts.nanos / 1000)), id: row.id };
    if (mark.micros > upTo) start.ahead.set(row.id, mark);
    else if (isAfter(mark, start.mark)) start.mark = mark;
  }
  return start;
}

/** Which rows a poll reads: those after `floor` and dated at most `upTo` (µs, the poll's now). */
export interface TailRange {
  floor: TailMark | undefined;
  upTo: bigint;
}

/** The rows one poll read, and what reading them cost (summed over its pages). */
export interface TailRead {
  rows: WarehouseRow[];
  statistics: QueryStatistics;
  /** Wall time of the poll's warehouse round trips. */
  durationMs: number;
}

/**
 * The saved query's inclusive upper bound of `timestamp`: a poll sets it to
 * its now (or keeps the caller's, when earlier).
 */
export const tailUpperBound = "iso_timestamp_end";

/**
 * The rows of `call` in `range`, newest first: its newest page, then older
 * pages while a whole page is past the floor, at most maxTailPages.
 */
export async function rowsAfter(
  executor: QueryExecutor,
  call: PreparedCall,
  range: TailRange,
  options: ExecuteOptions,
): Promise<TailRead> {
  const { endpoint, readLimits } = call;
  const { floor } = range;
  const size = call.page?.size ?? endpoint.definition.maxRows;
  const query = readLimits === undefined ? endpoint.savedQuery : { ...endpoint.savedQuery, readLimits };
  const asked = call.queryParams[tailUpperBound];
  const upperBound = typeof asked === "string" && microsOfParam(asked) < range.upTo ? asked : dateTime64Of(range.upTo);
  const read: TailRead = { rows: [], statistics: { rowsRead: 0, bytesRead: 0 }, durationMs: 0 };
  let cursor: TailMark | undefined;
  for (let page = 0; page < maxTailPages; page += 1) {
    const params = {
      ...call.queryParams,
      [tailUpperBound]: upperBound,
      cursor_timestamp: cursor === undefined ? null : dateTime64Of(cursor.micros),
      cursor_id: cursor === undefined ? null : cursor.id,
    };
    const { rows, statistics, durationMs } = await executor.execute(query, params, options);
    read.statistics.rowsRead += statistics?.rowsRead ?? 0;
    read.statistics.bytesRead += statistics?.bytesRead ?? 0;
    read.durationMs += durationMs;
    const kept = rows.slice(0, size);
    const newer = kept.filter((row) => isAfter(markOfRow(row), floor));
    read.rows.push(...newer);
    if (newer.length < kept.length || rows.length <= size || floor === undefined) break;
    cursor = markOfRow(kept[kept.length - 1]!);
  }
  return read;
}

/** Microseconds of a DateTime64(6) parameter, `2026-11-20 21:59:00.123456`. */
function microsOfParam(value: string): bigint {
  return microsOfIso(`${value.replace(" ", "T")}Z`);
}

/** The rows a tail message holds, for merging messages held for a full writer. */
const tailRows = new WeakMap<EndpointResult, WarehouseRow[]>();

/** A tail message of `rows`, ascending by (timestamp, id), as the saved query's response; `before`: the rows it was cut from. */
export function tailMessage(
  call: PreparedCall,
  rows: WarehouseRow[],
  computedAt: number,
  before = rows.length,
): EndpointResult {
  const ascending = rows
    .map((row) => ({ row, mark: markOfRow(row) }))
    .sort((a, b) => (isAfter(a.mark, b.mark) ? 1 : isAfter(b.mark, a.mark) ? -1 : 0))
    .map(({ row }) => row);
  const truncation = { truncated: before > ascending.length, rowsBeforeLimitAtLeast: before };
  const result = computedResponse(
    call.endpoint,
    ascending,
    { warehouseMs: 0, serializeMs: 0, computedAt, truncation },
    { unmasked: call.unmasked },
  );
  tailRows.set(result, ascending);
  return result;
}

/** One message of the rows of `held` and then `next`, the newest maxHeldTailRows of them. */
export function mergeTail(call: PreparedCall, held: EndpointResult, next: EndpointResult): EndpointResult {
  const all = [...(tailRows.get(held) ?? []), ...(tailRows.get(next) ?? [])];
  return tailMessage(call, all.slice(-maxHeldTailRows), next.computation.computedAt, all.length);
}
