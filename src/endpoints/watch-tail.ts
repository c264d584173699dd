// The live tail of a paged saved query (logs.all): the rows newer than a
// mark, read by one poll for every watcher of a key, newest page first and
// then older pages through the cursor until the mark is reached, at most
// `maxTailPages` pages a poll; each watcher is sent the rows past its own
// mark in ascending (timestamp, id) order.
import type { Message } from "@bufbuild/protobuf";
import type { ExecuteOptions, QueryExecutor, WarehouseRow } from "../executor/index.js";
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

/** The newest row of a first message (its rows are newest first); undefined when it has none. */
export function markOfResult(result: EndpointResult): TailMark | undefined {
  const rows = (
    result.message() as Message & { result: { id: string; timestamp?: { seconds: bigint; nanos: number } }[] }
  ).result;
  let newest: TailMark | undefined;
  for (const row of rows) {
    const ts = row.timestamp ?? { seconds: 0n, nanos: 0 };
    const mark = { micros: ts.seconds * 1_000_000n + BigInt(Math.floor(ts.nanos / 1000)), id: row.id };
    if (isAfter(mark, newest)) newest = mark;
  }
  return newest;
}

/**
 * The rows of `call` after `floor`, newest first: its newest page, then
 * older pages while a whole page is past the floor, at most maxTailPages.
 */
export async function rowsAfter(
  executor: QueryExecutor,
  call: PreparedCall,
  floor: TailMark | undefined,
  options: ExecuteOptions,
): Promise<WarehouseRow[]> {
  const { endpoint, readLimits } = call;
  const size = call.page?.size ?? endpoint.definition.maxRows;
  const query = readLimits === undefined ? endpoint.savedQuery : { ...endpoint.savedQuery, readLimits };
  const found: WarehouseRow[] = [];
  let cursor: TailMark | undefined;
  for (let page = 0; page < maxTailPages; page += 1) {
    const params = {
      ...call.queryParams,
      cursor_timestamp: cursor === undefined ? null : dateTime64Of(cursor.micros),
      cursor_id: cursor === undefined ? null : cursor.id,
    };
    const { rows } = await executor.execute(query, params, options);
    const kept = rows.slice(0, size);
    const newer = kept.filter((row) => isAfter(markOfRow(row), floor));
    found.push(...newer);
    if (newer.length < kept.length || rows.length <= size || floor === undefined) break;
    cursor = markOfRow(kept[kept.length - 1]!);
  }
  return found;
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
