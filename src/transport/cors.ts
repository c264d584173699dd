// Cross-origin access for browser pages, on every route and every transport
// (GET, Connect, gRPC-Web): preflights are answered here, before any route,
// so they never reach authentication, and are counted per client address as
// requests needing no key (a flood nothing else would bound); every other
// answer carries the allowed origin and the headers a browser client must be
// able to read. Credentials (cookies) are never allowed: callers send a key or
// a token.
import { cors as connectCors } from "@connectrpc/connect";
import { type KeylessLimit, sendEmpty, sendError } from "./http/index.js";
import { clientAddress, type TrustedProxies } from "./node-http/client-address.js";
import {
  type Call,
  type CallHandler,
  type CorsDecision,
  corsDecision,
  hasBody,
  headerReader,
  type HttpRequest,
  type HttpResponse,
  RequestCall,
  type RequestHandler,
  requestIdFrom,
  StreamCall,
  type StreamHandler,
} from "./node-http/index.js";

/** `"*"` for any origin, else the exact origins (`https://app.example.com`) allowed. */
export type CorsOrigins = "*" | readonly string[];

export interface CorsOptions {
  /** The origins whose pages may call the service (CORS_ORIGINS). Default `"*"`. */
  origins?: CorsOrigins;
  /** The buckets of requests needing no key, which bound preflights per client address (kind "other"). Default: none. */
  keylessLimit?: KeylessLimit;
  /** Proxies whose X-Forwarded-For names a preflight's client (TRUSTED_PROXIES). Default: none, the peer is. */
  trustedProxies?: TrustedProxies;
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

/**
 * The CORS decision of an answer to a request from `origin`, made once per
 * origin: for any origin, its headers alone; with a list of origins,
 * `Vary: Origin` first (the answer then differs by Origin, so caches must
 * keep them apart) and the decision says so, then the headers of an allowed
 * origin.
 */
function corsDecisionFor(origins: CorsOrigins): (origin: string | undefined) => CorsDecision {
  const allowing = (origin: string, vary: object) =>
    corsDecision(
      Object.freeze({
        ...vary,
        "access-control-allow-origin": origin,
        "access-control-expose-headers": exposed,
        "timing-allow-origin": origin,
      }),
      origins !== "*",
    );
  if (origins === "*") {
    const anyOrigin = allowing("*", {});
    return () => anyOrigin;
  }
  const allowed = new Map(origins.map((origin) => [origin, allowing(origin, { vary: "Origin" })]));
  const refused = corsDecision(Object.freeze({ vary: "Origin" }), true);
  return (origin) => (origin === undefined ? refused : (allowed.get(origin) ?? refused));
}

/**
 * Puts CORS in front of `next`: answers preflights itself (204, before any
 * route or authentication; a browser keeps the answer 600 s) and hands `next`
 * every other request as a call carrying its CORS decision, for the answer to
 * write with its own headers.
 */
export function withCors(next: CallHandler, options: CorsOptions = {}): RequestHandler {
  const decisionFor = corsDecisionFor(options.origins ?? "*");
  const overLimit = preflightLimit(options);
  const preflightHeaders = {
    "access-control-allow-methods": corsAllowedMethods.join(", "),
    "access-control-allow-headers": corsAllowedHeaders.join(", "),
    "access-control-max-age": "600",
  };

  return (request, response) => {
    const origin = request.headers.origin;
    if (request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined) {
      // Access-Control-Allow-Origin as an answer to `origin` has it; undefined when it is not allowed.
      const decision = decisionFor(origin);
      const allow = decision.headers["access-control-allow-origin"];
      const vary = decision.headers.vary;
      const extra: Record<string, string> = vary === undefined ? {} : { vary };
      if (overLimit(request, response, extra)) return;
      // A preflight has no body; one sent anyway is not read, and its HTTP/1.1 connection closes.
      if (request.httpVersionMajor === 1 && hasBody(request)) extra.connection = "close";
      // Without any CORS header (refused) for an origin not allowed.
      return sendEmpty(
        response,
        204,
        allow === undefined ? extra : { ...extra, "access-control-allow-origin": allow, ...preflightHeaders },
      );
    }
    handOver(next, new RequestCall(request, response, decisionFor(origin)), response);
  };
}

/**
 * CORS for HTTP/2 streams taken before Node's compatibility layer: a
 * preflight goes to `handler` (withCors answers it); any other stream goes
 * to `next` as a call carrying its CORS decision.
 */
export function withCorsStreams(next: CallHandler, handler: RequestHandler, options: CorsOptions = {}): StreamHandler {
  const decisionFor = corsDecisionFor(options.origins ?? "*");
  return (stream, headers, makeRequestAndResponse) => {
    if (headers[":method"] === "OPTIONS" && headers["access-control-request-method"] !== undefined) {
      return handler(...makeRequestAndResponse());
    }
    handOver(next, new StreamCall(stream, headers, makeRequestAndResponse, decisionFor(headers.origin)), stream);
  };
}

/** `next(call)`; should it throw before answering, the CORS headers are set for the 500 the server writes (h2-streams.ts). */
function handOver(next: CallHandler, call: Call, sent: { readonly headersSent: boolean }): void {
  try {
    next(call);
  } catch (error) {
    if (!sent.headersSent) call.exchange();
    throw error;
  }
}

/** True when a preflight's client is past its bound: the 429 `resource_exhausted` is written, with `headers` (Vary). */
function preflightLimit(
  options: CorsOptions,
): (request: HttpRequest, response: HttpResponse, headers: Record<string, string>) => boolean {
  const { keylessLimit, trustedProxies } = options;
  if (keylessLimit === undefined) return () => false;
  const noHeaders = { get: () => null };
  return (request, response, headers) => {
    const peer = request.socket?.remoteAddress ?? "";
    const forwardedFor = request.headers["x-forwarded-for"];
    const client =
      trustedProxies === undefined
        ? peer
        : clientAddress(peer, Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor, trustedProxies);
    try {
      // The client is worked out here: the limit reads no header of its own.
      keylessLimit("other", noHeaders, client);
      return false;
    } catch (error) {
      sendError([request, response], requestIdFrom(headerReader(request.headers)), error, { headers });
      return true;
    }
  };
}
