// The call log's record of a Connect, gRPC or gRPC-Web call of a saved
// query refused at the gate by its caller's rate limit: its saved query is
// the one its procedure path names (node-http/refusal-record.ts).
import type { EndpointRegistry } from "../../endpoints/index.js";
import { type Call, pathOf, type RecordCall, recordRateLimited } from "../node-http/index.js";
import { callProtocolOf, type RpcProtocol } from "./rpc-protocol.js";

/** Records a call refused at the gate when it is a saved query's call a rate limit refused; else nothing. */
export type RecordRefusedRpc = (call: Call, protocol: RpcProtocol, error: unknown) => void;

export function createRecordRefusedRpc(registry: EndpointRegistry, record: RecordCall | undefined): RecordRefusedRpc {
  if (record === undefined) return () => {};
  // Unary and watch procedures alike, by path.
  const savedQueries = new Map<string, string>();
  for (const endpoint of registry.endpoints) {
    savedQueries.set(`/${endpoint.grpcMethod}`, endpoint.definition.name);
    if (endpoint.grpcWatchMethod) savedQueries.set(`/${endpoint.grpcWatchMethod}`, endpoint.definition.name);
  }
  return (call, protocol, error) => {
    if (call.route !== "saved-query-procedure") return;
    const endpoint = savedQueries.get(pathOf(call.head.url ?? "/"));
    recordRateLimited(record, call, { endpoint, protocol: callProtocolOf(protocol) }, error);
  };
}
