// Applies `sql/migrations` to the warehouse, each file exactly once, recorded
// in a `schema_migrations` table (the same on a server and on the embedded
// engine). On a cluster the same files are applied ON CLUSTER (cluster-ddl.ts)
// and recorded cluster-wide (cluster-ledger.ts).
import { createHash } from "node:crypto";
import type { WarehouseClient } from "./reopening-client.js";
import { silentLogger, type Clock, type Logger, systemClock } from "../observability/index.js";
import { readMigrationFiles, type MigrationFile } from "./sql-files.js";
import { toDateTime64Param } from "./datetime-param.js";
import { migrationStatements } from "./cluster-ddl.js";
import { keepCallLogRetention } from "./call-log-retention.js";
import { clusterLedgerStatements, createClusterLedger, type ClusterLedgerOptions } from "./cluster-ledger.js";

export interface MigrateOptions {
  /** Migrations to apply. Default: the files of `sql/migrations`. */
  migrations?: MigrationFile[];
  /** Default: silent. */
  logger?: Logger;
  /** Default: the system clock; only the `applied_at` record uses it. */
  clock?: Clock;
  /**
   * Apply on this cluster: ON CLUSTER, replicated local tables behind
   * Distributed ones, one process applying each migration. Default: a single node.
   */
  cluster?: ClusterLedgerOptions;
  /** `CALL_LOG_RETENTION_DAYS`: the TTL of the call log tables, set where it differs. Default: left as it is. */
  callLogRetentionDays?: number;
}

export interface MigrateResult {
  /** Names applied by this run, in order. */
  applied: string[];
  /** Names that were applied by an earlier run. */
  skipped: string[];
}

const createLedger = `
CREATE TABLE IF NOT EXISTS schema_migrations
(
    name       String,
    checksum   String,
    applied_at DateTime64(3, 'UTC')
)
ENGINE = MergeTree
ORDER BY name`;

/**
 * Creates or updates the schema. Idempotent: a migration recorded as applied
 * is skipped; one whose text changed since is reported, not run again.
 */
export async function migrate(client: WarehouseClient, options: MigrateOptions = {}): Promise<MigrateResult> {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const migrations = options.migrations ?? readMigrationFiles();

  const cluster =
    options.cluster === undefined ? undefined : createClusterLedger(client, { ...options.cluster, clock, logger });

  for (const statement of options.cluster === undefined ? [createLedger] : clusterLedgerStatements(options.cluster)) {
    await client.command({ query: statement });
  }
  const done = await client.query({
    query: "SELECT name, any(checksum) AS checksum FROM schema_migrations GROUP BY name",
    format: "JSONEachRow",
  });
  const recorded = new Map((await done.json<{ name: string; checksum: string }>()).map((r) => [r.name, r.checksum]));

  // Every migration transformed up front: one the cluster mode cannot run fails before anything ran.
  const planned = migrations.map((migration) => ({
    ...migration,
    statements: migrationStatements(migration, options.cluster),
  }));
  const result: MigrateResult = { applied: [], skipped: [] };
  for (const migration of planned) {
    const checksum = createHash("sha256").update(migration.sql).digest("hex");
    const previous = recorded.get(migration.name);
    if (previous !== undefined) {
      if (previous !== checksum && !(migration.earlierChecksums ?? []).includes(previous)) {
        logger.warn("migration changed after it was applied; add a new migration instead", {
          migration: migration.name,
        });
      }
      result.skipped.push(migration.name);
      continue;
    }
    if (cluster !== undefined && !(await cluster.claim(migration.name))) {
      logger.info("migration applied by another process", { migration: migration.name });
      result.skipped.push(migration.name);
      continue;
    }
    for (const statement of migration.statements) {
      await client.command({ query: statement });
    }
    if (cluster !== undefined) {
      await cluster.record(migration.name, checksum);
    } else {
      await client.insert({
        table: "schema_migrations",
        values: [{ name: migration.name, checksum, applied_at: toDateTime64Param(clock()) }],
        format: "JSONEachRow",
      });
    }
    logger.info("migration applied", { migration: migration.name });
    result.applied.push(migration.name);
  }
  if (options.callLogRetentionDays !== undefined) {
    if (await keepCallLogRetention(client, options.callLogRetentionDays, options.cluster)) {
      logger.info("call log retention set", { days: options.callLogRetentionDays });
    }
  }
  return result;
}
