// What the app is made with (AppOptions, every option with its default) and
// what it hands back (App): the composition root's contract with its callers.
import type { ResultCache } from "../cache/index.js";
import type {
  ComputedResponse,
  EndpointRegistry,
  PageTokenSecrets,
  WatchBoundValues,
  WatchHub,
} from "../endpoints/index.js";
import type { ReadLimitValues } from "../executor/index.js";
import type { Clock, Logger, Metrics, MetricsScrape, Tracing } from "../observability/index.js";
import type { CorsOrigins, RequestHandler, StreamHandler, TrustedProxies } from "../transport/index.js";
import type { CallLog, Warehouse } from "../warehouse/index.js";
import type { TokenSources } from "./authentication.js";

export interface AppOptions {
  /** `cluster` and `queryCacheSeconds`, when set, tune every saved query (executor/query-tuning.ts). */
  warehouse: Pick<Warehouse, "client" | "kind" | "cluster" | "queryCacheSeconds">;
  /** Full-access API keys; with the key file and tokens, at least one way in. */
  apiKeys: readonly string[];
  /** Scoped keys from a JSON file, looked at every `pollMs` (default 2000) for a change. */
  keyFile?: { path: string; pollMs?: number };
  /** Signed tokens: verified with a secret (HS256), a public key or a JWKS, and those of OpenID Connect issuers. */
  tokens?: TokenSources;
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
  /** Proxies whose X-Forwarded-For names the client address (TRUSTED_PROXIES; transport/call/client-address.ts). Default: none. */
  trustedProxies?: TrustedProxies;
  /**
   * Bounds on warehouse queries running, waiting, and running and waiting
   * for one key. Default 8 (1 on a warehouse that runs one query at a time), 64 and 16.
   */
  admission?: { maxConcurrent?: number; maxQueued?: number; maxPerKey?: number };
  /** Largest Connect, gRPC or gRPC-Web request message, after decompression. Default 65,536 bytes. */
  maxBodyBytes?: number;
  /**
   * Whether unary RPC cache hits are answered from the bytes their result
   * keeps rather than through the Connect router; the answers are the same.
   * Default true.
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
  /** gRPC health Watch calls one client address (IPv6 by its /64) may hold open. Default `maxHealthWatches` / 32. */
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
  /** Imports running at once, all callers together (MAX_IMPORTS_RUNNING). Default 2. */
  maxImportsRunning?: number;
  /** The import route's bounds on rows, uploads and refreshes (IMPORT_MAX_FUTURE_SECONDS, IMPORT_MIN_BYTES_PER_SECOND, IMPORT_REFRESH_SECONDS; transport/http/import-route.ts). Default: theirs. */
  importBounds?: {
    maxFutureSeconds?: number;
    minBytesPerSecond?: number;
    uploadGraceMs?: number;
    refreshWaitMs?: number;
    refreshIntervalMs?: number;
  };
  /** How long the /metrics text is reused. Default 1000 ms. */
  metricsReuseMs?: number;
  /** Whether the API port serves /metrics (false: `App.scrape` is served elsewhere, METRICS_ADDRESS). Default true. */
  serveMetrics?: boolean;
  /** `MAX_ROWS_TO_READ` and `MAX_BYTES_TO_READ`: read limits of every call, 0 none; a saved query's or a credential's smaller one wins. Default: none. */
  readLimits?: ReadLimitValues;
  /**
   * The call log (CALL_LOG, CALL_LOG_FLUSH_SECONDS, CALL_LOG_MAX_ROWS): every
   * saved-query call counted in per-minute aggregates, written to
   * `service_call_aggregates` through the warehouse's client. Default: off.
   */
  callLog?: { enabled?: boolean; flushMs?: number; maxRows?: number };
  /**
   * Keys of the page tokens of `logs.all` (PAGE_TOKEN_SECRET and, while
   * rotating, PAGE_TOKEN_PREVIOUS_SECRET): replicas with the same keys open
   * each other's tokens. Default: 32 random bytes, for the process's life.
   */
  pageTokenSecrets?: PageTokenSecrets;
  /**
   * Watch streams: their bounds (MAX_WATCH_STREAMS*), how often a tail is
   * polled (TAIL_POLL_SECONDS) and an event stream's heartbeat. Default
   * 10,000, 100, 100, 2000 ms and 15 s.
   */
  watch?: { bounds?: WatchBoundValues; tailPollMs?: number; heartbeatMs?: number };
}

export interface App {
  handler: RequestHandler;
  /** The same for HTTP/2 streams before Node's compatibility layer (the single-port server's `streams`). */
  streams: StreamHandler;
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
