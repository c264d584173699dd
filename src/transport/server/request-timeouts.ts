// An HTTP/2 request must be whole by the request timeout, as on HTTP/1.1: the
// streams whose request has not ended yet are kept in the order they began,
// and a sweep cancels those past it, as node:http looks at its connections,
// instead of a timer per stream. A stream whose headers ended its request (a
// GET, most often) is not kept. A list, not a Map: collections/linked-list.ts
// says why.
import { constants as http2Constants, type ServerHttp2Stream } from "node:http2";
import { type Link, LinkedList } from "../../collections/index.js";

interface Unfinished {
  stream: ServerHttp2Stream;
  began: number;
}

/** A stream's place among the unfinished requests, or undefined for one not timed. */
export type RequestTimer = Link<Unfinished> | undefined;

/**
 * Cancels (RST_STREAM with CANCEL) each HTTP/2 request not whole
 * `requestTimeoutMs` after it began: `began` times the request of a stream
 * unless its headers (`flags`) ended it, `closed` stops timing it.
 */
export function timeRequests(requestTimeoutMs: number) {
  const unfinished = new LinkedList<Unfinished>();
  // 0 (or Infinity) is no request timeout, as for node:http.
  const timed = requestTimeoutMs > 0 && Number.isFinite(requestTimeoutMs);
  const sweep = !timed
    ? undefined
    : setInterval(
        () => {
          const now = performance.now();
          // In the order they began: the first one not yet due ends the sweep.
          for (const link of unfinished) {
            const { stream, began } = link.item;
            if (now - began < requestTimeoutMs) break;
            unfinished.remove(link);
            if (!stream.destroyed && stream.state.remoteClose !== 1) stream.close(http2Constants.NGHTTP2_CANCEL);
          }
        },
        Math.min(1_000, requestTimeoutMs / 2),
      ).unref();
  return {
    began: (stream: ServerHttp2Stream, flags: number): RequestTimer =>
      timed && (flags & http2Constants.NGHTTP2_FLAG_END_STREAM) === 0
        ? unfinished.push({ stream, began: performance.now() })
        : undefined,
    closed(timer: RequestTimer): void {
      if (timer !== undefined) unfinished.remove(timer);
    },
    stop: () => clearInterval(sweep),
  };
}
