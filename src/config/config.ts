// Service configuration read from environment variables (docs/configuration.md).
import type { LogLevel } from "../observability/index.js";
import { trustedProxyProblem } from "../transport/client-address.js";

/** Where the log tables live: a ClickHouse server over HTTP, or the embedded engine. */
export type WarehouseConfig =
  | {
      kind: "server";
      /** `CLICKHOUSE_URL`, for example `http://localhost:8123`. */
      url: string;
      /** `CLICKHOUSE_USER`, default `default`. */
      username: string;
      /** `CLICKHOUSE_PASSWORD`, default empty. */
      password: string;
      /** `CLICKHOUSE_DATABASE`, default `default`. */
      database: string;
      /**
       * `CLICKHOUSE_CLUSTER`, unset by default: the cluster (a name in the
       * server's `remote_servers`) the migrations create replicated, sharded
       * tables on, and whose Distributed tables the queries read.
       */
      cluster?: string;
      /**
       * `CLICKHOUSE_QUERY_CACHE_SECONDS`, default 0 (off): cached endpoints use
       * the server's query cache, with `now` rounded down to this many seconds
       * so that service replicas send the same query (docs/deployment.md).
       */
      queryCacheSeconds?: number;
    }
  | {
      kind: "embedded";
      /** `CHDB_PATH`, default `./data`: data directory of the embedded engine. */
      path: string;
      /** `CLICKHOUSE_DATABASE`, default `default`. */
      database: string;
    };

export interface Config {
  /** `PORT`, default 8080: one port for HTTP/1.1 and h2c. */
  port: number;
  /** `HOST`, default `127.0.0.1`. */
  host: string;
  /**
   * `TRUSTED_PROXIES`, empty by default: addresses and CIDR ranges of proxies
   * whose `X-Forwarded-For` names the client address for the per-address
   * bounds, and whose connections only MAX_CONNECTIONS bounds.
   */
  trustedProxies: string[];
  /** `API_KEYS`: accepted full-access keys; empty when unset. */
  apiKeys: string[];
  /** Scoped keys and signed tokens (docs/credentials.md). */
  credentials: CredentialsConfig;
  warehouse: WarehouseConfig;
  /** `DEMO_DATA`, default true: embedded mode loads demo data into empty tables. */
  demoData: boolean;
  /**
   * `WAREHOUSE_RETRY_SECONDS`, default 5: the longest wait between two tries
   * to reach a warehouse that does not answer (the migrations are retried
   * after 1 s, doubling up to it; the embedded engine is reopened every 2 s,
   * or this when shorter).
   */
  warehouseRetryMs: number;
  /** `LOG_LEVEL`, default `info`; `debug` also logs every successful call. */
  logLevel: LogLevel;
  /** `RATE_LIMIT_PER_SECOND` (default 100; 0 disables) and `RATE_LIMIT_BURST` (default 200), per API key. */
  rateLimit: { perSecond: number; burst: number };
  /** What one client, connection or key may take; see `Limits`. */
  limits: Limits;
}

/** Where scoped credentials come from; every field is optional. */
export interface CredentialsConfig {
  /** `API_KEYS_FILE`: a JSON file of scoped keys, stored as SHA-256 digests. */
  apiKeysFile?: string;
  /** `API_KEYS_FILE_POLL_SECONDS`, default 2: how often the key file is looked at for a change. */
  apiKeysFilePollMs: number;
  /** `JWT_SECRET`: HS256 tokens; at least 32 characters. */
  jwtSecret?: string;
  /** `JWT_PUBLIC_KEY`: a PEM public key, or the path of a file holding one, for RS256, ES256 or EdDSA tokens. */
  jwtPublicKey?: string;
  /** `JWT_JWKS_FILE`: the path of a JWKS file, for RS256, ES256 or EdDSA tokens chosen by `kid`. */
  jwtJwksFile?: string;
}

