// The HTTP/1.1 and HTTP/2 servers the port hands its connections to, with
// their header and request bounds (neither listens itself), and the sniffing
// that chooses between them from a connection's first bytes: the HTTP/2
// connection preface (prior knowledge, h2c) or anything else, HTTP/1.1.
import { createServer as createHttp1Server, type Server as Http1Server } from "node:http";
import { createServer as createHttp2Server, type Http2Server } from "node:http2";
import type { Socket } from "node:net";
import type { Logger } from "../../observability/index.js";
import { importPathPrefix } from "../http/import-route.js";
import { handlerThrew, hasBody, holdContinue, pathOf, type RequestHandler } from "../node-http/index.js";

/** Largest request header block in bytes, on HTTP/1.1 and as an HTTP/2 header list (announced and enforced). */
export const maxHeaderSize = 16_384;

export interface Http1ServerOptions {
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
      maxHeaderSize,
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

/**
 * The HTTP/2 server with `maxConcurrentStreams` per connection, serving
 * `handler` as a request listener, or none when streams are taken before it.
 */
export function http2Server(
  handler: RequestHandler | undefined,
  maxConcurrentStreams: number,
  logger: Logger,
): Http2Server {
  return createHttp2Server(
    {
      settings: { maxConcurrentStreams, maxHeaderListSize: maxHeaderSize },
      maxSessionMemory: 32,
      maxHeaderListPairs: 128,
    },
    handler === undefined ? undefined : (guarded(handler, logger) as never),
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

/** How long and how much a refused upload is read on after its answer. */
const lingerBounds = { ms: 2000, bytes: 1024 * 1024 } as const;

const lingering = new WeakSet<Socket>();

/**
 * Makes the next close Node asks of `socket` (destroySoon) linger: Node would
 * destroy the socket of a request whose body was left unread (a refused
 * upload) right after the answer, and a client still sending then gets a
 * reset, often before it reads the status. Instead the answer is sent, the
 * sending side shut, and what the client still sends is read and dropped for
 * a bounded time and size before the socket goes.
 */
function lingerOnClose(socket: Socket): void {
  if (lingering.has(socket)) return;
  lingering.add(socket);
  socket.destroySoon = () => {
    if (socket.destroyed) return;
    if (socket.writable) socket.end();
    const readBefore = socket.bytesRead;
    const stop = () => {
      clearTimeout(timer);
      clearInterval(sizeCheck);
      if (!socket.destroyed) socket.destroy();
    };
    const timer = setTimeout(stop, lingerBounds.ms);
    // The HTTP parser may read the socket natively (no 'data' events): its byte count is what is watched.
    const sizeCheck = setInterval(() => {
      if (socket.bytesRead - readBefore > lingerBounds.bytes) stop();
    }, 100);
    socket.once("end", stop);
    socket.once("close", stop);
    socket.resume();
  };
}

const preface = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

export interface ProtocolSniffing {
  /** A connection must send its first bytes within this, or it is closed. */
  firstRequestTimeoutMs: number;
  /** Takes a connection that began with something else than the preface, paused with its first bytes unread again. */
  http1(socket: Socket): void;
  /**
   * Takes a connection that began with the whole preface, paused with its first bytes unread again: the HTTP/2
   * session reads them itself and then takes over the socket's handle, so it must not be resumed.
   */
  http2(socket: Socket): void;
}

/** Reads `socket`'s first bytes and hands it, with them unread, to the server of its protocol. */
export function sniffProtocol(socket: Socket, sniffing: ProtocolSniffing): void {
  socket.setTimeout(sniffing.firstRequestTimeoutMs, () => socket.destroy());
  let head = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const n = Math.min(head.length, preface.length);
    const isHttp2 = head.subarray(0, n).equals(preface.subarray(0, n));
    if (isHttp2 && head.length < preface.length) return; // wait for the whole preface
    socket.off("data", onData);
    socket.pause();
    socket.setTimeout(0);
    socket.unshift(head);
    if (isHttp2) sniffing.http2(socket);
    else sniffing.http1(socket);
  };
  socket.on("data", onData);
  socket.on("error", () => socket.destroy());
}
