// Cross-origin access for browser pages, on every route and every transport
// (GET, Connect, gRPC-Web): preflights are answered here, before any route,
// so they never reach authentication (counted per client address as requests
// needing no key, preflight-limit.ts); every other answer carries the
// allowed origin and the headers a browser client must be able to read.
// Credentials (cookies) are never allowed: callers send a key or a token.
import { cors as connectCors } from "@connectrpc/connect";
import {
  type CallHandler,
  type CorsDecision,
  corsDecision,
  hasBody,
  type HttpRequest,
  type HttpResponse,
  RequestCall,
  type RequestHandler,
  StreamCall,
  type StreamHandler,
} from "./node-http/index.js";
import type { PreflightLimit } from "./preflight-limit.js";

/** `"*"` for any origin, else the exact origins (`https://app.example.com`) allowed. */
export type CorsOrigins = "*" | readonly string[];

export interface CorsOptions {
  /** The origins whose pages may call the service (CORS_ORIGINS). Default `"*"`. */
  origins?: CorsOrigins;
  /** How long a browser may keep a preflight's answer, in seconds. Default 600. */
  maxAgeSeconds?: number;
  /** The bound of preflights per client address (the keyless one, KEYLESS_RATE_LIMIT_*). Default: none. */
  limitPreflight?: PreflightLimit;
}

/** Methods a page may use: Connect unary (POST, and GET for Connect-GET), gRPC-Web (POST), the GET API. */
const corsAllowedMethods = [...new Set([...connectCors.allowedMethods, "GET", "HEAD"])];

/** Headers a page may send: the Connect, gRPC-Web and Connect-GET ones, credentials, request id, trace context and a dry run. */
const corsAllowedHeaders = [
  ...connectCors.allowedHeaders,
  "X-API-KEY",
  "Authorization",
  "X-Request-Id",
  "Traceparent",
  "Tracestate",
  "Accept",
  "X-Dry-Run",
];

/** Headers a page may read: gRPC status and details, cache, request id, rate limits, timing, statistics, truncation, deprecation, a dry run's estimate and the next page. */
const corsExposedHeaders = [
  ...connectCors.exposedHeaders,
  "X-Cache",
  "Age",
  "X-Request-Id",
  "Retry-After",
  "RateLimit",
  "RateLimit-Policy",
  "Server-Timing",
  "X-Rows-Read",
  "X-Bytes-Read",
  "X-Result-Truncated",
  "X-Rows-Before-Limit",
  "Deprecation",
  "Sunset",
  "X-Estimate-Rows",
  "X-Estimate-Parts",
  "X-Estimate-Marks",
  "Link",
  "ETag",
  "Last-Modified",
  "Cache-Control",
  "Cache-Status",
];

const exposed = corsExposedHeaders.join(", ");

/** Whether `request` is a CORS preflight: OPTIONS naming the method the page means to use. */
function isPreflight(request: HttpRequest): boolean {
  return request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined;
}

/**
 * The CORS decision of an answer to a request from `origin`, made once per
 * origin: for any origin, its headers alone; with a list of origins,
 * `Vary: Origin` first (the answer then differs by Origin, so caches must
 * keep them apart) and the decision says so, then the headers of an allowed
 * origin.
 */
function corsDecisionFor(origins: CorsOrigins): (origin: string | undefined) => CorsDecision {
  if (origins === "*") {
    const anyOrigin = corsDecision(
      Object.freeze({
        "access-control-allow-origin": "*",
        "access-control-expose-headers": exposed,
        "timing-allow-origin": "*",
      }),
      false,
    );
    return () => anyOrigin;
  }
  const allowed = new Map<string, CorsDecision>(
    origins.map((origin) => [
      origin,
      corsDecision(
        Object.freeze({
          vary: "Origin",
          "access-control-allow-origin": origin,
          "access-control-expose-headers": exposed,
          "timing-allow-origin": origin,
        }),
        true,
      ),
    ]),
  );
  const refused = corsDecision(Object.freeze({ vary: "Origin" }), true);
  return (origin) => (origin === undefined ? refused : (allowed.get(origin) ?? refused));
}

/**
 * Puts CORS in front of `next`: answers preflights itself (204, before any
 * route or authentication) and hands `next` every other request as a call
 * carrying its CORS decision, for the answer to write with its own headers.
 * Should `next` throw before answering, they are set for the 500 the server
 * writes.
 */
export function withCors(next: CallHandler, options: CorsOptions = {}): RequestHandler {
  const decisionFor = corsDecisionFor(options.origins ?? "*");
  const preflightHeaders = {
    "access-control-allow-methods": corsAllowedMethods.join(", "),
    "access-control-allow-headers": corsAllowedHeaders.join(", "),
    "access-control-max-age": String(options.maxAgeSeconds ?? 600),
  };

  return (request, response) => {
    const origin = request.headers.origin;
    if (isPreflight(request)) {
      // Access-Control-Allow-Origin as an answer to `origin` has it; undefined when it is not allowed.
      const decision = decisionFor(origin);
      const allow = decision.headers["access-control-allow-origin"];
      const vary = decision.headers.vary;
      const extra: Record<string, string> = vary === undefined ? {} : { vary };
      if (options.limitPreflight?.(request, response, extra) === true) return;
      // A preflight has no body; one sent anyway is not read, and its HTTP/1.1 connection closes.
      if (request.httpVersionMajor === 1 && hasBody(request)) extra.connection = "close";
      return answerPreflight(response, allow, extra, preflightHeaders);
    }
    const call = new RequestCall(request, response, decisionFor(origin));
    try {
      next(call);
    } catch (error) {
      if (!response.headersSent) call.exchange();
      throw error;
    }
  };
}
/** 204 with the allowed methods and headers for an allowed origin; without any CORS header (refused) for another. */
function answerPreflight(
  response: HttpResponse,
  allow: string | undefined,
  extra: Record<string, string>,
  preflightHeaders: Record<string, string>,
): void {
  const writable = response as unknown as { writeHead(status: number, headers: object): void; end(): void };
  const headers = allow === undefined ? extra : { ...extra, "access-control-allow-origin": allow, ...preflightHeaders };
  writable.writeHead(204, headers);
  writable.end();
}

/**
 * CORS for HTTP/2 streams taken before Node's compatibility layer: a
 * preflight goes to `handler` (withCors answers it); any other stream goes
 * to `next` as a call carrying its CORS decision, whose compatibility
 * response, if it makes one or if `next` throws before answering, has the
 * CORS headers set.
 */
export function withCorsStreams(next: CallHandler, handler: RequestHandler, options: CorsOptions = {}): StreamHandler {
  const decisionFor = corsDecisionFor(options.origins ?? "*");
  return (stream, headers, makeRequestAndResponse) => {
    if (headers[":method"] === "OPTIONS" && headers["access-control-request-method"] !== undefined) {
      return handler(...makeRequestAndResponse());
    }
    const call = new StreamCall(stream, headers, makeRequestAndResponse, decisionFor(headers.origin));
    try {
      next(call);
    } catch (error) {
      // As in withCors: the response the server writes its 500 on (h2-streams.ts) has them set.
      if (!stream.headersSent) call.exchange();
      throw error;
    }
  };
}
