// The RPC calls that need no key, by the kind of their per-address bound
// (transport/http/keyless-limit.ts): gRPC health (a probe, as /healthz is),
// server reflection (whose answers are large beside its requests), and a
// call of a procedure the port does not serve. Not an RPC call: none.
import type { HeaderReader } from "../../auth/index.js";
import type { Call } from "../node-http/index.js";
import { rpcProtocolOf } from "./rpc-protocol.js";

/** The kind of a keyless RPC call's bound. */
export type KeylessRpcKind = "probe" | "reflection" | "other";

/** Throws RESOURCE_EXHAUSTED (with Retry-After) when the client of `peer` is past its bound of `kind`. */
export type KeylessRpcLimit = (kind: KeylessRpcKind, headers: HeaderReader, peer: string) => void;

/** The kind of a call the gate lets through without a key, by its route; undefined for a request that is no RPC call. */
export function keylessRpcKindOf(call: Call): KeylessRpcKind | undefined {
  const head = call.head;
  if (rpcProtocolOf(head.method, head.headers["content-type"], head.url ?? "/") === undefined) return undefined;
  // The saved queries' procedures are keyed (routed apart); health and reflection are the rest served.
  return call.route === "grpc-health" ? "probe" : call.route === "grpc-reflection" ? "reflection" : "other";
}
