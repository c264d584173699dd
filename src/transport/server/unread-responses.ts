// The port's bounds on response bytes its clients leave unread
// (unsent-bytes.ts) on both protocols: swept for stalls, summed up in one log
// line a second at most.
import { constants as http2Constants, type Http2Session, type ServerHttp2Stream } from "node:http2";
import type { Socket } from "node:net";
import type { Logger } from "../../observability/index.js";
import type { TrustedProxies } from "../node-http/client-address.js";
import { createUnsentBytes, defaultUnsentBytes, type UnsentBytesOptions, type WatchedSender } from "../unsent-bytes.js";

export interface UnreadResponsesOptions {
  /** The bounds; their defaults are unsent-bytes.ts's. */
  bounds: Pick<UnsentBytesOptions, "stallTimeoutMs" | "maxPerConnection" | "maxPerAddress"> | undefined;
  /** Proxies that carry many clients' connections: bound per connection only. */
  trustedProxies: TrustedProxies | undefined;
  /** Where stopped responses are summed up. */
  logger: Logger;
}

/**
 * Bounds the bytes each connection and client address leaves unread:
 * `watchSocket` counts an HTTP/1.1 connection's, `watchStream` an HTTP/2
 * stream's, `stop` ends the sweep.
 */
export function boundUnreadResponses(options: UnreadResponsesOptions) {
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
    /** A stall or a bound closes the connection. */
    watchSocket(socket: Socket, address: string): void {
      const watched = unsent.watch(
        { queued: () => socket.writableLength, stop: () => socket.destroy(), destroy: () => socket.destroy() },
        socket,
        address,
      );
      countWrites(socket, watched);
      socket.once("close", () => watched.end());
    },
    /**
     * A stall or the connection's bound resets the stream (RST_STREAM with
     * CANCEL), the address's bound closes its connection (GOAWAY with
     * ENHANCE_YOUR_CALM). Called before the request's handler runs, so that
     * its first write is counted; the caller ends the watch when the stream
     * closes, and need not run the handler when it is `refused`.
     */
    watchStream(stream: ServerHttp2Stream, session: Http2Session, address: string): WatchedSender {
      const watched = unsent.watch(
        {
          queued: () => stream.writableLength,
          // CANCEL, not ENHANCE_YOUR_CALM: Node makes an Error (and its stack) for every stream reset with any
          // other code. An address past its bound has its connection closed instead, all its streams in one
          // step: resetting streams one by one costs a write to the socket each.
          stop: (reason) =>
            reason === "address bound"
              ? session.destroy(undefined, http2Constants.NGHTTP2_ENHANCE_YOUR_CALM)
              : stream.close(http2Constants.NGHTTP2_CANCEL),
          destroy: () => session.destroy(),
        },
        session,
        address,
      );
      countWrites(stream, watched);
      return watched;
    },
    stop: () => clearInterval(sweep),
  };
}

/** Wraps `stream`'s write and end so that each counts what it queued. */
function countWrites(stream: NodeJS.WritableStream, watched: WatchedSender) {
  const writable = stream as unknown as Record<"write" | "end", (...args: unknown[]) => unknown>;
  for (const method of ["write", "end"] as const) {
    const original = writable[method];
    writable[method] = function (this: unknown, ...args: unknown[]) {
      const result = original.apply(this, args);
      watched.written();
      return result;
    };
  }
}
