// The names of the nine log tables that log shippers write (docs/log-tables.md).

export const logTables = [
  "edge_logs",
  "function_edge_logs",
  "function_logs",
  "postgres_logs",
  "auth_logs",
  "realtime_logs",
  "storage_logs",
  "postgrest_logs",
  "pgbouncer_logs",
] as const;

export type LogTable = (typeof logTables)[number];

/** Tables where the shipper inserts `project`; elsewhere the schema derives it from `metadata`. */
export const tablesWithProjectColumn: ReadonlySet<LogTable> = new Set([
  "edge_logs",
  "postgres_logs",
  "auth_logs",
  "postgrest_logs",
  "pgbouncer_logs",
]);