/** The bounds that keep hostile or greedy clients from exhausting the service (docs/reliability.md). */
export interface Limits {
  /** `MAX_BODY_BYTES`, default 65,536: largest Connect, gRPC or gRPC-Web request message, after decompression. */
  maxBodyBytes: number;
  /** `MAX_PARAMETER_LENGTH`, default 1,024: longest value of any parameter, in characters. */
  maxParameterLength: number;
  /** `MAX_CONNECTIONS`, default 4,096: open connections; more are refused while existing ones keep working. */
  maxConnections: number;
  /** `MAX_CONNECTIONS_PER_ADDRESS`, default 256: open connections from one client address. */
  maxConnectionsPerAddress: number;
  /** `FIRST_REQUEST_TIMEOUT_SECONDS`, default 10: a new connection must send its first request's headers within this. */
  firstRequestTimeoutMs: number;
  /** `IDLE_TIMEOUT_SECONDS`, default 60: a connection with no request in flight for this long is closed. */
  idleTimeoutMs: number;
  /** `MAX_QUERY_SECONDS`, default 30: the longest deadline of a call, whatever the client asks; admission wait included. */
  maxQueryMs: number;
  /** `WAREHOUSE_CONCURRENCY`: warehouse queries running at once. Default 1 on the embedded engine (it runs one at a time), 8 on a server. */
  warehouseConcurrency: number;
  /** `WAREHOUSE_QUEUE`, default 64: warehouse queries waiting for a turn, all keys together. */
  warehouseQueue: number;
  /** `WAREHOUSE_CALLS_PER_KEY`, default 16: one key's warehouse queries running and waiting. */
  warehouseCallsPerKey: number;
  /** `AUTH_FAILURES_PER_SECOND` (default 1) and `AUTH_FAILURE_BURST` (default 20): failed authentications allowed per client address. */
  authFailures: { perSecond: number; burst: number };
}

/** A configuration problem, one line naming the variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("\n"));
    this.name = "ConfigError";
  }
}

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;
const logLevels: LogLevel[] = ["debug", "info", "warn", "error"];

/**
 * Reads and validates the configuration. Every bad variable is reported at
 * once, each on its own line, in a thrown ConfigError.
 */
