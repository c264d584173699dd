// Everything on the port that is not a Connect, gRPC or gRPC-Web call,
// assembled by the route each call was given (node-http/call-route.ts):
// health and readiness (probe-routes.ts), metrics (metrics-routes.ts), the
// OpenAPI document and the listing (document-routes.ts), and the saved
// queries' GET API of docs/http-api.md (saved-query-route.ts,
// endpoint-call.ts). Here too: the bounds of keyless requests, of the target's
// length and of the methods, and the authentication of the keyed routes.
import { Code, ConnectError } from "@connectrpc/connect";
import type { Authenticator } from "../../auth/index.js";
import type { EndpointRegistry, EndpointService } from "../../endpoints/index.js";
import { createMetricsScrape, type Logger, type Metrics, type MetricsScrape } from "../../observability/index.js";
import {
  type AuthenticatedSteps,
  authenticateThen,
  type Call,
  type CallHandler,
  codeName,
  handlerThrew,
  noCors,
  pathOf,
  type RecordCall,
  RequestCall,
  type OpenWatch,
  type RequestHandler,
} from "../node-http/index.js";
import { createDocumentRoutes } from "./document-routes.js";
import { createEndpointCalls, type HttpCallObserver } from "./endpoint-call.js";
import { createEventStreams } from "./event-stream.js";
import { createImportRoute, type ImportRouteOptions } from "./import-route.js";
import { sendError } from "./error-body.js";
import type { KeylessKind, KeylessLimit } from "./keyless-limit.js";
import { answerMetrics } from "./metrics-routes.js";
import { answerHealth, answerReadiness } from "./probe-routes.js";
import { sendEmpty } from "./respond.js";
import { createRecordRefusedGet } from "./refused-get-record.js";
import { createSavedQueryRoute } from "./saved-query-route.js";

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
  /** STALE_IF_ERROR_SECONDS, named in Cache-Control; 0 names none. Default 3600. */
  staleIfErrorSeconds?: number;
  /** Records each saved-query call's end in the call log. Default: nothing. */
  record?: RecordCall;
  /** Bounds the requests that need no key, per client address (keyless-limit.ts). Default: unbounded. */
  keylessLimit?: KeylessLimit;
  /** The /metrics text. Default: `metrics` rendered at most once a second. */
  scrape?: MetricsScrape;
  /** Whether /metrics is served here; false when it has a port of its own (METRICS_ADDRESS). Default true. */
  serveMetrics?: boolean;
  /** What POST /api/import/<table> needs (import-route.ts); without it the route is not served. Default: none. */
  imports?: Omit<ImportRouteOptions, "registry" | "logger">;
  /** Opens the watch sessions of GETs asking for text/event-stream; without it they are answered as JSON. Default: none. */
  openWatch?: OpenWatch;
}

export interface HttpRoutes {
  /** A call whose route is one of the GET API's (isHttpRoute). */
  serve: CallHandler;
  /** The answer to a request no route takes (the Connect router's fallback for what is not an RPC call). */
  noSuchRoute: RequestHandler;
}

const allow = "GET, HEAD, OPTIONS";
const allowPost = "POST, OPTIONS";

/** What the RPC stack's fallback adds of CORS: nothing, its response carries the CORS headers. */
const corsSetByRpcStack = noCors;

