// A saved query's GET asked with `Accept: text/event-stream`: its results as
// Server-Sent Events (the HTML standard), fed by the watch hub. Each result is
// an `event: result` whose id is the ETag a JSON GET of the same rows carries
// and whose data is that GET's JSON body, on one line; a comment keeps idle
// connections (and the proxies between) open. The writer's backpressure is
// the hub's: a full response makes it hold the newest result only. A stream
// of a key the key file drops ends with an `event: error` (unauthenticated);
// each stream is counted and recorded as one call when it ends.
import type { ConnectError } from "@connectrpc/connect";
import { presentedSecret } from "../../auth/index.js";
import type { EndpointResult, WatchHub, WatchStream } from "../../endpoints/index.js";
import {
  type Call,
  cacheHeaders,
  codeName,
  type EndWatchCall,
  type HttpResponse,
  varyCredential,
  type WatchRevocation,
} from "../node-http/index.js";
import { errorResponse } from "./error-body.js";

/** The heartbeat's default period: 15 s. */
export const defaultHeartbeatMs = 15_000;

export interface EventStreamsOptions {
  hub: WatchHub;
  /** How often an idle stream gets a `: heartbeat` comment. Default 15,000 ms. */
  heartbeatMs?: number;
  /** Ends the streams of a key the key file no longer holds. Default: none followed. */
  revocation?: WatchRevocation;
  /** Counts and records each stream when it ends. Default: nothing. */
  endCall?: EndWatchCall;
}

export interface EventStreams {
  /**
   * Answers the call's prepared call (its caller authenticated, its parameters
   * checked) as an event stream. Throws, before anything is written, what the
   * hub throws: RESOURCE_EXHAUSTED past a watch bound, UNAVAILABLE at shutdown.
   */
  serve(call: Call): void;
}

/** Whether a GET asks for an event stream: its Accept names text/event-stream. */
export function asksEventStream(call: Call): boolean {
  const accept = call.head.headers.accept;
  return call.head.method === "GET" && accept !== undefined && accept.includes("text/event-stream");
}

const heartbeat = Buffer.from(": heartbeat\n\n");
const endOfEvent = Buffer.from("\n\n");

export function createEventStreams(options: EventStreamsOptions): EventStreams {
  const { hub } = options;
  const heartbeatMs = options.heartbeatMs ?? defaultHeartbeatMs;
  const endCall = options.endCall ?? (() => {});

  return {
    serve(call) {
      const prepared = call.prepared!;
      let response: HttpResponse | undefined;
      // A reconnect that holds the current result already is not sent it again.
      let skipTag = headerText(call.head.headers["last-event-id"]);
      let ended = false;
      let timer: NodeJS.Timeout | undefined;
      let first: EndpointResult | undefined;
      let bytes = 0;
      call.started = performance.now();
      let revoked: ReturnType<WatchRevocation["follow"]> | undefined;
      const write = (chunk: Buffer) => {
        bytes += chunk.length;
        return response!.write(chunk);
      };
      /** Ends the stream once: `ok` when the client left, else the code it was ended with. */
      const stop = (code: string) => {
        ended = true;
        clearInterval(timer);
        revoked?.stop();
        endCall(call, {
          endpoint: prepared.endpoint.definition.name,
          protocol: "get",
          code,
          first,
          responseBytes: bytes,
        });
      };
      const endWith = (error: ConnectError) => {
        stop(codeName(error.code));
        const event = errorEvent(error);
        bytes += event.length;
        response!.end(event);
      };
      const stream: WatchStream = hub.watch(
        prepared,
        { tenant: call.credential!.id, requestId: call.requestId, address: call.address },
        {
          next(result) {
            if (ended || response === undefined) return true;
            first ??= result;
            const id = cacheHeaders(result, "json", 0).etag;
            if (skipTag !== undefined) {
              const skip = skipTag === id;
              skipTag = undefined;
              if (skip) return true;
            }
            if (write(resultEvent(id, result))) return true;
            response.once("drain", () => stream.drained());
            return false;
          },
          end(error) {
            if (ended || response === undefined) return;
            endWith(error);
          },
        },
      );
      // Followed once the hub admitted the stream: a refused one is not.
      revoked = options.revocation?.follow(presentedSecret(call));
      // The CORS headers are set on the response by exchange().
      const [, answer] = call.exchange();
      response = answer;
      response.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-store",
        "x-accel-buffering": "no",
        "x-request-id": call.requestId,
        vary: call.cors.vary(`Accept, ${varyCredential}`),
      });
      // The head goes now: a client waits for it before the first result, which may take a query.
      if ("flushHeaders" in response) response.flushHeaders();
      response.once("close", () => {
        if (ended) return;
        stop("ok");
        stream.close();
      });
      const revokedSignal = revoked?.signal;
      revokedSignal?.addEventListener("abort", () => {
        if (ended) return;
        stream.close();
        endWith(revokedSignal.reason as ConnectError);
      });
      timer = setInterval(() => {
        if (!ended) write(heartbeat);
      }, heartbeatMs);
      timer.unref();
    },
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
