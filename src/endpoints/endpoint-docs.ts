// The registry written out as the tables of docs/endpoints.md (`npm run
// docs`): each saved query's definition, and each parameter's rule, read from
// the proto options rather than written a second time by hand.
import { ParameterFormat } from "../gen/endpoints/v1/endpoint_options_pb.js";
import type { EndpointRegistry, ParameterSpec } from "./registry.js";

/** The definitions table and the parameter rules table, in Markdown. */
export function endpointTables(registry: EndpointRegistry): { definitions: string; parameters: string } {
  const definitions = [
    "| name | id | max rows | cache lifetime | warming | sandboxing |",
    "|---|---|---|---|---|---|",
    ...registry.endpoints.map(({ definition: d }) =>
      row([
        `\`${d.name}\``,
        `\`${d.id}\``,
        String(d.maxRows),
        d.cacheTtlSeconds > 0 ? `${d.cacheTtlSeconds} s` : "not cached",
        d.cacheWarmingSeconds > 0 ? `every ${d.cacheWarmingSeconds} s` : "none",
        d.sandboxed ? "on" : "off",
      ]),
    ),
  ];
  const parameters = [
    "| saved query | parameter | rule |",
    "|---|---|---|",
    ...registry.endpoints.flatMap((e) =>
      e.parameters.map((p) => row([`\`${e.definition.name}\``, `\`${p.name}\``, rule(p)])),
    ),
  ];
  return { definitions: definitions.join("\n"), parameters: parameters.join("\n") };
}

function row(cells: string[]): string {
  return `| ${cells.join(" | ")} |`;
}

/** A parameter's rule in words, as the table of rules above it names them. */
function rule(p: ParameterSpec): string {
  const parts = [p.required ? "required" : "optional"];
  if (p.format === ParameterFormat.RE2) parts.push("an RE2 pattern (below)");
  if (p.pageSize > 0) {
    parts.push(
      `a \`next_page_token\` of this call for ${p.pageSize} older rows (Paging, below); any other value is a 400`,
    );
  }
  if (p.format === ParameterFormat.ISO8601) {
    parts.push("ISO 8601 (below), empty means no bound; unparseable or outside 1900-2299 is a 400");
  }
  const values = p.allowedValues.map((v) => `\`${v}\``).join(", ");
  if (p.allowedValues.length > 0 && p.unknownIsDefault) {
    parts.push(`${values}; ${p.required ? "" : "absent or "}anything else behaves like \`${p.defaultValue}\``);
  } else if (p.allowedValues.length > 0) {
    parts.push(`one of ${values}; anything else is a 400`);
  } else if (p.defaultValue !== "") {
    parts.push(`absent or empty behaves like \`${p.defaultValue}\``);
  }
  return parts.join("; ");
}
