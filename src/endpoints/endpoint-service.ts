// Runs one saved query for a request, whatever transport it came on:
// parameters bound and checked (prepare-call.ts), then the result cache for
// endpoints with a lifetime (cached-execution.ts, which supplies the
// service's peek and execute), a miss under a rows limit estimated first
// (call-estimates.ts), the executor, and the response in the form the
// caller reads (computed-response.ts).
import type { Message } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { ResultCache } from "../cache/index.js";
import {
  defaultQueryTimeoutMs,
  estimatePastReadLimit,
  type ExecuteOptions,
  type QueryEstimate,
  type QueryEstimator,
  type QueryExecutor,
  type ReadLimitValues,
} from "../executor/index.js";
import { systemClock, type Clock } from "../observability/index.js";
import { createCachedExecution } from "./cached-execution.js";
import { createCallEstimates } from "./call-estimates.js";
import { isPastSunset, pastSunsetError } from "./version-lifecycle.js";
import type { CallContext, EndpointResult, PreparedCall } from "./call-types.js";
import { computedResponse, type ComputedResponse } from "./computed-response.js";
import { createCallPreparer } from "./prepare-call.js";
import { createPageTokens, type PageTokenSecrets } from "./page-token.js";
import type { Endpoint } from "./registry.js";
import { notCachedError } from "./request-freshness.js";
import { createPaging } from "./result-page.js";
import type { Scope } from "./scope.js";

export interface EndpointService {
  /**
   * Refuses a version past its sunset (UNIMPLEMENTED naming its successor,
   * version-lifecycle.ts), applies the caller's scope (PERMISSION_DENIED for
   * an endpoint it may not call or a fixed parameter given another value),
   * then binds and checks the parameters (INVALID_ARGUMENT listing every problem).
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
  /**
   * A dry run: what `call` would read (`EXPLAIN ESTIMATE`), without running
   * it and without a warehouse query of the call's own. Its page token is
   * checked as `execute` checks it. UNIMPLEMENTED without an estimator.
   */
  estimate(call: PreparedCall, context?: CallContext): Promise<QueryEstimate>;
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
  /**
   * Asks the warehouse what a call would read. With one, a miss under a rows
   * limit is estimated first and refused at once when the estimate passes
   * it, and `estimate` answers dry runs. Default: none.
   */
  estimator?: QueryEstimator;
  /** Called for each call refused by its estimate, with the saved query's name (for metrics). Default: nothing. */
  onEstimateRefusal?: (endpoint: string) => void;
  /**
   * Keys of the page tokens' HMAC (PAGE_TOKEN_SECRET and, while rotating,
   * PAGE_TOKEN_PREVIOUS_SECRET). Default: 32 random bytes, so tokens last as
   * long as the process.
   */
  pageTokenSecrets?: PageTokenSecrets;
}

export function createEndpointService(options: EndpointServiceOptions): EndpointService {
  const { executor, cache } = options;
  const clock = options.clock ?? systemClock;
  const prepareCall = createCallPreparer(cache !== undefined, options.defaultReadLimits);
  const prepare: EndpointService["prepare"] = (endpoint, request, scope) => {
    const { deprecation } = endpoint;
    if (deprecation !== undefined && isPastSunset(deprecation, clock()))
      throw pastSunsetError(endpoint.definition.name, deprecation);
    return prepareCall(endpoint, request, scope);
  };
  const paging = createPaging(createPageTokens(options.pageTokenSecrets));
  const estimates =
    options.estimator === undefined ? undefined : createCallEstimates({ estimator: options.estimator, clock });
  const onEstimateRefusal = options.onEstimateRefusal ?? (() => {});

  async function compute(call: PreparedCall, executeOptions: ExecuteOptions): Promise<ComputedResponse> {
    const { endpoint, queryParams, readLimits, page } = call;
    // The caller is known here, not when the call was prepared: a transport may keep a prepared call for others.
    const caller = executeOptions.tenant ?? "";
    if (page !== undefined) paging.check(page, caller);
    if (estimates !== undefined && readLimits?.max_rows_to_read !== undefined) {
      const refusal = estimatePastReadLimit(await estimates.of(call, executeOptions.requestId), readLimits);
      if (refusal !== undefined) {
        onEstimateRefusal(endpoint.definition.name);
        throw refusal;
      }
    }
    // The options may be a transport's context with getters: the limits go with the query instead.
    const query = readLimits === undefined ? endpoint.savedQuery : { ...endpoint.savedQuery, readLimits };
    const { rows, durationMs, statistics, truncation } = await executor.execute(query, queryParams, executeOptions);
    const { rows: answered, nextPageToken } = page === undefined ? { rows } : paging.cut(page, caller, rows);
    // Cut short past max_rows (the executor) or past the page (a next page's token).
    const cut = {
      truncated: truncation?.truncated === true || nextPageToken !== undefined,
      rowsBeforeLimitAtLeast: Math.max(truncation?.rowsBeforeLimitAtLeast ?? 0, rows.length),
    };
    return computedResponse(
      endpoint,
      answered,
      { warehouseMs: durationMs, serializeMs: 0, statistics, computedAt: clock(), truncation: cut },
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
    async estimate(call, context = {}) {
      if (estimates === undefined) throw new ConnectError("dry runs are not available here", Code.Unimplemented);
      if (call.page !== undefined) paging.check(call.page, context.tenant ?? "");
      return estimates.of(call, context.requestId);
    },
    async run(endpoint, request, context, scope) {
      return service.execute(service.prepare(endpoint, request, scope), context);
    },
  };
  return service;
}
