// Everything on the port that is not a Connect, gRPC or gRPC-Web call, by
// the route each call was given (node-http/call-route.ts), with the bounds of
// keyless requests, of the target's length and of the methods, and the
// authentication of the keyed routes.
import { Code, ConnectError } from "@connectrpc/connect";
import type { Authenticator } from "../../auth/index.js";
import type { EndpointRegistry } from "../../endpoints/index.js";
import type { MetricsScrape } from "../../observability/index.js";
import {
  type AuthenticatedSteps,
  authenticateThen,
  type Call,
  type CallHandler,
  codeName,
  handlerThrew,
  noCors,
  pathOf,
  recordRateLimited,
  RequestCall,
  type OpenWatch,
  type RequestHandler,
} from "../node-http/index.js";
import { createDocumentRoutes } from "./document-routes.js";
import { createEndpointCalls, type EndpointCallOptions } from "./endpoint-call.js";
import { createEventStreams } from "./event-stream.js";
import { createImportRoute, type ImportRouteOptions } from "./import-route.js";
import { sendError } from "./error-body.js";
import type { KeylessKind, KeylessLimit } from "./keyless-limit.js";
import { answerHealth, answerMetrics, answerReadiness } from "./operator-routes.js";
import { sendEmpty } from "./respond.js";
import { createSavedQueryRoute } from "./saved-query-route.js";

/** The saved queries' calls are answered as EndpointCallOptions say. */
export interface HttpRoutesOptions extends EndpointCallOptions {
  registry: EndpointRegistry;
  authenticate: Authenticator;
  /** Whether the service can answer queries now, for /readyz. */
  ready: () => Promise<boolean>;
  /** Bounds the requests that need no key, per client address (keyless-limit.ts). Default: unbounded. */
  keylessLimit?: KeylessLimit;
  /** The /metrics text. */
  scrape: MetricsScrape;
  /** Whether /metrics is served here; false when it has a port of its own (METRICS_ADDRESS). Default true. */
  serveMetrics?: boolean;
  /** What POST /api/import/<table> needs (import-route.ts); without it the route is not served. Default: none. */
  imports?: Omit<ImportRouteOptions, "registry" | "logger">;
  /** Opens the watch sessions of GETs asking for text/event-stream; without it they are answered as JSON. Default: none. */
  openWatch?: OpenWatch;
}

/** Longest accepted request target, in characters. */
const maxUrlLength = 8192;
const getAndHead = ["GET", "HEAD"];
const post = ["POST"];

/**
 * `serve` takes a call whose route is one of the GET API's (isHttpRoute);
 * `noSuchRoute` answers a request no route takes (the Connect router's
 * fallback for what is not an RPC call).
 */
export function createHttpRoutes(options: HttpRoutesOptions): { serve: CallHandler; noSuchRoute: RequestHandler } {
  const { authenticate, ready, metrics, logger, scrape, record } = options;
  const serveMetrics = options.serveMetrics ?? true;
  const keylessLimit = options.keylessLimit;
  const documents = createDocumentRoutes(options.registry);
  const imports = options.imports && createImportRoute({ ...options.imports, registry: options.registry, logger });
  const savedQuery = createSavedQueryRoute({
    ...options,
    calls: createEndpointCalls(options),
    eventStreams: options.openWatch && createEventStreams(options.openWatch),
    refuse,
  });

  function refuse(call: Call, error: unknown): void {
    // A saved query's call a rate limit refused is in the call log: its saved query is the prepared call's, or the path's.
    if (call.route === "saved-query") {
      const endpoint = (call.prepared?.endpoint ?? call.endpoint)?.definition.name;
      recordRateLimited(record, call, { endpoint, protocol: "get" }, error);
    }
    metrics.requests.series({ endpoint: "", protocol: "http", code: codeName(ConnectError.from(error).code) }).inc();
    sendError(call.exchange(), call.requestId, error);
  }

  /** True (and the refusal answered) when the client is past its bound of keyless requests of `kind`. */
  function overKeylessLimit(call: Call, kind: KeylessKind): boolean {
    if (keylessLimit === undefined) return false;
    try {
      keylessLimit(kind, call, call.client);
      return false;
    } catch (error) {
      refuse(call, error);
      return true;
    }
  }

  /**
   * A method the route does not serve (`methods`: GET and HEAD, or POST): true when it was answered, OPTIONS with
   * 204 and Allow (a browser's preflight was answered before this, by transport/cors.ts), any other with 405.
   */
  function answeredMethod(call: Call, methods: readonly string[]): boolean {
    const method = call.head.method ?? "GET";
    if (methods.includes(method)) return false;
    if (overKeylessLimit(call, "other")) return true;
    const allow = `${methods.join(", ")}, OPTIONS`;
    if (method === "OPTIONS") {
      sendEmpty(call.exchange()[1], 204, { allow });
      return true;
    }
    // 405 is HTTP's own answer, outside the Connect code mapping.
    const error = new ConnectError(`method ${method} is not allowed; use ${methods[0]}`, Code.Unimplemented);
    sendError(call.exchange(), call.requestId, error, { headers: { allow }, status: 405 });
    return true;
  }

  /** The keyed routes after authentication: the listing, or a saved query's first call. */
  const keyedSteps: AuthenticatedSteps = {
    admitted: (call) => (call.route === "listing" ? documents.listing(call, call.credential) : savedQuery.serve(call)),
    refuse,
    failed: (call, error) => handlerThrew(...call.exchange(), error, logger),
  };

  /** The import route after authentication. */
  const importSteps: AuthenticatedSteps = { ...keyedSteps, admitted: (call) => imports!(call, call.credential) };

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
        if (!answeredMethod(call, post)) authenticateThen(authenticate, call, importSteps);
        return;
      case "listing":
      case "saved-query":
        if (!answeredMethod(call, getAndHead)) authenticateThen(authenticate, call, keyedSteps);
        return;
      default:
        return notFound(call);
    }
  };

  return {
    serve,
    noSuchRoute: (request, response) => {
      // No CORS added: the RPC stack's response carries the CORS headers already.
      const call = new RequestCall(request, response, noCors);
      call.route = "no-such-route";
      serve(call);
    },
  };
}
