// How an HTTP/2 stream and an HTTP/1.1 connection are counted in the
// unsent-bytes tallies (unsent-bytes.ts): what each queues, how each is
// stopped, and its writes counted as they are made.
import { constants as http2Constants, type Http2Session, type ServerHttp2Stream } from "node:http2";
import type { Socket } from "node:net";
import type { UnsentBytes, WatchedSender } from "../unsent-bytes.js";

/**
 * Counts the response bytes of an HTTP/2 stream from `address`: a stall or
 * the connection's bound resets it (RST_STREAM with CANCEL), the address's
 * bound closes its connection (GOAWAY with ENHANCE_YOUR_CALM). Called before
 * the request's handler runs, so that its first write is counted. The caller
 * ends the watch when the stream closes (one `close` listener per stream
 * does all of the server's bookkeeping), and need not run the handler when
 * it is `refused`.
 */
export function watchHttp2Stream(
  unsent: UnsentBytes,
  stream: ServerHttp2Stream,
  session: Http2Session,
  address: string,
): WatchedSender {
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
}

/** Counts the response bytes of an HTTP/1.1 connection: a stall or a bound closes it. */
export function watchHttp1Socket(unsent: UnsentBytes, socket: Socket, address: string): void {
  const watched = unsent.watch(
    { queued: () => socket.writableLength, stop: () => socket.destroy(), destroy: () => socket.destroy() },
    socket,
    address,
  );
  countWrites(socket, watched);
  socket.once("close", () => watched.end());
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
