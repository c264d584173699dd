// The watch methods of the Connect router (gRPC, gRPC-Web and Connect): each
// saved query's server-streaming `Watch<X>`, with the key, scope, fixed
// parameters and validation of its unary call checked when the stream
// opens, then fed by the watch hub, one message per changed result. Each
// stream is counted and recorded as one call when it ends.
import type { DescMessage, DescMethodServerStreaming } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { presentedSecret } from "../../auth/index.js";
import type { EndpointRegistry, EndpointResult, EndpointService, WatchHub } from "../../endpoints/index.js";
import { codeName, type EndWatchCall, type WatchRevocation } from "../node-http/index.js";
import { clientAddressKey, credentialKey, requestIdKey } from "./request-context.js";
import { responseBytesOf } from "./router-call-record.js";
import { callProtocolOf, rpcProtocolOf } from "./rpc-protocol.js";
import { setFirstResultHeaders } from "./watch-first-headers.js";
import { watchMessages } from "./watch-messages.js";

export interface WatchRoutesOptions {
  registry: EndpointRegistry;
  service: EndpointService;
  hub: WatchHub;
  /** Ends the streams of a key the key file no longer holds. */
  revocation: WatchRevocation;
  /** Counts and records each stream when it ends. Default: nothing. */
  endCall?: EndWatchCall;
}

/** Registers the watch method of every saved query that has one. */
export function watchRoutes(options: WatchRoutesOptions): (router: ConnectRouter) => void {
  const { registry, service, hub, revocation } = options;
  const endCall = options.endCall ?? (() => {});
  return (router) => {
    for (const endpoint of registry.endpoints) {
      // The registry pairs each watch with its unary method; their message types are known at run time.
      const method = endpoint.watchMethod as DescMethodServerStreaming<DescMessage, DescMessage> | undefined;
      if (method === undefined) continue;
      router.rpc(method, async function* (request, context) {
        const credential = context.values.get(credentialKey);
        // The gate admits every call of these routes; one it did not see is refused, never run unscoped.
        if (credential === undefined) throw new ConnectError("missing or invalid API key", Code.Unauthenticated);
        const started = performance.now();
        const requestId = context.values.get(requestIdKey);
        let first: EndpointResult | undefined;
        let code = "ok";
        const revoked = revocation.follow(presentedSecret(context.requestHeader));
        try {
          const call = service.prepare(endpoint, request, credential);
          const signal =
            revoked.signal === undefined ? context.signal : AbortSignal.any([context.signal, revoked.signal]);
          const watcher = {
            tenant: credential.id,
            requestId,
            address: context.values.get(clientAddressKey) || undefined,
          };
          for await (const result of watchMessages((listener) => hub.watch(call, watcher, listener), signal)) {
            if (first === undefined) {
              first = result;
              setFirstResultHeaders(context, result);
            }
            yield result.message();
          }
        } catch (error) {
          const errorCode = ConnectError.from(error).code;
          // A client that cancels its stream ends it normally.
          if (errorCode !== Code.Canceled) code = codeName(errorCode);
          throw error;
        } finally {
          revoked.stop();
          const protocol = callProtocolOf(
            rpcProtocolOf(context.requestMethod, context.requestHeader.get("content-type") ?? undefined, context.url),
          );
          // The messages' bytes: the trailers that close the stream are written after this.
          const responseBytes = responseBytesOf(context.values);
          endCall(
            { requestId, credential, started },
            { endpoint: endpoint.definition.name, protocol, code, first, responseBytes },
          );
        }
      });
    }
  };
}
