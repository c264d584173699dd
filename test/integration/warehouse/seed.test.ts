// The demo data set on the embedded engine: seeding replaces rather than
// appends, and a load cut short is found and completed at start.
import { beforeEach, afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/observability/index.js";
import {
  demoRowCounts,
  ensureDemoData,
  generateDemoRows,
  logTables,
  seedDemoData,
  type LogTable,
  type Warehouse,
} from "../../../src/warehouse/index.js";
import { edgeRow, insertRows, openTestWarehouse, ts } from "../../support/embedded-warehouse.js";

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
// 1% of the set: 400 edge_logs rows down to 30 pgbouncer_logs rows, 1,000 in all.
const scale = 0.01;

let warehouse: Warehouse;
beforeAll(async () => {
  warehouse = await openTestWarehouse();
});
afterAll(async () => warehouse?.close());
beforeEach(async () => {
  for (const table of [...logTables, "demo_data_loads"])
    await warehouse.client.command({ query: `TRUNCATE TABLE ${table}` });
});

async function rows<T>(query: string): Promise<T[]> {
  return (await warehouse.client.query({ query, format: "JSONEachRow" })).json<T>();
}

/** Rows and distinct ids of each table. */
async function census(): Promise<Record<string, { rows: number; ids: number }>> {
  const result: Record<string, { rows: number; ids: number }> = {};
  for (const table of logTables) {
    const [row] = await rows<{ rows: string | number; ids: string | number }>(
      `SELECT count() AS rows, uniqExact(id) AS ids FROM ${table}`,
    );
    result[table] = { rows: Number(row!.rows), ids: Number(row!.ids) };
  }
  return result;
}

/** The census a complete load at `s` gives: every row once. */
function complete(s: number) {
  const counts = demoRowCounts(s);
  return Object.fromEntries(logTables.map((t) => [t, { rows: counts[t], ids: counts[t] }]));
}

describe("seedDemoData", () => {
  it("shares out 1,000 rows at scale 0.01 as 40/20/10/8/6/4/4/5/3 per cent", () => {
    expect(demoRowCounts(scale)).toEqual({
      edge_logs: 400,
      function_edge_logs: 200,
      function_logs: 100,
      postgres_logs: 80,
      auth_logs: 60,
      realtime_logs: 40,
      storage_logs: 40,
      postgrest_logs: 50,
      pgbouncer_logs: 30,
    });
  });

  it("gives the same ids and counts when run twice, with no id twice", async () => {
    await seedDemoData(warehouse.client, { now: NOW, scale });
    const first = await rows<{ id: string }>("SELECT id FROM edge_logs ORDER BY id");
    await seedDemoData(warehouse.client, { now: NOW + 3_600_000, scale });
    expect(await census()).toEqual(complete(scale));
    expect(await rows<{ id: string }>("SELECT id FROM edge_logs ORDER BY id")).toEqual(first);
  });

  it("replaces the set when run with another scale", async () => {
    await seedDemoData(warehouse.client, { now: NOW, scale: 0.02 });
    await seedDemoData(warehouse.client, { now: NOW, scale });
    expect(await census()).toEqual(complete(scale));
  });
});

describe("ensureDemoData", () => {
  const ensure = () => ensureDemoData(warehouse.client, { logger: silentLogger, now: NOW, scale });

  it("loads the set into empty log tables, then leaves it alone", async () => {
    expect(await ensure()).toBe("loaded");
    expect(await census()).toEqual(complete(scale));
    expect(await ensure()).toBe("kept");
    expect(await census()).toEqual(complete(scale));
  });

  it("completes a load that stopped after its first edge_logs batch, before the record of loads existed", async () => {
    const [batch] = generateDemoRows("edge_logs", 120, { now: NOW }, 100);
    await insertRows(warehouse, "edge_logs", batch!);
    expect(await ensure()).toBe("completed");
    expect(await census()).toEqual(complete(scale));
  });

  it("completes a recorded load at the scale it started with", async () => {
    const started = demoRowCounts(0.02);
    await warehouse.client.insert({
      table: "demo_data_loads",
      values: [{ state: "started", scale: 0.02, rows: 2_000, at: "2026-11-20 11:00:00.000" }],
      format: "JSONEachRow",
    });
    const [batch] = generateDemoRows("edge_logs", started.edge_logs, { now: NOW });
    await insertRows(warehouse, "edge_logs", batch!);
    expect(await ensure()).toBe("completed");
    expect(await census()).toEqual(complete(0.02));
  });

  it("records a complete load from before the record of loads without loading it again", async () => {
    for (const table of logTables) {
      for (const batch of generateDemoRows(table as LogTable, demoRowCounts(scale)[table as LogTable], { now: NOW }))
        await insertRows(warehouse, table as LogTable, batch);
    }
    expect(await ensure()).toBe("kept");
    expect(await rows<{ state: string }>("SELECT state FROM demo_data_loads")).toEqual([{ state: "completed" }]);
    expect(await census()).toEqual(complete(scale));
  });

  it("leaves log tables holding other data than the demo set alone", async () => {
    await insertRows(warehouse, "edge_logs", [edgeRow({ project: "mine", timestamp: ts(NOW - 60_000) })]);
    expect(await ensure()).toBe("kept");
    const counts = await census();
    expect(counts.edge_logs).toEqual({ rows: 1, ids: 1 });
    expect(counts.function_edge_logs).toEqual({ rows: 0, ids: 0 });
  });
});
