// What of the cluster mode can be checked on the embedded engine: every
// statement it would run parses with ClickHouse's own parser. (Running them
// needs a cluster with Keeper: cluster.test.ts, under CLICKHOUSE_CLUSTER.)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  clusterLedgerStatements,
  migrationStatements,
  openWarehouse,
  readMigrationFiles,
  type Warehouse,
} from "../../../src/warehouse/index.js";

const layout = { cluster: "logs", database: "analytics" };
const statements = [
  ...clusterLedgerStatements(layout),
  ...readMigrationFiles().flatMap((file) => migrationStatements(file, layout)),
];

let directory: string;
let warehouse: Warehouse;
beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "sqe-cluster-ddl-"));
  warehouse = await openWarehouse({ kind: "embedded", path: directory, database: "default" });
});
afterAll(async () => {
  await warehouse?.close();
  rmSync(directory, { recursive: true, force: true });
});

describe("cluster DDL on ClickHouse's parser", () => {
  it.each(statements.map((s) => [s.split("\n")[0]!.slice(0, 90), s] as const))("parses %s", async (_, statement) => {
    const result = await warehouse.client.query({
      query: "SELECT formatQuery({statement:String}) AS formatted",
      query_params: { statement },
      format: "JSONEachRow",
    });
    const [row] = await result.json<{ formatted: string }>();
    const formatted = row!.formatted;
    // Parsed as written: the cluster clause and the engine survive formatting.
    expect(formatted).toContain("ON CLUSTER logs");
    if (statement.includes("ENGINE = "))
      expect(formatted).toContain(statement.slice(statement.indexOf("ENGINE = ")).split("\n")[0]);
  });
});