export function createHttpRoutes(options: HttpRoutesOptions): HttpRoutes {
  const { authenticate, ready, metrics, logger } = options;
  const maxUrlLength = options.maxUrlLength ?? 8192;
  const scrape = options.scrape ?? createMetricsScrape({ registry: metrics.registry });
  const serveMetrics = options.serveMetrics ?? true;
  const keylessLimit = options.keylessLimit;
  const documents = createDocumentRoutes(options.registry);
  const imports = options.imports && createImportRoute({ ...options.imports, registry: options.registry, logger });
  const recordRefused = createRecordRefusedGet(options.record);
  const savedQuery = createSavedQueryRoute({
    ...options,
    calls: createEndpointCalls(options),
    eventStreams: options.openWatch && createEventStreams(options.openWatch),
    refuse,
  });

  function refuse(call: Call, error: unknown): void {
    recordRefused(call, error);
    metrics.requests.series({ endpoint: "", protocol: "http", code: codeName(ConnectError.from(error).code) }).inc();
    sendError(call.exchange(), call.requestId, error);
  }

  /** True (and the refusal answered) when the client is past its bound of keyless requests of `kind`. */
  function overKeylessLimit(call: Call, kind: KeylessKind): boolean {
    if (keylessLimit === undefined) return false;
    try {
      keylessLimit(kind, call, call.clientAddress);
      return false;
    } catch (error) {
      refuse(call, error);
      return true;
    }
  }

  /** OPTIONS and methods other than GET and HEAD: true when that already answered. */
  function answeredMethod(call: Call): boolean {
    const method = call.head.method ?? "GET";
    if (method !== "GET" && method !== "HEAD" && overKeylessLimit(call, "other")) return true;
    if (method === "OPTIONS") {
      // A browser's preflight was answered before this, by transport/cors.ts.
      const [, response] = call.exchange();
      sendEmpty(response, 204, { allow });
      return true;
    }
    if (method !== "GET" && method !== "HEAD") {
      // 405 is HTTP's own answer, outside the Connect code mapping.
      const error = new ConnectError(`method ${method} is not allowed; use GET`, Code.Unimplemented);
      sendError(call.exchange(), call.requestId, error, { headers: { allow }, status: 405 });
      return true;
    }
    return false;
  }

  /** The keyed routes after authentication: the listing, or a saved query's first call. */
  const keyedSteps: AuthenticatedSteps = {
    admitted: (call) => (call.route === "listing" ? documents.listing(call, call.credential) : savedQuery.serve(call)),
    refuse,
    failed: (call, error) => handlerThrew(...call.exchange(), error, logger),
  };

  /** The import route after authentication. */
  const importSteps: AuthenticatedSteps = { ...keyedSteps, admitted: (call) => imports!(call, call.credential) };

  /** The import route's methods: OPTIONS and all but POST answered here (true when that already answered). */
  function answeredPost(call: Call): boolean {
    const method = call.head.method ?? "GET";
    if (method === "POST") return false;
    if (overKeylessLimit(call, "other")) return true;
    if (method === "OPTIONS") {
      const [, response] = call.exchange();
      sendEmpty(response, 204, { allow: allowPost });
      return true;
    }
    const error = new ConnectError(`method ${method} is not allowed; use POST`, Code.Unimplemented);
    sendError(call.exchange(), call.requestId, error, { headers: { allow: allowPost }, status: 405 });
    return true;
  }

  /** Routes that answer later: their failure is logged and answered here, never left unhandled. */
  function settle(call: Call, work: Promise<void>): void {
    work.catch((error: unknown) => {
      logger.error("route failed", { path: pathOf(call.head.url), requestId: call.requestId, error });
      const exchange = call.exchange();
      const [, response] = exchange;
      if (!response.headersSent) sendError(exchange, call.requestId, error);
    });
  }

  function notFound(call: Call): void {
    if (overKeylessLimit(call, "other")) return;
    sendError(call.exchange(), call.requestId, new ConnectError("no such route", Code.NotFound));
  }

  const serve: CallHandler = (call) => {
    // A target asked before is a known saved-query call: no parsing on the way to the cache.
    if (call.route === "saved-query" && savedQuery.servedKnown(call)) return;
    if ((call.head.url ?? "/").length > maxUrlLength) {
      const error = new ConnectError(`request URL longer than ${maxUrlLength} characters`, Code.InvalidArgument);
      return sendError(call.exchange(), call.requestId, error, { status: 414 });
    }
    switch (call.route) {
      case "health":
        if (!overKeylessLimit(call, "probe")) answerHealth(call);
        return;
      case "readiness":
        if (!overKeylessLimit(call, "probe")) settle(call, answerReadiness(call, ready));
        return;
      case "metrics":
        if (!serveMetrics) return notFound(call);
        if (!overKeylessLimit(call, "other")) settle(call, answerMetrics(call, scrape, metrics));
        return;
      case "openapi":
        if (!overKeylessLimit(call, "other")) documents.openapi(call);
        return;
      case "import":
        if (imports === undefined) return notFound(call);
        if (!answeredPost(call)) authenticateThen(authenticate, call, importSteps);
        return;
      case "listing":
      case "saved-query":
        if (!answeredMethod(call)) authenticateThen(authenticate, call, keyedSteps);
        return;
      default:
        return notFound(call);
    }
  };

  return {
    serve,
    noSuchRoute: (request, response) => {
      const call = new RequestCall(request, response, corsSetByRpcStack);
      call.route = "no-such-route";
      serve(call);
    },
  };
}
