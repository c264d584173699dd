// HTTP/2 streams before Node's compatibility layer: each stream goes to a
// stream handler with its headers, which answers a cache hit on the stream
// itself (stream.respond and end) and asks for the compatibility request and
// response (Http2ServerRequest, Http2ServerResponse) only for the rest. Those
// are made as Node makes them for a request listener, with its handling of
// CONNECT and Expect, so the rest is served as a request listener would be.
import {
  constants as http2Constants,
  Http2ServerRequest,
  Http2ServerResponse,
  type Http2Server,
  type IncomingHttpHeaders,
  type ServerHttp2Stream,
} from "node:http2";
import type { Logger } from "../observability/index.js";
import {
  handlerThrew,
  type HttpRequest,
  type HttpResponse,
  type RequestHandler,
  type StreamHandler,
  type MakeRequestAndResponse,
} from "./call/index.js";

export interface ServedStreams {
  /** Takes each stream with its headers, answering on it or asking for a request and response. */
  streams: StreamHandler;
  /** Takes what Node's compatibility layer would not hand a request listener as is (CONNECT, Expect). */
  handler: RequestHandler;
  /** Where an exception of `streams` is logged. */
  logger: Logger;
  /** Whether a stream was already answered, and is left alone. Default: none is. */
  refused?: (stream: ServerHttp2Stream) => boolean;
}

/** Serves `server`'s streams as `served` says. */
export function serveStreams(server: Http2Server, served: ServedStreams): void {
  const { streams, handler, logger, refused = () => false } = served;
  server.on(
    "stream",
    (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, _flags: number, rawHeaders: string[]) => {
      if (refused(stream)) return;
      let made: [HttpRequest, HttpResponse] | undefined;
      const makeRequestAndResponse: MakeRequestAndResponse = () =>
        (made ??= [
          new Http2ServerRequest(stream, headers, {}, rawHeaders) as unknown as HttpRequest,
          new Http2ServerResponse(stream) as unknown as HttpResponse,
        ]);
      try {
        if (headers[":method"] === "CONNECT" || headers.expect !== undefined)
          return compatibility(handler, makeRequestAndResponse, headers);
        // A caller that resets its stream fails it with an error nobody else listens for: it left, nothing more.
        stream.on("error", ignore);
        streams(stream, headers, makeRequestAndResponse);
      } catch (error) {
        // As for a request handler: a 500 and an error line, never the process.
        const [request, response] = makeRequestAndResponse();
        handlerThrew(request, response, error, logger);
      }
    },
  );
}

/** What Node does for a request listener with CONNECT (405) and Expect (100 Continue, else 417). */
function compatibility(
  handler: RequestHandler,
  makeRequestAndResponse: MakeRequestAndResponse,
  headers: IncomingHttpHeaders,
): void {
  const [request, response] = makeRequestAndResponse();
  const writable = response as unknown as { statusCode: number; end(): void; writeContinue(): void };
  if (headers[":method"] === "CONNECT") {
    writable.statusCode = http2Constants.HTTP_STATUS_METHOD_NOT_ALLOWED;
    writable.end();
  } else if (headers.expect === "100-continue") {
    writable.writeContinue();
    handler(request, response);
  } else {
    writable.statusCode = http2Constants.HTTP_STATUS_EXPECTATION_FAILED;
    writable.end();
  }
}

function ignore(): void {}
