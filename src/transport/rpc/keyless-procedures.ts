// The RPC calls that need no key, by the kind of their per-address bound
// (transport/http/keyless-limit.ts): gRPC health (a probe, as /healthz is),
// server reflection (whose answers are large beside its requests), and a
// call of a procedure the port does not serve. Not an RPC call: none.
import type { HeaderReader } from "../../auth/index.js";
import { pathOf, type RequestHead } from "../node-http/index.js";
import { rpcProtocolOf } from "./rpc-protocol.js";

/** The kind of a keyless RPC call's bound. */
export type KeylessRpcKind = "probe" | "reflection" | "other";

/** Throws RESOURCE_EXHAUSTED (with Retry-After) when the client of `peer` is past its bound of `kind`. */
export type KeylessRpcLimit = (kind: KeylessRpcKind, headers: HeaderReader, peer: string) => void;

/** The kind of a call the gate lets through without a key; undefined for a request that is no RPC call. */
export function keylessRpcKindOf(head: RequestHead): KeylessRpcKind | undefined {
  const url = head.url ?? "/";
  if (rpcProtocolOf(head.method, head.headers["content-type"], url) === undefined) return undefined;
  const path = pathOf(url);
  if (path.startsWith("/grpc.health.v1.Health/")) return "probe";
  if (path.startsWith("/grpc.reflection.v1.ServerReflection/") || path.startsWith("/grpc.reflection.v1alpha."))
    return "reflection";
  // The saved queries' procedures are keyed (routed apart); health and reflection are the rest served.
  return "other";
}
