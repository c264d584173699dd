// Closing the port: no new connections, calls in flight given a grace to
// finish (HTTP/2 sessions told with GOAWAY), then whatever is left ended.
import type { Server as Http1Server } from "node:http";
import type { Http2Server, Http2Session } from "node:http2";
import type { Server as NetServer, Socket } from "node:net";

/** What the port is made of, as close ends it. */
export interface PortParts {
  tcp: NetServer;
  http1: Http1Server;
  http2: Http2Server;
  /** The HTTP/2 sessions still open. */
  sessions: () => Iterable<Http2Session>;
  /** The TCP connections still open. */
  sockets: Iterable<Socket>;
}

/**
 * Stops accepting connections, lets calls in flight finish for up to `graceMs`, then closes whatever is left.
 * Resolves when all is closed.
 */
export async function closeGracefully(parts: PortParts, graceMs: number): Promise<void> {
  const { tcp, http1, http2, sessions, sockets } = parts;
  const closed = new Promise<void>((resolve) => tcp.close(() => resolve()));
  http1.close();
  http1.closeIdleConnections();
  for (const session of sessions()) session.close(); // GOAWAY: no new streams, current ones finish
  const drained = Promise.all([new Promise<void>((resolve) => http2.close(() => resolve())), closed]);
  const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), graceMs).unref());
  if ((await Promise.race([drained, timer])) === "timeout") {
    http1.closeAllConnections();
    for (const session of sessions()) session.destroy();
    for (const socket of sockets) socket.destroy();
    await drained;
  }
}
