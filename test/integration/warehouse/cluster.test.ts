// The schema and the saved queries on a real ClickHouse cluster (Keeper,
// ReplicatedMergeTree, Distributed). Runs only when CLICKHOUSE_URL and
// CLICKHOUSE_CLUSTER are both set (docs/deployment.md, "Testing against a
// cluster"); otherwise reported as skipped. It creates and drops a database
// of its own ON CLUSTER.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createQueryExecutor, createQueryTuning } from "../../../src/executor/index.js";
import {
  logTables,
  migrate,
  openWarehouse,
  readMigrationFiles,
  readSavedQuerySql,
  type LogTable,
  type Warehouse,
} from "../../../src/warehouse/index.js";
import { edgeRow, functionEdgeRow, ts } from "../../support/embedded-warehouse.js";
import { createQueryStack } from "../../support/query-stack.js";
import { expectThreeSavedQueries } from "../../support/three-saved-queries.js";
import { serverCredentials } from "../../support/server-credentials.js";

const url = process.env.CLICKHOUSE_URL;
const cluster = process.env.CLICKHOUSE_CLUSTER;
const NOW = Date.UTC(2026, 10, 20, 12, 34, 56, 789);

describe.skipIf(url === undefined || cluster === undefined)(
  "on a ClickHouse cluster (skipped: CLICKHOUSE_URL and CLICKHOUSE_CLUSTER are not both set)",
  () => {
    const database = `sqe_cluster_${randomUUID().replaceAll("-", "")}`;
    const server = {
      kind: "server" as const,
      url: url!,
      ...serverCredentials,
    };
    let admin: Warehouse;
    let warehouse: Warehouse;

    async function select<T>(query: string, query_params: Record<string, unknown> = {}): Promise<T[]> {
      const result = await warehouse.client.query({ query, query_params, format: "JSONEachRow" });
      return result.json<T>();
    }

    /** Inserts through the Distributed table, sent to the shards before the insert returns. */
    async function insert(table: LogTable, values: object[]) {
      await warehouse.client.insert({
        table,
        values,
        format: "JSONEachRow",
        clickhouse_settings: { insert_distributed_sync: 1 },
      });
    }

    beforeAll(async () => {
      admin = await openWarehouse({ ...server, database: "default" });
      await admin.client.command({ query: `CREATE DATABASE ${database} ON CLUSTER ${cluster}` });
      warehouse = await openWarehouse({ ...server, database, cluster });
    });
    afterAll(async () => {
      await warehouse?.close();
      await admin?.client.command({ query: `DROP DATABASE IF EXISTS ${database} ON CLUSTER ${cluster} SYNC` });
      await admin?.close();
    });

    it("applies each migration once when two processes migrate at the same time", async () => {
      const names = readMigrationFiles().map((f) => f.name);
      const run = (owner: string) =>
        migrate(warehouse.client, { cluster: { ...warehouse.cluster!, owner, claimPollMs: 100 } });
      const [a, b] = await Promise.all([run("replica-a"), run("replica-b")]);
      expect([...a.applied, ...b.applied].sort()).toEqual(names);
      expect(a.applied.filter((name) => b.applied.includes(name))).toEqual([]);
      expect((await run("replica-c")).applied).toEqual([]);
      const recorded = await select<{ name: string; n: number | string }>(
        "SELECT name, count() AS n FROM schema_migrations GROUP BY name ORDER BY name",
      );
      expect(recorded.map((r) => [r.name, Number(r.n)])).toEqual(names.map((n) => [n, 1]));
    });

    it("creates the local and the Distributed table of each log table on every node", async () => {
      const hosts = await select<{ host: string; tables: string[] }>(
        `SELECT hostName() AS host, arraySort(groupArray(name)) AS tables
         FROM clusterAllReplicas(${cluster}, system.tables) WHERE database = {db:String} GROUP BY host`,
        { db: database },
      );
      const expected = [
        ...logTables.flatMap((t) => [t, `${t}_local`]),
        "schema_migration_claims",
        "schema_migrations",
      ].sort();
      expect(hosts.length).toBeGreaterThan(0);
      for (const host of hosts) expect(host.tables).toEqual(expected);
      const engines = await select<{ name: string; engine: string }>(
        "SELECT name, engine FROM system.tables WHERE database = {db:String} AND name IN ('edge_logs', 'edge_logs_local')",
        { db: database },
      );
      expect(Object.fromEntries(engines.map((e) => [e.name, e.engine]))).toEqual({
        edge_logs: "Distributed",
        edge_logs_local: "ReplicatedMergeTree",
      });
    });

    it("keeps each project's rows on one shard, the MATERIALIZED project of function_edge_logs included", async () => {
      const projects = Array.from({ length: 20 }, (_, i) => `shard${String(i).padStart(2, "0")}`);
      await insert(
        "function_edge_logs",
        projects.flatMap((project) =>
          [1, 2, 3].map((n) =>
            functionEdgeRow({ project, functionId: "f", timestamp: ts(NOW - n * 60_000), executionTimeMs: n }),
          ),
        ),
      );
      await insert(
        "edge_logs",
        projects.map((project) => edgeRow({ project, timestamp: ts(NOW - 60_000) })),
      );
      for (const table of ["function_edge_logs", "edge_logs"]) {
        const spread = await select<{ project: string; shards: number | string }>(
          `SELECT project, uniqExact(_shard_num) AS shards FROM ${table} WHERE startsWith(project, 'shard') GROUP BY project ORDER BY project`,
        );
        expect(spread.map((r) => [r.project, Number(r.shards)])).toEqual(projects.map((p) => [p, 1]));
      }
    });

    it("reads one shard for one project, and every shard for usage.api-counts' URL pattern", async () => {
      const [{ shards }] = (await select<{ shards: number | string }>(
        "SELECT count() AS shards FROM system.clusters WHERE cluster = {c:String} AND replica_num = 1",
        { c: cluster },
      )) as [{ shards: number | string }];
      expect(Number(shards), "these tests need a cluster of two shards or more").toBeGreaterThan(1);
      // force_... turns "could not narrow to a shard" into an error instead of a silent fan-out.
      const forced = createQueryExecutor({
        client: warehouse.client,
        clock: () => NOW,
        tuning: () => ({
          settings: { optimize_skip_unused_shards: 1, force_optimize_skip_unused_shards: 1 },
          nowStepMs: 0,
          stableText: false,
        }),
      });
      const one = {
        name: "test.one-project",
        sql: "SELECT count() AS n FROM function_edge_logs WHERE project = {project:String}",
        maxRows: 1,
      };
      expect((await forced.execute(one, { project: "shard07" })).rows).toEqual([{ n: 3 }]);
      const fanOut = {
        name: "usage.api-counts",
        sql: readSavedQuerySql("usage.api-counts"),
        maxRows: 1000,
        regexpParameter: "project",
      };
      const error = await forced.execute(fanOut, { project: "shard07", interval: "hourly" }).catch((e: unknown) => e);
      expect(String((error as { cause?: unknown }).cause)).toMatch(/UNABLE_TO_SKIP_UNUSED_SHARDS|is not used/);
    });

    it("answers the three saved queries through the Distributed tables", async () => {
      // usage.api-counts reads request_api_areas, added by a later migration, through the Distributed table.
      await expectThreeSavedQueries(
        createQueryStack(warehouse, NOW, createQueryTuning({ distributed: true })),
        NOW,
        insert,
      );
    });
  },
);
