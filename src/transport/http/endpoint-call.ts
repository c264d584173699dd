// Answers one GET call of a saved query, its parameters already bound: a
// cached result at once, without a promise in between, else the warehouse;
// then the metrics and, for failures (or every call at LOG_LEVEL=debug), a
// log line. Nothing here is made per call that a cache hit does not need.
// The body is in the format and content coding the caller asked for
// (content-negotiation.ts, response-body.ts), with Server-Timing and, where
// the warehouse reports them, the rows and bytes its query read.
import { Code, ConnectError } from "@connectrpc/connect";
import type { Credential } from "../../auth/index.js";
import type { CallContext, Endpoint, EndpointResult, EndpointService, PreparedCall } from "../../endpoints/index.js";
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
import {
  type CorsHeaders,
  copyCorsHeaders,
  codeName,
  type HttpRequest,
  type HttpResponse,
  type RequestHead,
} from "../node-http/index.js";
import { writeResponse } from "./respond.js";
import { createResponseBodies, type ResponseBodies } from "./response-body.js";
import { createCompressor, type ResponseCompressionOptions } from "./response-encoding.js";

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
}

/** What a GET call came to: its saved query, code (`ok`, or a code name such as `not_found`) and caller. */
export type HttpCallObserver = (event: { endpoint: string; code: string; caller: string }) => void;

/** Writes a whole answer: status, all its headers (content-type and length included) and body (dropped for HEAD). */
export type Reply = (status: number, headers: Record<string, string>, body: Buffer) => void;

export interface EndpointCalls {
  /**
   * Answers `call` if its result is cached, at once, with `corsHeaders`
   * (CORS; none: set already) first: true when it did. The fast path of GET
   * hits; anything else is `answer`'s.
   */
  answerHit(
    head: RequestHead,
    reply: Reply,
    corsHeaders: CorsHeaders | undefined,
    varyOrigin: boolean,
    call: GetCall,
    requestId: string,
    credential: Credential,
  ): boolean;
  /** Answers `call`; failures become the JSON error body. */
  answer(request: HttpRequest, response: HttpResponse, call: GetCall, requestId: string, credential: Credential): void;
  /** Answers a call of `endpoint` whose parameters were refused, counted and logged as calls are. */
  reject(
    request: HttpRequest,
    response: HttpResponse,
    endpoint: Endpoint,
    requestId: string,
    credential: Credential,
    error: unknown,
  ): void;
}

export function createEndpointCalls(options: EndpointCallOptions): EndpointCalls {
  const { service, metrics, logger, defaultTimeoutMs } = options;
  const logEveryCall = logger.enabled("debug");
  const bodies = createResponseBodies(createCompressor(options.compression));

  function finish(call: { endpoint: Endpoint }, requestId: string, caller: string, started: number, code: string) {
    const ms = performance.now() - started;
    const endpoint = call.endpoint.definition.name;
    metrics.recordCall(endpoint, "http", code, ms / 1000);
    metrics.countCaller(caller, code);
    options.observe?.({ endpoint, code, caller });
    if (code !== "ok")
      logger.info("call", { requestId, caller, endpoint, protocol: "http", code, durationMs: Math.round(ms) });
    else if (logEveryCall)
      logger.debug("call", { requestId, caller, endpoint, protocol: "http", code, durationMs: Math.round(ms) });
  }

  function fail(
    request: HttpRequest,
    response: HttpResponse,
    call: { endpoint: Endpoint },
    requestId: string,
    caller: string,
    started: number,
    error: unknown,
  ) {
    const connectError = ConnectError.from(error);
    if (connectError.code === Code.Internal) {
      logger.error("get failed", {
        requestId,
        caller,
        endpoint: call.endpoint.definition.name,
        protocol: "http",
        cause: connectError.cause ?? error,
      });
    }
    finish(call, requestId, caller, started, codeName(connectError.code));
    if (!response.headersSent) sendError(request, response, requestId, connectError);
  }

  return {
    answerHit(head, reply, corsHeaders, varyOrigin, call, requestId, credential) {
      const started = performance.now();
      const hit = service.peek(call, credential.id);
      if (hit === undefined) return false;
      const lookupMs = performance.now() - started;
      sendResult(bodies, head, reply, corsHeaders, varyOrigin, requestId, call, hit, lookupMs);
      finish(call, requestId, credential.id, started, "ok");
      return true;
    },
    answer(request, response, call, requestId, credential) {
      const started = performance.now();
      const hit = service.peek(call, credential.id);
      const lookupMs = performance.now() - started;
      const reply: Reply = (status, headers, body) => writeResponse(request, response, status, headers, body);
      // With a list of CORS origins, Vary: Origin is among the CORS headers set before this (transport/cors.ts).
      const varyOrigin = response.hasHeader("vary");
      if (hit !== undefined) {
        sendResult(bodies, request, reply, undefined, varyOrigin, requestId, call, hit, lookupMs);
        return finish(call, requestId, credential.id, started, "ok");
      }
      service.execute(call, new GetCallContext(response, requestId, defaultTimeoutMs, credential.id)).then(
        (result) => {
          try {
            sendResult(bodies, request, reply, undefined, varyOrigin, requestId, call, result, lookupMs);
          } catch (error) {
            // Rows that do not fit the row message: a bug, answered as INTERNAL.
            return fail(request, response, call, requestId, credential.id, started, error);
          }
          finish(call, requestId, credential.id, started, "ok");
        },
        (error: unknown) => fail(request, response, call, requestId, credential.id, started, error),
      );
    },
    reject(request, response, endpoint, requestId, credential, error) {
      fail(request, response, { endpoint }, requestId, credential.id, performance.now(), error);
    },
  };
}

