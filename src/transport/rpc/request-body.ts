// Reading a request body up to a bound, and replaying what was read to the router followed by the rest.
import type { Readable } from "node:stream";

/** What `readBody` read: every chunk, and whether that is the whole body. */
export interface ReadBody {
  chunks: Buffer[];
  length: number;
  /** False when the body went past the bound, failed or was cut off: the rest, if any, is still in the request. */
  whole: boolean;
}

/** Reads `request` to its end, past `maxBytes` (then paused, the rest unread) or its failure; `done` once. */
export function readBody(
  request: Readable,
  maxBytes: number,
  done: (body: ReadBody) => void,
  /** Whether listeners stay on once the body is read whole (a long-lived stream lets them go). */
  keepListeners = true,
): void {
  const chunks: Buffer[] = [];
  let length = 0;
  let finished = false;
  // `on`, not `once`, and a body read whole keeps its listeners: each wrapper made and listener taken off costs on
  // every call. After the end they hear at most a close or an error (an HTTP/1.1 request aborted later emits one
  // because something listens), which `finished` makes them ignore.
  const finish = (whole: boolean) => {
    if (finished) return;
    finished = true;
    if (!whole || !keepListeners) {
      request.off("data", onData);
      request.off("end", onEnd);
      request.off("error", onStop);
      request.off("close", onStop);
    }
    // The rest of the body, if any, is the router's to read.
    if (!whole) request.pause();
    done({ chunks, length, whole });
  };
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    length += chunk.length;
    if (length > maxBytes) finish(false);
  };
  const onEnd = () => finish(true);
  const onStop = () => finish(false);
  request.on("data", onData);
  request.on("end", onEnd);
  request.on("error", onStop);
  request.on("close", onStop);
}

/** The bytes of a body read whole, in one buffer. */
export function bodyBytes(body: ReadBody): Buffer {
  return body.chunks.length === 1 ? body.chunks[0]! : Buffer.concat(body.chunks, body.length);
}

/** The body as the router reads it: the chunks read, then the rest of `request` (its failure met as it would be). */
export async function* replayedBody(body: ReadBody, request: Readable): AsyncIterable<Uint8Array> {
  yield* body.chunks;
  if (!body.whole) yield* request;
}
