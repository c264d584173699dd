// The composition root: wires transport -> auth -> endpoint registry ->
// executor -> warehouse into one request handler. Every dependency is passed
// in, so tests build the same app with their own clock and warehouse.
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { authInterceptor, createApiKeyCheck, createRateLimiter } from "../auth/index.js";
import { createResultCache, type ResultCache } from "../cache/index.js";
import {
  createEndpointRegistry,
  createEndpointService,
  savedQueryServices,
  type ComputedResponse,
  type EndpointRegistry,
} from "../endpoints/index.js";
import { createQueryExecutor, createQueryTuning } from "../executor/index.js";
import { type Clock, type Logger, type Metrics, createMetrics, silentLogger, systemClock } from "../observability/index.js";
import { codeName, connectRoutes, createHttpRoutes, isHttpRoute, loggingInterceptor, type RequestHandler } from "../transport/index.js";
import type { Warehouse } from "../warehouse/index.js";

export interface AppOptions {
  /** `cluster` and `queryCacheSeconds`, when set, tune every saved query (executor/query-tuning.ts). */
  warehouse: Pick<Warehouse, "client" | "kind" | "cluster" | "queryCacheSeconds">;
  /** Accepted API keys; at least one. */
  apiKeys: readonly string[];
  /** Default: the system clock. */
  clock?: Clock;
  /** Default: silent. */
  logger?: Logger;
  /** Deadline of a call whose client set none. Default 30 000 ms. */
  defaultTimeoutMs?: number;
  /** Default: a new registry with process metrics. */
  metrics?: Metrics;
  /** How often cache warming looks for due entries; 0 leaves it to the caller. Default 1000 ms. */
  cacheSweepIntervalMs?: number;
  /** Bounds of the result cache. Default 10,000 entries and 256 MiB. */
  cacheLimits?: { maxEntries?: number; maxBytes?: number };
  /** Calls per second and burst per API key; perSecond 0 disables. Default 100 and 200. */
  rateLimit?: { perSecond: number; burst: number };
  /** Bounds on warehouse queries running and waiting. Default 8 and 64. */
  admission?: { maxConcurrent?: number; maxQueued?: number };
  /** Whether the service can answer queries, for /readyz. Default: the warehouse answers a ping. */
  ready?: () => Promise<boolean>;
  /** Loads a saved query's SQL by name. Default: `sql/<name>.sql`. */
  readSql?: (name: string) => string;
}

export interface App {
  handler: RequestHandler;
  registry: EndpointRegistry;
  metrics: Metrics;
  cache: ResultCache<ComputedResponse>;
  /** Stops background work (cache warming). */
  close(): void;
}

export function createApp(options: AppOptions): App {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 30_000;
  const registry = createEndpointRegistry({ services: savedQueryServices, readSql: options.readSql });
  const metrics = options.metrics ?? createMetrics();
  const executor = createQueryExecutor({
    client: options.warehouse.client,
    clock,
    logger,
    defaultTimeoutMs,
    admission: options.admission,
    killAbortedQueries: options.warehouse.kind === "server",
    tuning: createQueryTuning({
      distributed: options.warehouse.cluster !== undefined,
      queryCacheSeconds: options.warehouse.queryCacheSeconds,
      cachedQueries: new Set(
        registry.endpoints.filter((e) => e.definition.cacheTtlSeconds > 0).map((e) => e.definition.name),
      ),
    }),
    observe: ({ query, durationMs, error }) => {
      metrics.warehouseQueryDuration.observe({ endpoint: query }, durationMs / 1000);
      if (error !== undefined) metrics.warehouseQueryErrors.inc({ endpoint: query, code: codeName(error.code) });
    },
  });
  const cache = createResultCache<ComputedResponse>({
    clock,
    logger,
    sweepIntervalMs: options.cacheSweepIntervalMs,
    ...options.cacheLimits,
    onEvent: (event, endpoint) => metrics.countCacheEvent(endpoint, event),
    onSize: (entries, bytes) => {
      metrics.cacheEntries.set(entries);
      metrics.cacheBytes.set(bytes);
    },
  });
  const service = createEndpointService({ executor, cache, clock });
  const checkApiKey = createApiKeyCheck(options.apiKeys, {
    limit: createRateLimiter({ ...(options.rateLimit ?? {}), clock }),
  });

  const httpRoutes = createHttpRoutes({
    registry,
    service,
    checkApiKey,
    ready: options.ready ?? (() => options.warehouse.client.ping().then((r) => r.success, () => false)),
    metrics,
    logger,
    defaultTimeoutMs,
  });
  const connectHandler = connectNodeAdapter({
    routes: connectRoutes({ registry, service, defaultTimeoutMs }),
    interceptors: [
      loggingInterceptor(logger, ({ method, protocol, code, durationMs }) =>
        metrics.recordCall(
          registry.forMethod(method).definition.name,
          protocol,
          code === "ok" ? "ok" : codeName(code),
          durationMs / 1000,
        ),
      ),
      authInterceptor(checkApiKey),
    ],
    fallback: httpRoutes,
  });
  // GET API paths skip the Connect router's lookup: they are the hot path of plain HTTP callers.
  const handler: RequestHandler = (request, response) =>
    isHttpRoute(request.url ?? "/") ? httpRoutes(request, response) : connectHandler(request, response);
  return { handler, registry, metrics, cache, close: () => cache.close() };
}
