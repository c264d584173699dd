// The composition root: the endpoint registry, the query path below it
// (query-path.ts), who may call (authentication.ts) and readiness, served as
// one request handler (and one handler of bare HTTP/2 streams). A request
// becomes one call value at CORS (transport/cors.ts), is routed once, then
// goes to the GET routes (transport/http/http-routes.ts) or the RPC stack
// (transport/rpc-stack.ts). Every dependency is passed in, so tests build the
// same app with their own clock and warehouse.
import type { TokenVerifierOptions } from "../auth/index.js";
import type { ResultCache } from "../cache/index.js";
import {
  createEndpointRegistry,
  createWatchHub,
  savedQueryServices,
  type ComputedResponse,
  type EndpointRegistry,
  type WatchBoundValues,
  type WatchHub,
} from "../endpoints/index.js";
import { defaultQueryTimeoutMs, type ReadLimitValues } from "../executor/index.js";
import {
  type Clock,
  type Logger,
  type Metrics,
  type Tracing,
  type MetricsScrape,
  createMetrics,
  createMetricsScrape,
  silentLogger,
  systemClock,
} from "../observability/index.js";
import {
  type CallHandler,
  createHttpRoutes,
  createKeylessLimit,
  createRouteOf,
  createRecordCall,
  createRpcStack,
  endpointKeyOf,
  isHttpRoute,
  recordCallOutcome,
  traceCalls,
  withCors,
  withCorsStreams,
  withExplorer,
  type CorsOrigins,
  type RequestHandler,
  type StreamHandler,
  type TrustedProxies,
} from "../transport/index.js";
import {
  type CallLog,
  callStatsEndpoint,
  createCallLog,
  defaultMaxImportBytes,
  type Warehouse,
} from "../warehouse/index.js";
import { defaultAppLimits } from "./app-defaults.js";
import { createAuthentication } from "./authentication.js";
import { createQueryPath } from "./query-path.js";
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
  /**
   * Bounds of the result cache, and what one caller may hold of a full one
   * (a fraction of each bound: ResultCacheOptions.sharePerCaller). Default
   * 10,000 entries, 256 MiB and half of each.
   */
  cacheLimits?: { maxEntries?: number; maxBytes?: number; sharePerCaller?: number };
  /** How long past its lifetime a cached result answers a warehouse outage; 0 turns it off. Default 1 hour. */
  staleIfErrorMs?: number;
  /** Calls per second and burst per API key; perSecond 0 disables. Default 100 and 200. */
  rateLimit?: { perSecond: number; burst: number };
  /** Failed authentications a second and in a row per client address; perSecond 0 disables. Default 1 and 20. */
  authFailures?: { perSecond: number; burst: number };
  /** Proxies whose X-Forwarded-For names the client address (TRUSTED_PROXIES; transport/node-http/client-address.ts). Default: none. */
  trustedProxies?: TrustedProxies;
  /**
   * Bounds on warehouse queries running, waiting, and running and waiting
   * for one key. Default 8 (1 on a warehouse that runs one query at a time), 64 and 16.
   */
  admission?: { maxConcurrent?: number; maxQueued?: number; maxPerKey?: number };
  /** Largest Connect, gRPC or gRPC-Web request message, after decompression. Default 65,536 bytes. */
  maxBodyBytes?: number;
  /**
   * Whether cache hits of Connect, gRPC and gRPC-Web calls are answered from
   * the bytes their result keeps (the fast path) rather than through the
   * Connect router; the answers are the same. Default true; with traces
   * (`tracing`), off, so that every call is served within its span.
   */
  rpcFastPath?: boolean;
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
  /** gRPC health Watch calls one client address may hold open. Default 64. */
  maxHealthWatchesPerAddress?: number;
  /** How often a gRPC health Watch asks `ready` while someone watches. Default 1000 ms. */
  healthPollMs?: number;
  /** Origins whose pages may call the service (CORS_ORIGINS; transport/cors.ts). Default `"*"`. */
  corsOrigins?: CorsOrigins;
  /** The explorer at GET /, from the built page in `directory` (dist/web/). Default: none. */
  explorer?: { directory: string };
  /** Traces of saved-query calls, cache refreshes and warehouse queries (docs/observability.md). Default: none. */
  tracing?: Tracing;
  /** Requests needing no key (/healthz, /metrics, unknown paths...) a second and burst per client address and kind; perSecond 0 disables. Default 20 and 40. */
  keylessRateLimit?: { perSecond: number; burst: number };
  /** Largest body of POST /api/import/<table> (MAX_IMPORT_BYTES). Default 16 MiB. */
  maxImportBytes?: number;
  /** How long the /metrics text is reused. Default 1000 ms. */
  metricsReuseMs?: number;
  /** Whether the API port serves /metrics (false: `App.scrape` is served elsewhere, METRICS_ADDRESS). Default true. */
  serveMetrics?: boolean;
  /** `MAX_ROWS_TO_READ` and `MAX_BYTES_TO_READ`: read limits of every call, 0 none; a saved query's or a credential's smaller one wins. Default: none. */
  readLimits?: ReadLimitValues;
  /**
   * The call log (CALL_LOG, CALL_LOG_FLUSH_SECONDS, CALL_LOG_MAX_ROWS): every
   * saved-query call as a row of `service_calls`, written in batches through
   * the warehouse's client. Default: off.
   */
  callLog?: { enabled?: boolean; flushMs?: number; maxRows?: number };
  /**
   * Watch streams: their bounds (MAX_WATCH_STREAMS*), how often a tail is
   * polled (TAIL_POLL_SECONDS) and an event stream's heartbeat. Default
   * 10,000, 100, 100, 2000 ms and 15 s.
   */
  watch?: { bounds?: WatchBoundValues; tailPollMs?: number; heartbeatMs?: number };
}

