// The schema on the embedded engine: migrations applied once and recorded,
// derived columns filled at insert, one-project reads pruned by the sort key.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { createLogger } from "../../../src/observability/index.js";
import {
  logTables,
  migrate,
  readMigrationFiles,
  type MigrationFile,
  type Warehouse,
} from "../../../src/warehouse/index.js";
import { edgeRow, functionEdgeRow, insertRows, openTestWarehouse, ts } from "../../support/embedded-warehouse.js";

let warehouse: Warehouse;
beforeAll(async () => {
  warehouse = await openTestWarehouse(); // already migrated once
});
afterAll(async () => warehouse?.close());

async function select<T>(query: string, query_params: Record<string, unknown> = {}): Promise<T[]> {
  const result = await warehouse.client.query({ query, query_params, format: "JSONEachRow" });
  return result.json<T>();
}

describe("migrations", () => {
  it("creates the nine log tables", async () => {
    const tables = await select<{ name: string }>("SELECT name FROM system.tables WHERE database = currentDatabase()");
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining([...logTables, "schema_migrations"]));
  });

  it("skips what was applied and applies a new migration exactly once", async () => {
    const files = readMigrationFiles();
    const again = await migrate(warehouse.client);
    expect(again).toEqual({ applied: [], skipped: files.map((f) => f.name) });

    const added = [
      ...files,
      { name: "9999_test_column.sql", sql: "ALTER TABLE pgbouncer_logs ADD COLUMN note String;" },
    ];
    expect((await migrate(warehouse.client, { migrations: added })).applied).toEqual(["9999_test_column.sql"]);
    // A second run would fail on the duplicate column if it ran the file again.
    expect((await migrate(warehouse.client, { migrations: added })).applied).toEqual([]);
    const recorded = await select<{ n: number }>(
      "SELECT count() AS n FROM schema_migrations WHERE name = '9999_test_column.sql'",
    );
    expect(recorded).toEqual([{ n: 1 }]);
  });

  it("warns of a changed migration unless the text it was applied as is listed as an earlier text of it", async () => {
    const files = readMigrationFiles();
    const first = {
      name: "9998_comment.sql",
      sql: "-- version one\nALTER TABLE pgbouncer_logs ADD COLUMN IF NOT EXISTS remark String;",
    };
    await migrate(warehouse.client, { migrations: [...files, first] });
    const warnings = async (migration: MigrationFile) => {
      const lines: string[] = [];
      await migrate(warehouse.client, {
        migrations: [...files, migration],
        logger: createLogger({ write: (line) => lines.push(line) }),
      });
      return lines.filter((line) => line.includes("migration changed after it was applied")).length;
    };
    const edited = { ...first, sql: first.sql.replace("version one", "version two") };
    expect(await warnings(edited)).toBe(1);
    expect(
      await warnings({ ...edited, earlierChecksums: [createHash("sha256").update(first.sql).digest("hex")] }),
    ).toBe(0);
    // The files as they are: every amended migration lists the text it was applied as.
    expect(await warnings(first)).toBe(0);
  });

  it("names the texts the amended migrations 0001 and 0003 were first applied as", () => {
    // 0001 and 0003 as first applied (before their comments were edited), hashed independently with sha256sum.
    const files = readMigrationFiles();
    expect(files.find((f) => f.name === "0001_log_tables.sql")!.earlierChecksums).toEqual([
      "5e739365ee49ed8ee78efd5ff56a54d0071dc996c571267c16ba2ce7949dd94e",
    ]);
    expect(files.find((f) => f.name === "0003_edge_logs_api_areas.sql")!.earlierChecksums).toEqual([
      "d13384f2363bc6e806bf5924239c423cd0c729d206e61480862752c57f777bae",
    ]);
  });
});

