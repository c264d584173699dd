// One TCP port for HTTP/1.1 and HTTP/2 cleartext (prior knowledge): the first
// bytes of a connection decide which server takes it. gRPC needs HTTP/2;
// Connect, gRPC-Web and plain GET work on both.
import { createServer as createHttp1Server } from "node:http";
import {
  constants as http2Constants,
  createServer as createHttp2Server,
  type Http2Session,
  type ServerHttp2Stream,
} from "node:http2";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";
import { type Logger, silentLogger } from "../observability/index.js";
import type { TrustedProxies } from "./node-http/client-address.js";
import {
  createUnsentBytes,
  defaultUnsentBytes,
  type UnsentBytesOptions,
  watchHttp1Socket,
  watchHttp2Stream,
} from "./unsent-bytes.js";
import { serveStreams } from "./h2-streams.js";
import { LinkedList } from "../collections/index.js";
import { handlerThrew, type RequestHandler, sessionAddress, type StreamHandler } from "./node-http/index.js";

const preface = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

export interface SinglePortServerOptions {
  /** Longest time to wait for the headers of a request once it has begun. Default 10 000 ms. */
  headersTimeoutMs?: number;
  /** A new connection must send its first request's headers within this. Default 10 000 ms. */
  firstRequestTimeoutMs?: number;
  /**
   * A connection with no request in flight for this long is closed (HTTP/2
   * with GOAWAY). Default 60 000 ms.
   */
  idleTimeoutMs?: number;
  /** Open connections; more are refused at once while the open ones keep working. Default 4,096. */
  maxConnections?: number;
  /** Open connections from one client address; more from it are refused at once. Default 256. */
  maxConnectionsPerAddress?: number;
  /**
   * Concurrent HTTP/2 streams granted to all the connections of one client address together: past it, a new
   * connection of that address may open one stream at a time. Default 1,024.
   */
  maxStreamsPerAddress?: number;
  /** Proxies that carry many clients' connections: only `maxConnections` bounds theirs. Default: none. */
  trustedProxies?: TrustedProxies;
  /**
   * Where a handler's exception is logged, and refused connections summed up
   * one line a second at most. Default: silent.
   */
  logger?: Logger;
  /** Concurrent HTTP/2 streams per connection. Default 100. */
  maxConcurrentStreams?: number;
  /** Largest request header block in bytes. Default 16 384. */
  maxHeaderSize?: number;
  /** Longest time to receive a whole request; 0 for no bound, as in node:http. Default 120 000 ms. */
  requestTimeoutMs?: number;
  /**
   * Response bytes a client leaves unread (transport/unsent-bytes.ts): a
   * response none of whose queued bytes went out for `stallTimeoutMs` is
   * reset (HTTP/2) or its connection closed (HTTP/1.1), and so is one whose
   * write passes the bytes queued on its connection or its client address.
   * Defaults 30 000 ms, 4 MiB and 16 MiB; trusted proxies are bound per
   * connection only.
   */
  unsentBytes?: Pick<UnsentBytesOptions, "stallTimeoutMs" | "maxPerConnection" | "maxPerAddress">;
  /**
   * Takes HTTP/2 streams before Node's compatibility layer makes a request
   * and response of them (h2-streams.ts): it answers what it can on the
   * stream and hands the rest to the handler. Default: every stream as a
   * request to the handler.
   */
  streams?: StreamHandler;
}

export interface SinglePortServer {
  listen(port: number, host: string): Promise<AddressInfo>;
  /**
   * Stops accepting connections, lets calls in flight finish for up to
   * `graceMs`, then closes whatever is left. Resolves when all is closed.
   */
  close(graceMs: number): Promise<void>;
}

/** The connection bounds that are also variables (docs/configuration.md), when the options do not say. */
export const defaultConnectionLimits = {
  firstRequestTimeoutMs: 10_000,
  idleTimeoutMs: 60_000,
  maxConnections: 4096,
  maxConnectionsPerAddress: 256,
  maxStreamsPerAddress: 1024,
} as const;

