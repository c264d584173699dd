// Loads the demo data set into the warehouse, reporting progress as it goes.
import type { WarehouseClient } from "./reopening-client.js";
import type { Logger } from "../observability/index.js";
import { demoRowShares, generateDemoRows, type DemoDataOptions } from "./demo-data.js";
import { logTables, type LogTable } from "./log-tables.js";

export interface SeedOptions extends DemoDataOptions {
  /** Multiplies the 100,000 rows of the demo set. Default 1. */
  scale?: number;
  /** Called after each inserted batch. Default: nothing. */
  onProgress?: (progress: { table: LogTable; inserted: number; total: number }) => void;
}

/** Inserts the demo rows into all nine tables; returns the number of rows inserted. */
export async function seedDemoData(client: WarehouseClient, options: SeedOptions): Promise<number> {
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
export async function logTablesAreEmpty(client: WarehouseClient): Promise<boolean> {
  const counts = logTables.map((table) => `(SELECT count() FROM ${table})`).join(" + ");
  const result = await client.query({ query: `SELECT ${counts} AS rows`, format: "JSONEachRow" });
  const [row] = await result.json<{ rows: number | string }>();
  return Number(row?.rows ?? 0) === 0;
}

/** Loads the demo data when the log tables are empty; logs progress at every tenth. */
export async function seedDemoDataIfEmpty(client: WarehouseClient, logger: Logger, now: number): Promise<void> {
  if (!(await logTablesAreEmpty(client))) return;
  logger.info("loading demo data into the empty embedded warehouse (DEMO_DATA=0 disables)");
  const rows = await seedDemoData(client, { now, onProgress: progressLogger(logger) });
  logger.info("demo data loaded", { rows });
}

/** Logs seeding progress at every tenth of the way. */
export function progressLogger(logger: Logger) {
  let lastTenth = -1;
  return ({ table, inserted, total }: { table: string; inserted: number; total: number }) => {
    const tenth = Math.floor((inserted / total) * 10);
    if (tenth === lastTenth) return;
    lastTenth = tenth;
    logger.info("seeding", { percent: tenth * 10, inserted, total, table });
  };
}
