// Answers one GET call of a saved query, its parameters already bound: a
// cached result at once, without a promise in between, else the warehouse;
// then the metrics and, for failures (or every call at LOG_LEVEL=debug), a
// log line. Nothing here is made per call that a cache hit does not need.
import { Code, ConnectError } from "@connectrpc/connect";
import {
  type CallContext,
  dryRunAnswer,
  type Endpoint,
  type EndpointResult,
  type EndpointService,
  type Freshness,
  type PreparedCall,
} from "../../endpoints/index.js";
import type { Logger, Metrics } from "../../observability/index.js";
import {
  asksFreshness,
  type AuthenticatedCall,
  codeName,
  freshnessOfHead,
  type RecordCall,
  recordNoCall,
  type ValidatedCall,
} from "../node-http/index.js";
import type { BodyFormat } from "./content-negotiation.js";
import { sendError } from "./error-body.js";
import { sendJson } from "./respond.js";
import { createResultAnswer } from "./result-answer.js";

/** A prepared GET call, with the format its query string named (else `Accept` decides). */
export type GetCall = PreparedCall & { format?: BodyFormat };

export interface EndpointCallOptions {
  service: EndpointService;
  metrics: Metrics;
  logger: Logger;
  /** Deadline of a GET call. */
  defaultTimeoutMs: number;
  /** Called at the end of each call, within it (for its trace span). Default: nothing. */
  observe?: HttpCallObserver;
  /** STALE_IF_ERROR_SECONDS, named in Cache-Control; 0 names none. Default 3600. */
  staleIfErrorSeconds?: number;
  /** Records each call's end in the call log. Default: nothing. */
  record?: RecordCall;
}

/** What a GET call came to: its saved query, code (`ok`, or a code name such as `not_found`) and caller. */
export type HttpCallObserver = (event: { endpoint: string; code: string; caller: string }) => void;

/** The answers of GET calls, each counted and logged at its end. */
export type EndpointCalls = ReturnType<typeof createEndpointCalls>;

export function createEndpointCalls(options: EndpointCallOptions) {
  const { service, metrics, logger, defaultTimeoutMs } = options;
  const logEveryCall = logger.enabled("debug");
  const sendResult = createResultAnswer(options.staleIfErrorSeconds ?? 3600);
  const record = options.record ?? recordNoCall;

  function finish(call: AuthenticatedCall, endpoint: Endpoint, code: string, result?: EndpointResult) {
    const ms = performance.now() - call.started;
    const name = endpoint.definition.name;
    const caller = call.credential.id;
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

  function fail(call: AuthenticatedCall, endpoint: Endpoint, error: unknown) {
    const connectError = ConnectError.from(error);
    if (connectError.code === Code.Internal) {
      logger.error("get failed", {
        requestId: call.requestId,
        caller: call.credential.id,
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
    /** A cached result at once, the CORS headers first: true when it did (the fast path of GET hits). */
    answerHit(call: ValidatedCall): boolean {
      const prepared = call.prepared;
      // A caller's freshness directive is execute's to read.
      if (asksFreshness(call.head.headers)) return false;
      call.started = performance.now();
      const hit = service.peek(prepared);
      if (hit === undefined) return false;
      sendResult(call, hit, performance.now() - call.started);
      finish(call, prepared.endpoint, "ok", hit);
      return true;
    },
    /** Any call; failures become the JSON error body. */
    answer(call: ValidatedCall): void {
      const prepared = call.prepared;
      call.started = performance.now();
      const freshness = freshnessOfHead(call.head.headers);
      const hit = freshness === undefined ? service.peek(prepared) : undefined;
      const lookupMs = performance.now() - call.started;
      // Every answer but a hit's one write goes through the response, the CORS headers set on it.
      call.exchange();
      if (hit !== undefined) {
        sendResult(call, hit, lookupMs);
        return finish(call, prepared.endpoint, "ok", hit);
      }
      const context = new GetCallContext(call, defaultTimeoutMs, freshness);
      service.execute(prepared, context).then(
        (result) => {
          try {
            sendResult(call, result, lookupMs);
          } catch (error) {
            // Rows that do not fit the row message: a bug, answered as INTERNAL.
            return fail(call, prepared.endpoint, error);
          }
          finish(call, prepared.endpoint, "ok", result);
        },
        (error: unknown) => fail(call, prepared.endpoint, error),
      );
    },
    /** The estimate (`dry_run=1`), the query not run: `{"estimate": {"rows", "parts", "marks"}}`, never cached. */
    answerDryRun(call: ValidatedCall): void {
      const { prepared } = call;
      call.started = performance.now();
      const exchange = call.exchange();
      service.estimate(prepared, new GetCallContext(call, defaultTimeoutMs, undefined)).then(
        (estimate) => {
          sendJson(exchange, 200, dryRunAnswer(estimate), {
            "cache-control": "no-store",
            "x-request-id": call.requestId,
            ...prepared.endpoint.deprecation?.headers,
          });
          finish(call, prepared.endpoint, "ok");
        },
        (error: unknown) => fail(call, prepared.endpoint, error),
      );
    },
    /** A call of `endpoint` whose parameters were refused. */
    reject(call: AuthenticatedCall, endpoint: Endpoint, error: unknown): void {
      call.started = performance.now();
      fail(call, endpoint, error);
    },
  };
}

/** The context a GET call asks the warehouse with; its abort signal is made only if the warehouse asks for it. */
class GetCallContext implements CallContext {
  private abort: AbortController | undefined;
  constructor(
    private readonly call: AuthenticatedCall,
    readonly timeoutMs: number,
    readonly freshness: Freshness | undefined,
  ) {}
  get requestId(): string {
    return this.call.requestId;
  }
  get tenant(): string {
    return this.call.credential.id;
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