export interface App {
  handler: RequestHandler;
  /** The same for HTTP/2 streams before Node's compatibility layer (the single-port server's `streams`); undefined with traces. */
  streams: StreamHandler | undefined;
  registry: EndpointRegistry;
  metrics: Metrics;
  cache: ResultCache<ComputedResponse>;
  /** The /metrics text, rendered at most once per `metricsReuseMs`. */
  scrape: MetricsScrape;
  /** Reads the key file again (SIGHUP); false, with the keys in force kept, when it does not read. */
  reloadCredentials(): boolean;
  /** Feeds every watch stream (the RPC watch methods, Server-Sent Events); closed by `endStreams`. */
  watchHub: WatchHub;
  /** Ends long-lived calls (gRPC health Watch, watch streams with UNAVAILABLE) so that a shutdown need not wait for them. */
  endStreams(): void;
  /** Stops background work (cache warming) and ends long-lived calls. */
  close(): void;
  /** The calls recorded; closed (its last rows written) by whoever stops the service, before the warehouse. */
  callLog: CallLog;
}

export function createApp(options: AppOptions): App {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const defaultTimeoutMs = options.defaultTimeoutMs ?? defaultQueryTimeoutMs;
  const maxQueryMs = options.maxQueryMs ?? defaultQueryTimeoutMs;
  const schemaReady = options.schemaReady ?? (() => true);
  const metrics = options.metrics ?? createMetrics();
  const { tracing } = options;
  const registry = createEndpointRegistry({
    services: savedQueryServices,
    readSql: options.readSql,
    maxParameterLength: options.maxParameterLength,
  });
  const staleIfErrorSeconds = Math.floor((options.staleIfErrorMs ?? defaultAppLimits.staleIfErrorMs) / 1000);
  const recording = options.callLog !== undefined && options.callLog.enabled !== false;
  const { cache, service, executor } = createQueryPath({
    warehouse: options.warehouse,
    registry,
    metrics,
    clock,
    logger,
    defaultTimeoutMs,
    maxQueryMs,
    schemaReady,
    admission: options.admission,
    cacheSweepIntervalMs: options.cacheSweepIntervalMs,
    cacheLimits: options.cacheLimits,
    staleIfErrorMs: options.staleIfErrorMs,
    tracing,
    readLimits: options.readLimits,
    // With the call log off, service.call-stats answers no rows, whatever the table still holds.
    emptyAnswers: new Set(recording ? [] : [callStatsEndpoint]),
  });
  const callLog = createCallLog(options.warehouse.client, {
    enabled: recording,
    flushMs: options.callLog?.flushMs,
    maxRows: options.callLog?.maxRows,
    droppedRows: metrics.countCallLogDrops,
    clock,
    logger,
  });
  // With the log off, no call carries what its record would need.
  const record = recording ? createRecordCall(callLog) : undefined;
  const authentication = createAuthentication({
    registry,
    apiKeys: options.apiKeys,
    keyFile: options.keyFile,
    tokens: options.tokens,
    rateLimit: options.rateLimit,
    authFailures: options.authFailures,
    trustedProxies: options.trustedProxies,
    clock,
    logger,
    tracing,
  });
  const { authenticate } = authentication;
  const watchHub = createWatchHub({
    service,
    cache,
    executor,
    clock,
    tailPollMs: options.watch?.tailPollMs,
    pollTimeoutMs: maxQueryMs,
    bounds: options.watch?.bounds,
    onOpenStreams: (open) => metrics.watchStreams.set(open),
    logger,
  });
  // With traces, the end of each call (or its refusal) tells its span the code.
  const observe =
    tracing === undefined ? undefined : ({ code }: { code: string }) => recordCallOutcome(tracing, { code });
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
  // One set of buckets for the keyless GET routes and the keyless RPC calls.
  const keylessLimit = createKeylessLimit({
    ...options.keylessRateLimit,
    trustedProxies: options.trustedProxies,
    clock,
  });
  const httpRoutes = createHttpRoutes({
    registry,
    service,
    authenticate,
    ready,
    metrics,
    logger,
    defaultTimeoutMs,
    observe,
    scrape,
    staleIfErrorSeconds,
    serveMetrics: options.serveMetrics,
    record,
    keylessLimit,
    imports: { client: options.warehouse.client, cache, maxBytes: options.maxImportBytes ?? defaultMaxImportBytes },
    watchHub,
    heartbeatMs: options.watch?.heartbeatMs,
    revocableKeys: authentication.revocableKeys,
  });
  const rpc = createRpcStack({
    registry,
    services: savedQueryServices,
    service,
    authenticate,
    ready,
    fallback: httpRoutes.noSuchRoute,
    metrics,
    logger,
    defaultTimeoutMs,
    maxTimeoutMs: maxQueryMs,
    staleIfErrorSeconds,
    maxBodyBytes: options.maxBodyBytes ?? defaultAppLimits.maxBodyBytes,
    healthPollMs: options.healthPollMs,
    maxHealthWatches: options.maxHealthWatches,
    maxHealthWatchesPerAddress: options.maxHealthWatchesPerAddress,
    keylessLimit,
    trustedProxies: options.trustedProxies,
    observe,
    // A traced call's span must stay current while its body is read, which the fast path's reading does not keep.
    fastPath: tracing === undefined && options.rpcFastPath !== false,
    record,
    watchHub,
    revocableKeys: authentication.revocableKeys,
  });
  // The route of each call, decided once from its target: the GET API's routes skip the Connect router's lookup, they
  // are the hot path of plain HTTP callers; the explorer page sits beside the RPC stack.
  const routeOf = createRouteOf(
    new Set(
      registry.endpoints
        .flatMap((e) => [e.grpcMethod, ...(e.grpcWatchMethod ? [e.grpcWatchMethod] : [])])
        .map((m) => `/${m}`),
    ),
  );
  const explorer = options.explorer;
  const rest =
    explorer === undefined
      ? rpc.serve
      : withExplorer(rpc.serve, {
          directory: explorer.directory,
          onMissing: (directory) => logger.warn("explorer not built; GET / answers 503", { directory }),
        });
  const dispatch: CallHandler = (call) => {
    if (isHttpRoute(call.route)) return httpRoutes.serve(call);
    if (call.route === "saved-query-procedure") return rpc.serve(call);
    rest(call);
  };
  // With traces, each saved-query call runs in its server span; without, nothing is added to a call.
  const traced =
    tracing === undefined ? dispatch : traceCalls(dispatch, { tracing, endpointOf: savedQueryOfPath(registry) });
  const routed: CallHandler = (call) => {
    call.route = routeOf(call.head.url ?? "/");
    traced(call);
  };
  // Browsers: preflights answered before any route or key check (and untraced), and every other request made a call
  // carrying its CORS decision (transport/cors.ts). HTTP/2 streams are taken before Node's compatibility layer, so that
  // a hit is answered on the bare stream; with traces, every stream goes to `handler`, where each call has its span.
  const cors = { origins: options.corsOrigins };
  const handler = withCors(routed, cors);
  const streams: StreamHandler | undefined = tracing !== undefined ? undefined : withCorsStreams(routed, handler, cors);
  return {
    handler,
    streams,
    registry,
    metrics,
    cache,
    scrape,
    callLog,
    reloadCredentials: () => authentication.reloadKeyFile(),
    watchHub,
    endStreams: () => {
      watchHub.close();
      rpc.endStreams();
    },
    close: () => {
      watchHub.close();
      rpc.endStreams();
      cache.close();
      authentication.close();
    },
  };
}

/** The saved query a request path calls: `/api/endpoints/<name>`, `/api/endpoints/query/<id>` or its RPC method. */
function savedQueryOfPath(registry: EndpointRegistry): (path: string) => string | undefined {
  const byRpcPath = new Map(registry.endpoints.map((e) => [`/${e.grpcMethod}`, e.definition.name]));
  return (path) => {
    if (!path.startsWith("/api/endpoints/")) return byRpcPath.get(path);
    // A malformed escape has no key: answered 400 by the routes, untraced.
    const key = endpointKeyOf(path);
    return key === undefined ? undefined : registry.find(key)?.definition.name;
  };
}
