// How long `service_calls` keeps its rows: CALL_LOG_RETENTION_DAYS, applied
// after the migrations as the table's TTL whenever the table's own differs
// (migration 0005 creates it with the default), so a change of the setting
// takes effect at the next start without a migration.
import type { ClusterLayout } from "./cluster-ddl.js";
import type { WarehouseClient } from "./reopening-client.js";

/** The TTL expression of `days` days, written as ClickHouse writes it back in `system.tables`. */
export function callLogTtl(days: number): string {
  return `toDateTime(timestamp) + toIntervalDay(${days})`;
}

/**
 * The statement that sets the call log's TTL to `days`: on the table itself
 * on a single node, on the replicated table of every shard on a cluster (the
 * Distributed table holds no rows).
 */
export function callLogRetentionStatement(days: number, layout?: ClusterLayout): string {
  const table =
    layout === undefined ? "service_calls" : `${layout.database}.service_calls_local ON CLUSTER ${layout.cluster}`;
  return `ALTER TABLE ${table} MODIFY TTL ${callLogTtl(days)}`;
}

/** Sets the call log's TTL to `days` unless it already is; returns whether it changed it. */
export async function keepCallLogRetention(
  client: WarehouseClient,
  days: number,
  layout?: ClusterLayout,
): Promise<boolean> {
  if (!Number.isInteger(days) || days < 1)
    throw new Error(`call log retention must be a whole number of days, not ${days}`);
  const result = await client.query({
    query: "SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = {table:String}",
    query_params: { table: layout === undefined ? "service_calls" : "service_calls_local" },
    format: "JSONEachRow",
  });
  const [table] = await result.json<{ engine_full: string }>();
  if (table === undefined || table.engine_full.includes(`TTL ${callLogTtl(days)}`)) return false;
  await client.command({ query: callLogRetentionStatement(days, layout) });
  return true;
}
