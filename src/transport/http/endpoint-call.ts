// Answers one GET call of a saved query, its parameters already bound: a
// cached result at once, without a promise in between, else the warehouse;
// then the metrics and, for failures (or every call at LOG_LEVEL=debug), a
// log line. Nothing here is made per call that a cache hit does not need.
import { Code, ConnectError } from "@connectrpc/connect";
import type { Credential } from "../../auth/index.js";
import type { CallContext, Endpoint, EndpointResult, EndpointService, PreparedCall } from "../../endpoints/index.js";
import type { Logger, Metrics } from "../../observability/index.js";
import { sendError } from "./error-body.js";
import { codeName } from "./http-status.js";
import { corsHeaders, writeResponse, type HttpRequest, type HttpResponse } from "./respond.js";

export interface EndpointCallOptions {
  service: EndpointService;
  metrics: Metrics;
  logger: Logger;
  /** Deadline of a GET call. */
  defaultTimeoutMs: number;
}

export interface EndpointCalls {
  /** Answers `call`; failures become the JSON error body. */
  answer(request: HttpRequest, response: HttpResponse, call: PreparedCall, requestId: string, credential: Credential): void;
  /** Answers a call of `endpoint` whose parameters were refused, counted and logged as calls are. */
  reject(request: HttpRequest, response: HttpResponse, endpoint: Endpoint, requestId: string, credential: Credential, error: unknown): void;
}

export function createEndpointCalls(options: EndpointCallOptions): EndpointCalls {
  const { service, metrics, logger, defaultTimeoutMs } = options;
  const logEveryCall = logger.enabled("debug");

  function finish(call: { endpoint: Endpoint }, requestId: string, caller: string, started: number, code: string) {
    const ms = performance.now() - started;
    const endpoint = call.endpoint.definition.name;
    metrics.recordCall(endpoint, "http", code, ms / 1000);
    metrics.countCaller(caller, code);
    if (code !== "ok") logger.info("call", { requestId, caller, endpoint, protocol: "http", code, durationMs: Math.round(ms) });
    else if (logEveryCall) logger.debug("call", { requestId, caller, endpoint, protocol: "http", code, durationMs: Math.round(ms) });
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
    if (connectError.code === Code.Internal) logger.error("get failed", { requestId, caller, cause: connectError.cause ?? error });
    finish(call, requestId, caller, started, codeName(connectError.code));
    if (!response.headersSent) sendError(request, response, requestId, connectError);
  }

  return {
    answer(request, response, call, requestId, credential) {
      const started = performance.now();
      const hit = service.peek(call);
      if (hit !== undefined) {
        sendResult(request, response, requestId, hit);
        return finish(call, requestId, credential.id, started, "ok");
      }
      service.execute(call, new GetCallContext(response, requestId, defaultTimeoutMs, credential.id)).then(
        (result) => {
          try {
            sendResult(request, response, requestId, result);
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

/** 200 with the result's JSON body, its cache status and age when it has them. */
function sendResult(request: HttpRequest, response: HttpResponse, requestId: string, result: EndpointResult) {
  const body = result.json();
  const headers: Record<string, string> = {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(body.length),
    "access-control-allow-origin": corsHeaders["access-control-allow-origin"],
    "access-control-expose-headers": corsHeaders["access-control-expose-headers"],
    "x-request-id": requestId,
  };
  if (result.cache !== undefined) {
    headers["x-cache"] = result.cache.status;
    headers.age = String(result.cache.ageSeconds);
  }
  writeResponse(request, response, 200, headers, body);
}
