// Whether a credential changes a call of one saved query: what decides if a
// call prepared for one caller may be reused for another (the GET route's
// and the RPC fast path's prepared calls).
import type { Credential } from "./credential.js";

/** What of a saved query the decision reads: the names of its parameters, and whether it masks personal data. */
export interface ParameterNames {
  readonly parameters: readonly { readonly name: string }[];
  readonly masksPersonalData?: boolean;
}

/**
 * Whether a call of `endpoint` prepared under `credential` depends on it: it
 * names the endpoints it may call, it fixes one of the endpoint's
 * parameters (a key-file key's own `caller` of service.call-stats), or it
 * limits reads. A fixed parameter of another saved query does not count, so
 * that such a key's calls of the rest are shared as an unscoped key's are.
 * Of a saved query that masks personal data, a call of a credential that may
 * not see it counts as scoped too: its `{unmasked}` is 0, and an unscoped
 * full-access key's call (1) must never be handed to it, nor it to them.
 */
export function isScopedFor(credential: Credential, endpoint: ParameterNames): boolean {
  if (credential.endpoints !== undefined || credential.readLimits !== undefined) return true;
  if (endpoint.masksPersonalData === true && credential.unmasked !== true) return true;
  const fixed = credential.fixed;
  if (fixed === undefined) return false;
  for (const parameter of endpoint.parameters) if (fixed[parameter.name] !== undefined) return true;
  return false;
}
