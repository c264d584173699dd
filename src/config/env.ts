// Service configuration read from environment variables (CONTRACT.md section 2).
import type { LogLevel } from "../observability/index.js";

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
  /** `API_KEYS`: accepted keys; empty when unset. */
  apiKeys: string[];
  warehouse: WarehouseConfig;
  /** `DEMO_DATA`, default true: embedded mode loads demo data into empty tables. */
  demoData: boolean;
  /** `LOG_LEVEL`, default `info`; `debug` also logs every successful call. */
  logLevel: LogLevel;
  /** `RATE_LIMIT_PER_SECOND` (default 100; 0 disables) and `RATE_LIMIT_BURST` (default 200), per API key. */
  rateLimit: { perSecond: number; burst: number };
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
      problems.push("CLICKHOUSE_QUERY_CACHE_SECONDS needs CLICKHOUSE_URL: the embedded engine has no server query cache");
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

  const rateLimit = { perSecond: 100, burst: 200 };
  for (const [name, field] of [
    ["RATE_LIMIT_PER_SECOND", "perSecond"],
    ["RATE_LIMIT_BURST", "burst"],
  ] as const) {
    const raw = value(name);
    if (raw === undefined) continue;
    if (!/^\d+(\.\d+)?$/.test(raw)) problems.push(`${name} must be a non-negative number, got "${raw}"`);
    rateLimit[field] = Number(raw);
  }

  const apiKeys = (value("API_KEYS") ?? "")
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k !== "");

  if (warehouse.kind === "server" && apiKeys.length === 0) {
    problems.push("API_KEYS must be set when CLICKHOUSE_URL is set (only the embedded mode generates a key)");
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return { port, host: value("HOST") ?? "127.0.0.1", apiKeys, warehouse, demoData, logLevel, rateLimit };
}

function isHttpUrl(text: string): boolean {
  try {
    const parsed = new URL(text);
    return parsed.protocol === "http:" || parsed.protocol === "https:";
  } catch {
    return false;
  }
}
