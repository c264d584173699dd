// GET /api/endpoints: the definitions of the saved queries, read from the
// proto options through the registry; for a scoped credential, only the
// endpoints it may call, with the parameters it fixes.
import type { EndpointRegistry, Scope } from "../../endpoints/index.js";
import { formats } from "./content-negotiation.js";

/** `{"result": [definitions]}`, their fields as docs/http-api.md (Listing) describes them. */
export function endpointListing(registry: EndpointRegistry, scope: Scope = {}) {
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