export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const value = (name: string) => {
    const v = env[name];
    return v === undefined || v.trim() === "" ? undefined : v.trim();
  };

  /** A whole number from `min`, or the default when unset. */
  const whole = (name: string, fallback: number, min = 1) => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min) {
      problems.push(`${name} must be a whole number of at least ${min}, got "${raw}"`);
      return fallback;
    }
    return Number(raw);
  };
  const rate = (name: string, fallback: number) => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    if (!/^\d+(\.\d+)?$/.test(raw)) {
      problems.push(`${name} must be a non-negative number, got "${raw}"`);
      return fallback;
    }
    return Number(raw);
  };
  let port = 8080;
  const rawPort = value("PORT");
  if (rawPort !== undefined) {
    port = Number(rawPort);
    if (!/^\d+$/.test(rawPort) || port > 65535) {
      problems.push(`PORT must be an integer from 0 to 65535, got "${rawPort}"`);
    }
  }

  const database = value("CLICKHOUSE_DATABASE") ?? "default";
  if (!identifier.test(database)) {
    problems.push(`CLICKHOUSE_DATABASE must be a plain identifier, got "${database}"`);
  }

  let warehouse: WarehouseConfig;
  const url = value("CLICKHOUSE_URL");
  if (url !== undefined) {
    if (!isHttpUrl(url)) {
      problems.push(`CLICKHOUSE_URL must be an http:// or https:// URL, got "${url}"`);
    }
    warehouse = {
      kind: "server",
      url,
      username: value("CLICKHOUSE_USER") ?? "default",
      password: env.CLICKHOUSE_PASSWORD ?? "",
      database,
    };
    const cluster = value("CLICKHOUSE_CLUSTER");
    if (cluster !== undefined) {
      if (!identifier.test(cluster)) problems.push(`CLICKHOUSE_CLUSTER must be a plain identifier, got "${cluster}"`);
      warehouse.cluster = cluster;
    }
    const rawQueryCache = value("CLICKHOUSE_QUERY_CACHE_SECONDS");
    if (rawQueryCache !== undefined) {
      if (!/^\d+$/.test(rawQueryCache) || Number(rawQueryCache) > 86_400) {
        problems.push(`CLICKHOUSE_QUERY_CACHE_SECONDS must be an integer from 0 to 86400, got "${rawQueryCache}"`);
      }
      warehouse.queryCacheSeconds = Number(rawQueryCache);
    }
  } else {
    warehouse = { kind: "embedded", path: value("CHDB_PATH") ?? "./data", database };
    if (value("CLICKHOUSE_CLUSTER") !== undefined) {
      problems.push("CLICKHOUSE_CLUSTER needs CLICKHOUSE_URL: the embedded engine is a single node");
    }
    if (value("CLICKHOUSE_QUERY_CACHE_SECONDS") !== undefined) {
      problems.push(
        "CLICKHOUSE_QUERY_CACHE_SECONDS needs CLICKHOUSE_URL: the embedded engine has no server query cache",
      );
    }
  }

  let demoData = true;
  const rawDemo = value("DEMO_DATA");
  if (rawDemo !== undefined) {
    if (rawDemo !== "0" && rawDemo !== "1") {
      problems.push(`DEMO_DATA must be 0 or 1, got "${rawDemo}"`);
    }
    demoData = rawDemo !== "0";
  }

  const logLevel = (value("LOG_LEVEL") ?? "info") as LogLevel;
  if (!logLevels.includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of ${logLevels.join(", ")}, got "${logLevel}"`);
  }

  const rateLimit = { perSecond: rate("RATE_LIMIT_PER_SECOND", 100), burst: rate("RATE_LIMIT_BURST", 200) };

  let warehouseRetryMs = 5_000;
  const rawRetry = value("WAREHOUSE_RETRY_SECONDS");
  if (rawRetry !== undefined) {
    if (!/^\d+(\.\d+)?$/.test(rawRetry) || Number(rawRetry) < 0.1) {
      problems.push(`WAREHOUSE_RETRY_SECONDS must be a number of at least 0.1, got "${rawRetry}"`);
    } else {
      warehouseRetryMs = Math.round(Number(rawRetry) * 1000);
    }
  }

  const apiKeys = (value("API_KEYS") ?? "")
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k !== "");
  apiKeys.forEach((key, i) => {
    const problem = apiKeyProblem(key);
    if (problem !== undefined) problems.push(`API_KEYS key ${i + 1} ${problem}`);
  });

  const trustedProxies = (value("TRUSTED_PROXIES") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  for (const entry of trustedProxies) {
    const problem = trustedProxyProblem(entry);
    if (problem !== undefined) problems.push(`TRUSTED_PROXIES: ${problem}`);
  }

  const limits: Limits = {
    maxBodyBytes: whole("MAX_BODY_BYTES", 64 * 1024),
    maxParameterLength: whole("MAX_PARAMETER_LENGTH", 1024),
    maxConnections: whole("MAX_CONNECTIONS", 4096),
    maxConnectionsPerAddress: whole("MAX_CONNECTIONS_PER_ADDRESS", 256),
    firstRequestTimeoutMs: whole("FIRST_REQUEST_TIMEOUT_SECONDS", 10) * 1000,
    idleTimeoutMs: whole("IDLE_TIMEOUT_SECONDS", 60) * 1000,
    maxQueryMs: whole("MAX_QUERY_SECONDS", 30) * 1000,
    warehouseConcurrency: whole("WAREHOUSE_CONCURRENCY", warehouse.kind === "embedded" ? 1 : 8),
    warehouseQueue: whole("WAREHOUSE_QUEUE", 64, 0),
    warehouseCallsPerKey: whole("WAREHOUSE_CALLS_PER_KEY", 16),
    authFailures: { perSecond: rate("AUTH_FAILURES_PER_SECOND", 1), burst: whole("AUTH_FAILURE_BURST", 20) },
  };

  const credentials: CredentialsConfig = {
    apiKeysFile: value("API_KEYS_FILE"),
    apiKeysFilePollMs: whole("API_KEYS_FILE_POLL_SECONDS", 2) * 1000,
    jwtSecret: value("JWT_SECRET"),
    jwtPublicKey: value("JWT_PUBLIC_KEY"),
    jwtJwksFile: value("JWT_JWKS_FILE"),
  };
  if (credentials.jwtSecret !== undefined && credentials.jwtSecret.length < 32) {
    problems.push(`JWT_SECRET must be at least 32 characters long, got ${credentials.jwtSecret.length}`);
  }
  const tokenKeys = ["JWT_SECRET", "JWT_PUBLIC_KEY", "JWT_JWKS_FILE"].filter((name) => value(name) !== undefined);
  if (tokenKeys.length > 1)
    problems.push(`${tokenKeys.join(" and ")}: set one way of verifying tokens, not ${tokenKeys.length}`);
  if (
    warehouse.kind === "server" &&
    apiKeys.length === 0 &&
    credentials.apiKeysFile === undefined &&
    tokenKeys.length === 0
  ) {
    problems.push(
      "API_KEYS must be set when CLICKHOUSE_URL is set, or API_KEYS_FILE or a JWT key (only the embedded mode generates a key)",
    );
  }

  if (warehouse.kind === "embedded" && limits.warehouseConcurrency > 1) {
    problems.push(
      "WAREHOUSE_CONCURRENCY above 1 needs CLICKHOUSE_URL: the embedded engine runs one saved query at a time",
    );
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port,
    host: value("HOST") ?? "127.0.0.1",
    trustedProxies,
    apiKeys,
    credentials,
    warehouse,
    demoData,
    warehouseRetryMs,
    logLevel,
    rateLimit,
    limits,
  };
}

/** Why `key` may not be an API key (too short to resist guessing, or holding white space), or undefined. */
export function apiKeyProblem(key: string): string | undefined {
  if (key.length < 16) return `is ${key.length} characters long; keys need at least 16`;
  if (/\s/.test(key)) return "contains white space";
  return undefined;
}

function isHttpUrl(text: string): boolean {
  try {
    const parsed = new URL(text);
    return parsed.protocol === "http:" || parsed.protocol === "https:";
  } catch {
    return false;
  }
}
