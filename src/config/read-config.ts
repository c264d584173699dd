// readConfig: the variables of variables.ts read from the environment, and
// the rules between them (the warehouse mode, one way of verifying tokens).
import { defaultConcurrency } from "../app/app-defaults.js";
import { warehouseCapabilities } from "../warehouse/capabilities.js";
import type { WarehouseConfig } from "../warehouse/index.js";
import { type Config, ConfigError, type CredentialsConfig } from "./config.js";
import type { ValueOf, Variable } from "./variable.js";
import { variables } from "./variables.js";
import type { OidcIssuerSetting } from "./oidc-issuers.js";
import type { OidcIssuer } from "../auth/oidc-verifier.js";

type Values = { [Name in keyof typeof variables]: ValueOf<(typeof variables)[Name]> };

/**
 * Reads and validates the configuration. An empty or blank variable counts
 * as unset. Every bad variable is reported at once, each on its own line, in
 * a thrown ConfigError.
 */
export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const isSet = (name: string) => (env[name] ?? "").trim() !== "";
  const read = {} as Record<string, unknown>;
  for (const v of Object.values(variables) as Variable<unknown>[]) {
    read[v.name] = v.default;
    const raw = env[v.name];
    if (raw === undefined || (!v.verbatim && raw.trim() === "")) continue;
    try {
      read[v.name] = v.parser.read(v.verbatim ? raw : raw.trim(), v.name);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
    }
  }
  // Every variable with a default has a value (its own or the default); the others may be undefined.
  const value = read as Values;

  const warehouse: WarehouseConfig =
    value.CLICKHOUSE_URL === undefined && !isSet("CLICKHOUSE_URL")
      ? { kind: "embedded", path: value.CHDB_PATH, database: value.CLICKHOUSE_DATABASE }
      : {
          kind: "server",
          url: env.CLICKHOUSE_URL!.trim(),
          username: value.CLICKHOUSE_USER,
          password: value.CLICKHOUSE_PASSWORD,
          database: value.CLICKHOUSE_DATABASE,
        };
  if (warehouse.kind === "server") {
    if (value.CLICKHOUSE_CLUSTER !== undefined) warehouse.cluster = value.CLICKHOUSE_CLUSTER;
    if (value.CLICKHOUSE_QUERY_CACHE_SECONDS !== undefined) {
      warehouse.queryCacheSeconds = value.CLICKHOUSE_QUERY_CACHE_SECONDS;
    }
  } else {
    if (isSet("CLICKHOUSE_CLUSTER")) {
      problems.push("CLICKHOUSE_CLUSTER needs CLICKHOUSE_URL: the embedded engine is a single node");
    }
    if (isSet("CLICKHOUSE_QUERY_CACHE_SECONDS")) {
      problems.push(
        "CLICKHOUSE_QUERY_CACHE_SECONDS needs CLICKHOUSE_URL: the embedded engine has no server query cache",
      );
    }
  }

  const capabilities = warehouseCapabilities(warehouse.kind);
  const credentials: CredentialsConfig = {
    apiKeysFile: value.API_KEYS_FILE,
    apiKeysFilePollMs: value.API_KEYS_FILE_POLL_SECONDS,
    jwtSecret: value.JWT_SECRET,
    jwtPublicKey: value.JWT_PUBLIC_KEY,
    jwtJwksFile: value.JWT_JWKS_FILE,
  };
  const issuers = oidcIssuersOf(value.OIDC_ISSUERS, value.OIDC_AUDIENCE, problems);
  if (issuers !== undefined) {
    credentials.oidc = {
      issuers,
      clockSkewMs: value.OIDC_CLOCK_SKEW_SECONDS,
      minRefreshMs: value.OIDC_JWKS_MIN_REFRESH_SECONDS,
    };
  } else if (isSet("OIDC_AUDIENCE") && !isSet("OIDC_ISSUERS")) {
    problems.push("OIDC_AUDIENCE needs OIDC_ISSUERS");
  }
  const tokenKeys = ["JWT_SECRET", "JWT_PUBLIC_KEY", "JWT_JWKS_FILE"].filter(isSet);
  if (tokenKeys.length > 1) {
    problems.push(`${tokenKeys.join(" and ")}: set one way of verifying tokens, not ${tokenKeys.length}`);
  }
  if (
    !capabilities.ownsItsData &&
    // Keys given count even when bad: a bad key is its own problem, not a missing one.
    !(env.API_KEYS ?? "").split(",").some((key) => key.trim() !== "") &&
    credentials.apiKeysFile === undefined &&
    tokenKeys.length === 0 &&
    !isSet("OIDC_ISSUERS")
  ) {
    problems.push(
      "API_KEYS must be set when CLICKHOUSE_URL is set, or API_KEYS_FILE, a JWT key or OIDC_ISSUERS (only the embedded mode generates a key)",
    );
  }

  if (value.PAGE_TOKEN_PREVIOUS_SECRET !== undefined && value.PAGE_TOKEN_SECRET === undefined) {
    problems.push("PAGE_TOKEN_PREVIOUS_SECRET needs PAGE_TOKEN_SECRET: the previous secret only opens tokens");
  }

  const warehouseConcurrency = value.WAREHOUSE_CONCURRENCY ?? defaultConcurrency(capabilities);
  if (capabilities.runsOneQueryAtATime && warehouseConcurrency > 1) {
    problems.push(
      "WAREHOUSE_CONCURRENCY above 1 needs CLICKHOUSE_URL: the embedded engine runs one saved query at a time",
    );
  }

  let metrics: Config["metrics"];
  if (value.METRICS_PORT !== undefined) {
    if (value.METRICS_PORT === value.PORT && value.PORT !== 0) {
      problems.push(`METRICS_PORT must differ from PORT, both are ${value.PORT}`);
    }
    metrics = { port: value.METRICS_PORT, host: value.METRICS_HOST ?? value.HOST };
  } else if (isSet("METRICS_HOST") && !isSet("METRICS_PORT")) {
    problems.push("METRICS_HOST needs METRICS_PORT");
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port: value.PORT,
    host: value.HOST,
    ...(metrics === undefined ? {} : { metrics }),
    trustedProxies: value.TRUSTED_PROXIES,
    apiKeys: value.API_KEYS,
    credentials,
    pageTokens: { secret: value.PAGE_TOKEN_SECRET, previousSecret: value.PAGE_TOKEN_PREVIOUS_SECRET },
    warehouse,
    demoData: value.DEMO_DATA,
    warehouseRetryMs: value.WAREHOUSE_RETRY_SECONDS,
    logLevel: value.LOG_LEVEL,
    rateLimit: { perSecond: value.RATE_LIMIT_PER_SECOND, burst: value.RATE_LIMIT_BURST },
    limits: {
      maxBodyBytes: value.MAX_BODY_BYTES,
      maxImportBytes: value.MAX_IMPORT_BYTES,
      maxImportsRunning: value.MAX_IMPORTS_RUNNING,
      importMaxFutureSeconds: value.IMPORT_MAX_FUTURE_SECONDS,
      importMinBytesPerSecond: value.IMPORT_MIN_BYTES_PER_SECOND,
      importRefreshMs: value.IMPORT_REFRESH_SECONDS,
      maxParameterLength: value.MAX_PARAMETER_LENGTH,
      maxConnections: value.MAX_CONNECTIONS,
      maxConnectionsPerAddress: value.MAX_CONNECTIONS_PER_ADDRESS,
      maxStreamsPerAddress: value.MAX_STREAMS_PER_ADDRESS,
      firstRequestTimeoutMs: value.FIRST_REQUEST_TIMEOUT_SECONDS,
      idleTimeoutMs: value.IDLE_TIMEOUT_SECONDS,
      maxQueryMs: value.MAX_QUERY_SECONDS,
      watchBounds: {
        maxStreams: value.MAX_WATCH_STREAMS,
        perCaller: value.MAX_WATCH_STREAMS_PER_CALLER,
        perAddress: value.MAX_WATCH_STREAMS_PER_ADDRESS,
      },
      tailPollMs: value.TAIL_POLL_SECONDS,
      readLimits: { maxRowsToRead: value.MAX_ROWS_TO_READ, maxBytesToRead: value.MAX_BYTES_TO_READ },
      warehouseConcurrency,
      warehouseQueue: value.WAREHOUSE_QUEUE,
      warehouseCallsPerKey: value.WAREHOUSE_CALLS_PER_KEY,
      cacheSharePerCaller: value.CACHE_SHARE_PER_CALLER,
      staleIfErrorMs: value.STALE_IF_ERROR_SECONDS,
      authFailures: { perSecond: value.AUTH_FAILURES_PER_SECOND, burst: value.AUTH_FAILURE_BURST },
      responseStallMs: value.RESPONSE_STALL_SECONDS,
      maxUnsentBytesPerConnection: value.MAX_UNSENT_BYTES_PER_CONNECTION,
      maxUnsentBytesPerAddress: value.MAX_UNSENT_BYTES_PER_ADDRESS,
      keylessRateLimit: { perSecond: value.KEYLESS_RATE_LIMIT_PER_SECOND, burst: value.KEYLESS_RATE_LIMIT_BURST },
    },
    corsOrigins: value.CORS_ORIGINS,
    explorer: value.EXPLORER,
    rpcFastPath: value.RPC_FAST_PATH,
    callLog: {
      enabled: value.CALL_LOG,
      flushMs: value.CALL_LOG_FLUSH_SECONDS,
      maxRows: value.CALL_LOG_MAX_ROWS,
      retentionDays: value.CALL_LOG_RETENTION_DAYS,
    },
  };
}

/**
 * The issuers of OIDC_ISSUERS, each with its audience (its own, else
 * OIDC_AUDIENCE) and its name (its own, else its URL's host), which must
 * differ: a caller is `token:<name>/<sub>`.
 */
function oidcIssuersOf(
  settings: OidcIssuerSetting[] | undefined,
  audience: string | undefined,
  problems: string[],
): OidcIssuer[] | undefined {
  if (settings === undefined) return undefined;
  const issuers: OidcIssuer[] = [];
  const names = new Map<string, string>();
  for (const setting of settings) {
    const issuerAudience = setting.audience ?? audience;
    if (issuerAudience === undefined) {
      problems.push(`OIDC_ISSUERS issuer ${setting.issuer} has no audience: set OIDC_AUDIENCE or its "audience"`);
      continue;
    }
    const name = setting.name ?? new URL(setting.issuer).host;
    const other = names.get(name);
    if (other !== undefined) {
      problems.push(`OIDC_ISSUERS issuers ${other} and ${setting.issuer} are both named ${name}: give each a "name"`);
      continue;
    }
    names.set(name, setting.issuer);
    issuers.push({ ...setting, audience: issuerAudience, name });
  }
  return issuers;
}
