// A bare HTTP/2 stream as the fast paths read and answer it, beside Node's
// requests and responses: the handler of such streams, the request's head
// (method, target, headers, as a Node request has them), its client address,
// and a whole answer written with stream.respond and end.
import type { Http2Session, IncomingHttpHeaders, ServerHttp2Stream } from "node:http2";
import { type CorsHeaders, type HttpRequest, type HttpResponse, setCorsHeaders } from "./request-handler.js";

/** The compatibility request and response of a stream (Http2ServerRequest, Http2ServerResponse), made on first use. */
export type ToRequest = () => [HttpRequest, HttpResponse];

/**
 * `toRequest`, made once, its response given `corsHeaders` (none: set
 * already) before anything answers on it: what every path but a hit's one
 * writeHead goes on with.
 */
export function withCorsHeadersSet(toRequest: ToRequest, corsHeaders: CorsHeaders | undefined): ToRequest {
  let made: [HttpRequest, HttpResponse] | undefined;
  return () => {
    if (made === undefined) {
      made = toRequest();
      setCorsHeaders(made[1], corsHeaders);
    }
    return made;
  };
}

/**
 * Takes a bare HTTP/2 stream: answers it on the stream, with `corsHeaders`
 * before its own, or calls `toRequest` and goes on with the request
 * and response (the request handler, or the rest of its own work).
 */
export type StreamHandler = (
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  toRequest: ToRequest,
  corsHeaders: CorsHeaders,
) => void;

/** What the fast paths read of a request: a Node request (HTTP/1.1 or HTTP/2) has it, and so has a bare stream's. */
export interface RequestHead {
  method?: string;
  /** Path and query. */
  url?: string;
  headers: IncomingHttpHeaders;
  httpVersionMajor: number;
}

/** The head of a stream's request. */
export function streamHead(headers: IncomingHttpHeaders): RequestHead {
  return { method: headers[":method"], url: headers[":path"], headers, httpVersionMajor: 2 };
}

/** Each session's client address, read once: its socket looks its peer up afresh on each read. */
const sessionAddresses = new WeakMap<Http2Session, string>();

/** The client address of an HTTP/2 session's connection. */
export function sessionAddress(session: Http2Session): string {
  let address = sessionAddresses.get(session);
  if (address === undefined) {
    address = session.socket?.remoteAddress ?? "";
    sessionAddresses.set(session, address);
  }
  return address;
}

/** The client address of a stream's connection. */
export function streamAddress(stream: ServerHttp2Stream): string {
  const session = stream.session;
  return session === undefined ? "" : sessionAddress(session);
}

/**
 * Writes a whole answer on `stream`: the status (added to `headers`, which
 * hold all the others; Node adds the date), and the body unless the request
 * was HEAD. A stream its caller reset meanwhile is answered nothing.
 */
export function respondOnStream(
  stream: ServerHttp2Stream,
  method: string | undefined,
  status: number,
  headers: Record<string, string | number>,
  body: Buffer,
): void {
  if (stream.destroyed || stream.closed) return;
  headers[":status"] = status;
  if (method === "HEAD") {
    stream.respond(headers, { endStream: true });
  } else {
    stream.respond(headers);
    stream.end(body);
  }
}
