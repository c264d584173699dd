// The warehouse: the ClickHouse client (server or embedded), schema migrations,
// the project's SQL files, the demo data set, and rows imported into the log
// tables (each line checked against the contract, all or nothing).
export { openWarehouse, openResilientWarehouse } from "./warehouse-client.js";
export { createReopeningClient, isEmbeddedEngineGone, WarehouseClosedError } from "./reopening-client.js";
export type { WarehouseClient, ReopeningClient } from "./reopening-client.js";
export type { Warehouse, WarehouseConfig } from "./warehouse-client.js";
export { warehouseCapabilities } from "./capabilities.js";
export { DataDirectoryHeldError } from "./data-directory-lock.js";
export { migrate } from "./migrations.js";
export { migrationStatements } from "./cluster-ddl.js";
export { clusterLedgerStatements, createClusterLedger } from "./cluster-ledger.js";
export { sqlDirectory, readSavedQuerySql, readMigrationFiles, splitStatements } from "./sql-files.js";
export type { MigrationFile } from "./sql-files.js";
export { toDateTime64Param } from "./datetime-param.js";
export { readIsoTimestamp } from "./iso-timestamp.js";
export { checkLogLine, defaultMaxDepth, defaultMaxFutureSeconds, latestTimestamp, shippedColumns } from "./log-line.js";
export type { LineBounds, LogLineCheck, RowOwner } from "./log-line.js";
export { deduplicationToken, insertLogRows } from "./log-insert.js";
export type { LogInsert } from "./log-insert.js";
export { boundedLines, createLineSplitter } from "./bounded-lines.js";
export type { LineSplitter, SourceLine } from "./bounded-lines.js";
export {
  checkSourceLine,
  defaultImportBatchSize,
  defaultMaxImportBytes,
  defaultMaxLineBytes,
  defaultMaxRefusedLines,
  importRows,
  maxReportedLines,
} from "./import-rows.js";
export type { ImportRowsOptions } from "./import-rows.js";
export { logTables, tablesWithProjectColumn } from "./log-tables.js";
export type { LogTable } from "./log-tables.js";
export { generateDemoRows, demoProjects } from "./demo-data.js";
export type { ShippedRow } from "./demo-data.js";
export { seedDemoData, ensureDemoData, demoRowCounts, progressLogger } from "./seed.js";
export { keepSchema } from "./schema-keeper.js";
export { createFailureStreak } from "./failure-streak.js";
export { retryWithBackoff } from "./retry-with-backoff.js";
export type { Retrying, RetryOptions } from "./retry-with-backoff.js";
export type { SchemaKeeper } from "./schema-keeper.js";
export { createCallLog, callLogTable, callStatsEndpoint, defaultCallLog } from "./call-log.js";
export type { CallLog, CallLogOptions, CallLogRow, CallProtocol, CacheOutcome } from "./call-log.js";
export { keepCallLogRetention, callLogRetentionStatement } from "./call-log-retention.js";
