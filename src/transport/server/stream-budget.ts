// The concurrent HTTP/2 streams granted to all the sessions of one client
// address together: past the budget a new session may open one at a time.
// nghttp2 refuses the rest (REFUSED_STREAM) before Node builds a stream for
// them, so the many connections of one client cannot flood the event loop or
// memory with streams (docs/reliability.md).
import type { Http2Server } from "node:http2";
import type { TrustedProxies } from "../node-http/client-address.js";
import { sessionAddress } from "../node-http/index.js";

export interface StreamBudgetOptions {
  /** Concurrent streams of one session, as the server's settings announce. */
  maxConcurrentStreams: number;
  /** Concurrent streams of all the sessions of one address together. */
  maxStreamsPerAddress: number;
  /** Proxies that carry many clients' connections: their sessions keep `maxConcurrentStreams`. */
  trustedProxies: TrustedProxies | undefined;
}

/** Lowers the stream bound of each new session of `http2` to what is left of its address's budget. */
export function budgetStreams(http2: Http2Server, options: StreamBudgetOptions): void {
  const { maxConcurrentStreams, maxStreamsPerAddress, trustedProxies } = options;
  const granted = new Map<string, number>();
  http2.on("session", (session) => {
    const address = sessionAddress(session);
    if (trustedProxies?.has(address) === true) return;
    const before = granted.get(address) ?? 0;
    const streams = Math.max(1, Math.min(maxConcurrentStreams, maxStreamsPerAddress - before));
    if (streams < maxConcurrentStreams) session.settings({ maxConcurrentStreams: streams });
    granted.set(address, before + streams);
    session.once("close", () => {
      const left = granted.get(address)! - streams;
      if (left > 0) granted.set(address, left);
      else granted.delete(address);
    });
  });
}
