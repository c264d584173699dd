// Loads the demo data set into the warehouse, reporting progress as it goes.
import type { ClickHouseClient } from "@clickhouse/client";
import { demoRowShares, generateDemoRows, type DemoDataOptions } from "./demo-data.js";
import { logTables, type LogTable } from "./log-tables.js";

export interface SeedOptions extends DemoDataOptions {
  /** Multiplies the 100,000 rows of the demo set. Default 1. */
  scale?: number;
  /** Called after each inserted batch. Default: nothing. */
  onProgress?: (progress: { table: LogTable; inserted: number; total: number }) => void;
}

/** Inserts the demo rows into all nine tables; returns the number of rows inserted. */
export async function seedDemoData(client: ClickHouseClient, options: SeedOptions): Promise<number> {
  const scale = options.scale ?? 1;
  const total = logTables.reduce((sum, table) => sum + Math.round(demoRowShares[table] * scale), 0);
  let inserted = 0;
  for (const table of logTables) {
    for (const batch of generateDemoRows(table, Math.round(demoRowShares[table] * scale), options)) {
      await client.insert({ table, values: batch, format: "JSONEachRow" });
      inserted += batch.length;
      options.onProgress?.({ table, inserted, total });
    }
  }
  return inserted;
}

/** True when none of the nine log tables holds a row. */
export async function logTablesAreEmpty(client: ClickHouseClient): Promise<boolean> {
  const counts = logTables.map((table) => `(SELECT count() FROM ${table})`).join(" + ");
  const result = await client.query({ query: `SELECT ${counts} AS rows`, format: "JSONEachRow" });
  const [row] = await result.json<{ rows: number | string }>();
  return Number(row?.rows ?? 0) === 0;
}
