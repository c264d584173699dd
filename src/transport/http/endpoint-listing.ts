// GET /api/endpoints: the definitions of the saved queries, read from the
// proto options through the registry; for a scoped credential, only the
// endpoints it may call, with the parameters it fixes.
import type { EndpointRegistry, Scope } from "../../endpoints/index.js";
import { formats } from "./content-negotiation.js";

export interface EndpointListing {
  name: string;
  id: string;
  max_rows: number;
  cache_ttl_seconds: number;
  cache_warming_seconds: number;
  sandboxed: boolean;
  grpc_method: string;
  /** Its server-streaming watch method (`package.Service/WatchX`), when it has one. */
  grpc_watch_method?: string;
  paths: string[];
  /** Body formats a GET call may ask for with `format=` or Accept. */
  formats: string[];
  parameters: {
    name: string;
    required: boolean;
    allowed_values: string[];
    default: string | null;
    max_length: number;
  }[];
  /** Present for a deprecated version: since when (RFC 3339 date), its sunset if set, and its successor's name. */
  deprecated?: { since: string; sunset?: string; successor: string };
  /** Present for a credential that fixes some of this endpoint's parameters: their values. */
  fixed_parameters?: Record<string, string>;
}

export function endpointListing(registry: EndpointRegistry, scope: Scope = {}): { result: EndpointListing[] } {
  const callable = registry.endpoints.filter((e) => scope.endpoints?.has(e.definition.name) ?? true);
  return {
    result: callable.map(({ definition, grpcMethod, grpcWatchMethod, parameters, deprecation }) => ({
      name: definition.name,
      id: definition.id,
      max_rows: definition.maxRows,
      cache_ttl_seconds: definition.cacheTtlSeconds,
      cache_warming_seconds: definition.cacheWarmingSeconds,
      sandboxed: definition.sandboxed,
      grpc_method: grpcMethod,
      ...(grpcWatchMethod === undefined ? {} : { grpc_watch_method: grpcWatchMethod }),
      paths: [`/api/endpoints/${definition.name}`, `/api/endpoints/query/${definition.id}`],
      formats: [...formats],
      parameters: parameters.map((p) => ({
        name: p.name,
        required: p.required,
        allowed_values: [...p.allowedValues],
        default: p.defaultValue === "" ? null : p.defaultValue,
        max_length: p.maxLength,
      })),
      ...(deprecation === undefined
        ? {}
        : {
            deprecated: {
              since: definition.deprecated,
              ...(definition.sunset === "" ? {} : { sunset: definition.sunset }),
              successor: deprecation.successor,
            },
          }),
      ...fixedOf(parameters, scope),
    })),
  };
}

function fixedOf(parameters: readonly { name: string }[], scope: Scope): { fixed_parameters?: Record<string, string> } {
  const fixed = parameters
    .filter((p) => scope.fixed?.[p.name] !== undefined)
    .map((p) => [p.name, scope.fixed![p.name]!]);
  return fixed.length === 0 ? {} : { fixed_parameters: Object.fromEntries(fixed) };
}
