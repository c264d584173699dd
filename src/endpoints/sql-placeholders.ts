// The `{name:Type}` placeholders of a saved query's SQL, and the start-up
// check that they and the request fields match one for one.

/** One typed placeholder of a query, e.g. `{project:String}`. */
export interface Placeholder {
  name: string;
  /** The ClickHouse type as written, e.g. `Nullable(DateTime64(6, 'UTC'))`. */
  type: string;
}

/**
 * The placeholders the service fills itself, whatever the request: `now`
 * (the executor's clock) and `unmasked` (whether the caller's credential may
 * see personal data, prepare-call.ts). No request field may take their names.
 */
export const servicePlaceholders: ReadonlySet<string> = new Set(["now", "unmasked"]);

const placeholder = /\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([^{}]+?)\s*\}/g;

/** Every placeholder of `sql` once, in order of first use; `--` comments are skipped. */
export function placeholdersOf(sql: string): Placeholder[] {
  const code = sql.replace(/--[^\n]*/g, "");
  const found = new Map<string, Placeholder>();
  for (const [, name, type] of code.matchAll(placeholder)) {
    if (!found.has(name!)) found.set(name!, { name: name!, type: type! });
  }
  return [...found.values()];
}

/**
 * The mismatches of a query's placeholders and its request's fields: a
 * placeholder that no field (nor the service) fills would fail every call,
 * a field no placeholder reads would be accepted and ignored, and a field
 * named as a service placeholder would let the caller set the service's value.
 */
export function placeholderProblems(endpointName: string, sql: string, requestFields: readonly string[]): string[] {
  const used = new Set(placeholdersOf(sql).map((p) => p.name));
  const fields = new Set(requestFields);
  const problems: string[] = [];
  for (const name of used) {
    if (!fields.has(name) && !servicePlaceholders.has(name)) {
      problems.push(
        `${endpointName}: the SQL uses {${name}} but no request field provides it (fields: ${[...fields].join(", ") || "none"})`,
      );
    }
  }
  for (const name of fields) {
    if (servicePlaceholders.has(name))
      problems.push(`${endpointName}: request field ${name} is named as the service's own {${name}}`);
    else if (!used.has(name)) problems.push(`${endpointName}: request field ${name} is not used by the SQL`);
  }
  return problems;
}
