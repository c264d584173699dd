// Loads the demo data set into the warehouse, reporting progress as it goes.
// A load replaces what the log tables held and is recorded in
// `demo_data_loads` when it starts and when it completes, so loading twice
// gives the same data (the same ids and rows; timestamps keep their offsets
// from the load time) and a load cut short is found and completed.
import type { WarehouseClient } from "./reopening-client.js";
import type { Logger } from "../observability/index.js";
import { toDateTime64Param } from "./datetime-param.js";
import { demoRowShares, generateDemoRows, type DemoDataOptions } from "./demo-data.js";
import { logTables, type LogTable } from "./log-tables.js";
import { insertLogRows } from "./log-insert.js";

export interface SeedOptions extends DemoDataOptions {
  /** Multiplies the 100,000 rows of the demo set. Default 1. */
  scale?: number;
  /** Called after each inserted batch. Default: nothing. */
  onProgress?: (progress: { table: LogTable; inserted: number; total: number }) => void;
}

/** Rows of each table in the demo set at `scale`. */
export function demoRowCounts(scale: number): Record<LogTable, number> {
  return Object.fromEntries(logTables.map((table) => [table, Math.round(demoRowShares[table] * scale)])) as Record<
    LogTable,
    number
  >;
}

/**
 * Replaces the contents of the nine log tables with the demo rows at
 * `scale`; returns the number of rows inserted.
 */
export async function seedDemoData(client: WarehouseClient, options: SeedOptions): Promise<number> {
  const scale = options.scale ?? 1;
  const counts = demoRowCounts(scale);
  const total = logTables.reduce((sum, table) => sum + counts[table], 0);
  await client.command({ query: "TRUNCATE TABLE demo_data_loads" });
  await recordLoad(client, "started", scale, total);
  for (const table of logTables) await client.command({ query: `TRUNCATE TABLE ${table}` });
  let inserted = 0;
  for (const table of logTables) {
    for (const batch of generateDemoRows(table, counts[table], options)) {
      await insertLogRows(client, { table, values: batch });
      inserted += batch.length;
      options.onProgress?.({ table, inserted, total });
    }
  }
  await recordLoad(client, "completed", scale, inserted);
  return inserted;
}

async function recordLoad(client: WarehouseClient, state: "started" | "completed", scale: number, rows: number) {
  await client.insert({
    table: "demo_data_loads",
    values: [{ state, scale, rows, at: toDateTime64Param(Date.now()) }],
    format: "JSONEachRow",
  });
}

/** The last demo load recorded, if any. */
async function lastLoad(client: WarehouseClient): Promise<{ state: string; scale: number } | undefined> {
  const result = await client.query({
    // A started and a completed row may share a millisecond: completed sorts last.
    query: "SELECT state, scale FROM demo_data_loads ORDER BY at DESC, state = 'completed' DESC LIMIT 1",
    format: "JSONEachRow",
  });
  const [row] = await result.json<{ state: string; scale: number }>();
  return row === undefined ? undefined : { state: row.state, scale: Number(row.scale) };
}

/** The row count of each log table. */
async function tableCounts(client: WarehouseClient): Promise<Record<LogTable, number>> {
  const columns = logTables.map((table) => `(SELECT count() FROM ${table}) AS ${table}`).join(", ");
  const result = await client.query({ query: `SELECT ${columns}`, format: "JSONEachRow" });
  const [row] = await result.json<Record<LogTable, number | string>>();
  return Object.fromEntries(logTables.map((table) => [table, Number(row?.[table] ?? 0)])) as Record<LogTable, number>;
}

/** Whether edge_logs holds the first demo row: data a demo load put there (loads before the record was kept included). */
async function holdsDemoRows(client: WarehouseClient): Promise<boolean> {
  const first = generateDemoRows("edge_logs", 1, { now: 0 }).next().value?.[0];
  const result = await client.query({
    query: "SELECT count() AS n FROM edge_logs WHERE id = {id:String}",
    query_params: { id: first?.id ?? "" },
    format: "JSONEachRow",
  });
  const [row] = await result.json<{ n: number | string }>();
  return Number(row?.n ?? 0) > 0;
}

export interface EnsureDemoDataOptions {
  logger: Logger;
  /** Rows are spread over the days before this instant (ms since epoch). */
  now: number;
  /** Scale of a first load. Default 1. */
  scale?: number;
}

/**
 * At start: loads the demo data into empty log tables, and completes a demo
 * load that was cut short (recorded as started but not completed, or demo
 * rows short of the set from before loads were recorded). Leaves alone a
 * completed load and log tables holding other data than the demo set.
 * Returns what it did.
 */
export async function ensureDemoData(
  client: WarehouseClient,
  options: EnsureDemoDataOptions,
): Promise<"loaded" | "completed" | "kept"> {
  const { logger, now } = options;
  const last = await lastLoad(client);
  if (last?.state === "completed") return "kept";
  let scale = options.scale ?? 1;
  const counts = await tableCounts(client);
  const empty = logTables.every((table) => counts[table] === 0);
  if (last?.state === "started") {
    scale = last.scale;
    logger.warn("a demo data load was cut short; loading the demo data again", { scale, rows: counts });
  } else if (!empty) {
    if (!(await holdsDemoRows(client))) return "kept"; // the operator's own logs
    const expected = demoRowCounts(scale);
    if (logTables.every((table) => counts[table] === expected[table])) {
      await recordLoad(
        client,
        "completed",
        scale,
        Object.values(counts).reduce((a, b) => a + b, 0),
      );
      return "kept";
    }
    logger.warn("a demo data load was cut short; loading the demo data again", { scale, rows: counts });
  } else {
    logger.info("loading demo data into the empty embedded warehouse (DEMO_DATA=0 disables)");
  }
  const rows = await seedDemoData(client, { now, scale, onProgress: progressLogger(logger) });
  logger.info("demo data loaded", { rows });
  return empty ? "loaded" : "completed";
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
