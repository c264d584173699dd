// The check that each saved query's result columns are the fields of its
// row message, of types that can fill them, asked of the warehouse itself
// (`DESCRIBE (query)`), so a mismatch of `sql/` and `proto/` is found before
// any caller meets it (docs/reliability.md, "Outages and shutdown").
import type { QueryParamValue } from "../executor/index.js";
import type { WarehouseClient } from "../warehouse/index.js";
import { columnFitsField } from "./column-type-fit.js";
import type { Endpoint } from "./registry.js";
import { rowFieldKind } from "./row-message.js";
import { placeholdersOf } from "./sql-placeholders.js";

/**
 * The mismatches of each endpoint's result columns and row fields: a column
 * that is not a field of the row message, a column whose type cannot fill
 * its field (column-type-fit.ts), or a field no column fills. Empty when
 * every query fits. Throws when the warehouse cannot describe a query.
 */
export async function resultColumnProblems(
  endpoints: readonly Endpoint[],
  client: Pick<WarehouseClient, "query">,
): Promise<string[]> {
  const problems: string[] = [];
  for (const endpoint of endpoints) {
    const columns = await describeColumns(endpoint.savedQuery.sql, client);
    const fields = endpoint.rowSchema.fields.map((f) => f.name);
    const name = endpoint.definition.name;
    for (const column of columns) {
      const field = endpoint.rowSchema.fields.find((f) => f.name === column.name);
      if (field === undefined) {
        problems.push(
          `${name}: result column ${column.name} (${column.type}) is not a field of ${endpoint.rowSchema.typeName} (fields: ${fields.join(", ")})`,
        );
        continue;
      }
      const kind = rowFieldKind(field);
      if (kind !== undefined && !columnFitsField(column.type, kind)) {
        problems.push(
          `${name}: result column ${column.name} (${column.type}) cannot fill ${endpoint.rowSchema.typeName}.${field.name} (${kind} field)`,
        );
      }
    }
    for (const field of fields) {
      if (!columns.some((c) => c.name === field))
        problems.push(`${name}: no result column fills ${endpoint.rowSchema.typeName}.${field}`);
    }
  }
  return problems;
}

/** The columns the query would return, without running it: every placeholder gets a value of its type. */
async function describeColumns(
  sql: string,
  client: Pick<WarehouseClient, "query">,
): Promise<{ name: string; type: string }[]> {
  const queryParams: Record<string, QueryParamValue> = {};
  for (const { name, type } of placeholdersOf(sql)) queryParams[name] = sampleValue(type);
  const result = await client.query({
    query: `DESCRIBE (\n${sql}\n)`,
    query_params: queryParams,
    format: "JSONEachRow",
  });
  return result.json<{ name: string; type: string }>();
}

/** A value any placeholder of `type` accepts: NULL, zero, the day after the epoch (clear of 1970 in any zone), or empty text. */
function sampleValue(type: string): QueryParamValue {
  if (/^Nullable\(/.test(type)) return null;
  if (/^(U?Int|Float|Decimal|Bool)/.test(type)) return 0;
  if (/^Date/.test(type)) return "1970-01-02 00:00:00";
  return "";
}
