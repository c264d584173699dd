// A saved query's GET asked with `Accept: text/event-stream`: its results as
// Server-Sent Events (the HTML standard), on a watch session
// (node-http/watch-session.ts), which decides when the stream ends. Each
// result is an `event: result` whose id is the ETag a JSON GET of the same
// rows carries and whose data is that GET's JSON body, on one line; a
// `: heartbeat` comment keeps idle connections (and the proxies between)
// open; an end other than the client leaving is an `event: error`.
import type { Message } from "@bufbuild/protobuf";
import type { ConnectError } from "@connectrpc/connect";
import type { EndpointResult } from "../../endpoints/index.js";
import {
  cacheHeaders,
  type HttpResponse,
  type OpenWatch,
  type ValidatedCall,
  varyCredential,
} from "../node-http/index.js";
import { errorResponse } from "./error-body.js";

/**
 * Answers the call as an event stream. Throws, before anything is written,
 * what the hub throws: RESOURCE_EXHAUSTED past a watch bound, UNAVAILABLE at
 * shutdown.
 */
export type ServeEventStream = (call: ValidatedCall, request: Message) => void;

/** Whether a GET asks for an event stream: its Accept names text/event-stream. */
export function asksEventStream(call: { head: ValidatedCall["head"] }): boolean {
  const accept = call.head.headers.accept;
  return call.head.method === "GET" && accept !== undefined && accept.includes("text/event-stream");
}

const heartbeat = Buffer.from(": heartbeat\n\n");
const endOfEvent = Buffer.from("\n\n");

export function createEventStreams(openWatch: OpenWatch): ServeEventStream {
  return (call, request) => {
    // A reconnect that holds the current result already is not sent it again.
    let skipTag = headerText(call.head.headers["last-event-id"]);
    let response: HttpResponse | undefined;
    let bytes = 0;
    const write = (chunk: Buffer) => {
      bytes += chunk.length;
      return response!.write(chunk);
    };
    call.started = performance.now();
    const session = openWatch({
      call,
      request,
      protocol: "get",
      writer: {
        result(result) {
          const id = cacheHeaders(result, "json", 0).etag;
          if (skipTag !== undefined) {
            const skip = skipTag === id;
            skipTag = undefined;
            if (skip) return true;
          }
          if (write(resultEvent(id, result))) return true;
          response!.once("drain", () => session.drained());
          return false;
        },
        heartbeat: () => write(heartbeat),
        end(error) {
          if (error === undefined || response!.writableEnded) return;
          const event = errorEvent(error);
          bytes += event.length;
          response!.end(event);
        },
        bytes: () => bytes,
      },
    });
    // The CORS headers are set on the response by exchange().
    [, response] = call.exchange();
    response.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
      "x-request-id": call.requestId,
      vary: call.cors.vary(`Accept, ${varyCredential}`),
    });
    // The head goes now: a client waits for it before the first result, which may take a query.
    if ("flushHeaders" in response) response.flushHeaders();
    response.once("close", () => session.end());
  };
}

/** `event: result`, the result's tag as its id, its JSON body as data. */
function resultEvent(id: string, result: EndpointResult): Buffer {
  return Buffer.concat([Buffer.from(`event: result\nid: ${id}\ndata: `), result.json(), endOfEvent]);
}

/** `event: error` with the JSON error body a GET would answer. */
function errorEvent(error: ConnectError): Buffer {
  return Buffer.from(`event: error\ndata: ${JSON.stringify(errorResponse(error).body)}\n\n`);
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
