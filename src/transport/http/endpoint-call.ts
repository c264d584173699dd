// Answers one GET call of a saved query, its parameters already bound: a
// cached result at once, without a promise in between, else the warehouse;
// then the metrics and, for failures (or every call at LOG_LEVEL=debug), a
// log line. Nothing here is made per call that a cache hit does not need.
// The body is in the format and content coding the caller asked for
// (content-negotiation.ts, response-body.ts), with Server-Timing and, where
// the warehouse reports them, the rows and bytes its query read.
import { Code, ConnectError } from "@connectrpc/connect";
import {
  type CallContext,
  type Endpoint,
  type EndpointResult,
  type EndpointService,
  type Freshness,
  freshnessFrom,
  type PreparedCall,
} from "../../endpoints/index.js";
import type { Logger, Metrics } from "../../observability/index.js";
import {
  encodingFromAcceptEncoding,
  encodings,
  formatFromAccept,
  IDENTITY,
  JSON_FORMAT,
  type BodyFormat,
  type ContentEncoding,
} from "./content-negotiation.js";
import { bodyFormats } from "./body-formats.js";
import { sendError } from "./error-body.js";
import { type Call, codeName, type RecordCall, recordNoCall, warehouseMsOf } from "../node-http/index.js";
import { createCacheHeadersWriter, type WriteCacheHeaders } from "./cache-answer.js";
import { createResponseBodies, type ResponseBodies } from "./response-body.js";
import { createCompressor, type ResponseCompressionOptions } from "./response-encoding.js";
import { nextPageLink } from "./next-page-link.js";

/** A prepared GET call, with the format its query string named (else `Accept` decides). */
export type GetCall = PreparedCall & { format?: BodyFormat };

export interface EndpointCallOptions {
  service: EndpointService;
  metrics: Metrics;
  logger: Logger;
  /** Deadline of a GET call. */
  defaultTimeoutMs: number;
  /** Compression levels. Default: see ResponseCompressionOptions. */
  compression?: ResponseCompressionOptions;
  /** Called at the end of each call, within it (for its trace span). Default: nothing. */
  observe?: HttpCallObserver;
  /** STALE_IF_ERROR_SECONDS, named in Cache-Control; 0 names none. Default 3600. */
  staleIfErrorSeconds?: number;
  /** Records each call's end in the call log. Default: nothing. */
  record?: RecordCall;
}

/** What a GET call came to: its saved query, code (`ok`, or a code name such as `not_found`) and caller. */
export type HttpCallObserver = (event: { endpoint: string; code: string; caller: string }) => void;

export interface EndpointCalls {
  /**
   * Answers the call's prepared call if its result is cached, at once, the
   * CORS headers first: true when it did. The fast path of GET hits;
   * anything else is `answer`'s.
   */
  answerHit(call: Call): boolean;
  /** Answers the call's prepared call; failures become the JSON error body. */
  answer(call: Call): void;
  /** Answers a call of `endpoint` whose parameters were refused, counted and logged as calls are. */
  reject(call: Call, endpoint: Endpoint, error: unknown): void;
}

export function createEndpointCalls(options: EndpointCallOptions): EndpointCalls {
  const { service, metrics, logger, defaultTimeoutMs } = options;
  const logEveryCall = logger.enabled("debug");
  const answering: Answering = {
    bodies: createResponseBodies(createCompressor(options.compression)),
    writeCacheHeaders: createCacheHeadersWriter(options.staleIfErrorSeconds ?? 3600),
  };
  const record = options.record ?? recordNoCall;

  function finish(call: Call, endpoint: Endpoint, code: string, result?: EndpointResult) {
    const ms = performance.now() - call.started;
    const name = endpoint.definition.name;
    const caller = call.credential!.id;
    metrics.recordCall(name, "http", code, ms / 1000);
    metrics.countCaller(caller, code);
    options.observe?.({ endpoint: name, code, caller });
    record(call, { endpoint: name, protocol: "get", code, result, responseBytes: call.responseBytes });
    const requestId = call.requestId;
    if (code !== "ok")
      logger.info("call", { requestId, caller, endpoint: name, protocol: "http", code, durationMs: Math.round(ms) });
    else if (logEveryCall)
      logger.debug("call", { requestId, caller, endpoint: name, protocol: "http", code, durationMs: Math.round(ms) });
  }

  function fail(call: Call, endpoint: Endpoint, error: unknown) {
    const connectError = ConnectError.from(error);
    if (connectError.code === Code.Internal) {
      logger.error("get failed", {
        requestId: call.requestId,
        caller: call.credential!.id,
        endpoint: endpoint.definition.name,
        protocol: "http",
        cause: connectError.cause ?? error,
      });
    }
    finish(call, endpoint, codeName(connectError.code));
    const exchange = call.exchange();
    const [, response] = exchange;
    if (!response.headersSent) sendError(exchange, call.requestId, connectError);
  }

  return {
    answerHit(call) {
      const prepared = call.prepared!;
      const requestHeaders = call.head.headers;
      // A caller's freshness directive is execute's to read.
      if (requestHeaders["cache-control"] !== undefined || requestHeaders.pragma !== undefined) return false;
      call.started = performance.now();
      const hit = service.peek(prepared);
      if (hit === undefined) return false;
      sendResult(answering, call, hit, performance.now() - call.started);
      finish(call, prepared.endpoint, "ok", hit);
      return true;
    },
    answer(call) {
      const prepared = call.prepared!;
      call.started = performance.now();
      const requestHeaders = call.head.headers;
      const freshness = freshnessFrom(requestHeaders["cache-control"], headerValue(requestHeaders.pragma));
      const hit = freshness === undefined ? service.peek(prepared) : undefined;
      const lookupMs = performance.now() - call.started;
      // Every answer but a hit's one write goes through the response, the CORS headers set on it.
      call.exchange();
      if (hit !== undefined) {
        sendResult(answering, call, hit, lookupMs);
        return finish(call, prepared.endpoint, "ok", hit);
      }
      const context = new GetCallContext(call, defaultTimeoutMs, freshness);
      service.execute(prepared, context).then(
        (result) => {
          try {
            sendResult(answering, call, result, lookupMs);
          } catch (error) {
            // Rows that do not fit the row message: a bug, answered as INTERNAL.
            return fail(call, prepared.endpoint, error);
          }
          finish(call, prepared.endpoint, "ok", result);
        },
        (error: unknown) => fail(call, prepared.endpoint, error),
      );
    },
    reject(call, endpoint, error) {
      call.started = performance.now();
      fail(call, endpoint, error);
    },
  };
}

