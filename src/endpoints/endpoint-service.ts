// Runs one saved query for a request, whatever transport it came on:
// parameters bound and checked, then the result cache (for endpoints with a
// lifetime), the executor, and row messages.
import { create, type Message } from "@bufbuild/protobuf";
import { cacheKey, type CachePolicy, type ResultCache } from "../cache/index.js";
import type { QueryExecutor } from "../executor/index.js";
import type { Clock } from "../observability/index.js";
import { bindParameters } from "./parameters.js";
import type { Endpoint } from "./registry.js";
import { responseJsonBytes } from "./response-json.js";
import { rowMessageFromWarehouse } from "./row-message.js";

export interface CallContext {
  /**
   * Aborts when the caller goes away. Read only when the warehouse is asked,
   * so a transport may make it lazily (a getter) and spare cache hits the cost.
   */
  signal?: AbortSignal;
  /** Remaining time the caller allows, in milliseconds. */
  timeoutMs?: number;
  requestId?: string;
}

/** A computed response, as cached: the message, and its JSON body made at most once. */
export interface ComputedResponse {
  response: Message;
  /** The GET body `{"result": [...]}`; computed on first use and kept. */
  json(): Buffer;
}

export interface EndpointResult extends ComputedResponse {
  /** Set for endpoints with a cache lifetime. */
  cache?: { status: "HIT" | "MISS"; ageSeconds: number };
}

export interface EndpointService {
  /** Throws only ConnectError. */
  run(endpoint: Endpoint, request: Message, context?: CallContext): Promise<EndpointResult>;
}

export interface EndpointServiceOptions {
  executor: QueryExecutor;
  /** The shared result cache; without one nothing is cached. */
  cache?: ResultCache<ComputedResponse>;
  /** For the Age of cached results. Default Date.now. */
  clock?: Clock;
}

export function createEndpointService(options: EndpointServiceOptions): EndpointService {
  const { executor, cache } = options;
  const clock = options.clock ?? Date.now;

  async function compute(endpoint: Endpoint, queryParams: Parameters<QueryExecutor["execute"]>[1], context: CallContext) {
    const { rows } = await executor.execute(endpoint.savedQuery, queryParams, context);
    const result = rows.map((row) => rowMessageFromWarehouse(endpoint.rowSchema, row));
    return computedResponse(endpoint, create(endpoint.method.output, { result } as never));
  }

  return {
    async run(endpoint, request, context = {}) {
      const { queryParams, normalized } = bindParameters(endpoint, request);
      const policy: CachePolicy = {
        ttlMs: endpoint.definition.cacheTtlSeconds * 1000,
        warmMs: endpoint.definition.cacheWarmingSeconds * 1000,
      };
      if (cache === undefined || policy.ttlMs === 0) return compute(endpoint, queryParams, context);

      const key = cacheKey(endpoint.definition.name, normalized);
      const lookup =
        cache.peek(key, policy) ??
        (await cache.get(
        key,
        policy,
        async (signal) => {
          const value = await compute(endpoint, queryParams, { timeoutMs: context.timeoutMs, requestId: context.requestId, signal });
          // Serialised once per computed result: hits reuse the bytes, which also size the entry.
          return { value, bytes: value.json().length };
        },
        context.signal,
      ));
      const ageSeconds = Math.max(0, Math.floor((clock() - lookup.computedAt) / 1000));
      return { ...lookup.value, cache: { status: lookup.status, ageSeconds } };
    },
  };
}

function computedResponse(endpoint: Endpoint, response: Message): ComputedResponse {
  let json: Buffer | undefined;
  return {
    response,
    json: () => (json ??= responseJsonBytes(response, endpoint.rowSchema)),
  };
}
