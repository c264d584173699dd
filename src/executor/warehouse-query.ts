// One warehouse query: the request sent, its answer read as rows, and asked
// once more when the embedded engine put another query's leftovers in front
// of it (result-rows.ts).
import { randomUUID } from "node:crypto";
import type { Logger } from "../observability/index.js";
import type { WarehouseClient } from "../warehouse/index.js";
import { statisticsFromHeaders, type QueryStatistics } from "./query-statistics.js";
import { readResultRows } from "./result-rows.js";
import type { WarehouseRow } from "./saved-query.js";
import type { WarehouseRequest } from "./warehouse-request.js";

export interface WarehouseAnswer {
  /** Every row the warehouse sent, uncapped. */
  rows: WarehouseRow[];
  /** Rows and bytes read, when the warehouse reports them. */
  statistics?: QueryStatistics;
}

/**
 * Sends `request` as `queryId` and reads its rows. Throws what the client
 * throws (the caller translates it), or an Error when even the second answer
 * is not one JSON array of rows.
 */
export async function queryWarehouse(
  client: WarehouseClient,
  request: WarehouseRequest,
  queryId: string,
  logger: Logger,
  name: string,
): Promise<WarehouseAnswer> {
  let answer = await client.query({ ...request, query_id: queryId });
  let rows = readResultRows(await answer.text());
  if (rows === undefined) {
    // Output a failed query left behind came first (result-rows.ts); it
    // went with this answer, so the next one is the query's own.
    logger.warn("warehouse answer held more than this query's rows; asked again", { query: name, queryId });
    answer = await client.query({ ...request, query_id: randomUUID() });
    rows = readResultRows(await answer.text());
    if (rows === undefined)
      throw new Error("the warehouse answered twice with something other than one JSON array of rows");
  }
  const statistics = statisticsFromHeaders(answer.response_headers);
  return statistics === undefined ? { rows } : { rows, statistics };
}
