// One TCP port for HTTP/1.1 and HTTP/2 cleartext (prior knowledge): the first
// bytes of a connection decide which server takes it. gRPC needs HTTP/2;
// Connect, gRPC-Web and plain GET work on both.
import { createServer as createHttp1Server } from "node:http";
import { createServer as createHttp2Server, type Http2Session } from "node:http2";
import type { connectNodeAdapter } from "@connectrpc/connect-node";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";

const preface = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

/** A handler for both HTTP versions, as connectNodeAdapter returns. */
export type RequestHandler = ReturnType<typeof connectNodeAdapter>;

export interface SinglePortServerOptions {
  /** Longest time to wait for a client's request headers. Default 10 000 ms. */
  headersTimeoutMs?: number;
  /** Concurrent HTTP/2 streams per connection. Default 100. */
  maxConcurrentStreams?: number;
  /** Largest request header block in bytes. Default 16 384. */
  maxHeaderSize?: number;
  /** Longest time to receive a whole request. Default 120 000 ms. */
  requestTimeoutMs?: number;
}

export interface SinglePortServer {
  listen(port: number, host: string): Promise<AddressInfo>;
  /**
   * Stops accepting connections, lets calls in flight finish for up to
   * `graceMs`, then closes whatever is left. Resolves when all is closed.
   */
  close(graceMs: number): Promise<void>;
}

export function createSinglePortServer(handler: RequestHandler, options: SinglePortServerOptions = {}): SinglePortServer {
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const maxHeaderSize = options.maxHeaderSize ?? 16_384;
  const http1 = createHttp1Server(
    {
      maxHeaderSize,
      headersTimeout,
      requestTimeout: options.requestTimeoutMs ?? 120_000,
      // How often Node looks for connections past those timeouts (its default is 30 s).
      connectionsCheckingInterval: Math.min(1_000, headersTimeout),
    },
    guarded(handler) as never,
  );
  http1.keepAliveTimeout = 5_000;
  // Node enforces headersTimeout and requestTimeout from a timer it starts on
  // "listening"; this server never listens itself (the TCP server hands it
  // connections), so start that timer here. server.close() stops it.
  http1.emit("listening");
  const http2 = createHttp2Server(
    { settings: { maxConcurrentStreams: options.maxConcurrentStreams ?? 100 }, maxSessionMemory: 32, maxHeaderListPairs: 128 },
    guarded(handler) as never,
  );
  const sessions = new Set<Http2Session>();
  http2.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  const sockets = new Set<Socket>();

  const tcp = createNetServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    socket.setTimeout(headersTimeout, () => socket.destroy());
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
        http1.emit("connection", socket);
        socket.resume();
      }
    };
    socket.on("data", onData);
    socket.on("error", () => socket.destroy());
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
      const closed = new Promise<void>((resolve) => tcp.close(() => resolve()));
      http1.close();
      http1.closeIdleConnections();
      for (const session of sessions) session.close(); // GOAWAY: no new streams, current ones finish
      const drained = Promise.all([
        new Promise<void>((resolve) => http2.close(() => resolve())),
        closed,
      ]);
      const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), graceMs).unref());
      if ((await Promise.race([drained, timer])) === "timeout") {
        http1.closeAllConnections();
        for (const session of sessions) session.destroy();
        for (const socket of sockets) socket.destroy();
        await drained;
      }
    },
  };
}

/**
 * An exception thrown synchronously by the handler ends that request with a
 * 500, never the process. (Asynchronous work in the handlers catches its own.)
 */
function guarded(handler: RequestHandler): RequestHandler {
  return (request, response) => {
    try {
      handler(request, response);
    } catch {
      const writable = response as unknown as { headersSent: boolean; writeHead(s: number, h: object): void; end(b?: string): void };
      if (!writable.headersSent) {
        writable.writeHead(500, { "content-type": "application/json; charset=utf-8" });
        writable.end(JSON.stringify({ error: { code: "internal", message: "internal error", details: [] } }));
      }
    }
  };
}