/** The context of a GET call; its abort signal is made only if the warehouse asks for it. */
class GetCallContext implements CallContext {
  private abort: AbortController | undefined;
  constructor(
    private readonly call: Call,
    readonly timeoutMs: number,
    readonly freshness: Freshness | undefined,
  ) {}
  get requestId(): string {
    return this.call.requestId;
  }
  get tenant(): string {
    return this.call.credential!.id;
  }
  get signal(): AbortSignal {
    if (this.abort === undefined) {
      const abort = (this.abort = new AbortController());
      const [, response] = this.call.exchange();
      // Only a client that leaves before the answer cancels the call.
      response.once("close", () => {
        if (!response.writableFinished) abort.abort();
      });
    }
    return this.abort.signal;
  }
}

const contentTypes = bodyFormats.map((f) => f.contentType);

/** What every GET answer of this service is written with. */
interface Answering {
  bodies: ResponseBodies;
  writeCacheHeaders: WriteCacheHeaders;
}

/**
 * 200 with the CORS headers (unless set on the response already), then the
 * result's body in the asked format and coding, its cache status and age
 * when it has them, Server-Timing, and the rows and bytes read when known
 * (for a hit, those of the computation it was made by).
 */
function sendResult(answering: Answering, call: Call, result: EndpointResult, lookupMs: number): void {
  const { bodies, writeCacheHeaders } = answering;
  const requestHeaders = call.head.headers;
  const accept = requestHeaders.accept;
  const format = call.prepared!.format ?? (accept === undefined ? JSON_FORMAT : formatFromAccept(accept));
  const acceptEncoding = requestHeaders["accept-encoding"];
  const encoding: ContentEncoding =
    acceptEncoding === undefined ? IDENTITY : encodingFromAcceptEncoding(acceptEncoding);
  const headers = call.corsHeadersToWrite();
  headers["x-request-id"] = call.requestId;
  if (writeCacheHeaders(call, headers, result, format)) return;
  const hit = result.cache?.status === "HIT";
  let body = hit ? bodies.ready(result, format, encoding) : undefined;
  let serializeMs: number | undefined;
  if (body === undefined) {
    const before = performance.now();
    body = bodies.make(result, call.prepared!.endpoint, format, encoding);
    serializeMs = performance.now() - before;
  }
  headers["content-type"] = contentTypes[format]!;
  headers["content-length"] = String(body.length);
  headers["server-timing"] = serverTiming(result, lookupMs, serializeMs);
  if (encoding !== IDENTITY) headers["content-encoding"] = encodings[encoding];
  if (result.nextPageToken !== undefined)
    headers.link = nextPageLink(call.head.url ?? "/", call.prepared!.page!.parameter, result.nextPageToken);
  const statistics = result.computation.statistics;
  if (statistics !== undefined) {
    headers["x-rows-read"] = String(statistics.rowsRead);
    headers["x-bytes-read"] = String(statistics.bytesRead);
  }
  call.reply(200, headers, body);
  call.responseBytes = call.head.method === "HEAD" ? 0 : body.length;
}

/**
 * `cache;desc="hit";dur=…` for a hit (with `serialize` when its body had to
 * be made); for a computed result the cache lookup (when the endpoint is
 * cached), the warehouse query and the serialisation, in milliseconds.
 */
function serverTiming(result: EndpointResult, lookupMs: number, serializeMs: number | undefined): string {
  const made = serializeMs === undefined ? "" : `, serialize;dur=${serializeMs.toFixed(3)}`;
  if (result.cache?.status === "HIT") return `cache;desc="hit";dur=${lookupMs.toFixed(3)}${made}`;
  const computedMs = result.computation.serializeMs;
  const cache = result.cache === undefined ? "" : `cache;desc="miss";dur=${lookupMs.toFixed(3)}, `;
  return `${cache}warehouse;dur=${warehouseMsOf(result).toFixed(3)}, serialize;dur=${(computedMs + (serializeMs ?? 0)).toFixed(3)}`;
}

/** A header Node may hand as a list, as one comma-separated value. */
function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}
