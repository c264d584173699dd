// Whether the saved queries can be served on the warehouse's schema: the
// migrations are applied (warehouse/schema-keeper.ts) and each saved query's
// result columns fit its row message (endpoints/result-columns.ts), checked
// once, as soon as the first migration succeeds, at start or later
// (docs/reliability.md, "Outages and shutdown").
import { resultColumnProblems, type Endpoint } from "../endpoints/index.js";
import type { SchemaKeeper, WarehouseClient } from "../warehouse/index.js";

export interface SchemaFit {
  /** True once the schema is migrated and every saved query was found to fit. */
  readonly ready: boolean;
  /** The problems the check found (empty when every saved query fits), once the first migration succeeded and the check ran. */
  readonly checked: Promise<string[]>;
}

export function watchSchemaFit(schema: Pick<SchemaKeeper, "done" | "migrated">, endpoints: readonly Endpoint[], client: Pick<WarehouseClient, "query">): SchemaFit {
  let fits = false;
  const checked = schema.done.then(async () => {
    const problems = await resultColumnProblems(endpoints, client).catch((error: unknown) => [
      `cannot describe the saved queries' results: ${error instanceof Error ? error.message : String(error)}`,
    ]);
    fits = problems.length === 0;
    return problems;
  });
  return {
    get ready() {
      return fits && schema.migrated;
    },
    checked,
  };
}
