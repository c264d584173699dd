// Reads a request message against its endpoint's parameter rules
// (docs/endpoints.md, Parameter rules): every problem in one INVALID_ARGUMENT
// error, defaults applied, and the values the SQL takes.
import type { Message } from "@bufbuild/protobuf";
import { ParameterFormat } from "../gen/endpoints/v1/endpoint_options_pb.js";
import { invalidArgument, type FieldViolation } from "../errors/index.js";
import type { QueryParamValue } from "../executor/index.js";
import type { Endpoint } from "./registry.js";
import { readIsoTimestamp } from "../warehouse/index.js";
import { re2PatternProblem } from "./re2-pattern.js";
import { pageRequestOf, type PageRequest } from "./result-page.js";

export interface BoundParameters {
  /** Effective value of every parameter, defaults applied: the cache key's substance. */
  normalized: Readonly<Record<string, string>>;
  /** The values handed to the SQL's `{name:Type}` placeholders. */
  queryParams: Record<string, QueryParamValue>;
  /** For an endpoint with a page token: its paging, and the values of the SQL's cursor placeholders. */
  page?: { request: PageRequest; queryParams: Record<string, QueryParamValue> };
}

/**
 * Validates and normalises `request` for `endpoint`. Throws one
 * INVALID_ARGUMENT ConnectError listing every violation, each naming its field.
 */
export function bindParameters(endpoint: Endpoint, request: Message): BoundParameters {
  const violations: FieldViolation[] = [];
  const normalized: Record<string, string> = {};
  const queryParams: Record<string, QueryParamValue> = {};
  const values = request as unknown as Record<string, unknown>;
  let pageToken: { name: string; size: number; token: string } | undefined;

  // A binary message keeps the fields its schema does not know: a parameter
  // of another version of the proto, say. Refused like an undeclared GET
  // parameter, rather than a result that ignores what the caller asked for.
  for (const unknown of (request as { $unknown?: { no: number }[] }).$unknown ?? []) {
    violations.push({
      field: String(unknown.no),
      description: `field ${unknown.no} is not a parameter of ${endpoint.definition.name} (it takes ${endpoint.parameters.map((p) => p.name).join(", ")})`,
    });
  }

  for (const spec of endpoint.parameters) {
    const raw = values[spec.field.localName];
    let value = typeof raw === "string" ? raw : "";
    if (value.length > spec.maxLength) {
      violations.push({ field: spec.name, description: `${spec.name} is longer than ${spec.maxLength} characters` });
      continue;
    }
    // Not among the normalised parameters: a token is bound to them, and read once they are known.
    if (spec.pageSize > 0) {
      pageToken = { name: spec.name, size: spec.pageSize, token: value };
      continue;
    }
    if (value === "") {
      if (spec.required) {
        violations.push({ field: spec.name, description: `${spec.name} is required` });
        continue;
      }
      value = spec.defaultValue;
    } else if (spec.allowedValues.length > 0 && !spec.allowedValues.includes(value)) {
      if (!spec.unknownIsDefault) {
        violations.push({
          field: spec.name,
          description: `${spec.name} must be one of ${spec.allowedValues.join(", ")}`,
        });
        continue;
      }
      value = spec.defaultValue;
    }

    const patternProblem = spec.format === ParameterFormat.RE2 ? re2PatternProblem(value) : undefined;
    if (patternProblem !== undefined) {
      violations.push({ field: spec.name, description: `${spec.name} ${patternProblem}` });
      continue;
    }
    if (spec.format === ParameterFormat.ISO8601 && value !== "") {
      const reading = readIsoTimestamp(value);
      if ("problem" in reading) {
        violations.push({ field: spec.name, description: `${spec.name} ${reading.problem}` });
        continue;
      }
      normalized[spec.name] = reading.instant;
      queryParams[spec.name] = reading.instant;
    } else {
      normalized[spec.name] = value;
      queryParams[spec.name] = spec.format === ParameterFormat.ISO8601 ? null : value;
    }
  }

  const paging =
    pageToken === undefined ? undefined : pageRequestOf(pageToken.name, pageToken.size, pageToken.token, normalized);
  if (paging?.problem !== undefined) violations.push({ field: pageToken!.name, description: paging.problem });

  if (violations.length > 0) throw invalidArgument(violations);
  if (paging === undefined) return { normalized, queryParams };
  return { normalized, queryParams, page: { request: paging.page, queryParams: paging.cursorParams } };
}
