// What the service knows of a caller once authenticated, whichever kind of
// credential it presented, and where the secret is read from a call.
import type { ReadLimitValues } from "../executor/index.js";

/** Header lookup by lowercase name: a fetch Headers, or a cheaper view of a Node request's headers. */
export interface HeaderReader {
  get(name: string): string | null;
}

/** Who is calling and what it may do. */
export interface Credential {
  /**
   * Names the caller in logs, metrics, rate limits and fair admission: an API
   * key's id or a token's `sub`; never the secret itself.
   */
  id: string;
  /** The saved queries (by name) it may call; undefined: every one. */
  endpoints?: ReadonlySet<string>;
  /** Parameters it may not change, by name: absent from a request they take this value. */
  fixed?: Readonly<Record<string, string>>;
  /** Its own rate limit in place of the service's. */
  rateLimit?: { perSecond: number; burst: number };
  /** The `import` scope: it may post rows to the import route. Full-access keys have it; undefined: not. */
  mayImport?: true;
  /** Rows and bytes the warehouse may read for one of its calls; the smallest limit that applies wins. */
  readLimits?: ReadLimitValues;
  /**
   * It sees personal data as stored (docs/credentials.md#personal-data).
   * Full-access keys have it; undefined: saved queries mask it.
   */
  unmasked?: true;
}

// Beside the credential, not in it: what a credential says it may do is compared whole in many places.
const expiries = new WeakMap<Credential, number>();

/** Notes that `credential`, a token's, stops being accepted at `expiresAt` (ms since the epoch); returns it. */
export function expiringAt(credential: Credential, expiresAt: number): Credential {
  expiries.set(credential, expiresAt);
  return credential;
}

/** When `credential` stops being accepted: a token's `exp` in ms since the epoch; undefined for keys. */
export function expiryOf(credential: Credential): number | undefined {
  return expiries.get(credential);
}

/** How the service names callers that are not key-file keys: a token (`token:<sub>`) and an API_KEYS key (`api-key:<hash>`). */
export const reservedIdPrefixes = ["token:", "api-key:"] as const;

/**
 * Whether `credential` is limited to some endpoints, parameter values or
 * reads: a call prepared under it then depends on it and is not shared.
 */
export function isScoped(credential: Credential): boolean {
  return credential.endpoints !== undefined || credential.fixed !== undefined || credential.readLimits !== undefined;
}

const ownCallsOnly = new WeakMap<Credential, Credential>();

/**
 * `credential` as a key-file key or a token calls: with the `caller`
 * parameter (service.call-stats) fixed to its own id, so that it sees its own
 * calls only; a `caller` its scope fixes otherwise is overridden. Made once
 * per credential. Full-access keys (API_KEYS) are not passed here: they see
 * every caller.
 */
export function seeingOwnCallsOnly(credential: Credential): Credential {
  let scoped = ownCallsOnly.get(credential);
  if (scoped === undefined) {
    scoped = { ...credential, fixed: { ...credential.fixed, caller: credential.id } };
    const expiry = expiries.get(credential);
    if (expiry !== undefined) expiries.set(scoped, expiry);
    ownCallsOnly.set(credential, scoped);
  }
  return scoped;
}

/** The secret a call presents: `X-API-KEY` (gRPC metadata `x-api-key`), else `Authorization: Bearer <secret>`. */
export function presentedSecret(headers: HeaderReader): string | undefined {
  const apiKey = headers.get("x-api-key");
  if (apiKey !== null && apiKey !== "") return apiKey;
  const authorization = headers.get("authorization");
  const bearer = authorization === null ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return bearer?.[1];
}
