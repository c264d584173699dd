// Splitting migrations into statements, and every saved query having its SQL.
import { describe, expect, it } from "vitest";
import { createEndpointRegistry, savedQueryServices } from "../../src/endpoints/index.js";
import { cursorPlaceholders } from "../../src/endpoints/page-token.js";
import { join } from "node:path";
import { splitStatements, sqlDirectory } from "../../src/warehouse/index.js";

describe("sqlDirectory", () => {
  it("is sql/ at the top of the project, found from the module's own folder", () => {
    expect(sqlDirectory()).toBe(join(import.meta.dirname, "../../sql"));
  });
});

describe("splitStatements", () => {
  it("splits at a semicolon ending a line and drops comment lines", () => {
    const sql =
      "-- header; with a semicolon\nCREATE TABLE a (x String);\n\nCREATE TABLE b\n(\n  y String\n) ;\n-- trailer\n";
    expect(splitStatements(sql)).toEqual(["CREATE TABLE a (x String)", "CREATE TABLE b\n(\n  y String\n)"]);
  });
});

describe("saved query SQL", () => {
  it("exists for every endpoint and takes now as a typed parameter", () => {
    const registry = createEndpointRegistry({ services: savedQueryServices });
    expect(registry.endpoints.map((e) => e.definition.name)).toEqual([
      "functions.invocation-stats",
      "usage.api-counts",
      "usage.api-counts.v2",
      "logs.all",
      "service.call-stats",
    ]);
    for (const endpoint of registry.endpoints) {
      expect(endpoint.savedQuery.sql).toContain("{now:DateTime64(6, 'UTC')}");
      // A page token reaches the SQL as its cursor.
      const placeholders = endpoint.parameters.flatMap((p) => (p.pageSize > 0 ? cursorPlaceholders : [p.name]));
      for (const name of placeholders) expect(endpoint.savedQuery.sql).toContain(`{${name}:`);
    }
  });
});
