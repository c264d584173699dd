// Cross-origin access for browser pages, on every route and every transport
// (GET, Connect, gRPC-Web): preflights are answered here, before any route,
// so they never reach authentication; every other answer carries the
// allowed origin and the headers a browser client must be able to read.
// Credentials (cookies) are never allowed: callers send a key or a token.
import { cors as connectCors } from "@connectrpc/connect";
import {
  hasBody,
  type HttpRequest,
  type HttpResponse,
  type RequestHandler,
  type StreamHandler,
  type ToRequest,
} from "./node-http/index.js";

/** `"*"` for any origin, else the exact origins (`https://app.example.com`) allowed. */
export type CorsOrigins = "*" | readonly string[];

export interface CorsOptions {
  /** The origins whose pages may call the service (CORS_ORIGINS). Default `"*"`. */
  origins?: CorsOrigins;
  /** How long a browser may keep a preflight's answer, in seconds. Default 600. */
  maxAgeSeconds?: number;
}

/** Methods a page may use: Connect unary (POST, and GET for Connect-GET), gRPC-Web (POST), the GET API. */
const corsAllowedMethods = [...new Set([...connectCors.allowedMethods, "GET", "HEAD"])];

/** Headers a page may send: the Connect, gRPC-Web and Connect-GET ones, credentials, request id and trace context. */
const corsAllowedHeaders = [
  ...connectCors.allowedHeaders,
  "X-API-KEY",
  "Authorization",
  "X-Request-Id",
  "Traceparent",
  "Tracestate",
  "Accept",
];

/** Headers a page may read: gRPC status and details, cache, request id, rate limits, timing and statistics. */
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
];

const exposed = corsExposedHeaders.join(", ");

/** Whether `request` is a CORS preflight: OPTIONS naming the method the page means to use. */
function isPreflight(request: HttpRequest): boolean {
  return request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined;
}

/**
 * Puts CORS in front of `next`: answers preflights itself (204, before any
 * route or authentication) and sets the CORS headers on every other
 * response before `next` writes it.
 */
export function withCors(next: RequestHandler, options: CorsOptions = {}): RequestHandler {
  const origins = options.origins ?? "*";
  const anyOrigin = origins === "*";
  const allowed = new Set(anyOrigin ? [] : origins);
  const preflightHeaders = {
    "access-control-allow-methods": corsAllowedMethods.join(", "),
    "access-control-allow-headers": corsAllowedHeaders.join(", "),
    "access-control-max-age": String(options.maxAgeSeconds ?? 600),
  };
  /** The value of Access-Control-Allow-Origin for a request from `origin`, or undefined when it is not allowed. */
  const allowOrigin = (origin: string | undefined): string | undefined => {
    if (anyOrigin) return "*";
    return origin !== undefined && allowed.has(origin) ? origin : undefined;
  };

  return (request, response) => {
    const origin = request.headers.origin;
    const allow = allowOrigin(origin);
    if (isPreflight(request)) {
      const extra: Record<string, string> = anyOrigin ? {} : { vary: "Origin" };
      // A preflight has no body; one sent anyway is not read, and its HTTP/1.1 connection closes.
      if (request.httpVersionMajor === 1 && hasBody(request)) extra.connection = "close";
      return answerPreflight(response, allow, extra, preflightHeaders);
    }
    const writable = response as unknown as HttpResponse & { setHeader(name: string, value: string): void };
    // With a list of origins the answer differs by Origin, so caches must keep them apart.
    if (!anyOrigin) writable.setHeader("vary", "Origin");
    if (allow !== undefined) {
      writable.setHeader("access-control-allow-origin", allow);
      writable.setHeader("access-control-expose-headers", exposed);
      writable.setHeader("timing-allow-origin", allow);
    }
    next(request, response);
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
 * to `next` with the CORS headers every answer on it carries, and with those
 * set on the compatibility response if it makes one.
 */
export function withCorsStreams(
  next: StreamHandler,
  handler: RequestHandler,
  options: CorsOptions = {},
): StreamHandler {
  const origins = options.origins ?? "*";
  const anyOrigin = origins === "*";
  const allowed = new Set(anyOrigin ? [] : origins);
  const anyOriginHeaders = Object.freeze({
    "access-control-allow-origin": "*",
    "access-control-expose-headers": exposed,
    "timing-allow-origin": "*",
  });
  return (stream, headers, toRequest) => {
    if (headers[":method"] === "OPTIONS" && headers["access-control-request-method"] !== undefined) {
      return handler(...toRequest());
    }
    let answerHeaders: Readonly<Record<string, string>> = anyOriginHeaders;
    if (!anyOrigin) {
      const origin = headers.origin;
      // The same headers in the same order as withCors sets them.
      answerHeaders =
        origin !== undefined && allowed.has(origin)
          ? {
              vary: "Origin",
              "access-control-allow-origin": origin,
              "access-control-expose-headers": exposed,
              "timing-allow-origin": origin,
            }
          : { vary: "Origin" };
    }
    let made: ReturnType<ToRequest> | undefined;
    const withHeaders: ToRequest = () => {
      if (made === undefined) {
        made = toRequest();
        const writable = made[1] as unknown as { setHeader(name: string, value: string): void };
        for (const [name, value] of Object.entries(answerHeaders)) writable.setHeader(name, value);
      }
      return made;
    };
    next(stream, headers, withHeaders, answerHeaders);
  };
}
