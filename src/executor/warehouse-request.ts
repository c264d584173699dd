// The request a saved query becomes: its SQL with the executor's SETTINGS
// clause (the row cap, the read limits, whose query it is), typed parameters
// with `now`, and the warehouse's own deadline.
import { toDateTime64Param } from "../warehouse/index.js";
import { tunedNow, type QueryTuning } from "./query-tuning.js";
import { readLimitSettings, type ReadLimits } from "./read-limits.js";
import type { QueryParamValue, SavedQuery } from "./saved-query.js";

/** Whose query this is, as its `log_comment` says it (a server's system.query_log keeps it). */
export interface QueryOwner {
  /** The saved query's name. */
  endpoint: string;
  /** The credential id of the caller, never its secret; "" when unknown. */
  caller: string;
  /** The call's request id; "" when unknown. */
  request_id: string;
}

export interface WarehouseRequestInput {
  query: SavedQuery;
  params: Record<string, QueryParamValue>;
  /** The clock's `now`, before tuning rounds it. */
  now: number;
  tuning: QueryTuning | undefined;
  /** How long the warehouse may run the query, in milliseconds. */
  engineTimeoutMs: number;
  /** Handed to the warehouse only where it can stop a query (see killAbortedQueries). */
  abortSignal: AbortSignal | undefined;
  /** The read limits the warehouse enforces; undefined: none. */
  readLimits?: ReadLimits;
  owner: QueryOwner;
}

/** The settings that change from call to call: the deadline and whose query it is. */
export function callSettings(input: WarehouseRequestInput): { max_execution_time: number; log_comment: string } {
  // Fractional seconds: the warehouse itself stops the query at the deadline,
  // which is all the embedded engine can do (it cannot be interrupted).
  return {
    max_execution_time: Math.max(0.001, Math.round(input.engineTimeoutMs) / 1000),
    log_comment: JSON.stringify(input.owner),
  };
}

/** The settings of the query's SETTINGS clause, with the call's own unless `tuning` keeps the text stable. */
export function querySettings(input: WarehouseRequestInput): Record<string, number | string> {
  const { query, tuning } = input;
  return {
    // The warehouse cuts the result one row past the cap, so that the row
    // past it says the result was truncated; the executor's slice drops it.
    limit: query.maxRows + 1,
    ...readLimitSettings(input.readLimits),
    ...(tuning?.stableText ? {} : callSettings(input)),
    date_time_output_format: "iso",
    output_format_json_quote_64bit_integers: 0,
    ...tuning?.settings,
  };
}

/** The arguments of `client.query` but the query id. */
export function warehouseRequest(input: WarehouseRequestInput) {
  const { tuning } = input;
  return {
    query: withSettings(input.query.sql, querySettings(input)),
    // A server sends the answer only once the query has finished, so a
    // failure is an HTTP status, not a cut document. (The embedded engine
    // always answers whole; its connection drops this setting.)
    clickhouse_settings: { wait_end_of_query: 1, ...(tuning?.stableText ? callSettings(input) : {}) } as const,
    // One JSON document with the rows and what the query read: see result-rows.ts.
    format: "JSON" as const,
    query_params: { ...input.params, now: toDateTime64Param(tunedNow(input.now, tuning)) },
    abort_signal: input.abortSignal,
  };
}

export type WarehouseRequest = ReturnType<typeof warehouseRequest>;

/**
 * Appends a SETTINGS clause. Settings travel in the query text rather than as
 * `clickhouse_settings` because the embedded connection turns those into
 * `SET` statements that stay on its one session: a `limit` set for one saved
 * query would cut every later query of the process. Names are the
 * executor's own; text values are written as escaped string literals.
 */
function withSettings(sql: string, settings: Record<string, number | string>): string {
  const clause = Object.entries(settings)
    .map(([name, value]) => `${name} = ${typeof value === "number" ? value : stringLiteral(value)}`)
    .join(", ");
  return `${sql.trimEnd()}\nSETTINGS ${clause}`;
}

/** A ClickHouse string literal of `text`: backslashes and quotes escaped. */
export function stringLiteral(text: string): string {
  return `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}
