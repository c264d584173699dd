// Runs one saved query for a request, whatever transport it came on:
// parameters bound and checked (prepare-call.ts), then the result cache for
// endpoints with a lifetime (cached-execution.ts, which supplies the
// service's peek and execute), the executor, and the response in the form
// the caller reads (computed-response.ts).
import type { Message } from "@bufbuild/protobuf";
import type { ResultCache } from "../cache/index.js";
import {
  defaultQueryTimeoutMs,
  type ExecuteOptions,
  type QueryExecutor,
  type ReadLimitValues,
} from "../executor/index.js";
import { systemClock, type Clock } from "../observability/index.js";
import { createCachedExecution } from "./cached-execution.js";
import type { CallContext, EndpointResult, PreparedCall } from "./call-types.js";
import { computedResponse, type ComputedResponse } from "./computed-response.js";
import { createCallPreparer } from "./prepare-call.js";
import { createPageTokens } from "./page-token.js";
import type { Endpoint } from "./registry.js";
import { notCachedError } from "./request-freshness.js";
import { createPaging } from "./result-page.js";
import type { Scope } from "./scope.js";

export interface EndpointService {
  /**
   * Applies the caller's scope (PERMISSION_DENIED for an endpoint it may not
   * call or a fixed parameter given another value), then binds and checks the
   * parameters (INVALID_ARGUMENT listing every problem).
   */
  prepare(endpoint: Endpoint, request: Message, scope?: Scope): PreparedCall;
  /**
   * The cached result of `call` if the cache holds a live one; never asks the
   * warehouse. Only for calls without CallContext.freshness: the others go
   * to `execute`.
   */
  peek(call: PreparedCall): EndpointResult | undefined;
  /**
   * The result of `call`, from the cache or the warehouse, as
   * `context.freshness` asks. Throws only ConnectError: notCachedError
   * (request-freshness.ts) for an only-if-cached call the cache cannot answer.
   */
  execute(call: PreparedCall, context?: CallContext): Promise<EndpointResult>;
  /** `execute(prepare(endpoint, request, scope), context)`. */
  run(endpoint: Endpoint, request: Message, context?: CallContext, scope?: Scope): Promise<EndpointResult>;
}

export interface EndpointServiceOptions {
  executor: QueryExecutor;
  /** The shared result cache; without one nothing is cached. */
  cache?: ResultCache<ComputedResponse>;
  /** For the Age of cached results. Default Date.now. */
  clock?: Clock;
  /**
   * Deadline of a cache refresh, and of a miss others may join when
   * `sharedDeadline` is "service". Default `defaultQueryTimeoutMs` (30 000 ms).
   */
  sharedTimeoutMs?: number;
  /**
   * Whose deadline a computation of a cached result that callers share runs to.
   * "service" (the default): `sharedTimeoutMs`, each caller leaving at its own
   * deadline, and the query cancelled when none waits any more; right where
   * the warehouse stops a query nobody waits for. "callers": when the query
   * gets its turn, the latest deadline among the callers of the starter's
   * tenant waiting for it then; once it runs, it is finished and its result
   * kept even if they all leave.
   * Right where an abandoned query runs on (the embedded engine): the work a
   * caller leaves behind is what it asked for, and is not wasted.
   */
  sharedDeadline?: "service" | "callers";
  /**
   * Read limits of every call (`MAX_ROWS_TO_READ`, `MAX_BYTES_TO_READ`); a
   * saved query's or a credential's smaller one wins (read-limit-choice.ts).
   * Default: none.
   */
  defaultReadLimits?: ReadLimitValues;
  /** Key of the page tokens' HMAC. Default: 32 random bytes, so tokens last as long as the process. */
  pageTokenSecret?: Uint8Array;
}

export function createEndpointService(options: EndpointServiceOptions): EndpointService {
  const { executor, cache } = options;
  const clock = options.clock ?? systemClock;
  const prepare = createCallPreparer(cache !== undefined, options.defaultReadLimits);
  const paging = createPaging(createPageTokens(options.pageTokenSecret));

  async function compute(call: PreparedCall, executeOptions: ExecuteOptions): Promise<ComputedResponse> {
    const { endpoint, queryParams, readLimits, page } = call;
    // The caller is known here, not when the call was prepared: a transport may keep a prepared call for others.
    const caller = executeOptions.tenant ?? "";
    if (page !== undefined) paging.check(page, caller);
    // The options may be a transport's context with getters: the limits go with the query instead.
    const query = readLimits === undefined ? endpoint.savedQuery : { ...endpoint.savedQuery, readLimits };
    const { rows, durationMs, statistics } = await executor.execute(query, queryParams, executeOptions);
    const { rows: answered, nextPageToken } = page === undefined ? { rows } : paging.cut(page, caller, rows);
    return computedResponse(
      endpoint,
      answered,
      { warehouseMs: durationMs, serializeMs: 0, statistics, computedAt: clock() },
      { nextPageToken, unmasked: call.unmasked },
    );
  }

  const cached =
    cache === undefined
      ? undefined
      : createCachedExecution({
          cache,
          clock,
          compute,
          sharedTimeoutMs: options.sharedTimeoutMs ?? defaultQueryTimeoutMs,
          sharedDeadline: options.sharedDeadline ?? "service",
        });

  // The cache's own functions, not wrappers: a hit goes from the transport to the cache without a stop here.
  const service: EndpointService = {
    prepare,
    peek: cached?.peek ?? (() => undefined),
    execute:
      cached?.execute ??
      (async (call, context = {}) => {
        if (context.freshness?.onlyIfCached === true) throw notCachedError();
        return compute(call, context);
      }),
    async run(endpoint, request, context, scope) {
      return service.execute(service.prepare(endpoint, request, scope), context);
    },
  };
  return service;
}
