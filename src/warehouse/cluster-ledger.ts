// The migration record of a cluster, and the claim that lets one process
// apply a migration however many service replicas start at the same time.
//
// Both tables are ReplicatedMergeTree with one replica on every node of the
// cluster (no `{shard}` in their path), so every node holds the whole record.
// A process that finds a migration unrecorded inserts a claim row with the
// migration's name as `insert_deduplication_token`: Keeper accepts one block
// per token, so of the claims inserted at the same time exactly one becomes a
// row and the others are dropped as duplicates. Every process then reads
// that row: its owner applies the migration and records it; the others wait
// until the record appears. An owner that dies before recording is taken
// over after `claimWaitMs`: the transformed statements can run again
// (IF NOT EXISTS, MATERIALIZE), and the record's own token keeps it to one
// row when both finish.
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import type { WarehouseClient } from "./reopening-client.js";
import type { Clock, Logger } from "../observability/index.js";
import type { ClusterLayout } from "./cluster-ddl.js";
import { toDateTime64Param } from "./datetime-param.js";

export interface ClusterLedgerOptions extends ClusterLayout {
  /** How long to wait for another process's claimed migration before applying it here. Default 600,000 ms. */
  claimWaitMs?: number;
  /** How often a waiting process looks at the claim and the record again. Default 1000 ms. */
  claimPollMs?: number;
  /** Names this process in its claims. Default: host, pid and a random id. */
  owner?: string;
}

/** The statements that create the record and the claims on every node of the cluster. */
export function clusterLedgerStatements(layout: ClusterLayout): string[] {
  const table = (name: string, columns: string) =>
    `CREATE TABLE IF NOT EXISTS ${layout.database}.${name} ON CLUSTER ${layout.cluster}\n(\n${columns}\n)\n` +
    `ENGINE = ReplicatedMergeTree('/clickhouse/tables/{database}/${name}', '{shard}-{replica}')\nORDER BY name`;
  return [
    table("schema_migrations", "    name       String,\n    checksum   String,\n    applied_at DateTime64(3, 'UTC')"),
    table(
      "schema_migration_claims",
      "    name       String,\n    owner      String,\n    claimed_at DateTime64(3, 'UTC')",
    ),
  ];
}

export interface ClusterLedger {
  /**
   * Claims `name` for this process. True when this process is to apply it
   * (its claim won, or the winner's record did not come in time); false
   * when another process recorded it meanwhile.
   */
  claim(name: string): Promise<boolean>;
  /** Records `name` as applied; a second record of the same name is dropped as a duplicate. */
  record(name: string, checksum: string): Promise<void>;
}

export function createClusterLedger(
  client: WarehouseClient,
  options: ClusterLedgerOptions & { clock: Clock; logger: Logger },
): ClusterLedger {
  const { clock, logger } = options;
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID()}`;
  const waitMs = options.claimWaitMs ?? 600_000;
  const pollMs = options.claimPollMs ?? 1000;

  async function scalar(query: string, name: string): Promise<string | undefined> {
    const result = await client.query({ query, query_params: { name }, format: "JSONEachRow" });
    return (await result.json<{ value: string }>())[0]?.value;
  }

  return {
    async claim(name) {
      await client.insert({
        table: "schema_migration_claims",
        values: [{ name, owner, claimed_at: toDateTime64Param(clock()) }],
        format: "JSONEachRow",
        clickhouse_settings: { insert_deduplication_token: name },
      });
      const deadline = Date.now() + waitMs;
      for (;;) {
        const recorded = await scalar(
          "SELECT name AS value FROM schema_migrations WHERE name = {name:String} LIMIT 1",
          name,
        );
        if (recorded !== undefined) return false;
        // One row per name while the deduplication window lasts; after it, the first claim still wins.
        const winner = await scalar(
          "SELECT argMin(owner, claimed_at) AS value FROM schema_migration_claims WHERE name = {name:String} HAVING count() > 0",
          name,
        );
        if (winner === owner) return true;
        if (Date.now() >= deadline) {
          logger.warn("claimed migration not recorded in time; applying it here (its statements can run again)", {
            migration: name,
            claimedBy: winner,
            waitedMs: waitMs,
          });
          return true;
        }
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },

    async record(name, checksum) {
      await client.insert({
        table: "schema_migrations",
        values: [{ name, checksum, applied_at: toDateTime64Param(clock()) }],
        format: "JSONEachRow",
        clickhouse_settings: { insert_deduplication_token: `${name}:applied` },
      });
    },
  };
}
