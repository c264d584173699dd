// A bare HTTP/2 stream as the fast paths read it, beside Node's requests and
// responses: the handler of such streams, the request's head (method,
// target, headers, as a Node request has them) and its client address.
import type { Http2Session, IncomingHttpHeaders, ServerHttp2Stream } from "node:http2";
import type { MakeRequestAndResponse } from "./request-handler.js";

/**
 * Takes a bare HTTP/2 stream: answers it on the stream, or calls
 * `makeRequestAndResponse` and goes on with the request and response.
 */
export type StreamHandler = (
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  makeRequestAndResponse: MakeRequestAndResponse,
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
