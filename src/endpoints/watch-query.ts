// What one poll of a watch stream cost: the warehouse queries a tail or a
// polled key ran for its watchers, told to the hub's `onQuery` so that the
// call log counts them against the caller (docs/usage-accounting.md).
import { Code, ConnectError } from "@connectrpc/connect";
import type { QueryStatistics } from "../executor/index.js";
import type { CallLogRow } from "../warehouse/index.js";

/** One poll of one key: its saved query, whose it was, how it ended and what it read. */
export interface WatchQuery {
  /** The saved query's name, e.g. `logs.all`. */
  endpoint: string;
  /** The caller the poll ran as (a credential id; "" is keyless). */
  tenant: string;
  /** The poll's own request id, `watch-<uuid>`. */
  requestId: string;
  /** `ok`, or the Connect code name of its failure (`resource_exhausted`). */
  code: string;
  /** Rows and bytes read by the poll's queries together (a tail may read several pages); 0 for a cache hit. */
  statistics: QueryStatistics;
  /** Wall time of the poll's warehouse round trips. */
  durationMs: number;
}

/** The Connect code name of `error`, as the call log writes codes: `resource_exhausted`. */
export function codeName(error: unknown): string {
  return Code[ConnectError.from(error).code].replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
}

/** The call log's record of one poll: protocol `watch`, no cache, no bytes sent (its rows go out on the streams). */
export function watchQueryRow(query: WatchQuery): CallLogRow {
  return {
    requestId: query.requestId,
    endpoint: query.endpoint,
    caller: query.tenant,
    protocol: "watch",
    code: query.code,
    cache: "none",
    rowsRead: query.statistics.rowsRead,
    bytesRead: query.statistics.bytesRead,
    durationMs: query.durationMs,
    responseBytes: 0,
  };
}
