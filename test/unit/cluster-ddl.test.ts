// The DDL each mode applies, statement by statement: the migration files as
// written on a single node, and their ON CLUSTER transformation.
import { describe, expect, it } from "vitest";
import {
  clusterLedgerStatements,
  logTables,
  migrationStatements,
  readMigrationFiles,
  type MigrationFile,
} from "../../src/warehouse/index.js";

const layout = { cluster: "logs", database: "analytics" };

function migration(name: string): MigrationFile {
  const found = readMigrationFiles().find((m) => m.name === name);
  if (found === undefined) throw new Error(`no migration ${name}`);
  return found;
}

const edgeLogsColumns = `
    id            String,
    timestamp     DateTime64(6, 'UTC'),
    event_message String,
    project       String,
    metadata      String,
    request_path  String MATERIALIZED JSONExtractString(metadata, 1, 'request', 1, 'path'),
    request_url   String MATERIALIZED JSONExtractString(metadata, 1, 'request', 1, 'url'),
    status_code   UInt16 MATERIALIZED JSONExtract(metadata, 1, 'response', 1, 'status_code', 'UInt16')
`;

const functionEdgeLogsColumns = `
    id                String,
    timestamp         DateTime64(6, 'UTC'),
    event_message     String,
    metadata          String,
    project           String  MATERIALIZED JSONExtractString(metadata, 1, 'project_ref'),
    function_id       String  MATERIALIZED JSONExtractString(metadata, 1, 'function_id'),
    execution_time_ms Float64 MATERIALIZED JSONExtract(metadata, 1, 'execution_time_ms', 'Float64'),
    status_code       UInt16  MATERIALIZED JSONExtract(metadata, 1, 'response', 1, 'status_code', 'UInt16')
`;

const apiAreasColumn = `ADD COLUMN IF NOT EXISTS request_api_areas UInt8 MATERIALIZED
    (position(request_path, '/rest') > 0)
    + 2 * (position(request_path, '/storage') > 0)
    + 4 * (position(request_path, '/auth') > 0)
    + 8 * (position(request_path, '/realtime') > 0)`;

describe("single-node DDL", () => {
  it("is each migration's statements as written, in order", () => {
    const log = migrationStatements(migration("0001_log_tables.sql"));
    expect(log).toHaveLength(9);
    expect(log.map((s) => s.split("\n")[0])).toEqual(logTables.map((t) => `CREATE TABLE IF NOT EXISTS ${t}`));
    expect(log[0]).toBe(
      `CREATE TABLE IF NOT EXISTS edge_logs\n(${edgeLogsColumns})\nENGINE = MergeTree\nPARTITION BY toDate(timestamp)\nORDER BY (project, timestamp)`,
    );
    expect(migrationStatements(migration("0002_edge_logs_url_index.sql"))).toEqual([
      "ALTER TABLE edge_logs ADD INDEX IF NOT EXISTS request_url_ngrams request_url TYPE ngrambf_v1(4, 8192, 3, 0) GRANULARITY 1",
      "ALTER TABLE edge_logs MATERIALIZE INDEX request_url_ngrams",
    ]);
    expect(migrationStatements(migration("0003_edge_logs_api_areas.sql"))).toEqual([
      `ALTER TABLE edge_logs ${apiAreasColumn}`,
      "ALTER TABLE edge_logs MATERIALIZE COLUMN request_api_areas",
    ]);
  });
});

