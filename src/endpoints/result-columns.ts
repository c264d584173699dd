// The start-up check that each saved query's result columns are the fields
// of its row message, asked of the warehouse itself (`DESCRIBE (query)`), so
// a mismatch of `sql/` and `proto/` stops the service before any caller
// meets it.
import type { QueryParamValue } from "../executor/index.js";
import type { WarehouseClient } from "../warehouse/index.js";
import type { Endpoint } from "./registry.js";
import { placeholdersOf } from "./sql-placeholders.js";

/**
 * The mismatches of each endpoint's result columns and row fields: a column
 * that is not a field of the row message, or a field no column fills. Empty
 * when every query fits. Throws when the warehouse cannot describe a query.
 */
export async function resultColumnProblems(endpoints: readonly Endpoint[], client: Pick<WarehouseClient, "query">): Promise<string[]> {
  const problems: string[] = [];
  for (const endpoint of endpoints) {
    const columns = await describeColumns(endpoint.savedQuery.sql, client);
    const fields = endpoint.rowSchema.fields.map((f) => f.name);
    const name = endpoint.definition.name;
    for (const column of columns) {
      if (!fields.includes(column.name)) {
        problems.push(`${name}: result column ${column.name} (${column.type}) is not a field of ${endpoint.rowSchema.typeName} (fields: ${fields.join(", ")})`);
      }
    }
    for (const field of fields) {
      if (!columns.some((c) => c.name === field)) problems.push(`${name}: no result column fills ${endpoint.rowSchema.typeName}.${field}`);
    }
  }
  return problems;
}

/** The columns the query would return, without running it: every placeholder gets a value of its type. */
async function describeColumns(sql: string, client: Pick<WarehouseClient, "query">): Promise<{ name: string; type: string }[]> {
  const queryParams: Record<string, QueryParamValue> = {};
  for (const { name, type } of placeholdersOf(sql)) queryParams[name] = sampleValue(type);
  const result = await client.query({ query: `DESCRIBE (\n${sql}\n)`, query_params: queryParams, format: "JSONEachRow" });
  return result.json<{ name: string; type: string }>();
}

/** A value any placeholder of `type` accepts: NULL, zero, the day after the epoch (clear of 1970 in any zone), or empty text. */
function sampleValue(type: string): QueryParamValue {
  if (/^Nullable\(/.test(type)) return null;
  if (/^(U?Int|Float|Decimal|Bool)/.test(type)) return 0;
  if (/^Date/.test(type)) return "1970-01-02 00:00:00";
  return "";
}
