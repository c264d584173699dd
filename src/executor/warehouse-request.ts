// The request a saved query becomes: its SQL with the executor's SETTINGS
// clause, typed parameters with `now`, and the warehouse's own deadline.
import { toDateTime64Param } from "../warehouse/index.js";
import { tunedNow, type QueryTuning } from "./query-tuning.js";
import type { QueryParamValue, SavedQuery } from "./saved-query.js";

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
}

/** The arguments of `client.query` but the query id. */
export function warehouseRequest(input: WarehouseRequestInput) {
  const { query, tuning } = input;
  // Fractional seconds: the warehouse itself stops the query at the deadline,
  // which is all the embedded engine can do (it cannot be interrupted).
  const deadline = { max_execution_time: Math.max(0.001, Math.round(input.engineTimeoutMs) / 1000) };
  return {
    query: withSettings(query.sql, {
      // The warehouse cuts the result at the cap; the executor's slice holds it regardless.
      limit: query.maxRows,
      ...(tuning?.stableText ? {} : deadline),
      date_time_output_format: "iso",
      output_format_json_quote_64bit_integers: 0,
      // One JSON array: see result-rows.ts.
      output_format_json_array_of_rows: 1,
      ...tuning?.settings,
    }),
    // A server sends the answer only once the query has finished, so a
    // failure is an HTTP status, not a cut array. (The embedded engine
    // always answers whole; its connection drops this setting.)
    clickhouse_settings: { wait_end_of_query: 1, ...(tuning?.stableText ? deadline : {}) } as const,
    format: "JSONEachRow" as const,
    query_params: { ...input.params, now: toDateTime64Param(tunedNow(input.now, tuning)) },
    abort_signal: input.abortSignal,
  };
}

export type WarehouseRequest = ReturnType<typeof warehouseRequest>;

/**
 * Appends a SETTINGS clause. Settings travel in the query text rather than as
 * `clickhouse_settings` because the embedded connection turns those into
 * `SET` statements that stay on its one session: a `limit` set for one saved
 * query would cut every later query of the process. Values are the
 * executor's own numbers and names, never a caller's input.
 */
function withSettings(sql: string, settings: Record<string, number | string>): string {
  const clause = Object.entries(settings)
    .map(([name, value]) => `${name} = ${typeof value === "number" ? value : `'${value}'`}`)
    .join(", ");
  return `${sql.trimEnd()}\nSETTINGS ${clause}`;
}