describe("derived columns", () => {
  it("fills edge_logs path, URL and status from metadata at insert", async () => {
    const row = edgeRow({ project: "derive", path: "/storage/v1/x", status: 503, timestamp: ts(Date.UTC(2026, 0, 1)) });
    await insertRows(warehouse, "edge_logs", [row]);
    const [derived] = await select(
      "SELECT request_path, request_url, status_code FROM edge_logs WHERE id = {id:String}",
      {
        id: row.id,
      },
    );
    expect(derived).toEqual({
      request_path: "/storage/v1/x",
      request_url: "https://derive.supabase.co/storage/v1/x",
      status_code: 503,
    });
  });

  it.each([
    ["/rest/v1/todos", 0b0001],
    ["/storage/v1/object/realtime.png", 0b1010], // storage and realtime
    ["/rest/v1/rpc/auth_refresh", 0b0101], // rest and auth
    ["/graphql/v1", 0],
  ])(
    "marks the API areas %s contains in request_api_areas (bits rest, storage, auth, realtime)",
    async (path, bits) => {
      const row = edgeRow({ project: "areas", path, timestamp: ts(Date.UTC(2026, 0, 1)) });
      await insertRows(warehouse, "edge_logs", [row]);
      const derived = await select("SELECT request_api_areas FROM edge_logs WHERE id = {id:String}", { id: row.id });
      expect(derived).toEqual([{ request_api_areas: bits }]);
    },
  );

  it("fills request_api_areas for rows shipped before the migration that added it", async () => {
    const [before, after] = partitionMigrations("0003_edge_logs_api_areas.sql");
    const row = edgeRow({ project: "older", path: "/auth/v1/realtime", timestamp: ts(Date.UTC(2026, 0, 1)) });
    await warehouse.client.command({ query: "CREATE DATABASE older_rows" });
    await warehouse.client.command({ query: "USE older_rows" });
    try {
      await migrate(warehouse.client, { migrations: before });
      await insertRows(warehouse, "edge_logs", [row]);
      expect((await migrate(warehouse.client, { migrations: [...before, ...after] })).applied[0]).toBe(
        "0003_edge_logs_api_areas.sql",
      );
      // Once the mutation has run the part holds the column; before, ClickHouse computes it on read.
      await warehouse.client.command({ query: "OPTIMIZE TABLE edge_logs FINAL" });
      const derived = await select("SELECT request_api_areas FROM edge_logs WHERE id = {id:String}", { id: row.id });
      expect(derived).toEqual([{ request_api_areas: 0b1100 }]); // auth and realtime
    } finally {
      await warehouse.client.command({ query: "USE default" });
    }
  });

  it("fills function_edge_logs project, function, execution time and status from metadata", async () => {
    const row = functionEdgeRow({
      project: "derivefn",
      functionId: "fn-1",
      timestamp: ts(Date.UTC(2026, 0, 1)),
      executionTimeMs: 12.5,
      status: 201,
    });
    await insertRows(warehouse, "function_edge_logs", [row]);
    const [derived] = await select(
      "SELECT project, function_id, execution_time_ms, status_code FROM function_edge_logs WHERE id = {id:String}",
      { id: row.id },
    );
    expect(derived).toEqual({ project: "derivefn", function_id: "fn-1", execution_time_ms: 12.5, status_code: 201 });
  });

  it.each([
    ["function_logs", { project_ref: "p-fl" }, "p-fl"],
    ["realtime_logs", { project: "p-rt" }, "p-rt"],
    ["storage_logs", { project: "p-st" }, "p-st"],
  ] as const)("derives %s.project from metadata", async (table, metadata, project) => {
    const id = `derive-${table}`;
    await insertRows(warehouse, table, [
      { id, timestamp: ts(Date.UTC(2026, 0, 1)), event_message: "m", metadata: JSON.stringify([metadata]) },
    ]);
    const rows = await select(`SELECT project FROM {table:Identifier} WHERE id = {id:String}`, { table, id });
    expect(rows).toEqual([{ project }]);
  });
});

/** The migration files before `name`, and `name` with those after it. */
function partitionMigrations(name: string) {
  const files = readMigrationFiles();
  const at = files.findIndex((f) => f.name === name);
  expect(at).toBeGreaterThan(0);
  return [files.slice(0, at), files.slice(at)] as const;
}

describe("sort keys", () => {
  it("reads only the asked project's granules of edge_logs", async () => {
    // 20 projects x 10,000 rows: with index_granularity 8192 each project has its own granules.
    const rows = [];
    for (let p = 0; p < 20; p++) {
      for (let i = 0; i < 10_000; i++) {
        rows.push(edgeRow({ project: `sort${String(p).padStart(2, "0")}`, timestamp: ts(Date.UTC(2026, 5, 1) + i) }));
      }
    }
    await insertRows(warehouse, "edge_logs", rows);
    await warehouse.client.command({ query: "OPTIMIZE TABLE edge_logs FINAL" });
    const [plan] = await select<{ explain: string }>(
      "EXPLAIN indexes = 1 SELECT count() FROM edge_logs WHERE project = 'sort07'",
    ).then((r) => [r.map((l) => l.explain).join("\n")]);
    const primaryKey = plan!.slice(plan!.indexOf("PrimaryKey"));
    const [, selected, total] = /Granules: (\d+)\/(\d+)/.exec(primaryKey) ?? [];
    // One project is a twentieth of the table: it may touch a boundary granule on each side.
    expect(Number(total)).toBeGreaterThanOrEqual(25);
    expect(Number(selected)).toBeLessThanOrEqual(3);
  });
});
