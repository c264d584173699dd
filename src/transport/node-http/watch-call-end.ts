// The end of a watch stream as a call: once, when the stream ends, it is
// counted in the call metrics and recorded in the call log as one call of
// its saved query, on every transport (RPC watch methods, Server-Sent
// Events). Its duration is the stream's life, its statistics those of its
// first result, its cache outcome `none`.
import type { EndpointResult } from "../../endpoints/index.js";
import type { Metrics } from "../../observability/index.js";
import type { CallProtocol } from "../../warehouse/index.js";
import type { Call } from "./call.js";
import { type RecordCall, recordNoCall } from "./call-record.js";

/** How a watch stream ended. */
export interface WatchCallEnd {
  endpoint: string;
  protocol: CallProtocol;
  /** `ok` when the client ended it, else the code name it ended with (`unavailable`, `unauthenticated`…). */
  code: string;
  /** The stream's first result; undefined when it ended before one. */
  first: EndpointResult | undefined;
  responseBytes: number;
}

/** Counts and records the end of one watch stream; `call.started` is performance.now() when it opened. */
export type EndWatchCall = (call: Pick<Call, "requestId" | "credential" | "started">, end: WatchCallEnd) => void;

export interface WatchCallEndOptions {
  metrics?: Metrics;
  record?: RecordCall;
}

export function createEndWatchCall(options: WatchCallEndOptions): EndWatchCall {
  const { metrics } = options;
  const record = options.record ?? recordNoCall;
  return (call, end) => {
    const caller = call.credential?.id;
    if (caller === undefined) return;
    // The metrics name a GET's protocol `http`, as for its calls.
    const protocol = end.protocol === "get" ? "http" : end.protocol;
    metrics?.recordCall(end.endpoint, protocol, end.code, (performance.now() - call.started) / 1000);
    metrics?.countCaller(caller, end.code);
    const { endpoint, code, first, responseBytes } = end;
    record(call, { endpoint, protocol: end.protocol, code, result: first, responseBytes, cache: "none" });
  };
}
