// The composition root: wires transport -> auth -> endpoint registry ->
// executor -> warehouse into one request handler. Every dependency is passed
// in, so tests build the same app with their own clock and warehouse.
import { connectNodeAdapter } from "@connectrpc/connect-node";
import {
  type Authenticator,
  createAuthenticator,
  createTokenVerifier,
  openKeyFile,
  type TokenVerifierOptions,
} from "../auth/index.js";
import { createResultCache, type ResultCache } from "../cache/index.js";
import {
  createEndpointRegistry,
  createEndpointService,
  savedQueryServices,
  type ComputedResponse,
  type EndpointRegistry,
} from "../endpoints/index.js";
import { createQueryExecutor, createQueryTuning, defaultAdmission, defaultQueryTimeoutMs } from "../executor/index.js";
import {
  type Clock,
  type Logger,
  type Metrics,
  type MetricsScrape,
  createMetrics,
  createMetricsScrape,
  silentLogger,
  systemClock,
} from "../observability/index.js";
import { Health } from "../gen/grpc/health/v1/health_pb.js";
import {
  clientAddress,
  codeName,
  connectRoutes,
  createHealthService,
  createHttpRoutes,
  createKeylessLimit,
  createRpcGate,
  createServerReflection,
  createUnimplementedFallback,
  isHttpRoute,
  withCors,
  withExplorer,
  type CorsOrigins,
  loggingInterceptor,
  serverReflectionServices,
  type RequestHandler,
  type TrustedProxies,
} from "../transport/index.js";
import type { Warehouse } from "../warehouse/index.js";
import { defaultAppLimits } from "./app-defaults.js";
import { sharedReadiness } from "./shared-readiness.js";

export interface AppOptions {
  /** `cluster` and `queryCacheSeconds`, when set, tune every saved query (executor/query-tuning.ts). */
  warehouse: Pick<Warehouse, "client" | "kind" | "cluster" | "queryCacheSeconds">;
  /** Full-access API keys; with the key file and tokens, at least one way in. */
  apiKeys: readonly string[];
  /** Scoped keys from a JSON file, looked at every `pollMs` (default 2000) for a change. */
  keyFile?: { path: string; pollMs?: number };
  /** Signed tokens: verified with a secret (HS256), a public key or a JWKS. */
  tokens?: Pick<TokenVerifierOptions, "secret" | "publicKeyPem" | "jwks">;
  /** Default: the system clock. */
  clock?: Clock;
  /** Default: silent. */
  logger?: Logger;
  /** Deadline of a call whose client set none. Default 30 000 ms. */
  defaultTimeoutMs?: number;
  /** The longest deadline of any call, whatever its client asks; the wait for a warehouse turn counts. Default 30 000 ms. */
  maxQueryMs?: number;
  /** Default: a new registry with process metrics. */
  metrics?: Metrics;
  /** How often cache warming looks for due entries; 0 leaves it to the caller. Default 1000 ms. */
  cacheSweepIntervalMs?: number;
  /** Bounds of the result cache. Default 10,000 entries and 256 MiB. */
  cacheLimits?: { maxEntries?: number; maxBytes?: number };
  /** Calls per second and burst per API key; perSecond 0 disables. Default 100 and 200. */
  rateLimit?: { perSecond: number; burst: number };
  /** Failed authentications a second and in a row per client address; perSecond 0 disables. Default 1 and 20. */
  authFailures?: { perSecond: number; burst: number };
  /** Proxies whose X-Forwarded-For names the client address (TRUSTED_PROXIES; transport/client-address.ts). Default: none. */
  trustedProxies?: TrustedProxies;
  /**
   * Bounds on warehouse queries running, waiting, and running and waiting
   * for one key. Default 8 (1 on the embedded engine), 64 and 16.
   */
  admission?: { maxConcurrent?: number; maxQueued?: number; maxPerKey?: number };
  /** Largest Connect, gRPC or gRPC-Web request message, after decompression. Default 65,536 bytes. */
  maxBodyBytes?: number;
  /** Longest value of any parameter, in characters. Default 1,024. */
  maxParameterLength?: number;
  /**
   * Whether the warehouse's schema is in place and the saved queries fit
   * their row messages: while false, /readyz answers 503 and every saved
   * query UNAVAILABLE without reaching the warehouse. Default: always true.
   */
  schemaReady?: () => boolean;
  /** Whether the service can answer queries, for /readyz. Default: `schemaReady` and the warehouse answers a ping. */
  ready?: () => Promise<boolean>;
  /** Loads a saved query's SQL by name. Default: `sql/<name>.sql`. */
  readSql?: (name: string) => string;
  /** How long an answer of `ready` is reused for /readyz and health checks. Default 1000 ms. */
  readinessReuseMs?: number;
  /** gRPC health Watch calls open at once, all callers together. Default 256. */
  maxHealthWatches?: number;
  /** How often a gRPC health Watch asks `ready` while someone watches. Default 1000 ms. */
  healthPollMs?: number;
  /** Origins whose pages may call the service (CORS_ORIGINS; transport/cors.ts). Default `"*"`. */
  corsOrigins?: CorsOrigins;
  /** The explorer at GET /, from the built page in `directory` (dist/web/). Default: none. */
  explorer?: { directory: string };
  /** Requests needing no key (/healthz, /metrics, unknown paths...) a second and burst per client address and kind; perSecond 0 disables. Default 20 and 40. */
  keylessRateLimit?: { perSecond: number; burst: number };
  /** How long the /metrics text is reused. Default 1000 ms. */
  metricsReuseMs?: number;
  /** Whether the API port serves /metrics (false: `App.scrape` is served elsewhere, METRICS_ADDRESS). Default true. */
  serveMetrics?: boolean;
}

