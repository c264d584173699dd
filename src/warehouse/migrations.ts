// Applies `sql/migrations` to the warehouse, each file exactly once, recorded
// in a `schema_migrations` table (the same on a server and on the embedded engine).
import { createHash } from "node:crypto";
import type { WarehouseClient } from "./reopening-client.js";
import { silentLogger, type Clock, type Logger, systemClock } from "../observability/index.js";
import { readMigrationFiles, splitStatements, type MigrationFile } from "./sql-files.js";
import { toDateTime64Param } from "./datetime-param.js";

export interface MigrateOptions {
  /** Migrations to apply. Default: the files of `sql/migrations`. */
  migrations?: MigrationFile[];
  /** Default: silent. */
  logger?: Logger;
  /** Default: the system clock; only the `applied_at` record uses it. */
  clock?: Clock;
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

  await client.command({ query: createLedger });
  const done = await client.query({
    query: "SELECT name, any(checksum) AS checksum FROM schema_migrations GROUP BY name",
    format: "JSONEachRow",
  });
  const recorded = new Map((await done.json<{ name: string; checksum: string }>()).map((r) => [r.name, r.checksum]));

  const result: MigrateResult = { applied: [], skipped: [] };
  for (const migration of migrations) {
    const checksum = createHash("sha256").update(migration.sql).digest("hex");
    const previous = recorded.get(migration.name);
    if (previous !== undefined) {
      if (previous !== checksum) {
        logger.warn("migration changed after it was applied; add a new migration instead", {
          migration: migration.name,
        });
      }
      result.skipped.push(migration.name);
      continue;
    }
    for (const statement of splitStatements(migration.sql)) {
      await client.command({ query: statement });
    }
    await client.insert({
      table: "schema_migrations",
      values: [{ name: migration.name, checksum, applied_at: toDateTime64Param(clock()) }],
      format: "JSONEachRow",
    });
    logger.info("migration applied", { migration: migration.name });
    result.applied.push(migration.name);
  }
  return result;
}
