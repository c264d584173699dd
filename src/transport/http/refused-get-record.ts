// The call log's record of a GET of a saved query refused by its caller's
// rate limit: its saved query is the prepared call's (a target asked
// before) or the one its path names (node-http/refusal-record.ts).
import { type RecordCall, recordRateLimited } from "../node-http/index.js";
import type { Call } from "../node-http/index.js";

/** Records a refused call of the GET API when it is a saved query's call a rate limit refused; else nothing. */
export type RecordRefusedGet = (call: Call, error: unknown) => void;

export function createRecordRefusedGet(record: RecordCall | undefined): RecordRefusedGet {
  if (record === undefined) return () => {};
  return (call, error) => {
    if (call.route !== "saved-query") return;
    const endpoint = (call.prepared?.endpoint ?? call.endpoint)?.definition.name;
    recordRateLimited(record, call, { endpoint, protocol: "get" }, error);
  };
}