export interface App {
  handler: RequestHandler;
  registry: EndpointRegistry;
  metrics: Metrics;
  cache: ResultCache<ComputedResponse>;
  /** The /metrics text, rendered at most once per `metricsReuseMs`. */
  scrape: MetricsScrape;
  /** Reads the key file again (SIGHUP); false, with the keys in force kept, when it does not read. */
  reloadCredentials(): boolean;
  /** Ends long-lived calls (gRPC health Watch) so that a shutdown need not wait for them. */
  endStreams(): void;
  /** Stops background work (cache warming) and ends long-lived calls. */
  close(): void;
}

export function createApp(options: AppOptions): App {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const defaultTimeoutMs = options.defaultTimeoutMs ?? defaultQueryTimeoutMs;
  const maxQueryMs = options.maxQueryMs ?? defaultQueryTimeoutMs;
  const maxBodyBytes = options.maxBodyBytes ?? defaultAppLimits.maxBodyBytes;
  const schemaReady = options.schemaReady ?? (() => true);
  const registry = createEndpointRegistry({
    services: savedQueryServices,
    readSql: options.readSql,
    maxParameterLength: options.maxParameterLength,
  });
  const metrics = options.metrics ?? createMetrics();
  // A server stops a query nobody waits for (KILL QUERY); the embedded engine cannot: it runs the query to its end.
  const warehouseStopsAbandonedQueries = options.warehouse.kind === "server";
  const executor = createQueryExecutor({
    client: options.warehouse.client,
    clock,
    logger,
    defaultTimeoutMs,
    maxTimeoutMs: maxQueryMs,
    // The embedded engine runs one saved query at a time (chDB queues queries with parameters itself):
    // more turns would only move the queue into chDB, past the fair order and the bounds.
    admission: {
      maxConcurrent:
        options.warehouse.kind === "embedded" ? defaultAppLimits.embeddedConcurrency : defaultAdmission.maxConcurrent,
      maxPerKey: defaultAppLimits.warehouseCallsPerKey,
      ...options.admission,
    },
    killAbortedQueries: warehouseStopsAbandonedQueries,
    schemaReady,
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
    logger,
    sweepIntervalMs: options.cacheSweepIntervalMs,
    ...options.cacheLimits,
    onEvent: (event, endpoint) => metrics.countCacheEvent(endpoint, event),
    onSize: (entries, bytes) => {
      metrics.cacheEntries.set(entries);
      metrics.cacheBytes.set(bytes);
    },
  });
  const service = createEndpointService({
    executor,
    cache,
    clock,
    sharedTimeoutMs: maxQueryMs,
    sharedDeadline: warehouseStopsAbandonedQueries ? "service" : "callers",
  });
  const knownEndpoints = new Set(registry.endpoints.map((e) => e.definition.name));
  const knownParameters = new Set(registry.endpoints.flatMap((e) => e.parameters.map((p) => p.name)));
  const keyFile =
    options.keyFile === undefined
      ? undefined
      : openKeyFile({
          path: options.keyFile.path,
          pollMs: options.keyFile.pollMs,
          knownEndpoints,
          knownParameters,
          logger,
        });
  const verifyToken =
    options.tokens === undefined
      ? undefined
      : createTokenVerifier({ ...options.tokens, knownEndpoints, knownParameters, clock });
  const { authenticate: authenticateFrom, close: closeAuthenticator } = createAuthenticator({
    apiKeys: options.apiKeys,
    keyFile,
    verifyToken,
    rateLimit: options.rateLimit,
    authFailures: options.authFailures,
    clock,
    logger,
  });
  // Failed authentications are counted per client: the peer, or the client a trusted proxy names.
  const trusted = options.trustedProxies;
  const authenticate: Authenticator =
    trusted === undefined || trusted.empty
      ? authenticateFrom
      : (headers, peer) => authenticateFrom(headers, clientAddress(peer, headers.get("x-forwarded-for"), trusted));

  const ready = sharedReadiness(
    options.ready ??
      (async () =>
        schemaReady() &&
        (await options.warehouse.client.ping().then(
          (r) => r.success,
          () => false,
        ))),
    options.readinessReuseMs,
  );
  const scrape = createMetricsScrape({ registry: metrics.registry, reuseMs: options.metricsReuseMs });
  const httpRoutes = createHttpRoutes({
    registry,
    service,
    authenticate,
    ready,
    metrics,
    logger,
    defaultTimeoutMs,
    scrape,
    serveMetrics: options.serveMetrics,
    keylessLimit: createKeylessLimit({ ...options.keylessRateLimit, trustedProxies: trusted, clock }),
  });
  // Beside the saved queries: gRPC health and server reflection, which need no key.
  const health = createHealthService({
    ready,
    services: savedQueryServices.map((s) => s.typeName),
    pollMs: options.healthPollMs,
    maxWatches: options.maxHealthWatches,
  });
  const grpcServices = [...savedQueryServices, Health, ...serverReflectionServices];
  const savedQuery = connectRoutes({ registry, service, defaultTimeoutMs });
  const reflection = createServerReflection({ services: grpcServices });
  // Call metrics are per saved query; health and reflection calls are only logged.
  const endpointNames = new Map(registry.endpoints.map((e) => [e.method, e.definition.name]));
  let rpcGate: ReturnType<typeof createRpcGate> | undefined;
  const connectHandler = connectNodeAdapter({
    routes: (router) => {
      savedQuery(router);
      health.routes(router);
      reflection(router);
    },
    // Bounds every message, compressed or not: decompression stops at it.
    readMaxBytes: maxBodyBytes,
    // A JSON key that is not a parameter (`sql`, say) is refused, as on GET, not ignored.
    jsonOptions: { ignoreUnknownFields: false },
    contextValues: (request) => rpcGate!.contextValues(request),
    interceptors: [
      loggingInterceptor(logger, {
        endpointOf: (method) => endpointNames.get(method),
        observe: ({ endpoint, protocol, code, durationMs, caller }) => {
          if (endpoint === undefined) return;
          const name = code === "ok" ? "ok" : codeName(code);
          metrics.recordCall(endpoint, protocol, name, durationMs / 1000);
          if (caller !== undefined) metrics.countCaller(caller, name);
        },
      }),
    ],
    // An RPC call of anything not served gets UNIMPLEMENTED in its protocol; the rest is plain HTTP.
    fallback: createUnimplementedFallback({ services: grpcServices.map((s) => s.typeName), fallback: httpRoutes }),
  });
  // Saved queries need a key, checked from the headers before any body is read; health and reflection do not.
  rpcGate = createRpcGate(connectHandler, {
    authenticate,
    maxBodyBytes,
    keyedPaths: new Set(registry.endpoints.map((endpoint) => `/${endpoint.grpcMethod}`)),
    onRefused: (protocol, error) =>
      metrics.requests.series({ endpoint: "", protocol, code: codeName(error.code) }).inc(),
    logger,
    maxTimeoutMs: maxQueryMs,
  });
  const gated = rpcGate.handler;
  // GET API paths skip the Connect router's lookup: they are the hot path of plain HTTP callers.
  const routed: RequestHandler = (request, response) =>
    isHttpRoute(request.url ?? "/") ? httpRoutes(request, response) : gated(request, response);
  // Browsers: preflights answered and CORS headers set before any route or key check; the explorer page beside.
  const explorer = options.explorer;
  const handler = withCors(
    explorer === undefined
      ? routed
      : withExplorer(routed, {
          directory: explorer.directory,
          onMissing: (directory) => logger.warn("explorer not built; GET / answers 503", { directory }),
        }),
    { origins: options.corsOrigins },
  );
  return {
    handler,
    registry,
    metrics,
    cache,
    scrape,
    reloadCredentials: () => keyFile?.reload() ?? true,
    endStreams: () => health.close(),
    close: () => {
      health.close();
      cache.close();
      closeAuthenticator();
    },
  };
}
