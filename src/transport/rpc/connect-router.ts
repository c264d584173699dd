// The Connect router on Node's request and response, as connect-node's
// connectNodeAdapter puts it there, with what the fast path needs besides:
// the call's context values handed in (the credential found from the
// headers), and a body already read replayed to the router, so that a call
// the fast path does not answer is answered as if the fast path were not there.
import {
  type ConnectRouter,
  type ConnectRouterOptions,
  type ContextValues,
  createConnectRouter,
} from "@connectrpc/connect";
import {
  compressionBrotli,
  compressionGzip,
  universalRequestFromNodeRequest,
  universalResponseToNodeResponse,
} from "@connectrpc/connect-node";
import type { Compression } from "@connectrpc/connect/protocol";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Logger } from "../../observability/index.js";
import { type HttpRequest, type HttpResponse, pathOf, type RequestHandler } from "../node-http/index.js";

export interface ConnectRouterHandlerOptions extends ConnectRouterOptions {
  routes(router: ConnectRouter): void;
  /** Answers what no route serves. */
  fallback: RequestHandler;
  /** Where a failure of a route's answer after its headers goes. */
  logger: Logger;
}

export interface ConnectRouterHandler {
  /**
   * Serves `request` through the router: `values` are the call's context
   * values; `body`, when the request's body was read already, replays it.
   */
  serve(request: HttpRequest, response: HttpResponse, values?: ContextValues, body?: AsyncIterable<Uint8Array>): void;
  /** The compressions the router accepts, in its order of preference (gzip, br by default). */
  readonly acceptCompression: readonly Compression[];
}

export function createConnectRouterHandler(options: ConnectRouterHandlerOptions): ConnectRouterHandler {
  const acceptCompression = options.acceptCompression ?? [compressionGzip, compressionBrotli];
  const router = createConnectRouter({ ...options, acceptCompression });
  options.routes(router);
  const handlers = new Map(router.handlers.map((handler) => [handler.requestPath, handler]));
  return {
    acceptCompression,
    serve(request, response, values, body) {
      const handler = handlers.get(pathOf(request.url));
      if (handler === undefined) return options.fallback(request, response);
      const universal = universalRequestFromNodeRequest(request, response, undefined, values);
      if (body !== undefined) universal.body = body;
      handler(universal)
        .then((answer) => universalResponseToNodeResponse(answer, response))
        .catch((reason: unknown) => {
          // A caller gone while its answer was written: nothing to tell anyone.
          if (ConnectError.from(reason).code === Code.Aborted) return;
          options.logger.error("rpc answer failed", {
            procedure: `${handler.service.typeName}/${handler.method.name}`,
            error: reason,
          });
        });
    },
  };
}
