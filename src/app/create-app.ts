// The composition root: the endpoint registry, the query path below it
// (query-path.ts), who may call (authentication.ts) and readiness, served as
// one request handler (and one handler of bare HTTP/2 streams). A request
// becomes one call value at CORS (transport/cors.ts), is routed once, then
// goes to the GET routes (transport/http/http-routes.ts) or the RPC stack
// (transport/rpc-stack.ts). Every dependency is passed in, so tests build the
// same app with their own clock and warehouse.
import { createEndpointRegistry, createWatchHub, savedQueryServices, watchQueryRow } from "../endpoints/index.js";
import { defaultQueryTimeoutMs } from "../executor/index.js";
import { createMetrics, createMetricsScrape, silentLogger, systemClock } from "../observability/index.js";
import {
  type CallHandler,
  createHttpRoutes,
  createKeylessLimit,
  createRecordCall,
  createCallRouter,
  createRpcStack,
  createWatchRevocation,
  createWatchSessions,
  isHttpRoute,
  isKeyedProcedure,
  recordCallOutcome,
  traceCalls,
  withCors,
  withCorsStreams,
  withExplorer,
  type StreamHandler,
} from "../transport/index.js";
import { callStatsEndpoint, createCallLog, defaultMaxImportBytes } from "../warehouse/index.js";
import { defaultAppLimits } from "./app-defaults.js";
import type { App, AppOptions } from "./app-options.js";
import { createAuthentication } from "./authentication.js";
import { createQueryPath } from "./query-path.js";
import { sharedReadiness } from "./shared-readiness.js";

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
    pageTokenSecrets: options.pageTokenSecrets,
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
    // Each poll is a record of its own, against the caller it ran as.
    onQuery: recording ? (query) => callLog.record(watchQueryRow(query)) : undefined,
    logger,
  });
  // One session per watch stream, on every transport: bounds, revocation, deadline, heartbeat and its record.
  const revocation = createWatchRevocation(authentication.revocableKeys, clock);
  const openWatch = createWatchSessions({
    hub: watchHub,
    service,
    revocation,
    metrics,
    record,
    heartbeatMs: options.watch?.heartbeatMs,
  });
  // With traces, the end of each call (or its refusal) tells its span the code.
  const observe =
    tracing === undefined ? undefined : ({ code }: { code: string }) => recordCallOutcome(tracing, { code });
  const ready = sharedReadiness(
    options.ready ??
      (async () =>
        schemaReady() &&
        authentication.tokenKeysFetched() &&
        (await options.warehouse.client.ping().then(
          (r) => r.success,
          () => false,
        ))),
    options.readinessReuseMs,
  );
  const scrape = createMetricsScrape({ registry: metrics.registry, reuseMs: options.metricsReuseMs });
  // One set of buckets for the keyless GET routes and RPC calls, by the client the router reads (call.clientAddress).
  const keylessLimit = createKeylessLimit({ ...options.keylessRateLimit, clock });
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
    imports: {
      client: options.warehouse.client,
      cache,
      maxBytes: options.maxImportBytes ?? defaultMaxImportBytes,
      maxRunning: options.maxImportsRunning,
      clock,
      ...options.importBounds,
    },
    openWatch,
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
    observe,
    fastPath: options.rpcFastPath,
    bindContext: tracing?.bind,
    record,
    openWatch,
  });
  // The route of each call, decided once from its target: the GET API's routes skip the Connect router's lookup, they
  // are the hot path of plain HTTP callers; the explorer page sits beside the RPC stack.
  const router = createCallRouter({ registry, trustedProxies: options.trustedProxies });
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
    if (isKeyedProcedure(call.route)) return rpc.serve(call);
    rest(call);
  };
  // With traces, each saved-query call runs in its server span; without, nothing is added to a call.
  const traced = tracing === undefined ? dispatch : traceCalls(dispatch, tracing);
  const routed: CallHandler = (call) => {
    call.routeWith(router);
    traced(call);
  };
  // Browsers: preflights answered before any route or key check (and untraced), and every other request made a call
  // carrying its CORS decision (transport/cors.ts). HTTP/2 streams are taken before Node's compatibility layer, so that
  // a GET hit is answered on the bare stream, traced or not.
  const cors = { origins: options.corsOrigins, keylessLimit, trustedProxies: options.trustedProxies };
  const handler = withCors(routed, cors);
  const streams: StreamHandler = withCorsStreams(routed, handler, cors);
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
      revocation.close();
      cache.close();
      authentication.close();
    },
  };
}
