// Start-up checks of a saved query's definition against what the service and
// its SQL can do: a proto option the SQL or the service would silently
// ignore must stop start-up, not answer with the wrong data.
import type { EndpointDefinition } from "../gen/endpoints/v1/endpoint_options_pb.js";

/** The text of every single-quoted literal of `sql`, comments (`--`, `/* *\/`) skipped. */
export function sqlStringLiterals(sql: string): Set<string> {
  const literals = new Set<string>();
  let i = 0;
  while (i < sql.length) {
    if (sql.startsWith("--", i)) {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? sql.length : end + 1;
    } else if (sql.startsWith("/*", i)) {
      const end = sql.indexOf("*/", i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (sql[i] === "'") {
      let text = "";
      i += 1;
      while (i < sql.length) {
        if (sql[i] === "\\" && i + 1 < sql.length) {
          text += sql[i + 1];
          i += 2;
        } else if (sql[i] === "'" && sql[i + 1] === "'") {
          text += "'";
          i += 2;
        } else if (sql[i] === "'") {
          i += 1;
          break;
        } else {
          text += sql[i];
          i += 1;
        }
      }
      literals.add(text);
    } else {
      i += 1;
    }
  }
  return literals;
}

/**
 * The allowed values of the parameters that the SQL never names as a quoted
 * literal: the SQL tells values apart by comparing with literals
 * (`multiIf(interval = 'daily', ...)`), so a value it does not name would be
 * accepted and answered with another value's data (the default branch).
 */
export function allowedValueProblems(
  endpointName: string,
  sql: string,
  parameters: readonly { name: string; allowedValues: readonly string[] }[],
): string[] {
  const literals = sqlStringLiterals(sql);
  return parameters.flatMap((p) =>
    p.allowedValues
      .filter((value) => !literals.has(value))
      .map(
        (value) =>
          `${endpointName}: allowed value "${value}" of ${p.name} does not appear in the SQL as '${value}', so the SQL would answer it as another value`,
      ),
  );
}

/**
 * Why the definition asks for what this service cannot do, or undefined:
 * sandboxing (running caller SQL around the saved query) is not implemented,
 * so a saved query declared sandboxed would be listed as such and run as if
 * it were not.
 */
export function sandboxProblem(definition: Pick<EndpointDefinition, "name" | "sandboxed">): string | undefined {
  if (!definition.sandboxed) return undefined;
  return `${definition.name}: sandboxed is true, but this service cannot sandbox a saved query (run caller SQL around it); declare sandboxed: false`;
}
