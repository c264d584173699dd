// How long the call log keeps its rows: CALL_LOG_RETENTION_DAYS, applied
// after the migrations as the TTL of `service_call_aggregates` (and of
// `service_calls`, the per-call table it replaced, while it holds rows)
// whenever a table's own differs (the migrations create them with the
// default), so a change of the setting takes effect at the next start
// without a migration.
import type { ClusterLayout } from "./cluster-ddl.js";
import type { WarehouseClient } from "./reopening-client.js";

/** The tables whose TTL the setting is: the aggregates, and the per-call rows of earlier versions. */
export const callLogTables = ["service_call_aggregates", "service_calls"] as const;

/** The TTL expression of `days` days, written as ClickHouse writes it back in `system.tables`. */
export function callLogTtl(days: number): string {
  return `toDateTime(timestamp) + toIntervalDay(${days})`;
}

/**
 * The statement that sets `table`'s TTL to `days`: on the table itself on a
 * single node, on the replicated table of every shard on a cluster (the
 * Distributed table holds no rows).
 */
export function callLogRetentionStatement(
  days: number,
  layout?: ClusterLayout,
  table: string = callLogTables[0],
): string {
  const target = layout === undefined ? table : `${layout.database}.${table}_local ON CLUSTER ${layout.cluster}`;
  return `ALTER TABLE ${target} MODIFY TTL ${callLogTtl(days)}`;
}

/** Sets the call log tables' TTL to `days` where it differs; returns whether it changed one. */
export async function keepCallLogRetention(
  client: WarehouseClient,
  days: number,
  layout?: ClusterLayout,
): Promise<boolean> {
  if (!Number.isInteger(days) || days < 1)
    throw new Error(`call log retention must be a whole number of days, not ${days}`);
  let changed = false;
  for (const table of callLogTables) {
    const result = await client.query({
      query: "SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = {table:String}",
      query_params: { table: layout === undefined ? table : `${table}_local` },
      format: "JSONEachRow",
    });
    const [found] = await result.json<{ engine_full: string }>();
    if (found === undefined || found.engine_full.includes(`TTL ${callLogTtl(days)}`)) continue;
    await client.command({ query: callLogRetentionStatement(days, layout, table) });
    changed = true;
  }
  return changed;
}
