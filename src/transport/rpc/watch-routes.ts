// The watch methods of the Connect router (gRPC, gRPC-Web and Connect): each
// saved query's server-streaming `Watch<X>`, with the key, scope, fixed
// parameters and validation of its unary call checked when the stream
// opens, then a watch session (node-http/watch-session.ts) whose results
// the router writes as its handler yields them.
import type { DescMessage, DescMethodServerStreaming } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import type { EndpointRegistry, EndpointService } from "../../endpoints/index.js";
import { type OpenWatch, validated } from "../node-http/index.js";
import { authenticatedCallOf, responseBytesOf } from "./router-context.js";
import { callProtocolOf, rpcProtocolOf } from "./rpc-protocol.js";
import { setFirstResultHeaders } from "./rpc-cache-headers.js";
import { watchMessages } from "./watch-messages.js";

export interface WatchRoutesOptions {
  registry: EndpointRegistry;
  service: EndpointService;
  openWatch: OpenWatch;
}

/** Registers the watch method of every saved query that has one. */
export function watchRoutes(options: WatchRoutesOptions): (router: ConnectRouter) => void {
  const { registry, service, openWatch } = options;
  return (router) => {
    for (const endpoint of registry.endpoints) {
      // The registry pairs each watch with its unary method; their message types are known at run time.
      const method = endpoint.watchMethod as DescMethodServerStreaming<DescMessage, DescMessage> | undefined;
      if (method === undefined) continue;
      router.rpc(method, async function* (request, context) {
        const authenticated = authenticatedCallOf(context.values);
        const call = validated(authenticated, service.prepare(endpoint, request, authenticated.credential));
        call.started = performance.now();
        const protocol = callProtocolOf(
          rpcProtocolOf(context.requestMethod, context.requestHeader.get("content-type") ?? undefined, context.url),
        );
        // The messages' bytes: the trailers that close the stream are written after the session ends.
        const opening = {
          call,
          request,
          protocol,
          signal: context.signal,
          bytes: () => responseBytesOf(context.values),
        };
        let first = true;
        for await (const result of watchMessages(openWatch, opening)) {
          if (first) setFirstResultHeaders(context, result);
          first = false;
          yield result.message();
        }
      });
    }
  };
}
