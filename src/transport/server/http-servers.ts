// The HTTP/1.1 and HTTP/2 servers the port hands its connections to, with
// their header and request bounds; neither listens itself.
import { createServer as createHttp1Server, type Server as Http1Server } from "node:http";
import { createServer as createHttp2Server, type Http2Server } from "node:http2";
import type { Logger } from "../../observability/index.js";
import { importPathPrefix } from "../http/import-route.js";
import { handlerThrew, hasBody, holdContinue, pathOf, type RequestHandler } from "../node-http/index.js";
import { lingerOnClose } from "./lingering-close.js";

export interface Http1ServerOptions {
  /** Largest request header block in bytes. */
  maxHeaderSize: number;
  /** Longest time to wait for the headers of a request once it has begun. */
  headersTimeoutMs: number;
  /** Longest time to receive a whole request; 0 for no bound. */
  requestTimeoutMs: number;
  /** A connection with no request in flight for this long is closed. */
  idleTimeoutMs: number;
  /** Where a handler's exception is logged. */
  logger: Logger;
}

/** The HTTP/1.1 server, serving `handler`. */
export function http1Server(handler: RequestHandler, options: Http1ServerOptions): Http1Server {
  const http1 = createHttp1Server(
    {
      maxHeaderSize: options.maxHeaderSize,
      headersTimeout: options.headersTimeoutMs,
      requestTimeout: options.requestTimeoutMs,
      // How often Node looks for connections past those timeouts (its default is 30 s).
      connectionsCheckingInterval: Math.min(1_000, options.headersTimeoutMs),
    },
    guarded(handler, options.logger) as never,
  );
  // 100 Continue: held back for the import route until it admits the caller, sent at once as Node does elsewhere.
  http1.on("checkContinue", (request, response) => {
    if (request.method === "POST" && pathOf(request.url ?? "/").startsWith(importPathPrefix)) holdContinue(request);
    else response.writeContinue();
    http1.emit("request", request, response);
  });
  // A body left unread when Node closes the connection is drained a while first, so the client reads the answer.
  http1.prependListener("request", (request) => {
    if (hasBody(request)) lingerOnClose(request.socket);
  });
  http1.keepAliveTimeout = options.idleTimeoutMs;
  // Node enforces headersTimeout and requestTimeout from a timer it starts on "listening"; this server never
  // listens itself (the TCP server hands it connections), so start that timer here. server.close() stops it.
  http1.emit("listening");
  return http1;
}

export interface Http2ServerOptions {
  /** Largest request header block in bytes, announced and enforced, as on HTTP/1.1. */
  maxHeaderSize: number;
  /** Concurrent streams per connection. */
  maxConcurrentStreams: number;
  /** Where a handler's exception is logged. */
  logger: Logger;
}

/** The HTTP/2 server, serving `handler` as a request listener, or none when streams are taken before it. */
export function http2Server(handler: RequestHandler | undefined, options: Http2ServerOptions): Http2Server {
  return createHttp2Server(
    {
      settings: { maxConcurrentStreams: options.maxConcurrentStreams, maxHeaderListSize: options.maxHeaderSize },
      maxSessionMemory: 32,
      maxHeaderListPairs: 128,
    },
    handler === undefined ? undefined : (guarded(handler, options.logger) as never),
  );
}

/**
 * An exception thrown synchronously by the handler ends that request with a 500 and an error line, never the
 * process. (Asynchronous work in the handlers catches its own.)
 */
function guarded(handler: RequestHandler, logger: Logger): RequestHandler {
  return (request, response) => {
    try {
      handler(request, response);
    } catch (error) {
      handlerThrew(request, response, error, logger);
    }
  };
}
