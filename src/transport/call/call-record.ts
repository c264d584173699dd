// The end of a saved query's call as the call log counts it: every call, on
// every transport, hits included (warehouse/call-log.ts). Filled from what
// the transport holds when the call ends into one row the recorder reuses,
// so a hit allocates nothing here.
import type { EndpointResult } from "../../endpoints/index.js";
import type { CallLogRow, CallProtocol } from "../../warehouse/index.js";
import type { Call } from "./call.js";

/** What counts the rows: the call log, or nothing. The row is lent for the call of `record` only: it is reused. */
export interface CallRows {
  record(row: CallLogRow): void;
}

/** How a call ended: its saved query, protocol, code, result when it had one and the answer's bytes. */
export interface CallEnd {
  endpoint: string;
  protocol: CallProtocol;
  /** `ok`, or a Connect code name such as `resource_exhausted`. */
  code: string;
  result: EndpointResult | undefined;
  responseBytes: number;
  /** The cache outcome recorded; default the result's (a watch stream is `none`). */
  cache?: CallLogRow["cache"];
}

/** Records the end of `call`, its caller authenticated; `started` is performance.now() at its start (default the call's). */
export type RecordCall = (call: Pick<Call, "requestId" | "credential" | "started">, end: CallEnd) => void;

/** The recorder writing to `rows`; a call without a credential (refused before it) is not recorded. */
export function createRecordCall(rows: CallRows): RecordCall {
  const row: CallLogRow = {
    requestId: "",
    endpoint: "",
    caller: "",
    protocol: "get",
    code: "ok",
    cache: "none",
    rowsRead: 0,
    bytesRead: 0,
    durationMs: 0,
    responseBytes: 0,
  };
  return (call, end) => {
    const credential = call.credential;
    if (credential === undefined) return;
    const result = end.result;
    const statistics = result?.computation.statistics;
    row.requestId = call.requestId;
    row.endpoint = end.endpoint;
    row.caller = credential.id;
    row.protocol = end.protocol;
    row.code = end.code;
    row.cache = end.cache ?? cacheOutcomeOf(result);
    row.rowsRead = statistics?.rowsRead ?? 0;
    row.bytesRead = statistics?.bytesRead ?? 0;
    row.durationMs = performance.now() - call.started;
    row.responseBytes = end.responseBytes;
    rows.record(row);
  };
}

/** A recorder that keeps nothing. */
export const recordNoCall: RecordCall = () => {};

function cacheOutcomeOf(result: EndpointResult | undefined): CallLogRow["cache"] {
  switch (result?.cache?.status) {
    case "HIT":
      return "hit";
    case "MISS":
      return "miss";
    case "STALE":
      return "stale";
    default:
      return "none";
  }
}
