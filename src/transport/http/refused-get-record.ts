// The call log's record of a GET of a saved query refused by its caller's
// rate limit: its saved query is the prepared call's (a target asked
// before) or the one its path names (node-http/refusal-record.ts).
import type { EndpointRegistry } from "../../endpoints/index.js";
import { type Call, pathOf, type RecordCall, recordRateLimited } from "../node-http/index.js";
import { endpointKeyOf } from "./saved-query-route.js";

/** Records a refused call of the GET API when it is a saved query's call a rate limit refused; else nothing. */
export type RecordRefusedGet = (call: Call, error: unknown) => void;

export function createRecordRefusedGet(registry: EndpointRegistry, record: RecordCall | undefined): RecordRefusedGet {
  if (record === undefined) return () => {};
  return (call, error) => {
    if (call.route !== "saved-query") return;
    recordRateLimited(record, call, savedQueryOf(registry, call), "get", error);
  };
}

function savedQueryOf(registry: EndpointRegistry, call: Call): string | undefined {
  const prepared = call.prepared?.endpoint;
  if (prepared !== undefined) return prepared.definition.name;
  const key = endpointKeyOf(pathOf(call.head.url ?? "/"));
  return key === undefined ? undefined : registry.find(key)?.definition.name;
}
