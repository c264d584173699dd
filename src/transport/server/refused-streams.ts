// The HTTP/2 streams refused before their handler runs: past their address's
// stream budget, their unsent bytes already past their bound, or a header
// list past its bound (below); whichever listener comes after the port's
// bookkeeping leaves them alone.
//
// The header list is bound as HTTP/1.1's header block is (16 KiB by
// default). The server announces it in its SETTINGS, and Node enforces it
// (RST_STREAM(ENHANCE_YOUR_CALM)) only once the client has acknowledged them:
// a stream sent in the connection's first flight, before the acknowledgement,
// would carry a header list of any size. Those are measured here and
// answered 431.
import type { Http2Session, ServerHttp2Stream } from "node:http2";
import type { RequestHandler } from "../node-http/index.js";

/** An empty set of refused streams (`add`: already reset, its handler is not to run); `served(handler)` skips them. */
export function refusedStreams() {
  const refused = new WeakSet<ServerHttp2Stream>();
  return {
    add: (stream: ServerHttp2Stream) => void refused.add(stream),
    has: (stream: ServerHttp2Stream) => refused.has(stream),
    served:
      (handler: RequestHandler): RequestHandler =>
      (request, response) => {
        // Served only by the HTTP/2 server: each request stands on a stream.
        if (!refused.has((request as unknown as { stream: ServerHttp2Stream }).stream)) handler(request, response);
      },
  };
}

/**
 * Whether the header list of a stream of `session` (its `rawHeaders`: names
 * and values in turn) is past `maxSize` while Node does not bound it yet. Its
 * size is counted as HTTP/2 counts it: each field's name and value octets and
 * 32 more.
 */
export function headerListPastBound(session: Http2Session, rawHeaders: readonly string[], maxSize: number): boolean {
  // Once acknowledged, Node bounds the list itself: no count on the calls of a settled connection.
  if (!session.pendingSettingsAck) return false;
  let size = 0;
  for (let i = 0; i < rawHeaders.length; i++) size += rawHeaders[i]!.length + (i % 2 === 0 ? 32 : 0);
  return size > maxSize;
}

/** Answers `stream` 431 with no body: its header list is past the bound. */
export function refuseHeaderList(stream: ServerHttp2Stream): void {
  stream.on("error", ignore);
  if (stream.destroyed || stream.headersSent) return;
  stream.respond({ ":status": 431 }, { endStream: true });
}

function ignore(): void {}
