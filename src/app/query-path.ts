// The path of a saved query below the transport: the executor, the
// estimator, the result cache and the endpoint service, set to what the warehouse can do
// (warehouse/capabilities.ts) and reporting to the metrics.
import { createResultCache, type ResultCache } from "../cache/index.js";
import {
  createEndpointService,
  type ComputedResponse,
  type EndpointRegistry,
  type EndpointService,
  type PageTokenSecrets,
} from "../endpoints/index.js";
import {
  createFailFastGate,
  createQueryEstimator,
  createQueryExecutor,
  createQueryTuning,
  defaultUnreachableCooldownMs,
  type QueryExecutor,
  type ReadLimitValues,
  withEmptyAnswers,
} from "../executor/index.js";
import type { Clock, Logger, Metrics, Tracing } from "../observability/index.js";
import { codeName, recordCallOutcome } from "../transport/index.js";
import { type Warehouse, warehouseCapabilities } from "../warehouse/index.js";
import { defaultAppLimits, defaultConcurrency } from "./app-defaults.js";

export interface QueryPathOptions {
  warehouse: Pick<Warehouse, "client" | "kind" | "cluster" | "queryCacheSeconds">;
  registry: EndpointRegistry;
  metrics: Metrics;
  clock: Clock;
  logger: Logger;
  /** Deadline of a call whose client set none. */
  defaultTimeoutMs: number;
  /** The longest deadline of any call; also that of a cache refresh and of a shared miss. */
  maxQueryMs: number;
  /** Whether the schema is in place: while false, every query and estimate is UNAVAILABLE. */
  schemaReady: () => boolean;
  /** Admission bounds; unset ones take the executor's defaults, the concurrency the warehouse's. */
  admission?: { maxConcurrent?: number; maxQueued?: number; maxPerKey?: number };
  /** How often cache warming looks for due entries; 0 leaves it to the caller. Default 1000 ms. */
  cacheSweepIntervalMs?: number;
  /** Bounds of the result cache. Default 10,000 entries and 256 MiB. */
  cacheLimits?: { maxEntries?: number; maxBytes?: number };
  /** How long past its lifetime a cached result answers a warehouse outage; 0 turns it off. Default 1 hour. */
  staleIfErrorMs?: number;
  /** Spans of the cache and the executor, and the call's cache outcome (docs/observability.md). Default: none. */
  tracing?: Tracing;
  /** `MAX_ROWS_TO_READ` and `MAX_BYTES_TO_READ`: read limits of every call; 0 is none. Default: none. */
  readLimits?: ReadLimitValues;
  /** Keys of the page tokens (PAGE_TOKEN_SECRET, PAGE_TOKEN_PREVIOUS_SECRET). Default: random, for the process's life. */
  pageTokenSecrets?: PageTokenSecrets;
  /** Saved queries answered with no rows, never asked of the warehouse (service.call-stats with the call log off). Default: none. */
  emptyAnswers?: ReadonlySet<string>;
}

export interface QueryPath {
  cache: ResultCache<ComputedResponse>;
  service: EndpointService;
  /** Runs the warehouse queries (watch tails poll through it). */
  executor: QueryExecutor;
}

export function createQueryPath(options: QueryPathOptions): QueryPath {
  const { warehouse, registry, metrics, clock, logger, tracing } = options;
  const capabilities = warehouseCapabilities(warehouse.kind);
  // One gate for the query and its estimate: a dry run while the warehouse is down answers as the query would.
  const gate = createFailFastGate({ cooldownMs: defaultUnreachableCooldownMs, schemaReady: options.schemaReady });
  const warehouseExecutor = createQueryExecutor({
    client: warehouse.client,
    clock,
    logger,
    defaultTimeoutMs: options.defaultTimeoutMs,
    maxTimeoutMs: options.maxQueryMs,
    admission: {
      maxConcurrent: defaultConcurrency(capabilities),
      maxPerKey: defaultAppLimits.warehouseCallsPerKey,
      ...options.admission,
    },
    killAbortedQueries: capabilities.stopsAbandonedQueries,
    gate,
    tracing,
    // A server reads `traceparent` and joins the trace; the embedded engine has no use for it.
    propagateTrace: warehouse.kind === "server",
    tuning: createQueryTuning({
      distributed: warehouse.cluster !== undefined,
      queryCacheSeconds: warehouse.queryCacheSeconds,
      cachedQueries: new Set(
        registry.endpoints.filter((e) => e.definition.cacheTtlSeconds > 0).map((e) => e.definition.name),
      ),
    }),
    observe: ({ query, durationMs, error, readLimit }) => {
      metrics.warehouseQueryDuration.observe({ endpoint: query }, durationMs / 1000);
      if (error !== undefined) metrics.warehouseQueryErrors.inc({ endpoint: query, code: codeName(error.code) });
      if (readLimit !== undefined) metrics.readLimitRefusals.inc({ endpoint: query, limit: readLimit });
    },
  });
  const executor = withEmptyAnswers(warehouseExecutor, options.emptyAnswers ?? new Set());
  const cache = createResultCache<ComputedResponse>({
    logger,
    sweepIntervalMs: options.cacheSweepIntervalMs,
    staleIfErrorMs: options.staleIfErrorMs ?? defaultAppLimits.staleIfErrorMs,
    ...options.cacheLimits,
    onEvent: (event, endpoint) => {
      metrics.countCacheEvent(endpoint, event);
      if (tracing !== undefined && (event === "hit" || event === "miss")) recordCallOutcome(tracing, { cache: event });
    },
    tracing,
    onSize: (entries, bytes) => {
      metrics.cacheEntries.set(entries);
      metrics.cacheBytes.set(bytes);
    },
  });
  const service = createEndpointService({
    executor,
    cache,
    clock,
    sharedTimeoutMs: options.maxQueryMs,
    sharedDeadline: capabilities.stopsAbandonedQueries ? "service" : "callers",
    defaultReadLimits: options.readLimits,
    estimator: createQueryEstimator({ client: warehouse.client, clock, logger, gate }),
    onEstimateRefusal: (endpoint) => metrics.readLimitRefusals.inc({ endpoint, limit: "max_rows_to_read" }),
    pageTokenSecrets: options.pageTokenSecrets,
  });
  return { cache, service, executor };
}
