// The port's bounds on response bytes its clients leave unread
// (unsent-bytes.ts) on both protocols: swept for stalls, summed up in one log
// line a second at most.
import type { Http2Session, ServerHttp2Stream } from "node:http2";
import type { Socket } from "node:net";
import type { Logger } from "../../observability/index.js";
import type { TrustedProxies } from "../node-http/client-address.js";
import { createUnsentBytes, defaultUnsentBytes, type UnsentBytesOptions, type WatchedSender } from "../unsent-bytes.js";
import { watchHttp1Socket, watchHttp2Stream } from "./unsent-bytes-watch.js";

export interface UnreadResponsesOptions {
  /** The bounds; their defaults are unsent-bytes.ts's. */
  bounds: Pick<UnsentBytesOptions, "stallTimeoutMs" | "maxPerConnection" | "maxPerAddress"> | undefined;
  /** Proxies that carry many clients' connections: bound per connection only. */
  trustedProxies: TrustedProxies | undefined;
  /** Where stopped responses are summed up. */
  logger: Logger;
}

export interface UnreadResponses {
  /** Counts the response bytes of an HTTP/1.1 connection from `address`. */
  watchSocket(socket: Socket, address: string): void;
  /**
   * Counts the response bytes of an HTTP/2 stream, before its handler runs; the caller ends it on close, and keeps
   * it from its handler when it is `refused` (its address's bytes already past their bound).
   */
  watchStream(stream: ServerHttp2Stream, session: Http2Session, address: string): WatchedSender;
  /** Stops the sweep. */
  stop(): void;
}

/** Bounds the bytes each connection and client address leaves unread. */
export function boundUnreadResponses(options: UnreadResponsesOptions): UnreadResponses {
  const { trustedProxies, logger } = options;
  let stopped: Record<string, number> | undefined;
  const unsent = createUnsentBytes({
    ...options.bounds,
    unboundedAddress: (address) => trustedProxies?.has(address) === true,
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
  const stallTimeoutMs = options.bounds?.stallTimeoutMs ?? defaultUnsentBytes.stallTimeoutMs;
  const sweep = setInterval(() => unsent.sweep(), Math.min(1_000, stallTimeoutMs / 2));
  sweep.unref();
  return {
    watchSocket: (socket, address) => watchHttp1Socket(unsent, socket, address),
    watchStream: (stream, session, address) => watchHttp2Stream(unsent, stream, session, address),
    stop: () => clearInterval(sweep),
  };
}
