// The Connect router on Node's request and response (as connectNodeAdapter), with the call as its context value,
// a body already read replayed, and a conditional Connect GET answered 304.
import {
  Code,
  ConnectError,
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
import type { Logger } from "../../observability/index.js";
import {
  type HttpRequest,
  type HttpResponse,
  notModified,
  pathOf,
  type RequestHandler,
  sendNotModified,
} from "../call/index.js";
import type { Compression } from "./connect-internals.js";
import { sendRpcError } from "./rpc-error-response.js";
import { rpcProtocolOf } from "./rpc-protocol.js";

export interface ConnectRouterHandlerOptions extends ConnectRouterOptions {
  routes(router: ConnectRouter): void;
  /** Answers what no route serves. */
  fallback: RequestHandler;
  /** Where a failure of a route's answer after its headers goes. */
  logger: Logger;
}

export interface ConnectRouterHandler {
  /** Serves `request` through the router with the call's context `values`; `body` replays a body read already. */
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
      let universal: ReturnType<typeof universalRequestFromNodeRequest>;
      try {
        universal = universalRequestFromNodeRequest(request, response, undefined, values);
      } catch {
        // Its URL cannot be made (an :authority that is no host): the caller's mistake, never the process's end.
        const protocol = rpcProtocolOf(request.method, request.headers["content-type"], request.url ?? "/");
        const error = new ConnectError("malformed request authority", Code.InvalidArgument);
        return sendRpcError([request, response], protocol ?? "connect", error, 400);
      }
      if (body !== undefined) universal.body = body;
      handler(universal)
        .then((answer) => {
          const conditional = request.method === "GET" && answer.status === 200;
          if (conditional && answeredNotModified(request, answer.header, response)) return;
          return universalResponseToNodeResponse(answer, response);
        })
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

/** Answers 304 with the answer's headers when the request's conditions name it: true when it did. */
function answeredNotModified(request: HttpRequest, header: Headers | undefined, response: HttpResponse): boolean {
  const etag = header?.get("etag");
  const lastModified = header?.get("last-modified");
  if (header === undefined || etag == null || lastModified == null) return false;
  if (!notModified(request.headers, etag, Date.parse(lastModified))) return false;
  sendNotModified(response, header);
  return true;
}
