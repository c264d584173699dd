// Starts the service from its configuration and stops it on SIGTERM/SIGINT:
// stop accepting, let calls in flight finish within a bound, close the
// warehouse, exit 0.
import { loadOrCreateApiKey } from "../auth/index.js";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { apiKeyProblem, ConfigError, type Config } from "../config/index.js";
import type { Clock, Logger, Tracing } from "../observability/index.js";
import { createMetricsRoutes, createSinglePortServer, trustedProxies } from "../transport/index.js";
import { keepSchema, openResilientWarehouse, ensureDemoData, warehouseCapabilities } from "../warehouse/index.js";
import { createApp } from "../app/index.js";
import { watchSchemaFit, type SchemaFit } from "./schema-fit.js";
import { pageTokenSecrets } from "./page-token-secrets.js";
import { tokenKeys } from "./token-keys.js";

export interface RunningService {
  url: string;
  /** Reads the API key file again (SIGHUP). */
  reloadCredentials(): void;
  /** Resolves once the service has stopped. */
  stop(): Promise<void>;
}

export interface StartOptions {
  config: Config;
  logger: Logger;
  /** Longest wait for calls in flight at shutdown. Default 10 000 ms. */
  shutdownGraceMs?: number;
  /** Where the start banner goes (the listen address and the credentials, two lines in one call). Default: stdout. */
  print?: (banner: string) => void;
  /** Loads a saved query's SQL by name (tests give fixtures). Default: `sql/<name>.sql`. */
  readSql?: (name: string) => string;
  /** Where the built explorer page is. Default: `web/` beside the running bundle (dist/web/). */
  explorerDirectory?: string;
  /** Traces of calls (docs/observability.md), shut down with the service. Default: none. */
  tracing?: Tracing;
  /** Source of `now` for the saved queries and their versions' sunsets (tests set one). Default: the system clock. */
  clock?: Clock;
}