/** The context of a GET call; its abort signal is made only if the warehouse asks for it. */
class GetCallContext implements CallContext {
  private abort: AbortController | undefined;
  constructor(
    private readonly response: HttpResponse,
    readonly requestId: string,
    readonly timeoutMs: number,
    readonly tenant: string,
  ) {}
  get signal(): AbortSignal {
    if (this.abort === undefined) {
      const abort = (this.abort = new AbortController());
      const response = this.response;
      // Only a client that leaves before the answer cancels the call.
      response.once("close", () => {
        if (!response.writableFinished) abort.abort();
      });
    }
    return this.abort.signal;
  }
}

const contentTypes = bodyFormats.map((f) => f.contentType);

/**
 * 200 with `corsHeaders` (none: set already), then the result's body in
 * the asked format and coding, its cache status and age when it has them,
 * Server-Timing, and the rows and bytes read when known (for a hit, those of
 * the computation it was made by).
 */
function sendResult(
  bodies: ResponseBodies,
  request: RequestHead,
  reply: Reply,
  corsHeaders: CorsHeaders | undefined,
  varyOrigin: boolean,
  requestId: string,
  call: GetCall,
  result: EndpointResult,
  lookupMs: number,
) {
  const accept = request.headers.accept;
  const format = call.format ?? (accept === undefined ? JSON_FORMAT : formatFromAccept(accept));
  const acceptEncoding = request.headers["accept-encoding"];
  const encoding: ContentEncoding =
    acceptEncoding === undefined ? IDENTITY : encodingFromAcceptEncoding(acceptEncoding);
  const hit = result.cache?.status === "HIT";
  let body = hit ? bodies.ready(result, format, encoding) : undefined;
  let serializeMs: number | undefined;
  if (body === undefined) {
    const before = performance.now();
    body = bodies.make(result, call.endpoint, format, encoding);
    serializeMs = performance.now() - before;
  }
  const headers = copyCorsHeaders(corsHeaders);
  headers["content-type"] = contentTypes[format]!;
  headers["content-length"] = String(body.length);
  headers.vary = varyOrigin ? "Origin, Accept, Accept-Encoding" : "Accept, Accept-Encoding";
  headers["x-request-id"] = requestId;
  headers["server-timing"] = serverTiming(result, lookupMs, serializeMs);
  if (encoding !== IDENTITY) headers["content-encoding"] = encodings[encoding];
  if (result.cache !== undefined) {
    headers["x-cache"] = result.cache.status;
    headers.age = String(result.cache.ageSeconds);
  }
  const statistics = result.computation.statistics;
  if (statistics !== undefined) {
    headers["x-rows-read"] = String(statistics.rowsRead);
    headers["x-bytes-read"] = String(statistics.bytesRead);
  }
  reply(200, headers, body);
}

/**
 * `cache;desc="hit";dur=…` for a hit (with `serialize` when its body had to
 * be made); for a computed result the cache lookup (when the endpoint is
 * cached), the warehouse query and the serialisation, in milliseconds.
 */
function serverTiming(result: EndpointResult, lookupMs: number, serializeMs: number | undefined): string {
  const made = serializeMs === undefined ? "" : `, serialize;dur=${serializeMs.toFixed(3)}`;
  if (result.cache?.status === "HIT") return `cache;desc="hit";dur=${lookupMs.toFixed(3)}${made}`;
  const { warehouseMs, serializeMs: computedMs } = result.computation;
  const cache = result.cache === undefined ? "" : `cache;desc="miss";dur=${lookupMs.toFixed(3)}, `;
  return `${cache}warehouse;dur=${warehouseMs.toFixed(3)}, serialize;dur=${(computedMs + (serializeMs ?? 0)).toFixed(3)}`;
}
