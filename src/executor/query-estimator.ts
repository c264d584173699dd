// What a saved query would read, asked of the warehouse without running it:
// `EXPLAIN ESTIMATE` answers one row per table read (database, table, parts,
// rows, marks), from the parts' indexes alone. The estimator answers their
// sums; it is not a warehouse query of the call (no admission turn, no query
// metrics), as the figures come from the tables' metadata. It passes the
// executor's fail-fast gate all the same (fail-fast.ts), as the query would.
import { randomUUID } from "node:crypto";
import { silentLogger, systemClock, type Clock, type Logger } from "../observability/index.js";
import { toDateTime64Param, type WarehouseClient } from "../warehouse/index.js";
import { Code } from "@connectrpc/connect";
import { connectErrorFromClickHouse, unavailableError } from "./clickhouse-error.js";
import type { FailFastGate } from "./fail-fast.js";
import type { QueryParamValue, SavedQuery, WarehouseRow } from "./saved-query.js";
import { queryWarehouse } from "./warehouse-query.js";

/** What the engine expects a query to read, summed over the tables it reads. */
export interface QueryEstimate {
  rows: number;
  parts: number;
  marks: number;
}

export interface QueryEstimatorOptions {
  client: WarehouseClient;
  /** Source of `now`, as the executor's. Default: the system clock. */
  clock?: Clock;
  /** Default: silent. */
  logger?: Logger;
  /** How long the warehouse may take to estimate, in milliseconds. Default 5000. */
  timeoutMs?: number;
  /**
   * The executor's fail-fast gate: while it is closed (the warehouse known
   * unreachable, the schema not in place) an estimate is UNAVAILABLE without
   * reaching the warehouse, and a warehouse found unreachable here closes it.
   * Default: none, every estimate asks the warehouse.
   */
  gate?: FailFastGate;
}

export interface QueryEstimator {
  /**
   * The estimate of `query` with `params` (plus `now`). Throws only
   * ConnectError, translated as the executor's failures are.
   */
  estimate(query: SavedQuery, params: Record<string, QueryParamValue>, requestId?: string): Promise<QueryEstimate>;
}

/** The sums of `EXPLAIN ESTIMATE`'s rows; zeros when it reads no table. */
export function estimateOf(rows: readonly WarehouseRow[]): QueryEstimate {
  const sum = (column: keyof QueryEstimate) =>
    rows.reduce((total, row) => {
      const value = Number(row[column]);
      return Number.isSafeInteger(value) && value >= 0 ? total + value : total;
    }, 0);
  return { rows: sum("rows"), parts: sum("parts"), marks: sum("marks") };
}

export function createQueryEstimator(options: QueryEstimatorOptions): QueryEstimator {
  const { client, gate } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const timeoutSeconds = (options.timeoutMs ?? 5000) / 1000;
  return {
    async estimate(query, params, requestId = "") {
      if (gate !== undefined && !gate.isOpen()) throw unavailableError();
      const queryId = randomUUID();
      const request = {
        query: `EXPLAIN ESTIMATE\n${query.sql.trimEnd()}\nSETTINGS max_execution_time = ${timeoutSeconds}`,
        clickhouse_settings: { wait_end_of_query: 1 } as const,
        format: "JSON" as const,
        query_params: { ...params, now: toDateTime64Param(clock()) },
        abort_signal: undefined,
      };
      try {
        const { rows } = await queryWarehouse({ client, request, queryId, name: query.name, logger });
        return estimateOf(rows);
      } catch (cause) {
        const error = connectErrorFromClickHouse(cause, { regexpParameter: query.regexpParameter });
        if (error.code === Code.Unavailable) gate?.unreachable();
        logger.debug("warehouse could not estimate a query", {
          query: query.name,
          queryId,
          requestId,
          code: error.code,
        });
        throw error;
      }
    },
  };
}
