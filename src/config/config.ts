// The shape of the service's configuration; readConfig (read-config.ts) fills it from the variables of variables.ts.
import type { OidcIssuer } from "../auth/oidc-verifier.js";
import type { LogLevel } from "../observability/index.js";
import type { WarehouseConfig } from "../warehouse/index.js";

export interface Config {
  /** `PORT`: one port for HTTP/1.1 and h2c. */
  port: number;
  /** `HOST`. */
  host: string;
  /**
   * `METRICS_PORT` and `METRICS_HOST` (default `HOST`), when the port is set:
   * /metrics on a port of its own, and 404 on `port`.
   */
  metrics?: { port: number; host: string };
  /**
   * `TRUSTED_PROXIES`: addresses and CIDR ranges of proxies
   * whose `X-Forwarded-For` names the client address for the per-address
   * bounds, and whose connections only MAX_CONNECTIONS bounds.
   */
  trustedProxies: string[];
  /** `API_KEYS`: accepted full-access keys; empty when unset. */
  apiKeys: string[];
  /** Scoped keys and signed tokens (docs/credentials.md). */
  credentials: CredentialsConfig;
  /**
   * `PAGE_TOKEN_SECRET` and `PAGE_TOKEN_PREVIOUS_SECRET`: the keys of
   * `logs.all` page tokens; unset, the service generates one (embedded mode
   * keeps it in the data directory).
   */
  pageTokens: { secret?: string; previousSecret?: string };
  warehouse: WarehouseConfig;
  /** `DEMO_DATA`: embedded mode loads demo data into empty tables. */
  demoData: boolean;
  /**
   * `WAREHOUSE_RETRY_SECONDS`: the longest wait between two tries
   * to reach a warehouse that does not answer (the migrations are retried
   * after 1 s, doubling up to it; the embedded engine is reopened every 2 s,
   * or this when shorter).
   */
  warehouseRetryMs: number;
  /** `LOG_LEVEL`. */
  logLevel: LogLevel;
  /** `RATE_LIMIT_PER_SECOND` and `RATE_LIMIT_BURST`, per API key. */
  rateLimit: { perSecond: number; burst: number };
  /** What one client, connection or key may take; see `Limits`. */
  limits: Limits;
  /** `CORS_ORIGINS`: `*`, or the origins (`https://app.example.com`) whose pages may call the service. */
  corsOrigins: "*" | string[];
  /** `RPC_FAST_PATH`: unary RPC cache hits answered without the Connect router. */
  rpcFastPath: boolean;
  /** `EXPLORER`: the explorer page at `GET /` (docs/explorer.md). */
  explorer: boolean;
  /** The record of the service's own calls in `service_calls` (docs/usage-accounting.md). */
  callLog: CallLogConfig;
}

/** `CALL_LOG`, `CALL_LOG_FLUSH_SECONDS`, `CALL_LOG_MAX_ROWS` and `CALL_LOG_RETENTION_DAYS`. */
export interface CallLogConfig {
  /** `CALL_LOG`: calls are recorded. */
  enabled: boolean;
  /** `CALL_LOG_FLUSH_SECONDS`: the period of the writes, in ms. */
  flushMs: number;
  /** `CALL_LOG_MAX_ROWS`: rows held while the warehouse does not take them; the oldest are dropped past it. */
  maxRows: number;
  /** `CALL_LOG_RETENTION_DAYS`: the table's TTL. */
  retentionDays: number;
}

/** Where scoped credentials come from; every field is optional. */
export interface CredentialsConfig {
  /** `API_KEYS_FILE`: a JSON file of scoped keys, stored as SHA-256 digests. */
  apiKeysFile?: string;
  /** `API_KEYS_FILE_POLL_SECONDS`: how often the key file is looked at for a change. */
  apiKeysFilePollMs: number;
  /** `JWT_SECRET`: HS256 tokens; at least 32 characters. */
  jwtSecret?: string;
  /** `JWT_PUBLIC_KEY`: a PEM public key, or the path of a file holding one, for RS256, ES256 or EdDSA tokens. */
  jwtPublicKey?: string;
  /** `JWT_JWKS_FILE`: the path of a JWKS file, for RS256, ES256 or EdDSA tokens chosen by `kid`. */
  jwtJwksFile?: string;
  /** `OIDC_ISSUERS` with `OIDC_AUDIENCE`, `OIDC_CLOCK_SKEW_SECONDS` and `OIDC_JWKS_MIN_REFRESH_SECONDS`. */
  oidc?: { issuers: OidcIssuer[]; clockSkewMs: number; minRefreshMs: number };
}

