// One warehouse query: the request sent, its answer read as rows, and asked
// once more when the embedded engine put another query's leftovers in front
// of it (result-rows.ts). With traces, each round trip is a span, and a
// server is sent its traceparent.
import { randomUUID } from "node:crypto";
import { traceAttribute, type Logger, type TraceSpan, type Tracing } from "../observability/index.js";
import type { WarehouseClient } from "../warehouse/index.js";
import { mergedStatistics, statisticsFromHeaders, type QueryStatistics } from "./query-statistics.js";
import { readWarehouseAnswer } from "./result-rows.js";
import type { WarehouseRow } from "./saved-query.js";
import type { WarehouseRequest } from "./warehouse-request.js";

export interface WarehouseAnswer {
  /** Every row the warehouse sent, uncapped. */
  rows: WarehouseRow[];
  /** Rows and bytes read and the warehouse's time, when it reports them. */
  statistics?: QueryStatistics;
  /** Rows before the warehouse cut the result (`rows_before_limit_at_least`), when it says. */
  rowsBeforeLimit?: number;
}

/** How the round trips are traced (docs/observability.md). */
export interface WarehouseQueryTrace {
  tracing: Tracing;
  /** Whether the warehouse is sent each round trip's `traceparent` (a ClickHouse server joins the trace). */
  propagate: boolean;
}

/** One query to send: where, what, under which id and saved query's name, logged and traced how. */
export interface WarehouseQuery {
  client: WarehouseClient;
  request: WarehouseRequest;
  queryId: string;
  /** The saved query's name, for the log. */
  name: string;
  logger: Logger;
  trace?: WarehouseQueryTrace;
}

/**
 * Sends the query's request as its `queryId` and reads its rows. Throws what
 * the client throws (the caller translates it), or an Error when even the
 * second answer is not one JSON document of rows.
 */
export async function queryWarehouse(query: WarehouseQuery): Promise<WarehouseAnswer> {
  const { queryId, logger, name, trace } = query;
  const ask = (id: string) =>
    trace === undefined
      ? roundTrip(query, id, undefined, false)
      : trace.tracing.inSpan(
          "warehouse query",
          { [traceAttribute.dbSystem]: "clickhouse", [traceAttribute.queryId]: id },
          (span) => roundTrip(query, id, span, trace.propagate),
        );
  let { answer, text } = await ask(queryId);
  let read = readWarehouseAnswer(text);
  if (read === undefined) {
    // Output a failed query left behind came first (result-rows.ts); it
    // went with this answer, so the next one is the query's own.
    logger.warn("warehouse answer held more than this query's rows; asked again", { query: name, queryId });
    ({ answer, text } = await ask(randomUUID()));
    read = readWarehouseAnswer(text);
    if (read === undefined)
      throw new Error("the warehouse answered twice with something other than one JSON document of rows");
  }
  const statistics = mergedStatistics(statisticsFromHeaders(answer.response_headers), read.statistics);
  const { rows, rowsBeforeLimit } = read;
  return {
    rows,
    ...(statistics === undefined ? {} : { statistics }),
    ...(rowsBeforeLimit === undefined ? {} : { rowsBeforeLimit }),
  };
}

/** One request and its whole answer, in `span` when traced, with the span's traceparent when `propagate`. */
async function roundTrip(query: WarehouseQuery, id: string, span: TraceSpan | undefined, propagate: boolean) {
  const headers = propagate && span !== undefined ? { http_headers: { ...span.traceHeaders() } } : {};
  const answer = await query.client.query({ ...query.request, query_id: id, ...headers });
  const text = await answer.text();
  if (span !== undefined) {
    const read = statisticsFromHeaders(answer.response_headers);
    span.setAttributes({ [traceAttribute.readRows]: read?.rowsRead, [traceAttribute.readBytes]: read?.bytesRead });
  }
  return { answer, text };
}
