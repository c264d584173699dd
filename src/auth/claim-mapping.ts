// What an identity provider's token may do, read from its claims by the
// issuer's mapping: which claim lists the endpoints, which claims fix which
// parameters (a tenant claim such as `org_id` becomes `project`), and which
// carry the rate limit, read limits, the import scope and whether personal
// data is seen as stored. A mapped claim that is missing or of the wrong
// shape refuses the token, naming the claim.
import type { Credential } from "./credential.js";
import { rateProblem, readLimitFields, readLimitsOf } from "./credential-limits.js";
import { InvalidTokenError } from "./token-verifier.js";

/**
 * Claim names per credential field. Every mapped claim must be present,
 * except `import` and `unmasked`, which when absent mean no. Without a
 * mapping an issuer's tokens carry the service's own claims (`endpoints`,
 * `fixed`, `rps`, `import`, `unmasked`, `max_rows_to_read`,
 * `max_bytes_to_read`), each optional.
 */
export interface ClaimMapping {
  /** An array of endpoint names, or a space-separated string of scopes (`scope`) of which those naming endpoints count. */
  endpoints?: string;
  /** Parameter name to the claim whose string value it is fixed to. */
  fixed?: Readonly<Record<string, string>>;
  /** Calls a second (a number), with bursts of twice that. */
  rps?: string;
  max_rows_to_read?: string;
  max_bytes_to_read?: string;
  /** `true` or `false`. */
  import?: string;
  /** `true` or `false`: personal data as stored (docs/credentials.md#personal-data). */
  unmasked?: string;
}

/** The fields a mapping may have, for the configuration's checks. */
export const mappedFields = [
  "endpoints",
  "fixed",
  "rps",
  "max_rows_to_read",
  "max_bytes_to_read",
  "import",
  "unmasked",
] as const;

/** The mapping that reads the service's own claim names, each optional (docs/credentials.md#signed-tokens). */
const ownClaims = {
  endpoints: "endpoints",
  rps: "rps",
  max_rows_to_read: "max_rows_to_read",
  max_bytes_to_read: "max_bytes_to_read",
  import: "import",
  unmasked: "unmasked",
} as const;

export interface MappingContext {
  knownEndpoints: ReadonlySet<string>;
  knownParameters: ReadonlySet<string>;
}

/** What `claims` let a token do under `mapping` (undefined: the service's own claims); throws InvalidTokenError naming a bad claim. */
export function mappedCredential(
  id: string,
  claims: Readonly<Record<string, unknown>>,
  mapping: ClaimMapping | undefined,
  known: MappingContext,
): Credential {
  const required = mapping !== undefined;
  const names: ClaimMapping = mapping ?? ownClaims;
  const claim = (name: string | undefined): unknown => {
    if (name === undefined) return undefined;
    const value = claims[name];
    if (value === undefined && required && name !== names.import && name !== names.unmasked)
      throw new InvalidTokenError(`claim ${name} is missing`);
    return value;
  };
  const credential: Credential = { id };

  const endpoints = claim(names.endpoints);
  if (endpoints !== undefined) credential.endpoints = endpointsOf(endpoints, names.endpoints!, known.knownEndpoints);

  const fixed = mapping === undefined ? ownFixed(claims.fixed) : mappedFixed(mapping.fixed ?? {}, claim);
  if (fixed !== undefined) {
    for (const [parameter, value] of Object.entries(fixed)) {
      if (!known.knownParameters.has(parameter))
        throw new InvalidTokenError(`claim fixed names no parameter ${parameter}`);
      if (typeof value !== "string")
        throw new InvalidTokenError(`claim ${fixedClaimName(mapping, parameter)} must be a string`);
    }
    credential.fixed = fixed as Record<string, string>;
  }

  const rps = claim(names.rps);
  if (rps !== undefined) {
    const problem = rateProblem(rps, false);
    if (problem !== undefined) throw new InvalidTokenError(`claim ${names.rps} ${problem}`);
    credential.rateLimit = { perSecond: rps as number, burst: Math.max(1, 2 * (rps as number)) };
  }

  const limitClaims: Record<string, unknown> = {};
  for (const field of Object.keys(readLimitFields) as (keyof typeof readLimitFields)[]) {
    limitClaims[field] = claim(names[field]);
  }
  const { limits, problem } = readLimitsOf(limitClaims);
  if (problem !== undefined) {
    const name = names[problem.field as keyof typeof readLimitFields];
    throw new InvalidTokenError(`claim ${name} ${problem.description}`);
  }
  if (limits !== undefined) credential.readLimits = limits;

  const mayImport = claim(names.import);
  if (mayImport !== undefined && typeof mayImport !== "boolean")
    throw new InvalidTokenError(`claim ${names.import} must be true or false`);
  if (mayImport === true) credential.mayImport = true;

  const unmasked = claim(names.unmasked);
  if (unmasked !== undefined && typeof unmasked !== "boolean")
    throw new InvalidTokenError(`claim ${names.unmasked} must be true or false`);
  if (unmasked === true) credential.unmasked = true;
  return credential;
}

/** An array of endpoint names (each must be one), or a string of space-separated scopes, of which those naming endpoints count. */
function endpointsOf(value: unknown, name: string, knownEndpoints: ReadonlySet<string>): Set<string> {
  if (typeof value === "string") return new Set(value.split(/\s+/).filter((scope) => knownEndpoints.has(scope)));
  if (Array.isArray(value) && value.every((e) => typeof e === "string" && knownEndpoints.has(e))) return new Set(value);
  throw new InvalidTokenError(`claim ${name} must list endpoint names`);
}

function ownFixed(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new InvalidTokenError("claim fixed must map parameter names to strings");
  return value as Record<string, unknown>;
}

function mappedFixed(
  fixed: Readonly<Record<string, string>>,
  claim: (name: string) => unknown,
): Record<string, unknown> | undefined {
  const entries = Object.entries(fixed);
  return entries.length === 0
    ? undefined
    : Object.fromEntries(entries.map(([parameter, name]) => [parameter, claim(name)]));
}

function fixedClaimName(mapping: ClaimMapping | undefined, parameter: string): string {
  return mapping?.fixed?.[parameter] ?? "fixed";
}
