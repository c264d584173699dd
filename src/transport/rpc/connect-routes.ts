// Connect, gRPC and gRPC-Web routes: every saved query of the registry as a
// unary method that calls the shared endpoint service.
import type { DescMessage, DescMethodUnary } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import type { EndpointRegistry, EndpointService } from "../../endpoints/index.js";
import { credentialKey, requestIdKey } from "./request-context.js";
import { noteCallResult } from "./router-call-record.js";
import { setStatistics } from "./statistics-trailers.js";

export interface ConnectRoutesOptions {
  registry: EndpointRegistry;
  service: EndpointService;
  /** Deadline of a call whose client set none. */
  defaultTimeoutMs: number;
}

/** The `routes` function for connectNodeAdapter. */
export function connectRoutes(options: ConnectRoutesOptions): (router: ConnectRouter) => void {
  const { registry, service, defaultTimeoutMs } = options;
  return (router) => {
    for (const endpoint of registry.endpoints) {
      // The registry admits unary methods only; their message types are known at run time.
      const method = endpoint.method as DescMethodUnary<DescMessage, DescMessage>;
      router.rpc(method, async (request, context) => {
        const credential = context.values.get(credentialKey);
        // The gate admits every call of these routes; one it did not see is refused, never run unscoped.
        if (credential === undefined) throw new ConnectError("missing or invalid API key", Code.Unauthenticated);
        const result = await service.run(
          endpoint,
          request,
          {
            signal: context.signal,
            timeoutMs: context.timeoutMs() ?? defaultTimeoutMs,
            requestId: context.values.get(requestIdKey),
            tenant: credential?.id,
          },
          credential,
        );
        if (result.cache !== undefined) {
          context.responseHeader.set("x-cache", result.cache.status);
          context.responseHeader.set("age", String(result.cache.ageSeconds));
        }
        // Connect answers a unary call's trailers as headers named `trailer-…`: its statistics are plain headers.
        setStatistics(context.protocolName === "connect" ? context.responseHeader : context.responseTrailer, result);
        noteCallResult(context.values, result);
        return result.message();
      });
    }
  };
}