describe("cluster DDL", () => {
  const log = migrationStatements(migration("0001_log_tables.sql"), layout);

  it("creates a replicated local table and a Distributed table under the same name for each of the nine tables", () => {
    expect(log).toHaveLength(18);
    expect(log.map((s) => s.split("\n")[0])).toEqual(
      logTables.flatMap((t) => [
        `CREATE TABLE IF NOT EXISTS analytics.${t}_local ON CLUSTER logs`,
        `CREATE TABLE IF NOT EXISTS analytics.${t} ON CLUSTER logs`,
      ]),
    );
  });

  it("writes edge_logs as ReplicatedMergeTree per shard and Distributed by a hash of the inserted project", () => {
    expect(log[0]).toBe(
      `CREATE TABLE IF NOT EXISTS analytics.edge_logs_local ON CLUSTER logs\n(${edgeLogsColumns})\n` +
        `ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/edge_logs_local', '{replica}')\n` +
        "PARTITION BY toDate(timestamp)\nORDER BY (project, timestamp)",
    );
    expect(log[1]).toBe(
      `CREATE TABLE IF NOT EXISTS analytics.edge_logs ON CLUSTER logs\n(${edgeLogsColumns})\n` +
        "ENGINE = Distributed(logs, analytics, edge_logs_local, cityHash64(project))",
    );
  });

  it("gives function_edge_logs' Distributed table the MATERIALIZED project it shards by", () => {
    expect(log[2]).toBe(
      `CREATE TABLE IF NOT EXISTS analytics.function_edge_logs_local ON CLUSTER logs\n(${functionEdgeLogsColumns})\n` +
        `ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/function_edge_logs_local', '{replica}')\n` +
        "PARTITION BY toDate(timestamp)\nORDER BY (project, function_id, timestamp)",
    );
    expect(log[3]).toBe(
      `CREATE TABLE IF NOT EXISTS analytics.function_edge_logs ON CLUSTER logs\n(${functionEdgeLogsColumns})\n` +
        "ENGINE = Distributed(logs, analytics, function_edge_logs_local, cityHash64(project))",
    );
  });

  it.each(logTables.map((table, i) => [table, i] as const))(
    "gives %s's two tables the same columns, its ZooKeeper path and the project hash",
    (table, i) => {
      const local = log[2 * i]!;
      const distributed = log[2 * i + 1]!;
      const columnsOf = (s: string) => s.slice(s.indexOf("\n("), s.indexOf("\n)") + 2);
      expect(columnsOf(local)).toBe(columnsOf(distributed));
      expect(columnsOf(local)).toMatch(/\n {4}project +String/);
      expect(local).toContain(
        `\nENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/${table}_local', '{replica}')\n`,
      );
      expect(distributed.endsWith(`\nENGINE = Distributed(logs, analytics, ${table}_local, cityHash64(project))`)).toBe(
        true,
      );
    },
  );

  it("adds and builds the URL index on the local tables only", () => {
    expect(migrationStatements(migration("0002_edge_logs_url_index.sql"), layout)).toEqual([
      "ALTER TABLE analytics.edge_logs_local ON CLUSTER logs ADD INDEX IF NOT EXISTS request_url_ngrams request_url TYPE ngrambf_v1(4, 8192, 3, 0) GRANULARITY 1",
      "ALTER TABLE analytics.edge_logs_local ON CLUSTER logs MATERIALIZE INDEX request_url_ngrams",
    ]);
  });

  it("adds a MATERIALIZED column to the local tables, then to the Distributed table, and fills it on the local tables", () => {
    expect(migrationStatements(migration("0003_edge_logs_api_areas.sql"), layout)).toEqual([
      `ALTER TABLE analytics.edge_logs_local ON CLUSTER logs ${apiAreasColumn}`,
      `ALTER TABLE analytics.edge_logs ON CLUSTER logs ${apiAreasColumn}`,
      "ALTER TABLE analytics.edge_logs_local ON CLUSTER logs MATERIALIZE COLUMN request_api_areas",
    ]);
  });

  it("drops a column from the Distributed table before the local tables", () => {
    const drop = { name: "9999_drop.sql", sql: "ALTER TABLE auth_logs DROP COLUMN IF EXISTS note;\n" };
    expect(migrationStatements(drop, layout)).toEqual([
      "ALTER TABLE analytics.auth_logs ON CLUSTER logs DROP COLUMN IF EXISTS note",
      "ALTER TABLE analytics.auth_logs_local ON CLUSTER logs DROP COLUMN IF EXISTS note",
    ]);
  });

  it("keeps a table without a project column whole on every node, replicated and not sharded", () => {
    const migration = {
      name: "0099_x.sql",
      sql: "CREATE TABLE IF NOT EXISTS demo_data_loads\n(\n    at DateTime\n)\nENGINE = MergeTree\nORDER BY at;",
    };
    expect(migrationStatements(migration, layout)).toEqual([
      "CREATE TABLE IF NOT EXISTS analytics.demo_data_loads ON CLUSTER logs\n(\n    at DateTime\n)\n" +
        "ENGINE = ReplicatedMergeTree('/clickhouse/tables/all/{database}/demo_data_loads', '{replica}')\nORDER BY at",
    ]);
  });

  it("shards the call log by a hash of the caller, its TTL on the replicated tables only", () => {
    const [local, distributed] = migrationStatements(migration("0005_service_calls.sql"), layout);
    expect(local).toContain(
      "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/service_calls_local', '{replica}')\n" +
        "PARTITION BY toDate(timestamp)\nORDER BY (caller, timestamp)\nTTL toDateTime(timestamp) + toIntervalDay(30)",
    );
    expect(distributed).toMatch(
      /^CREATE TABLE IF NOT EXISTS analytics\.service_calls ON CLUSTER logs\n[\s\S]*\nENGINE = Distributed\(logs, analytics, service_calls_local, cityHash64\(caller\)\)$/,
    );
  });

  it("runs the single-node deduplication window nowhere on a cluster, its replicated tables keeping their own", () => {
    const single = migrationStatements(migration("0006_log_tables_deduplication.sql"));
    expect(single).toHaveLength(9);
    expect(single[0]).toBe("ALTER TABLE edge_logs MODIFY SETTING non_replicated_deduplication_window = 10000");
    expect(migrationStatements(migration("0006_log_tables_deduplication.sql"), layout)).toEqual([]);
  });

  it("transforms every migration file", () => {
    for (const file of readMigrationFiles()) expect(() => migrationStatements(file, layout)).not.toThrow();
  });

  it.each([
    ["INSERT INTO edge_logs SELECT * FROM x", "cannot run on a cluster: INSERT INTO edge_logs SELECT * FROM x"],
    ["CREATE TABLE t (project String) ENGINE = MergeTree\nORDER BY project", "write CREATE TABLE IF NOT EXISTS"],
    [
      "CREATE TABLE IF NOT EXISTS t (project String) ENGINE = ReplacingMergeTree\nORDER BY project",
      "write CREATE TABLE IF NOT EXISTS",
    ],
    ["ALTER TABLE t ADD COLUMN a String, ADD COLUMN b String", "one command per ALTER TABLE"],
    ["ALTER TABLE t ADD COLUMN note String", "write ADD COLUMN IF NOT EXISTS so it can run again"],
    ["ALTER TABLE t DROP INDEX i", "write DROP INDEX IF EXISTS so it can run again"],
    ["ALTER TABLE t DELETE WHERE 1", "unknown ALTER command"],
    ["ALTER TABLE t MODIFY INDEX i", "unknown ALTER command"],
    ["RENAME TABLE a TO b", "cannot run on a cluster: RENAME TABLE a TO b"],
  ])("refuses what it cannot transform, naming the migration: %s", (sql, message) => {
    expect(() => migrationStatements({ name: "9999_x.sql", sql: `${sql};\n` }, layout)).toThrow(
      new RegExp(`^migration 9999_x\\.sql: .*${message.replace(/[()*.]/g, "\\$&")}`),
    );
  });

  it("reads a table whose sort key follows the engine on the same line", () => {
    const sql = "CREATE TABLE IF NOT EXISTS notes (project String, note String) ENGINE = MergeTree ORDER BY project;\n";
    expect(migrationStatements({ name: "9999_x.sql", sql }, layout)).toEqual([
      "CREATE TABLE IF NOT EXISTS analytics.notes_local ON CLUSTER logs\n(project String, note String)\n" +
        "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/notes_local', '{replica}')\nORDER BY project",
      "CREATE TABLE IF NOT EXISTS analytics.notes ON CLUSTER logs\n(project String, note String)\n" +
        "ENGINE = Distributed(logs, analytics, notes_local, cityHash64(project))",
    ]);
  });

  it("keeps commas inside parentheses and quotes in one command", () => {
    const sql = "ALTER TABLE t ADD COLUMN IF NOT EXISTS a String DEFAULT concat('x,', tuple(1, 2).1);\n";
    expect(migrationStatements({ name: "9999_x.sql", sql }, layout)).toHaveLength(2);
  });
});

describe("cluster migration record", () => {
  it("is one replica set over every node of the cluster, for the record and for the claims", () => {
    expect(clusterLedgerStatements(layout)).toEqual([
      "CREATE TABLE IF NOT EXISTS analytics.schema_migrations ON CLUSTER logs\n(\n" +
        "    name       String,\n    checksum   String,\n    applied_at DateTime64(3, 'UTC')\n)\n" +
        "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{database}/schema_migrations', '{shard}-{replica}')\nORDER BY name",
      "CREATE TABLE IF NOT EXISTS analytics.schema_migration_claims ON CLUSTER logs\n(\n" +
        "    name       String,\n    owner      String,\n    claimed_at DateTime64(3, 'UTC')\n)\n" +
        "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{database}/schema_migration_claims', '{shard}-{replica}')\nORDER BY name",
    ]);
  });
});