export async function startService(options: StartOptions): Promise<RunningService> {
  const { config, logger } = options;
  const print = options.print ?? ((banner: string) => process.stdout.write(`${banner}\n`));
  // Token keys are read first: a bad one stops start-up before the warehouse is opened.
  const tokens = tokenKeys(config.credentials);
  // The warehouse may be down at start (a server away, an engine that cannot
  // open its directory): serve 503 and keep trying to migrate it. A normal
  // start waits for the first try, so the schema and demo data come first.
  const warehouse = await openResilientWarehouse(config.warehouse, logger, {
    retryMs: Math.min(2_000, config.warehouseRetryMs),
  });
  const capabilities = warehouseCapabilities(warehouse.kind);
  const seedDemo = capabilities.ownsItsData && config.demoData;
  const schema = keepSchema(warehouse.client, {
    logger,
    maxRetryMs: config.warehouseRetryMs,
    cluster: warehouse.cluster,
    callLogRetentionDays: config.callLog.retentionDays,
    afterMigrate: seedDemo
      ? async (client) => void (await ensureDemoData(client, { logger, now: Date.now() }))
      : undefined,
  });
  await schema.firstAttempt;
  logger.info("warehouse", { kind: warehouse.kind, location: warehouse.location, ready: schema.migrated });

  let apiKeys = config.apiKeys;
  const { credentials } = config;
  const notes = [
    apiKeys.length > 0 ? `${apiKeys.length} in API_KEYS` : undefined,
    credentials.apiKeysFile !== undefined ? `scoped keys in ${credentials.apiKeysFile}` : undefined,
    tokens?.secret !== undefined || tokens?.publicKeyPem !== undefined || tokens?.jwks !== undefined
      ? "signed tokens (JWT)"
      : undefined,
    tokens?.oidc === undefined ? undefined : `tokens of ${tokens.oidc.issuers.map((i) => i.issuer).join(", ")}`,
  ].filter((note) => note !== undefined);
  let keyNote = `credentials: ${notes.join(", ")}`;
  // With no credentials configured, a key is generated and kept beside data of the service's own.
  if (notes.length === 0 && capabilities.ownsItsData && "path" in config.warehouse) {
    const stored = loadOrCreateApiKey(config.warehouse.path);
    const problem = apiKeyProblem(stored.key);
    if (problem !== undefined)
      throw new ConfigError([`the API key stored in ${stored.path} ${problem}; set API_KEYS or replace the file`]);
    apiKeys = [stored.key];
    keyNote = `API key: ${stored.key}  (${stored.created ? "generated, " : ""}stored in ${stored.path})`;
  }

  const pageTokens = pageTokenSecrets(config);
  logger.info("page tokens", { secret: pageTokens.source });
  const proxies = trustedProxies(config.trustedProxies);
  // Set once the app (and so the registry) exists, just below.
  let fit: SchemaFit | undefined;
  let app: ReturnType<typeof createApp>;
  try {
    app = createApp({
      warehouse,
      clock: options.clock,
      apiKeys,
      keyFile:
        credentials.apiKeysFile === undefined
          ? undefined
          : { path: credentials.apiKeysFile, pollMs: credentials.apiKeysFilePollMs },
      tokens,
      logger,
      rateLimit: config.rateLimit,
      keylessRateLimit: config.limits.keylessRateLimit,
      serveMetrics: config.metrics === undefined,
      authFailures: config.limits.authFailures,
      trustedProxies: proxies,
      maxBodyBytes: config.limits.maxBodyBytes,
      maxImportBytes: config.limits.maxImportBytes,
      maxImportsRunning: config.limits.maxImportsRunning,
      importBounds: {
        maxFutureSeconds: config.limits.importMaxFutureSeconds,
        minBytesPerSecond: config.limits.importMinBytesPerSecond,
        refreshIntervalMs: config.limits.importRefreshMs,
      },
      maxParameterLength: config.limits.maxParameterLength,
      maxQueryMs: config.limits.maxQueryMs,
      watch: { bounds: config.limits.watchBounds, tailPollMs: config.limits.tailPollMs },
      cacheLimits: { sharePerCaller: config.limits.cacheSharePerCaller },
      staleIfErrorMs: config.limits.staleIfErrorMs,
      admission: {
        maxConcurrent: config.limits.warehouseConcurrency,
        maxQueued: config.limits.warehouseQueue,
        maxPerKey: config.limits.warehouseCallsPerKey,
      },
      // Not ready, and every saved query UNAVAILABLE, until the schema is migrated and the saved queries fit it.
      schemaReady: () => fit?.ready ?? false,
      readSql: options.readSql,
      corsOrigins: config.corsOrigins,
      // Built beside the bundle that runs: dist/web/ for dist/main.js.
      explorer: config.explorer
        ? { directory: options.explorerDirectory ?? join(import.meta.dirname, "web") }
        : undefined,
      tracing: options.tracing,
      readLimits: config.limits.readLimits,
      callLog: config.callLog,
      rpcFastPath: config.rpcFastPath,
      pageTokenSecrets: pageTokens.secrets,
    });
  } catch (error) {
    // A key file that does not read, say: nothing is served, and the warehouse is let go.
    schema.stop();
    await warehouse.close();
    throw error;
  }
  // Each saved query's result columns must be its row message's fields, of
  // types that fill them: asked of the warehouse once the schema is migrated.
  // At start a mismatch stops start-up here instead of failing every call;
  // found later (the warehouse came after the service, or could not describe
  // the queries at first), it is logged and the service stays not ready.
  const schemaFit = watchSchemaFit(schema, app.registry.endpoints, warehouse.client, {
    logger,
    maxRetryMs: config.warehouseRetryMs,
  });
  fit = schemaFit;
  let stopping: Promise<void> | undefined;
  const problemsAtStart = schema.migrated ? await schemaFit.firstTry : undefined;
  if (problemsAtStart !== undefined && problemsAtStart.length > 0) {
    app.close();
    schema.stop();
    await warehouse.close();
    throw new Error(`saved queries do not fit their row messages: ${problemsAtStart.join("; ")}`);
  }
  if (problemsAtStart === undefined) {
    void schemaFit.checked.then((problems) => {
      if (problems.length > 0 && stopping === undefined) {
        logger.error(
          "saved queries do not fit their row messages; answering 503 until sql/ and proto/ agree and the service restarts",
          { problems },
        );
      }
    });
  }
  const server = createSinglePortServer(app.handler, {
    firstRequestTimeoutMs: config.limits.firstRequestTimeoutMs,
    idleTimeoutMs: config.limits.idleTimeoutMs,
    maxConnections: config.limits.maxConnections,
    maxConnectionsPerAddress: config.limits.maxConnectionsPerAddress,
    maxStreamsPerAddress: config.limits.maxStreamsPerAddress,
    trustedProxies: proxies,
    logger,
    unsentBytes: {
      stallTimeoutMs: config.limits.responseStallMs,
      maxPerConnection: config.limits.maxUnsentBytesPerConnection,
      maxPerAddress: config.limits.maxUnsentBytesPerAddress,
    },
    streams: app.streams,
  });
  const address = await server.listen(config.port, config.host);
  const url = urlOf(address);
  // /metrics on a port of its own (METRICS_PORT), with the same connection bounds as the API port.
  const metricsServer =
    config.metrics === undefined
      ? undefined
      : createSinglePortServer(
          createMetricsRoutes({ scrape: app.scrape, contentType: app.metrics.registry.contentType, logger }),
          {
            firstRequestTimeoutMs: config.limits.firstRequestTimeoutMs,
            idleTimeoutMs: config.limits.idleTimeoutMs,
            logger,
          },
        );
  const metricsUrl =
    metricsServer === undefined || config.metrics === undefined
      ? undefined
      : urlOf(await metricsServer.listen(config.metrics.port, config.metrics.host));
  logger.info("listening", { url, metricsUrl, endpoints: app.registry.endpoints.map((e) => e.definition.name) });
  // One write, so a reader of the banner sees the address and the credentials together.
  const metricsNote = metricsUrl === undefined ? "" : `\nmetrics on ${metricsUrl}/metrics`;
  print(`saved-query endpoints listening on ${url}\n${keyNote}${metricsNote}`);

  const stop = () =>
    (stopping ??= (async () => {
      logger.info("shutting down: no new connections, finishing calls in flight");
      app.endStreams();
      await Promise.all([server.close(options.shutdownGraceMs ?? 10_000), metricsServer?.close(1_000)]);
      // The last calls' rows go out while the warehouse is still open, within the flush period.
      await app.callLog.close();
      app.close();
      schema.stop();
      schemaFit.stop();
      await warehouse.close();
      // The last spans go out, within a bound: a receiver that does not answer cannot hold the exit.
      await options.tracing?.shutdown();
      logger.info("stopped");
    })());
  return { url, stop, reloadCredentials: () => void app.reloadCredentials() };
}

function urlOf(address: AddressInfo): string {
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
