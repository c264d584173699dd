// The router's watch methods (gRPC, gRPC-Web, Connect): each saved query's `Watch<X>`, checked as its unary call,
// then a watch session pulled as the router writes, so a slow reader holds the hub back.
import type { DescMessage, DescMethodServerStreaming } from "@bufbuild/protobuf";
import { type ConnectRouter, ConnectError } from "@connectrpc/connect";
import type { EndpointRegistry, EndpointResult, EndpointService } from "../../endpoints/index.js";
import { type OpenWatch, validated, type WatchOpening } from "../call/index.js";
import { authenticatedCallOf, responseBytesOf } from "./router-context.js";
import { callProtocolOf, rpcProtocolOf } from "./rpc-protocol.js";
import { setFirstResultHeaders } from "./rpc-cache-headers.js";

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

/** What a router's watch opens a session with: all but the writer, and the bytes written so far. */
type RouterWatchOpening = Omit<WatchOpening, "writer"> & { bytes(): number };

/** The session's results until it ends, then its error thrown; leaving the loop early is the client leaving. */
async function* watchMessages(openWatch: OpenWatch, opening: RouterWatchOpening): AsyncGenerator<EndpointResult> {
  let held: EndpointResult | undefined;
  let ended: ConnectError | "left" | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  const session = openWatch({
    ...opening,
    writer: {
      result(result) {
        held = result;
        notify();
        // Full until the writer takes this one: the hub holds (and conflates) what comes meanwhile.
        return false;
      },
      end(error) {
        ended = error ?? "left";
        notify();
      },
      bytes: opening.bytes,
    },
  });
  try {
    for (;;) {
      if (held !== undefined) {
        const result = held;
        held = undefined;
        session.drained();
        yield result;
        continue;
      }
      if (ended instanceof ConnectError) throw ended;
      if (ended === "left") return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    session.end();
  }
}
