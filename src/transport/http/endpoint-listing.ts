// GET /api/endpoints: the definitions of the saved queries, read from the
// proto options through the registry.
import type { EndpointRegistry } from "../../endpoints/index.js";
import { formats } from "./content-negotiation.js";

export interface EndpointListing {
  name: string;
  id: string;
  max_rows: number;
  cache_ttl_seconds: number;
  cache_warming_seconds: number;
  sandboxed: boolean;
  grpc_method: string;
  paths: string[];
  /** Body formats a GET call may ask for with `format=` or Accept. */
  formats: string[];
  parameters: { name: string; required: boolean; allowed_values: string[]; default: string | null; max_length: number }[];
}

export function endpointListing(registry: EndpointRegistry): { result: EndpointListing[] } {
  return {
    result: registry.endpoints.map(({ definition, grpcMethod, parameters }) => ({
      name: definition.name,
      id: definition.id,
      max_rows: definition.maxRows,
      cache_ttl_seconds: definition.cacheTtlSeconds,
      cache_warming_seconds: definition.cacheWarmingSeconds,
      sandboxed: definition.sandboxed,
      grpc_method: grpcMethod,
      paths: [`/api/endpoints/${definition.name}`, `/api/endpoints/query/${definition.id}`],
      formats: [...formats],
      parameters: parameters.map((p) => ({
        name: p.name,
        required: p.required,
        allowed_values: [...p.allowedValues],
        default: p.defaultValue === "" ? null : p.defaultValue,
        max_length: p.maxLength,
      })),
    })),
  };
}
