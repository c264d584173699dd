// Start-up checks of a saved query with a page token parameter: what paging
// needs of its definition, its response and its rows (result-page.ts).
import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import type { EndpointDefinition } from "../gen/endpoints/v1/endpoint_options_pb.js";

/** Why the saved query cannot page as its page token parameter says, or nothing when it can or has none. */
export function pagingProblems(
  definition: Pick<EndpointDefinition, "name" | "maxRows" | "cacheTtlSeconds">,
  parameters: readonly { name: string; pageSize: number }[],
  response: DescMessage,
): string[] {
  const tokens = parameters.filter((p) => p.pageSize > 0);
  if (tokens.length === 0) return [];
  const { name } = definition;
  const problems: string[] = [];
  if (tokens.length > 1) problems.push(`${name}: more than one page token parameter`);
  // One row past the page tells whether older rows remain; max_rows must let it through.
  if (tokens[0]!.pageSize + 1 > definition.maxRows) {
    problems.push(`${name}: page_size ${tokens[0]!.pageSize} needs max_rows of at least ${tokens[0]!.pageSize + 1}`);
  }
  // A token is bound to its caller, and a cached result is shared between callers.
  if (definition.cacheTtlSeconds > 0) problems.push(`${name}: a saved query with a page token cannot be cached`);
  if (!isString(response.fields.find((f) => f.name === "next_page_token"))) {
    problems.push(`${name}: ${response.typeName} needs a string field next_page_token`);
  }
  const row = response.fields.find((f) => f.name === "result");
  const rowFields = row?.fieldKind === "list" && row.listKind === "message" ? row.message.fields : [];
  const timestamp = rowFields.find((f) => f.name === "timestamp");
  if (
    timestamp?.message?.typeName !== "google.protobuf.Timestamp" ||
    !isString(rowFields.find((f) => f.name === "id"))
  ) {
    problems.push(`${name}: a paged row needs a Timestamp field timestamp and a string field id, its cursor`);
  }
  return problems;
}

function isString(field: DescField | undefined): boolean {
  return field?.fieldKind === "scalar" && field.scalar === ScalarType.STRING;
}
