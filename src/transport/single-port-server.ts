// One TCP port for HTTP/1.1 and HTTP/2 cleartext (prior knowledge), assembled
// from the parts of server/: the first bytes of a connection decide which
// server takes it, within the bounds on connections, streams, requests, idle
// sessions and unread responses. gRPC needs HTTP/2; Connect, gRPC-Web and
// plain GET work on both.
import type { ServerHttp2Stream } from "node:http2";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { type Logger, silentLogger } from "../observability/index.js";
import { serveStreams } from "./h2-streams.js";
import type { TrustedProxies } from "./node-http/client-address.js";
import { type RequestHandler, sessionAddress, type StreamHandler } from "./node-http/index.js";
import {
  boundUnreadResponses,
  budgetStreams,
  capConnections,
  closeGracefully,
  headerListPastBound,
  http1Server,
  http2Server,
  idleSessions,
  maxHeaderSize,
  refuseHeaderList,
  refusedStreams,
  sniffProtocol,
  timeRequests,
} from "./server/index.js";
import type { UnsentBytesOptions } from "./unsent-bytes.js";

export interface SinglePortServerOptions {
  /** Longest time to wait for the headers of a request once it has begun. Default 10 000 ms. */
  headersTimeoutMs?: number;
  /** A new connection must send its first request's headers within this. Default 10 000 ms. */
  firstRequestTimeoutMs?: number;
  /** A connection with no request in flight for this long is closed (HTTP/2 with GOAWAY). Default 60 000 ms. */
  idleTimeoutMs?: number;
  /** Open connections; more are refused at once while the open ones keep working. Default 4,096. */
  maxConnections?: number;
  /** Open connections from one client address; more from it are refused at once. Default 256. */
  maxConnectionsPerAddress?: number;
  /** HTTP/2 streams open at once on all the connections of one client address; more are refused. Default 1,024. */
  maxStreamsPerAddress?: number;
  /** Proxies that carry many clients' connections: only `maxConnections` bounds theirs. Default: none. */
  trustedProxies?: TrustedProxies;
  /** Where a handler's exception is logged, and refusals summed up one line a second at most. Default: silent. */
  logger?: Logger;
  /** Concurrent HTTP/2 streams per connection. Default 100. */
  maxConcurrentStreams?: number;
  /** Longest time to receive a whole request; 0 for no bound, as in node:http. Default 120 000 ms. */
  requestTimeoutMs?: number;
  /** The bounds of response bytes clients leave unread (unsent-bytes.ts). Defaults 30 000 ms, 4 MiB and 16 MiB. */
  unsentBytes?: Pick<UnsentBytesOptions, "stallTimeoutMs" | "maxPerConnection" | "maxPerAddress">;
  /** Takes HTTP/2 streams before Node's compatibility layer (h2-streams.ts). Default: each as a request to the handler. */
  streams?: StreamHandler;
}

export interface SinglePortServer {
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Stops accepting connections, lets calls in flight finish for up to `graceMs`, then closes what is left. */
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
  const headersTimeoutMs = options.headersTimeoutMs ?? 10_000;
  const firstRequestTimeoutMs = options.firstRequestTimeoutMs ?? defaultConnectionLimits.firstRequestTimeoutMs;
  const idleTimeoutMs = options.idleTimeoutMs ?? defaultConnectionLimits.idleTimeoutMs;
  const requestTimeoutMs = options.requestTimeoutMs ?? 120_000;
  const maxConcurrentStreams = options.maxConcurrentStreams ?? 100;
  const { trustedProxies } = options;
  const logger = options.logger ?? silentLogger;

  const unread = boundUnreadResponses({ bounds: options.unsentBytes, trustedProxies, logger });
  const http1 = http1Server(handler, { headersTimeoutMs, requestTimeoutMs, idleTimeoutMs, logger });
  const refused = refusedStreams();
  const served = refused.served(handler);
  const http2 = http2Server(options.streams === undefined ? served : undefined, maxConcurrentStreams, logger);
  // With a stream handler, the compatibility layer's request and response are made only for what it does not answer.
  if (options.streams !== undefined) {
    serveStreams(http2, { streams: options.streams, handler: served, logger, refused: refused.has });
  }
  const budget = budgetStreams(http2, {
    maxStreamsPerAddress: options.maxStreamsPerAddress ?? defaultConnectionLimits.maxStreamsPerAddress,
    maxConcurrentStreams,
    trustedProxies,
    logger,
  });
  const idling = idleSessions(http2, { firstRequestTimeoutMs, idleTimeoutMs });
  const requests = timeRequests(requestTimeoutMs);
  // Each stream's bookkeeping, before the request handler (the compatibility layer's own listener) runs so that
  // a stream past its address's budget never reaches it and the first write is counted, and one close listener
  // that ends it all: listeners cost on every call.
  http2.prependListener("stream", (stream: ServerHttp2Stream, _headers: unknown, flags: number, raw: string[]) => {
    const session = stream.session;
    if (session === undefined) return; // already gone with its session: nothing to count or time
    if (headerListPastBound(session, raw, maxHeaderSize)) {
      refuseHeaderList(stream);
      refused.add(stream);
      return;
    }
    const addressStreams = budget.of(session);
    if (!addressStreams.opened()) {
      budget.refuse(stream);
      refused.add(stream);
      return;
    }
    const watched = unread.watchStream(stream, session, sessionAddress(session));
    if (watched.refused) refused.add(stream);
    const idle = idling.of(session);
    idle.streamOpened();
    const timer = requests.began(stream, flags);
    stream.on("close", () => {
      addressStreams.closed();
      watched.end();
      idle.streamClosed();
      requests.closed(timer);
    });
  });

  // No Nagle delay, as a node:http server sets on the connections it accepts itself (node:http2 sets it on those
  // handed to it): an HTTP/1.1 answer written in parts (gRPC-Web's message, then its trailer frame) would otherwise
  // wait for the client's delayed ACK.
  const tcp = createNetServer({ noDelay: true });
  const connections = capConnections(tcp, {
    maxConnections: options.maxConnections ?? defaultConnectionLimits.maxConnections,
    maxConnectionsPerAddress: options.maxConnectionsPerAddress ?? defaultConnectionLimits.maxConnectionsPerAddress,
    trustedProxies,
    logger,
  });
  tcp.on("connection", (socket) => {
    if (!connections.admit(socket)) return;
    sniffProtocol(socket, {
      firstRequestTimeoutMs,
      http1(socket) {
        unread.watchSocket(socket, socket.remoteAddress ?? "");
        http1.emit("connection", socket);
        socket.resume();
      },
      http2: (socket) => http2.emit("connection", socket),
    });
  });

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
      await closeGracefully({ tcp, http1, http2, sessions: idling.sessions, sockets: connections.open }, graceMs);
      unread.stop();
      requests.stop();
    },
  };
}
