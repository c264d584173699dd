// The table of environment variables (docs/configuration.md): each one's
// name, parser, default and meaning, written once. readConfig reads them,
// `--help` lists them and `npm run docs` writes the documentation's tables.
// Each default is imported from the file that owns it, not its folder's
// index.ts, so that reading the table loads those files alone, not the
// stages behind them (the warehouse's index would load chDB).
import { defaultAppLimits, defaultConcurrency } from "../app/app-defaults.js";
import { defaultAuthFailures } from "../auth/auth-failure-throttle.js";
import { defaultSharePerCaller } from "../cache/result-cache.js";
import { defaultKeyFilePollMs } from "../auth/key-file.js";
import { defaultClockSkewMs, defaultMinJwksRefreshMs } from "../auth/oidc-verifier.js";
import { defaultRateLimit } from "../auth/rate-limiter.js";
import { defaultMaxParameterLength } from "../endpoints/registry.js";
import { defaultWatchBounds } from "../endpoints/watch-bounds.js";
import { defaultTailPollMs } from "../endpoints/watch-hub.js";
import { defaultAdmission } from "../executor/admission.js";
import { defaultQueryTimeoutMs } from "../executor/query-executor.js";
import { defaultLogLevel, logLevels } from "../observability/logger.js";
import { trustedProxyProblem } from "../transport/call/client-address.js";
import { defaultKeylessLimit } from "../transport/http/keyless-limit.js";
import { defaultConnectionLimits } from "../transport/single-port-server.js";
import { defaultUnsentBytes } from "../transport/unsent-bytes.js";
import { warehouseCapabilities } from "../warehouse/capabilities.js";
import { defaultCallLog } from "../warehouse/call-log.js";
import { defaultMaxImportBytes } from "../warehouse/import-rows.js";
import { defaultMaxImportsRunning } from "../transport/http/import-admission.js";
import { defaultImportMinBytesPerSecond } from "../transport/http/import-upload-floor.js";
import { defaultImportRefreshIntervalMs } from "../transport/http/import-refresh.js";
import { defaultMaxFutureSeconds } from "../warehouse/log-line.js";
import { defaultMaxRetryMs } from "../warehouse/retry-with-backoff.js";
import {
  corsOrigins,
  flag,
  fraction,
  fractionalSeconds,
  httpUrl,
  identifier,
  integer,
  list,
  oneOf,
  rate,
  seconds,
  secret,
  text,
  whole,
} from "./parsers.js";
import { oidcIssuers } from "./oidc-issuers.js";
import { variable } from "./variable.js";

/** Why `key` may not be an API key (too short to resist guessing, or holding white space), or undefined. */
export function apiKeyProblem(key: string): string | undefined {
  if (key.length < 16) return `is ${key.length} characters long; keys need at least 16`;
  if (/\s/.test(key)) return "contains white space";
  return undefined;
}

/** Why `entry` cannot be one of CORS_ORIGINS, or undefined: an origin is a scheme, a host and maybe a port. */
function corsOriginProblem(entry: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(entry);
  } catch {
    return `"${entry}" is not an origin such as https://app.example.com`;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return `"${entry}" is not an http or https origin`;
  if (parsed.origin !== entry)
    return `"${entry}" is not an origin: write ${parsed.origin} (no path, no trailing slash)`;
  return undefined;
}

/**
 * Every variable, in the order a bad configuration's problems are reported
 * (the warehouse's before the keys', as a missing key follows from the
 * warehouse mode); the documentation lists them by section, each in this order.
 */
