// Whether a credential changes a call of one saved query: what decides if a
// call prepared for one caller may be reused for another (the GET route's
// and the RPC fast path's prepared calls).
import type { Credential } from "./credential.js";

/** What of a saved query the decision reads: the names of its parameters. */
export interface ParameterNames {
  readonly parameters: readonly { readonly name: string }[];
}

/**
 * Whether a call of `endpoint` prepared under `credential` depends on it: it
 * names the endpoints it may call, it fixes one of the endpoint's
 * parameters (a key-file key's own `caller` of service.call-stats), or it
 * limits reads. A fixed parameter of another saved query does not count, so
 * that such a key's calls of the rest are shared as an unscoped key's are.
 */
export function isScopedFor(credential: Credential, endpoint: ParameterNames): boolean {
  if (credential.endpoints !== undefined || credential.readLimits !== undefined) return true;
  const fixed = credential.fixed;
  if (fixed === undefined) return false;
  for (const parameter of endpoint.parameters) if (fixed[parameter.name] !== undefined) return true;
  return false;
}
