// The watch methods of the Connect router (gRPC, gRPC-Web and Connect): each
// saved query's server-streaming `Watch<X>`, with the key, scope, fixed
// parameters and validation of its unary call checked when the stream
// opens, then fed by the watch hub, one message per changed result.
import type { DescMessage, DescMethodServerStreaming } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { presentedSecret } from "../../auth/index.js";
import type { EndpointRegistry, EndpointService, WatchHub } from "../../endpoints/index.js";
import { clientAddressKey, credentialKey, requestIdKey } from "./request-context.js";
import { watchMessages } from "./watch-messages.js";
import type { WatchRevocation } from "./watch-revocation.js";

export interface WatchRoutesOptions {
  registry: EndpointRegistry;
  service: EndpointService;
  hub: WatchHub;
  /** Ends the streams of a key the key file no longer holds. */
  revocation: WatchRevocation;
}

/** Registers the watch method of every saved query that has one. */
export function watchRoutes(options: WatchRoutesOptions): (router: ConnectRouter) => void {
  const { registry, service, hub, revocation } = options;
  return (router) => {
    for (const endpoint of registry.endpoints) {
      // The registry pairs each watch with its unary method; their message types are known at run time.
      const method = endpoint.watchMethod as DescMethodServerStreaming<DescMessage, DescMessage> | undefined;
      if (method === undefined) continue;
      router.rpc(method, async function* (request, context) {
        const credential = context.values.get(credentialKey);
        // The gate admits every call of these routes; one it did not see is refused, never run unscoped.
        if (credential === undefined) throw new ConnectError("missing or invalid API key", Code.Unauthenticated);
        const call = service.prepare(endpoint, request, credential);
        const revoked = revocation.follow(presentedSecret(context.requestHeader));
        const signal =
          revoked.signal === undefined ? context.signal : AbortSignal.any([context.signal, revoked.signal]);
        const watcher = {
          tenant: credential.id,
          requestId: context.values.get(requestIdKey),
          address: context.values.get(clientAddressKey) || undefined,
        };
        try {
          for await (const result of watchMessages((listener) => hub.watch(call, watcher, listener), signal)) {
            yield result.message();
          }
        } finally {
          revoked.stop();
        }
      });
    }
  };
}
