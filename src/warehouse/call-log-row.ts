// What a transport hands the call log when a call of a saved query ends
// (docs/usage-accounting.md, The call log).

/** How a call reached the service: GET (and HEAD), Connect, gRPC or gRPC-Web; `watch`: a poll a watch stream ran. */
export type CallProtocol = "get" | "connect" | "grpc" | "grpc-web" | "watch";

/** What the result cache did for a call: served it, computed it, served it while refreshing, or nothing. */
export type CacheOutcome = "hit" | "miss" | "stale" | "none";

/** One call, as a transport hands it over when the call has ended. */
export interface CallLogRow {
  /** The call's request id; the log does not keep it (calls are aggregated). */
  requestId: string;
  /** The saved query's name, e.g. `usage.api-counts`. */
  endpoint: string;
  /** The credential's id, never its secret. */
  caller: string;
  protocol: CallProtocol;
  /** The Connect code name (`invalid_argument`), `ok` on success. */
  code: string;
  cache: CacheOutcome;
  /** Rows and bytes the warehouse read for the result (on a hit, for the query that computed it); 0 when none ran. */
  rowsRead: number;
  bytesRead: number;
  /** From the call's arrival to its last byte handed to the connection. */
  durationMs: number;
  /** Bytes of the answer's body (or messages), as sent, compression included. */
  responseBytes: number;
  /** When the call ended, in ms since the epoch; default: the clock's now when recorded. */
  at?: number;
}
