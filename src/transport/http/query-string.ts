// Maps a URL query string onto an endpoint's request message by its
// descriptor: names as in the proto, each at most once, none undeclared.
import { create, type Message } from "@bufbuild/protobuf";
import type { FieldViolation } from "../../errors/index.js";
import type { Endpoint } from "../../endpoints/index.js";
import { formatFromParameter, type BodyFormat } from "./content-negotiation.js";

export interface QueryStringRequest {
  /** The request message, from the parameters that were read cleanly. */
  request: Message;
  /**
   * Malformed encoding, repeated and undeclared parameters (including `sql`:
   * sandboxing is disabled); a repeated parameter is left out of `request`.
   */
  violations: FieldViolation[];
  /** The body format `format=` named; reserved for every endpoint, never a query parameter. */
  format?: BodyFormat;
  /** `dry_run=1`: answer the estimate instead of running the query; reserved like `format`. */
  dryRun?: true;
}

/**
 * Builds the request message of `endpoint` from `search` (without the `?`),
 * with the problems of the query string itself, so that the caller can answer
 * them together with those of the values.
 */
export function requestFromQueryString(endpoint: Endpoint, search: string): QueryStringRequest {
  const violations: FieldViolation[] = [];
  const violation = (field: string, description: string) => void violations.push({ field, description });
  // A repeated name is reported once, however often it repeats.
  const repeated = (name: string) =>
    violations.some((v) => v.field === name) || violation(name, `${name} is given more than once`);
  const seen = new Map<string, string>();
  let format: BodyFormat | undefined;
  let formatGiven = false;
  let dryRun: boolean | undefined;
  for (const pair of search === "" ? [] : search.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const name = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = decode(eq < 0 ? "" : pair.slice(eq + 1));
    if (name === undefined) violation("query", "query string has a parameter name with malformed percent-encoding");
    else if (name === "") violation("query", "query string has a parameter with no name");
    else if (value === undefined) violation(name, `${name} has malformed percent-encoding`);
    else if (name === "format") {
      if (formatGiven) repeated(name);
      else {
        formatGiven = true;
        format = formatFromParameter(value);
        if (format === undefined) violation(name, "format must be one of json, csv, ndjson");
      }
    } else if (name === "dry_run") {
      if (dryRun !== undefined) repeated(name);
      else {
        dryRun = value === "1";
        if (value !== "1" && value !== "0") violation(name, "dry_run must be 0 or 1");
      }
    } else if (!endpoint.parameters.some((p) => p.name === name)) {
      const known = endpoint.parameters.map((p) => p.name).join(", ");
      violation(name, `${name} is not a parameter of ${endpoint.definition.name} (it takes ${known})`);
    } else if (seen.has(name)) repeated(name);
    else seen.set(name, value);
  }
  const init: Record<string, string> = {};
  for (const spec of endpoint.parameters) {
    const value = seen.get(spec.name);
    const named = violations.some((v) => v.field === spec.name);
    if (value !== undefined && !named) init[spec.field.localName] = value;
  }
  const request = create(endpoint.method.input, init as never);
  return {
    request,
    violations,
    ...(format === undefined ? {} : { format }),
    ...(dryRun === true ? { dryRun: true as const } : {}),
  };
}

/** application/x-www-form-urlencoded decoding; undefined when malformed. */
export function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return undefined;
  }
}
