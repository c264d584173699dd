// The bound on an HTTP/2 request's header list, the same as HTTP/1.1's header
// block (16 KiB by default). The server announces it in its SETTINGS, and Node
// enforces it (RST_STREAM(ENHANCE_YOUR_CALM)) only once the client has
// acknowledged them: a stream sent in the connection's first flight, before
// the acknowledgement, would carry a header list of any size. Those are
// measured here and answered 431 before any handler runs.
import type { Http2Session, ServerHttp2Stream } from "node:http2";

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