export const variables = {
  PORT: variable({
    name: "PORT",
    section: "Listening",
    parser: integer(0, 65535),
    default: 8080,
    description:
      "the one port for HTTP/1.1 and HTTP/2 cleartext (prior knowledge): GET, Connect, gRPC-Web and gRPC. An integer from 0 to 65535; 0 takes any free port.",
  }),
  HOST: variable({
    name: "HOST",
    section: "Listening",
    parser: text,
    default: "127.0.0.1",
    description: "listen address",
  }),
  METRICS_PORT: variable({
    name: "METRICS_PORT",
    section: "Listening",
    parser: integer(0, 65535),
    default: undefined,
    shownDefault: "(unset)",
    description:
      "a port of its own for `GET /metrics` (0 takes any free one), which the API port then answers 404: scrapes are kept off the port callers use. An integer from 0 to 65535, not `PORT`",
  }),
  METRICS_HOST: variable({
    name: "METRICS_HOST",
    section: "Listening",
    parser: text,
    default: undefined,
    shownDefault: "`HOST`",
    description: "listen address of `METRICS_PORT`; needs it",
  }),
  TRUSTED_PROXIES: variable({
    name: "TRUSTED_PROXIES",
    section: "Listening",
    parser: list((name, entry) => {
      const problem = trustedProxyProblem(entry);
      return problem === undefined ? undefined : `${name}: ${problem}`;
    }),
    default: [],
    shownDefault: "(none)",
    description:
      "comma-separated addresses and CIDR ranges (`10.0.0.0/8,2001:db8::/32`) of proxies in front of the service, whose `X-Forwarded-For` is believed ([Behind a proxy](#behind-a-proxy))",
  }),
  CLICKHOUSE_DATABASE: variable({
    name: "CLICKHOUSE_DATABASE",
    section: "Warehouse",
    parser: identifier,
    default: "default",
    description:
      "database holding the log tables, a plain identifier (letters, digits, `_`; not starting with a digit); both modes",
  }),
  CLICKHOUSE_URL: variable({
    name: "CLICKHOUSE_URL",
    section: "Warehouse",
    parser: httpUrl,
    default: undefined,
    shownDefault: "(unset)",
    description:
      "an `http://` or `https://` URL of a ClickHouse server, used over HTTP with `@clickhouse/client`; unset, the service runs on the embedded engine",
  }),
  CLICKHOUSE_USER: variable({
    name: "CLICKHOUSE_USER",
    section: "Warehouse",
    parser: text,
    default: "default",
    description: "server user",
  }),
  CLICKHOUSE_PASSWORD: variable({
    name: "CLICKHOUSE_PASSWORD",
    section: "Warehouse",
    parser: text,
    default: "",
    verbatim: true,
    description: "server password (taken as given, blanks included)",
  }),
  CLICKHOUSE_CLUSTER: variable({
    name: "CLICKHOUSE_CLUSTER",
    section: "Warehouse",
    parser: identifier,
    default: undefined,
    shownDefault: "(unset)",
    description:
      "server mode only: the cluster (a name in the servers' `remote_servers`) the migrations create replicated, sharded tables on ON CLUSTER, and whose Distributed tables the queries read; a plain identifier. Set without `CLICKHOUSE_URL` it stops start-up. [deployment.md](deployment.md)",
  }),
  CLICKHOUSE_QUERY_CACHE_SECONDS: variable({
    name: "CLICKHOUSE_QUERY_CACHE_SECONDS",
    section: "Warehouse",
    parser: integer(0, 86_400),
    default: undefined,
    shownDefault: "`0` (off)",
    description:
      "server mode only: cached saved queries also use the server's query cache, with `now` rounded down to a multiple of this many seconds so that service replicas send the same query. An integer from 0 to 86400. Set without `CLICKHOUSE_URL` it stops start-up. [deployment.md](deployment.md#warming-without-multiplying-it-the-servers-query-cache)",
  }),
  CHDB_PATH: variable({
    name: "CHDB_PATH",
    section: "Warehouse",
    parser: text,
    default: "./data",
    description: "embedded mode: the engine's data directory, used by one process at a time",
  }),
  DEMO_DATA: variable({
    name: "DEMO_DATA",
    section: "Warehouse",
    parser: flag,
    default: true,
    description:
      "embedded mode: `1` loads the demo data into empty log tables at start (and completes a load that was cut short); `0` never loads it",
  }),
  WAREHOUSE_RETRY_SECONDS: variable({
    name: "WAREHOUSE_RETRY_SECONDS",
    section: "Warehouse",
    parser: fractionalSeconds(0.1),
    default: defaultMaxRetryMs,
    description:
      "the longest wait between two tries to reach a warehouse that does not answer: the migrations are retried after 1 s, doubling up to this; the embedded engine is reopened every 2 s, or this when shorter. A number of at least 0.1 ([reliability.md](reliability.md#outages-and-shutdown))",
  }),
  LOG_LEVEL: variable({
    name: "LOG_LEVEL",
    section: "Logging",
    parser: oneOf(logLevels),
    default: defaultLogLevel,
    description:
      "`debug`, `info`, `warn` or `error`. `debug` also logs every successful call; every failed call is logged at `info`, and internal failures also at `error`. Lines are JSON, one a line, on standard error; an error in a line is written with its stack and cause chain. The stack names places in the bundles of `dist/`; with `NODE_OPTIONS=--enable-source-maps` it names the lines of `src/` instead (the bundles carry source maps).",
  }),
  CALL_LOG: variable({
    name: "CALL_LOG",
    section: "Logging",
    parser: flag,
    default: true,
    description:
      "`1` counts every call of a saved query, on every transport, in per-minute aggregates written to the `service_call_aggregates` table, read by `service.call-stats`; `0` records nothing (`service.call-stats` then answers no rows) ([usage-accounting.md](usage-accounting.md#the-call-log))",
  }),
  CALL_LOG_FLUSH_SECONDS: variable({
    name: "CALL_LOG_FLUSH_SECONDS",
    section: "Logging",
    parser: fractionalSeconds(0.1),
    default: defaultCallLog.flushMs,
    description:
      "the call log writes the aggregates of the calls recorded since its last write every this many seconds, one insert at a time. A number of at least 0.1",
  }),
  CALL_LOG_MAX_ROWS: variable({
    name: "CALL_LOG_MAX_ROWS",
    section: "Logging",
    parser: whole(1),
    default: defaultCallLog.maxRows,
    description:
      "aggregates (one per minute, caller, saved query, protocol, code and cache outcome) the call log holds in memory, those not yet written included; past it an aggregate of the oldest minute, of the caller holding the most there, is dropped and its calls counted in `sqe_call_log_dropped_rows_total`",
  }),
  CALL_LOG_RETENTION_DAYS: variable({
    name: "CALL_LOG_RETENTION_DAYS",
    section: "Logging",
    parser: whole(1),
    default: defaultCallLog.retentionDays,
    description:
      "days a row of `service_call_aggregates` (and of `service_calls`, the per-call table of earlier versions) is kept (the tables' TTL, set by the migrations at start)",
  }),
  CORS_ORIGINS: variable({
    name: "CORS_ORIGINS",
    section: "Browsers",
    parser: corsOrigins((name, entry) => {
      const problem = entry === "*" ? "* stands alone, not in a list" : corsOriginProblem(entry);
      return problem === undefined ? undefined : `${name}: ${problem}`;
    }),
    default: "*" as "*" | string[],
    description:
      "the origins whose pages may call the service and read its answers, comma-separated, each a scheme, host and port as a browser sends it in `Origin` (`https://app.example.com,http://localhost:3000`; no path, no trailing slash, lower case); `*` (alone) allows every origin. Credentials (cookies) are never allowed, whatever this says. On every route and transport ([http-api.md, Browsers and CORS](http-api.md#browsers-and-cors)).",
  }),
  EXPLORER: variable({
    name: "EXPLORER",
    section: "Browsers",
    parser: flag,
    default: true,
    description:
      "`1` serves the explorer page at `GET /` ([explorer.md](explorer.md)); `0` turns it off (`GET /` is then `404`)",
  }),
  RPC_FAST_PATH: variable({
    name: "RPC_FAST_PATH",
    section: "Listening",
    parser: flag,
    default: true,
    description:
      "`1` answers unary RPC cache hits from the bytes their result keeps; `0` answers every RPC call through the Connect router alone, with the same answers at about ten times the CPU a hit ([performance.md](performance.md))",
  }),
  API_KEYS: variable({
    name: "API_KEYS",
    section: "Keys",
    parser: list((name, key, i) => {
      const problem = apiKeyProblem(key);
      return problem === undefined ? undefined : `${name} key ${i + 1} ${problem}`;
    }),
    default: [],
    shownDefault: "(none)",
    description:
      "comma-separated full-access keys, each 16 characters or more without white space (a bad key stops start-up, named by its position). With `CLICKHOUSE_URL`, this, `API_KEYS_FILE` or a JWT key is required. With none of them in embedded mode, a random key is generated once, stored in `$CHDB_PATH/api-key` (mode 0600) and printed at start.",
  }),
  API_KEYS_FILE: variable({
    name: "API_KEYS_FILE",
    section: "Keys",
    parser: text,
    default: undefined,
    description:
      "a JSON file of scoped keys stored as SHA-256 digests, each with an id, the endpoints it may call, the parameters it fixes and its own rate limit ([credentials.md](credentials.md)); read again on SIGHUP and when it changes",
  }),
  API_KEYS_FILE_POLL_SECONDS: variable({
    name: "API_KEYS_FILE_POLL_SECONDS",
    section: "Keys",
    parser: seconds(1),
    default: defaultKeyFilePollMs,
    description:
      "how often the key file is read and its SHA-256 compared with the keys in force (whole seconds, at least 1): a file rewritten in place with the same size and time is noticed",
  }),
  JWT_SECRET: variable({
    name: "JWT_SECRET",
    section: "Keys",
    parser: secret(32),
    default: undefined,
    description:
      "verify signed tokens with HS256 and this secret (32 characters or more); `npm run token` signs with it",
  }),
  JWT_PUBLIC_KEY: variable({
    name: "JWT_PUBLIC_KEY",
    section: "Keys",
    parser: text,
    default: undefined,
    description: "verify RS256, ES256 or EdDSA tokens with this PEM public key, or the PEM in the file at this path",
  }),
  JWT_JWKS_FILE: variable({
    name: "JWT_JWKS_FILE",
    section: "Keys",
    parser: text,
    default: undefined,
    description:
      "verify RS256, ES256 or EdDSA tokens with the keys of this JWKS file, chosen by `kid`. Only one of the three JWT settings may be set.",
  }),
  OIDC_ISSUERS: variable({
    name: "OIDC_ISSUERS",
    section: "Keys",
    parser: oidcIssuers,
    default: undefined,
    description:
      'trusted OpenID Connect issuers whose access tokens are accepted: comma-separated issuer URLs, or a JSON list of `{"issuer", "audience"?, "name"?, "algorithms"?, "claims"?}` with a claim mapping per issuer ([credentials.md](credentials.md#openid-connect-issuers)). Each issuer\'s discovery document and JWKS are read over HTTPS (plain HTTP only for a loopback host). May be set with a JWT key.',
  }),
  OIDC_AUDIENCE: variable({
    name: "OIDC_AUDIENCE",
    section: "Keys",
    parser: text,
    default: undefined,
    description:
      "the `aud` the issuers' tokens must carry, for the issuers of `OIDC_ISSUERS` that do not name their own `audience`",
  }),
  OIDC_CLOCK_SKEW_SECONDS: variable({
    name: "OIDC_CLOCK_SKEW_SECONDS",
    section: "Keys",
    parser: seconds(0),
    default: defaultClockSkewMs,
    description: "how far an issuer's token's `exp` and `nbf` may be off this service's clock (whole seconds)",
  }),
  OIDC_JWKS_MIN_REFRESH_SECONDS: variable({
    name: "OIDC_JWKS_MIN_REFRESH_SECONDS",
    section: "Keys",
    parser: seconds(1),
    default: defaultMinJwksRefreshMs,
    description:
      "the least time between two fetches of one issuer's JWKS (whole seconds, at least 1): a token naming an unknown `kid` fetches it again at most this often, and a failed fetch is tried again after this",
  }),
  PAGE_TOKEN_SECRET: variable({
    name: "PAGE_TOKEN_SECRET",
    section: "Keys",
    parser: secret(32),
    default: undefined,
    shownDefault: "(generated)",
    description:
      "the key `logs.all` page tokens are sealed with (32 characters or more), the same on every replica so that any replica continues any page ([endpoints.md](endpoints.md#paging)). Unset in embedded mode: a random one is generated once and kept in `$CHDB_PATH/page-token-secret` (mode 0600); unset with `CLICKHOUSE_URL`: a random one per process, so tokens do not survive a restart nor pass between replicas.",
  }),
  PAGE_TOKEN_PREVIOUS_SECRET: variable({
    name: "PAGE_TOKEN_PREVIOUS_SECRET",
    section: "Keys",
    parser: secret(32),
    default: undefined,
    description:
      "while rotating `PAGE_TOKEN_SECRET`: the secret it replaces, whose tokens are still accepted (new tokens are sealed with `PAGE_TOKEN_SECRET`). Needs `PAGE_TOKEN_SECRET`.",
  }),
  RATE_LIMIT_PER_SECOND: variable({
    name: "RATE_LIMIT_PER_SECOND",
    section: "Bounds",
    parser: rate,
    default: defaultRateLimit.perSecond,
    description: "sustained calls a second per key; `0` turns the limit off; may have a fraction",
  }),
  RATE_LIMIT_BURST: variable({
    name: "RATE_LIMIT_BURST",
    section: "Bounds",
    parser: rate,
    default: defaultRateLimit.burst,
    description: "calls a key may make at once; may have a fraction",
  }),
  MAX_BODY_BYTES: variable({
    name: "MAX_BODY_BYTES",
    section: "Bounds",
    parser: whole(1),
    default: defaultAppLimits.maxBodyBytes,
    description: "largest Connect, gRPC or gRPC-Web request message, after decompression",
  }),
  MAX_IMPORT_BYTES: variable({
    name: "MAX_IMPORT_BYTES",
    section: "Bounds",
    parser: whole(1),
    default: defaultMaxImportBytes,
    description:
      "largest NDJSON body of `POST /api/import/<table>`; a larger one is refused with `resource_exhausted` and nothing of it is inserted",
  }),
  MAX_IMPORTS_RUNNING: variable({
    name: "MAX_IMPORTS_RUNNING",
    section: "Bounds",
    parser: whole(1),
    default: defaultMaxImportsRunning,
    description:
      "imports of `POST /api/import/<table>` running at once, all callers together (each credential one at a time, each client address at most half of them); past it 429 with `Retry-After`",
  }),
  IMPORT_MAX_FUTURE_SECONDS: variable({
    name: "IMPORT_MAX_FUTURE_SECONDS",
    section: "Bounds",
    parser: whole(0),
    default: defaultMaxFutureSeconds,
    description:
      "how far past now an imported row's `timestamp` may be; a later one is a bad line of `POST /api/import/<table>` and `npm run import`",
  }),
  IMPORT_MIN_BYTES_PER_SECOND: variable({
    name: "IMPORT_MIN_BYTES_PER_SECOND",
    section: "Bounds",
    parser: whole(0),
    default: defaultImportMinBytesPerSecond,
    description:
      "the slowest an import body may arrive, averaged from its start, once 10 seconds have passed; a slower one is cut with 408 `deadline_exceeded`; `0` turns the floor off",
  }),
  IMPORT_REFRESH_SECONDS: variable({
    name: "IMPORT_REFRESH_SECONDS",
    section: "Bounds",
    parser: seconds(1),
    default: defaultImportRefreshIntervalMs,
    description:
      "the least time between two refreshes of the cached results reading one table after imports; the imports arriving meanwhile share the next one, so each cached result is refreshed at most once per period however many imports arrive",
  }),
  MAX_WATCH_STREAMS: variable({
    name: "MAX_WATCH_STREAMS",
    section: "Bounds",
    parser: whole(1),
    default: defaultWatchBounds.maxStreams,
    description: "watch streams open at once in all; one past it is refused with `resource_exhausted`",
  }),
  MAX_WATCH_STREAMS_PER_CALLER: variable({
    name: "MAX_WATCH_STREAMS_PER_CALLER",
    section: "Bounds",
    parser: whole(1),
    default: defaultWatchBounds.perCaller,
    description:
      "watch streams open at once for one key or token subject; one past it is refused with `resource_exhausted`",
  }),
  MAX_WATCH_STREAMS_PER_ADDRESS: variable({
    name: "MAX_WATCH_STREAMS_PER_ADDRESS",
    section: "Bounds",
    parser: whole(1),
    default: defaultWatchBounds.perAddress,
    description:
      "watch streams open at once from one client address ([an IPv6 client by its /64](reliability.md#one-client-address)); one past it is refused with `resource_exhausted`",
  }),
  TAIL_POLL_SECONDS: variable({
    name: "TAIL_POLL_SECONDS",
    section: "Bounds",
    parser: seconds(1),
    default: defaultTailPollMs,
    description:
      "how often a watch of `logs.all` (live tail) asks for rows newer than it sent, one query per distinct call",
  }),
  MAX_PARAMETER_LENGTH: variable({
    name: "MAX_PARAMETER_LENGTH",
    section: "Bounds",
    parser: whole(1),
    default: defaultMaxParameterLength,
    description: "longest value of any parameter, in characters, on every transport",
  }),
  MAX_CONNECTIONS: variable({
    name: "MAX_CONNECTIONS",
    section: "Bounds",
    parser: whole(1),
    default: defaultConnectionLimits.maxConnections,
    description: "open connections; more are closed at once while the open ones keep working",
  }),
  MAX_CONNECTIONS_PER_ADDRESS: variable({
    name: "MAX_CONNECTIONS_PER_ADDRESS",
    section: "Bounds",
    parser: whole(1),
    default: defaultConnectionLimits.maxConnectionsPerAddress,
    description:
      "open connections from one client address ([an IPv6 client by its /64](reliability.md#one-client-address)); more from it are closed at once",
  }),
  MAX_STREAMS_PER_ADDRESS: variable({
    name: "MAX_STREAMS_PER_ADDRESS",
    section: "Bounds",
    parser: whole(1),
    default: defaultConnectionLimits.maxStreamsPerAddress,
    description:
      "HTTP/2 streams open at once on all the connections of one client address ([an IPv6 client by its /64](reliability.md#one-client-address)) together; a stream past it is refused (REFUSED_STREAM) before its handler runs",
  }),
  FIRST_REQUEST_TIMEOUT_SECONDS: variable({
    name: "FIRST_REQUEST_TIMEOUT_SECONDS",
    section: "Bounds",
    parser: seconds(1),
    default: defaultConnectionLimits.firstRequestTimeoutMs,
    description: "a new connection must send its first request's headers within this",
  }),
  IDLE_TIMEOUT_SECONDS: variable({
    name: "IDLE_TIMEOUT_SECONDS",
    section: "Bounds",
    parser: seconds(1),
    default: defaultConnectionLimits.idleTimeoutMs,
    description: "a connection with no request in flight for this long is closed (HTTP/2 with GOAWAY first)",
  }),
  MAX_QUERY_SECONDS: variable({
    name: "MAX_QUERY_SECONDS",
    section: "Bounds",
    parser: seconds(1),
    default: defaultQueryTimeoutMs,
    description:
      "the longest deadline of a call, whatever its client asks, the wait for a warehouse turn included; also the deadline of cache refreshes",
  }),
  MAX_ROWS_TO_READ: variable({
    name: "MAX_ROWS_TO_READ",
    section: "Bounds",
    parser: whole(0),
    default: 0,
    description:
      "rows the warehouse may read for one call (`max_rows_to_read`); `0` is no limit. A saved query's or a credential's smaller limit wins; past it a call is `resource_exhausted`",
  }),
  MAX_BYTES_TO_READ: variable({
    name: "MAX_BYTES_TO_READ",
    section: "Bounds",
    parser: whole(0),
    default: 0,
    description:
      "bytes the warehouse may read for one call (`max_bytes_to_read`); `0` is no limit. A saved query's or a credential's smaller limit wins",
  }),
  WAREHOUSE_CONCURRENCY: variable({
    name: "WAREHOUSE_CONCURRENCY",
    section: "Bounds",
    parser: whole(1),
    // Depends on the engine: readConfig fills it in.
    default: undefined,
    shownDefault: `\`${defaultConcurrency(warehouseCapabilities("embedded"))}\` embedded, \`${defaultConcurrency(warehouseCapabilities("server"))}\` server`,
    description:
      "warehouse queries running at once; the embedded engine runs one saved query at a time, so above 1 needs `CLICKHOUSE_URL`",
  }),
  WAREHOUSE_QUEUE: variable({
    name: "WAREHOUSE_QUEUE",
    section: "Bounds",
    parser: whole(0),
    default: defaultAdmission.maxQueued,
    description: "warehouse queries waiting for a turn, all keys together",
  }),
  WAREHOUSE_CALLS_PER_KEY: variable({
    name: "WAREHOUSE_CALLS_PER_KEY",
    section: "Bounds",
    parser: whole(1),
    default: defaultAppLimits.warehouseCallsPerKey,
    description: "one key's warehouse queries running and waiting",
  }),
  CACHE_SHARE_PER_CALLER: variable({
    name: "CACHE_SHARE_PER_CALLER",
    section: "Bounds",
    parser: fraction,
    default: defaultSharePerCaller,
    description:
      "what one key may hold of a full result cache, as a fraction of its entry and byte bounds: past a bound, a key holding more loses its own least recently used entries first, so its misses cannot push out other keys' results. A key alone may fill the cache. A number above 0 and at most 1; `1` turns the share off ([reliability.md](reliability.md#the-cache-under-many-keys))",
  }),
  STALE_IF_ERROR_SECONDS: variable({
    name: "STALE_IF_ERROR_SECONDS",
    section: "Bounds",
    parser: seconds(0),
    default: defaultAppLimits.staleIfErrorMs,
    description:
      "how long past its lifetime a cached result still answers its key when the warehouse is unreachable, overloaded or past its deadline, marked `X-Cache: STALE` with its true `Age`; such results are kept only within the cache's bounds and go first when they are reached. `0` turns it off",
  }),
  AUTH_FAILURES_PER_SECOND: variable({
    name: "AUTH_FAILURES_PER_SECOND",
    section: "Bounds",
    parser: rate,
    default: defaultAuthFailures.perSecond,
    description:
      "failed authentications a second allowed per client address; `0` turns the throttle off; may have a fraction",
  }),
  AUTH_FAILURE_BURST: variable({
    name: "AUTH_FAILURE_BURST",
    section: "Bounds",
    parser: whole(1),
    default: defaultAuthFailures.burst,
    description:
      "failed authentications in a row allowed per client address; only a key or token presented and wrong counts, never a call without one (a CORS preflight, say)",
  }),
  KEYLESS_RATE_LIMIT_PER_SECOND: variable({
    name: "KEYLESS_RATE_LIMIT_PER_SECOND",
    section: "Bounds",
    parser: rate,
    default: defaultKeylessLimit.perSecond,
    description:
      "requests needing no key (`/healthz`, `/readyz`, `/metrics`, `/openapi.json`, a path that is no route, a preflight, gRPC health, reflection, an unknown procedure) a second per client address, health probes and reflection each counted apart from the rest; `0` turns the limit off; may have a fraction",
  }),
  KEYLESS_RATE_LIMIT_BURST: variable({
    name: "KEYLESS_RATE_LIMIT_BURST",
    section: "Bounds",
    parser: whole(1),
    default: defaultKeylessLimit.burst,
    description: "such requests of one kind an address may make at once",
  }),
  RESPONSE_STALL_SECONDS: variable({
    name: "RESPONSE_STALL_SECONDS",
    section: "Bounds",
    parser: seconds(1),
    default: defaultUnsentBytes.stallTimeoutMs,
    description:
      "a response with bytes queued, none of which went out for this long, is reset (HTTP/2 `RST_STREAM(CANCEL)`) or its connection closed (HTTP/1.1)",
  }),
  MAX_UNSENT_BYTES_PER_CONNECTION: variable({
    name: "MAX_UNSENT_BYTES_PER_CONNECTION",
    section: "Bounds",
    parser: whole(1),
    default: defaultUnsentBytes.maxPerConnection,
    description:
      "response bytes queued and not yet sent on one connection; a write past it resets its stream (HTTP/1.1: closes the connection)",
  }),
  MAX_UNSENT_BYTES_PER_ADDRESS: variable({
    name: "MAX_UNSENT_BYTES_PER_ADDRESS",
    section: "Bounds",
    parser: whole(1),
    default: defaultUnsentBytes.maxPerAddress,
    description:
      "response bytes queued and not yet sent on all connections of one client address ([an IPv6 client by its /64](reliability.md#one-client-address)); a write past it closes its connection (HTTP/2: `GOAWAY(ENHANCE_YOUR_CALM)`); a proxy in `TRUSTED_PROXIES` is bound per connection only",
  }),
};
