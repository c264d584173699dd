// Everything on the port that is not a Connect, gRPC or gRPC-Web call: the
// GET API of CONTRACT.md section 4, the listing, the OpenAPI document,
// health, readiness and metrics.
import { Code, ConnectError } from "@connectrpc/connect";
import type { ApiKeyCheck } from "../../auth/index.js";
import type { EndpointRegistry, EndpointService } from "../../endpoints/index.js";
import type { Logger, Metrics } from "../../observability/index.js";
import { requestIdFrom } from "../request-context.js";
import { endpointListing } from "./endpoint-listing.js";
import { errorResponse } from "./error-body.js";
import { codeName } from "./http-status.js";
import { openApiDocument } from "./openapi.js";
import { requestFromQueryString } from "./query-string.js";
import {
  corsHeaders,
  corsPreflightHeaders,
  headersOf,
  sendBytes,
  sendEmpty,
  sendJson,
  type HttpRequest,
  type HttpResponse,
} from "./respond.js";

export interface HttpRoutesOptions {
  registry: EndpointRegistry;
  service: EndpointService;
  checkApiKey: ApiKeyCheck;
  /** Whether the service can answer queries now, for /readyz. */
  ready: () => Promise<boolean>;
  metrics: Metrics;
  logger: Logger;
  /** Deadline of a GET call. */
  defaultTimeoutMs: number;
  /** Longest accepted request target. Default 8192 characters. */
  maxUrlLength?: number;
}

const allow = "GET, HEAD, OPTIONS";

/** True for the paths these routes answer; everything else goes to the Connect router. */
export function isHttpRoute(url: string): boolean {
  return url.startsWith("/api/") || url.startsWith("/api?") || url === "/api" || /^\/(healthz|readyz|metrics|openapi\.json)(\?|$)/.test(url);
}

export function createHttpRoutes(options: HttpRoutesOptions) {
  const { registry, service, checkApiKey, ready, metrics, logger } = options;
  const maxUrlLength = options.maxUrlLength ?? 8192;
  const openapi = Buffer.from(JSON.stringify(openApiDocument(registry)));
  const listing = Buffer.from(JSON.stringify(endpointListing(registry)));

  return (request: HttpRequest, response: HttpResponse): void => {
    const url = request.url ?? "/";
    const queryAt = url.indexOf("?");
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    const search = queryAt < 0 ? "" : url.slice(queryAt + 1);
    const method = request.method ?? "GET";
    const headers = headersOf(request);
    const requestId = requestIdFrom(headers);
    const fail = (error: unknown, extra: Record<string, string> = {}, httpStatus?: number) => {
      const { status, body, headers: errorHeaders } = errorResponse(error);
      sendJson(request, response, httpStatus ?? status, body, {
        ...corsHeaders,
        "x-request-id": requestId,
        ...errorHeaders,
        ...extra,
      });
    };

    if (url.length > maxUrlLength) {
      return fail(new ConnectError(`request URL longer than ${maxUrlLength} characters`, Code.InvalidArgument), {}, 414);
    }
    if (path === "/healthz") return sendJson(request, response, 200, { status: "ok" });
    if (path === "/readyz") return void readiness(request, response, ready);
    if (path === "/metrics") return void prometheus(request, response, metrics);
    if (path === "/openapi.json") return sendBytes(request, response, 200, openapi, corsHeaders);
    if (path !== "/api/endpoints" && !path.startsWith("/api/endpoints/")) {
      return fail(new ConnectError("no such route", Code.NotFound));
    }

    if (method === "OPTIONS") return sendEmpty(response, 204, { ...corsPreflightHeaders, allow });
    if (method !== "GET" && method !== "HEAD") {
      // 405 is HTTP's own answer, outside the Connect code mapping.
      return fail(new ConnectError(`method ${method} is not allowed; use GET`, Code.Unimplemented), { allow }, 405);
    }

    try {
      checkApiKey(headers);
    } catch (error) {
      metrics.requests.inc({ endpoint: "", protocol: "http", code: codeName(Code.Unauthenticated) });
      return fail(error);
    }
    if (path === "/api/endpoints") return sendBytes(request, response, 200, listing, corsHeaders);

    const endpointKey = endpointKeyOf(path);
    if (endpointKey === undefined) return fail(new ConnectError("malformed endpoint name in path", Code.InvalidArgument));
    const endpoint = registry.find(endpointKey);
    if (endpoint === undefined) return fail(new ConnectError("no endpoint of that name or id", Code.NotFound));

    const started = performance.now();
    // The abort signal is made only if the warehouse is asked: hits never need one.
    let abort: AbortController | undefined;
    const context = {
      timeoutMs: options.defaultTimeoutMs,
      requestId,
      get signal() {
        if (abort === undefined) {
          abort = new AbortController();
          // Only a client that leaves before the answer cancels the call.
          response.once("close", () => {
            if (!response.writableFinished) abort!.abort();
          });
        }
        return abort.signal;
      },
    };
    const record = (code: string) => {
      const ms = performance.now() - started;
      metrics.recordCall(endpoint.definition.name, "http", code, ms / 1000);
      const level = code === "ok" ? "debug" : "info"; // LOG_LEVEL=debug logs every successful call
      logger[level]("call", { requestId, endpoint: endpoint.definition.name, protocol: "http", code, durationMs: Math.round(ms) });
    };

    void (async () => {
      try {
        const message = requestFromQueryString(endpoint, search);
        const result = await service.run(endpoint, message, context);
        const responseHeaders: Record<string, string> = { ...corsHeaders, "x-request-id": requestId };
        if (result.cache !== undefined) {
          responseHeaders["x-cache"] = result.cache.status;
          responseHeaders.age = String(result.cache.ageSeconds);
        }
        sendBytes(request, response, 200, result.json(), responseHeaders);
        record("ok");
      } catch (error) {
        const connectError = ConnectError.from(error);
        if (connectError.code === Code.Internal) logger.error("get failed", { requestId, cause: connectError.cause ?? error });
        record(codeName(connectError.code));
        if (!response.headersSent) fail(connectError);
      }
    })();
  };
}

/** `/api/endpoints/<name>` or `/api/endpoints/query/<id>` → the name or id; undefined when malformed. */
function endpointKeyOf(path: string): string | undefined {
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

async function prometheus(request: HttpRequest, response: HttpResponse, metrics: Metrics) {
  const text = Buffer.from(await metrics.registry.metrics());
  sendBytes(request, response, 200, text, { "content-type": metrics.registry.contentType });
}
