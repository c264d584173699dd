// Everything on the port that is not a Connect, gRPC or gRPC-Web call: the
// GET API of docs/http-api.md, the listing, the OpenAPI document,
// health, readiness and metrics.
import { Code, ConnectError } from "@connectrpc/connect";
import { isScoped, type Authenticator, type Credential, type HeaderReader } from "../../auth/index.js";
import { fieldViolationsOf, invalidArgument, type FieldViolation } from "../../errors/index.js";
import type { EndpointRegistry, EndpointService } from "../../endpoints/index.js";
import { createMetricsScrape, type Logger, type Metrics, type MetricsScrape } from "../../observability/index.js";
import {
  type CorsHeaders,
  type CorsHandler,
  authenticateThen,
  codeName,
  createPreparedCalls,
  handlerThrew,
  headerReader,
  pathOf,
  requestIdFrom,
  respondOnStream,
  setCorsHeaders,
  streamAddress,
  streamHead,
  type HttpRequest,
  type HttpResponse,
  type RequestHead,
  type StreamHandler,
  type ToRequest,
  withCorsHeadersSet,
} from "../node-http/index.js";
import { endpointListing } from "./endpoint-listing.js";
import type { KeylessKind, KeylessLimit } from "./keyless-limit.js";
import { createEndpointCalls, type GetCall, type HttpCallObserver, type Reply } from "./endpoint-call.js";
import { sendError } from "./error-body.js";
import { openApiDocument } from "./openapi.js";
import { requestFromQueryString } from "./query-string.js";
import { sendBytes, sendEmpty, sendJson, writeResponse } from "./respond.js";

export interface HttpRoutesOptions {
  registry: EndpointRegistry;
  service: EndpointService;
  authenticate: Authenticator;
  /** Whether the service can answer queries now, for /readyz. */
  ready: () => Promise<boolean>;
  metrics: Metrics;
  logger: Logger;
  /** Deadline of a GET call. */
  defaultTimeoutMs: number;
  /** Longest accepted request target. Default 8192 characters. */
  maxUrlLength?: number;
  /** Called at the end of each saved-query call, within it. Default: nothing. */
  observe?: HttpCallObserver;
  /** Bounds the requests that need no key, per client address (keyless-limit.ts). Default: unbounded. */
  keylessLimit?: KeylessLimit;
  /** The /metrics text. Default: `metrics` rendered at most once a second. */
  scrape?: MetricsScrape;
  /** Whether /metrics is served here; false when it has a port of its own (METRICS_ADDRESS). Default true. */
  serveMetrics?: boolean;
}

const allow = "GET, HEAD, OPTIONS";

/** True for the paths these routes answer; everything else goes to the Connect router. */
export function isHttpRoute(url: string): boolean {
  return (
    url.startsWith("/api/") ||
    url.startsWith("/api?") ||
    url === "/api" ||
    /^\/(healthz|readyz|metrics|openapi\.json)(\?|$)/.test(url)
  );
}

export interface HttpRoutes {
  handler: CorsHandler;
  /** The same routes for a bare HTTP/2 stream, which answers GET hits without Node's compatibility layer. */
  stream: StreamHandler;
}

