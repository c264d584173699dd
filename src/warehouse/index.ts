// The warehouse: the ClickHouse client (server or embedded), schema migrations,
// the project's SQL files and the demo data set.
export { openWarehouse, openResilientWarehouse } from "./warehouse-client.js";
export { createReopeningClient, isEmbeddedEngineGone, WarehouseClosedError } from "./reopening-client.js";
export type { WarehouseClient, ReopeningClient, ReopeningClientOptions } from "./reopening-client.js";
export type { Warehouse } from "./warehouse-client.js";
export { DataDirectoryHeldError, dataDirectoryHolder } from "./data-directory-lock.js";
export { migrate } from "./migrations.js";
export { clusterStatements, migrationStatements, localTableSuffix, shardingKey } from "./cluster-ddl.js";
export type { ClusterLayout } from "./cluster-ddl.js";
export { clusterLedgerStatements, createClusterLedger } from "./cluster-ledger.js";
export type { ClusterLedger, ClusterLedgerOptions } from "./cluster-ledger.js";
export type { MigrateOptions, MigrateResult } from "./migrations.js";
export { sqlDirectory, readSavedQuerySql, readMigrationFiles, splitStatements } from "./sql-files.js";
export type { MigrationFile } from "./sql-files.js";
export { toDateTime64Param } from "./datetime-param.js";
export { logTables, tablesWithProjectColumn } from "./log-tables.js";
export type { LogTable } from "./log-tables.js";
export { generateDemoRows, demoProjects, demoFunctions, demoRowShares } from "./demo-data.js";
export type { ShippedRow, DemoDataOptions } from "./demo-data.js";
export { seedDemoData, ensureDemoData, demoRowCounts, progressLogger } from "./seed.js";
export type { SeedOptions, EnsureDemoDataOptions } from "./seed.js";
export { keepSchema } from "./schema-keeper.js";
export { createFailureStreak } from "./failure-streak.js";
export type { FailureStreak, FailedTry } from "./failure-streak.js";
export { retryWithBackoff, defaultMaxRetryMs } from "./retry-with-backoff.js";
export type { Retrying, RetryOptions } from "./retry-with-backoff.js";
export type { SchemaKeeper, SchemaKeeperOptions } from "./schema-keeper.js";