/** The bounds that keep hostile or greedy clients from exhausting the service (docs/reliability.md). */
export interface Limits {
  /** `MAX_BODY_BYTES`: largest Connect, gRPC or gRPC-Web request message, after decompression. */
  maxBodyBytes: number;
  /** `MAX_IMPORT_BYTES`: largest NDJSON body of the import route. */
  maxImportBytes: number;
  /** `MAX_IMPORTS_RUNNING`: imports at once, all callers together. */
  maxImportsRunning: number;
  /** `IMPORT_MAX_FUTURE_SECONDS`: how far past now an imported row's timestamp may be. */
  importMaxFutureSeconds: number;
  /** `IMPORT_MIN_BYTES_PER_SECOND`: the slowest import upload kept past its grace; 0: no floor. */
  importMinBytesPerSecond: number;
  /** `IMPORT_REFRESH_SECONDS`, in ms: the least time between two refreshes of one table's cached results after imports. */
  importRefreshMs: number;
  /** `MAX_PARAMETER_LENGTH`: longest value of any parameter, in characters. */
  maxParameterLength: number;
  /** `MAX_CONNECTIONS`: open connections; more are refused while existing ones keep working. */
  maxConnections: number;
  /** `MAX_CONNECTIONS_PER_ADDRESS`: open connections from one client address. */
  maxConnectionsPerAddress: number;
  /** `MAX_STREAMS_PER_ADDRESS`: concurrent HTTP/2 streams of one client address's connections together. */
  maxStreamsPerAddress: number;
  /** `FIRST_REQUEST_TIMEOUT_SECONDS`: a new connection must send its first request's headers within this. */
  firstRequestTimeoutMs: number;
  /** `IDLE_TIMEOUT_SECONDS`: a connection with no request in flight for this long is closed. */
  idleTimeoutMs: number;
  /** `MAX_QUERY_SECONDS`: the longest deadline of a call, whatever the client asks; admission wait included. */
  maxQueryMs: number;
  /** `MAX_WATCH_STREAMS`, `MAX_WATCH_STREAMS_PER_CALLER`, `MAX_WATCH_STREAMS_PER_ADDRESS`: watch streams open at once. */
  watchBounds: { maxStreams: number; perCaller: number; perAddress: number };
  /** `TAIL_POLL_SECONDS`: how often a live tail (or an uncached watch) is polled. */
  tailPollMs: number;
  /** `MAX_ROWS_TO_READ` and `MAX_BYTES_TO_READ`: what the warehouse may read for one call; 0 is no limit. */
  readLimits: { maxRowsToRead: number; maxBytesToRead: number };
  /** `WAREHOUSE_CONCURRENCY`: warehouse queries running at once. The default depends on the engine (variables.ts). */
  warehouseConcurrency: number;
  /** `WAREHOUSE_QUEUE`: warehouse queries waiting for a turn, all keys together. */
  warehouseQueue: number;
  /** `WAREHOUSE_CALLS_PER_KEY`: one key's warehouse queries running and waiting. */
  warehouseCallsPerKey: number;
  /** `CACHE_SHARE_PER_CALLER`: what one key may hold of a full result cache, as a fraction of each bound. */
  cacheSharePerCaller: number;
  /** `STALE_IF_ERROR_SECONDS`: how long past its lifetime a cached result answers a warehouse outage; 0 = off. */
  staleIfErrorMs: number;
  /** `AUTH_FAILURES_PER_SECOND` and `AUTH_FAILURE_BURST`: failed authentications allowed per client address. */
  authFailures: { perSecond: number; burst: number };
  /** `RESPONSE_STALL_SECONDS`: a response none of whose queued bytes went out for this long is reset. */
  responseStallMs: number;
  /** `MAX_UNSENT_BYTES_PER_CONNECTION`: response bytes queued, unsent, on one connection. */
  maxUnsentBytesPerConnection: number;
  /** `MAX_UNSENT_BYTES_PER_ADDRESS`: response bytes queued, unsent, on all connections of one client address. */
  maxUnsentBytesPerAddress: number;
  /** `KEYLESS_RATE_LIMIT_PER_SECOND` and `KEYLESS_RATE_LIMIT_BURST`: requests needing no key per client address and kind. */
  keylessRateLimit: { perSecond: number; burst: number };
}

/** A configuration problem, one line naming the variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("\n"));
    this.name = "ConfigError";
  }
}