export function createHttpRoutes(options: HttpRoutesOptions): HttpRoutes {
  const { registry, service, authenticate, ready, metrics } = options;
  const maxUrlLength = options.maxUrlLength ?? 8192;
  const openapi = Buffer.from(JSON.stringify(openApiDocument(registry)));
  const listing = Buffer.from(JSON.stringify(endpointListing(registry)));
  const preparedCalls = createPreparedCalls();
  const calls = createEndpointCalls(options);
  const scrape = options.scrape ?? createMetricsScrape({ registry: metrics.registry });
  const serveMetrics = options.serveMetrics ?? true;
  const keylessLimit = options.keylessLimit;

  /** True (and the refusal answered) when the client is past its bound of keyless requests of `kind`. */
  function overKeylessLimit(request: HttpRequest, response: HttpResponse, requestId: string, kind: KeylessKind) {
    if (keylessLimit === undefined) return false;
    try {
      keylessLimit(kind, headerReader(request.headers), request.socket?.remoteAddress ?? "");
      return false;
    } catch (error) {
      refuse(request, response, requestId, error);
      return true;
    }
  }

  /** OPTIONS and methods other than GET and HEAD: true when that already answered. */
  function answeredMethod(request: HttpRequest, response: HttpResponse, requestId: string): boolean {
    const method = request.method ?? "GET";
    if (method !== "GET" && method !== "HEAD" && overKeylessLimit(request, response, requestId, "other")) return true;
    if (method === "OPTIONS") {
      // A browser's preflight was answered before this, by transport/cors.ts.
      sendEmpty(response, 204, { allow });
      return true;
    }
    if (method !== "GET" && method !== "HEAD") {
      // 405 is HTTP's own answer, outside the Connect code mapping.
      const error = new ConnectError(`method ${method} is not allowed; use GET`, Code.Unimplemented);
      sendError(request, response, requestId, error, { allow }, 405);
      return true;
    }
    return false;
  }

  function refuse(request: HttpRequest, response: HttpResponse, requestId: string, error: unknown) {
    metrics.requests.series({ endpoint: "", protocol: "http", code: codeName(ConnectError.from(error).code) }).inc();
    sendError(request, response, requestId, error);
  }

  /** Runs `then` with the caller's credential (node-http/authenticated.ts), or answers the refusal. */
  function authenticated(
    request: HttpRequest,
    response: HttpResponse,
    headers: HeaderReader,
    requestId: string,
    then: (credential: Credential) => void,
  ): void {
    authenticateThen(authenticate, headers, request.socket?.remoteAddress ?? "", {
      admitted: then,
      refuse: (error) => refuse(request, response, requestId, error),
      failed: (error) => handlerThrew(request, response, error, options.logger),
    });
  }

  /** A known call's answer, its caller authenticated: the prepared call was made without a scope, a scoped caller's is made anew. */
  function answerKnown(
    request: HttpRequest,
    response: HttpResponse,
    known: GetCall,
    url: string,
    requestId: string,
    credential: Credential,
  ): void {
    if (isScoped(credential)) routeApi(request, response, url, requestId, credential);
    else calls.answer(request, response, known, requestId, credential);
  }

  /** Any target not asked before: health, metrics, documents, the listing, and first calls of endpoints. */
  function route(
    request: HttpRequest,
    response: HttpResponse,
    url: string,
    headers: HeaderReader,
    requestId: string,
  ): void {
    if (url.length > maxUrlLength) {
      const error = new ConnectError(`request URL longer than ${maxUrlLength} characters`, Code.InvalidArgument);
      return sendError(request, response, requestId, error, {}, 414);
    }
    const path = pathOf(url);
    const keyless = keylessKindOf(path);
    if (keyless !== undefined && overKeylessLimit(request, response, requestId, keyless)) return;
    if (path === "/healthz") return sendJson(request, response, 200, { status: "ok" });
    // Routes that answer later: their failure is logged and answered here, never left unhandled.
    const settle = (work: Promise<void>) =>
      void work.catch((error: unknown) => {
        options.logger.error("route failed", { path, requestId, error });
        if (!response.headersSent) sendError(request, response, requestId, error);
      });
    if (path === "/readyz") return settle(readiness(request, response, ready));
    if (path === "/metrics" && serveMetrics) return settle(prometheus(request, response, scrape, metrics));
    if (path === "/openapi.json") return sendBytes(request, response, 200, openapi);
    if (path !== "/api/endpoints" && !path.startsWith("/api/endpoints/")) {
      return sendError(request, response, requestId, new ConnectError("no such route", Code.NotFound));
    }
    if (answeredMethod(request, response, requestId)) return;
    authenticated(request, response, headers, requestId, (credential) =>
      routeApi(request, response, url, requestId, credential),
    );
  }

  /** The listing or an endpoint call, for an authenticated caller. */
  function routeApi(
    request: HttpRequest,
    response: HttpResponse,
    url: string,
    requestId: string,
    credential: Credential,
  ): void {
    const fail = (error: unknown) => sendError(request, response, requestId, error);
    const queryAt = url.indexOf("?");
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    const search = queryAt < 0 ? "" : url.slice(queryAt + 1);
    const scoped = isScoped(credential);
    if (path === "/api/endpoints") {
      return sendBytes(
        request,
        response,
        200,
        scoped ? Buffer.from(JSON.stringify(endpointListing(registry, credential))) : listing,
      );
    }
    const endpointKey = endpointKeyOf(path);
    if (endpointKey === undefined)
      return fail(new ConnectError("malformed endpoint name in path", Code.InvalidArgument));
    const endpoint = registry.find(endpointKey);
    if (endpoint === undefined) return fail(new ConnectError("no endpoint of that name or id", Code.NotFound));
    const { request: message, violations, format } = requestFromQueryString(endpoint, search);
    let call: GetCall;
    try {
      call = service.prepare(endpoint, message, credential);
    } catch (error) {
      return calls.reject(request, response, endpoint, requestId, credential, withViolations(violations, error));
    }
    if (violations.length > 0)
      return calls.reject(request, response, endpoint, requestId, credential, invalidArgument(violations));
    if (format !== undefined) call = { ...call, format }; // the body's format only: the same rows, the same cache entry
    // A call prepared under a scope depends on the credential too: only unscoped calls are kept by target.
    if (!scoped) preparedCalls.remember(url, call);
    calls.answer(request, response, call, requestId, credential);
  }

  /**
   * A GET or HEAD of a target asked before, from `head` (a Node request's, or
   * a bare stream's): a hit, its caller unscoped, is answered with `reply`,
   * `corsHeaders` first among its headers; everything else, after
   * the same one authentication, through `toRequest`, whose response has
   * them set.
   */
  function answerKnownTarget(
    head: RequestHead,
    address: string,
    known: GetCall,
    reply: Reply,
    corsHeaders: CorsHeaders | undefined,
    varyOrigin: boolean,
    toRequest: ToRequest,
  ): void {
    const url = head.url ?? "/";
    const headers = headerReader(head.headers);
    const requestId = requestIdFrom(headers);
    authenticateThen(authenticate, headers, address, {
      admitted(credential) {
        if (
          !isScoped(credential) &&
          calls.answerHit(head, reply, corsHeaders, varyOrigin, known, requestId, credential)
        )
          return;
        answerKnown(...toRequest(), known, url, requestId, credential);
      },
      refuse: (error) => refuse(...toRequest(), requestId, error),
      failed: (error) => handlerThrew(...toRequest(), error, options.logger),
    });
  }

  /** A known GET call's target: its prepared call, if it was asked before. */
  const knownCall = (method: string | undefined, url: string) =>
    method === "GET" || method === "HEAD" ? preparedCalls.find(url) : undefined;

  const handler: CorsHandler = (request, response, corsHeaders) => {
    const url = request.url ?? "/";
    // A target asked before is a known endpoint call: no parsing on the way to the cache.
    const known = knownCall(request.method, url);
    if (known === undefined) {
      setCorsHeaders(response, corsHeaders);
      const headers = headerReader(request.headers);
      return route(request, response, url, headers, requestIdFrom(headers));
    }
    const reply: Reply = (status, fields, body) => writeResponse(request, response, status, fields, body);
    // With a list of CORS origins, the answer's headers have Vary: Origin (set already, when not handed over).
    const varyOrigin = corsHeaders === undefined ? response.hasHeader("vary") : "vary" in corsHeaders;
    const toRequest = withCorsHeadersSet(() => [request, response], corsHeaders);
    const address = request.socket?.remoteAddress ?? "";
    answerKnownTarget(request, address, known, reply, corsHeaders, varyOrigin, toRequest);
  };

  /** A bare HTTP/2 stream: a known call is answered as above, on the stream when a hit; anything else as a request. */
  const stream: StreamHandler = (stream, streamHeaders, toRequest, corsHeaders) => {
    const head = streamHead(streamHeaders);
    const known = knownCall(head.method, head.url ?? "/");
    if (known === undefined) return handler(...toRequest());
    const reply: Reply = (status, fields, body) => respondOnStream(stream, head.method, status, fields, body);
    answerKnownTarget(head, streamAddress(stream), known, reply, corsHeaders, "vary" in corsHeaders, toRequest);
  };

  return { handler, stream };
}