export function createSinglePortServer(
  handler: RequestHandler,
  options: SinglePortServerOptions = {},
): SinglePortServer {
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const firstRequestTimeout = options.firstRequestTimeoutMs ?? defaultConnectionLimits.firstRequestTimeoutMs;
  const idleTimeout = options.idleTimeoutMs ?? defaultConnectionLimits.idleTimeoutMs;
  const requestTimeout = options.requestTimeoutMs ?? 120_000;
  const maxHeaderSize = options.maxHeaderSize ?? 16_384;
  const logger = options.logger ?? silentLogger;
  const http1 = createHttp1Server(
    {
      maxHeaderSize,
      headersTimeout,
      requestTimeout,
      // How often Node looks for connections past those timeouts (its default is 30 s).
      connectionsCheckingInterval: Math.min(1_000, headersTimeout),
    },
    guarded(handler, logger) as never,
  );
  http1.keepAliveTimeout = idleTimeout;
  // Node enforces headersTimeout and requestTimeout from a timer it starts on
  // "listening"; this server never listens itself (the TCP server hands it
  // connections), so start that timer here. server.close() stops it.
  http1.emit("listening");
  // Streams refused before their handler ran (their address's unsent bytes full): the handler is skipped.
  const refusedStreams = new WeakSet<ServerHttp2Stream>();
  const servedHandler: RequestHandler = (request, response) => {
    if (!refusedStreams.has((request as unknown as { stream: ServerHttp2Stream }).stream)) handler(request, response);
  };
  const http2 = createHttp2Server(
    {
      // The same header bound as HTTP/1.1, announced and enforced.
      settings: { maxConcurrentStreams: options.maxConcurrentStreams ?? 100, maxHeaderListSize: maxHeaderSize },
      maxSessionMemory: 32,
      maxHeaderListPairs: 128,
    },
    options.streams === undefined ? (guarded(servedHandler, logger) as never) : undefined,
  );
  // With a stream handler, the compatibility layer's request and response are made only for what it does not answer.
  if (options.streams !== undefined) {
    serveStreams(http2, servedHandler, options.streams, logger, (stream) => refusedStreams.has(stream));
  }
  // Responses stopped because their client does not read them: one summary line a second at most.
  let stopped: Record<string, number> | undefined;
  const unsent = createUnsentBytes({
    ...options.unsentBytes,
    unboundedAddress: (address) => options.trustedProxies?.has(address) === true,
    onStopped: (reason) => {
      if (stopped === undefined) {
        stopped = {};
        setTimeout(() => {
          logger.warn("responses stopped: their clients do not read them", { stopped });
          stopped = undefined;
        }, 1000).unref();
      }
      stopped[reason] = (stopped[reason] ?? 0) + 1;
    },
  });
  const stallTimeoutMs = options.unsentBytes?.stallTimeoutMs ?? defaultUnsentBytes.stallTimeoutMs;
  const sweep = setInterval(() => unsent.sweep(), Math.min(1_000, stallTimeoutMs / 2));
  sweep.unref();
  const sessions = new Map<Http2Session, SessionIdle>();
  // Concurrent streams granted to the sessions of each address: past the budget a new session may open one at a
  // time. nghttp2 refuses the rest (REFUSED_STREAM) before Node builds a stream for them, so the many connections
  // of one client cannot flood the event loop or memory with streams (docs/reliability.md).
  const maxStreams = options.maxConcurrentStreams ?? 100;
  const streamBudget = options.maxStreamsPerAddress ?? defaultConnectionLimits.maxStreamsPerAddress;
  const grantedStreams = new Map<string, number>();
  http2.on("session", (session) => {
    const address = sessionAddress(session);
    if (options.trustedProxies?.has(address) !== true) {
      const granted = grantedStreams.get(address) ?? 0;
      const streams = Math.max(1, Math.min(maxStreams, streamBudget - granted));
      if (streams < maxStreams) session.settings({ maxConcurrentStreams: streams });
      grantedStreams.set(address, granted + streams);
      session.once("close", () => {
        const left = grantedStreams.get(address)! - streams;
        if (left > 0) grantedStreams.set(address, left);
        else grantedStreams.delete(address);
      });
    }
    sessions.set(session, watchSession(session, { firstRequestTimeout, idleTimeout }));
    session.once("close", () => sessions.delete(session));
  });
  // Streams whose request has not ended yet, in the order they began: an HTTP/2 request must be whole by the
  // request timeout, as on HTTP/1.1. A sweep looks at them, as node:http looks at its connections, instead of a
  // timer per stream; a stream whose headers ended its request (a GET, most often) is not among them. A list, not
  // a Map: collections/linked-list.ts says why.
  const unfinishedRequests = new LinkedList<{ stream: ServerHttp2Stream; began: number }>();
  // 0 (or Infinity) is no request timeout, as for node:http.
  const timesRequests = requestTimeout > 0 && Number.isFinite(requestTimeout);
  const requestSweep = !timesRequests
    ? undefined
    : setInterval(
        () => {
          const now = performance.now();
          // In the order they began: the first one not yet due ends the sweep.
          for (const link of unfinishedRequests) {
            const { stream, began } = link.item;
            if (now - began < requestTimeout) break;
            unfinishedRequests.remove(link);
            if (!stream.destroyed && stream.state.remoteClose !== 1) stream.close(http2Constants.NGHTTP2_CANCEL);
          }
        },
        Math.min(1_000, requestTimeout / 2),
      ).unref();
  // Each stream's bookkeeping, before the request handler (the compatibility layer's own listener) runs so that
  // its first write is counted, and one close listener that ends it all: listeners cost on every call.
  http2.prependListener("stream", (stream: ServerHttp2Stream, _headers: unknown, flags: number) => {
    const session = stream.session;
    if (session === undefined) return; // already gone with its session: nothing to count or time
    const watched = watchHttp2Stream(unsent, stream, session, sessionAddress(session));
    if (watched.refused) refusedStreams.add(stream);
    const idle = sessions.get(session)!; // set on "session", which comes before any of its streams
    idle.streamOpened();
    const unfinished =
      timesRequests && (flags & http2Constants.NGHTTP2_FLAG_END_STREAM) === 0
        ? unfinishedRequests.push({ stream, began: performance.now() })
        : undefined;
    stream.on("close", () => {
      watched.end();
      idle.streamClosed();
      if (unfinished !== undefined) unfinishedRequests.remove(unfinished);
    });
  });
  const sockets = new Set<Socket>();
  const maxPerAddress = options.maxConnectionsPerAddress ?? defaultConnectionLimits.maxConnectionsPerAddress;
  const perAddress = new Map<string, number>();
  let refused = 0;
  const countRefused = (reason: string) => {
    if (refused++ === 0) {
      setTimeout(() => {
        logger.warn("connections refused", {
          refused,
          reason,
          maxConnections: tcp.maxConnections,
          maxConnectionsPerAddress: maxPerAddress,
        });
        refused = 0;
      }, 1000).unref();
    }
  };

  // No Nagle delay, as a node:http server sets on the connections it accepts itself (node:http2 sets it on those
  // handed to it): an HTTP/1.1 answer written in parts (gRPC-Web's message, then its trailer frame) would otherwise
  // wait for the client's delayed ACK.
  const tcp = createNetServer({ noDelay: true }, (socket) => {
    const address = socket.remoteAddress ?? "";
    const open = perAddress.get(address) ?? 0;
    if (open >= maxPerAddress && options.trustedProxies?.has(address) !== true) {
      countRefused("one address holds its bound of open connections");
      socket.destroy();
      return;
    }
    perAddress.set(address, open + 1);
    sockets.add(socket);
    socket.once("close", () => {
      sockets.delete(socket);
      const left = perAddress.get(address)! - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
    socket.setTimeout(firstRequestTimeout, () => socket.destroy());
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
      if (isHttp2) {
        // The HTTP/2 session reads the unshifted bytes itself and then takes
        // over the socket's handle: resuming here would steal its input.
        http2.emit("connection", socket);
      } else {
        watchHttp1Socket(unsent, socket, address);
        http1.emit("connection", socket);
        socket.resume();
      }
    };
    socket.on("data", onData);
    socket.on("error", () => socket.destroy());
  });
  tcp.maxConnections = options.maxConnections ?? defaultConnectionLimits.maxConnections;
  tcp.on("drop", () => countRefused("the open-connection bound is reached"));

  return {
    listen(port, host) {
      return new Promise((resolve, reject) => {
        tcp.once("error", reject);
        tcp.listen(port, host, () => {
          tcp.off("error", reject);
          resolve(tcp.address() as AddressInfo);
        });
      });
    },
    async close(graceMs) {
      const closed = new Promise<void>((resolve) => tcp.close(() => resolve()));
      http1.close();
      http1.closeIdleConnections();
      for (const session of sessions.keys()) session.close(); // GOAWAY: no new streams, current ones finish
      const drained = Promise.all([new Promise<void>((resolve) => http2.close(() => resolve())), closed]);
      const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), graceMs).unref());
      if ((await Promise.race([drained, timer])) === "timeout") {
        http1.closeAllConnections();
        for (const session of sessions.keys()) session.destroy();
        for (const socket of sockets) socket.destroy();
        await drained;
      }
      clearInterval(sweep);
      clearInterval(requestSweep);
    },
  };
}

