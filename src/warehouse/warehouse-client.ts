// The one @clickhouse/client of the process, on a ClickHouse server or on the
// embedded engine (chDB plugged in through `chdb/connection`, its inserts
// through chDB's raw insert: embedded-insert.ts).
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { ClickHouseLogLevel, createClient } from "@clickhouse/client";
import { createChdbConnection } from "chdb/connection";
import type { Logger } from "../observability/index.js";
import { assertDataDirectoryFree } from "./data-directory-lock.js";
import { createEmbeddedInsert } from "./embedded-insert.js";
import { createReopeningClient, type WarehouseClient } from "./reopening-client.js";
import type { WarehouseKind } from "./capabilities.js";
import type { ClusterLayout } from "./cluster-ddl.js";

/** Where the log tables live: a ClickHouse server over HTTP, or the embedded engine. */
export type WarehouseConfig =
  | {
      kind: "server";
      /** `CLICKHOUSE_URL`, for example `http://localhost:8123`. */
      url: string;
      /** `CLICKHOUSE_USER`. */
      username: string;
      /** `CLICKHOUSE_PASSWORD`, taken as given. */
      password: string;
      /** `CLICKHOUSE_DATABASE`. */
      database: string;
      /**
       * `CLICKHOUSE_CLUSTER`, when set: the cluster (a name in the
       * server's `remote_servers`) the migrations create replicated, sharded
       * tables on, and whose Distributed tables the queries read.
       */
      cluster?: string;
      /**
       * `CLICKHOUSE_QUERY_CACHE_SECONDS`, when set: cached endpoints use
       * the server's query cache, with `now` rounded down to this many seconds
       * so that service replicas send the same query (docs/deployment.md).
       */
      queryCacheSeconds?: number;
    }
  | {
      kind: "embedded";
      /** `CHDB_PATH`: data directory of the embedded engine. */
      path: string;
      /** `CLICKHOUSE_DATABASE`. */
      database: string;
    };

type EmbeddedConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>["connection"]>;

export interface Warehouse {
  /** The client every query of the process goes through. */
  client: WarehouseClient;
  /** `server` or `embedded`, for logs and for what only one of them can do (capabilities.ts). */
  kind: WarehouseKind;
  /** A human-readable location: the server URL or the data directory. */
  location: string;
  /** Set when the server is a cluster: the tables are replicated and Distributed (cluster-ddl.ts). */
  cluster?: ClusterLayout;
  /** Seconds `now` is rounded to for the server's query cache; 0 or unset: not used. */
  queryCacheSeconds?: number;
  close(): Promise<void>;
}

/**
 * Opens the warehouse the configuration names. On the embedded engine the data
 * directory is created if missing; libchdb allows one directory per process.
 */
export async function openWarehouse(config: WarehouseConfig): Promise<Warehouse> {
  if (config.kind === "embedded") {
    const client = await openEmbedded(config);
    return { client, kind: "embedded", location: resolve(config.path), close: () => client.close() };
  }
  return openServer(config);
}

/**
 * Opens the warehouse for a long-running service: as openWarehouse, but an
 * embedded engine that cannot open (or later breaks) does not throw; calls
 * fail as unreachable and the engine is opened again in the background,
 * every `retryMs` (default 2000).
 */
export async function openResilientWarehouse(
  config: WarehouseConfig,
  logger: Logger,
  options: { retryMs?: number } = {},
): Promise<Warehouse> {
  if (config.kind === "server") return openServer(config);
  const client = createReopeningClient({ open: () => openEmbedded(config), logger, retryMs: options.retryMs });
  return { client, kind: "embedded", location: resolve(config.path), close: () => client.close() };
}

/** A client of a ClickHouse server: no connection is made until the first call. */
function openServer(config: Extract<WarehouseConfig, { kind: "server" }>): Warehouse {
  const client = createClient({
    url: config.url,
    username: config.username,
    password: config.password,
    database: config.database,
    application: "saved-query-endpoints",
    // Deadlines are enforced per query by the executor; this only bounds a
    // request that got no answer at all.
    request_timeout: 120_000,
    // Failures reach the service's own JSON log through the executor.
    log: { level: ClickHouseLogLevel.OFF },
  });
  const cluster = config.cluster === undefined ? undefined : { cluster: config.cluster, database: config.database };
  return {
    client,
    kind: "server",
    location: config.url,
    cluster,
    queryCacheSeconds: config.queryCacheSeconds,
    close: () => client.close(),
  };
}

/**
 * Opens chDB on the configured directory (created if missing); throws when it
 * cannot, DataDirectoryHeldError when another process holds the directory.
 */
async function openEmbedded(config: Extract<WarehouseConfig, { kind: "embedded" }>): Promise<WarehouseClient> {
  const path = resolve(config.path);
  mkdirSync(path, { recursive: true });
  assertDataDirectoryFree(path);
  const connection = createChdbConnection({ path });
  // chdb types the connection against @clickhouse/client-common, which
  // @clickhouse/client 1.23 bundles as its own copy: same shape, other identity.
  const client = createClient({ connection: connection as unknown as EmbeddedConnection });
  if (config.database !== "default") {
    // The embedded session keeps its current database between queries.
    await client.command({
      query: "CREATE DATABASE IF NOT EXISTS {db:Identifier}",
      query_params: { db: config.database },
    });
    await client.command({ query: "USE {db:Identifier}", query_params: { db: config.database } });
  }
  return {
    query: client.query.bind(client),
    command: client.command.bind(client),
    ping: client.ping.bind(client),
    close: client.close.bind(client),
    insert: createEmbeddedInsert({
      // The raw insert runs on the session's one connection, queued there with every other statement.
      rawInsert: (params) => connection.chdb.rawInsert(params),
      fallback: client.insert.bind(client),
    }),
  };
}