/**
 * One INVALID_ARGUMENT for the query string's problems and those `error`
 * found in the values, each field named once (a repeated parameter left out
 * of the request is not also reported missing).
 */
function withViolations(violations: FieldViolation[], error: unknown): unknown {
  if (violations.length === 0 || !(error instanceof ConnectError) || error.code !== Code.InvalidArgument) return error;
  const named = new Set(violations.map((v) => v.field));
  return invalidArgument([...violations, ...fieldViolationsOf(error).filter((v) => !named.has(v.field))]);
}

/** `/api/endpoints/<name>` or `/api/endpoints/query/<id>` → the name or id; undefined when malformed. */
export function endpointKeyOf(path: string): string | undefined {
  const rest = path.slice("/api/endpoints/".length);
  const segment = rest.startsWith("query/") ? rest.slice("query/".length) : rest;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

async function readiness(request: HttpRequest, response: HttpResponse, ready: () => Promise<boolean>) {
  const isReady = await ready().catch(() => false);
  sendJson(request, response, isReady ? 200 : 503, { status: isReady ? "ready" : "warehouse unavailable" });
}

async function prometheus(request: HttpRequest, response: HttpResponse, scrape: MetricsScrape, metrics: Metrics) {
  sendBytes(request, response, 200, await scrape(), { "content-type": metrics.registry.contentType });
}

/** Which keyless kind a path not yet answered is: probes, anything but the keyed API, or none (a key is asked). */
function keylessKindOf(path: string): KeylessKind | undefined {
  if (path === "/healthz" || path === "/readyz") return "probe";
  if (path === "/api/endpoints" || path.startsWith("/api/endpoints/")) return undefined;
  return "other";
}