/** What the idle bounds of a session are told of its streams. */
interface SessionIdle {
  streamOpened(): void;
  streamClosed(): void;
}

/**
 * Closes an HTTP/2 session that sends no request within `firstRequestTimeout`
 * of its start, or has no stream open for `idleTimeout`: GOAWAY first, so a
 * well-behaved client opens a new connection, then the socket shortly after.
 * The idle timer is made once per session and started again (refresh) each
 * time its last stream closes, not made afresh for every call.
 */
function watchSession(
  session: Http2Session,
  bounds: { firstRequestTimeout: number; idleTimeout: number },
): SessionIdle {
  let open = 0;
  const closeSession = () => {
    // A stream opened since the timer was started: it starts again when the last one closes.
    if (session.destroyed || open > 0) return;
    session.close(); // GOAWAY
    setTimeout(() => session.destroy(), 1_000).unref();
  };
  let firstRequest: NodeJS.Timeout | undefined = setTimeout(closeSession, bounds.firstRequestTimeout).unref();
  let idle: NodeJS.Timeout | undefined;
  session.once("close", () => {
    clearTimeout(firstRequest);
    clearTimeout(idle);
  });
  return {
    streamOpened() {
      open += 1;
      if (firstRequest !== undefined) {
        clearTimeout(firstRequest);
        firstRequest = undefined;
      }
    },
    streamClosed() {
      open -= 1;
      if (open > 0) return;
      if (idle === undefined) idle = setTimeout(closeSession, bounds.idleTimeout).unref();
      else idle.refresh();
    },
  };
}

/**
 * An exception thrown synchronously by the handler ends that request with a
 * 500 and an error line, never the process. (Asynchronous work in the
 * handlers catches its own.)
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
